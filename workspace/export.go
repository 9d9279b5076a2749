package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/internal/jsonscan"
	"github.com/agencyos/workspaced/store"
)

// Export (docs/rest.md, "Export"): every record a list would return, as CSV or NDJSON,
// written page by page as List reads them (its gates, RLS, filters, q, sort and fields),
// so memory stays that of one page whatever the number of rows.

// The formats of an export.
const (
	ExportCSV    = "csv"
	ExportNDJSON = "ndjson"
)

// exportPage is the page size an export reads: the list's largest.
const exportPage = MaxLimit

// Export writes the records of r that params select to w in format, each page as it is
// read; flush, when not nil, is called after each page. Errors before the first byte
// (the list's: unknown_resource, insufficient_scope, insufficient_permission, bad_request
// for a bad filter or format) are returned with nothing written; a failure later is
// returned after the rows written so far, and the adapter can only cut the stream short.
// A page is laid out in a buffer while it is read (listRecords) and written to w once
// read, so a slow client never holds the page's connection.
func (o *Ops) Export(ctx context.Context, p *auth.Principal, r *Resource, params ListParams, format string, w io.Writer, flush func()) error {
	if format != ExportCSV && format != ExportNDJSON {
		return apierr.BadRequest("format must be csv or ndjson, got %q", clip(format))
	}
	// The list's gates, before a CSV header reads the custom field definitions; each
	// page checks them again (listRecords).
	if err := admit(p, r, OpList); err != nil {
		return err
	}
	if err := checkMember(p, r, OpList); err != nil {
		return err
	}
	params.Limit = exportPage
	var buf bytes.Buffer
	add := func(rec []byte) error {
		buf.Write(rec)
		buf.WriteByte('\n')
		return nil
	}
	if format == ExportCSV {
		cols, err := o.exportColumns(ctx, p, r, params.Fields)
		if err != nil {
			return err
		}
		cw := newCSVWriter(&buf, cols)
		cw.header()
		add = cw.record
	}
	for {
		next, err := o.listRecords(ctx, p, r, params, add)
		if err != nil {
			return err
		}
		if buf.Len() > 0 {
			if _, err := w.Write(buf.Bytes()); err != nil {
				return err
			}
			buf.Reset()
		}
		if flush != nil {
			flush()
		}
		if next == nil {
			return nil
		}
		params.Cursor = *next
	}
}

// exportColumns are a CSV export's header: the fields asked for (id first) or every
// column, with a resource's custom_fields spread into one custom_fields.<key> column per
// active definition, in the definitions' order.
func (o *Ops) exportColumns(ctx context.Context, p *auth.Principal, r *Resource, fields []string) ([]string, error) {
	cols := Columns(r)
	if fields != nil {
		cols = append([]string{"id"}, slices.DeleteFunc(slices.Clone(fields), func(f string) bool { return f == "id" })...)
	}
	if !r.Custom {
		return cols, nil
	}
	var keys []string
	if i := slices.Index(cols, customFieldsName); i >= 0 {
		defs, err := loadCustomFields(ctx, o.store, p, r.Name)
		if err != nil {
			return nil, readError(err)
		}
		for _, f := range activeFields(defs) {
			keys = append(keys, f.Path())
		}
		cols = slices.Replace(cols, i, i+1, keys...)
	}
	return cols, nil
}

// csvWriter lays records out as CSV rows of its columns into buf. It walks each record's
// JSON once (the object row_to_json gives, a jsonb member as PostgreSQL prints it) and
// keeps the values of the members that are columns, and of the custom_fields member's
// own members for its custom_fields.<key> columns, as slices of the record: nothing is
// decoded but a string that holds an escape. A column the record lacks is an empty cell.
type csvWriter struct {
	buf  *bytes.Buffer
	cols []string
	at   []csvColumn
	top  map[string]int // a member's slot in vals
	sub  map[string]int // a custom_fields member's slot in subs, by key
	// custom is the custom_fields member's slot in vals, -1 when no column needs it.
	custom int
	vals   [][]byte // the record's members' values by slot; nil when absent
	subs   [][]byte // its custom_fields members' values by slot
}

// csvColumn is where a column's value is: the member in vals[top], else, for
// custom_fields.<key>, its member in subs[sub] (-1 for other columns).
type csvColumn struct{ top, sub int }

func newCSVWriter(buf *bytes.Buffer, cols []string) *csvWriter {
	c := &csvWriter{buf: buf, cols: cols, top: map[string]int{}, sub: map[string]int{}, custom: -1}
	slot := func(m map[string]int, name string) int {
		i, ok := m[name]
		if !ok {
			i = len(m)
			m[name] = i
		}
		return i
	}
	for _, col := range cols {
		at := csvColumn{top: slot(c.top, col), sub: -1}
		if key, ok := strings.CutPrefix(col, customFieldsName+"."); ok {
			at.sub = slot(c.sub, key)
			c.custom = slot(c.top, customFieldsName)
		}
		c.at = append(c.at, at)
	}
	c.vals, c.subs = make([][]byte, len(c.top)), make([][]byte, len(c.sub))
	return c
}

// header writes the columns' names as the first row.
func (c *csvWriter) header() {
	row := c.buf.AvailableBuffer()
	for i, col := range c.cols {
		if i > 0 {
			row = append(row, ',')
		}
		row = appendCSVField(row, false, []byte(col))
	}
	c.buf.Write(append(row, '\n'))
}

// record writes the row of rec, a record's JSON object.
func (c *csvWriter) record(rec []byte) error {
	clear(c.vals)
	clear(c.subs)
	if err := members(rec, c.top, c.vals); err != nil {
		return store.Internal(fmt.Errorf("export: a record is not a JSON object: %w", err))
	}
	if c.custom >= 0 {
		if v := c.vals[c.custom]; len(v) > 0 && v[0] == '{' && members(v, c.sub, c.subs) != nil {
			clear(c.subs) // as if it had no members, as decoding it would have failed
		}
	}
	row := c.buf.AvailableBuffer() // appended in place while the buffer has room
	for i, at := range c.at {
		if i > 0 {
			row = append(row, ',')
		}
		v := c.vals[at.top]
		if v == nil && at.sub >= 0 {
			v = c.subs[at.sub]
		}
		row = appendCSVCell(row, v)
	}
	c.buf.Write(append(row, '\n'))
	return nil
}

// appendCSVCell appends a JSON value as a CSV cell: a string as its text, null (or no
// value) as empty, anything else as its JSON. A string a spreadsheet would run as a
// formula is neutralised (NeutraliseCell); numbers are JSON numbers, never strings, so -5
// stays -5.
func appendCSVCell(dst, v []byte) []byte {
	if len(v) == 0 || string(v) == "null" {
		return dst
	}
	if v[0] != '"' {
		return appendCSVField(dst, false, v)
	}
	if text, ok := plainString(v); ok {
		return appendCSVField(dst, formula(string(text[:min(len(text), 2)])), text)
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return appendCSVField(dst, false, v)
	}
	return appendCSVField(dst, formula(s), []byte(s))
}

// plainString returns the text of the JSON string v (quotes included) when it is the
// bytes between the quotes: no escape, no control character, valid UTF-8.
func plainString(v []byte) ([]byte, bool) {
	text := v[1 : len(v)-1]
	ascii := true
	for _, b := range text {
		if b < 0x20 || b == '\\' {
			return nil, false
		}
		ascii = ascii && b < utf8.RuneSelf
	}
	return text, ascii || utf8.Valid(text)
}

// appendCSVField appends a field (text, after a ' when neutralised) as encoding/csv's
// Writer writes it by default: quoted, its quotes doubled, when it holds a comma, a quote,
// CR or LF, starts with a space character or is \. (csv_test.go compares the two).
func appendCSVField(dst []byte, neutralised bool, text []byte) []byte {
	lead := ""
	if neutralised {
		lead = "'"
	}
	if !csvQuoted(lead, text) {
		return append(append(dst, lead...), text...)
	}
	dst = append(append(dst, '"'), lead...)
	for {
		i := bytes.IndexByte(text, '"')
		if i < 0 {
			break
		}
		dst = append(dst, text[:i+1]...)
		dst = append(dst, '"')
		text = text[i+1:]
	}
	return append(append(dst, text...), '"')
}

// csvQuoted reports whether encoding/csv's Writer quotes the field lead+text.
func csvQuoted(lead string, text []byte) bool {
	if lead == "" {
		if len(text) == 0 {
			return false
		}
		if string(text) == `\.` {
			return true
		}
	}
	if bytes.ContainsAny(text, "\n\r\",") {
		return true
	}
	first, _ := utf8.DecodeRune(text)
	if lead != "" {
		first, _ = utf8.DecodeRuneInString(lead)
	}
	return unicode.IsSpace(first)
}

// formulaStarts are the first characters that make a spreadsheet run a cell as a formula.
const formulaStarts = "=+-@\t\r"

// NeutraliseCell is a text cell of a CSV file this service writes (exports, errors.csv):
// one a spreadsheet would run as a formula (starting with =, +, -, @, tab or carriage
// return) gets a leading ', as OWASP's CSV injection advice says; so does one that already
// starts with ' followed by one of those or another ', so that RestoreCell, which an
// import applies to every CSV cell, gives back every text exactly (an export re-imported
// changes nothing).
func NeutraliseCell(s string) string {
	if formula(s) {
		return "'" + s
	}
	return s
}

// formula reports whether NeutraliseCell prefixes s; only its first two bytes count.
func formula(s string) bool {
	return s != "" && (strings.ContainsRune(formulaStarts, rune(s[0])) || quoted(s))
}

// RestoreCell undoes NeutraliseCell: a cell starting with ' followed by a formula's first
// character or another ' loses its first '. Any other cell is read as written.
func RestoreCell(s string) string {
	if quoted(s) {
		return s[1:]
	}
	return s
}

func quoted(s string) bool {
	return len(s) > 1 && s[0] == '\'' && strings.ContainsRune(formulaStarts+"'", rune(s[1]))
}

// members walks the JSON object obj and sets vals[slots[key]] to the value of each member
// whose key slots names, as a slice of obj (a later member of the same key wins, as
// decoding into a map keeps it). It checks the object's shape, not each value's grammar:
// obj is a record the database made.
func members(obj []byte, slots map[string]int, vals [][]byte) error {
	m, ok := jsonscan.Object(obj)
	if !ok {
		return errors.New("no object")
	}
	for k, v := m.Next(); k != nil; k, v = m.Next() {
		if slot, ok := slots[string(k)]; ok {
			vals[slot] = v
		}
	}
	if m.Bad() {
		return errors.New("a malformed object")
	}
	return nil
}
