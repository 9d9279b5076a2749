package ratelimit

import (
	"context"
	"strconv"
	"testing"
)

// BenchmarkTake measures one Limiter.Take (credential and workspace budgets, both
// allowing) per store: serial for the latency one request adds, parallel for throughput
// with 16 concurrent callers per core, as a loaded server has. The budgets are large
// enough never to deny.
func BenchmarkTake(b *testing.B) {
	for _, be := range backends() {
		cfg := Config{PerCredential: 1 << 40, PerWorkspace: 1 << 40}
		b.Run(be.name, func(b *testing.B) {
			be.configure(b)(&cfg)
			l := newLimiter(b, cfg)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if d, err := l.Take(ctx, "token", "ws"); err != nil || !d.Allowed {
					b.Fatal(d, err)
				}
			}
		})
		b.Run(be.name+"/parallel", func(b *testing.B) {
			be.configure(b)(&cfg)
			l := newLimiter(b, cfg)
			ctx := context.Background()
			b.ReportAllocs()
			b.SetParallelism(16)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				i := 0
				for pb.Next() {
					// Spread over credentials of one workspace, as many clients would.
					i++
					if d, err := l.Take(ctx, "token"+strconv.Itoa(i%64), "ws"); err != nil || !d.Allowed {
						b.Error(d, err)
						return
					}
				}
			})
		})
	}
}
