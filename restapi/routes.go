package restapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/workspace"
)

// The HTTP adapter of the generic operations (docs/contract.md section 4.1): it turns requests into Ops calls
// and their results into the spec's envelopes, and nothing else. Gates, validation and SQL
// live in the operation layer, which the MCP tools call the same way.

// collection serves /{resource}: GET lists, POST creates or detaches, PATCH updates the
// workspace singleton.
func (a *API) collection(w http.ResponseWriter, r *http.Request) error {
	res := workspace.Lookup(chi.URLParam(r, "resource"))
	if res == nil {
		// chi sends PUT /me and POST /search here, the fixed routes having no route for
		// the method: methodNotAllowed knows them.
		return a.methodNotAllowed(w, r)
	}
	p := httpx.PrincipalFrom(r.Context())
	switch r.Method {
	case http.MethodGet:
		params, err := workspace.ParseListParams(res, r.URL.Query())
		if err != nil {
			return err
		}
		page, err := a.ops.List(r.Context(), p, res, params)
		if err != nil {
			return err
		}
		writePage(w, page)
		return nil
	case http.MethodPost:
		if !res.CanCreate() && !res.CanDetach() {
			return workspace.MethodNotAllowedError(res, r.Method, false)
		}
		raw, err := readBody(w, r)
		if err != nil {
			return err
		}
		body := workspace.NewBody(raw)
		detach, err := wantsDetach(r.URL.Query(), body)
		if err != nil {
			return err
		}
		op := workspace.OpCreate
		if detach {
			op = workspace.OpDetach
		}
		posted, err := a.ops.Post(r.Context(), p, op, res, body, r.Header.Get("Idempotency-Key"))
		if err != nil {
			return err
		}
		if posted.Replayed {
			w.Header().Set("Idempotent-Replayed", "true")
		}
		if op == workspace.OpCreate {
			setETag(w, posted.Data)
		}
		return writeData(w, posted.Status, posted.Data, nil)
	case http.MethodPatch:
		if res.Access != workspace.Singleton {
			return workspace.MethodNotAllowedError(res, r.Method, false)
		}
		body, err := readBody(w, r)
		if err != nil {
			return err
		}
		data, err := a.ops.UpdateIf(r.Context(), p, res, "", body, parseIfMatch(r.Header))
		return writeRecord(w, http.StatusOK, data, err)
	}
	return workspace.MethodNotAllowedError(res, r.Method, false)
}

// item serves /{resource}/{id}: GET fetches, PATCH updates.
func (a *API) item(w http.ResponseWriter, r *http.Request) error {
	res := workspace.Lookup(chi.URLParam(r, "resource"))
	if res == nil {
		return workspace.UnknownResource(chi.URLParam(r, "resource"))
	}
	p, id := httpx.PrincipalFrom(r.Context()), chi.URLParam(r, "id")
	switch r.Method {
	case http.MethodGet:
		fields, err := workspace.ParseFields(r.URL.Query())
		if err != nil {
			return err
		}
		data, err := a.ops.GetFields(r.Context(), p, res, id, fields)
		if err != nil {
			return err
		}
		if etag := setETag(w, data); noneMatch(r.Header, etag) {
			w.WriteHeader(http.StatusNotModified) // RFC 9110 section 13.1.2
			return nil
		}
		return writeData(w, http.StatusOK, data, nil)
	case http.MethodPatch:
		if !res.CanUpdate() {
			return workspace.MethodNotAllowedError(res, r.Method, true)
		}
		body, err := readBody(w, r)
		if err != nil {
			return err
		}
		data, err := a.ops.UpdateIf(r.Context(), p, res, id, body, parseIfMatch(r.Header))
		return writeRecord(w, http.StatusOK, data, err)
	}
	return workspace.MethodNotAllowedError(res, r.Method, true)
}

// wellFormedQuery refuses a query string that does not parse (a stray %, a bad escape, a
// semicolon): url.Values would drop the pair silently, and a dropped cursor or filter
// answers a different question than the one asked.
func (a *API) wellFormedQuery(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := url.ParseQuery(r.URL.RawQuery); err != nil {
			httpx.WriteError(w, r, a.cfg.Logger, apierr.BadRequest("the query string does not parse (%v); percent-encode %% and other reserved characters", err))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// methodNotAllowed answers methods chi has no route for (PUT /me, GET
// /webhook_endpoints/{id}/test ...).
func (a *API) methodNotAllowed(w http.ResponseWriter, r *http.Request) error {
	segs := strings.Split(strings.Trim(routePath(r), "/"), "/")
	switch segs[0] {
	case "me", "search", "openapi.json":
		return &apierr.Error{Code: apierr.CodeMethodNotAllowed,
			Message: r.Method + " /" + segs[0] + " is not supported; allowed: GET", Allow: []string{http.MethodGet}}
	}
	if len(segs) == 3 {
		if err := actionNotAllowed(r.Method, segs[0], segs[2]); err != nil {
			return err
		}
	}
	res := workspace.Lookup(segs[0])
	if res == nil {
		return workspace.UnknownResource(segs[0])
	}
	return workspace.MethodNotAllowedError(res, r.Method, len(segs) > 1)
}

// routePath is the request's path below the API's mount point (/v1, cmd/workspaced/serve.go),
// the one the routes match: chi's route context holds it when the API is mounted in a chi
// router, and r.URL.Path is it when the API serves the path whole.
func routePath(r *http.Request) string {
	if rctx := chi.RouteContext(r.Context()); rctx != nil && rctx.RoutePath != "" {
		return rctx.RoutePath
	}
	return r.URL.Path
}

func writeData(w http.ResponseWriter, status int, data json.RawMessage, err error) error {
	if err != nil {
		return err
	}
	body := make([]byte, 0, len(data)+10)
	body = append(body, `{"data":`...)
	body = append(body, data...)
	body = append(body, "}\n"...)
	httpx.WriteRaw(w, status, body)
	return nil
}

// writeRecord writes a record with its ETag.
func writeRecord(w http.ResponseWriter, status int, data json.RawMessage, err error) error {
	if err != nil {
		return err
	}
	setETag(w, data)
	return writeData(w, status, data, nil)
}

// setETag sets the record's entity tag, if it has one, and returns it.
func setETag(w http.ResponseWriter, data json.RawMessage) string {
	etag := entityTag(data)
	if etag != "" {
		w.Header().Set("ETag", etag)
	}
	return etag
}

// writePage writes the list envelope (httpx.AppendList) of a page.
func writePage(w http.ResponseWriter, page *workspace.Page) {
	body := httpx.AppendList(make([]byte, 0, len(page.Data)+120), page.Data, page.NextCursor)
	httpx.WriteRaw(w, http.StatusOK, append(body, '\n'))
}

// readBody reads at most MaxBody bytes (docs/decisions.md 4: larger bodies are a 400).
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, workspace.MaxBody))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, apierr.BadRequest("the request body exceeds 1 MiB")
	}
	if err != nil {
		return nil, apierr.BadRequest("the request body could not be read")
	}
	return b, nil
}

// wantsDetach reads the detach flag: ?detach=true, or the body key "_detach": true.
func wantsDetach(q url.Values, body workspace.Body) (bool, error) {
	if v, ok := q["detach"]; ok {
		switch strings.Join(v, ",") {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return false, apierr.BadRequest("detach must be true or false")
	}
	detach, ok := body.Member("_detach")
	if !ok {
		return false, nil // malformed bodies are reported by the operation itself
	}
	switch string(detach) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, &apierr.Error{Code: apierr.CodeValidation,
		Message: "_detach must be true or false", Fields: []apierr.FieldError{{Field: "_detach", Problem: "must be true or false"}}}
}
