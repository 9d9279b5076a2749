package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/workspace"
)

// find_tools and call_tool keep every operation reachable from a small tool list without
// server state: a model searches in plain words, then calls what it found by name.
const (
	toolFind = "find_tools"
	toolCall = "call_tool"

	findDefaultLimit = 5
	findMaxLimit     = 20

	// A query is a request in plain words: a few hundred characters and a few dozen words
	// say any of them. Ranking costs in proportion to the query (a 1 MB one cost 0.3-1.1 s
	// of CPU; TestMetaToolArgumentsBounded), so longer ones are refused before it.
	findMaxQuery = 300
	findMaxWords = 30
	// callMaxName bounds call_tool's name: the longest tool name is far shorter.
	callMaxName = 100
)

// tooLong is the tool error of a free-text argument over its bound, in characters.
func tooLong(arg string, value string, bound int) error {
	if utf8.RuneCountInString(value) > bound {
		return apierr.BadRequest("%s must be at most %d characters", arg, bound)
	}
	return nil
}

func (s *Server) findTool() toolSpec {
	args := input(map[string]*jsonschema.Schema{
		"query": {Type: "string", MaxLength: jsonschema.Ptr(findMaxQuery),
			Description: fmt.Sprintf("what you want to do, in plain words (at most %d words)", findMaxWords)},
		"limit": {Type: "integer", Minimum: jsonschema.Ptr(1.0), Maximum: jsonschema.Ptr(float64(findMaxLimit)),
			Default: json.RawMessage(strconv.Itoa(findDefaultLimit))},
	}, "query")
	// What each found tool carries, needs_scope included, is said once in the instructions:
	// the default tools/list stays within 24 KB (docs/mcp.md).
	output := object(map[string]*jsonschema.Schema{"tools": {Type: "array", Items: typed("object")}}, "tools")
	return toolSpec{run: s.runFind, tool: newTool(toolFind, "Find tools you may use in every toolset by what you want to do (\"log a leave request\"), "+
		"best first; call_tool runs one.",
		args, output, hints(true, true, false))}
}

func (s *Server) callTool() toolSpec {
	args := input(map[string]*jsonschema.Schema{
		"name":      {Type: "string", MaxLength: jsonschema.Ptr(callMaxName), Description: "a tool name, as find_tools returns it"},
		"arguments": {Type: "object", Description: "the tool's arguments, per its inputSchema"},
	}, "name")
	// The result is the called tool's, whose structured content is always an object.
	return toolSpec{run: s.runCall, tool: newTool(toolCall, "Run any tool you may use by name, listed here or not, with the same checks, limits, errors and "+
		"result as calling it directly.",
		args, typed("object"), hints(false, false, true))}
}

// foundTool is one find_tools answer.
type foundTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	// NeedsScope is the scope an OAuth token lacks for the tool: calling it answers a
	// scope challenge the client re-authorizes on (envelope.go, stepUp).
	NeedsScope string `json:"needs_scope,omitempty"`
}

func (s *Server) runFind(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	p := httpx.PrincipalFrom(ctx)
	if p == nil {
		return nil, errors.New("mcp: find_tools without an authenticated principal")
	}
	var args struct {
		Query string `json:"query"`
		Limit *int   `json:"limit"`
	}
	if err := decodeArgs(req, &args); err != nil {
		return s.toolError(ctx, err), nil
	}
	limit := findDefaultLimit
	if args.Limit != nil {
		limit = *args.Limit
	}
	if strings.TrimSpace(args.Query) == "" || limit < 1 || limit > findMaxLimit {
		return s.toolError(ctx, apierr.BadRequest("send a non-empty query and a limit from 1 to %d", findMaxLimit)), nil
	}
	if err := tooLong("query", args.Query, findMaxQuery); err != nil {
		return s.toolError(ctx, err), nil
	}
	if len(strings.Fields(args.Query)) > findMaxWords {
		return s.toolError(ctx, apierr.BadRequest("query must be at most %d words: say what you want to do in a sentence", findMaxWords)), nil
	}
	if err := s.takeRate(ctx, p); err != nil {
		return s.toolError(ctx, err), nil
	}
	v := viewFrom(ctx)
	var candidates []toolSpec
	for _, t := range s.tools {
		sp := s.specs[t.Name]
		if sp.run != nil && sp.tool.Name != toolSearch || v.readonly && sp.write() || !v.reaches(sp) {
			continue
		}
		if _, stepUp := missingScope(p, sp); stepUp || canUse(p, sp) {
			candidates = append(candidates, sp)
		}
	}
	out := struct {
		Tools []foundTool `json:"tools"`
	}{Tools: []foundTool{}}
	found := rank(args.Query, candidates, limit)
	var names []string
	for _, sp := range found {
		names = append(names, sp.tool.Name)
	}
	var defs map[string][]workspace.CustomField // the workspace's own fields: customtools.go
	if s.custom(names...) {
		defs = s.customDefs(ctx)
	}
	for _, sp := range found {
		need, _ := missingScope(p, sp)
		out.Tools = append(out.Tools, foundTool{Name: sp.tool.Name, Description: firstSentence(sp.tool.Description),
			InputSchema: s.withCustom(sp.tool, defs).RawInputSchema, NeedsScope: need})
	}
	text, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return &mcpgo.CallToolResult{Content: []mcpgo.Content{mcpgo.NewTextContent(string(renderValue(text)))},
		RawStructuredContent: text}, nil
}

// runCall runs the named tool through its own handler, so the gates, rate limit, readonly
// refusal, errors, activity and result are exactly the direct call's.
func (s *Server) runCall(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	var args struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := decodeArgs(req, &args); err != nil {
		return s.toolError(ctx, err), nil
	}
	if err := tooLong("name", args.Name, callMaxName); err != nil {
		return s.toolError(ctx, err), nil
	}
	sp, ok := s.specs[args.Name]
	if !ok || sp.run != nil || !viewFrom(ctx).reaches(sp) {
		return s.toolError(ctx, apierr.Errorf(apierr.CodeUnknownTool,
			"there is no tool %q to call; find_tools {query} lists the tools you may use", args.Name)), nil
	}
	inner := mcpgo.CallToolRequest{Request: req.Request}
	inner.Params.Name = args.Name
	inner.Params.Meta = req.Params.Meta
	inner.Params.MultiRoundTripParams = req.Params.MultiRoundTripParams // a confirmation's answer (confirm.go)
	if len(args.Arguments) > 0 {
		inner.Params.RawArguments = args.Arguments
	}
	return s.handler(sp)(ctx, inner)
}

// decodeArgs reads a tool's arguments object into v; an argument of the wrong JSON type is
// a bad_request naming it and what it takes (badArg), as a list tool's is.
func decodeArgs(req mcpgo.CallToolRequest, v any) error {
	raw := req.Params.RawArguments
	if len(raw) == 0 {
		var err error
		if raw, err = json.Marshal(req.Params.Arguments); err != nil {
			return apierr.BadRequest("arguments are not JSON: %v", err)
		}
	}
	if string(raw) == "null" {
		return nil
	}
	err := json.Unmarshal(raw, v)
	var typeErr *json.UnmarshalTypeError
	var args map[string]json.RawMessage
	switch {
	case err == nil:
		return nil
	case errors.As(err, &typeErr) && typeErr.Field != "" && json.Unmarshal(raw, &args) == nil:
		name, _, _ := strings.Cut(strings.TrimPrefix(typeErr.Field, "."), ".") // an element's error names its argument
		return badArg(name, typeErr.Type, args[name])
	}
	return apierr.BadRequest("arguments must be a JSON object of the tool's input schema, got %s", clipArg(raw))
}

// firstSentence is a description's first sentence, the one line find_tools shows.
func firstSentence(d string) string {
	if i := strings.Index(d, ". "); i >= 0 {
		return d[:i+1]
	}
	return d
}

// Ranking. A query is reduced to stems; each scores by where it occurs in a tool: the
// resource's name (weight 5), its toolset (3), its one-sentence doc (2), a field name (1).
// Action words score the operations they mean (4). Ties keep catalogue order, so the
// answer is deterministic. The vocabulary below maps everyday words to the catalogue's.
const (
	weightName    = 5
	weightToolset = 3
	weightDoc     = 2
	weightField   = 1
	weightVerb    = 4
)

// actionKind maps a word to the operation it asks for.
func actionKind(word string) (workspace.Op, bool) {
	switch word {
	case "list", "show", "find", "search", "who", "which", "all", "browse", "many", "what":
		return workspace.OpList, true
	case "get", "detail", "open", "fetch", "read", "view":
		return workspace.OpGet, true
	case "create", "add", "new", "log", "record", "make", "file", "submit", "post", "write", "register", "pay":
		return workspace.OpCreate, true
	case "update", "change", "edit", "move", "set", "rename", "mark", "assign", "approve", "reject", "complete",
		"close", "reschedule":
		return workspace.OpUpdate, true
	case "detach", "unlink", "remove", "untag", "unassign":
		return workspace.OpDetach, true
	}
	return 0, false
}

// synonyms adds the catalogue's words for everyday ones.
func synonyms(word string) []string {
	switch word {
	case "invoice", "revenue", "sale", "earning", "payment received":
		return []string{"income"}
	case "bill", "cost", "spend", "spending":
		return []string{"expense"}
	case "contact", "person", "lead":
		return []string{"people"}
	case "account", "client", "organisation", "organization", "firm":
		return []string{"company"}
	case "team", "colleague", "staff", "employee", "teammate":
		return []string{"member", "user"}
	case "holiday", "vacation", "absence", "pto":
		return []string{"leave"}
	case "tag":
		return []string{"label"}
	case "done", "finish", "finished":
		return []string{"completed"}
	case "assign":
		return []string{"assignee"}
	case "balance":
		return []string{"credit"}
	case "firmographic", "domain", "enrichment":
		return []string{"enrich"}
	case "pay", "repay", "repayment":
		return []string{"payment"}
	case "note", "reply":
		return []string{"comment"}
	case "history", "audit", "changed", "recent", "recently", "happened":
		return []string{"activity"}
	case "opportunity":
		return []string{"deal"}
	case "stage", "column", "status":
		return []string{"stage"}
	}
	return nil
}

// stopWords carry no meaning for the search.
func stopWord(w string) bool {
	switch w {
	case "a", "an", "the", "to", "of", "on", "in", "for", "from", "into", "is", "are", "my", "our", "this", "that",
		"another", "by", "with", "as", "its", "it", "and", "or", "me", "i", "we", "there", "left", "up", "how", "do":
		return true
	}
	return false
}

// stem folds plural and possessive endings: companies -> company, deals -> deal.
func stem(w string) string {
	w = strings.TrimSuffix(w, "'s")
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		return w[:len(w)-1]
	}
	return w
}

// words splits text into stems, dropping stop words.
func words(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	}) {
		if w = stem(strings.Trim(w, "'")); w != "" && !stopWord(w) {
			out = append(out, w)
		}
	}
	return out
}

// toolTerms weighs the stems describing a catalogue tool (or me).
func toolTerms(sp toolSpec) map[string]int {
	terms := map[string]int{}
	add := func(text string, weight int) {
		for _, w := range words(text) {
			terms[w] = max(terms[w], weight)
		}
	}
	r := sp.resource
	if r == nil { // me
		add("me who am i my scopes grants credential", weightName)
		return terms
	}
	for _, f := range r.Fields {
		add(strings.ReplaceAll(f.Name, "_", " "), weightField)
	}
	add(r.Doc, weightDoc)
	add(r.Toolset(), weightToolset)
	add(strings.ReplaceAll(r.Name, "_", " "), weightName)
	if sp.tool.Name == toolEnrich {
		add("enrich company domain", weightName)
	}
	return terms
}

// rank returns the limit best tools for query among candidates, best first. Each query
// word scores its best match among itself and its synonyms; a tool whose operation is not
// the one an action word asks for loses a point, so "who is on the team" prefers any list
// to another resource's get.
func rank(query string, candidates []toolSpec, limit int) []toolSpec {
	var kinds []workspace.Op
	var groups [][]string // each query word with its synonyms
	seen := map[string]bool{}
	for _, w := range words(query) {
		if seen[w] {
			continue
		}
		seen[w] = true
		if k, ok := actionKind(w); ok {
			kinds = append(kinds, k)
		}
		g := []string{w}
		for _, syn := range synonyms(w) {
			g = append(g, words(syn)...)
		}
		groups = append(groups, g)
	}
	type scored struct {
		sp    toolSpec
		score int
		order int
	}
	var all []scored
	for i, sp := range candidates {
		terms := sp.terms
		score := 0
		for _, g := range groups {
			best := 0
			for _, w := range g {
				best = max(best, terms[w])
			}
			score += best
		}
		if score == 0 {
			continue // nothing in the query names this tool's resource
		}
		switch {
		case sp.tool.Name == toolSearch && slices.Contains(kinds, workspace.OpList): // search reads
			score += weightVerb
		case sp.resource != nil && slices.Contains(kinds, sp.op):
			score += weightVerb
		case len(kinds) > 0:
			score--
		case sp.is(workspace.OpList):
			score++ // with no action word, reading is the likelier wish
		}
		all = append(all, scored{sp, score, i})
	}
	slices.SortStableFunc(all, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.order, b.order))
	})
	var out []toolSpec
	for _, sc := range all[:min(limit, len(all))] {
		out = append(out, sc.sp)
	}
	return out
}
