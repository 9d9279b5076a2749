package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestCreatedActivityNamesCustomKeys: the activity of records created by one statement
// names their fields and each custom value as custom_fields.<key>, exactly as
// ws_custom_changes against no prior values says (the statement trigger writes that
// inline: store/migrations/00069_import_chunks.sql).
func TestCreatedActivityNamesCustomKeys(t *testing.T) {
	s := storetest.New(t)
	fx := storetest.Workspace(t, s, workspace.Scopes())
	ctx := context.Background()
	err := pgx.BeginFunc(ctx, storetest.Pool(t), func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('app.user_id', $1, true), set_config('app.workspace_id', $2, true)`,
			fx.Admin.UserID, fx.WorkspaceID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO people (name, email, phone, custom_fields) VALUES
			('Ada', 'ada@acme.example', NULL, '{"score": 1.5, "tier": "gold", "tags": ["a", "b"], "gone": null, "deep": {"x": null, "y": 1}}'),
			('Bob', NULL, '+44 20 7946 0000', NULL),
			('Cy', 'cy@acme.example', NULL, '{}')`); err != nil {
			return err
		}
		var n, same int
		if err := tx.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE a.changes = ws_custom_changes(
				jsonb_strip_nulls(to_jsonb(p) - 'search_doc' - ARRAY['id', 'workspace_id', 'created_by', 'created_at', 'updated_at']), NULL::jsonb))
			FROM people p JOIN activity a ON a.entity_id = p.id AND a.action = 'created'
			WHERE p.workspace_id = $1`, fx.WorkspaceID).Scan(&n, &same); err != nil {
			return err
		}
		if n != 3 || same != 3 {
			t.Errorf("%d created activity rows, %d as ws_custom_changes says; want 3 of each", n, same)
		}
		var changes map[string]any
		if err := tx.QueryRow(ctx, `SELECT a.changes FROM activity a JOIN people p ON p.id = a.entity_id WHERE p.name = 'Ada' AND p.workspace_id = $1`,
			fx.WorkspaceID).Scan(&changes); err != nil {
			return err
		}
		if changes["custom_fields.score"] != 1.5 || changes["custom_fields.tier"] != "gold" || changes["name"] != "Ada" ||
			changes["custom_fields"] != nil || changes["custom_fields.gone"] != nil || len(changes) != 6 {
			t.Errorf("Ada's changes: %v", changes)
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatal(err)
	}
}
