package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agencyos/workspaced/store/storetest"
)

// TestTypeScriptSDKFeatures: the official SDK with an agent key lists prompts, resources
// and templates, completes a company's name and id, gets account_brief with the completed
// name, reads the completed record as JSON and markdown, and meets a missing record as an
// error carrying data.uri (run under WORKSPACED_TOOL_TESTS=1, as the other SDK tests).
func TestTypeScriptSDKFeatures(t *testing.T) {
	node := requireSDK(t)
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	acme := e.mustCreate(t, f.Agent.Key, "companies", `{"name": "Acme Rockets", "industry": "Aerospace"}`)
	e.mustCreate(t, f.Agent.Key, "companies", `{"name": "Initech"}`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "features.mjs")
	cmd.Dir = sdkDir
	cmd.Env = append(os.Environ(), "MCP_URL="+e.srv.URL+"/mcp", "AGENT_KEY="+f.Agent.Key, "PARTIAL=acm")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("features.mjs: %v\n%s", err, stderr.String())
	}
	var out struct {
		Protocol     string   `json:"protocol"`
		Capabilities []string `json:"capabilities"`
		Prompts      []string `json:"prompts"`
		Resources    []string `json:"resources"`
		Templates    []string `json:"templates"`
		Names        []string `json:"names"`
		IDs          []string `json:"ids"`
		PromptText   string   `json:"promptText"`
		Contents     []struct {
			URI      string `json:"uri"`
			MIMEType string `json:"mimeType"`
			Text     string `json:"text"`
		} `json:"contents"`
		Missing *struct {
			Code int            `json:"code"`
			Data map[string]any `json:"data"`
		} `json:"missing"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("features.mjs printed %q: %v", stdout.String(), err)
	}
	t.Logf("SDK negotiated protocol %s", out.Protocol)
	for _, c := range []string{"completions", "prompts", "resources", "tools"} {
		if !slices.Contains(out.Capabilities, c) {
			t.Errorf("capabilities %v lack %s", out.Capabilities, c)
		}
	}
	if len(out.Prompts) != 5 || !slices.Contains(out.Resources, "workspaced://overview") || !slices.Contains(out.Templates, "workspaced://companies/{id}") {
		t.Fatalf("listings: prompts %v, resources %v, templates %v", out.Prompts, out.Resources, out.Templates)
	}
	id := acme["id"].(string)
	if !slices.Equal(out.Names, []string{"Acme Rockets"}) || !slices.Equal(out.IDs, []string{id}) {
		t.Fatalf("completions: names %v, ids %v", out.Names, out.IDs)
	}
	if !strings.Contains(out.PromptText, id) || !strings.Contains(out.PromptText, "`list_people`") {
		t.Fatalf("account_brief:\n%s", out.PromptText)
	}
	if len(out.Contents) != 2 || out.Contents[0].MIMEType != "application/json" || !strings.Contains(out.Contents[0].Text, `"Aerospace"`) ||
		out.Contents[1].MIMEType != "text/markdown" || !strings.HasPrefix(out.Contents[1].Text, "# Acme Rockets") {
		t.Fatalf("contents: %+v", out.Contents)
	}
	if out.Missing == nil || out.Missing.Data["uri"] != "workspaced://companies/00000000-0000-4000-8000-000000000000" ||
		(out.Missing.Code != -32602 && out.Missing.Code != -32002) {
		t.Fatalf("a missing record: %+v", out.Missing)
	}
}
