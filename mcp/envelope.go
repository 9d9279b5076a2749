package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/internal/jsonscan"
	"github.com/agencyos/workspaced/workspace"
)

// JSON-RPC 2.0's member names: an envelope, and a tools/call's params.
var (
	envelopeKeys = []string{"jsonrpc", "id", "method", "params", "result", "error"}
	callKeys     = []string{"name", "arguments", "_meta"}
)

// inspect reads a POST's JSON-RPC body once before the transport does, for two checks
// Go's JSON decoding cannot make (it matches member names case-insensitively and keeps
// the last of duplicates, so `{"method":"ping","METHOD":"tools/call"}` would be read as a
// call that another parser reads as a ping):
//   - an envelope, or a tools/call's params, with a duplicate member or one spelt in
//     another case than JSON-RPC's ("METHOD") is refused: 400, JSON-RPC invalid request;
//   - a tools/call an OAuth token lacks the tool's scope for is answered HTTP 403 with a
//     scope challenge (stepUp), so the client can re-authorize for it.
//
// Anything else (not JSON, not an object) goes on unchanged for the transport to answer.
func (s *Server) inspect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := readAllRestore(r)
		if err != nil { // over the body limit: the transport words the error
			next.ServeHTTP(w, r)
			return
		}
		if t := bytes.TrimLeft(body.raw, " \t\r\n"); len(t) > 0 && t[0] == '[' {
			var msgs []json.RawMessage
			_ = json.Unmarshal(body.raw, &msgs)
			for _, m := range msgs {
				if err := canonicalMembers(m, envelopeKeys); err != nil {
					writeRPCError(w, http.StatusBadRequest, mcpgo.INVALID_REQUEST, err.Error())
					return
				}
			}
			next.ServeHTTP(w, r)
			return
		}
		// One message: its members are split once (render.go's scanner; the transport
		// still decodes and so validates the body) and read from there, here and by the
		// direct path (direct.go).
		keys, ok := body.members()
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		if err := canonicalKeys(keys, envelopeKeys); err != nil {
			writeRPCError(w, http.StatusBadRequest, mcpgo.INVALID_REQUEST, err.Error())
			return
		}
		if !isString(body.member("method"), string(mcpgo.MethodToolsCall)) {
			next.ServeHTTP(w, r)
			return
		}
		if keys, ok := body.params(); ok {
			if err := canonicalKeys(keys, callKeys); err != nil {
				writeRPCError(w, http.StatusBadRequest, mcpgo.INVALID_REQUEST, "params: "+err.Error())
				return
			}
		}
		if s.stepUp(w, r, body) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// canonicalMembers checks the members of a JSON object (anything else passes: the
// transport answers it): no name twice, and none that equals one of names but for case.
func canonicalMembers(raw json.RawMessage, names []string) error {
	var o objectSplit
	if o.splitObject(raw); !o.ok {
		return nil
	}
	return canonicalKeys(o.keys, names)
}

// canonicalKeys checks an object's member names, in order, as canonicalMembers does. An
// envelope has a handful of members, compared pairwise; a long object goes through a set,
// so a hostile one costs no more than its length.
func canonicalKeys(keys [][]byte, names []string) error {
	var seen map[string]bool
	if len(keys) > 16 {
		seen = make(map[string]bool, len(keys))
	}
	for i, key := range keys {
		var twice bool
		if seen != nil {
			twice = seen[string(key)]
			seen[string(key)] = true
		} else {
			twice = slices.ContainsFunc(keys[:i], func(k []byte) bool { return bytes.Equal(k, key) })
		}
		if twice {
			return fmt.Errorf("the member %q appears twice", key)
		}
		for _, n := range names {
			if string(key) != n && bytes.EqualFold(key, []byte(n)) {
				return fmt.Errorf("the member %q must be written %q (JSON-RPC names are case-sensitive)", key, n)
			}
		}
	}
	return nil
}

// stepUp answers a tools/call an OAuth token lacks the tool's scope for (the tool named,
// or the one call_tool names) with HTTP 403 and a scope challenge (MCP authorization,
// "Scope Challenge Handling"; RFC 6750 section 3.1): the token's scopes and the missing
// one, so that re-authorizing for them loses nothing, and the RFC 9728 document. It
// reports whether it answered. Agent keys cannot re-authorize: they get the tool error
// from the operation layer, as does a call step-up could not help (an unknown tool, a
// missing feature grant, a write on a read-only view).
func (s *Server) stepUp(w http.ResponseWriter, r *http.Request, body *readBody) bool {
	p := httpx.PrincipalFrom(r.Context())
	if p == nil {
		return false
	}
	sp, ok := s.specNamed(body.param("name"))
	if ok && sp.tool.Name == toolCall {
		var inner struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(body.param("arguments"), &inner) != nil {
			return false
		}
		sp, ok = s.specs[inner.Name]
	}
	if !ok {
		return false
	}
	name := sp.tool.Name
	if v := viewFrom(r.Context()); v.readonly && sp.write() {
		return false
	}
	need, ok := missingScope(p, sp)
	if !ok {
		return false
	}
	scopes := append(slices.Clone(p.Scopes), need)
	w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q, resource_metadata=%q, error_description=%q`,
		strings.Join(scopes, " "), s.cfg.PublicURL+metadataPath(s.pathOf(r)),
		headerSafe("this call needs the "+need+" scope; authorize again asking for it")))
	httpx.WriteError(w, r, s.log, apierr.Errorf(apierr.CodeInsufficientScope,
		"this token lacks the %s scope %s needs; authorize again asking for %s (the WWW-Authenticate header names the scopes)",
		need, name, need))
	return true
}

// missingScope is the scope an OAuth token lacks for a tool it could use once granted it;
// ok is false when it lacks none, is no OAuth token (agent keys cannot re-authorize), or
// would still be refused (a feature grant, an admin-only write).
func missingScope(p *auth.Principal, sp toolSpec) (need string, ok bool) {
	if p.Credential.Type != "oauth" || sp.scope == "" || workspace.HasScope(p.Scopes, sp.scope) {
		return "", false
	}
	granted := *p
	granted.Scopes = append(slices.Clone(p.Scopes), sp.scope)
	return sp.scope, canUse(&granted, sp)
}

// peekedCall is what checkState (confirm.go) and checkFixtureCapability (conformance.go)
// read of a JSON-RPC request before the transport does: its id, its method and the
// params they check.
type peekedCall struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name  string  `json:"name"`
		State *string `json:"requestState"`
		Meta  struct {
			Caps map[string]json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
		} `json:"_meta"`
	} `json:"params"`
}

// peekCall decodes a POST's body as one JSON-RPC request when the body contains marker
// (a cheap test that spares decoding every other request), leaving the body for the next
// handler either way; false without a body, without the marker, or for a body that is
// not one request (the transport answers those).
func peekCall(r *http.Request, marker string) (peekedCall, bool) {
	var req peekedCall
	if r.Method != http.MethodPost || r.Body == nil {
		return req, false
	}
	body, err := readAllRestore(r)
	if err != nil || !bytes.Contains(body.raw, []byte(marker)) || json.Unmarshal(body.raw, &req) != nil {
		return req, false
	}
	return req, true
}

// readAllRestore reads r's body once and puts it back for the next handler as a readBody,
// which later handlers take as it is instead of reading it again; a read error (the body
// limit) is handed on to them as well.
func readAllRestore(r *http.Request) (*readBody, error) {
	if b, ok := r.Body.(*readBody); ok {
		b.Reset(b.raw) // nothing reads it before the transport; rewound all the same
		return b, nil
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(raw), errReader{err}))
		return nil, err
	}
	b := &readBody{raw: raw}
	b.Reset(raw)
	r.Body = b
	return b, nil
}

// readBody is a request body read into memory, readable again as a body, with its
// JSON-RPC envelope's members and a call's params split at most once (render.go's
// scanner), for inspect, the direct path and the checks before the transport. The split
// keeps slices of raw: an envelope and its params have a handful of members, which fit
// the arrays inline, so a request's split allocates nothing beyond the readBody.
type readBody struct {
	bytes.Reader
	raw []byte

	split, paramsSplit bool
	envelope, call     objectSplit
}

func (*readBody) Close() error { return nil }

// objectSplit is a JSON object's member names (unescaped) and raw values, in order.
type objectSplit struct {
	keys   [][]byte
	values []json.RawMessage
	ok     bool // the value was an object
	kbuf   [8][]byte
	vbuf   [8]json.RawMessage
}

// splitObject fills o with obj's members; ok is false when obj is not an object.
func (o *objectSplit) splitObject(obj []byte) {
	o.keys, o.values = o.kbuf[:0], o.vbuf[:0]
	m, ok := jsonscan.Object(obj)
	if !ok {
		return
	}
	for k, v := m.Next(); k != nil; k, v = m.Next() {
		o.keys, o.values = append(o.keys, k), append(o.values, v)
	}
	if m.Bad() {
		o.keys, o.values = nil, nil
		return
	}
	o.ok = true
}

// member is the value of o's member name, nil without one.
func (o *objectSplit) member(name string) json.RawMessage {
	for i, k := range o.keys {
		if string(k) == name {
			return o.values[i]
		}
	}
	return nil
}

// members is the body's members as one JSON object; ok is false for anything else.
func (b *readBody) members() (keys [][]byte, ok bool) {
	if !b.split {
		b.envelope.splitObject(b.raw)
		b.split = true
	}
	return b.envelope.keys, b.envelope.ok
}

// member is the value of the envelope's member name, nil without one (inspect has refused
// a name given twice).
func (b *readBody) member(name string) json.RawMessage {
	b.members()
	return b.envelope.member(name)
}

// params is the members of the envelope's params; ok is false when they are not an object.
func (b *readBody) params() (keys [][]byte, ok bool) {
	if !b.paramsSplit {
		b.call.splitObject(b.member("params"))
		b.paramsSplit = true
	}
	return b.call.keys, b.call.ok
}

// param is the value of params' member name, nil without one.
func (b *readBody) param(name string) json.RawMessage {
	b.params()
	return b.call.member(name)
}

// specNamed is the tool whose name is the JSON string raw, looked up without copying it.
func (s *Server) specNamed(raw []byte) (toolSpec, bool) {
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' && bytes.IndexByte(raw, '\\') < 0 {
		sp, ok := s.specs[string(raw[1:n-1])]
		return sp, ok
	}
	name, ok := jsonscan.Unquote(raw)
	if !ok {
		return toolSpec{}, false
	}
	sp, ok := s.specs[name]
	return sp, ok
}

// isString reports whether raw is the JSON string s, escaped or not, without copying it.
func isString(raw []byte, s string) bool {
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' && bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1:n-1]) == s
	}
	u, ok := jsonscan.Unquote(raw)
	return ok && u == s
}
