package mcp

import (
	"context"
	"fmt"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// progressEvery is how often a tool call that asked for progress hears that it is still
// running: a call answered within it (nearly every one) sends no notification.
const progressEvery = time.Second

// progress is a tool handler middleware: a tools/call whose _meta carries a
// progressToken (MCP "Progress": the caller asks for notifications/progress) and is still
// running after progressEvery gets one notification a second, progress counting up, with
// no total (the server cannot know one) and a message naming the tool and the time spent,
// until it answers. Enrichment waits on an outside provider and is the call this is for;
// any tool gets it. mcp-go then answers as an event stream, the notifications before the
// result. Calls without _meta take the direct path (direct.go) and are never held here.
func (s *Server) progress(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		srv := server.ServerFromContext(ctx)
		if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil || srv == nil {
			return next(ctx, req)
		}
		token, name := req.Params.Meta.ProgressToken, req.Params.Name
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			tick := time.NewTicker(progressEvery)
			defer tick.Stop()
			for n := 1; ; n++ {
				select {
				case <-done:
					return
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				err := srv.SendNotificationToClient(ctx, string(mcpgo.MethodNotificationProgress), map[string]any{
					"progressToken": token, "progress": n, "message": fmt.Sprintf("%s still running (%d s)", name, n)})
				if err != nil {
					s.log.DebugContext(ctx, "progress notification not sent", "tool", name, "err", err)
				}
			}
		})
		res, err := next(ctx, req)
		close(done)
		wg.Wait() // no notification after the result
		return res, err
	}
}
