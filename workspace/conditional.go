package workspace

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
)

// Conditional updates (RFC 9110 section 13; docs/rest.md, "ETag, If-None-Match, If-Match"):
// the domain half. restapi reads the If-Match header into an IfMatch
// (restapi/conditional.go); the update checks it in its UPDATE statement.

// IfMatch is an If-Match precondition: the versions a conditional update may replace.
type IfMatch struct {
	Versions []time.Time // the updated_at instants named by the header's tags
}

// preconditionFailed tells a conditional update that matched no row apart: the record
// exists at another version (412 precondition_failed) or does not exist for the actor (404).
func (o *Ops) preconditionFailed(ctx context.Context, p *auth.Principal, r *Resource, id string) error {
	exists := false
	err := o.store.Query(ctx, p.Actor(), "SELECT true FROM "+ident(r.Table)+` WHERE "id" = $1::text::uuid`, []any{id},
		func(rows pgx.Rows) error {
			exists = rows.Next()
			return nil
		})
	if err != nil {
		return readError(err)
	}
	if !exists {
		return notFound(r, id)
	}
	return apierr.Errorf(apierr.CodePreconditionFailed,
		"%s %s changed since the version named by If-Match; GET it again for its current ETag, reapply your change, and retry",
		r.Name, id)
}
