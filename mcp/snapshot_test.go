package mcp_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the tool snapshots under testdata/tools and the tools/list table of docs/mcp.md")

// TestToolSnapshots keeps every tool's name, description, schemas and annotations under
// testdata/tools, so a changed tool shows up in review (github-mcp-server's toolsnaps).
// Refresh with: go test ./mcp/ -run TestToolSnapshots -update
func TestToolSnapshots(t *testing.T) {
	e := newEnv(t)
	dir := filepath.Join("testdata", "tools")
	want := map[string]bool{}
	for _, tl := range e.mcp.Tools() {
		raw, err := json.Marshal(tl)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := json.Indent(&got, raw, "", "  "); err != nil {
			t.Fatal(err)
		}
		got.WriteByte('\n')
		path := filepath.Join(dir, tl.Name+".json")
		want[tl.Name+".json"] = true
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		snap, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: no snapshot (run with -update): %v", tl.Name, err)
			continue
		}
		if diff := cmp.Diff(string(snap), got.String()); diff != "" {
			t.Errorf("%s changed (-snapshot +now); run with -update if intended:\n%s", tl.Name, diff)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, de := range entries {
		if !want[de.Name()] {
			if *update {
				_ = os.Remove(filepath.Join(dir, de.Name()))
				continue
			}
			t.Errorf("snapshot %s has no tool (run with -update)", de.Name())
		}
	}
}
