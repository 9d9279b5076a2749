package overload_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agencyos/workspaced/overload"
)

func acquire(t *testing.T, s *overload.Shares, keys ...string) func() {
	t.Helper()
	release, err := s.Acquire(context.Background(), keys...)
	if err != nil {
		t.Fatalf("Acquire(%q): %v", keys, err)
	}
	return release
}

func refusal(t *testing.T, err error) *overload.Refusal {
	t.Helper()
	var r *overload.Refusal
	if !errors.As(err, &r) {
		t.Fatalf("err = %v, want a *Refusal", err)
	}
	return r
}

// TestSharesFloodWaitsOnItself: a workspace at its share waits behind itself and is
// refused as its own doing, while another workspace is admitted at once.
func TestSharesFloodWaitsOnItself(t *testing.T) {
	s := overload.NewShares(overload.SharesConfig{Capacity: 4, Shares: []int{2, 2}, Wait: 50 * time.Millisecond})
	acquire(t, s, "A", "a1")
	acquire(t, s, "A", "a2")
	start := time.Now()
	_, err := s.Acquire(context.Background(), "A", "a3")
	if r := refusal(t, err); !r.Own || r.Share != 2 {
		t.Errorf("A over its share: %+v, want Own with share 2", r)
	}
	if waited := time.Since(start); waited < 50*time.Millisecond {
		t.Errorf("A was refused after %v, want after waiting 50ms", waited)
	}
	start = time.Now()
	acquire(t, s, "B", "b1")
	if waited := time.Since(start); waited > 10*time.Millisecond {
		t.Errorf("B waited %v with room in the class and its share", waited)
	}
	if got := s.InFlight(); got != 3 {
		t.Errorf("InFlight = %d, want 3", got)
	}
}

// TestSharesCredentialLevel: one credential of a workspace at its share leaves the
// workspace's other credentials their room.
func TestSharesCredentialLevel(t *testing.T) {
	s := overload.NewShares(overload.SharesConfig{Capacity: 8, Shares: []int{4, 1}, Wait: 20 * time.Millisecond})
	acquire(t, s, "A", "a1")
	_, err := s.Acquire(context.Background(), "A", "a1")
	if r := refusal(t, err); !r.Own || r.Share != 1 {
		t.Errorf("a1 over its share: %+v, want Own with share 1", r)
	}
	acquire(t, s, "A", "a2")
	if got := s.Held("A"); got != 2 {
		t.Errorf("Held(A) = %d, want 2", got)
	}
}

// TestSharesFullClassServesTheQuietFirst: with the class full, a place that frees goes to
// the waiting workspace holding the fewest, not to the flood that queued first; a request
// under its share that finds no place in time is refused as overload, not as its own.
func TestSharesFullClassServesTheQuietFirst(t *testing.T) {
	s := overload.NewShares(overload.SharesConfig{Capacity: 2, Shares: []int{2}, Wait: time.Second})
	releaseA := acquire(t, s, "A")
	acquire(t, s, "A")
	aDone, bDone := make(chan error, 1), make(chan error, 1)
	go func() { _, err := s.Acquire(context.Background(), "A"); aDone <- err }()
	time.Sleep(20 * time.Millisecond) // A queues first
	go func() { _, err := s.Acquire(context.Background(), "B"); bDone <- err }()
	time.Sleep(20 * time.Millisecond)
	releaseA()
	select {
	case err := <-bDone:
		if err != nil {
			t.Fatalf("B: %v", err)
		}
	case <-time.After(time.Second):
		t.Fatal("B was not admitted when A released a place")
	}
	// A's queued request never got the place B took; the class stayed full (A one, B one).
	if err := <-aDone; refusal(t, err).Own {
		t.Errorf("A's queued request, under its share in a full class: %v, want refused as overload", err)
	}

	quick := overload.NewShares(overload.SharesConfig{Capacity: 2, Shares: []int{2}, Wait: 20 * time.Millisecond})
	acquire(t, quick, "A")
	acquire(t, quick, "B")
	_, err := quick.Acquire(context.Background(), "C")
	if r := refusal(t, err); r.Own {
		t.Errorf("C under its share in a full class: %+v, want overload (not Own)", r)
	}
}

// TestSharesBoundedQueue: a key has at most its share of requests waiting; one more is
// refused at once.
func TestSharesBoundedQueue(t *testing.T) {
	s := overload.NewShares(overload.SharesConfig{Capacity: 4, Shares: []int{1}, Wait: time.Second})
	release := acquire(t, s, "A")
	go s.Acquire(context.Background(), "A") // waits
	time.Sleep(20 * time.Millisecond)
	start := time.Now()
	_, err := s.Acquire(context.Background(), "A")
	if r := refusal(t, err); !r.Own {
		t.Errorf("A beyond its queue: %+v, want Own", r)
	}
	if waited := time.Since(start); waited > 100*time.Millisecond {
		t.Errorf("refused after %v, want at once", waited)
	}
	release()
	release() // a second call is a no-op
	time.Sleep(20 * time.Millisecond)
	if got := s.InFlight(); got != 1 {
		t.Errorf("InFlight = %d after the waiter took the freed place, want 1", got)
	}
}
