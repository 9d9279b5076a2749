package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agencyos/workspaced/httpx"
)

// The conformance toolset (Config.ConformanceFixtures, MCP_CONFORMANCE_FIXTURES=1, for
// tests only) carries the fixtures the official MCP conformance suite
// (@modelcontextprotocol/conformance, pinned in mcp/testdata/conformance) calls by name:
// its tools, prompts, resources and template, the multi round-trip tools, and the
// diagnostic tools of its server-stateless scenario. They are served on
// /mcp/x/conformance only (never in "all"), touch no workspace data, and exist so the
// suite's every required scenario can run against this server's own transport, error
// layer, sealed requestState and caching hints. mcp.New refuses them unless PublicURL is
// loopback.

// toolsetConformance names the fixtures' toolset.
const toolsetConformance = "conformance"

// conformancePNG and conformanceWAV are the smallest image and sound the suite accepts.
const (
	conformancePNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	conformanceWAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

// conformanceTools are the fixture tools, each with its own handler.
func (s *Server) conformanceTools() []toolSpec {
	text := func(t string) *mcpgo.CallToolResult { return mcpgo.NewToolResultText(t) }
	fixed := func(res func() *mcpgo.CallToolResult) server.ToolHandlerFunc {
		return func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) { return res(), nil }
	}
	tools := []struct {
		name, doc string
		run       server.ToolHandlerFunc
	}{
		{"test_simple_text", "Returns a simple text response.", fixed(func() *mcpgo.CallToolResult {
			return text("This is a simple text response for testing.")
		})},
		{"test_image_content", "Returns an image.", fixed(func() *mcpgo.CallToolResult {
			return &mcpgo.CallToolResult{Content: []mcpgo.Content{mcpgo.NewImageContent(conformancePNG, "image/png")}}
		})},
		{"test_audio_content", "Returns audio.", fixed(func() *mcpgo.CallToolResult {
			return &mcpgo.CallToolResult{Content: []mcpgo.Content{mcpgo.NewAudioContent(conformanceWAV, "audio/wav")}}
		})},
		{"test_embedded_resource", "Returns an embedded text resource.", fixed(func() *mcpgo.CallToolResult {
			return &mcpgo.CallToolResult{Content: []mcpgo.Content{mcpgo.NewEmbeddedResource(mcpgo.TextResourceContents{
				URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content."})}}
		})},
		{"test_multiple_content_types", "Returns text, an image and an embedded resource.", fixed(func() *mcpgo.CallToolResult {
			return &mcpgo.CallToolResult{Content: []mcpgo.Content{
				mcpgo.NewTextContent("Multiple content types test:"),
				mcpgo.NewImageContent(conformancePNG, "image/png"),
				mcpgo.NewEmbeddedResource(mcpgo.TextResourceContents{URI: "test://mixed-content-resource",
					MIMEType: "application/json", Text: `{"test":"data","value":123}`}),
			}}
		})},
		{"test_error_handling", "Returns a tool error on purpose.", fixed(func() *mcpgo.CallToolResult {
			return mcpgo.NewToolResultError("This tool intentionally returns an error for testing")
		})},
		{"test_tool_with_progress", "Reports progress 0, 50 and 100 of 100, then answers.", s.fixtureProgress},
		// The server-stateless scenario's diagnostics: test_missing_capability needs the
		// sampling capability (checkFixtureCapability refuses it before dispatch when it was
		// not declared); the other two answer without requests or log messages on the stream.
		{"test_missing_capability", "Needs the client's sampling capability.", fixed(func() *mcpgo.CallToolResult { return text("Success") })},
		{"test_streaming_elicitation", "Answers on the request's stream.", fixed(func() *mcpgo.CallToolResult { return text("Streaming complete") })},
		{"test_logging_tool", "Logs only when the request set a log level.", fixed(func() *mcpgo.CallToolResult { return text("Logging complete") })},
		{"test_input_required_result_elicitation", "Asks for a name through an elicitation.", s.fixtureElicitation},
		{"test_input_required_result_sampling", "Asks the client's model a question.", s.fixtureSampling},
		{"test_input_required_result_list_roots", "Asks for the client's roots.", s.fixtureRoots},
		{"test_input_required_result_request_state", "Asks for a confirmation, keeping a sealed state.", s.fixtureState("request-state")},
		{"test_input_required_result_tampered_state", "Asks for a confirmation; a changed state is refused.", s.fixtureState("tamper-test")},
		{"test_input_required_result_multiple_inputs", "Asks for a name, a sampled greeting and the roots at once.", s.fixtureMultiple},
		{"test_input_required_result_multi_round", "Asks for a name, then a colour, then answers.", s.fixtureMultiRound},
		{"test_input_required_result_capabilities", "Asks only through the capabilities the client declared.", s.fixtureCapabilities},
	}
	out := make([]toolSpec, 0, len(tools))
	for _, t := range tools {
		out = append(out, toolSpec{toolset: toolsetConformance, run: t.run,
			tool: newTool(t.name, t.doc, input(nil), nil, hints(true, true, false))})
	}
	return out
}

// fixtureProgress sends three progress notifications before its result.
func (s *Server) fixtureProgress(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	if srv := server.ServerFromContext(ctx); srv != nil && req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
		for _, n := range []int{0, 50, 100} {
			_ = srv.SendNotificationToClient(ctx, string(mcpgo.MethodNotificationProgress), map[string]any{
				"progressToken": req.Params.Meta.ProgressToken, "progress": n, "total": 100})
			// mcp-go v1.2.1 drops a notification its forwarder takes off the queue while
			// the result is being written; a pause after each lets it be written first.
			time.Sleep(30 * time.Millisecond)
		}
	}
	return mcpgo.NewToolResultText("progress reported"), nil
}

// askText is an elicitation of one required string property.
func askText(message, property string) mcpgo.ElicitationParams {
	return mcpgo.ElicitationParams{Message: message, RequestedSchema: map[string]any{"type": "object",
		"properties": map[string]any{property: map[string]any{"type": "string"}}, "required": []string{property}}}
}

// askOK is the fixtures' confirmation: one required boolean, ok.
var askOK = mcpgo.ElicitationParams{Message: "Please confirm", RequestedSchema: map[string]any{"type": "object",
	"properties": map[string]any{"ok": map[string]any{"type": "boolean"}}, "required": []string{"ok"}}}

// elicited is the accepted content of the elicitation answered under id, or nil.
func elicited(responses mcpgo.InputResponses, id string) map[string]any {
	r := server.ElicitationResponse(responses, id)
	if r == nil || r.Action != mcpgo.ElicitationResponseActionAccept {
		return nil
	}
	content, _ := r.Content.(map[string]any)
	return content
}

func (s *Server) fixtureElicitation(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	if c := elicited(req.Params.InputResponses, "user_name"); c != nil {
		if name, ok := c["name"].(string); ok {
			return mcpgo.NewToolResultText("Hello, " + name + "!"), nil
		}
	}
	return server.NewInputRequestBuilder("").Elicit("user_name", askText("What is your name?", "name")).ToolResult(), nil
}

// sampleRequest asks the client's model one question.
func sampleRequest(question string, maxTokens int) mcpgo.CreateMessageParams {
	return mcpgo.CreateMessageParams{MaxTokens: maxTokens, Messages: []mcpgo.SamplingMessage{{Role: mcpgo.RoleUser,
		Content: mcpgo.NewTextContent(question)}}}
}

// sampledText is the text the client's model answered under id, or "".
func sampledText(responses mcpgo.InputResponses, id string) (string, bool) {
	r := server.SamplingResponse(responses, id)
	if r == nil {
		return "", false
	}
	if t, ok := r.Content.(mcpgo.TextContent); ok {
		return t.Text, true
	}
	return "", true
}

func (s *Server) fixtureSampling(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	if text, ok := sampledText(req.Params.InputResponses, "sample_request"); ok {
		return mcpgo.NewToolResultText("Sampling result: " + text), nil
	}
	return server.NewInputRequestBuilder("").Sample("sample_request", sampleRequest("What is the capital of France?", 100)).ToolResult(), nil
}

func (s *Server) fixtureRoots(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	if r := server.RootsResponse(req.Params.InputResponses, "roots_request"); r != nil {
		return mcpgo.NewToolResultText(fmt.Sprintf("Found %d root(s)", len(r.Roots))), nil
	}
	return server.NewInputRequestBuilder("").Roots("roots_request").ToolResult(), nil
}

// fixtureSeal seals data as the requestState of the fixture call req.
func (s *Server) fixtureSeal(ctx context.Context, req mcpgo.CallToolRequest, data any) string {
	raw, _ := json.Marshal(data)
	return s.states.seal(sealedState{Tool: req.Params.Name, Args: argsDigest(req.Params.RawArguments),
		Credential: credentialID(ctx), Data: raw}, time.Now())
}

// fixtureOpen reads the requestState of req into data; false when there is none or it is
// not this call's (checkState has already refused one that does not open).
func (s *Server) fixtureOpen(ctx context.Context, req mcpgo.CallToolRequest, data any) bool {
	if req.Params.RequestState == "" {
		return false
	}
	st, err := s.states.open(req.Params.RequestState, time.Now())
	if err != nil || !st.belongs(req.Params.Name, argsDigest(req.Params.RawArguments), credentialID(ctx)) {
		return false
	}
	return json.Unmarshal(st.Data, data) == nil
}

// fixtureState asks for a confirmation and completes once the confirmation and its
// sealed state come back.
func (s *Server) fixtureState(kind string) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		var st struct{ Kind string }
		if s.fixtureOpen(ctx, req, &st) && st.Kind == kind {
			if c := elicited(req.Params.InputResponses, "confirm"); c != nil && c["ok"] == true {
				return mcpgo.NewToolResultText("state-ok: requestState validated"), nil
			}
		}
		return server.NewInputRequestBuilder(s.fixtureSeal(ctx, req, map[string]string{"Kind": kind})).
			Elicit("confirm", askOK).ToolResult(), nil
	}
}

func (s *Server) fixtureMultiple(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	var st struct{ Kind string }
	in := req.Params.InputResponses
	if s.fixtureOpen(ctx, req, &st) && st.Kind == "multiple-inputs" {
		c := elicited(in, "user_name")
		greeting, sampled := sampledText(in, "greeting")
		roots := server.RootsResponse(in, "client_roots")
		if name, ok := c["name"].(string); ok && sampled && roots != nil {
			return mcpgo.NewToolResultText(fmt.Sprintf("Name: %s; Greeting: %s; Roots: %d", name, greeting, len(roots.Roots))), nil
		}
	}
	return server.NewInputRequestBuilder(s.fixtureSeal(ctx, req, map[string]string{"Kind": "multiple-inputs"})).
		Elicit("user_name", askText("What is your name?", "name")).
		Sample("greeting", sampleRequest("Generate a greeting", 50)).
		Roots("client_roots").ToolResult(), nil
}

func (s *Server) fixtureMultiRound(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	var st struct {
		Round int
		Name  string
	}
	if s.fixtureOpen(ctx, req, &st) {
		in := req.Params.InputResponses
		if name, ok := elicited(in, "step1")["name"].(string); ok && st.Round == 1 {
			return server.NewInputRequestBuilder(s.fixtureSeal(ctx, req, map[string]any{"Round": 2, "Name": name})).
				Elicit("step2", askText("Step 2: What is your favorite color?", "color")).ToolResult(), nil
		}
		if color, ok := elicited(in, "step2")["color"].(string); ok && st.Round == 2 {
			return mcpgo.NewToolResultText(fmt.Sprintf("Multi-round complete for %s who likes %s", st.Name, color)), nil
		}
	}
	return server.NewInputRequestBuilder(s.fixtureSeal(ctx, req, map[string]any{"Round": 1})).
		Elicit("step1", askText("Step 1: What is your name?", "name")).ToolResult(), nil
}

func (s *Server) fixtureCapabilities(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
	if len(req.Params.InputResponses) > 0 {
		return mcpgo.NewToolResultText("capabilities-ok: received input"), nil
	}
	caps := clientCapabilities(ctx)
	b := server.NewInputRequestBuilder(s.fixtureSeal(ctx, req, map[string]string{"Kind": "capabilities-test"}))
	asked := false
	if caps.Elicitation != nil {
		b.Elicit("elicit_input", askText("Elicitation input", "value"))
		asked = true
	}
	if caps.Sampling != nil {
		b.Sample("sample_input", sampleRequest("Sample request", 50))
		asked = true
	}
	if !asked {
		return mcpgo.NewToolResultText("No supported capabilities declared"), nil
	}
	return b.ToolResult(), nil
}

// clientCapabilities are the capabilities the request's client declared: in the
// request's _meta on 2026-07-28; none on earlier versions, whose stateless requests
// cannot carry the server-initiated requests those capabilities are for.
func clientCapabilities(ctx context.Context) mcpgo.ClientCapabilities {
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern && info.ClientCapabilities != nil {
		return *info.ClientCapabilities
	}
	return mcpgo.ClientCapabilities{}
}

// credentialID is the id of the request's credential, what a sealed state is bound to.
func credentialID(ctx context.Context) string {
	if p := httpx.PrincipalFrom(ctx); p != nil {
		return p.Credential.Type + ":" + p.Credential.ID
	}
	return ""
}

// addConformance registers the fixture prompts, resources and template.
func (s *Server) addConformance(m *server.MCPServer) {
	user := func(c mcpgo.Content) mcpgo.PromptMessage {
		return mcpgo.PromptMessage{Role: mcpgo.RoleUser, Content: c}
	}
	prompt := func(msgs ...mcpgo.PromptMessage) *mcpgo.GetPromptResult {
		return &mcpgo.GetPromptResult{Messages: msgs}
	}
	m.AddPrompt(mcpgo.NewPrompt("test_simple_prompt", mcpgo.WithPromptDescription("A prompt without arguments.")),
		func(context.Context, mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
			return prompt(user(mcpgo.NewTextContent("This is a simple prompt for testing."))), nil
		})
	m.AddPrompt(mcpgo.NewPrompt("test_prompt_with_arguments", mcpgo.WithPromptDescription("A prompt with two required arguments."),
		mcpgo.WithArgument("arg1", mcpgo.ArgumentDescription("First test argument"), mcpgo.RequiredArgument()),
		mcpgo.WithArgument("arg2", mcpgo.ArgumentDescription("Second test argument"), mcpgo.RequiredArgument())),
		func(_ context.Context, req mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
			return prompt(user(mcpgo.NewTextContent(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'",
				req.Params.Arguments["arg1"], req.Params.Arguments["arg2"])))), nil
		})
	m.AddPrompt(mcpgo.NewPrompt("test_prompt_with_embedded_resource", mcpgo.WithPromptDescription("A prompt embedding a resource."),
		mcpgo.WithArgument("resourceUri", mcpgo.ArgumentDescription("URI of the resource to embed"), mcpgo.RequiredArgument())),
		func(_ context.Context, req mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
			return prompt(user(mcpgo.NewEmbeddedResource(mcpgo.TextResourceContents{URI: req.Params.Arguments["resourceUri"],
				MIMEType: "text/plain", Text: "Embedded resource content for testing."})),
				user(mcpgo.NewTextContent("Please process the embedded resource above."))), nil
		})
	m.AddPrompt(mcpgo.NewPrompt("test_prompt_with_image", mcpgo.WithPromptDescription("A prompt with an image.")),
		func(context.Context, mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
			return prompt(user(mcpgo.NewImageContent(conformancePNG, "image/png")),
				user(mcpgo.NewTextContent("Please analyze the image above."))), nil
		})
	m.AddPrompt(mcpgo.NewPrompt("test_input_required_result_prompt", mcpgo.WithPromptDescription("A prompt that asks for context first.")),
		func(_ context.Context, req mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
			if c, ok := elicited(req.Params.InputResponses, "user_context")["context"].(string); ok {
				return prompt(user(mcpgo.NewTextContent("Prompt with context: " + c))), nil
			}
			return server.NewInputRequestBuilder("").Elicit("user_context",
				askText("What context should the prompt use?", "context")).PromptResult(), nil
		})
	m.AddResource(mcpgo.NewResource("test://static-text", "static-text", mcpgo.WithResourceDescription("A static text resource."),
		mcpgo.WithMIMEType("text/plain")), s.fixtureResource(func(uri string) mcpgo.ResourceContents {
		return mcpgo.TextResourceContents{URI: uri, MIMEType: "text/plain", Text: "This is the content of the static text resource."}
	}))
	m.AddResource(mcpgo.NewResource("test://static-binary", "static-binary", mcpgo.WithResourceDescription("A static binary resource."),
		mcpgo.WithMIMEType("image/png")), s.fixtureResource(func(uri string) mcpgo.ResourceContents {
		return mcpgo.BlobResourceContents{URI: uri, MIMEType: "image/png", Blob: conformancePNG}
	}))
	m.AddResourceTemplate(mcpgo.NewResourceTemplate("test://template/{id}/data", "template",
		mcpgo.WithTemplateDescription("A template whose id is substituted."), mcpgo.WithTemplateMIMEType(mimeJSON)),
		server.ResourceTemplateHandlerFunc(s.fixtureResource(func(uri string) mcpgo.ResourceContents {
			id := strings.TrimSuffix(strings.TrimPrefix(uri, "test://template/"), "/data")
			raw, _ := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
			return mcpgo.TextResourceContents{URI: uri, MIMEType: mimeJSON, Text: string(raw)}
		})))
}

// fixtureResource reads a fixture resource on the conformance view; anywhere else it is
// not found, as it is not listed there.
func (s *Server) fixtureResource(contents func(uri string) mcpgo.ResourceContents) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
		if !viewFrom(ctx).fixtures() {
			return nil, notFound(ctx, req.Params.URI)
		}
		return []mcpgo.ResourceContents{contents(req.Params.URI)}, nil
	}
}

// isFixture reports whether a prompt, resource URI or template name is a fixture's.
func isFixture(name string) bool {
	return strings.HasPrefix(name, "test_") || strings.HasPrefix(name, "test://") || name == "template"
}

// fixtures reports whether the view selected the conformance toolset.
func (v view) fixtures() bool { return v.sets[toolsetConformance] }

// fixtureVisible reports whether a listed prompt, resource or template is shown: a
// fixture only on the conformance view, when the server has them.
func (s *Server) fixtureVisible(ctx context.Context, name string) bool {
	return s.cfg.ConformanceFixtures && viewFrom(ctx).fixtures() && isFixture(name)
}

// checkFixtureCapability answers a 2026-07-28 call of test_missing_capability whose
// client did not declare sampling with MissingRequiredClientCapabilityError (-32021, HTTP
// 400, data.requiredCapabilities naming sampling), as the specification prescribes; mcp-go
// gives a tool handler no way to answer with that error.
func (s *Server) checkFixtureCapability(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, ok := peekCall(r, `"test_missing_capability"`)
		if !ok || !viewFrom(r.Context()).fixtures() || req.Method != string(mcpgo.MethodToolsCall) ||
			req.Params.Name != "test_missing_capability" || req.Params.Meta.Caps == nil || req.Params.Meta.Caps["sampling"] != nil {
			next.ServeHTTP(w, r)
			return
		}
		out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{
			"code": mcpgo.MISSING_REQUIRED_CLIENT_CAPABILITY, "message": "this tool needs the client's sampling capability",
			"data": map[string]any{"requiredCapabilities": map[string]any{"sampling": map[string]any{}}}}})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(append(out, '\n'))
	})
}
