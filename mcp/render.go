package mcp

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// A result's text is a compact rendering of its structured content, not the same JSON
// again (docs/mcp.md, "Results"): clients that read only text still get every value, and a
// client that reads both does not pay for the data twice. A list is a table: a header of
// its field names, then one tab-separated row per record, a null an empty cell; a record is
// "field: value" lines, nulls left out, a nested object's fields as "field.name: value".
// Text is bare unless it would be misread (empty, with a tab or line break, or starting
// with a quote or bracket), then JSON-quoted; a list of bare text without commas is
// comma-separated; other arrays are compact JSON.

// renderPage renders a list's data and next_cursor.
func renderPage(data json.RawMessage, nextCursor *string) []byte {
	out := renderTable(make([]byte, 0, len(data)*2/3+32), data)
	if nextCursor != nil {
		out = append(out, "next_cursor: "...)
		out = append(out, *nextCursor...)
		out = append(out, '\n')
	}
	return out
}

// renderValue renders any structured content: an object as field lines (an array of
// objects among them as a table under its name), an array of objects as a table.
func renderValue(v json.RawMessage) []byte {
	v = bytes.TrimSpace(v)
	out := make([]byte, 0, len(v)*2/3+32)
	switch {
	case len(v) > 0 && v[0] == '{':
		if out, ok := appendFields(out, "", v); ok {
			return out
		}
	case len(v) > 0 && v[0] == '[':
		if _, ok := objects(v); ok {
			return renderTable(out, v)
		}
	}
	return appendCell(out, v)
}

// appendFields appends an object's fields as "name: value" lines, a nested object's as
// "name.field: value", an array of objects as a table under "name:".
func appendFields(out []byte, prefix string, obj json.RawMessage) ([]byte, bool) {
	keys, values, ok := members(obj)
	if !ok {
		return out, false
	}
	for i, k := range keys {
		v := bytes.TrimSpace(values[i])
		switch rows, table := objects(v); {
		case isNull(v):
		case len(v) > 0 && v[0] == '{':
			if o, ok := appendFields(out, prefix+k+".", v); ok && len(o) > len(out) {
				out = o
				continue
			}
			out = appendLine(out, prefix+k, v)
		case table && len(rows) > 0:
			out = append(out, prefix+k+":\n"...)
			out = renderTable(out, v)
		default:
			out = appendLine(out, prefix+k, v)
		}
	}
	return out, true
}

func appendLine(out []byte, name string, v json.RawMessage) []byte {
	out = append(append(out, name...), ": "...)
	return append(appendCell(out, v), '\n')
}

// renderTable appends an array of objects as a header line and one row per object; the
// columns are every field in the order first met. An empty array is "(none)".
func renderTable(out []byte, arr json.RawMessage) []byte {
	rows, ok := objects(arr)
	if !ok {
		return append(appendCell(out, arr), '\n')
	}
	if len(rows) == 0 {
		return append(out, "(none)\n"...)
	}
	var cols []string
	index := map[string]int{}
	cells := make([]map[string]json.RawMessage, len(rows))
	for i, row := range rows {
		keys, values, _ := members(row)
		cells[i] = make(map[string]json.RawMessage, len(keys))
		for j, k := range keys {
			if _, seen := index[k]; !seen {
				index[k] = len(cols)
				cols = append(cols, k)
			}
			cells[i][k] = values[j]
		}
	}
	out = append(out, strings.Join(cols, "\t")...)
	out = append(out, '\n')
	for _, row := range cells {
		for j, c := range cols {
			if j > 0 {
				out = append(out, '\t')
			}
			if v, ok := row[c]; ok && !isNull(v) {
				out = appendCell(out, v)
			}
		}
		out = append(out, '\n')
	}
	return out
}

// appendCell appends one value: text bare where it cannot be misread, an array of such
// text comma-separated, numbers and booleans as written, anything else as compact JSON.
func appendCell(out []byte, v json.RawMessage) []byte {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return out
	}
	switch v[0] {
	case '"':
		if len(v) >= 2 && v[len(v)-1] == '"' && bytes.IndexByte(v, '\\') < 0 { // no escapes: its own bytes
			if raw := v[1 : len(v)-1]; bare(string(raw)) {
				return append(out, raw...)
			}
		} else if s, ok := unquote(v); ok && bare(s) {
			return append(out, s...)
		}
	case '[':
		var list []string
		if json.Unmarshal(v, &list) == nil && len(list) > 0 &&
			!slices.ContainsFunc(list, func(s string) bool { return !bare(s) || strings.Contains(s, ",") }) {
			return append(out, strings.Join(list, ", ")...)
		}
	case '{':
	default: // a number, true or false, written without spaces
		return append(out, v...)
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return append(out, v...)
	}
	return append(out, b.Bytes()...)
}

// unquote reads a JSON string; one without escapes is its own bytes.
func unquote(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1]), true
	}
	var s string
	return s, json.Unmarshal(v, &s) == nil
}

// The results rendered are JSON this server wrote (PostgreSQL's or encoding/json's), so
// members and objects split them with a scanner that finds where each value ends rather
// than decoding it: a get's record is rendered in a few microseconds.

// members splits a JSON object into its keys and raw values, in order.
func members(obj []byte) (keys []string, values []json.RawMessage, ok bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil, nil, false
	}
	if i = skipSpace(obj, i+1); i < len(obj) && obj[i] == '}' {
		return nil, nil, true
	}
	keys, values = make([]string, 0, 16), make([]json.RawMessage, 0, 16) // a record's columns, mostly
	for i < len(obj) && obj[i] == '"' {
		end := skipValue(obj, i)
		if end < 0 {
			return nil, nil, false
		}
		k, ok := unquote(obj[i:end])
		if i = skipSpace(obj, end); !ok || i >= len(obj) || obj[i] != ':' {
			return nil, nil, false
		}
		i = skipSpace(obj, i+1)
		if end = skipValue(obj, i); end < 0 {
			return nil, nil, false
		}
		keys, values = append(keys, k), append(values, obj[i:end])
		if i = skipSpace(obj, end); i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
			continue
		}
		return keys, values, i < len(obj) && obj[i] == '}'
	}
	return nil, nil, false
}

// objects splits a JSON array whose items are all objects; ok is false for anything else.
func objects(arr []byte) ([]json.RawMessage, bool) {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return nil, false
	}
	items := []json.RawMessage{}
	if i = skipSpace(arr, i+1); i < len(arr) && arr[i] == ']' {
		return items, true
	}
	for i < len(arr) && arr[i] == '{' {
		end := skipValue(arr, i)
		if end < 0 {
			return nil, false
		}
		items = append(items, arr[i:end])
		if i = skipSpace(arr, end); i < len(arr) && arr[i] == ',' {
			i = skipSpace(arr, i+1)
			continue
		}
		return items, i < len(arr) && arr[i] == ']'
	}
	return nil, false
}

// skipValue returns the index just past the JSON value starting at b[i], or -1.
func skipValue(b []byte, i int) int {
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
				k := skipValue(b, j)
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
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && !isSpace(b[j]) {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// bare reports whether text can be shown without quotes and not be misread.
func bare(s string) bool {
	return s != "" && !strings.ContainsAny(s, "\t\n\r") && s[0] != '"' && s[0] != '[' && s[0] != '{'
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }
