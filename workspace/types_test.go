package workspace

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/httpx"
)

// TestFilterValues sends good and bad filter values of every filterable type: a bad one is
// a 400 before any SQL runs, so no value reaches PostgreSQL that its column would refuse
// (a Number or Time filter once went through unchecked).
func TestFilterValues(t *testing.T) {
	big := Field{Name: "size", Type: Int, Big: true}
	cases := []struct {
		field     Field
		good, bad []string
	}{
		{Field{Name: "name", Type: String}, []string{"Acme"}, []string{"a\x00b", ""}},
		{Field{Name: "stage", Type: String, Enum: []string{"lead", "won"}}, []string{"won"}, []string{"lost"}},
		{Field{Name: "owner_id", Type: UUID}, []string{"3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f"}, []string{"3f2b", "x"}},
		{Field{Name: "done", Type: Bool}, []string{"true", "false"}, []string{"yes", "1"}},
		{Field{Name: "count", Type: Int}, []string{"0", "-7", "2147483647"}, []string{"2147483648", "1.5", "one"}},
		{big, []string{"9223372036854775807"}, []string{"9223372036854775808"}},
		{Field{Name: "priority", Type: Int, Min: new(0), Max: new(4)}, []string{"0", "4"}, []string{"5", "-1", "+1", "01"}},
		{Field{Name: "amount", Type: Number}, []string{"0", "-1.25", "6.02e23"}, []string{"abc", "NaN", "Infinity", "1e400", " 1", "0x10", "1."}},
		{Field{Name: "due", Type: Date}, []string{"2026-01-31", "0001-01-01", "9999-12-31"},
			[]string{"2026-02-30", "31/01/2026", "0000-01-01", "10000-01-01"}},
		{Field{Name: "at", Type: Time}, []string{"2026-01-31T09:00:00Z", "2026-01-31T09:00:00.5+02:00", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"},
			[]string{"yesterday", "2026-01-31", "2026-01-31 09:00", "0000-01-01T00:00:00Z", "0001-01-01T00:30:00+01:00", "9999-12-31T23:00:00-05:00"}},
	}
	for _, c := range cases {
		f := c.field
		f.Filter = true
		r := &Resource{Name: "things", Fields: []Field{f}}
		for _, v := range c.good {
			if _, err := checkFilter(r, f.Name, v); err != nil {
				t.Errorf("%s=%q: %v, want accepted", f.Name, v, err)
			}
		}
		for _, v := range c.bad {
			_, err := checkFilter(r, f.Name, v)
			var e *apierr.Error
			if !errors.As(err, &e) || httpx.Status(e) != http.StatusBadRequest || e.Code != "bad_request" {
				t.Errorf("%s=%q: %v, want a 400 bad_request", f.Name, v, err)
			}
		}
	}
}

// TestFieldTypes checks the type table is whole: every entry says what its type is in SQL,
// JSON Schema, a body, a message and an import file's cell (its example's cell reading as
// a value its body check takes), and declares its operators; every catalogue field's type
// is in it; every list filter's type can parse a filter value.
func TestFieldTypes(t *testing.T) {
	for i, ft := range fieldTypes {
		if ft.sql == "" || ft.schema == nil || ft.describe == nil || ft.check == nil {
			t.Errorf("field type %d: incomplete entry", i)
			continue
		}
		if ft.importCell == nil {
			t.Errorf("field type %d: has no importCell, so an import file's cells of it are not read", i)
			continue
		}
		cell := ft.example // the example as an import file writes it: a string without quotes
		if err := json.Unmarshal([]byte(ft.example), &cell); err != nil {
			cell = ft.example
		}
		if v, problem := ft.importCell(cell, ""); problem != "" {
			t.Errorf("field type %d: its example's cell %q: %s", i, cell, problem)
		} else if _, problem := checkValue(&Field{Type: Type(i)}, v); problem != "" {
			t.Errorf("field type %d: its example's cell %q reads as %s, which %s", i, cell, v, problem)
		}
		switch {
		case ft.ops == nil:
			t.Errorf("field type %d: declares no operators; list them, or noOperators if none compares its values", i)
		case ft.filter != nil && len(ft.ops) == 0:
			t.Errorf("field type %d: parses filters but takes no operators", i)
		}
		if _, problem := checkValue(&Field{Type: Type(i)}, Type(i).Example()); problem != "" {
			t.Errorf("field type %d: its example %s %s", i, ft.example, problem)
		}
	}
	for _, r := range catalog {
		for _, f := range r.Fields {
			switch {
			case int(f.Type) >= len(fieldTypes):
				t.Errorf("%s.%s: type %d has no entry", r.Name, f.Name, f.Type)
			case f.Filter && fieldTypes[f.Type].filter == nil:
				t.Errorf("%s.%s: a filter of type %s, which has no filter parser", r.Name, f.Name, f.Type.SQLType())
			}
		}
	}
}
