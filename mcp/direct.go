package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/workspace"
)

// callDirect answers the commonest request, one tools/call of a catalogue tool from a
// client on a pre-2026 protocol version, without mcp-go's transport: the envelope is
// decoded once, the tool runs through the same handler mcp-go would run (view, readonly,
// rate limit, operation layer: call.go), and the record's JSON is written into the
// response once. Per request mcp-go decodes the envelope three times and the arguments
// into generic maps, builds an ephemeral session with a notification goroutine, and
// re-encodes the result through maps; on a get that was most of the cost of a call
// (docs/performance.md). The answer is the one mcp-go gives: stateless mode mints and
// echoes no Mcp-Session-Id after initialize, a legacy response is 200 application/json,
// and nothing here can emit notifications, so mcp-go would never upgrade to SSE.
// Everything else, and anything this does not recognise, goes to next (mcp-go) with
// the body intact: initialize, tools/list, notifications, batches, find_tools and
// call_tool, unknown tools, malformed envelopes, _meta or task parameters, and the
// stateless 2026-07-28 protocol with its header checks.
func (s *Server) callDirect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.directCandidate(r) {
			next.ServeHTTP(w, r)
			return
		}
		body, err := readAllRestore(r) // as inspect read it (envelope.go)
		if err != nil {                // over the body limit: mcp-go words the error
			next.ServeHTTP(w, r)
			return
		}
		req, sp, ok := s.directCall(body)
		if !ok || !viewFrom(r.Context()).reaches(sp) { // mcp-go answers "not found"
			next.ServeHTTP(w, r)
			return
		}
		res, answer, err := s.runTool(r.Context(), sp, req)
		if answer != nil || err != nil {
			writeCallResult(w, req.id, answer, err)
			return
		}
		writeResult(w, req.id, sp.is(workspace.OpList), res)
	})
}

// directCandidate checks what the HTTP request alone tells: a JSON POST on a protocol
// version before 2026-07-28 (or none, as 2025-03-26 clients send) from a client that
// accepts JSON, and a Host mcp-go's DNS-rebinding guard would let through.
func (s *Server) directCandidate(r *http.Request) bool {
	if r.Method != http.MethodPost || r.Body == nil {
		return false
	}
	if !isMediaType(r.Header.Get("Content-Type"), "application/json") {
		return false
	}
	switch r.Header.Get(mcpgo.HeaderProtocolVersion) {
	case "", mcpgo.ProtocolVersion20251125, mcpgo.ProtocolVersion20250618:
	default:
		return false
	}
	if a := r.Header.Values("Accept"); len(a) > 0 && !acceptsJSON(a) {
		return false
	}
	if s.loopback {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		if !loopbackHost(host) {
			return false
		}
	}
	return true
}

func acceptsJSON(values []string) bool {
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			if isMediaType(part, "application/json") || isMediaType(part, "application/*") || isMediaType(part, "*/*") {
				return true
			}
		}
	}
	return false
}

// isMediaType reports whether the header value v names the media type want (lowercase),
// as mime.ParseMediaType reads it: a bare type, spaces around it and case aside, is
// compared as it is; one with parameters or anything unusual goes through
// mime.ParseMediaType, which validates them (and allocates).
func isMediaType(v, want string) bool {
	v = strings.TrimSpace(v)
	if asciiEqualFold(v, want) {
		return true // want is a valid media type, so v parses to it
	}
	if !strings.ContainsAny(v, ";\"") {
		return false // a bare type that differs from want beyond case
	}
	mt, _, err := mime.ParseMediaType(v)
	return err == nil && mt == want
}

// asciiEqualFold is strings.EqualFold for ASCII letters only, as mime.ParseMediaType
// lowercases a media type (strings.EqualFold would also fold "ſ" to "s").
func asciiEqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// directTool is a recognised call: its id and mcp-go's form of the request.
type directTool struct {
	id   json.RawMessage
	call mcpgo.CallToolRequest
}

// directCall reads body and reports whether it is a tools/call this path answers: valid
// JSON, a JSON-RPC 2.0 request with a string or integer id naming a catalogue tool,
// without _meta (a 2026-07-28 request declares its version there) or task augmentation.
// It reads the members inspect has split (envelope.go); inspect has refused names given
// twice or in another case, so they read as Go's decoder would read them.
func (s *Server) directCall(body *readBody) (directTool, toolSpec, bool) {
	if _, ok := body.members(); !ok || !json.Valid(body.raw) {
		return directTool{}, toolSpec{}, false
	}
	id := body.member("id")
	if !isString(body.member("jsonrpc"), mcpgo.JSONRPC_VERSION) ||
		!isString(body.member("method"), string(mcpgo.MethodToolsCall)) || !plainID(id) {
		return directTool{}, toolSpec{}, false
	}
	if _, ok := body.params(); !ok || body.param("_meta") != nil || body.param("task") != nil {
		return directTool{}, toolSpec{}, false
	}
	sp, ok := s.specNamed(body.param("name"))
	if !ok || sp.run != nil {
		return directTool{}, toolSpec{}, false
	}
	var call mcpgo.CallToolRequest
	call.Method = string(mcpgo.MethodToolsCall)
	call.Params.Name = sp.tool.Name
	// The handler reads RawArguments as mcp-go's decoder leaves them; Arguments, the
	// same decoded into maps, is what this path saves.
	call.Params.RawArguments = body.param("arguments")
	return directTool{id: id, call: call}, sp, true
}

// plainID accepts ids mcp-go echoes unchanged in meaning: strings and integers of at most
// 15 digits (exact in every JSON reader).
func plainID(id json.RawMessage) bool {
	if len(id) == 0 {
		return false
	}
	if id[0] == '"' {
		return true // json.Valid has checked it is a valid string
	}
	digits := id
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 15 {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// runTool runs the tool as the handler mcp-go has registered for sp does (call.go),
// turning a panic into an error worded as mcp-go's recovery middleware words it.
func (s *Server) runTool(ctx context.Context, sp toolSpec, req directTool) (res result, answer *mcpgo.CallToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, answer, err = result{}, nil, fmt.Errorf("panic recovered in %s tool handler: %v", sp.tool.Name, p)
		}
	}()
	return s.call(ctx, sp, req.call)
}

// writeResult writes the JSON-RPC response mcp-go writes for the CallToolResult the
// handler would make of res (toolResult): its text rendered and its structured content
// appended straight into the response, without the result, its content or a string copy
// of the text in between.
func writeResult(w http.ResponseWriter, id json.RawMessage, list bool, res result) {
	textBuf := responses.Get().(*[]byte)
	text := appendText((*textBuf)[:0], list, res)
	buf := responses.Get().(*[]byte)
	out := slices.Grow((*buf)[:0], 128+len(text)+len(text)/8+len(res.data)) // room for escapes and next_cursor
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"result":{"content":[{"type":"text","text":`...)
	out = appendJSONString(out, text)
	out = append(out, `}]`...)
	if list || len(res.data) > 0 {
		out = append(out, `,"structuredContent":`...)
		out = appendStructured(out, list, res)
	}
	out = append(out, `}}`...)
	writeResponse(w, out)
	putResponse(textBuf, text)
	putResponse(buf, out)
}

// writeCallResult writes the JSON-RPC response mcp-go writes for a tool's result or
// handler error: a result of text content, structured content and isError (only when
// true), or an internal error.
func writeCallResult(w http.ResponseWriter, id json.RawMessage, res *mcpgo.CallToolResult, err error) {
	size := 64
	if res != nil {
		size += len(res.RawStructuredContent)
		for _, c := range res.Content {
			if text, ok := c.(mcpgo.TextContent); ok {
				size += len(text.Text) + len(text.Text)/8 // room for escapes
			}
		}
	}
	buf := responses.Get().(*[]byte)
	out := slices.Grow((*buf)[:0], size)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	if err != nil {
		msg, _ := json.Marshal(err.Error())
		out = fmt.Appendf(out, `,"error":{"code":%d,"message":%s}}`, mcpgo.INTERNAL_ERROR, msg)
	} else {
		out = append(out, `,"result":{"content":[`...)
		for i, c := range res.Content {
			if i > 0 {
				out = append(out, ',')
			}
			text := c.(mcpgo.TextContent) // the handler writes text content only
			out = append(out, `{"type":"text","text":`...)
			out = appendJSONString(out, text.Text)
			out = append(out, '}')
		}
		out = append(out, ']')
		if len(res.RawStructuredContent) > 0 {
			out = append(out, `,"structuredContent":`...)
			out = append(out, res.RawStructuredContent...)
		}
		if res.IsError {
			out = append(out, `,"isError":true`...)
		}
		out = append(out, `}}`...)
	}
	writeResponse(w, out)
	putResponse(buf, out)
}

// writeResponse writes a JSON-RPC response of the direct path: 200, application/json,
// the body and a line break.
func writeResponse(w http.ResponseWriter, out []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(out, '\n')) // copied: the ResponseWriter keeps no reference
}

// putResponse returns a buffer to responses with out, what was last written into it, as
// its storage; one grown above maxPooledResponse (a long page) is let go.
func putResponse(buf *[]byte, out []byte) {
	if cap(out) <= maxPooledResponse {
		*buf = out
		responses.Put(buf)
	}
}

// responses holds the buffers the direct path writes answers into, so a call's answer is
// not a fresh allocation each time; one above maxPooledResponse (a long page) is let go.
var responses = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledResponse = 64 << 10

// appendJSONString appends s as a JSON string, escaped as encoding/json escapes it
// (HTML-safe, U+2028 and U+2029 escaped), without its reflection and copies; text that is
// not valid UTF-8 goes through encoding/json, which replaces what is invalid.
func appendJSONString[T string | []byte](out []byte, s T) []byte {
	if !validUTF8(s) {
		b, _ := json.Marshal(string(s))
		return append(out, b...)
	}
	const hex = "0123456789abcdef"
	out = append(out, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			out = append(out, s[start:i]...)
			switch c {
			case '"', '\\':
				out = append(out, '\\', c)
			case '\n':
				out = append(out, '\\', 'n')
			case '\r':
				out = append(out, '\\', 'r')
			case '\t':
				out = append(out, '\\', 't')
			default:
				out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		// Valid UTF-8: U+2028 and U+2029 are E2 80 A8 and E2 80 A9, and no other
		// sequence holds those bytes in a row.
		if c == 0xe2 && i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xa8 || s[i+2] == 0xa9) {
			out = append(out, s[start:i]...)
			out = append(out, '\\', 'u', '2', '0', '2', hex[s[i+2]&0xf])
			i += 3
			start = i
			continue
		}
		i++
	}
	out = append(out, s[start:]...)
	return append(out, '"')
}

// validUTF8 is utf8.ValidString or utf8.Valid, whichever s is, without converting it.
func validUTF8[T string | []byte](s T) bool {
	if v, ok := any(s).(string); ok {
		return utf8.ValidString(v)
	}
	return utf8.Valid(any(s).([]byte))
}

// errReader hands mcp-go the error reading the body met (the body limit).
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
