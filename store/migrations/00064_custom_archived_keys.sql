-- +goose Up
-- Which keys of a record's custom_fields are hidden, in one place: those of its
-- resource's archived fields. Reads (columnExpr, workspace/records.go) take it once per
-- statement, as an uncorrelated subquery; webhook events take it through ws_custom_shown
-- (00040_custom_fields.sql), whose body now calls it.
-- +goose StatementBegin
CREATE FUNCTION ws_custom_archived(ws uuid, res text) RETURNS text[] LANGUAGE sql STABLE AS $$
  SELECT coalesce(array_agg(f.key), '{}') FROM custom_fields f WHERE f.workspace_id = ws AND f.resource = res AND f.archived
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_custom_shown(ws uuid, res text, v jsonb) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN v IS NULL OR jsonb_typeof(v) <> 'object' OR v = '{}' THEN '{}'::jsonb
    ELSE v - ws_custom_archived(ws, res) END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_custom_shown(ws uuid, res text, v jsonb) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN v IS NULL OR jsonb_typeof(v) <> 'object' OR v = '{}' THEN '{}'::jsonb
    ELSE v - coalesce((SELECT array_agg(f.key) FROM custom_fields f
                        WHERE f.workspace_id = ws AND f.resource = res AND f.archived), '{}') END
$$;
-- +goose StatementEnd
DROP FUNCTION ws_custom_archived(uuid, text);
