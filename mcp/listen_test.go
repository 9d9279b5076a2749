package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agencyos/workspaced/mcp"
	"github.com/agencyos/workspaced/store/storetest"
)

// TestListenAcknowledgesFirst: every subscriptions/listen stream (2026-07-28) opens with
// notifications/subscriptions/acknowledged, 30 streams in a row. Before ackFirst
// (mcp/listen.go), under -race -count=3 one stream in about ten began with the result.
func TestListenAcknowledgesFirst(t *testing.T) {
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, nil)
	tok := e.token(f.Admin)
	body := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
	for i := range 30 {
		first := func() string {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.srv.URL+mcp.Path, strings.NewReader(body))
			for j, h := 0, mcpHeaders(tok); j+1 < len(h); j += 2 {
				req.Header.Set(h[j], h[j+1])
			}
			req.Header.Set("MCP-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "subscriptions/listen")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			if res.StatusCode != http.StatusOK {
				raw, _ := io.ReadAll(res.Body)
				return "status " + res.Status + ": " + string(raw)
			}
			sc := bufio.NewScanner(res.Body)
			for sc.Scan() {
				if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
					return data
				}
			}
			return "no data line"
		}()
		var msg struct{ Method string }
		if err := json.Unmarshal([]byte(first), &msg); err != nil || msg.Method != "notifications/subscriptions/acknowledged" {
			t.Fatalf("stream %d: first message %s", i, first)
		}
	}
}
