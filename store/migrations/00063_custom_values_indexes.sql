-- +goose Up
-- The value indexes of custom_values carry workspace_id, so that a list's probe of a custom
-- condition (workspace/customquery.go) reads the index alone: the request role's policy
-- (workspace_id = app_workspace_id(), 00040_custom_fields.sql) is checked on the index
-- entry instead of on the row. Without it the probe read each counted row from the heap,
-- up to 201 pages where a field's values are not in the order its records were written
-- (booleans, selects, members). Visibility still comes from the visibility map: a page
-- written since the last vacuum is read from the heap, as any index-only scan's is.
DROP INDEX custom_values_record, custom_values_t, custom_values_n, custom_values_d, custom_values_b;
CREATE INDEX custom_values_record ON custom_values (record_id, field_id) INCLUDE (workspace_id);
CREATE INDEX custom_values_t ON custom_values (field_id, t, record_id) INCLUDE (workspace_id);
CREATE INDEX custom_values_n ON custom_values (field_id, n, record_id) INCLUDE (workspace_id);
CREATE INDEX custom_values_d ON custom_values (field_id, d, record_id) INCLUDE (workspace_id);
CREATE INDEX custom_values_b ON custom_values (field_id, b, record_id) INCLUDE (workspace_id);


-- A long_text field may be searchable: s holds the first 10,000 characters of its value
-- (t stays null, since a long value does not fit t's btree), and the words index reads
-- t or s. Bounded, so one value adds at most some thousands of words to the index.
ALTER TABLE custom_values ADD COLUMN s text;
DROP INDEX custom_values_search;
CREATE INDEX custom_values_search ON custom_values USING gin (field_id, ws_search_doc(coalesce(t, s))) WHERE coalesce(t, s) IS NOT NULL;

-- ws_custom_rows as in 00040_custom_fields.sql, with s.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_custom_rows(f custom_fields, ws uuid, rec uuid, v jsonb)
RETURNS SETOF custom_values LANGUAGE sql STABLE AS $$
  SELECT ws, f.id, rec, x.t, x.n, x.d, x.b,
         CASE WHEN f."unique" THEN coalesce(x.t, x.n::text, to_char(x.d AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), x.b::text)
           || CASE WHEN f.type = 'money' THEN ' ' || (v ->> 'currency') ELSE '' END END,
         CASE WHEN f.type = 'long_text' THEN left(v #>> '{}', 10000) END
  FROM (
    SELECT CASE WHEN f.type IN ('text', 'url', 'email', 'phone', 'select', 'member', 'reference') THEN v #>> '{}'
                WHEN f.type = 'multi_select' THEN e END AS t,
           CASE WHEN f.type = 'number' THEN (v #>> '{}')::numeric
                WHEN f.type = 'money' THEN (v ->> 'amount')::numeric END AS n,
           CASE WHEN f.type = 'timestamp' THEN (v #>> '{}')::timestamptz
                WHEN f.type = 'date' THEN (v #>> '{}')::date::timestamp AT TIME ZONE 'UTC' END AS d,
           CASE WHEN f.type = 'boolean' THEN (v #>> '{}')::boolean END AS b
    FROM (SELECT NULL::text AS e WHERE f.type <> 'multi_select'
          UNION ALL SELECT jsonb_array_elements_text(v) WHERE f.type = 'multi_select') o
  ) x
  WHERE v IS NOT NULL AND jsonb_typeof(v) <> 'null'
$$;
-- +goose StatementEnd

-- +goose StatementBegin
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['deals', 'people', 'companies', 'tasks', 'deal_tasks', 'projects'] LOOP
    EXECUTE format($s$UPDATE custom_values v SET s = left(r.custom_fields ->> f.key, 10000)
      FROM custom_fields f, %I r
      WHERE v.field_id = f.id AND f.type = 'long_text' AND f.resource = %L AND r.id = v.record_id$s$, t, t);
  END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP INDEX custom_values_record, custom_values_t, custom_values_n, custom_values_d, custom_values_b;
CREATE INDEX custom_values_record ON custom_values (record_id, field_id);
CREATE INDEX custom_values_t ON custom_values (field_id, t, record_id);
CREATE INDEX custom_values_n ON custom_values (field_id, n, record_id);
CREATE INDEX custom_values_d ON custom_values (field_id, d, record_id);
CREATE INDEX custom_values_b ON custom_values (field_id, b, record_id);
DROP INDEX custom_values_search;
ALTER TABLE custom_values DROP COLUMN s;
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_custom_rows(f custom_fields, ws uuid, rec uuid, v jsonb)
RETURNS SETOF custom_values LANGUAGE sql STABLE AS $$
  SELECT ws, f.id, rec, x.t, x.n, x.d, x.b,
         CASE WHEN f."unique" THEN coalesce(x.t, x.n::text, to_char(x.d AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), x.b::text)
           || CASE WHEN f.type = 'money' THEN ' ' || (v ->> 'currency') ELSE '' END END
  FROM (
    SELECT CASE WHEN f.type IN ('text', 'url', 'email', 'phone', 'select', 'member', 'reference') THEN v #>> '{}'
                WHEN f.type = 'multi_select' THEN e END AS t,
           CASE WHEN f.type = 'number' THEN (v #>> '{}')::numeric
                WHEN f.type = 'money' THEN (v ->> 'amount')::numeric END AS n,
           CASE WHEN f.type = 'timestamp' THEN (v #>> '{}')::timestamptz
                WHEN f.type = 'date' THEN (v #>> '{}')::date::timestamp AT TIME ZONE 'UTC' END AS d,
           CASE WHEN f.type = 'boolean' THEN (v #>> '{}')::boolean END AS b
    FROM (SELECT NULL::text AS e WHERE f.type <> 'multi_select'
          UNION ALL SELECT jsonb_array_elements_text(v) WHERE f.type = 'multi_select') o
  ) x
  WHERE v IS NOT NULL AND jsonb_typeof(v) <> 'null'
$$;
-- +goose StatementEnd
CREATE INDEX custom_values_search ON custom_values USING gin (field_id, ws_search_doc(t)) WHERE t IS NOT NULL;
