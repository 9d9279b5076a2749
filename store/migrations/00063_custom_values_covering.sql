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

-- +goose Down
DROP INDEX custom_values_record, custom_values_t, custom_values_n, custom_values_d, custom_values_b;
CREATE INDEX custom_values_record ON custom_values (record_id, field_id);
CREATE INDEX custom_values_t ON custom_values (field_id, t, record_id);
CREATE INDEX custom_values_n ON custom_values (field_id, n, record_id);
CREATE INDEX custom_values_d ON custom_values (field_id, d, record_id);
CREATE INDEX custom_values_b ON custom_values (field_id, b, record_id);
