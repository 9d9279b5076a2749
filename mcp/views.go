package mcp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"maps"
	"net/http"
	"slices"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agencyos/workspaced/workspace"
)

// Record views are MCP Apps (the io.modelcontextprotocol/ui extension, stable revision
// 2026-01-26): three ui:// resources of self-contained HTML that a host renders in a
// sandboxed iframe with a tool's result, linked from the tools whose results they show
// by _meta.ui.resourceUri (docs/mcp.md "Record views"). A view reaches the server only
// through the host's bridge (JSON-RPC over postMessage): its actions are tools/call of
// the same tools a model calls, through the same gates. A client that does not
// advertise the extension sees none of it: its tools/list and resources/list are
// byte for byte what they were.
const (
	// uiExtension is the extension's identifier in client capabilities.
	uiExtension = "io.modelcontextprotocol/ui"
	// viewMIME is the MIME type of an MCP App's HTML (the extension's RESOURCE_MIME_TYPE).
	viewMIME = "text/html;profile=mcp-app"

	viewRecord = "ui://workspaced/record" // a record card: get_<resource>
	viewList   = "ui://workspaced/list"   // a list table: list_<resource>
	viewBoard  = "ui://workspaced/board"  // a pipeline board: list_deals

	// uiSessionPrefix starts the Mcp-Session-Id offered to a pre-2026 client that
	// advertised the extension at initialize (viewSessions).
	uiSessionPrefix = "ui-"
)

//go:embed views
var viewFiles embed.FS

// viewPage is one view: its resource and its assembled HTML.
type viewPage struct {
	uri, name, title, description string
	html                          string
}

// views are assembled once from views/: each page's body and script, with the shared
// style and bridge inlined and a Content-Security-Policy naming their hashes, so the
// document loads nothing and runs nothing else.
var views = []*viewPage{
	{uri: viewRecord, name: "record", title: "Record card",
		description: "One record's fields; a deal can move to another stage and a task be completed from it."},
	{uri: viewList, name: "list", title: "List table",
		description: "A page of records as a table; a task can be completed from it."},
	{uri: viewBoard, name: "board", title: "Pipeline board",
		description: "Deals by pipeline stage; a deal can move to another stage from it."},
}

func init() {
	read := func(name string) string {
		b, err := viewFiles.ReadFile("views/" + name)
		if err != nil {
			panic(err) // the files are embedded: only a broken build gets here
		}
		return string(b)
	}
	style, bridge := read("view.css"), read("bridge.js")
	for _, v := range views {
		script := bridge + read(v.name+".js")
		v.html = "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n" +
			"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n" +
			"<meta http-equiv=\"Content-Security-Policy\" content=\"" + viewCSP(script, style) + "\">\n" +
			"<title>" + v.title + "</title>\n<style>" + style + "</style>\n</head>\n<body>\n" +
			read(v.name+".html") + "<script>" + script + "</script>\n</body>\n</html>\n"
	}
}

// viewCSP is the policy a view declares for itself, stricter than any host's: no
// network at all, no frames, no plugins, no base or form targets, and only its own
// inline script and style, named by hash.
func viewCSP(script, style string) string {
	hash := func(s string) string {
		h := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(h[:]) + "'"
	}
	return "default-src 'none'; script-src " + hash(script) + "; style-src " + hash(style) +
		"; img-src data:; connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'"
}

// viewMeta is _meta of a view's contents: the extension's CSP declaration with every
// list of outside origins empty (no connections, resources, frames or base URIs), which
// hosts turn into their strictest policy.
func viewMeta() map[string]any {
	return map[string]any{"ui": map[string]any{
		"csp": map[string]any{"connectDomains": []string{}, "resourceDomains": []string{},
			"frameDomains": []string{}, "baseUriDomains": []string{}},
		"prefersBorder": true,
	}}
}

// addViews registers the view resources. Reading one needs only a valid credential:
// it is static HTML, and every record it shows comes through a tool call.
func (s *Server) addViews(m *server.MCPServer) {
	for _, v := range views {
		res := mcpgo.NewResource(v.uri, v.name, mcpgo.WithResourceDescription(v.description), mcpgo.WithMIMEType(viewMIME))
		res.Title = v.title
		m.AddResource(res, func(ctx context.Context, req mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
			return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: v.uri, MIMEType: viewMIME, Text: v.html,
				Meta: viewMeta()}}, nil
		})
	}
}

// viewOf is the view that shows a tool's result: the board for list_deals, the table
// for another catalogue list_, the card for a get_; "" for the rest.
func viewOf(sp toolSpec) string {
	switch {
	case sp.is(workspace.OpList) && sp.resource.Name == "deals":
		return viewBoard
	case sp.is(workspace.OpList):
		return viewList
	case sp.is(workspace.OpGet):
		return viewRecord
	}
	return ""
}

// linkViews is the last tool filter: for a client with the extension it adds
// _meta.ui.resourceUri to the listed tools that have a view. Others get the list
// untouched, as does mcp-go's check of a single called tool.
func (s *Server) linkViews(ctx context.Context, tools []mcpgo.Tool) []mcpgo.Tool {
	if len(tools) < 2 || !uiClient(ctx) {
		return tools
	}
	out := slices.Clone(tools)
	for i, t := range out {
		if uri := viewOf(s.specs[t.Name]); uri != "" {
			fields := map[string]any{}
			if t.Meta != nil { // keep what else a tool's _meta carries
				maps.Copy(fields, t.Meta.AdditionalFields)
			}
			fields["ui"] = map[string]any{"resourceUri": uri}
			out[i].Meta = &mcpgo.Meta{AdditionalFields: fields}
		}
	}
	return out
}

// filterViews keeps the ui:// resources out of resources/list for a client without the
// extension (the extension lets a server omit them; it finds them through the tools).
func (s *Server) filterViews(ctx context.Context, _ any, _ *mcpgo.ListResourcesRequest, res *mcpgo.ListResourcesResult) {
	if res == nil || uiClient(ctx) {
		return
	}
	res.Resources = slices.DeleteFunc(res.Resources, func(r mcpgo.Resource) bool { return strings.HasPrefix(r.URI, "ui://") })
}

// hasUI reports whether capabilities advertise the extension for HTML views.
func hasUI(c *mcpgo.ClientCapabilities) bool {
	if c == nil {
		return false
	}
	ext, _ := c.Extensions[uiExtension].(map[string]any)
	types, _ := ext["mimeTypes"].([]any)
	for _, t := range types {
		if t == viewMIME {
			return true
		}
	}
	return false
}

// uiClient reports whether the request comes from a client with the extension. A
// 2026-07-28 request carries its capabilities in _meta (mcp-go reads them); an earlier
// client states them once, at initialize, and this server keeps no session: the
// Mcp-Session-Id offered at initialize (viewSessions) carries the answer instead.
func uiClient(ctx context.Context) bool {
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		return hasUI(info.ClientCapabilities)
	}
	st, _ := ctx.Value(uiStateKey{}).(*uiState)
	return st != nil && st.on
}

type uiStateKey struct{}

// uiState is what viewSessions hands the initialize hook: whether the request's session
// id says the client has the extension, and the response's headers.
type uiState struct {
	on     bool
	header http.Header
}

// viewSessions remembers, without server state, that a pre-2026 client advertised the
// extension: mcp-go only exposes the capabilities of initialize during initialize, and in
// stateless mode mints no session. offerViews names such a client's session
// "ui-<random>"; the client sends it back on every request (Streamable HTTP, "Session
// Management"), and it means nothing else. Anyone may send such an id: all it changes is
// metadata in two listings.
func (s *Server) viewSessions(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := &uiState{on: strings.HasPrefix(r.Header.Get(server.HeaderKeySessionID), uiSessionPrefix), header: w.Header()}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), uiStateKey{}, st)))
	})
}

// offerViews runs after a pre-2026 initialize: for a client with the extension, it
// offers the session id that marks it and declares the extension in the server's
// capabilities (the extension's negotiation is the intersection of the two).
func (s *Server) offerViews(ctx context.Context, _ any, req *mcpgo.InitializeRequest, res *mcpgo.InitializeResult) {
	st, _ := ctx.Value(uiStateKey{}).(*uiState)
	if req == nil || res == nil || st == nil || !hasUI(&req.Params.Capabilities) {
		return
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	st.header.Set(server.HeaderKeySessionID, uiSessionPrefix+hex.EncodeToString(b[:]))
	if res.Capabilities.Extensions == nil {
		res.Capabilities.Extensions = map[string]any{}
	}
	res.Capabilities.Extensions[uiExtension] = map[string]any{"mimeTypes": []string{viewMIME}}
}
