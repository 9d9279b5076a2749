package restapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/workspace"
)

// export serves GET /{resource}/export (docs/rest.md, "Export"): the list's query with
// format=csv|ndjson, streamed page by page. An error before the first byte is the usual
// error response; one after it can only cut the stream short, and is logged.
func (a *API) export(w http.ResponseWriter, r *http.Request) error {
	res := workspace.Lookup(chi.URLParam(r, "resource"))
	if res == nil {
		return workspace.UnknownResource(chi.URLParam(r, "resource"))
	}
	q := r.URL.Query()
	format := q.Get("format")
	q.Del("format")
	params, err := workspace.ParseListParams(res, q)
	if err != nil {
		return err
	}
	sw := &startWriter{w: w, start: func() {
		ct := "application/x-ndjson"
		if format == workspace.ExportCSV {
			ct = "text/csv; charset=utf-8"
		}
		w.Header().Set("Content-Type", ct)
		w.Header().Set("Content-Disposition", `attachment; filename="`+res.Name+`.`+format+`"`)
		w.WriteHeader(http.StatusOK)
	}}
	flush := func() {
		if f, ok := w.(http.Flusher); ok && sw.started {
			f.Flush()
		}
	}
	err = a.ops.Export(r.Context(), httpx.PrincipalFrom(r.Context()), res, params, format, sw, flush)
	if err != nil && sw.started {
		a.cfg.Logger.ErrorContext(r.Context(), "export cut short", "request_id", httpx.RequestIDFrom(r.Context()), "err", err)
		return nil
	}
	if err == nil && !sw.started {
		sw.started = true
		sw.start() // no rows and no header: an empty NDJSON body
	}
	return err
}

// startWriter writes the response's status and headers before its first byte.
type startWriter struct {
	w       http.ResponseWriter
	start   func()
	started bool
}

func (s *startWriter) Write(b []byte) (int, error) {
	if !s.started {
		s.started = true
		s.start()
	}
	return s.w.Write(b)
}
