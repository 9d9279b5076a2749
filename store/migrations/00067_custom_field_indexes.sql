-- +goose Up
-- Under row-level security the planner uses a condition as an index condition only when
-- it can tell it leaks nothing (00019_search.sql), and it takes COALESCE for a node that
-- may: custom_values_search, on ws_search_doc(coalesce(t, s)), answered a search of the
-- request role by the field's id alone, rechecking the words on every value of the field
-- (thousands of buffers at 100,000 records, docs/performance.md). CASE is a node it reads
-- through, and its result is the same: t for the text-like types, s for long_text.
DROP INDEX custom_values_search;
CREATE INDEX custom_values_search ON custom_values USING gin (field_id, ws_search_doc(CASE WHEN t IS NULL THEN s ELSE t END))
  WHERE t IS NOT NULL OR s IS NOT NULL;

-- Every read of a record takes the keys of its resource's archived fields
-- (ws_custom_archived, 00064_custom_archived_keys.sql): through custom_fields_position it
-- read each of the resource's field rows to find none archived; an index of the archived
-- ones alone answers that from one page, usually empty.
CREATE INDEX custom_fields_archived ON custom_fields (workspace_id, resource) WHERE archived;

-- +goose Down
DROP INDEX custom_fields_archived;
DROP INDEX custom_values_search;
CREATE INDEX custom_values_search ON custom_values USING gin (field_id, ws_search_doc(coalesce(t, s))) WHERE coalesce(t, s) IS NOT NULL;
