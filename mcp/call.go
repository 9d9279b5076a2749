package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/internal/jsonscan"
	"github.com/agencyos/workspaced/workspace"
)

// handler runs one tool for mcp-go: call, and its result as a CallToolResult.
func (s *Server) handler(sp toolSpec) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		res, answer, err := s.call(ctx, sp, req)
		if answer != nil || err != nil {
			return answer, err
		}
		return toolResult(sp.is(workspace.OpList), res), nil
	}
}

// call runs one tool: rate limit and the operation layer. It returns the operation's
// result, or the answer to give instead: the REST error as a tool error, or a question
// for the user (confirm.go, choose.go). An error is a protocol fault, never the call's.
// The direct path (direct.go) writes the result itself, the handler through mcp-go.
func (s *Server) call(ctx context.Context, sp toolSpec, req mcpgo.CallToolRequest) (result, *mcpgo.CallToolResult, error) {
	p := httpx.PrincipalFrom(ctx)
	if p == nil {
		// Handler always authenticates first; reaching here is a wiring fault.
		return result{}, nil, errors.New("mcp: tool call without an authenticated principal")
	}
	if sp.write() && viewFrom(ctx).readonly {
		return result{}, s.toolError(ctx, readonlyError(sp.tool.Name)), nil
	}
	var res result
	var err error
	if id, ok := getID(sp, req); ok {
		if err := s.takeRate(ctx, p); err != nil {
			return result{}, s.toolError(ctx, err), nil
		}
		res, err = one(s.cfg.Ops.Get(ctx, p, sp.resource, id))
	} else {
		raw := req.Params.RawArguments
		if len(raw) == 0 {
			if raw, err = json.Marshal(req.Params.Arguments); err != nil {
				return result{}, s.toolError(ctx, apierr.BadRequest("arguments are not JSON: %v", err)), nil
			}
		}
		// A call the caller may not make is refused by the operation layer below,
		// without asking the user first (confirm.go).
		if needsConfirmation(sp) && canUse(p, sp) {
			if answer := s.confirmed(ctx, sp, req, raw); answer != nil {
				return result{}, answer, nil
			}
			raw = withoutConfirmation(raw)
		}
		var answer *mcpgo.CallToolResult
		if raw, answer = s.chosen(ctx, p, sp, req, raw); answer != nil {
			return result{}, answer, nil
		}
		if err := s.takeRate(ctx, p); err != nil {
			return result{}, s.toolError(ctx, err), nil
		}
		res, err = s.run(ctx, p, sp, raw)
	}
	if err != nil {
		return result{}, s.toolError(ctx, err), nil
	}
	return res, nil, nil
}

// readonlyError refuses a write on a readonly view, direct or through call_tool.
func readonlyError(name string) error {
	return apierr.Errorf(apierr.CodeReadOnly,
		"this connection is read-only (%s: true or a /readonly path) and %s writes; connect without it to write",
		HeaderReadonly, name)
}

// takeRate charges the call to the credential's and workspace's budgets, the ones REST
// calls are charged to (docs/decisions.md 5).
func (s *Server) takeRate(ctx context.Context, p *auth.Principal) error {
	return workspace.TakeCall(ctx, s.cfg.Limiter, p, nil)
}

// getID reads a get tool's id from the arguments mcp-go has already decoded (or, raw, as
// the direct path leaves them), so the most common call decodes its arguments once; anything unusual (no id, not a string) goes
// through run, which words the error.
func getID(sp toolSpec, req mcpgo.CallToolRequest) (string, bool) {
	if !sp.is(workspace.OpGet) {
		return "", false
	}
	args, ok := req.Params.Arguments.(map[string]any)
	if !ok {
		// The direct path (direct.go) leaves the arguments raw: the last id, as decoding
		// them into a map would keep.
		m, ok := jsonscan.Object(req.Params.RawArguments)
		var id []byte
		for k, v := m.Next(); ok && k != nil; k, v = m.Next() {
			if string(k) == "id" {
				id = v
			}
		}
		if id == nil || m.Bad() {
			return "", false
		}
		return jsonscan.Unquote(id)
	}
	id, ok := args["id"].(string)
	return id, ok
}

// result is an operation's answer: REST's data member as JSON and, for lists,
// next_cursor.
type result struct {
	data       json.RawMessage
	nextCursor *string
}

// one wraps the answer of an operation that returns one record.
func one(data json.RawMessage, err error) (result, error) {
	if err != nil {
		return result{}, err
	}
	return result{data: data}, nil
}

// run calls the operation layer (workspace.Ops) with the tool's arguments (as sent, so large numbers
// keep their digits) in the form REST hands it a request: list arguments as typed list
// inputs (listargs.go; unknown keys as filters, so the layer answers 400 naming the valid
// ones), bodies as JSON objects. A tool call and the equivalent REST call so pass
// the same gates and validation and return the same data; failures are apierr.Error values
// with the spec's codes.
func (s *Server) run(ctx context.Context, p *auth.Principal, sp toolSpec, raw json.RawMessage) (result, error) {
	ops := s.cfg.Ops
	if sp.resource == nil { // me
		me, err := ops.Me(ctx, p)
		if err != nil {
			return result{}, err
		}
		data, err := json.Marshal(me)
		if err != nil {
			return result{}, fmt.Errorf("mcp: encode result: %w", err)
		}
		return result{data: data}, nil
	}
	r := sp.resource
	args := map[string]json.RawMessage{}
	if string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return result{}, apierr.BadRequest("arguments must be a JSON object")
		}
	}
	switch sp.op {
	case workspace.OpList:
		params, err := listParams(r, args)
		if err != nil {
			return result{}, err
		}
		page, err := ops.List(ctx, p, r, params)
		if err != nil {
			return result{}, err
		}
		return result{data: page.Data, nextCursor: page.NextCursor}, nil
	case workspace.OpGet:
		id, err := idArgument(args, true)
		if err != nil {
			return result{}, err
		}
		return one(ops.Get(ctx, p, r, id))
	case workspace.OpUpdate:
		// "" updates the singleton workspace.
		id, err := idArgument(args, r.Access != workspace.Singleton)
		if err != nil {
			return result{}, err
		}
		delete(args, "id")
		body, _ := json.Marshal(args)
		if sp.merge {
			return one(ops.Merge(ctx, p, r, id, body))
		}
		return one(ops.Update(ctx, p, r, id, body))
	case workspace.OpCreate, workspace.OpDetach: // enrich_company is a create on enrich, as POST /enrich is
		body := raw
		if string(raw) == "null" {
			body = json.RawMessage("{}")
		}
		var key string
		if k, ok := args[idempotencyKeyArg]; ok {
			if err := json.Unmarshal(k, &key); err != nil {
				return result{}, &apierr.Error{Code: apierr.CodeValidation,
					Message: idempotencyKeyArg + " must be a string", Fields: []apierr.FieldError{{Field: idempotencyKeyArg, Problem: "not a string"}}}
			}
			delete(args, idempotencyKeyArg)
			body, _ = json.Marshal(args)
		}
		posted, err := ops.Post(ctx, p, sp.op, r, workspace.NewBody(body), key)
		if err != nil {
			return result{}, err
		}
		return result{data: posted.Data}, nil
	}
	return result{}, fmt.Errorf("mcp: tool %s runs no operation", sp.tool.Name)
}

// idempotencyKeyArg is the argument of create, detach and enrich tools that REST sends as
// the Idempotency-Key header, with the same meaning.
const idempotencyKeyArg = "idempotency_key"

// queryValue writes a JSON argument as REST's query string carries it: strings bare,
// booleans and numbers as written, anything else as its JSON text (which REST refuses
// with a message naming the expected type).
func queryValue(v json.RawMessage) string {
	if n := len(v); n >= 2 && v[0] == '"' && v[n-1] == '"' && bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : n-1]) // a string without escapes is its own text
	}
	var str string
	if json.Unmarshal(v, &str) == nil {
		return str
	}
	return string(v)
}

func idArgument(args map[string]json.RawMessage, required bool) (string, error) {
	v, ok := args["id"]
	if !ok {
		if required {
			return "", &apierr.Error{Code: apierr.CodeValidation,
				Message: "id is required: the uuid of the record", Fields: []apierr.FieldError{{Field: "id", Problem: "required"}}}
		}
		return "", nil
	}
	var id string
	if err := json.Unmarshal(v, &id); err != nil {
		return "", &apierr.Error{Code: apierr.CodeValidation,
			Message: "id must be a uuid string", Fields: []apierr.FieldError{{Field: "id", Problem: "not a uuid"}}}
	}
	return id, nil
}

// toolResult returns REST's data as structured content and a compact rendering of it as
// text (render.go; docs/decisions.md 8). Lists keep next_cursor beside data, since
// structured content is an object and paging needs it. Records arrive as JSON PostgreSQL
// wrote: they are embedded as they are, not decoded or re-encoded here.
func toolResult(list bool, res result) *mcpgo.CallToolResult {
	structured := res.data
	if list {
		structured = appendStructured(make([]byte, 0, len(res.data)+120), true, res)
	}
	return &mcpgo.CallToolResult{Content: []mcpgo.Content{mcpgo.NewTextContent(string(appendText(nil, list, res)))},
		RawStructuredContent: structured}
}

// appendText appends a result's text: a list's page as a table, anything else as
// renderValue renders it.
func appendText(out []byte, list bool, res result) []byte {
	if list {
		return appendPage(slices.Grow(out, len(res.data)/2+64), res.data, res.nextCursor) // a page's text is about 0.45 of its JSON
	}
	return appendValue(slices.Grow(out, len(res.data)+32), res.data) // a record's text is about 0.7 of its JSON
}

// appendStructured appends a result's structured content: a list's {data, next_cursor},
// anything else the data as it is.
func appendStructured(out []byte, list bool, res result) []byte {
	if list {
		return httpx.AppendList(out, res.data, res.nextCursor)
	}
	return append(out, res.data...)
}

// toolError renders err as a tool error (isError true) whose text is the spec's REST error
// envelope (httpx.Envelope). Causes of 5xx are logged with the request id and never shown.
func (s *Server) toolError(ctx context.Context, err error) *mcpgo.CallToolResult {
	e, env := httpx.Failure(ctx, s.log, "tool call failed", err)
	if e.RetryAfter <= 0 {
		text, _ := json.Marshal(env)
		return &mcpgo.CallToolResult{Content: []mcpgo.Content{mcpgo.NewTextContent(string(text))}, IsError: true}
	}
	// MCP clients never see the Retry-After header: say the wait in the message, and
	// as retry_after seconds in the text and the structured content.
	// Raw, as the direct answer (direct.go) writes only raw structured content.
	secs := int(e.RetryAfter / time.Second)
	wait := fmt.Sprintf("retry in %d seconds", secs)
	if msg := strings.Replace(env.Message, "retry after the Retry-After seconds", wait, 1); msg != env.Message {
		env.Message = msg
	} else {
		env.Message += " (" + wait + ")"
	}
	text, _ := json.Marshal(struct {
		httpx.Envelope
		RetryAfter int `json:"retry_after"`
	}{env, secs})
	return &mcpgo.CallToolResult{Content: []mcpgo.Content{mcpgo.NewTextContent(string(text))},
		RawStructuredContent: text, IsError: true}
}
