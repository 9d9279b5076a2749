package workspace

import "testing"

// TestFindingNamesFields checks each catalogue entry's finding declaration against the
// entry's own fields: every field it names exists, q= and typo-forgiving names read text columns (of any type stored as text),
// and only a resource with a list declares anything.
func TestFindingNamesFields(t *testing.T) {
	for _, r := range catalog {
		d := r.find
		lists := map[string][]string{"search": d.search, "names": d.names, "sort": d.sort, "ops": d.ops, "summary": d.summary}
		for kind, names := range lists {
			if len(names) > 0 && !r.CanList() {
				t.Errorf("%s declares %s but has no list", r.Name, kind)
			}
			for _, name := range names {
				f := r.Field(name)
				switch {
				case f == nil:
					t.Errorf("%s: %s names %q, which is no field of the resource", r.Name, kind, name)
				case (kind == "search" || kind == "names") && f.Type.SQLType() != "text":
					t.Errorf("%s: %s names %q, which is no text", r.Name, kind, name)
				}
			}
		}
	}
}
