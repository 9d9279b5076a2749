package mcp

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/workspace"
)

// Toolsets: every catalogue resource belongs to one (workspace.Resource.Toolset), and a
// connection chooses which it sees (docs/mcp.md "Toolsets"). The choice shapes tools/list
// only: find_tools searches, and call_tool and the direct tools run, every tool the caller
// may use, so the server stays stateless and every operation stays reachable. A token
// bound to an MCP view (RFC 8707) is the exception: it gets exactly that view (fence).
const (
	// HeaderToolsets names toolsets, comma-separated: "deals,hr", "all", "default,hr".
	HeaderToolsets = "X-MCP-Toolsets"
	// HeaderReadonly "true" shows only list_ and get_ tools and refuses writes.
	HeaderReadonly = "X-MCP-Readonly"

	toolsetsAll     = "all"
	toolsetsDefault = "default"
	// defaultToolsets are the everyday CRM and task work: 29 tools with me, find_tools and
	// call_tool, comfortably under clients' tool limits (docs/mcp.md has the byte table).
	defaultToolsets = "deals,people,companies,tasks"
	readonlySegment = "readonly"
)

// Toolsets lists the toolset names in catalogue order.
func Toolsets() []string { return slices.Clone(toolsetNames) }

// toolsetNames and defaultSets are worked out once: parseView runs on every MCP request.
var (
	toolsetNames = func() []string {
		var out []string
		for _, r := range workspace.Catalog() {
			if !slices.Contains(out, r.Toolset()) {
				out = append(out, r.Toolset())
			}
		}
		return append(out, toolsetImport, toolsetMerge) // import_records (importtool.go), merge_people and merge_companies
	}()
	defaultSets = func() map[string]bool {
		sets := map[string]bool{}
		for _, d := range strings.Split(defaultToolsets, ",") {
			sets[d] = true
		}
		return sets
	}()
)

// ResourcePaths lists every path the MCP server answers on, each its own RFC 9728 resource:
// /mcp, /mcp/readonly, /mcp/x/{toolset} and /mcp/x/{toolset}/readonly for every toolset,
// all and default.
func ResourcePaths() []string {
	paths := []string{Path, Path + "/" + readonlySegment}
	for _, t := range append([]string{toolsetsAll, toolsetsDefault}, Toolsets()...) {
		paths = append(paths, Path+"/x/"+t, Path+"/x/"+t+"/"+readonlySegment)
	}
	return paths
}

// readonlyPath reports whether an MCP path (or its URL) is a read-only view.
func readonlyPath(path string) bool {
	return strings.HasSuffix(strings.TrimRight(path, "/"), "/"+readonlySegment)
}

// view is what one request chose to see.
type view struct {
	sets     map[string]bool // nil: every toolset
	readonly bool
	// fence, for a token bound to an MCP view (RFC 8707), is that view: tools outside it
	// are neither listed, found nor run, and headers cannot widen it. nil: no fence.
	fence *view
}

// reaches reports whether calls on this view may run sp: any tool, unless the token's
// fence leaves it out.
func (v view) reaches(sp toolSpec) bool {
	if sp.toolset == toolsetConformance && !v.fixtures() {
		return false // the fixtures exist on their own view only (conformance.go)
	}
	return v.fence == nil || v.fence.shows(sp)
}

// within narrows v to fence (the view a bound token's resource names): the listed
// toolsets are those in both, and a read-only fence keeps the view read-only.
func (v view) within(fence view) view {
	v.fence = &fence
	v.readonly = v.readonly || fence.readonly
	switch {
	case fence.sets == nil:
	case v.sets == nil:
		v.sets = fence.sets
	default:
		sets := map[string]bool{}
		for n := range v.sets {
			if fence.sets[n] {
				sets[n] = true
			}
		}
		v.sets = sets
	}
	return v
}

type viewKey struct{}

func withView(ctx context.Context, v view) context.Context {
	return context.WithValue(ctx, viewKey{}, v)
}

func viewFrom(ctx context.Context) view {
	v, _ := ctx.Value(viewKey{}).(view)
	return v
}

// shows reports whether the view lists a tool of toolset ("" is me, find_tools and
// call_tool, always listed).
func (v view) shows(sp toolSpec) bool {
	if v.readonly && sp.write() || sp.toolset == toolsetConformance && !v.fixtures() {
		return false
	}
	return sp.toolset == "" || v.sets == nil || v.sets[sp.toolset]
}

// parseView reads the path (/mcp, /mcp/readonly, /mcp/x/{toolset}[/readonly]) and the
// selection headers; path and header toolsets add up, and either may make it readonly. It
// returns a apierr.Error: 404 for a path that names no view, 400 for an unknown toolset.
func parseView(r *http.Request) (view, error) {
	var v view
	names, readonly, err := pathView(r.URL.Path)
	if err != nil {
		return v, err
	}
	v.readonly = readonly
	for _, h := range r.Header.Values(HeaderToolsets) {
		for _, n := range strings.Split(h, ",") {
			if n = strings.ToLower(strings.TrimSpace(n)); n != "" {
				names = append(names, n)
			}
		}
	}
	switch ro := strings.ToLower(strings.TrimSpace(r.Header.Get(HeaderReadonly))); ro {
	case "", "false":
	case "true":
		v.readonly = true
	default:
		return v, apierr.BadRequest("%s must be true or false, not %q", HeaderReadonly, ro)
	}
	if len(names) == 0 {
		v.sets = defaultSets // shared: a view's sets are only read
		return v, nil
	}
	return v.selectSets(names)
}

// pathView reads an MCP path (/mcp, /mcp/readonly, /mcp/x/{toolset}[/readonly]) into the
// toolset it names, if any, and whether it is read-only; a path that names no view is a
// 404 apierr.Error.
func pathView(path string) (names []string, readonly bool, err error) {
	rest := strings.TrimSuffix(strings.TrimPrefix(path, Path), "/")
	if after, ok := strings.CutSuffix(rest, "/"+readonlySegment); ok {
		readonly, rest = true, after
	}
	switch {
	case rest == "":
	case strings.HasPrefix(rest, "/x/") && !strings.Contains(rest[3:], "/") && rest != "/x/":
		names = append(names, rest[3:])
	default:
		return nil, false, apierr.Errorf(apierr.CodeNotFound, "no MCP endpoint at %s; use %s, %s/%s, %s/x/{toolset} "+
			"or %s/x/{toolset}/%s", path, Path, Path, readonlySegment, Path, Path, readonlySegment)
	}
	return names, readonly, nil
}

// fenceOf is the view a token bound to the MCP path names: its toolset and read-only
// state, every toolset for /mcp and /mcp/readonly (any of them may be selected there).
func fenceOf(path string) (view, error) {
	names, readonly, err := pathView(path)
	if err != nil {
		return view{}, err
	}
	return view{readonly: readonly}.selectSets(names)
}

// selectSets sets v's toolsets to names (toolset names, all or default; none: every toolset),
// or answers 400 for an unknown one.
func (v view) selectSets(names []string) (view, error) {
	if len(names) == 0 {
		v.sets = nil
		return v, nil
	}
	v.sets = map[string]bool{}
	for _, n := range names {
		switch {
		case n == toolsetsAll:
			v.sets = nil
			return v, nil
		case n == toolsetsDefault:
			maps.Copy(v.sets, defaultSets)
		case slices.Contains(toolsetNames, n) || n == toolsetConformance: // the server refuses the latter unless configured
			v.sets[n] = true
		default:
			return v, unknownToolset(n)
		}
	}
	return v, nil
}

// unknownToolset is the 400 naming the valid toolsets.
func unknownToolset(n string) error {
	return apierr.BadRequest("unknown toolset %q; valid toolsets are %s, %s, %s", n, toolsetsAll,
		toolsetsDefault, strings.Join(toolsetNames, ", "))
}

// canUse reports whether p passes the gates a call of sp checks before touching data
// (workspace.Permits: scope, feature grant, admin-only writes). Calls are still checked by
// the operation layer; this only keeps tools/list and find_tools to what can succeed.
func canUse(p *auth.Principal, sp toolSpec) bool {
	if sp.tool.Name == toolImport { // any resource: listed to a credential that may write one
		return slices.ContainsFunc(workspace.Catalog(), func(r *workspace.Resource) bool {
			return workspace.Permits(p, r, workspace.OpCreate) || workspace.Permits(p, r, workspace.OpUpdate)
		})
	}
	if sp.resource == nil {
		return sp.scope == "" || workspace.HasScope(p.Scopes, sp.scope)
	}
	return workspace.Permits(p, sp.resource, sp.op)
}
