package workspace

import (
	"fmt"
	"time"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/store"
)

// The bounds and windows callers are told about are constants (DefaultLimit, MaxLimit,
// DefaultSearchLimit, MaxSearchLimit, store.IdempotencyTTL, RotationOverlap); the
// messages and documents that state them are built here from them, so none is written
// out twice (TestLimitsWordedFromConstants).

// ListLimitRange words a list's page size for documents: "1 to 200, default 50".
func ListLimitRange() string { return fmt.Sprintf("1 to %d, default %d", MaxLimit, DefaultLimit) }

// BadLimit is the 400 for a page size outside 1 to max (default def); got is the value
// as the caller words it (quoted, clipped).
func BadLimit(max, def int, got string) *apierr.Error {
	return apierr.BadRequest("limit must be an integer from 1 to %d (default %d), got %s", max, def, got)
}

// IdempotencyWindow words how long an idempotency key replays: "24 hours".
func IdempotencyWindow() string { return InWords(store.IdempotencyTTL) }

// InWords says a whole number of hours or minutes the way people do ("24 hours", "1
// minute"); anything else as Go prints it.
func InWords(d time.Duration) string {
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "hour"}, {time.Minute, "minute"}} {
		if d > 0 && d%u.d == 0 {
			n := int64(d / u.d)
			if n == 1 {
				return "1 " + u.name
			}
			return fmt.Sprintf("%d %ss", n, u.name)
		}
	}
	return d.String()
}
