package workspace

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
)

// Imports (docs/rest.md, "Imports"): a file's rows become batch writes (batch.go). This
// file holds the domain's part: which columns a mapping may name, and how a cell's text
// becomes a field's JSON value. The imports package stores the file and runs the rows.

// ImportPlan is an import's mapping resolved against its resource: checked once, applied
// to every row.
type ImportPlan struct {
	Resource  *Resource
	Operation string // create or upsert
	Match     string // upsert only
	columns   map[string]importColumn
	// DateLayout is the Go layout date cells are read with ("" reads ISO dates as given).
	DateLayout string
	// CSV says the cells come from a CSV file: each is read through RestoreCell, so the
	// leading ' an export puts before a formula's text is not taken for the value's.
	CSV bool
}

type importColumn struct {
	field  string // a catalogue field, or custom_fields
	custom string // the custom field's key
	typ    Type
}

// PlanImport checks that p may run the import (the gates of a batch of the operation on
// r, the match a batch would take) and resolves mapping (column header -> field name or
// custom_fields.<key>). A mapping naming a field r does not accept is a 400 naming it.
func (o *Ops) PlanImport(ctx context.Context, p *auth.Principal, r *Resource, operation, match string, mapping map[string]string) (*ImportPlan, error) {
	if r == nil {
		return nil, apierr.BadRequest("resource is required: the name of the resource the rows become, such as people")
	}
	if r.Access == WriteOnly || r.Access == Singleton {
		return nil, apierr.BadRequest("%s takes no imports; imports write records of the resources that create them", r.Name)
	}
	ops := []Op{OpCreate}
	switch operation {
	case BatchCreate:
		if match != "" {
			return nil, apierr.BadRequest("match applies to upsert only")
		}
	case BatchUpsert:
		if match == "" {
			return nil, apierr.BadRequest("an upsert needs match: id, a natural key of the resource or custom_fields.<key> of a unique custom field")
		}
		ops = []Op{OpCreate, OpUpdate}
	default:
		return nil, apierr.BadRequest("operation must be create or upsert, got %q", clip(operation))
	}
	for _, op := range ops {
		if err := admit(p, r, op); err != nil {
			return nil, err
		}
		if err := checkMember(p, r, op); err != nil {
			return nil, err
		}
	}
	if operation == BatchUpsert && match != "id" {
		if _, err := o.matcher(ctx, p, r, match); err != nil {
			return nil, err
		}
	}
	if len(mapping) == 0 {
		return nil, apierr.BadRequest("mapping is required: a JSON object of column header -> field name")
	}
	var defs []CustomField
	if r.Custom {
		var err error
		if defs, err = loadCustomFields(ctx, o.store, p, r.Name); err != nil {
			return nil, readError(err)
		}
	}
	plan := &ImportPlan{Resource: r, Operation: operation, Match: match, columns: map[string]importColumn{}}
	for col, name := range mapping {
		if key, ok := strings.CutPrefix(name, customFieldsName+"."); ok && r.Custom {
			var def *CustomField
			for i := range defs {
				if defs[i].Key == key && !defs[i].Archived {
					def = &defs[i]
				}
			}
			if def == nil {
				return nil, apierr.BadRequest("mapping: column %q maps to %q, which is not a custom field of %s", clip(col), clip(name), r.Name)
			}
			t := String
			if ct := customTypeOf(def.Type); ct != nil {
				t = ct.base
			}
			if def.Type == "multi_select" {
				t = Strings
			}
			plan.columns[col] = importColumn{field: customFieldsName, custom: key, typ: t}
			continue
		}
		f := r.Field(name)
		if name == "id" && operation == BatchUpsert && match == "id" {
			plan.columns[col] = importColumn{field: "id", typ: UUID}
			continue
		}
		if f == nil || !f.Writable || f.Type == Custom {
			return nil, apierr.BadRequest("mapping: column %q maps to %q, which is not a writable field of %s", clip(col), clip(name), r.Name)
		}
		plan.columns[col] = importColumn{field: f.Name, typ: f.Type}
	}
	return plan, nil
}

// Mapped reports whether the plan maps the column header.
func (pl *ImportPlan) Mapped(header string) bool { _, ok := pl.columns[header]; return ok }

// Record turns one row (header -> cell text) into a batch record. An empty cell is left
// out. A cell that is not a value of its field's type is a problem naming the field;
// values of the right type are judged by the batch's own validation.
func (pl *ImportPlan) Record(row map[string]string) (map[string]json.RawMessage, []apierr.FieldError) {
	rec := map[string]json.RawMessage{}
	custom := map[string]json.RawMessage{}
	var problems []apierr.FieldError
	for col, cell := range row {
		c, ok := pl.columns[col]
		if !ok || cell == "" {
			continue
		}
		if pl.CSV {
			cell = RestoreCell(cell)
		}
		v, problem := pl.cell(c.typ, cell)
		name := c.field
		if c.custom != "" {
			name = customFieldsName + "." + c.custom
		}
		if problem != "" {
			problems = append(problems, apierr.FieldError{Field: name, Problem: problem})
			continue
		}
		if c.custom != "" {
			custom[c.custom] = v
		} else {
			rec[c.field] = v
		}
	}
	if len(custom) > 0 {
		rec[customFieldsName], _ = json.Marshal(custom)
	}
	return rec, problems
}

// MatchKey is the row's upsert key as written in the file ("" when the row has none), for
// finding the same key twice in one file.
func (pl *ImportPlan) MatchKey(row map[string]string) string {
	if pl.Operation != BatchUpsert {
		return ""
	}
	want := pl.Match
	if nk := pl.Resource.Match(want); nk != nil {
		want = nk.From
	}
	for col, c := range pl.columns {
		name := c.field
		if c.custom != "" {
			name = customFieldsName + "." + c.custom
		}
		if name == want {
			return strings.ToLower(strings.TrimSpace(row[col]))
		}
	}
	return ""
}

// cell converts a cell's text to a JSON value of type t (its field type's importCell), or
// says what it must be.
func (pl *ImportPlan) cell(t Type, s string) (json.RawMessage, string) {
	return fieldTypes[t].importCell(s, pl.DateLayout)
}

// ImportDateFormats are the date_format options of an import and the layouts they read.
var ImportDateFormats = map[string]string{
	"YYYY-MM-DD": time.DateOnly,
	"DD/MM/YYYY": "02/01/2006",
	"MM/DD/YYYY": "01/02/2006",
	"DD.MM.YYYY": "02.01.2006",
}
