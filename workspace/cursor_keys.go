package workspace

import (
	"crypto/hmac"
	"encoding/base64"
	"encoding/json"

	"github.com/agencyos/workspaced/apierr"
)

// Cursors of sorted and searched lists (docs/rest.md, "Finding records"). The order's
// cursors (cursor.go) carry one timestamp; a sort= walk carries its field's value, which
// may be any type or null, and a q= walk its rank and created_at. Such a cursor is
// base64url (no padding) of
//
//	JSON {"w": walk, "k": [key values as PostgreSQL prints them, null for NULL], "i": id} | HMAC-SHA256 tag (12 bytes)
//
// The tag covers the resource and the JSON, as for the order's cursors; the walk ("name",
// "-value", "q", "q,-created_at") must be the request's, so a cursor of another sort is a
// 400 rather than a page of another list. Values travel back as text parameters cast to
// the key's type, so they compare exactly as PostgreSQL issued them.

// keyPosition is where a sorted or searched page ended.
type keyPosition struct {
	Walk string    `json:"w"`
	Keys []*string `json:"k"`
	ID   string    `json:"i"`
}

func encodeKeyCursor(key []byte, resource string, p keyPosition) string {
	b, _ := json.Marshal(p) // strings and nulls only: cannot fail
	b = append(b, cursorMAC(key, resource, b)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeKeyCursor reads a cursor issued for resource's list walked by walk with n keys.
func decodeKeyCursor(key []byte, resource, walk string, n int, s string) (keyPosition, error) {
	bad := apierr.BadRequest("the cursor is not valid; pass next_cursor from the previous page of %s unchanged, or omit cursor for the first page", resource)
	b, err := cursorBytes(s)
	if err != nil || len(b) <= cursorTag || b[0] != '{' {
		return keyPosition{}, bad
	}
	payload, tag := b[:len(b)-cursorTag], b[len(b)-cursorTag:]
	if !hmac.Equal(tag, cursorMAC(key, resource, payload)) {
		return keyPosition{}, bad
	}
	var p keyPosition
	if json.Unmarshal(payload, &p) != nil || len(p.Keys) != n || !isUUID(p.ID) {
		return keyPosition{}, bad
	}
	if p.Walk != walk {
		return keyPosition{}, apierr.BadRequest("the cursor continues %s walked by %q, not %q; pass the same q and sort as the first page",
			resource, p.Walk, walk)
	}
	return p, nil
}
