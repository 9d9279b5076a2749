package restapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agencyos/workspaced/workspace"
)

// Conditional requests (RFC 9110 section 13; docs/rest.md, "ETag, If-None-Match,
// If-Match"). A record's version is its updated_at, which every update moves strictly
// forward (ws_touch, migration 00012); its entity tag is that instant in Unix microseconds,
// base 36, quoted: "lz8k2a4f0q". The tag is read from the record's own updated_at, so GET,
// PATCH, POST and a replayed POST agree.

// entityTag returns the strong entity tag of a record's JSON, or "" when it carries no
// updated_at. Every record is PostgreSQL's row_to_json of Columns, which puts updated_at
// last (TestUpdatedAtIsTheLastColumn), so the record ends with "updated_at":"<instant>"}:
// the tag is read from there rather than by decoding the record, which cost a scan of every
// field on every read (5% of a GET's server CPU). Searching from the end also skips a
// "updated_at" inside an earlier JSON field, and one inside a text field cannot match: its
// quotes are escaped.
func entityTag(record json.RawMessage) string {
	const key = `"updated_at":"`
	i := bytes.LastIndex(record, []byte(key))
	if i < 0 {
		return ""
	}
	instant := record[i+len(key):]
	end := bytes.IndexByte(instant, '"')
	if end < 0 {
		return ""
	}
	t, err := time.Parse(time.RFC3339Nano, string(instant[:end]))
	if err != nil || t.IsZero() {
		return ""
	}
	return `"` + strconv.FormatInt(t.UnixMicro(), 36) + `"`
}

// parseIfMatch reads an If-Match header; nil when absent or "*" (any current record).
// RFC 9110 section 13.1.1: If-Match compares strongly, so weak tags (W/"...") and tags this
// server never issued match nothing, and the update fails its precondition.
func parseIfMatch(h http.Header) *workspace.IfMatch {
	vals := h.Values("If-Match")
	if len(vals) == 0 {
		return nil
	}
	m := &workspace.IfMatch{Versions: []time.Time{}}
	for _, tag := range splitTags(vals) {
		if tag == "*" {
			return nil
		}
		if v, ok := tagVersion(tag); ok {
			m.Versions = append(m.Versions, v)
		}
	}
	return m
}

// noneMatch reports whether an If-None-Match header matches etag, so a GET answers 304.
// RFC 9110 section 13.1.2: the comparison is weak, so W/"x" matches "x".
func noneMatch(h http.Header, etag string) bool {
	if etag == "" {
		return false
	}
	for _, tag := range splitTags(h.Values("If-None-Match")) {
		if tag == "*" || strings.TrimPrefix(tag, "W/") == etag {
			return true
		}
	}
	return false
}

func splitTags(vals []string) []string {
	var out []string
	for _, v := range vals {
		for _, t := range strings.Split(v, ",") {
			if t = strings.TrimSpace(t); t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

// tagVersion reads the version of a strong tag this server issued.
func tagVersion(tag string) (time.Time, bool) {
	if len(tag) < 3 || tag[0] != '"' || tag[len(tag)-1] != '"' {
		return time.Time{}, false
	}
	us, err := strconv.ParseInt(tag[1:len(tag)-1], 36, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.UnixMicro(us).UTC(), true
}
