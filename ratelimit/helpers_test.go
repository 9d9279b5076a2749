package ratelimit

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"
)

// testRedisURL is the Redis the tests use: REDIS_TEST_URL, or the one every developer
// machine and CI runs on loopback.
func testRedisURL() string {
	if u := os.Getenv("REDIS_TEST_URL"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/0"
}

// downRedisURL points at a closed port: connections are refused at once.
const downRedisURL = "redis://127.0.0.1:1/0"

// redisPrefix checks that the test Redis answers and returns a key prefix no other test
// or run uses, deleting its keys when the test ends. It fails rather than skips: the
// Redis tests are the point of the package.
func redisPrefix(tb testing.TB) string {
	tb.Helper()
	opt, err := rueidis.ParseURL(testRedisURL())
	if err != nil {
		tb.Fatal(err)
	}
	c, err := rueidis.NewClient(opt)
	if err != nil {
		tb.Fatalf("test Redis at %s: %v (start it, see README.md, or set REDIS_TEST_URL)", testRedisURL(), err)
	}
	prefix := fmt.Sprintf("test:ratelimit:%s:%d:%d", strings.ReplaceAll(tb.Name(), "/", "."), os.Getpid(), time.Now().UnixNano())
	tb.Cleanup(func() {
		defer c.Close()
		ctx := context.Background()
		for cursor := uint64(0); ; {
			e, err := c.Do(ctx, c.B().Scan().Cursor(cursor).Match(prefix+":*").Count(100).Build()).AsScanEntry()
			if err != nil {
				tb.Errorf("cleaning %s: %v", prefix, err)
				return
			}
			if len(e.Elements) > 0 {
				if err := c.Do(ctx, c.B().Del().Key(e.Elements...).Build()).Error(); err != nil {
					tb.Errorf("cleaning %s: %v", prefix, err)
					return
				}
			}
			if cursor = e.Cursor; cursor == 0 {
				return
			}
		}
	})
	return prefix
}
