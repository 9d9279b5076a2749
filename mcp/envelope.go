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
		keys, _, ok := body.members()
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		if err := canonicalKeys(keys, envelopeKeys); err != nil {
			writeRPCError(w, http.StatusBadRequest, mcpgo.INVALID_REQUEST, err.Error())
			return
		}
		if method, _ := unquote(body.member("method")); method != string(mcpgo.MethodToolsCall) {
			next.ServeHTTP(w, r)
			return
		}
		if keys, _, ok := body.params(); ok {
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
	keys, _, ok := members(raw)
	if !ok {
		return nil
	}
	return canonicalKeys(keys, names)
}

// canonicalKeys checks an object's member names, in order, as canonicalMembers does.
func canonicalKeys(keys, names []string) error {
	seen := make(map[string]bool, len(keys))
	for _, key := range keys {
		if seen[key] {
			return fmt.Errorf("the member %q appears twice", key)
		}
		seen[key] = true
		if i := slices.IndexFunc(names, func(n string) bool { return strings.EqualFold(n, key) }); i >= 0 && names[i] != key {
			return fmt.Errorf("the member %q must be written %q (JSON-RPC names are case-sensitive)", key, names[i])
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
	name, ok := unquote(body.param("name"))
	if p == nil || !ok {
		return false
	}
	if name == toolCall {
		var inner struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(body.param("arguments"), &inner) != nil {
			return false
		}
		name = inner.Name
	}
	sp, ok := s.specs[name]
	if !ok {
		return false
	}
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
// scanner), for inspect, the direct path and the checks before the transport.
type readBody struct {
	bytes.Reader
	raw []byte

	split, paramsSplit bool
	keys               []string
	values             []json.RawMessage
	ok                 bool
	paramKeys          []string
	paramValues        []json.RawMessage
	paramsOK           bool
}

func (*readBody) Close() error { return nil }

// members is the body's members as one JSON object; ok is false for anything else.
func (b *readBody) members() (keys []string, values []json.RawMessage, ok bool) {
	if !b.split {
		b.keys, b.values, b.ok = members(b.raw)
		b.split = true
	}
	return b.keys, b.values, b.ok
}

// member is the value of the envelope's member name, nil without one (inspect has refused
// a name given twice).
func (b *readBody) member(name string) json.RawMessage {
	keys, values, _ := b.members()
	if i := slices.Index(keys, name); i >= 0 {
		return values[i]
	}
	return nil
}

// params is the members of the envelope's params; ok is false when they are not an object.
func (b *readBody) params() (keys []string, values []json.RawMessage, ok bool) {
	if !b.paramsSplit {
		b.paramKeys, b.paramValues, b.paramsOK = members(b.member("params"))
		b.paramsSplit = true
	}
	return b.paramKeys, b.paramValues, b.paramsOK
}

// param is the value of params' member name, nil without one.
func (b *readBody) param(name string) json.RawMessage {
	keys, values, _ := b.params()
	if i := slices.Index(keys, name); i >= 0 {
		return values[i]
	}
	return nil
}
