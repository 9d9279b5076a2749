package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/httpx"
)

// Prompts, resources and completions answer failures as JSON-RPC errors, not tool errors:
// an unknown prompt or a missing argument is invalid params (-32602), a record the caller
// cannot see is the spec's "resource not found" with data.uri. mcp-go v1.2.1 turns every
// error a prompt, resource or completion handler returns into an internal error (-32603,
// mcp-go's handlerError) and has no way for a handler to choose the code or data.
// rpcFaults fills that gap from outside: the handler records the error it means in a box
// the request's context carries (fail), and rpcFaults rewrites mcp-go's -32603 answer into
// that error, with the HTTP status 2026-07-28 gives its code.

// rpcError is a JSON-RPC error a prompt, resource or completion handler answers with.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return e.Message }

type faultKey struct{}

// faultBox holds the error the request's handler meant.
type faultBox struct {
	mu  sync.Mutex
	err *rpcError
}

// faultMethods are the methods whose handlers fail through fail.
var faultMethods = [][]byte{
	[]byte(`"` + mcpgo.MethodResourcesRead + `"`),
	[]byte(`"` + mcpgo.MethodPromptsGet + `"`),
	[]byte(`"` + mcpgo.MethodCompletionComplete + `"`),
}

// fail records e as the answer of the request ctx belongs to and returns it, for the
// handler to return to mcp-go.
func fail(ctx context.Context, e *rpcError) error {
	if box, ok := ctx.Value(faultKey{}).(*faultBox); ok {
		box.mu.Lock()
		box.err = e
		box.mu.Unlock()
	}
	return e
}

// invalidParams is JSON-RPC's invalid params: an unknown prompt, template or argument, or
// an argument's value that names nothing the caller can read.
func invalidParams(ctx context.Context, format string, args ...any) error {
	return fail(ctx, &rpcError{Code: mcpgo.INVALID_PARAMS, Message: fmt.Sprintf(format, args...)})
}

// notFound is the spec's "resource not found" for uri: -32602 on 2026-07-28 (which took it
// from JSON-RPC), -32002 before, as mcp-go answers a URI no template matches
// (its resourceNotFoundCode); data.uri names the resource either way.
func notFound(ctx context.Context, uri string) error {
	code := mcpgo.RESOURCE_NOT_FOUND
	if mcpgo.IsModernProtocol(server.RequestProtocolVersion(ctx)) {
		code = mcpgo.INVALID_PARAMS
	}
	return fail(ctx, &rpcError{Code: code, Message: "resource not found: " + uri, Data: map[string]any{"uri": uri}})
}

// failure answers an operation's error as a JSON-RPC error: not_found on a resource as
// notFound; any other refusal (insufficient_scope, insufficient_permission, rate_limited,
// bad_request) as invalid params whose data is REST's error envelope (with uri when a
// resource was read, retry_after when the budget is spent); a failure of the service as an
// internal error carrying only the request id, its cause logged.
func (s *Server) failure(ctx context.Context, err error, uri string) error {
	e, env := httpx.Failure(ctx, s.log, "request failed", err)
	if e.Code == apierr.CodeNotFound && uri != "" {
		return notFound(ctx, uri)
	}
	data := map[string]any{"error": env.Error, "request_id": env.RequestID}
	if uri != "" {
		data["uri"] = uri
	}
	if len(env.Fields) > 0 {
		data["fields"] = env.Fields
	}
	msg := env.Message
	if e.RetryAfter > 0 {
		secs := int(e.RetryAfter / time.Second)
		data["retry_after"] = secs
		msg += " (retry in " + strconv.Itoa(secs) + " seconds)"
	}
	code := mcpgo.INVALID_PARAMS
	if httpx.Status(e) >= 500 {
		code = mcpgo.INTERNAL_ERROR
	}
	return fail(ctx, &rpcError{Code: code, Message: msg, Data: data})
}

// rpcFaults rewrites mcp-go's answer to a prompts/get, resources/read or
// completion/complete whose handler failed through fail. Other requests pass untouched and
// unbuffered; these three are answered in one JSON body (they send no notifications), so
// buffering them costs nothing.
func (s *Server) rpcFaults(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		req, ok := faultCandidate(body)
		if err != nil || !ok {
			if err != nil {
				r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
			}
			next.ServeHTTP(w, r)
			return
		}
		box := &faultBox{}
		buf := &bufferedWriter{header: http.Header{}, status: http.StatusOK}
		next.ServeHTTP(buf, r.WithContext(context.WithValue(r.Context(), faultKey{}, box)))
		box.mu.Lock()
		meant := box.err
		box.mu.Unlock()
		out := buf.body.Bytes()
		var answer struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Error   *rpcError       `json:"error"`
		}
		if (meant != nil || req.Method == string(mcpgo.MethodResourcesRead)) && json.Unmarshal(out, &answer) == nil && answer.Error != nil {
			// A URI no template matches is answered by mcp-go itself, with the right code
			// but without data.uri: add it.
			if e := answer.Error; meant == nil && e.Data == nil && (e.Code == mcpgo.RESOURCE_NOT_FOUND || e.Code == mcpgo.INVALID_PARAMS) &&
				strings.Contains(e.Message, server.ErrResourceNotFound.Error()) {
				meant = &rpcError{Code: e.Code, Message: e.Message, Data: map[string]any{"uri": req.Params.URI}}
			}
			if meant != nil {
				rewritten, err := json.Marshal(struct {
					JSONRPC string          `json:"jsonrpc"`
					ID      json.RawMessage `json:"id"`
					Error   *rpcError       `json:"error"`
				}{answer.JSONRPC, answer.ID, meant})
				if err == nil {
					out = append(rewritten, '\n')
					// 2026-07-28 maps JSON-RPC codes to HTTP statuses (invalid params: 400);
					// earlier versions answer 200.
					if mcpgo.IsModernProtocol(r.Header.Get(mcpgo.HeaderProtocolVersion)) && meant.Code == mcpgo.INVALID_PARAMS {
						buf.status = http.StatusBadRequest
					}
					buf.header.Del("Content-Length")
				}
			}
		}
		for k, v := range buf.header {
			w.Header()[k] = v
		}
		w.WriteHeader(buf.status)
		_, _ = w.Write(out)
	})
}

// faultRequest is what rpcFaults reads of a request: its method and, for resources/read,
// the URI.
type faultRequest struct {
	Method string `json:"method"`
	Params struct {
		URI string `json:"uri"`
	} `json:"params"`
}

// faultCandidate reports whether body is one of faultMethods' requests: a cheap scan
// first, so a tools/call body is decoded here only when its text names one of them.
func faultCandidate(body []byte) (faultRequest, bool) {
	var req faultRequest
	if !slices.ContainsFunc(faultMethods, func(m []byte) bool { return bytes.Contains(body, m) }) {
		return req, false
	}
	ok := json.Unmarshal(body, &req) == nil &&
		slices.ContainsFunc(faultMethods, func(m []byte) bool { return bytes.Equal([]byte(`"`+req.Method+`"`), m) })
	return req, ok
}

// bufferedWriter holds a response until rpcFaults has looked at it. It is not an
// http.Flusher, so mcp-go answers in one JSON body rather than an event stream.
type bufferedWriter struct {
	header http.Header
	status int
	wrote  bool
	body   bytes.Buffer
}

func (b *bufferedWriter) Header() http.Header { return b.header }

func (b *bufferedWriter) WriteHeader(status int) {
	if !b.wrote {
		b.status, b.wrote = status, true
	}
}

func (b *bufferedWriter) Write(p []byte) (int, error) {
	b.wrote = true
	return b.body.Write(p)
}
