// Package docs_test checks that docs/architecture.md names only what the repository holds.
package docs_test

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/workspace"
)

// root is the repository, the parent of this package's directory.
const root = ".."

var (
	spanRE = regexp.MustCompile("`([^`\n]+)`")
	// pathRE is a relative path of the repository: segments of file-name characters, an
	// optional trailing slash; * stands for any name (store/migrations/*.sql).
	pathRE = regexp.MustCompile(`^\.?[A-Za-z0-9_][A-Za-z0-9_.*-]*(/[A-Za-z0-9_.*-]+)*/?$`)
	// fileRE is a file named alone (settings.go, 00001_schema.sql).
	fileRE = regexp.MustCompile(`^[A-Za-z0-9_-]+\.(go|sql)$`)
	// identRE is pkg.Name or pkg.Name.Member.
	identRE = regexp.MustCompile(`^([a-z][a-z0-9]*)\.([A-Z][A-Za-z0-9_]*)(?:\.([A-Za-z_][A-Za-z0-9_]*))?$`)
	// memberRE is Type.Member without its package (Ops.List, Store.InTx).
	memberRE = regexp.MustCompile(`^([A-Z][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)$`)
	// methodsRE is Type.A/B/C, several members of one type.
	methodsRE = regexp.MustCompile(`^([A-Z][A-Za-z0-9_]*\.)([A-Za-z0-9_]+(?:/[A-Za-z0-9_]+)+)$`)
	// testRE is a test or benchmark named alone.
	testRE = regexp.MustCompile(`^(Test|Benchmark|Fuzz)[A-Z][A-Za-z0-9_]*$`)
	// toolRE is an MCP tool name: verb_resource, or verb_<resource> for every resource.
	toolRE = regexp.MustCompile(`^(list|get|create|update|detach|find|call|enrich)_([a-z_]*|<resource>)$`)
	// inFileRE is `file.go` (`name`, `name`): the names are declared in that file.
	inFileRE = regexp.MustCompile("`([A-Za-z0-9_./-]+\\.go)` \\((`[^`]+`(?:, `[^`]+`)*)\\)")
	nameRE   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$`)
	// settingRE is a setting (PUBLIC_URL), not a Go name.
	settingRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
)

// pkg is what one package directory declares.
type pkg struct {
	dir string
	// decls are its top-level names (functions, types, variables, constants), test
	// files' included; members are "Type.Name" for methods and struct fields.
	decls, members map[string]bool
}

// files maps a file's path (slash-separated, from the root) to its top-level names and
// "Type.Method" names.
type index struct {
	pkgs  map[string][]*pkg // by package name
	files map[string]map[string]bool
	tests map[string]bool // Test, Benchmark and Fuzz functions anywhere
}

func parseRepo(t *testing.T) *index {
	t.Helper()
	ix := &index{pkgs: map[string][]*pkg{}, files: map[string]map[string]bool{}, tests: map[string]bool{}}
	byDir := map[string]*pkg{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		dir := filepath.Dir(rel)
		name := strings.TrimSuffix(f.Name.Name, "_test")
		p := byDir[dir+" "+name]
		if p == nil {
			p = &pkg{dir: dir, decls: map[string]bool{}, members: map[string]bool{}}
			byDir[dir+" "+name] = p
			ix.pkgs[name] = append(ix.pkgs[name], p)
		}
		names := map[string]bool{}
		ix.files[rel] = names
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Recv == nil {
					names[decl.Name.Name] = true
					p.decls[decl.Name.Name] = true
					if testRE.MatchString(decl.Name.Name) && strings.HasSuffix(rel, "_test.go") {
						ix.tests[decl.Name.Name] = true
					}
					continue
				}
				recv := receiverType(decl.Recv.List[0].Type)
				names[decl.Name.Name] = true
				names[recv+"."+decl.Name.Name] = true
				p.members[recv+"."+decl.Name.Name] = true
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						names[spec.Name.Name] = true
						p.decls[spec.Name.Name] = true
						if st, ok := spec.Type.(*ast.StructType); ok {
							for _, field := range st.Fields.List {
								for _, n := range field.Names {
									p.members[spec.Name.Name+"."+n.Name] = true
								}
								if len(field.Names) == 0 { // embedded: its type's name
									p.members[spec.Name.Name+"."+receiverType(field.Type)] = true
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							names[n.Name] = true
							p.decls[n.Name] = true
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// receiverType is the name of a receiver's or embedded field's type: T of T, *T, T[P],
// pkg.T.
func receiverType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiverType(e.X)
	case *ast.IndexExpr:
		return receiverType(e.X)
	case *ast.IndexListExpr:
		return receiverType(e.X)
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// exists reports whether a relative path, * matching any name, names a file or folder.
func exists(path string) bool {
	p := filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(path, "/")))
	if strings.Contains(path, "*") {
		m, _ := filepath.Glob(p)
		return len(m) > 0
	}
	info, err := os.Stat(p)
	return err == nil && (!strings.HasSuffix(path, "/") || info.IsDir())
}

// toolNames are the names of every tool the MCP server offers.
func toolNames(t *testing.T) []string {
	t.Helper()
	s, err := mcp.New(mcp.Config{
		PublicURL: "http://127.0.0.1:8080",
		Auth: workspace.AuthenticatorFunc(func(_ context.Context, _ string) (*auth.Principal, error) {
			return nil, apierr.Unauthorized("no credential is valid here")
		}),
		Ops: workspace.NewOps(workspace.Config{}),
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range s.Tools() {
		names = append(names, tl.Name)
	}
	return names
}

// TestArchitectureNamesWhatExists: every path docs/architecture.md writes in backticks
// (cmd/workspaced/serve.go, oauth/, store/migrations/*.sql; a file named alone must be in
// a folder the same section named before it), every pkg.Name, pkg.Type.Member and
// Type.Member, every test named alone, every name in parentheses after a Go file (declared in that file) and
// every MCP tool name exists in the repository.
func TestArchitectureNamesWhatExists(t *testing.T) {
	doc, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	ix := parseRepo(t)
	tools := toolNames(t)
	topLevel := map[string]bool{}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		topLevel[e.Name()] = true
	}

	var problems []string
	fail := func(format string, args ...any) {
		problems = append(problems, "docs/architecture.md: "+fmt.Sprintf(format, args...))
	}
	checked := map[string]int{}

	var folders []string // the folders the current section named so far
	for line := range strings.SplitSeq(string(doc), "\n") {
		if strings.HasPrefix(line, "#") {
			folders = nil
			continue
		}
		for _, m := range spanRE.FindAllStringSubmatch(line, -1) {
			span := m[1]
			for _, part := range alternatives(span) {
				switch {
				case fileRE.MatchString(part) && !strings.Contains(part, "/"):
					checked["file named alone"]++
					found := false
					for _, dir := range folders {
						if exists(dir + "/" + part) {
							found = true
							break
						}
					}
					if !found {
						fail("%s: no such file in %s, the folders this section names", part, strings.Join(folders, ", "))
					}
				case pathRE.MatchString(part) && strings.Contains(part, "/") && topLevel[strings.SplitN(part, "/", 2)[0]]:
					checked["path"]++
					if !exists(part) {
						fail("%s: no such file or folder", part)
						continue
					}
					dir := strings.TrimSuffix(part, "/")
					if strings.Contains(filepath.Base(dir), ".") {
						dir = filepath.ToSlash(filepath.Dir(dir))
					}
					if !slices.Contains(folders, dir) && !strings.Contains(dir, "*") {
						folders = append(folders, dir)
					}
				case identRE.MatchString(part):
					sm := identRE.FindStringSubmatch(part)
					pkgs := ix.pkgs[sm[1]]
					if len(pkgs) == 0 {
						continue // not a package: a setting (app.role) or a field
					}
					checked["pkg.Name"]++
					ok := false
					for _, p := range pkgs {
						if p.decls[sm[2]] && (sm[3] == "" || p.members[sm[2]+"."+sm[3]]) {
							ok = true
						}
					}
					if !ok {
						fail("%s: package %s (%s) declares no such name", part, sm[1], pkgDirs(pkgs))
					}
				case memberRE.MatchString(part):
					checked["Type.Member"]++
					if !ix.member(part) {
						fail("%s: no package has a type %s with that method or field", part, strings.SplitN(part, ".", 2)[0])
					}
				case testRE.MatchString(part):
					checked["test"]++
					if !ix.tests[part] {
						fail("%s: no test or benchmark has that name", part)
					}
				case toolRE.MatchString(part):
					checked["MCP tool"]++
					prefix, template := strings.CutSuffix(part, "<resource>")
					ok := false
					for _, name := range tools {
						if name == part || template && strings.HasPrefix(name, prefix) {
							ok = true
						}
					}
					if !ok {
						fail("%s: the MCP server has no such tool (it has %d, e.g. %s)", part, len(tools), strings.Join(tools[len(tools)-3:], ", "))
					}
				}
			}
		}
		for _, m := range inFileRE.FindAllStringSubmatch(line, -1) {
			names, ok := ix.files[m[1]]
			if !ok {
				continue // not a path from the root; reported above if it should be
			}
			for _, n := range spanRE.FindAllStringSubmatch(m[2], -1) {
				for _, part := range alternatives(n[1]) {
					if !nameRE.MatchString(part) || settingRE.MatchString(part) {
						continue
					}
					checked["name in a file"]++
					if !names[part] {
						fail("%s: %s declares no %s", m[1], m[1], part)
					}
				}
			}
		}
	}
	for _, kind := range []string{"path", "file named alone", "pkg.Name", "Type.Member", "test", "MCP tool", "name in a file"} {
		if checked[kind] == 0 {
			t.Errorf("no %s found in docs/architecture.md: the test no longer reads what it checks", kind)
		}
	}
	sort.Strings(problems)
	for _, p := range slices.Compact(problems) {
		t.Error(p)
	}
	t.Logf("checked %v", checked)
}

// alternatives splits list_/get_/create_<resource> and Ops.List/Get into their names,
// keeping paths whole.
func alternatives(span string) []string {
	if m := methodsRE.FindStringSubmatch(span); m != nil {
		var parts []string
		for name := range strings.SplitSeq(m[2], "/") {
			parts = append(parts, m[1]+name)
		}
		return parts
	}
	if strings.Contains(span, "_/") {
		parts := strings.Split(span, "/")
		last := parts[len(parts)-1]
		if i := strings.Index(last, "<"); i > 0 {
			suffix := last[i:]
			for j := range parts[:len(parts)-1] {
				parts[j] += suffix
			}
		}
		return parts
	}
	return []string{span}
}

// member reports whether some package has the type of Type.Member with that method or
// field.
func (ix *index) member(typeMember string) bool {
	for _, ps := range ix.pkgs {
		for _, p := range ps {
			if p.members[typeMember] {
				return true
			}
		}
	}
	return false
}

func pkgDirs(ps []*pkg) string {
	var dirs []string
	for _, p := range ps {
		dirs = append(dirs, p.dir)
	}
	return strings.Join(dirs, ", ")
}
