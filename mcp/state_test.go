package mcp

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// TestSealedState: a state opens with its key until stateTTL has passed, and then no
// more; under another key, or with any byte changed, it never opens. A replica with the
// same key opens what another sealed.
func TestSealedState(t *testing.T) {
	key := bytes.Repeat([]byte{7}, StateKeySize)
	a, err := newSealer(key)
	if err != nil {
		t.Fatal(err)
	}
	replica, _ := newSealer(bytes.Clone(key))
	stranger, _ := newSealer(nil)
	now := time.Unix(1_800_000_000, 0)
	st := sealedState{Tool: "detach_deal_labels", Args: argsDigest(json.RawMessage(`{"deal_id":"d","label_id":"l"}`)),
		Credential: "agent_key:k", Data: json.RawMessage(`{"round":1}`)}
	text := a.seal(st, now)
	got, err := replica.open(text, now.Add(stateTTL-time.Second))
	if err != nil || !got.belongs(st.Tool, st.Args, st.Credential) || string(got.Data) != `{"round":1}` {
		t.Fatalf("the replica opened %+v, %v", got, err)
	}
	if _, err := a.open(text, now.Add(stateTTL+2*time.Second)); err != errState {
		t.Fatalf("an expired state opened: %v", err)
	}
	if _, err := stranger.open(text, now); err != errState {
		t.Fatalf("a state opened under another key: %v", err)
	}
	raw := []byte(text)
	for i := range raw {
		changed := bytes.Clone(raw)
		changed[i] ^= 1
		if _, err := a.open(string(changed), now); err == nil {
			t.Fatalf("a state with byte %d changed opened", i)
		}
	}
	// The digest ignores key order and the confirm argument, and nothing else.
	if argsDigest(json.RawMessage(`{"label_id":"l","deal_id":"d","confirm":"x"}`)) != st.Args ||
		argsDigest(json.RawMessage(`{"deal_id":"d","label_id":"m"}`)) == st.Args {
		t.Fatal("argsDigest does not compare arguments as their canonical JSON without confirm")
	}
	if _, err := newSealer([]byte("short")); err == nil {
		t.Fatal("a key of the wrong size was accepted")
	}
}
