package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/workspace"
)

// The import_records tool runs a batch write (workspace.Ops.Batch, REST's POST
// /v1/{resource}/batch) on any resource. The default toolsets are at their byte budget
// (docs/mcp.md), so it forms a toolset of its own, "import", listed when a connection
// names it (X-MCP-Toolsets: default,import, or /mcp/x/import).
const (
	toolImport    = "import_records"
	toolsetImport = "import"
)

func (s *Server) importTool() toolSpec {
	args := input(map[string]*jsonschema.Schema{
		"resource":        typed("string"),
		"operation":       {Type: "string", Enum: []any{workspace.BatchCreate, workspace.BatchUpdate, workspace.BatchUpsert}},
		"match":           typed("string"),
		"records":         {Type: "array", Items: typed("object"), MaxItems: jsonschema.Ptr(workspace.MaxBatch)},
		"atomic":          typed("boolean"),
		"idempotency_key": idempotencyKeyProperty(),
	}, "resource", "operation", "records")
	terms := map[string]int{}
	for _, w := range words("import batch bulk upsert records many spreadsheet") {
		terms[w] = weightName
	}
	return toolSpec{run: s.runImport, terms: terms, toolset: toolsetImport, tool: newTool(toolImport,
		"Create, update or upsert up to 100 records of one resource at once, each checked as a single write. "+
			"update: each record has its id. upsert: match is id, email (people), domain (companies, from website) or custom_fields.<key> (unique). "+
			"atomic: true writes all or none. Answers results, one per record: i (index), s (status), id or error.",
		args, object(map[string]*jsonschema.Schema{"results": {Type: "array", Items: typed("object")}}), hints(false, false, false))}
}

// importItem is one record's outcome, compact: a model reads every byte.
type importItem struct {
	Index  int          `json:"i"`
	Status int          `json:"s"`
	ID     *string      `json:"id,omitempty"`
	Error  *importError `json:"error,omitempty"`
}

type importError struct {
	Code    apierr.Code         `json:"code"`
	Message string              `json:"message"`
	Fields  []apierr.FieldError `json:"fields,omitempty"`
}

func (s *Server) runImport(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	p := httpx.PrincipalFrom(ctx)
	if p == nil {
		return nil, errors.New("mcp: import_records without an authenticated principal")
	}
	if viewFrom(ctx).readonly {
		return s.toolError(ctx, readonlyError(toolImport)), nil
	}
	var args struct {
		Resource  string          `json:"resource"`
		Operation string          `json:"operation"`
		Match     string          `json:"match,omitempty"`
		Records   json.RawMessage `json:"records"`
		Atomic    bool            `json:"atomic,omitempty"`
		Key       string          `json:"idempotency_key,omitempty"`
	}
	if err := decodeArgs(req, &args); err != nil {
		return s.toolError(ctx, err), nil
	}
	r := workspace.Lookup(args.Resource)
	if r == nil {
		return s.toolError(ctx, workspace.UnknownResource(args.Resource)), nil
	}
	if !viewFrom(ctx).reaches(toolSpec{resource: r, toolset: r.Toolset()}) {
		return s.toolError(ctx, workspace.UnknownResource(args.Resource)), nil
	}
	// The batch's body as REST takes it, so both decode and fingerprint it alike.
	body, err := json.Marshal(struct {
		Operation string          `json:"operation"`
		Match     string          `json:"match,omitempty"`
		Records   json.RawMessage `json:"records"`
		Atomic    bool            `json:"atomic,omitempty"`
	}{args.Operation, args.Match, args.Records, args.Atomic})
	if err != nil {
		return s.toolError(ctx, apierr.BadRequest("arguments are not JSON: %v", err)), nil
	}
	batch, err := workspace.DecodeBatch(body)
	if err != nil {
		return s.toolError(ctx, err), nil
	}
	if err := s.takeRate(ctx, p); err != nil {
		return s.toolError(ctx, err), nil
	}
	if err := workspace.TakeBatchUnits(ctx, s.cfg.Limiter, p, nil, len(batch.Records)); err != nil {
		return s.toolError(ctx, err), nil
	}
	posted, err := s.cfg.Ops.Batch(ctx, p, r, batch, args.Key, httpx.Status)
	if err != nil {
		return s.toolError(ctx, err), nil
	}
	var full []workspace.BatchItem
	if err := json.Unmarshal(posted.Data, &full); err != nil {
		return nil, err
	}
	out := make([]importItem, len(full))
	for i, it := range full {
		out[i] = importItem{Index: it.Index, Status: it.Status, ID: it.ID}
		if it.Error != nil {
			out[i].Error = &importError{Code: it.Error.Code, Message: it.Error.Message, Fields: it.Error.Fields}
		}
	}
	// Structured content is an object (MCP schema, CallToolResult.structuredContent).
	data, err := json.Marshal(struct {
		Results []importItem `json:"results"`
	}{out})
	if err != nil {
		return nil, fmt.Errorf("mcp: encode result: %w", err)
	}
	return toolResult(false, result{data: data}), nil
}
