package workspace

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"slices"
	"strings"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
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
func (o *Ops) Export(ctx context.Context, p *auth.Principal, r *Resource, params ListParams, format string, w io.Writer, flush func()) error {
	if format != ExportCSV && format != ExportNDJSON {
		return apierr.BadRequest("format must be csv or ndjson, got %q", clip(format))
	}
	params.Limit = exportPage
	page, err := o.List(ctx, p, r, params)
	if err != nil {
		return err
	}
	var out exportWriter = &ndjsonWriter{w: w}
	if format == ExportCSV {
		cols, err := o.exportColumns(ctx, p, r, params.Fields)
		if err != nil {
			return err
		}
		cw := &csvWriter{w: csv.NewWriter(w), cols: cols}
		if err := cw.w.Write(cols); err != nil {
			return err
		}
		out = cw
	}
	for {
		var recs []json.RawMessage
		if err := json.Unmarshal(page.Data, &recs); err != nil {
			return store.Internal(err)
		}
		for _, rec := range recs {
			if err := out.record(rec); err != nil {
				return err
			}
		}
		if err := out.flush(); err != nil {
			return err
		}
		if flush != nil {
			flush()
		}
		if page.NextCursor == nil {
			return nil
		}
		params.Cursor = *page.NextCursor
		if page, err = o.List(ctx, p, r, params); err != nil {
			return err
		}
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

type exportWriter interface {
	record(json.RawMessage) error
	flush() error
}

type ndjsonWriter struct{ w io.Writer }

func (n *ndjsonWriter) record(rec json.RawMessage) error {
	if _, err := n.w.Write(rec); err != nil {
		return err
	}
	_, err := n.w.Write([]byte{'\n'})
	return err
}

func (n *ndjsonWriter) flush() error { return nil }

type csvWriter struct {
	w    *csv.Writer
	cols []string
	row  []string
}

func (c *csvWriter) record(rec json.RawMessage) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(rec, &m); err != nil {
		return store.Internal(err)
	}
	var custom map[string]json.RawMessage
	if raw, ok := m[customFieldsName]; ok {
		_ = json.Unmarshal(raw, &custom)
	}
	c.row = c.row[:0]
	for _, col := range c.cols {
		raw, ok := m[col]
		if key, isCustom := strings.CutPrefix(col, customFieldsName+"."); isCustom && !ok {
			raw = custom[key]
		}
		c.row = append(c.row, csvCell(raw))
	}
	return c.w.Write(c.row)
}

func (c *csvWriter) flush() error {
	c.w.Flush()
	return c.w.Error()
}

// csvCell is a JSON value as a CSV cell: a string as its text, null as empty, anything
// else as its JSON. A string a spreadsheet would run as a formula (starting with =, +, -,
// @, tab or carriage return) is prefixed with a single quote, as OWASP's CSV injection
// advice says; numbers are JSON numbers, never strings, so -5 stays -5.
func csvCell(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] != '"' {
		return string(raw)
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return string(raw)
	}
	return NeutraliseCell(s)
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
	if s != "" && (strings.ContainsRune(formulaStarts, rune(s[0])) || quoted(s)) {
		return "'" + s
	}
	return s
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
