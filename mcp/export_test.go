package mcp

import "net/http"

// MCPGoHandler is Handler with every request answered by mcp-go, the reference the direct
// tools/call path is compared with.
func MCPGoHandler(s *Server) http.Handler { return s.guard(s.http) }

// DirectHandler is Handler with fallback in mcp-go's place, so a test sees which requests
// the direct path declines.
func DirectHandler(s *Server, fallback http.Handler) http.Handler {
	return s.guard(s.callDirect(fallback))
}

// IsMediaType is the direct path's media type check, compared with mime.ParseMediaType.
var IsMediaType = isMediaType
