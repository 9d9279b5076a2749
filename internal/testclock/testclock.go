// Package testclock is the injectable clock tests hand to code that takes a Now function
// (oauth.Config.Now, admin.Config.Now): real time plus an offset the test moves, so
// expiry windows are crossed without sleeping.
package testclock

import (
	"sync"
	"time"
)

// Offset is real time plus an offset; the zero value is real time.
type Offset struct {
	mu     sync.Mutex
	offset time.Duration
}

// Now is the real time plus the offset.
func (c *Offset) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

// Advance moves the clock by d (negative to move it back).
func (c *Offset) Advance(d time.Duration) {
	c.mu.Lock()
	c.offset += d
	c.mu.Unlock()
}
