package mcp

import (
	"context"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/workspace"
)

// Completions (completion/complete, docs/mcp.md "Completions"): a prompt argument that
// names a record completes to the names of records the caller can read, a template's id
// to their ids, both found by list_'s q through the search indexes (or in name order for
// an empty value), at most completionLimit, through the operation layer with its gates and
// row-level security. A period completes to its values.

// completionLimit bounds the values of one completion.
const completionLimit = 10

// completer answers completions for prompts and resource templates.
type completer struct{ s *Server }

// CompletePromptArgument completes a visible prompt's argument; an unknown prompt or
// argument is invalid params.
func (c completer) CompletePromptArgument(ctx context.Context, name string, arg mcpgo.CompleteArgument, _ mcpgo.CompleteContext) (*mcpgo.Completion, error) {
	d, ok := findPrompt(name)
	if !ok && c.s.fixtureVisible(ctx, name) {
		return &mcpgo.Completion{Values: []string{}}, nil // the conformance fixtures complete nothing
	}
	if !ok || !c.s.promptVisible(ctx, d) {
		return nil, invalidParams(ctx, "prompt %q not found", name)
	}
	a := d.arg(arg.Name)
	if a == nil {
		return nil, invalidParams(ctx, "prompt %s takes no argument %q; it takes %s", name, arg.Name, argNames(d))
	}
	if a.kind == kindPeriod {
		var values []string
		for _, p := range periodNames() {
			if strings.HasPrefix(p, strings.ToLower(strings.TrimSpace(arg.Value))) {
				values = append(values, p)
			}
		}
		return &mcpgo.Completion{Values: values}, nil
	}
	found, more, err := c.s.complete(ctx, workspace.Lookup(string(a.kind)), arg.Value)
	if err != nil {
		return nil, err
	}
	var values []string
	for _, m := range found {
		if !containsFold(values, m.name) {
			values = append(values, m.name)
		}
	}
	return &mcpgo.Completion{Values: values, HasMore: more}, nil
}

// CompleteResourceArgument completes the id of a record template the caller may read
// (workspaced://<resource>/{id}); any other template or variable is invalid params.
func (c completer) CompleteResourceArgument(ctx context.Context, uri string, arg mcpgo.CompleteArgument, _ mcpgo.CompleteContext) (*mcpgo.Completion, error) {
	name, ok := strings.CutSuffix(strings.TrimPrefix(uri, scheme), "/{id}")
	r := workspace.Lookup(name)
	if !ok || !strings.HasPrefix(uri, scheme) || r == nil || !r.CanGet() || !c.s.may(ctx, "get_"+r.Name) {
		return nil, invalidParams(ctx, "no resource template %q", uri)
	}
	if arg.Name != "id" {
		return nil, invalidParams(ctx, "template %s has one variable, id, not %q", uri, arg.Name)
	}
	found, more, err := c.s.complete(ctx, r, arg.Value)
	if err != nil {
		return nil, err
	}
	values := []string{}
	for _, m := range found {
		values = append(values, m.id)
	}
	return &mcpgo.Completion{Values: values, HasMore: more}, nil
}

// complete finds up to completionLimit records of r matching v, charged to the caller's
// budget as one tool call; none when the caller may not list r or r has no names.
func (s *Server) complete(ctx context.Context, r *workspace.Resource, v string) ([]match, bool, error) {
	p := httpx.PrincipalFrom(ctx)
	if p == nil || r == nil || len(r.NameFields()) == 0 || !s.may(ctx, "list_"+r.Name) {
		return nil, false, nil
	}
	if err := s.takeRate(ctx, p); err != nil {
		return nil, false, s.failure(ctx, err, "")
	}
	found, more, err := s.matches(ctx, p, r, v, completionLimit)
	if err != nil {
		return nil, false, s.failure(ctx, err, "")
	}
	return found, more, nil
}

func containsFold(list []string, v string) bool {
	for _, x := range list {
		if strings.EqualFold(x, v) {
			return true
		}
	}
	return false
}
