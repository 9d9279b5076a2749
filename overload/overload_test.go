package overload

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

func TestBound(t *testing.T) {
	b := NewBound(2)
	for i := range 2 {
		if !b.Enter() {
			t.Fatalf("request %d of 2 was refused", i+1)
		}
	}
	if b.Enter() {
		t.Fatal("a third request in flight was admitted with a bound of 2")
	}
	b.Leave()
	if !b.Enter() {
		t.Fatal("a request was refused after one in flight ended")
	}
	if n := b.InFlight(); n != 2 {
		t.Errorf("in flight %d, want 2", n)
	}
	unbounded := NewBound(0)
	for range 1000 {
		if !unbounded.Enter() {
			t.Fatal("a bound of 0 refused a request")
		}
	}
}

func TestBreakerOpensOnTimeoutsInARow(t *testing.T) {
	var changes []bool
	b := NewBreaker(BreakerConfig{Threshold: 3, OnChange: func(open bool) { changes = append(changes, open) }})
	timeout := fmt.Errorf("store: %w", context.DeadlineExceeded)
	b.Observe(timeout)
	b.Observe(timeout)
	b.Observe(nil) // an answer between them: the count starts again
	b.Observe(timeout)
	b.Observe(timeout)
	b.Observe(errors.New("a refused statement")) // says nothing either way
	b.Observe(context.Canceled)                  // the client went away: not the database
	if b.Open() {
		t.Fatal("open after two timeouts in a row")
	}
	b.Observe(&pgconn.PgError{Code: "57014"}) // statement_timeout
	if !b.Open() {
		t.Fatal("closed after three timeouts in a row")
	}
	b.Observe(nil)
	if b.Open() {
		t.Fatal("still open after a success")
	}
	if fmt.Sprint(changes) != "[true false]" {
		t.Errorf("changes %v, want [true false]", changes)
	}
	never := NewBreaker(BreakerConfig{Threshold: 0})
	for range 100 {
		never.Observe(timeout)
	}
	if never.Open() {
		t.Error("a breaker with threshold 0 opened")
	}
}

func TestBreakerProbesUntilTheDatabaseAnswers(t *testing.T) {
	var probes atomic.Int32
	b := NewBreaker(BreakerConfig{Threshold: 1, ProbeEvery: time.Millisecond, Probe: func(ctx context.Context) error {
		if probes.Add(1) < 3 {
			return context.DeadlineExceeded
		}
		return nil
	}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { b.Run(ctx); close(done) }()
	b.Observe(context.DeadlineExceeded)
	deadline := time.Now().Add(10 * time.Second)
	for b.Open() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if b.Open() {
		t.Fatal("still open 10s after the probe began answering")
	}
	if n := probes.Load(); n != 3 {
		t.Errorf("%d probes, want 3 (two failures, then the answer)", n)
	}
	cancel()
	<-done
}
