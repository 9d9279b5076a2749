package mcp_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/store/storetest"
)

// uiCaps are the client capabilities of a host that renders MCP Apps.
var uiCaps = map[string]any{"io.modelcontextprotocol/ui": map[string]any{"mimeTypes": []any{"text/html;profile=mcp-app"}}}

const (
	viewRecordURI = "ui://workspaced/record"
	viewListURI   = "ui://workspaced/list"
	viewBoardURI  = "ui://workspaced/board"
)

// appsClient connects mcp-go's client to path with bearer, advertising the extension
// when ui is true; version "" negotiates 2026-07-28, an older one initializes.
func (e *env) appsClient(t testing.TB, path, bearer, version string, ui bool) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(e.srv.URL+path, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + bearer}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	init := mcpgo.InitializeRequest{}
	init.Params.ProtocolVersion = version
	init.Params.ClientInfo = mcpgo.Implementation{Name: "workspaced-views-test", Version: "1"}
	if ui {
		init.Params.Capabilities.Extensions = uiCaps
	}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c
}

// viewLinks maps each listed tool to its _meta.ui.resourceUri ("" when it has none) and
// viewRPC posts one JSON-RPC request to /mcp with the agent key: on 2026-07-28 with the
// capabilities in _meta (ui: the extension's), else on 2025-11-25 with session as its
// Mcp-Session-Id; it returns the raw result and the response headers.
func (e *env) viewRPC(t testing.TB, key, version string, ui bool, session, method string) (json.RawMessage, http.Header) {
	t.Helper()
	params := map[string]any{}
	headers := []string{"Authorization", "Bearer " + key, "Content-Type", "application/json",
		"Accept", "application/json, text/event-stream", "MCP-Protocol-Version", version, "Mcp-Method", method}
	if version == "2026-07-28" {
		caps := map[string]any{}
		if ui {
			caps["extensions"] = uiCaps
		}
		params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": version,
			"io.modelcontextprotocol/clientCapabilities": caps}
	}
	if session != "" {
		headers = append(headers, "Mcp-Session-Id", session)
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	status, h, raw := e.post(t, "POST", mcp.Path, string(body), headers...)
	var out struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(raw, &out); status != 200 || err != nil || out.Result == nil {
		t.Fatalf("%s %s: %d %s", version, method, status, raw)
	}
	return out.Result, h
}

// initUI initializes on 2025-11-25 advertising the extension and returns the session id.
func (e *env) initUI(t testing.TB, key string) string {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` +
		`{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}},"clientInfo":{"name":"raw","version":"1"}}}`
	status, h, raw := e.post(t, "POST", mcp.Path, body, "Authorization", "Bearer "+key,
		"Content-Type", "application/json", "Accept", "application/json, text/event-stream")
	if status != 200 {
		t.Fatalf("initialize: %d %s", status, raw)
	}
	return h.Get("Mcp-Session-Id")
}

// listing is a tools/list result: each tool's raw JSON and view link by name, in order.
type listing struct {
	names []string
	raw   map[string]json.RawMessage
	links map[string]string // _meta.ui.resourceUri, "" when none
}

func parseListing(t testing.TB, result json.RawMessage) listing {
	t.Helper()
	var out struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(result, &out); err != nil {
		t.Fatal(err)
	}
	l := listing{raw: map[string]json.RawMessage{}, links: map[string]string{}}
	for _, raw := range out.Tools {
		var tool struct {
			Name string `json:"name"`
			Meta struct {
				UI struct {
					ResourceURI string `json:"resourceUri"`
				} `json:"ui"`
			} `json:"_meta"`
		}
		if err := json.Unmarshal(raw, &tool); err != nil {
			t.Fatal(err)
		}
		l.names = append(l.names, tool.Name)
		l.raw[tool.Name] = raw
		l.links[tool.Name] = tool.Meta.UI.ResourceURI
	}
	return l
}

// TestViewsLinkedOnlyForAppHosts: a client without the extension, on either protocol
// era, gets tools/list as before (every tool byte for byte its checked-in snapshot under
// testdata/tools) and no ui:// resource in resources/list; one that advertises it, at
// initialize (2025-11-25, then sending the session id it was offered) or on every
// request (2026-07-28), sees get_ linked to the record card, list_deals to the board and
// the other list_ tools to the table, the three views in resources/list, and every tool
// otherwise unchanged; the list stays within the default's budget with the links.
func TestViewsLinkedOnlyForAppHosts(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	key := f.Agent.Key
	session := e.initUI(t, key)
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		plainResult, _ := e.viewRPC(t, key, version, false, "", "tools/list")
		plain := parseListing(t, plainResult)
		if len(plain.names) != 30 {
			t.Fatalf("%s: the default list has %d tools, want 30", version, len(plain.names))
		}
		for name, got := range plain.raw {
			snap, err := os.ReadFile(filepath.Join("testdata", "tools", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := json.Compact(&want, snap); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Errorf("%s: %s is not its snapshot without the extension:\n%s\n%s", version, name, got, want.Bytes())
			}
		}
		resources, _ := e.viewRPC(t, key, version, false, "", "resources/list")
		if bytes.Contains(resources, []byte("ui://")) {
			t.Errorf("%s: resources/list shows views to a client without the extension: %s", version, resources)
		}

		uiSession := ""
		if version == "2025-11-25" {
			uiSession = session
			// A session id other than the one offered changes nothing.
			other, _ := e.viewRPC(t, key, version, false, "mcp-session-1234", "tools/list")
			if !bytes.Equal(other, plainResult) {
				t.Errorf("another session id changed tools/list")
			}
		}
		uiResult, _ := e.viewRPC(t, key, version, true, uiSession, "tools/list")
		apps := parseListing(t, uiResult)
		want := map[string]string{"get_deals": viewRecordURI, "get_tasks": viewRecordURI, "get_people": viewRecordURI,
			"list_deals": viewBoardURI, "list_tasks": viewListURI, "list_companies": viewListURI,
			"me": "", "create_deals": "", "update_deals": "", "update_tasks": "", "search": "", "find_tools": "", "call_tool": ""}
		for name, uri := range want {
			if got, ok := apps.links[name]; !ok || got != uri {
				t.Errorf("%s: %s links %q (listed %v), want %q", version, name, got, ok, uri)
			}
		}
		if strings.Join(apps.names, ",") != strings.Join(plain.names, ",") {
			t.Errorf("%s: the extension changed which tools are listed", version)
		}
		for name, b := range apps.raw {
			if apps.links[name] == "" {
				if !bytes.Equal(b, plain.raw[name]) {
					t.Errorf("%s: %s changed with the extension", version, name)
				}
				continue
			}
			meta := `"_meta":{"ui":{"resourceUri":"` + apps.links[name] + `"}},`
			if !bytes.Equal(bytes.Replace(b, []byte(meta), nil, 1), plain.raw[name]) {
				t.Errorf("%s: %s differs beyond _meta.ui with the extension:\n%s", version, name, b)
			}
		}
		linkedN := 0
		for _, l := range apps.links {
			if l != "" {
				linkedN++
			}
		}
		t.Logf("%s: default tools/list %d bytes, %d with the extension (%d of %d tools link a view)", version, len(plainResult), len(uiResult), linkedN, len(apps.names))
		if len(uiResult) > defaultListBudget {
			t.Errorf("%s: the default tools/list with the extension is %d bytes, over the budget of %d", version, len(uiResult), defaultListBudget)
		}
		resources, _ = e.viewRPC(t, key, version, true, uiSession, "resources/list")
		for _, v := range []string{viewRecordURI, viewListURI, viewBoardURI} {
			if !bytes.Contains(resources, []byte(`"`+v+`"`)) {
				t.Errorf("%s: resources/list lacks %s for a client with the extension: %s", version, v, resources)
			}
		}
	}
}

// TestViewSessionOnlyAfterAdvertising: over raw HTTP on 2025-11-25, initialize answers an
// Mcp-Session-Id and the extension in the server's capabilities only when the client
// advertised the extension (with the mcp-app MIME type); a stateless server otherwise
// mints no session, as before.
func TestViewSessionOnlyAfterAdvertising(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	init := func(caps string) (string, map[string]any) {
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + caps +
			`,"clientInfo":{"name":"raw","version":"1"}}}`
		status, h, raw := e.post(t, "POST", mcp.Path, body, "Authorization", "Bearer "+f.Agent.Key,
			"Content-Type", "application/json", "Accept", "application/json, text/event-stream")
		if status != 200 {
			t.Fatalf("initialize: %d %s", status, raw)
		}
		var out struct {
			Result struct {
				Capabilities map[string]any `json:"capabilities"`
			} `json:"result"`
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("initialize: %s", raw)
		}
		return h.Get("Mcp-Session-Id"), out.Result.Capabilities
	}
	for _, caps := range []string{`{}`, `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/plain"]}}}`,
		`{"extensions":{"io.modelcontextprotocol/ui":{}}}`} {
		if sid, got := init(caps); sid != "" || got["extensions"] != nil {
			t.Errorf("%s: session %q, capabilities %v", caps, sid, got)
		}
	}
	sid, got := init(`{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`)
	if !strings.HasPrefix(sid, "ui-") || len(sid) < 20 {
		t.Errorf("session id %q", sid)
	}
	if ext, _ := got["extensions"].(map[string]any); ext["io.modelcontextprotocol/ui"] == nil {
		t.Errorf("the server does not declare the extension: %v", got)
	}
	if other, _ := init(`{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`); other == sid {
		t.Errorf("two initializations share session id %s", sid)
	}
}

// TestViewResources: each view reads as one self-contained HTML document of the
// extension's MIME type, declaring in _meta.ui.csp no outside origin of any kind, and in
// its own Content-Security-Policy nothing but its inline script and style by hash: no
// URL to load, no network, no frames.
func TestViewResources(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	// Reading needs a credential (any: the views hold no data), not the extension.
	status, _, _ := e.post(t, "POST", mcp.Path, `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"`+viewBoardURI+`"}}`,
		"Content-Type", "application/json", "Accept", "application/json, text/event-stream", "MCP-Protocol-Version", "2025-11-25")
	if status != http.StatusUnauthorized {
		t.Errorf("reading a view without a credential: %d, want 401", status)
	}
	c := e.appsClient(t, mcp.Path, f.Agent.Key, "", false)
	for _, uri := range []string{viewRecordURI, viewListURI, viewBoardURI} {
		req := mcpgo.ReadResourceRequest{}
		req.Params.URI = uri
		res, err := c.ReadResource(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		if len(res.Contents) != 1 {
			t.Fatalf("%s: %d contents", uri, len(res.Contents))
		}
		tc, ok := res.Contents[0].(mcpgo.TextResourceContents)
		if !ok || tc.URI != uri || tc.MIMEType != "text/html;profile=mcp-app" {
			t.Fatalf("%s: %#v", uri, res.Contents[0])
		}
		meta, _ := json.Marshal(tc.Meta)
		if string(meta) != `{"ui":{"csp":{"baseUriDomains":[],"connectDomains":[],"frameDomains":[],"resourceDomains":[]},"prefersBorder":true}}` {
			t.Errorf("%s: _meta %s", uri, meta)
		}
		html := tc.Text
		if !strings.HasPrefix(html, "<!doctype html>") || strings.Count(html, "<script>") != 1 || strings.Count(html, "<style>") != 1 {
			t.Fatalf("%s: not one document with one inline script and style:\n%.300s", uri, html)
		}
		for _, bad := range []string{"src=", "href=", "http://", "https://", "//cdn", "@import", "url(", "fetch(", "XMLHttpRequest", "WebSocket", "eval(", "innerHTML"} {
			if strings.Contains(html, bad) {
				t.Errorf("%s contains %q", uri, bad)
			}
		}
		csp := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]+)">`).FindStringSubmatch(html)
		if csp == nil {
			t.Fatalf("%s: no Content-Security-Policy", uri)
		}
		script := between(html, "<script>", "</script>")
		style := between(html, "<style>", "</style>")
		want := "default-src 'none'; script-src " + sha(script) + "; style-src " + sha(style) +
			"; img-src data:; connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'"
		if csp[1] != want {
			t.Errorf("%s: CSP\n%s\nwant\n%s", uri, csp[1], want)
		}
	}
}

func between(s, open, close string) string {
	_, after, _ := strings.Cut(s, open)
	in, _, _ := strings.Cut(after, close)
	return in
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(h[:]) + "'"
}
