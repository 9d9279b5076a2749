package workspace

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/store"
)

// Cursors are opaque to clients (docs/decisions.md 4): base64url (no padding) of
//
//	created_at as Unix microseconds (8 bytes) | id (16 bytes) | HMAC-SHA256 tag (12 bytes)
//
// and, for lists in order=updated_at (incremental sync, docs/rest.md),
//
//	updated_at as Unix microseconds (8 bytes) | id (16 bytes) | 'u' | HMAC-SHA256 tag (12 bytes)
//
// The tag covers the resource name and the position with its order, so a cursor edited by
// hand, taken from another resource's list, or from a list in the other order, is a 400
// bad_request rather than a silently different page.
// The key is Config.CursorKey, or else one made once and kept in service_settings, so every
// process of a deployment accepts the cursors of the others.

const (
	cursorPos = 8 + 16
	cursorTag = 12
	cursorLen = cursorPos + cursorTag
)

// updatedMark ends the position of a cursor in order=updated_at.
const updatedMark = 'u'

// position is where a page ended: the order's timestamp and the id of its last record.
type position struct {
	at    time.Time
	id    uuid.UUID
	order Order
}

func (o *Ops) key(ctx context.Context) ([]byte, error) {
	o.keyMu.Lock()
	k := o.cursorKey
	o.keyMu.Unlock()
	if k != nil {
		return k, nil
	}
	// The lock is not held across the query: with the database down, every list request
	// would queue behind one another's deadline. Concurrent first loads agree (Setting).
	v, err := o.store.Setting(ctx, "cursor_key", func() string {
		var b [32]byte
		_, _ = rand.Read(b[:])
		return hex.EncodeToString(b[:])
	})
	if err != nil {
		return nil, store.Internal(err)
	}
	o.keyMu.Lock()
	defer o.keyMu.Unlock()
	o.cursorKey = []byte(v)
	return o.cursorKey, nil
}

func cursorMAC(key []byte, resource string, pos []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(resource))
	m.Write([]byte{0})
	m.Write(pos)
	return m.Sum(nil)[:cursorTag]
}

func encodeCursor(key []byte, resource string, p position) string {
	b := make([]byte, cursorPos, cursorLen+1)
	binary.BigEndian.PutUint64(b, uint64(p.at.UnixMicro()))
	copy(b[8:], p.id[:])
	if p.order == OrderUpdated {
		b = append(b, updatedMark)
	}
	b = append(b, cursorMAC(key, resource, b)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// cursorBytes decodes a cursor's text, which has one spelling: the base64 decoder skips
// CR and LF even in strict mode, so a cursor holding them is refused before decoding
// (FuzzCursor found one accepted with a newline inside).
func cursorBytes(s string) ([]byte, error) {
	if strings.ContainsAny(s, "\r\n") {
		return nil, base64.CorruptInputError(strings.IndexAny(s, "\r\n"))
	}
	return base64.RawURLEncoding.Strict().DecodeString(s)
}

// decodeCursor reads a cursor issued for resource's list in order.
func decodeCursor(key []byte, resource string, order Order, s string) (position, error) {
	bad := apierr.BadRequest("the cursor is not valid; pass next_cursor from the previous page of %s unchanged, or omit cursor for the first page", resource)
	b, err := cursorBytes(s)
	if err != nil || len(b) != cursorLen && len(b) != cursorLen+1 {
		return position{}, bad
	}
	pos, tag := b[:len(b)-cursorTag], b[len(b)-cursorTag:]
	if !hmac.Equal(tag, cursorMAC(key, resource, pos)) {
		return position{}, bad
	}
	p := position{order: OrderCreated}
	if len(pos) == cursorPos+1 && pos[cursorPos] == updatedMark {
		p.order = OrderUpdated
	}
	if p.order != order {
		return position{}, apierr.BadRequest("the cursor continues %s in order=%s, not order=%s; pass the same order as the first page",
			resource, p.order, order)
	}
	p.at = time.UnixMicro(int64(binary.BigEndian.Uint64(pos))).UTC()
	copy(p.id[:], pos[8:cursorPos])
	return p, nil
}
