package mcp_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// confirmCall calls name on c as a model does once its user agreed: the first call does
// nothing and answers confirmation_required with a token, the second sends the token.
func confirmCall(t testing.TB, c *client.Client, name string, args map[string]any) *mcpgo.CallToolResult {
	t.Helper()
	body := wantToolError(t, call(t, c, name, args), string(mcp.CodeConfirmationRequired))
	token, _ := body["confirm"].(string)
	if token == "" {
		t.Fatalf("confirmation_required without a token: %v", body)
	}
	confirmed := map[string]any{"confirm": token}
	for k, v := range args {
		confirmed[k] = v
	}
	return call(t, c, name, confirmed)
}

// rpcCall posts one JSON-RPC request to path as a client on version with bearer; on 2026-07-28
// it carries the per-request _meta with caps as the client's capabilities. It returns the
// HTTP status and the decoded response (the last message of an event stream).
func (e *env) rpcCall(t testing.TB, path, bearer, version, method string, params map[string]any, caps map[string]any) (int, map[string]any) {
	t.Helper()
	h := append(mcpHeaders(bearer), "MCP-Protocol-Version", version)
	if version == mcpgo.ProtocolVersion20260728 {
		meta, _ := params["_meta"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		meta[mcpgo.MetaKeyProtocolVersion] = version
		meta[mcpgo.MetaKeyClientInfo] = map[string]any{"name": "t", "version": "1"}
		meta[mcpgo.MetaKeyClientCapabilities] = caps
		params["_meta"] = meta
		h = append(h, "Mcp-Method", method)
		if name, ok := params["name"].(string); ok {
			h = append(h, "Mcp-Name", name)
		}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
	status, _, raw := e.post(t, "POST", path, string(body), h...)
	text := string(raw)
	if i := strings.LastIndex(text, "data:"); i >= 0 {
		text = text[i+len("data:"):]
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		t.Fatalf("%s: %d %s", method, status, raw)
	}
	return status, out
}

// confirmToken asks for name's confirmation as a 2025-11-25 client and returns the token.
func (e *env) confirmToken(t testing.TB, bearer, name string, args map[string]any) string {
	t.Helper()
	_, out := e.rpcCall(t, mcp.Path, bearer, mcpgo.ProtocolVersion20251125, "tools/call", map[string]any{"name": name, "arguments": args}, nil)
	body := toolErrorBody(t, out)
	if body["error"] != string(mcp.CodeConfirmationRequired) {
		t.Fatalf("%s: want confirmation_required, got %v", name, out)
	}
	return body["confirm"].(string)
}

// toolErrorBody is the JSON text of a tools/call response that must be a tool error.
func toolErrorBody(t testing.TB, out map[string]any) map[string]any {
	t.Helper()
	res, _ := out["result"].(map[string]any)
	if res == nil || res["isError"] != true {
		t.Fatalf("want a tool error, got %v", out)
	}
	text := res["content"].([]any)[0].(map[string]any)["text"].(string)
	var body map[string]any
	if err := json.Unmarshal([]byte(text), &body); err != nil {
		t.Fatalf("tool error text %q: %v", text, err)
	}
	return body
}

// labelFixture is a deal with one label linked, and how to count the links.
type labelFixture struct {
	deal, label string
	links       func() int
}

func newLabelFixture(t *testing.T, e *env, key string) labelFixture {
	pipeline := e.mustCreate(t, key, "pipelines", `{"name":"Sales"}`)["id"].(string)
	deal := e.mustCreate(t, key, "deals", `{"name":"Acme","pipeline_id":"`+pipeline+`"}`)["id"].(string)
	label := e.mustCreate(t, key, "labels", `{"name":"VIP"}`)["id"].(string)
	e.mustCreate(t, key, "deal_labels", `{"deal_id":"`+deal+`","label_id":"`+label+`"}`)
	return labelFixture{deal: deal, label: label, links: func() int {
		status, out := e.rest(t, "GET", "/deal_labels?deal_id="+deal, key, "")
		if status != http.StatusOK {
			t.Fatalf("list deal_labels: %d %v", status, out)
		}
		return len(out["data"].([]any))
	}}
}

// elicitCaps are the capabilities of a 2026-07-28 client that can show a form.
var elicitCaps = map[string]any{"elicitation": map[string]any{}}

// TestConfirmationThroughElicitation: a 2026-07-28 client that can elicit is asked through
// an elicitation form with a sealed requestState (input_required), and the detach runs
// only on the retry that carries the user's yes and that state; a "no", a changed state, a
// state of other arguments or of another credential run nothing.
func TestConfirmationThroughElicitation(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	key := f.Agent.Key
	lf := newLabelFixture(t, e, key)
	v := mcpgo.ProtocolVersion20260728
	args := map[string]any{"deal_id": lf.deal, "label_id": lf.label}
	ask := func(bearer string, a map[string]any) (string, map[string]any) {
		t.Helper()
		status, out := e.rpcCall(t, mcp.Path, bearer, v, "tools/call", map[string]any{"name": "detach_deal_labels", "arguments": a}, elicitCaps)
		res, _ := out["result"].(map[string]any)
		if status != http.StatusOK || res == nil || res["resultType"] != "input_required" {
			t.Fatalf("want input_required, got %d %v", status, out)
		}
		req := res["inputRequests"].(map[string]any)["confirm"].(map[string]any)
		params := req["params"].(map[string]any)
		props := params["requestedSchema"].(map[string]any)["properties"].(map[string]any)
		if req["method"] != "elicitation/create" || props["confirm"].(map[string]any)["type"] != "boolean" ||
			!strings.Contains(params["message"].(string), "detach_deal_labels") {
			t.Fatalf("confirmation form: %v", req)
		}
		return res["requestState"].(string), res
	}
	answer := func(bearer, state string, a map[string]any, action string, yes bool) (int, map[string]any) {
		t.Helper()
		return e.rpcCall(t, mcp.Path, bearer, v, "tools/call", map[string]any{"name": "detach_deal_labels", "arguments": a,
			"requestState": state, "inputResponses": map[string]any{"confirm": map[string]any{"action": action,
				"content": map[string]any{"confirm": yes}}}}, elicitCaps)
	}

	state, _ := ask(key, args)
	if lf.links() != 1 {
		t.Fatal("asking for confirmation unlinked the label")
	}
	// The user says no: nothing runs.
	if _, out := answer(key, state, args, "decline", false); toolErrorBody(t, out)["error"] != string(mcp.CodeConfirmationDeclined) {
		t.Fatalf("declined: %v", out)
	}
	if _, out := answer(key, state, args, "accept", false); toolErrorBody(t, out)["error"] != string(mcp.CodeConfirmationDeclined) {
		t.Fatalf("accepted with confirm false: %v", out)
	}
	// A changed state fails its integrity check: invalid params, HTTP 400.
	tampered := state[:len(state)-2] + map[bool]string{true: "AA", false: "AB"}[strings.HasSuffix(state, "AB")]
	for _, bad := range []string{tampered, state + "x", "not-a-state"} {
		if status, out := answer(key, bad, args, "accept", true); status != http.StatusBadRequest ||
			out["error"].(map[string]any)["code"] != float64(mcpgo.INVALID_PARAMS) {
			t.Fatalf("state %q: %d %v", bad, status, out)
		}
	}
	// A state issued for other arguments or another credential confirms nothing.
	other := newLabelFixture(t, e, key)
	if _, out := answer(key, state, map[string]any{"deal_id": other.deal, "label_id": other.label}, "accept", true); toolErrorBody(t, out)["error"] != "bad_request" {
		t.Fatalf("a state for other arguments: %v", out)
	}
	admin := *f.Admin
	if _, out := answer(e.token(&admin), state, args, "accept", true); toolErrorBody(t, out)["error"] != "bad_request" {
		t.Fatalf("a state of another credential: %v", out)
	}
	if lf.links() != 1 || other.links() != 1 {
		t.Fatal("a refused confirmation unlinked a label")
	}
	// The user says yes: the detach runs, once.
	_, out := answer(key, state, args, "accept", true)
	res, _ := out["result"].(map[string]any)
	if res == nil || res["isError"] == true || res["structuredContent"].(map[string]any)["detached"] != true {
		t.Fatalf("confirmed detach: %v", out)
	}
	if lf.links() != 0 {
		t.Fatal("the confirmed detach left the label linked")
	}
	// Without the answer, a retry with the state asks again rather than running.
	ask(key, args)

	// Through call_tool the same: asked first, run on the confirmed retry.
	third := newLabelFixture(t, e, key)
	inner := map[string]any{"name": "detach_deal_labels", "arguments": map[string]any{"deal_id": third.deal, "label_id": third.label}}
	viaCallTool := func(extra map[string]any) map[string]any {
		params := map[string]any{"name": "call_tool", "arguments": inner}
		for k, v := range extra {
			params[k] = v
		}
		_, out := e.rpcCall(t, mcp.Path, key, v, "tools/call", params, elicitCaps)
		res, _ := out["result"].(map[string]any)
		if res == nil {
			t.Fatalf("call_tool: %v", out)
		}
		return res
	}
	res = viaCallTool(nil)
	if res["resultType"] != "input_required" || third.links() != 1 {
		t.Fatalf("call_tool of detach_deal_labels did not ask first: %v", res)
	}
	res = viaCallTool(map[string]any{"requestState": res["requestState"], "inputResponses": map[string]any{
		"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}})
	if res["isError"] == true || third.links() != 0 {
		t.Fatalf("call_tool's confirmed detach: %v (links %d)", res, third.links())
	}
}

// TestConfirmationFailsClosed: a client that cannot ask its user (a 2026-07-28 client
// without the elicitation capability, any earlier version) gets confirmation_required,
// nothing runs, and the message says to ask the user and how to confirm; the token then
// confirms that call only, for that credential only. Calls the caller may not make, or a
// read-only view, are refused without asking.
func TestConfirmationFailsClosed(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	key := f.Agent.Key
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			lf := newLabelFixture(t, e, key)
			args := map[string]any{"deal_id": lf.deal, "label_id": lf.label}
			detach := func(bearer string, a map[string]any) map[string]any {
				_, out := e.rpcCall(t, mcp.Path, bearer, v, "tools/call", map[string]any{"name": "detach_deal_labels", "arguments": a}, map[string]any{})
				return out
			}
			body := toolErrorBody(t, detach(key, args))
			msg, _ := body["message"].(string)
			token, _ := body["confirm"].(string)
			if body["error"] != string(mcp.CodeConfirmationRequired) || token == "" || !strings.Contains(msg, "Ask the user") ||
				!strings.Contains(msg, `confirm: "`+token+`"`) || !strings.Contains(msg, "Nothing was done") {
				t.Fatalf("fail-closed answer: %v", body)
			}
			if lf.links() != 1 {
				t.Fatal("asking for confirmation unlinked the label")
			}
			other := newLabelFixture(t, e, key)
			for name, tc := range map[string]struct {
				bearer string
				args   map[string]any
			}{
				"other arguments":  {key, map[string]any{"deal_id": other.deal, "label_id": other.label, "confirm": token}},
				"other credential": {e.token(f.Admin), map[string]any{"deal_id": lf.deal, "label_id": lf.label, "confirm": token}},
				"changed token":    {key, map[string]any{"deal_id": lf.deal, "label_id": lf.label, "confirm": token + "A"}},
			} {
				if got := toolErrorBody(t, detach(tc.bearer, tc.args)); got["error"] != "validation_error" {
					t.Fatalf("%s: %v", name, got)
				}
			}
			if lf.links() != 1 || other.links() != 1 {
				t.Fatal("a refused confirmation unlinked a label")
			}
			res, _ := detach(key, map[string]any{"deal_id": lf.deal, "label_id": lf.label, "confirm": token})["result"].(map[string]any)
			if res == nil || res["isError"] == true || lf.links() != 0 {
				t.Fatalf("the confirmed detach: %v (links %d)", res, lf.links())
			}
		})
	}
	// Refusals that need no confirmation come first: no permission, a read-only view.
	lf := newLabelFixture(t, e, key)
	member := *f.Member
	args := map[string]any{"name": "detach_deal_labels", "arguments": map[string]any{"deal_id": lf.deal, "label_id": lf.label}}
	_, out := e.rpcCall(t, mcp.Path, e.token(&member), mcpgo.ProtocolVersion20251125, "tools/call", args, nil)
	if got := toolErrorBody(t, out); got["error"] != "insufficient_permission" {
		t.Fatalf("a member without the crm grant: %v", got)
	}
	_, out = e.rpcCall(t, mcp.Path+"/readonly", key, mcpgo.ProtocolVersion20251125, "tools/call", args, nil)
	if got := toolErrorBody(t, out); got["error"] != "read_only" {
		t.Fatalf("a read-only view: %v", got)
	}
}
