package mcp

import (
	"github.com/agencyos/workspaced/internal/jsonscan"

	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"
)

// A result's text is a compact rendering of its structured content, not the same JSON
// again (docs/mcp.md, "Results"). Clients that read only text still get every record, its
// id and its key values; a client that reads both does not pay for the data twice. A list
// is a table: a header of field names, then one tab-separated row per record; a column
// that reads the same in every row is said once below it ("every row: status=open", the
// value JSON-quoted when it holds ", "), columns null in every row are named ("empty:
// owner_id"), and text cells are cut at cellRunes. A record is "field: value" lines,
// nulls and empty objects left out, a nested object's fields as "field.name: value"
// (short values on one line, "grants: crm=full, hr=none"). In both, times are shown to
// the minute (2026-11-27T20:38Z) and the fields in textOmitted are left out and named on
// a last line; structured content carries every value as written. Text is bare unless it
// would be misread (empty, with a tab or line break, or starting with a quote or
// bracket), then JSON-quoted; a list of bare text without commas is comma-separated
// (scopes grouped by what they allow, "read+write: deals, people; read: activity"); other
// arrays are compact JSON.

// textOmitted are fields the text leaves out: the workspace is the caller's own (me
// names it), and a search's score only orders the hits, which the rows already are in.
var textOmitted = map[string]bool{"workspace_id": true, "score": true}

// cellRunes bounds a table cell's text (a note, a search snippet); a record's lines are
// shown whole.
const cellRunes = 60

// appendPage appends the rendering of a list's data and next_cursor.
func appendPage(out []byte, data json.RawMessage, nextCursor *string) []byte {
	out = renderTable(out, data)
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
	return appendValue(make([]byte, 0, len(v)+32), v) // a record's text is about 0.7 of its JSON: one allocation
}

// appendValue appends what renderValue renders.
func appendValue(out []byte, v json.RawMessage) []byte {
	v = bytes.TrimSpace(v)
	switch {
	case len(v) > 0 && v[0] == '{':
		var omitted []string
		if out, ok := appendFields(out, nil, v, &omitted); ok {
			return appendOmitted(out, omitted)
		}
	case len(v) > 0 && v[0] == '[':
		if _, ok := objects(v); ok {
			return renderTable(out, v)
		}
	}
	return appendCell(out, v, 0)
}

// appendFields appends an object's fields as "name: value" lines, a nested object's as
// "name.field: value", an array of objects as a table under "name:"; the textOmitted
// fields it meets are added to omitted. ok is false, and out unusable, when obj is not an
// object.
func appendFields(out, prefix []byte, obj json.RawMessage, omitted *[]string) ([]byte, bool) {
	m, ok := jsonscan.Object(obj)
	if !ok {
		return out, false
	}
	for k, v := m.Next(); k != nil; k, v = m.Next() {
		switch rows, table := objects(v); {
		case isNull(v), string(v) == "{}":
		case textOmitted[string(k)]:
			*omitted = append(*omitted, string(prefix)+string(k))
		case v[0] == '{':
			if line, ok := appendPairs(append(appendName(out, prefix, k), ": "...), v); ok {
				out = append(line, '\n')
				continue
			}
			nested := append(append(prefix[:len(prefix):len(prefix)], k...), '.')
			if o, ok := appendFields(out, nested, v, omitted); ok && len(o) > len(out) {
				out = o
				continue
			}
			out = appendLine(out, prefix, k, v)
		case table && len(rows) > 0:
			out = append(appendName(out, prefix, k), ":\n"...)
			out = renderTable(out, v)
		default:
			out = appendLine(out, prefix, k, v)
		}
	}
	return out, !m.Bad()
}

// pairMax bounds the values appendPairs puts on one line.
const pairMax = 16

// appendPairs appends an object of two or more short scalar values on one line,
// "crm=full, hr=none"; ok is false, and out unusable, for any other object.
func appendPairs(out []byte, obj json.RawMessage) ([]byte, bool) {
	m, ok := jsonscan.Object(obj)
	if !ok {
		return out, false
	}
	n := 0
	for k, v := m.Next(); k != nil; k, v = m.Next() {
		if len(v) > pairMax+2 || v[0] == '{' || v[0] == '[' || isNull(v) {
			return out, false
		}
		if n > 0 {
			out = append(out, ", "...)
		}
		out = appendCell(append(append(out, k...), '='), v, 0)
		n++
	}
	return out, n >= 2 && !m.Bad()
}

func appendName(out, prefix, name []byte) []byte { return append(append(out, prefix...), name...) }

func appendLine(out, prefix, name []byte, v json.RawMessage) []byte {
	out = append(appendName(out, prefix, name), ": "...)
	return append(appendCell(out, v, 0), '\n')
}

// appendOmitted names the fields the text left out, so a model reading only the text
// knows they exist.
func appendOmitted(out []byte, omitted []string) []byte {
	if len(omitted) == 0 {
		return out
	}
	out = append(out, "not shown: "...)
	for i, name := range omitted {
		if i > 0 {
			out = append(out, ", "...)
		}
		out = append(out, name...)
	}
	return append(out, '\n')
}

// renderTable appends an array of objects as a header line and one row per object; the
// columns are every field in the order first met, less those textOmitted names and, when
// there are two rows or more, those with one value in every row (said once, after the
// rows) or null in every row (named). An empty array is "(none)".
func renderTable(out []byte, arr json.RawMessage) []byte {
	rows, ok := objects(arr)
	if !ok {
		return append(appendCell(out, arr, 0), '\n')
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
			cells[i][k] = bytes.TrimSpace(values[j])
		}
	}
	var shown, empty, omitted []string
	var same []byte // "status=open, completed=false"
	for _, c := range cols {
		first, constant, null := cells[0][c], len(rows) > 1, true
		for _, row := range cells {
			v, ok := row[c]
			null = null && (!ok || isNull(v))
			constant = constant && ok && sameText(v, first)
		}
		switch {
		case textOmitted[c]:
			omitted = append(omitted, c)
		case null && len(rows) > 1:
			empty = append(empty, c)
		case constant && !isNull(first):
			if len(same) > 0 {
				same = append(same, ", "...)
			}
			same = append(append(same, c...), '=')
			if cell := appendCell(nil, first, cellRunes); bytes.Contains(cell, []byte(", ")) {
				same = appendJSONString(same, cell) // quoted: ", " separates the pairs
			} else {
				same = append(same, cell...)
			}
		default:
			shown = append(shown, c)
		}
	}
	out = append(out, strings.Join(shown, "\t")...)
	out = append(out, '\n')
	for _, row := range cells {
		for j, c := range shown {
			if j > 0 {
				out = append(out, '\t')
			}
			if v, ok := row[c]; ok && !isNull(v) {
				out = appendCell(out, v, cellRunes)
			}
		}
		out = append(out, '\n')
	}
	if len(same) > 0 {
		out = append(append(append(out, "every row: "...), same...), '\n')
	}
	if len(empty) > 0 {
		out = append(append(append(out, "empty: "...), strings.Join(empty, ", ")...), '\n')
	}
	return appendOmitted(out, omitted)
}

// sameText reports whether two values read the same in the text: equal as written, or
// rendered alike (times in the same minute), whole, not cut at cellRunes.
func sameText(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	if len(a) == 0 || len(b) == 0 || a[0] != '"' || b[0] != '"' {
		return false // only text renders other than as written
	}
	var scratch [2][64]byte
	return bytes.Equal(appendCell(scratch[0][:0], a, 0), appendCell(scratch[1][:0], b, 0))
}

// appendCell appends one value: text bare where it cannot be misread, a time to the
// minute, an array of such text comma-separated, numbers and booleans as written,
// anything else as compact JSON. With max > 0, text longer than max runes is cut there
// and ends in "…".
func appendCell(out []byte, v json.RawMessage, max int) []byte {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return out
	}
	switch v[0] {
	case '"':
		var text []byte
		ok := len(v) >= 2 && v[len(v)-1] == '"'
		if ok {
			text = v[1 : len(v)-1]
		}
		if ok && bytes.IndexByte(text, '\\') >= 0 { // escapes: decoded (rarely: a line break, a quote)
			var s string
			s, ok = jsonscan.Unquote(v)
			text = []byte(s)
		}
		if ok && bare(text) {
			if minute(text) {
				return append(append(out, text[:16]...), 'Z')
			}
			return appendCut(out, text, max)
		}
	case '[':
		var list []string
		if json.Unmarshal(v, &list) == nil && len(list) > 0 &&
			!slices.ContainsFunc(list, func(s string) bool { return !bare(s) || strings.Contains(s, ",") }) {
			return appendCut(out, []byte(joinGrouped(list)), max)
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

// joinGrouped joins text with ", "; a list whose items are all of the form
// "family:access" (scopes) is grouped by what each family may do, in the order first met:
// "read+write: deals, people; read: activity; write: enrich".
func joinGrouped(list []string) string {
	if slices.ContainsFunc(list, func(s string) bool { f, name, ok := strings.Cut(s, ":"); return !ok || !word(f) || !word(name) }) {
		return strings.Join(list, ", ")
	}
	var families []string
	access := map[string]string{} // family: its names joined by "+", in the order given
	for _, item := range list {
		f, name, _ := strings.Cut(item, ":")
		if a, seen := access[f]; seen {
			access[f] = a + "+" + name
			continue
		}
		families = append(families, f)
		access[f] = name
	}
	var groups []string
	members := map[string][]string{}
	for _, f := range families {
		a := access[f]
		if _, seen := members[a]; !seen {
			groups = append(groups, a)
		}
		members[a] = append(members[a], f)
	}
	var b strings.Builder
	for i, a := range groups {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(a + ": " + strings.Join(members[a], ", "))
	}
	return b.String()
}

// word reports whether s is a lower-case word: a letter, then letters, digits and
// underscores (so "10:30" is not a family and its access).
func word(s string) bool {
	return s != "" && s[0] >= 'a' && s[0] <= 'z' &&
		!strings.ContainsFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') })
}

// appendCut appends s, cut to max runes (none when max is 0) and then ending in "…".
func appendCut(out, s []byte, max int) []byte {
	if max <= 0 || len(s) <= max {
		return append(out, s...)
	}
	for i, n := 0, 0; i < len(s); n++ {
		if n == max {
			return append(append(out, s[:i]...), "…"...)
		}
		_, size := utf8.DecodeRune(s[i:])
		i += size
	}
	return append(out, s...)
}

// minute reports whether s is a UTC time as PostgreSQL writes it
// (2026-11-27T20:38:46.493991+00:00), whose first 16 bytes and a Z are it to the minute.
func minute(s []byte) bool {
	const layout = "dddd-dd-ddTdd:dd:dd"
	if len(s) < len(layout)+len("+00:00") || !bytes.HasSuffix(s, []byte("+00:00")) {
		return false
	}
	for i := range len(layout) {
		if c := s[i]; layout[i] == 'd' && (c < '0' || c > '9') || layout[i] != 'd' && c != layout[i] {
			return false
		}
	}
	fraction := s[len(layout) : len(s)-len("+00:00")]
	if len(fraction) == 0 {
		return true
	}
	if len(fraction) < 2 || fraction[0] != '.' {
		return false
	}
	for _, c := range fraction[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// The results rendered are JSON this server wrote (PostgreSQL's or encoding/json's), so
// members and objects split them with a scanner that finds where each value ends rather
// than decoding it: a get's record is rendered in a few microseconds.

// members splits a JSON object into its keys and raw values, in order.
func members(obj []byte) (keys []string, values []json.RawMessage, ok bool) {
	m, ok := jsonscan.Object(obj)
	if !ok {
		return nil, nil, false
	}
	keys, values = make([]string, 0, 16), make([]json.RawMessage, 0, 16) // a record's columns, mostly
	for k, v := m.Next(); k != nil; k, v = m.Next() {
		keys, values = append(keys, string(k)), append(values, v)
	}
	if m.Bad() {
		return nil, nil, false
	}
	return keys, values, true
}

// objects splits a JSON array whose items are all objects; ok is false for anything else.
func objects(arr []byte) ([]json.RawMessage, bool) {
	i := jsonscan.SkipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return nil, false
	}
	items := []json.RawMessage{}
	if i = jsonscan.SkipSpace(arr, i+1); i < len(arr) && arr[i] == ']' {
		return items, true
	}
	for i < len(arr) && arr[i] == '{' {
		end := jsonscan.ValueEnd(arr, i)
		if end < 0 {
			return nil, false
		}
		items = append(items, arr[i:end])
		if i = jsonscan.SkipSpace(arr, end); i < len(arr) && arr[i] == ',' {
			i = jsonscan.SkipSpace(arr, i+1)
			continue
		}
		return items, i < len(arr) && arr[i] == ']'
	}
	return nil, false
}

// bare reports whether text can be shown without quotes and not be misread.
func bare[T string | []byte](s T) bool {
	if len(s) == 0 || s[0] == '"' || s[0] == '[' || s[0] == '{' {
		return false
	}
	for i := range len(s) {
		if c := s[i]; c == '\t' || c == '\n' || c == '\r' {
			return false
		}
	}
	return true
}

func isNull(v json.RawMessage) bool { return string(bytes.TrimSpace(v)) == "null" }
