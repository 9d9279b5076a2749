package apierr

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

// TestEveryCodeHasAStatus reads the Code constants declared in codes.go: each has its row
// in statuses, a 4xx or 5xx, and each row is a declared constant, so a code added without
// a status fails here rather than answering 500.
func TestEveryCodeHasAStatus(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "codes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[Code]bool{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			v := spec.(*ast.ValueSpec)
			lit, ok := v.Values[0].(*ast.BasicLit)
			if !ok {
				t.Fatalf("%s is not a string literal", v.Names[0])
			}
			code := Code(strings.Trim(lit.Value, `"`))
			declared[code] = true
			if s, ok := statuses[code]; !ok {
				t.Errorf("%s (%s) has no row in statuses (apierr/codes.go)", v.Names[0], code)
			} else if s < 400 || s > 599 {
				t.Errorf("%s (%s): status %d is not an error status", v.Names[0], code, s)
			}
		}
	}
	if len(declared) < 20 {
		t.Fatalf("read %d codes from codes.go; the parse is broken", len(declared))
	}
	for code := range statuses {
		if !declared[code] {
			t.Errorf("statuses has a row for %q, which no constant declares", code)
		}
	}
}
