package console

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/imports/importfile"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/workspace"
)

// The import page (docs/console.md, "Import"): a CSV file becomes records through the
// REST API's own import service (Importer, imports.Service: POST /v1/imports), run as
// the signed-in member with via = console, so its gates (the member's feature grant),
// row-level security, activity and webhooks hold for every row as they do over REST. The
// export links stream the REST API's own export (workspace.Ops.Export).

// Importer runs file imports; imports.Service implements it, as for the REST API.
type Importer interface {
	// Create checks and stores the file and queues its import; it returns the import.
	Create(ctx context.Context, p *auth.Principal, prm importfile.Params, file io.Reader) (json.RawMessage, error)
	// Get returns the import as p sees it: not_found for another member's.
	Get(ctx context.Context, p *auth.Principal, id string) (json.RawMessage, error)
	// Cancel stops the import after its current chunk.
	Cancel(ctx context.Context, p *auth.Principal, id string) (json.RawMessage, error)
	// Errors writes every failed row, with the header first.
	Errors(ctx context.Context, p *auth.Principal, id string, w func(row []string) error) error
}

// maxMappedColumns bounds the mapping rows a posted form is read for.
const maxMappedColumns = 500

// importPrincipal is the signed-in member as the REST API's principal: every resource's
// scopes (a session has no OAuth scopes of its own), so what decides is the member's role
// and feature grants (workspace.Permits, gate 2), as for their own OAuth token with every
// scope; via = console.
func importPrincipal(me *store.OAuthMember) *auth.Principal {
	p := principalOf(me).WithVia(store.ViaConsole)
	p.Scopes = workspace.Scopes()
	return p
}

// permitted reports whether the page offers r to p: p may create its records (import)
// and list them (export).
func permitted(p *auth.Principal) func(*workspace.Resource) bool {
	return func(r *workspace.Resource) bool {
		return workspace.Permits(p, r, workspace.OpCreate) && workspace.Permits(p, r, workspace.OpList)
	}
}

// importField is a field a column can be mapped to.
type importField struct {
	Name  string `json:"name"`  // the field's name, custom_fields.<key> for a custom field
	Label string `json:"label"` // what the select shows
}

// importResource is a resource on the page: its fields, and the header names each maps.
type importResource struct {
	Name   string            `json:"name"`
	Fields []importField     `json:"fields"`
	Match  map[string]string `json:"match"` // matchKey(header) -> field name
}

// importData is what the page shows.
type importData struct {
	Resources []importResource
	Selected  string
}

// matchKeyRE is what a header's words are split on; static/import.js uses the same.
var matchKeyRE = regexp.MustCompile(`[^a-z0-9]+`)

// matchKey is how a column header or a field's name or label is compared: lower case,
// runs of other characters one underscore, none at the ends ("First name" = first_name).
func matchKey(s string) string {
	return strings.Trim(matchKeyRE.ReplaceAllString(strings.ToLower(s), "_"), "_")
}

// importResources lists the resources that take imports (those that create records) and
// that keep, with their writable fields and the workspace's custom fields (archived ones
// left out).
func (s *Server) importResources(ctx context.Context, p *auth.Principal, keep func(*workspace.Resource) bool) ([]importResource, error) {
	var custom []customField
	if err := s.list(ctx, p, fieldsResource, workspace.ListParams{Limit: workspace.MaxLimit}, &custom); err != nil {
		return nil, err
	}
	var out []importResource
	for _, r := range workspace.Catalog() {
		if !r.CanCreate() || r.Access == workspace.WriteOnly || !keep(r) {
			continue
		}
		ir := importResource{Name: r.Name, Match: map[string]string{}}
		add := func(name, label string, keys ...string) {
			ir.Fields = append(ir.Fields, importField{Name: name, Label: label})
			for _, k := range keys {
				if _, taken := ir.Match[matchKey(k)]; !taken {
					ir.Match[matchKey(k)] = name
				}
			}
		}
		add("id", "id (upsert on id only)", "id")
		for _, f := range r.Fields {
			if f.Writable && f.Type != workspace.Custom {
				add(f.Name, f.Name, f.Name)
			}
		}
		for _, c := range custom {
			if c.Resource == r.Name && !c.Archived {
				name := "custom_fields." + c.Key
				add(name, c.Label+" ("+name+")", name, c.Key, c.Label)
			}
		}
		out = append(out, ir)
	}
	return out, nil
}

// importGet serves the page: the form, and a Download CSV link per resource.
func (s *Server) importGet(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	s.importPage(w, r, me, http.StatusOK, r.FormValue("resource"), "")
}

func (s *Server) importPage(w http.ResponseWriter, r *http.Request, me *store.OAuthMember, status int, selected, msg string) {
	p := importPrincipal(me)
	rs, err := s.importResources(r.Context(), p, permitted(p))
	if err != nil {
		s.fail(w, r, me, err)
		return
	}
	if len(rs) == 0 {
		s.errorPage(w, r, me, http.StatusForbidden, "Nothing to import",
			"Your grants let you create no records here; ask a workspace admin for a feature grant.")
		return
	}
	if !slices.ContainsFunc(rs, func(ir importResource) bool { return ir.Name == selected }) {
		selected = "people"
		if !slices.ContainsFunc(rs, func(ir importResource) bool { return ir.Name == selected }) {
			selected = rs[0].Name
		}
	}
	s.render(w, r, status, "import", page{Title: "Import", Nav: "import", Me: principalOf(me), Error: msg, Script: "import.js",
		Data: importData{Resources: rs, Selected: selected}})
}

// importPost reads the multipart form (the file kept on disk past 1 MiB, as the REST
// API's), checks its CSRF token and starts the import; the browser is sent to its page.
func (s *Server) importPost(w http.ResponseWriter, r *http.Request) {
	me := s.member(w, r)
	if me == nil {
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, importfile.MaxFileBytes+1<<20)
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.errorPage(w, r, me, http.StatusBadRequest, "File too large", "The file exceeds "+strconv.Itoa(importfile.MaxFileBytes>>20)+" MB; split it into several imports.")
			return
		}
		s.errorPage(w, r, me, http.StatusBadRequest, "Not possible", "The form must be sent as multipart/form-data with a file.")
		return
	}
	defer func() { _ = r.MultipartForm.RemoveAll() }()
	if !s.cfg.Sessions.CSRFValid(r) {
		s.errorPage(w, r, nil, http.StatusForbidden, "Form expired",
			"This form was not sent from this browser's own page, so it was ignored. Open the page again and retry.")
		return
	}
	res := r.PostFormValue("resource")
	again := func(status int, msg string) { s.importPage(w, r, me, status, res, msg) }
	files := r.MultipartForm.File["file"]
	if len(files) != 1 || files[0].Size == 0 {
		again(http.StatusBadRequest, "Choose a CSV file to import.")
		return
	}
	f, err := files[0].Open()
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	defer f.Close()
	prm := importfile.Params{Resource: res, Operation: r.PostFormValue("operation"), Format: importfile.FormatCSV}
	if prm.Operation == workspace.BatchUpsert {
		prm.Match = strings.TrimSpace(r.PostFormValue("match"))
	}
	p := importPrincipal(me)
	if prm.Mapping, err = s.postedMapping(r, p, res, f); err != nil {
		var e *apierr.Error
		if errors.As(err, &e) {
			s.refused(w, r, me, err, again)
			return
		}
		again(http.StatusBadRequest, err.Error())
		return
	}
	total, err := countRows(f)
	if err != nil {
		again(http.StatusBadRequest, "The file is not CSV: "+err.Error())
		return
	}
	imp, err := s.cfg.Imports.Create(r.Context(), p, prm, f)
	if err != nil {
		s.refused(w, r, me, err, again)
		return
	}
	var created struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(imp, &created)
	http.Redirect(w, r, Path+"/import/"+created.ID+"?rows="+strconv.Itoa(total), http.StatusSeeOther)
}

// countRows counts the rows of a CSV file below its header and rewinds it: the import
// stores no total, so the page carries it (rows=) for its percentage.
func countRows(f multipart.File) (int, error) {
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	n := -1
	for {
		_, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
		n++
	}
	_, err := f.Seek(0, io.SeekStart)
	return max(n, 0), err
}

// postedMapping is the form's mapping: the rows import.js fills (col-N the header, map-N
// the field, "" to leave the column out), or, without script, each header of the file
// mapped by name as import.js would have (matchKey), the rest left out. A plain error is
// the form's fault (400, its text shown); an apierr.Error is the operations'.
func (s *Server) postedMapping(r *http.Request, p *auth.Principal, res string, f multipart.File) (map[string]string, error) {
	mapping := map[string]string{}
	if _, ok := r.PostForm["col-0"]; ok {
		for i := range maxMappedColumns {
			n := strconv.Itoa(i)
			col, ok := r.PostForm["col-"+n]
			if !ok {
				break
			}
			if field := r.PostFormValue("map-" + n); field != "" && len(col) > 0 {
				mapping[col[0]] = field
			}
		}
	} else {
		// Every resource's names, whether or not p may import it: the import's own gate
		// answers that, with its message.
		rs, err := s.importResources(r.Context(), p, func(r *workspace.Resource) bool { return r.Name == res })
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(rs, func(ir importResource) bool { return ir.Name == res })
		cr := csv.NewReader(f)
		cr.FieldsPerRecord = -1
		header, err := cr.Read()
		if _, serr := f.Seek(0, io.SeekStart); err == nil && serr != nil {
			err = serr
		}
		if err != nil {
			return nil, errors.New("the file is not CSV: its first line should be the columns' names")
		}
		for j, col := range header {
			if j == 0 {
				col = strings.TrimPrefix(col, "\ufeff") // a spreadsheet's byte order mark, as the import reads it
			}
			if i >= 0 {
				if field, ok := rs[i].Match[matchKey(col)]; ok {
					mapping[col] = field
				}
			}
		}
	}
	if len(mapping) == 0 {
		return nil, errors.New("no column of the file is mapped to a field of " + res + "; name the columns as the fields are named, or choose each column's field")
	}
	return mapping, nil
}

// importStatus is an import as its page shows it.
type importStatus struct {
	ID          string  `json:"id"`
	Resource    string  `json:"resource"`
	Operation   string  `json:"operation"`
	Match       *string `json:"match"`
	Status      string  `json:"status"`
	RowsRead    int     `json:"rows_read"`
	RowsCreated int     `json:"rows_created"`
	RowsUpdated int     `json:"rows_updated"`
	RowsFailed  int     `json:"rows_failed"`
	Failure     *string `json:"failure"`
	FirstErrors []struct {
		Row   int    `json:"row"`
		Error string `json:"error"`
	} `json:"first_errors"`
	Total int `json:"-"` // rows in the file, when known (the page's rows=)
}

// Percent is how much of the file is read, when its total is known.
func (i importStatus) Percent() int {
	if i.Total <= 0 {
		return 0
	}
	return min(100, i.RowsRead*100/i.Total)
}

// Done reports whether the import has ended.
func (i importStatus) Done() bool {
	return i.Status == "completed" || i.Status == "failed" || i.Status == "cancelled"
}

func (s *Server) importShow(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	raw, err := s.cfg.Imports.Get(r.Context(), importPrincipal(me), chi.URLParam(r, "id"))
	if err != nil {
		s.fail(w, r, me, err)
		return
	}
	var st importStatus
	if err := json.Unmarshal(raw, &st); err != nil {
		s.serverError(w, r, err)
		return
	}
	st.Total, _ = strconv.Atoi(r.URL.Query().Get("rows"))
	// Without script the page reloads every 2 seconds until the import ends (noscript).
	s.render(w, r, http.StatusOK, "import_status", page{Title: "Import into " + st.Resource, Nav: "import", Me: principalOf(me),
		Script: "import.js", Refresh: !st.Done(), Data: st})
}

// importJSON serves the import as GET /v1/imports/{id} answers it, for import.js's
// progress bar (a same-origin GET with the session: it changes nothing).
func (s *Server) importJSON(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	raw, err := s.cfg.Imports.Get(r.Context(), importPrincipal(me), chi.URLParam(r, "id"))
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		e := store.AsError(err)
		if httpx.Status(e) >= 500 {
			s.log.ErrorContext(r.Context(), "console: import status", "request_id", store.RequestID(r.Context()), "err", err)
		}
		w.WriteHeader(httpx.Status(e))
		_ = json.NewEncoder(w).Encode(map[string]string{"error": string(e.Code)})
		return
	}
	_, _ = w.Write(raw)
}

// importCancel stops the import after its current chunk (asked first: confirmFirst).
func (s *Server) importCancel(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	id := r.PostFormValue("id")
	if _, err := s.cfg.Imports.Cancel(r.Context(), importPrincipal(me), id); err != nil {
		s.fail(w, r, me, err)
		return
	}
	http.Redirect(w, r, Path+"/import/"+id, http.StatusSeeOther)
}

// importErrors streams the import's failed rows as GET /v1/imports/{id}/errors.csv does.
func (s *Server) importErrors(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	var cw *csv.Writer
	err := s.cfg.Imports.Errors(r.Context(), importPrincipal(me), chi.URLParam(r, "id"), func(row []string) error {
		if cw == nil {
			w.Header().Set("Content-Type", "text/csv; charset=utf-8")
			w.Header().Set("Content-Disposition", `attachment; filename="errors.csv"`)
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusOK)
			cw = csv.NewWriter(w)
		}
		return cw.Write(row)
	})
	if cw == nil {
		s.fail(w, r, me, err)
		return
	}
	cw.Flush()
	if err != nil {
		s.log.ErrorContext(r.Context(), "console: errors.csv cut short", "request_id", store.RequestID(r.Context()), "err", err)
	}
}

// exportCSV streams every record of the resource the member may read as CSV, as
// GET /v1/<resource>/export?format=csv does (workspace.Ops.Export: its gates and RLS).
func (s *Server) exportCSV(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	res := workspace.Lookup(chi.URLParam(r, "resource"))
	if res == nil {
		s.errorPage(w, r, me, http.StatusNotFound, "Not found", "There is no such resource.")
		return
	}
	started := false
	sw := writerFunc(func(b []byte) (int, error) {
		if !started {
			started = true
			w.Header().Set("Content-Type", "text/csv; charset=utf-8")
			w.Header().Set("Content-Disposition", `attachment; filename="`+res.Name+`.csv"`)
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusOK)
		}
		return w.Write(b)
	})
	flush := func() {
		if f, ok := w.(http.Flusher); ok && started {
			f.Flush()
		}
	}
	params, err := workspace.ParseListParams(res, url.Values{})
	if err == nil {
		err = s.cfg.Records.Export(r.Context(), importPrincipal(me), res, params, workspace.ExportCSV, sw, flush)
	}
	switch {
	case err != nil && !started:
		s.fail(w, r, me, err)
	case err != nil:
		s.log.ErrorContext(r.Context(), "console: export cut short", "request_id", store.RequestID(r.Context()), "err", err)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
