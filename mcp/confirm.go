package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/workspace"
)

// Confirmations (docs/mcp.md "Confirmations"). A call that cannot be taken back or that
// spends credits, detach_* (unlinking a join record) and enrich_company, runs only once
// the user has said yes:
//
//   - A 2026-07-28 client that declared the elicitation capability gets an
//     input_required result (multi round-trip requests) asking the user through an
//     elicitation form, and a sealed requestState (state.go); it retries with the answer
//     and the state, and the call runs when the user accepted and confirmed.
//   - Any other client (one that cannot elicit, or an earlier protocol version, whose
//     stateless requests cannot carry a server-initiated request) gets a tool error,
//     confirmation_required, that runs nothing and tells the model to ask the user and,
//     if they agree, to call again with the same arguments and the confirmation token it
//     carries (a sealed state too). The call fails closed either way.
//
// Both bind the confirmation to the tool, its arguments and the credential, for
// stateTTL; a state that does not open is refused before dispatch (checkState).

// confirmArg is the argument that carries a confirmation token back.
const confirmArg = "confirm"

// confirmID keys the elicitation in inputRequests and inputResponses.
const confirmID = "confirm"

// CodeConfirmationRequired and CodeConfirmationDeclined are the tool errors of a call
// that waits for, or was refused, the user's confirmation.
const (
	CodeConfirmationRequired apierr.Code = "confirmation_required"
	CodeConfirmationDeclined apierr.Code = "confirmation_declined"
)

// needsConfirmation reports whether calls of sp ask the user first.
func needsConfirmation(sp toolSpec) bool {
	return sp.tool.Name == toolEnrich || sp.is(workspace.OpDetach)
}

// confirmWhat is what a call of sp with the arguments raw does, said to the user.
func confirmWhat(sp toolSpec, raw json.RawMessage) string {
	var args map[string]any
	_ = json.Unmarshal(raw, &args)
	arg := func(k string) string {
		v, _ := args[k].(string)
		if len(v) > 100 {
			v = v[:100] + "..."
		}
		return fmt.Sprintf("%s %q", k, v)
	}
	if sp.tool.Name == toolEnrich {
		return "look up the company at " + arg("domain") + ", spending an enrichment credit unless it is cached"
	}
	a, b := sp.resource.DetachKeys[0], sp.resource.DetachKeys[1]
	return "unlink " + arg(b) + " from " + arg(a) + " (both records stay)"
}

// confirmed decides whether a call that needs confirmation may run: nil when the user
// confirmed it (through an elicitation answered with its sealed state, or the
// confirm argument), else the result to answer instead: an input_required asking
// the user, or a tool error.
func (s *Server) confirmed(ctx context.Context, sp toolSpec, req mcpgo.CallToolRequest, raw json.RawMessage) *mcpgo.CallToolResult {
	what := confirmWhat(sp, raw)
	name, digest, cred, now := sp.tool.Name, argsDigest(raw), credentialID(ctx), time.Now()
	if token, ok := confirmToken(raw); ok {
		if st, err := s.states.open(token, now); err == nil && st.belongs(name, digest, cred) {
			return nil
		}
		return s.toolError(ctx, apierr.Errorf(apierr.CodeValidation, "%s is not a confirmation of this call or has expired; "+
			"call %s again without it to get a new one", confirmArg, name))
	}
	if req.Params.RequestState != "" {
		st, err := s.states.open(req.Params.RequestState, now)
		if err != nil || !st.belongs(name, digest, cred) {
			return s.toolError(ctx, apierr.BadRequest("%s", errState.Error()))
		}
		if r := server.ElicitationResponse(req.Params.InputResponses, confirmID); r != nil {
			content, _ := r.Content.(map[string]any)
			if r.Action == mcpgo.ElicitationResponseActionAccept && content["confirm"] == true {
				return nil
			}
			if r.Action != mcpgo.ElicitationResponseActionAccept || content["confirm"] == false {
				return s.declined(ctx, name)
			}
		}
	}
	state := s.states.seal(sealedState{Tool: name, Args: digest, Credential: cred}, now)
	message := fmt.Sprintf("%s will %s. Go ahead?", name, what)
	if clientCapabilities(ctx).Elicitation != nil {
		return server.NewInputRequestBuilder(state).Elicit(confirmID, mcpgo.ElicitationParams{Message: message,
			RequestedSchema: map[string]any{"type": "object", "required": []string{"confirm"}, "properties": map[string]any{
				"confirm": map[string]any{"type": "boolean", "title": "Go ahead", "description": message}}}}).ToolResult()
	}
	return s.confirmationRequired(ctx, name, what, state)
}

// confirmToken reads the confirm argument, if the call sent one.
func confirmToken(raw json.RawMessage) (string, bool) {
	var args struct {
		Token *string `json:"confirm"`
	}
	if json.Unmarshal(raw, &args) != nil || args.Token == nil {
		return "", false
	}
	return *args.Token, true
}

// withoutConfirmation is raw without the confirm argument, what the operation gets.
func withoutConfirmation(raw json.RawMessage) json.RawMessage {
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil || args[confirmArg] == nil {
		return raw
	}
	delete(args, confirmArg)
	out, _ := json.Marshal(args)
	return out
}

// confirmationRequired is the fail-closed answer to a client that cannot ask the user:
// nothing ran, and the text says what to ask and how to confirm.
func (s *Server) confirmationRequired(ctx context.Context, name, what, token string) *mcpgo.CallToolResult {
	env := httpx.Envelope{Error: CodeConfirmationRequired, RequestID: httpx.RequestIDFrom(ctx),
		Message: fmt.Sprintf("Nothing was done: %s would %s, which needs the user's confirmation. Ask the user whether to go ahead; "+
			"only if they agree, call %s again with the same arguments and %s: %q (valid %d minutes).",
			name, what, name, confirmArg, token, int(stateTTL/time.Minute))}
	text, _ := json.Marshal(struct {
		httpx.Envelope
		Confirm string `json:"confirm"`
	}{env, token})
	// Text only: clients check structured content against the tool's output schema.
	return &mcpgo.CallToolResult{Content: []mcpgo.Content{mcpgo.NewTextContent(string(text))}, IsError: true}
}

// declined answers a call the user refused: nothing ran.
func (s *Server) declined(ctx context.Context, name string) *mcpgo.CallToolResult {
	env := httpx.Envelope{Error: CodeConfirmationDeclined, RequestID: httpx.RequestIDFrom(ctx),
		Message: "the user declined; " + name + " did nothing. Do not call it again unless the user asks you to"}
	text, _ := json.Marshal(env)
	return &mcpgo.CallToolResult{Content: []mcpgo.Content{mcpgo.NewTextContent(string(text))}, IsError: true}
}

// checkState refuses, before dispatch, a tools/call or prompts/get whose requestState
// does not open (changed, forged, sealed under another key) or has expired: invalid params
// (-32602; HTTP 400 on 2026-07-28), as the specification asks of state that fails its
// integrity check. Only bodies that carry a requestState are decoded.
func (s *Server) checkState(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, ok := peekCall(r, `"requestState"`)
		if !ok || req.Params.State == nil || *req.Params.State == "" ||
			(req.Method != string(mcpgo.MethodToolsCall) && req.Method != string(mcpgo.MethodPromptsGet)) {
			next.ServeHTTP(w, r)
			return
		}
		if _, err := s.states.open(*req.Params.State, time.Now()); err != nil {
			status := http.StatusOK
			if mcpgo.IsModernProtocol(r.Header.Get(mcpgo.HeaderProtocolVersion)) {
				status = http.StatusBadRequest
			}
			writeRPCErrorID(w, status, mcpgo.INVALID_PARAMS, req.ID, err.Error())
			return
		}
		next.ServeHTTP(w, r)
	})
}
