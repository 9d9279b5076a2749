package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/store"
)

// Native fuzz tests of the input rules. Each holds two
// properties: hostile input is refused with a client error (4xx apierr.Error, never a
// panic), and whatever is accepted is something PostgreSQL can store: text without NUL
// characters, valid UTF-8 within the field's bound, integers of the column's width, uuids,
// JSON without NUL and within the nesting bound. The seeds are the audit's cases; CI runs
// each target for a short fixed time (.ci/run).

// wantClientError fails unless err is a 4xx apierr.Error with a message.
func wantClientError(t *testing.T, err error) {
	t.Helper()
	var e *apierr.Error
	if !errors.As(err, &e) || httpx.Status(e) < 400 || httpx.Status(e) >= 500 || e.Message == "" {
		t.Fatalf("want a 4xx apierr.Error, got %#v", err)
	}
}

// storableText fails unless s is text PostgreSQL takes within max characters.
func storableText(t *testing.T, what, s string, max int) {
	t.Helper()
	if strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s) || utf8.RuneCountInString(s) > max {
		t.Fatalf("%s accepted %q (%d characters, bound %d)", what, s, utf8.RuneCountInString(s), max)
	}
}

func FuzzCheckBody(f *testing.F) {
	for _, seed := range []string{
		`{"name":"a"}`, `{"name":"a\u0000b"}`, "{\"name\":\"\xff\xfe\"}", `{"data":{"\u0000":1}}`, `{"size_bytes":9223372036854775807}`,
		`{"position":2147483648}`, `{"priority":5}`, `{"assignee_ids":["x"]}`, `{"squads":["a\u0000"]}`, `{"kpis":[[[[[[1]]]]]]}`,
		`{"date":"2026-02-30"}`, `{"from_ts":"0000-01-01T00:00:00Z"}`, `{"amount":"12"}`, `{"amount":1e400}`, `[]`, `null`, `{`,
		`{"name":"` + strings.Repeat("x", 600) + `"}`, `{"entity_type":"deal","entity_id":"00000000-0000-0000-0000-000000000000","content":"c"}`,
	} {
		for i := 0; i < len(catalog); i += 11 { // a few resources per seed; the fuzzer varies which
			f.Add(uint8(i), []byte(seed), i%2 == 0)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, body []byte, create bool) {
		r := catalog[int(which)%len(catalog)]
		m, err := DecodeObject(body)
		if err != nil {
			wantClientError(t, err)
			return
		}
		set, err := checkBody(r, m, create)
		if err != nil {
			wantClientError(t, err)
			return
		}
		for _, a := range set {
			fld := a.field
			what := r.Name + "." + fld.Name
			switch v := a.value.(type) {
			case nil:
				if fld.Required || fld.Type == Bool || fld.Type == UUIDs || fld.Type == Strings {
					t.Fatalf("%s accepted null", what)
				}
			case string:
				checkScalar(t, what, fld, v)
			case []string:
				for _, s := range v {
					if fld.Type == UUIDs {
						if _, err := uuid.Parse(s); err != nil || len(s) != 36 {
							t.Fatalf("%s accepted the element %q", what, s)
						}
					}
					storableText(t, what, s, fld.MaxLength())
				}
			default:
				t.Fatalf("%s: unexpected parameter %T", what, v)
			}
		}
	})
}

// checkScalar checks an accepted scalar parameter against its column type.
func checkScalar(t *testing.T, what string, f *Field, v string) {
	t.Helper()
	switch f.Type {
	case String:
		storableText(t, what, v, f.MaxLength())
	case UUID:
		if _, err := uuid.Parse(v); err != nil || len(v) != 36 {
			t.Fatalf("%s accepted %q", what, v)
		}
	case Int:
		bits := 32
		if f.Big {
			bits = 64
		}
		if _, err := strconv.ParseInt(v, 10, bits); err != nil {
			t.Fatalf("%s accepted %q for a %d-bit column", what, v, bits)
		}
	case JSON:
		if !json.Valid([]byte(v)) || !utf8.ValidString(v) {
			t.Fatalf("%s accepted invalid JSON %q", what, v)
		}
		var decoded any
		_ = json.Unmarshal([]byte(v), &decoded)
		if depth(decoded) > MaxJSONDepth || hasNUL(decoded) {
			t.Fatalf("%s accepted %q (too deep, or NUL inside)", what, v)
		}
	case Date, Time:
		storableText(t, what, v, 64)
	}
}

func depth(v any) int {
	deepest := 0
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			deepest = max(deepest, depth(e))
		}
		return deepest + 1
	case map[string]any:
		for _, e := range x {
			deepest = max(deepest, depth(e))
		}
		return deepest + 1
	}
	return 0
}

func hasNUL(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.IndexByte(x, 0) >= 0
	case []any:
		for _, e := range x {
			if hasNUL(e) {
				return true
			}
		}
	case map[string]any:
		for k, e := range x {
			if strings.IndexByte(k, 0) >= 0 || hasNUL(e) {
				return true
			}
		}
	}
	return false
}

func FuzzListParams(f *testing.F) {
	for _, seed := range []string{
		"industry=%00", "industry=%ff%fe", "cursor=%%%garbage", "limit=0", "limit=201", "limit=99999999999999999999",
		"company_id=nope", "is_private=yes", "entity_type=deal", "due_date=0000-01-01", "a=1&a=2", "apikey=x&limit=5",
		"industry=" + strings.Repeat("x", 600), "status=%E2%80%AE", "%00=1",
	} {
		for i := 0; i < len(catalog); i += 11 {
			f.Add(uint8(i), seed)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, rawQuery string) {
		r := catalog[int(which)%len(catalog)]
		q, err := url.ParseQuery(rawQuery)
		if err != nil {
			return // the HTTP layer answers 400 before the list is parsed (wellFormedQuery)
		}
		params, err := ParseListParams(r, q)
		if err != nil {
			wantClientError(t, err)
			return
		}
		if params.Limit < 0 || params.Limit > MaxLimit {
			t.Fatalf("limit %d accepted", params.Limit)
		}
		for name, v := range params.Filters {
			fld, err := checkFilter(r, name, v)
			if err != nil {
				wantClientError(t, err)
				continue
			}
			what := r.Name + "?" + name
			storableText(t, what, v, fld.MaxLength())
			checkScalar(t, what, fld, v)
		}
	})
}

func FuzzCursor(f *testing.F) {
	key := []byte("fuzz cursor key")
	at, id := time.Unix(1_800_000_000, 123000).UTC(), uuid.MustParse("3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f")
	good := encodeCursor(key, "deals", position{at: at, id: id})
	sync := encodeCursor(key, "deals", position{at: at, id: id, order: OrderUpdated})
	for _, seed := range []string{good, sync, good + "=", strings.ToUpper(good), good[:len(good)-1], "", "%%%garbage", "AAAA", "\x00",
		strings.Repeat("A", 48), "-_-_"} {
		f.Add("deals", seed, false, int64(1_800_000_000_000_000), []byte("0123456789abcdef"))
		f.Add("people", seed, true, int64(-1), []byte{})
	}
	f.Fuzz(func(t *testing.T, resource, s string, updated bool, micros int64, id []byte) {
		order := OrderCreated
		if updated {
			order = OrderUpdated
		}
		// Whatever a client sends is refused with a 400, or is the exact cursor the server
		// issued for that position of that resource in that order.
		pos, err := decodeCursor(key, resource, order, s)
		if err != nil {
			wantClientError(t, err)
			if httpx.Status(store.AsError(err)) != http.StatusBadRequest {
				t.Fatalf("a bad cursor is %d, want 400", httpx.Status(store.AsError(err)))
			}
		} else if again := encodeCursor(key, resource, pos); again != s {
			t.Fatalf("accepted %q, which is not the canonical cursor %q of its position", s, again)
		}
		// Every issued cursor reads back as its position, and only for its resource and order.
		p := position{at: time.UnixMicro(micros).UTC(), order: order}
		copy(p.id[:], id)
		c := encodeCursor(key, resource, p)
		back, err := decodeCursor(key, resource, order, c)
		if err != nil || !back.at.Equal(p.at) || !bytes.Equal(back.id[:], p.id[:]) || back.order != order {
			t.Fatalf("cursor %q of %v reads back as %v, %v", c, p, back, err)
		}
		if _, err := decodeCursor(key, resource+"x", order, c); err == nil {
			t.Fatalf("a cursor of %q is accepted for %q", resource, resource+"x")
		}
		if _, err := decodeCursor(key, resource, 1-order, c); err == nil {
			t.Fatalf("a cursor of order %s is accepted for order %s", order, 1-order)
		}
	})
}
