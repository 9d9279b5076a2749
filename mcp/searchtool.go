package mcp

import (
	"context"
	"errors"

	"github.com/google/jsonschema-go/jsonschema"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/workspace"
)

// The search tool runs GET /v1/search's operation (workspace.Ops.Search): always listed
// beside me, find_tools and call_tool, since finding a record by name is where most
// questions start.
const toolSearch = "search"

func (s *Server) searchTool() toolSpec {
	args := input(map[string]*jsonschema.Schema{
		"q":      typed("string"),
		"types":  {Type: "array", Items: typed("string")},
		"limit":  typed("integer"),
		"cursor": typed("string"),
	}, "q")
	output := pageSchema(nil) // items {type, id, title, snippet, score}: the instructions
	// find_tools sends "find / look up / search ... by name" here (and to the list tools).
	terms := map[string]int{}
	for _, w := range words("search find look lookup name named called") {
		terms[w] = weightName
	}
	return toolSpec{run: s.runSearch, terms: terms, tool: newTool(toolSearch, "Find records by name or text in all you may read; best first.",
		args, output, hints(true, true, false))}
}

func (s *Server) runSearch(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	p := httpx.PrincipalFrom(ctx)
	if p == nil {
		return nil, errors.New("mcp: search without an authenticated principal")
	}
	var args workspace.SearchParams
	if err := decodeArgs(req, &struct {
		Q      *string   `json:"q"`
		Types  *[]string `json:"types"`
		Limit  *int      `json:"limit"`
		Cursor *string   `json:"cursor"`
	}{&args.Q, &args.Types, &args.Limit, &args.Cursor}); err != nil {
		return s.toolError(ctx, err), nil
	}
	args.Types = viewFrom(ctx).searchTypes(args.Types)
	if err := s.takeRate(ctx, p); err != nil {
		return s.toolError(ctx, err), nil
	}
	page, err := s.cfg.Ops.Search(ctx, p, args)
	if err != nil {
		return s.toolError(ctx, err), nil
	}
	return toolResult(true, result{data: page.Data, nextCursor: page.NextCursor}), nil
}

// searchTypes narrows search's types to a bound token's fence: the named ones, or every
// searchable one, less those whose toolset lies outside it (left out, as Search leaves out
// a type the principal may not read); names Search does not know pass, for it to refuse.
func (v view) searchTypes(named []string) []string {
	if v.fence == nil || v.fence.sets == nil {
		return named
	}
	if named == nil {
		named = workspace.SearchableTypes()
	}
	out := []string{} // not nil: nil would search every type
	for _, name := range named {
		if r := workspace.Lookup(name); r == nil || v.fence.sets[r.Toolset()] {
			out = append(out, name)
		}
	}
	return out
}
