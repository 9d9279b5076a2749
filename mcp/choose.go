package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/workspace"
)

// Asking instead of failing (docs/mcp.md "Confirmations"). A create that leaves out a
// required field naming one of a few records the user picks among (create_deals without
// pipeline_id) asks the user which, through an elicitation form listing the records the
// caller may read, when the client can ask (a 2026-07-28 client that declared
// elicitation) and there is more than one to choose from; the form's answer and the
// sealed requestState (state.go) come back with the retry, which runs with the choice
// filled in. Any other call goes on and fails as before (validation_error naming the
// field).

// choiceFields maps such a field to the resource it names.
var choiceFields = map[string]string{"pipeline_id": "pipelines"}

// maxChoices bounds the records a form lists; with more the call fails as before, and
// the model finds the record with list_ or search.
const maxChoices = 20

// chosen fills in the required choice a create left out: it returns the arguments with
// the user's answer when the call carries one (and its state belongs to the call), else
// the input_required result asking for it, or raw unchanged when there is nothing to
// ask or no way to ask.
func (s *Server) chosen(ctx context.Context, p *auth.Principal, sp toolSpec, req mcpgo.CallToolRequest, raw json.RawMessage) (json.RawMessage, *mcpgo.CallToolResult) {
	// A call the caller may not make is refused by the operation layer, without asking.
	if !sp.is(workspace.OpCreate) || clientCapabilities(ctx).Elicitation == nil || !canUse(p, sp) {
		return raw, nil
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil || args == nil {
		return raw, nil
	}
	field, from := "", (*workspace.Resource)(nil)
	for _, f := range sp.resource.Fields {
		if name, ok := choiceFields[f.Name]; ok && f.Required && args[f.Name] == nil {
			field, from = f.Name, workspace.Lookup(name)
			break
		}
	}
	if from == nil {
		return raw, nil
	}
	name, digest, cred, now := sp.tool.Name, argsDigest(raw), credentialID(ctx), time.Now()
	if req.Params.RequestState != "" {
		st, err := s.states.open(req.Params.RequestState, now)
		if err == nil && st.belongs(name, digest, cred) {
			if r := server.ElicitationResponse(req.Params.InputResponses, field); r != nil {
				content, _ := r.Content.(map[string]any)
				id, _ := content[field].(string)
				if r.Action != mcpgo.ElicitationResponseActionAccept || id == "" {
					return nil, s.declined(ctx, name)
				}
				args[field], _ = json.Marshal(id)
				out, _ := json.Marshal(args)
				return out, nil // the operation layer checks the id as it checks any
			}
		}
	}
	page, err := s.cfg.Ops.List(ctx, p, from, workspace.ListParams{Limit: maxChoices + 1})
	if err != nil {
		return raw, nil // the call fails as it would have, naming the field
	}
	var records []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	if json.Unmarshal(page.Data, &records) != nil || len(records) < 2 || len(records) > maxChoices {
		return raw, nil
	}
	options := make([]any, 0, len(records)) // newest first, as list_ answers
	for _, r := range records {
		options = append(options, map[string]any{"const": r.ID, "title": r.Name})
	}
	message := fmt.Sprintf("%s needs %s: which one?", name, field)
	state := s.states.seal(sealedState{Tool: name, Args: digest, Credential: cred}, now)
	return nil, server.NewInputRequestBuilder(state).Elicit(field, mcpgo.ElicitationParams{Message: message,
		RequestedSchema: map[string]any{"type": "object", "required": []string{field}, "properties": map[string]any{
			field: map[string]any{"type": "string", "title": human(from.Name), "oneOf": options}}}}).ToolResult()
}
