package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/agencyos/workspaced/store/storetest"
)

// TestSettingConcurrentFirstUse: many requests asking for a setting that does not exist
// yet (the cursor key on a cold server's first lists) all get the one value that was
// stored, and none an error. A statement whose INSERT lost the race sees no row in its own
// snapshot, so Setting must look again.
func TestSettingConcurrentFirstUse(t *testing.T) {
	s := storetest.New(t)
	for round := range 20 {
		key := fmt.Sprintf("concurrent_first_use_%d", round)
		const n = 16
		var wg sync.WaitGroup
		got := make([]string, n)
		errs := make([]error, n)
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				got[i], errs[i] = s.Setting(context.Background(), key, func() string { return fmt.Sprint("value ", i) })
			}()
		}
		close(start)
		wg.Wait()
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("round %d, caller %d: %v", round, i, errs[i])
			}
			if got[i] != got[0] {
				t.Fatalf("round %d: callers disagree: %q and %q", round, got[0], got[i])
			}
		}
	}
}
