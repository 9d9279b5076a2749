package workspace

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
)

// CustomValuesField is the name of the field every Custom resource's records carry their
// custom field values in, {key: value}, and of the prefix lists name one by:
// custom_fields.<key>.
const CustomValuesField = customFieldsName

// CustomResources lists the resources that take custom fields, in catalogue order.
func CustomResources() []string { return slices.Clone(customResources) }

// WorkspaceCustomFields returns the active custom field definitions of p's workspace for
// every Custom resource p may list (scope and feature grant, as CustomFields checks per
// resource), by resource, in one query; resources without fields, or that p may not list,
// are absent. Adapters describing a whole workspace at once (MCP's tools/list, a
// workspace's OpenAPI document) read it once per request.
func (o *Ops) WorkspaceCustomFields(ctx context.Context, p *auth.Principal) (map[string][]CustomField, error) {
	if p == nil {
		return nil, apierr.Unauthorized("no credential")
	}
	var readable []string
	for _, name := range customResources {
		if r := Lookup(name); r != nil && Permits(p, r, OpList) {
			readable = append(readable, name)
		}
	}
	out := map[string][]CustomField{}
	if len(readable) == 0 {
		return out, nil
	}
	err := o.store.Query(ctx, p.Actor(), `SELECT id::text, resource, key, label, type, options::text, coalesce(reference_resource, ''),
		required, "unique", searchable, coalesce(description, ''), position, ready
		FROM custom_fields WHERE resource = ANY($1) AND NOT archived ORDER BY resource, position, key`, []any{readable},
		func(rows pgx.Rows) error {
			for rows.Next() {
				var f CustomField
				var opts string
				if err := rows.Scan(&f.ID, &f.Resource, &f.Key, &f.Label, &f.Type, &opts, &f.ReferenceResource,
					&f.Required, &f.Unique, &f.Searchable, &f.Description, &f.Position, &f.Ready); err != nil {
					return err
				}
				if err := json.Unmarshal([]byte(opts), &f.Options); err != nil {
					return err
				}
				out[f.Resource] = append(out[f.Resource], f)
			}
			return nil
		})
	if err != nil {
		return nil, readError(err)
	}
	return out, nil
}
