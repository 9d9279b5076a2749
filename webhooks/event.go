package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"
	"time"

	"github.com/agencyos/workspaced/enrich"
)

// Event is the body of every delivery (docs/webhooks.md).
type Event struct {
	ID          string    `json:"id"`
	Type        string    `json:"type"`
	CreatedAt   time.Time `json:"created_at"`
	WorkspaceID string    `json:"workspace_id"`
	// Sequence increases with every event of a workspace (with gaps): receivers order by it.
	Sequence int64           `json:"sequence"`
	Object   string          `json:"-"`
	ObjectID string          `json:"-"`
	Record   json.RawMessage `json:"-"`
	Changed  []string        `json:"-"`
	Data     EventData       `json:"data"`
}

// MarshalJSON fills data from the event's fields, so the body is made in one place.
func (e Event) MarshalJSON() ([]byte, error) {
	type plain Event
	p := plain(e)
	p.Data = EventData{Object: e.Object, ID: e.ObjectID, Record: e.Record, Changed: e.Changed}
	return json.Marshal(p)
}

// EventData says what changed: the resource, the record's id, the record as stored after
// the change (before it, for a detach), and for an update the fields that changed.
type EventData struct {
	Object  string          `json:"object"`
	ID      string          `json:"id,omitempty"`
	Record  json.RawMessage `json:"record,omitempty"`
	Changed []string        `json:"changed,omitempty"`
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }

// readAtMost reads at most n bytes of r: a receiver's answer is kept for the delivery log,
// never read whole.
func readAtMost(r io.Reader, n int) string {
	b, _ := io.ReadAll(io.LimitReader(r, int64(n)))
	return string(b)
}

// toValidUTF8 makes a response's first bytes storable as text.
func toValidUTF8(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// describeError says why an attempt got no answer, without the URL (which may carry a token
// in its query) and in words an admin can act on.
func describeError(err error) string {
	var netErr net.Error
	switch {
	case errors.Is(err, enrich.ErrBlockedAddress):
		return "refused: the endpoint's address is not public"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "no answer within the timeout"
	default:
		var opErr *net.OpError
		if errors.As(err, &opErr) {
			return "connection failed: " + opErr.Err.Error()
		}
		return "request failed"
	}
}
