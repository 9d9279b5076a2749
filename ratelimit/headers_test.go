package ratelimit

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestSetHeaders(t *testing.T) {
	reset := time.Unix(1_800_000_000, 0)
	for _, tc := range []struct {
		name string
		d    Decision
		want http.Header
	}{
		{
			name: "allowed: no Retry-After",
			d:    Decision{Allowed: true, Limit: 60, Remaining: 12, Reset: reset},
			want: http.Header{
				"X-Ratelimit-Limit":     {"60"},
				"X-Ratelimit-Remaining": {"12"},
				"X-Ratelimit-Reset":     {"1800000000"},
			},
		},
		{
			name: "denied: Retry-After 60 (docs/contract.md section 7)",
			d:    Decision{Allowed: false, Limit: 600, Remaining: 0, Reset: reset},
			want: http.Header{
				"X-Ratelimit-Limit":     {"600"},
				"X-Ratelimit-Remaining": {"0"},
				"X-Ratelimit-Reset":     {"1800000000"},
				"Retry-After":           {"60"},
			},
		},
		{
			name: "store unreachable, refused: Retry-After only, no budget headers",
			d:    Decision{Allowed: false, Degraded: true, Limit: 60, Reset: reset},
			want: http.Header{"Retry-After": {"5"}},
		},
		{
			name: "store unreachable, let through (fail open): no headers",
			d:    Decision{Allowed: true, Degraded: true, Limit: 60, Reset: reset},
			want: http.Header{},
		},
		{
			name: "reset rounds up to the next second",
			d:    Decision{Allowed: true, Limit: 60, Remaining: 0, Reset: reset.Add(time.Millisecond)},
			want: http.Header{
				"X-Ratelimit-Limit":     {"60"},
				"X-Ratelimit-Remaining": {"0"},
				"X-Ratelimit-Reset":     {"1800000001"},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			tc.d.SetHeaders(h)
			if diff := cmp.Diff(tc.want, h); diff != "" {
				t.Errorf("headers (-want +got):\n%s", diff)
			}
		})
	}

	// A handler that set Retry-After for another reason loses it once allowed.
	h := http.Header{"Retry-After": {"60"}}
	Decision{Allowed: true, Reset: reset}.SetHeaders(h)
	if h.Get("Retry-After") != "" {
		t.Error("Retry-After kept on an allowed decision")
	}
}
