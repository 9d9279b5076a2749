package restapi

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/workspace"
)

// batch serves POST /{resource}/batch (docs/rest.md, "Batch writes"): the body decoded
// once, the batch's extra rate-limit units charged, then the operation layer's Batch.
func (a *API) batch(w http.ResponseWriter, r *http.Request) error {
	res := workspace.Lookup(chi.URLParam(r, "resource"))
	if res == nil {
		return workspace.UnknownResource(chi.URLParam(r, "resource"))
	}
	p := httpx.PrincipalFrom(r.Context())
	raw, err := readBody(w, r)
	if err != nil {
		return err
	}
	req, err := workspace.DecodeBatch(raw)
	if err != nil {
		return err
	}
	if err := workspace.TakeBatchUnits(r.Context(), a.cfg.Limiter, p, w.Header(), len(req.Records)); err != nil {
		return err
	}
	posted, err := a.ops.Batch(r.Context(), p, res, req, r.Header.Get("Idempotency-Key"), httpx.Status)
	if err != nil {
		return err
	}
	if posted.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	return writeData(w, posted.Status, posted.Data, nil)
}
