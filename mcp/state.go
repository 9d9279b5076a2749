package mcp

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// The requestState of an input_required result (MCP 2026-07-28, multi round-trip
// requests) travels through the client and comes back on the retry; the client must not
// read it and cannot be trusted not to change it. It is sealed here with AES-256-GCM
// under Config.StateKey: the state names the tool, a digest of its arguments, the
// credential and an expiry, so a state cannot be read, forged, moved to another call or
// credential, or replayed after stateTTL. Replicas share the key (MCP_STATE_KEY), so any
// of them opens a state another sealed.

// StateKeySize is the length of Config.StateKey: an AES-256 key.
const StateKeySize = 32

// stateTTL is how long a sealed state may come back: enough for a person to read a
// confirmation and answer it.
const stateTTL = 10 * time.Minute

// stateAD binds sealed states to their purpose and format version.
var stateAD = []byte("workspaced mcp requestState v1")

// errState is the refusal of a state that does not open, has expired, or belongs to
// another call or credential; the caller answers it as invalid params.
var errState = errors.New("requestState is invalid or expired; call again without it to start over")

// sealedState is what a state carries.
type sealedState struct {
	Tool       string          `json:"t"`           // the tool or prompt it belongs to
	Args       string          `json:"a"`           // argsDigest of the call's arguments
	Credential string          `json:"c"`           // the credential's id
	Expires    int64           `json:"e"`           // Unix seconds
	Data       json.RawMessage `json:"d,omitempty"` // what the handler keeps between rounds
}

// sealer seals and opens states with one key.
type sealer struct{ aead cipher.AEAD }

// newSealer returns a sealer for key, which must be StateKeySize bytes; nil generates a
// key, good for one process only.
func newSealer(key []byte) (*sealer, error) {
	if key == nil {
		key = make([]byte, StateKeySize)
		_, _ = rand.Read(key) // crypto/rand.Read never fails (Go 1.24+)
	}
	if len(key) != StateKeySize {
		return nil, fmt.Errorf("mcp: StateKey must be %d bytes, not %d", StateKeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &sealer{aead: aead}, nil
}

// seal returns st as an opaque string, valid for stateTTL from now.
func (s *sealer) seal(st sealedState, now time.Time) string {
	st.Expires = now.Add(stateTTL).Unix()
	plain, _ := json.Marshal(st)
	nonce := make([]byte, s.aead.NonceSize())
	_, _ = rand.Read(nonce)
	return base64.RawURLEncoding.EncodeToString(s.aead.Seal(nonce, nonce, plain, stateAD))
}

// open returns the state sealed in text if it opens and has not expired; errState
// otherwise. What it belongs to is the caller's to check (belongs).
func (s *sealer) open(text string, now time.Time) (sealedState, error) {
	var st sealedState
	raw, err := base64.RawURLEncoding.DecodeString(text)
	n := s.aead.NonceSize()
	if err != nil || len(raw) < n+s.aead.Overhead() {
		return st, errState
	}
	plain, err := s.aead.Open(nil, raw[:n], raw[n:], stateAD)
	if err != nil || json.Unmarshal(plain, &st) != nil || now.Unix() > st.Expires {
		return sealedState{}, errState
	}
	return st, nil
}

// belongs reports whether st was sealed for this tool, arguments and credential.
func (st sealedState) belongs(tool, args, credential string) bool {
	return st.Tool == tool && st.Args == args && st.Credential == credential
}

// argsDigest is a digest of a call's arguments, leaving out confirmArg, so a state
// confirms exactly the call it was issued for. Arguments are compared as their canonical
// JSON (object keys sorted by encoding/json), so a client that re-serialises them in
// another key order still matches.
func argsDigest(raw json.RawMessage) string {
	var v map[string]any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil || v == nil {
		v = map[string]any{}
	}
	delete(v, confirmArg)
	canonical, _ := json.Marshal(v)
	sum := sha256.Sum256(canonical)
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
