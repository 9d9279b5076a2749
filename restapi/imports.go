package restapi

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"unicode/utf8"

	"github.com/go-chi/chi/v5"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/imports/importfile"
)

// Importer runs file imports (docs/rest.md, "Imports"); imports.Service implements it (cmd
// hands it to ServeImports, which checks that it does), so the adapter needs no queue.
type Importer interface {
	Create(ctx context.Context, p *auth.Principal, prm importfile.Params, file io.Reader) (json.RawMessage, error)
	Preview(ctx context.Context, p *auth.Principal, prm importfile.Params, file io.Reader, status func(*apierr.Error) int) (json.RawMessage, error)
	Get(ctx context.Context, p *auth.Principal, id string) (json.RawMessage, error)
	Cancel(ctx context.Context, p *auth.Principal, id string) (json.RawMessage, error)
	Errors(ctx context.Context, p *auth.Principal, id string, w func(row []string) error) error
}

// importRoutes serves /imports beside the generic routes.
func (a *API) importRoutes(r chi.Router) {
	r.Post("/imports", a.handle(a.importCreate))
	r.Get("/imports/{id}", a.handle(func(w http.ResponseWriter, r *http.Request) error {
		im, err := a.importer()
		if err != nil {
			return err
		}
		data, err := im.Get(r.Context(), httpx.PrincipalFrom(r.Context()), chi.URLParam(r, "id"))
		return writeData(w, http.StatusOK, data, err)
	}))
	r.Post("/imports/{id}/cancel", a.handle(func(w http.ResponseWriter, r *http.Request) error {
		im, err := a.importer()
		if err != nil {
			return err
		}
		data, err := im.Cancel(r.Context(), httpx.PrincipalFrom(r.Context()), chi.URLParam(r, "id"))
		return writeData(w, http.StatusOK, data, err)
	}))
	r.Get("/imports/{id}/errors.csv", a.handle(a.importErrors))
}

func (a *API) importer() (Importer, error) {
	if a.imports == nil {
		return nil, &apierr.Error{Code: apierr.CodeInternal, Unavailable: true, Message: "imports are not running on this server"}
	}
	return a.imports, nil
}

// importCreate serves POST /imports: a multipart form whose file is kept on disk past
// 1 MiB (never whole in memory) and bounded by the import's size limit.
func (a *API) importCreate(w http.ResponseWriter, r *http.Request) error {
	im, err := a.importer()
	if err != nil {
		return err
	}
	p := httpx.PrincipalFrom(r.Context())
	r.Body = http.MaxBytesReader(w, r.Body, importfile.MaxFileBytes+1<<20)
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return apierr.BadRequest("the file exceeds %d MB; split it into several imports", importfile.MaxFileBytes>>20)
		}
		return apierr.BadRequest("the body must be multipart/form-data with the parts file, resource, mapping and operation")
	}
	defer func() { _ = r.MultipartForm.RemoveAll() }()
	form := r.MultipartForm.Value
	one := func(name string) string {
		if v := form[name]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	prm := importfile.Params{Resource: one("resource"), Operation: one("operation"), Match: one("match"),
		Format: one("format"), DateFormat: one("date_format")}
	if d := one("delimiter"); d != "" {
		c, size := utf8.DecodeRuneInString(d)
		if size != len(d) || c == '"' || c == '\r' || c == '\n' || c == utf8.RuneError {
			return apierr.BadRequest("delimiter must be one character other than a quote or a line break, such as ; or a tab")
		}
		prm.Delimiter = c
	}
	if m := one("mapping"); m != "" {
		if err := json.Unmarshal([]byte(m), &prm.Mapping); err != nil {
			return apierr.BadRequest("mapping must be a JSON object of column header -> field name (a string)")
		}
	}
	dryRun := false
	switch one("dry_run") {
	case "", "false":
	case "true":
		dryRun = true
	default:
		return apierr.BadRequest("dry_run must be true or false")
	}
	files := r.MultipartForm.File["file"]
	if len(files) != 1 {
		return apierr.BadRequest("file is required: one part named file holding the CSV or NDJSON file")
	}
	f, err := files[0].Open()
	if err != nil {
		return apierr.BadRequest("the file could not be read")
	}
	defer f.Close()
	var file io.Reader = f
	if prm.Format == importfile.FormatXLSX {
		sheet, err := importfile.XLSXAsCSV(f, files[0].Size)
		if err != nil {
			return err
		}
		defer sheet.Close()
		file, prm.Format = sheet, importfile.FormatCSV
	}
	if dryRun {
		data, err := im.Preview(r.Context(), p, prm, file, httpx.Status)
		return writeData(w, http.StatusOK, data, err)
	}
	data, err := im.Create(r.Context(), p, prm, file)
	return writeData(w, http.StatusAccepted, data, err)
}

// importErrors serves GET /imports/{id}/errors.csv: every failed row, streamed.
func (a *API) importErrors(w http.ResponseWriter, r *http.Request) error {
	im, err := a.importer()
	if err != nil {
		return err
	}
	p := httpx.PrincipalFrom(r.Context())
	var cw *csv.Writer
	err = im.Errors(r.Context(), p, chi.URLParam(r, "id"), func(row []string) error {
		if cw == nil {
			w.Header().Set("Content-Type", "text/csv; charset=utf-8")
			w.Header().Set("Content-Disposition", `attachment; filename="errors.csv"`)
			w.WriteHeader(http.StatusOK)
			cw = csv.NewWriter(w)
		}
		return cw.Write(row)
	})
	if cw == nil {
		return err
	}
	cw.Flush()
	return nil
}
