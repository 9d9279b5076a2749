package mcp

import (
	"bytes"
	"context"
	"net/http"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// subscriptions/listen (2026-07-28) must open with notifications/subscriptions/acknowledged.
// mcp-go v1.2.1 queues the acknowledgement for the request's notification goroutine and,
// with nothing to subscribe to (this server offers no list_changed), returns the result at
// once; the goroutine may have taken the acknowledgement off the queue but not yet written
// it when the result is written, and then drops it (server/streamable_http.go: the drain
// finds the queue empty, done is closed under the writer's lock). About one stream in ten
// lost it under -race (TestListenAcknowledgesFirst). ackFirst makes the result wait until
// the acknowledgement has reached the response writer.

// maxAckWait bounds the wait: a writer that cannot stream drops notifications by design.
const maxAckWait = 2 * time.Second

type ackWatchKey struct{}

// ackWatch is closed once the acknowledgement is written.
type ackWatch struct {
	once sync.Once
	done chan struct{}
}

var ackMethod = []byte(`"` + string(mcpgo.MethodNotificationSubscriptionsAcknowledged) + `"`)

// ackWriter passes writes through and notes the acknowledgement's.
type ackWriter struct {
	http.ResponseWriter
	watch *ackWatch
}

func (a ackWriter) Write(p []byte) (int, error) {
	n, err := a.ResponseWriter.Write(p)
	if bytes.Contains(p, ackMethod) {
		a.watch.once.Do(func() { close(a.watch.done) })
	}
	return n, err
}

// Flush keeps the writer streamable for mcp-go.
func (a ackWriter) Flush() { http.NewResponseController(a.ResponseWriter).Flush() }

// Unwrap lets http.ResponseController reach the connection.
func (a ackWriter) Unwrap() http.ResponseWriter { return a.ResponseWriter }

// ackFirst watches the response of a subscriptions/listen request (its Mcp-Method header,
// which 2026-07-28 requires and mcp-go checks against the body).
func ackFirst(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Method") != string(mcpgo.MethodSubscriptionsListen) {
			next.ServeHTTP(w, r)
			return
		}
		watch := &ackWatch{done: make(chan struct{})}
		r = r.WithContext(context.WithValue(r.Context(), ackWatchKey{}, watch))
		next.ServeHTTP(ackWriter{w, watch}, r)
	})
}

// awaitAck is the after-listen hook: the result waits for the acknowledgement's write.
func awaitAck(ctx context.Context, _ any, _ *mcpgo.SubscriptionsListenRequest, _ *mcpgo.SubscriptionsListenResult) {
	watch, ok := ctx.Value(ackWatchKey{}).(*ackWatch)
	if !ok {
		return
	}
	t := time.NewTimer(maxAckWait)
	defer t.Stop()
	select {
	case <-watch.done:
	case <-t.C:
	case <-ctx.Done():
	}
}
