package restapi

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"time"

	"github.com/google/uuid"

	"github.com/agencyos/workspaced/store"
)

// Cursors are opaque to clients (decisions.md 4): base64url (no padding) of
//
//	created_at as Unix microseconds (8 bytes) | id (16 bytes) | HMAC-SHA256 tag (12 bytes)
//
// The tag covers the resource name and the position, so a cursor edited by hand, or taken
// from another resource's list, is a 400 bad_request rather than a silently different page.
// The key is Config.CursorKey, or else one made once and kept in service_settings, so every
// process of a deployment accepts the cursors of the others.

const (
	cursorPos = 8 + 16
	cursorTag = 12
	cursorLen = cursorPos + cursorTag
)

type position struct {
	createdAt time.Time
	id        uuid.UUID
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
	b := make([]byte, cursorPos, cursorLen)
	binary.BigEndian.PutUint64(b, uint64(p.createdAt.UnixMicro()))
	copy(b[8:], p.id[:])
	b = append(b, cursorMAC(key, resource, b)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(key []byte, resource, s string) (position, error) {
	bad := store.BadRequest("the cursor is not valid; pass next_cursor from the previous page of %s unchanged, or omit cursor for the first page", resource)
	b, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil || len(b) != cursorLen {
		return position{}, bad
	}
	if !hmac.Equal(b[cursorPos:], cursorMAC(key, resource, b[:cursorPos])) {
		return position{}, bad
	}
	var p position
	p.createdAt = time.UnixMicro(int64(binary.BigEndian.Uint64(b))).UTC()
	copy(p.id[:], b[8:cursorPos])
	return p, nil
}
