package workspace

import (
	"slices"
	"strings"
)

// What each resource offers to finding records (docs/rest.md, "Finding records"), declared
// in its catalogue entry (catalog.go, Resource.find): the text a q= search reads, the names
// and emails typos are forgiven in, the fields a list sorts on and filters with operators,
// and the compact summary MCP lists return. Migration 00019 builds the indexes these
// declarations need; TestFindIndexes checks each declaration against the migrated database.

// finding is one resource's declaration; field names are catalogue fields of the resource
// (TestFindingNamesFields).
type finding struct {
	// search are the text fields q= matches, word prefixes, case and accents ignored.
	// Never secrets or storage URLs.
	search []string
	// names are the fields a one-letter typo still finds (trigram similarity): names and
	// emails. The first is the record's title in /v1/search.
	names []string
	// sort are the fields sort= takes besides created_at and updated_at, each with an
	// index (workspace_id, field, id); they also take operator filters.
	sort []string
	// ops are further fields taking operator filters (beyond the spec's exact filters).
	ops []string
	// summary are the fields an MCP list shows by default, beside id and updated_at.
	summary []string
}

// Columns every record has that lists sort and filter on beside the catalogue's fields.
var (
	createdAtField = Field{Name: "created_at", Type: Time, Doc: "when the record was created"}
	updatedAtField = Field{Name: "updated_at", Type: Time, Doc: "when the record was last changed"}
)

// Searchable lists the text fields q= matches; none means the resource takes no q.
func (r *Resource) Searchable() []string { return r.find.search }

// NameFields lists the names and emails a search forgives typos in; the first is the title.
func (r *Resource) NameFields() []string { return r.find.names }

// SortFields lists the fields sort= takes: the declared ones, then created_at and updated_at
// (paged resources only: one bounded page needs no sort).
func (r *Resource) SortFields() []string {
	if !r.Paged {
		return nil
	}
	return append(slices.Clone(r.find.sort), "created_at", "updated_at")
}

// Summary lists the fields an MCP list returns by default: id, the declared summary and
// updated_at; nil (every field) when the resource declares none.
func (r *Resource) Summary() []string {
	s := r.find.summary
	if s == nil {
		return nil
	}
	return append(append([]string{"id"}, s...), "updated_at")
}

// OpField returns the field name takes operator filters on, or nil: the spec's exact
// filters, the sortable and declared fields, created_at and updated_at.
func (r *Resource) OpField(name string) *Field {
	if !r.CanList() || r.Access == Singleton || r.Access == ListOnly {
		return nil
	}
	switch name {
	case "created_at":
		return &createdAtField
	case "updated_at":
		return &updatedAtField
	}
	f := r.Field(name)
	if f == nil || len(ops(f)) == 0 {
		return nil
	}
	d := r.find
	if f.Filter || slices.Contains(d.sort, name) || slices.Contains(d.ops, name) {
		return f
	}
	return nil
}

// OpFields lists the fields taking operator filters, in catalogue order.
func (r *Resource) OpFields() []*Field {
	var out []*Field
	for i := range r.Fields {
		if f := r.OpField(r.Fields[i].Name); f != nil {
			out = append(out, f)
		}
	}
	if r.OpField("created_at") != nil {
		out = append(out, &createdAtField, &updatedAtField)
	}
	return out
}

// Operator is a filter's comparison: ?field[op]=value.
type Operator string

// The operators of ?field[op]=value (docs/rest.md).
const (
	OpEq       Operator = "eq"
	OpNe       Operator = "ne"
	OpLt       Operator = "lt"
	OpLte      Operator = "lte"
	OpGt       Operator = "gt"
	OpGte      Operator = "gte"
	OpIn       Operator = "in"
	OpPrefix   Operator = "prefix"
	OpContains Operator = "contains"
	OpNull     Operator = "null"
)

// Operators lists every operator, in the order messages and schemas name them.
func Operators() []Operator {
	return []Operator{OpEq, OpNe, OpLt, OpLte, OpGt, OpGte, OpIn, OpPrefix, OpContains, OpNull}
}

// MinContains is the fewest letters or digits in a row a contains operand holds: the
// trigram index finds a value by the trigrams of the operand's words (migration 00061),
// and an operand without three letters or digits in a row has none it can look up.
const MinContains = 3

// ops lists the operators a field takes: its type's (types.go), without prefix and
// contains for a field with an enumeration, and without contains for one with no trigram
// index (Field.trigram: the names and emails of the resource's finding), whatever its type;
// none for types no operator compares (JSON, arrays).
func ops(f *Field) []Operator {
	os := fieldTypes[f.Type].ops
	if (len(f.Enum) > 0 || !f.trigram) && (slices.Contains(os, OpContains) || slices.Contains(os, OpPrefix)) {
		return slices.DeleteFunc(slices.Clone(os), func(o Operator) bool {
			return o == OpContains || o == OpPrefix && len(f.Enum) > 0
		})
	}
	return os
}

// Operators lists the operators the field takes, for schemas and messages.
func (f *Field) Operators() []Operator { return ops(f) }

func operatorList(os []Operator) string {
	s := make([]string, len(os))
	for i, o := range os {
		s[i] = string(o)
	}
	return strings.Join(s, ", ")
}
