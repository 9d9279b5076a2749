// Package jsonscan walks JSON already known to be well formed (written by this service,
// PostgreSQL or encoding/json, or checked by a decoder) by finding where each value ends
// instead of decoding it: splitting a record into its members takes microseconds and
// allocates nothing. It checks the shape of objects and arrays (braces, colons, commas,
// string ends), not each value's grammar.
package jsonscan

import (
	"bytes"
	"encoding/json"
)

// Unquote reads a JSON string; one without escapes is its own bytes.
func Unquote(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1]), true
	}
	var s string
	return s, json.Unmarshal(v, &s) == nil
}

// Members walks a JSON object's members in order without allocating: Object, then Next
// until its key is nil; Bad then tells whether the object was malformed.
type Members struct {
	obj   []byte
	i     int  // where the next member (or the closing brace) starts
	comma bool // the last member was followed by a comma: another must follow
	done  bool
	bad   bool
}

// Object starts scanning obj; ok is false when obj is not an object.
func Object(obj []byte) (Members, bool) {
	i := SkipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return Members{}, false
	}
	return Members{obj: obj, i: SkipSpace(obj, i+1)}, true
}

// Next returns the next member's key (unescaped: a slice of the object unless it holds
// an escape) and raw value, or a nil key at the end of the object or at a fault (bad).
func (m *Members) Next() (key, value []byte) {
	obj, i := m.obj, m.i
	if m.done {
		return nil, nil
	}
	if i < len(obj) && obj[i] == '}' && !m.comma {
		m.done = true
		return nil, nil
	}
	if i >= len(obj) || obj[i] != '"' {
		return m.fail()
	}
	end := ValueEnd(obj, i)
	if end < 0 {
		return m.fail()
	}
	key = obj[i+1 : end-1]
	if bytes.IndexByte(key, '\\') >= 0 {
		k, ok := Unquote(obj[i:end])
		if !ok {
			return m.fail()
		}
		key = []byte(k)
	}
	if i = SkipSpace(obj, end); i >= len(obj) || obj[i] != ':' {
		return m.fail()
	}
	i = SkipSpace(obj, i+1)
	if end = ValueEnd(obj, i); end < 0 {
		return m.fail()
	}
	value = obj[i:end]
	m.comma = false
	switch i = SkipSpace(obj, end); {
	case i < len(obj) && obj[i] == ',':
		m.i, m.comma = SkipSpace(obj, i+1), true
	case i < len(obj) && obj[i] == '}':
		m.i = i
	default:
		m.i = len(obj) // a fault, found at the next call
	}
	return key, value
}

// Bad reports whether Next stopped at a fault rather than at the object's end.
func (m *Members) Bad() bool { return m.bad }

func (m *Members) fail() ([]byte, []byte) {
	m.bad, m.done = true, true
	return nil, nil
}

// ValueEnd returns the index just past the JSON value starting at b[i], or -1.
func ValueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return -1
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				k := ValueEnd(b, j)
				if k < 0 {
					return -1
				}
				j = k - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && !IsSpace(b[j]) {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// SkipSpace returns the index of the first byte from i on that is not JSON white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && IsSpace(b[i]) {
		i++
	}
	return i
}

// IsSpace reports whether c is JSON white space.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
