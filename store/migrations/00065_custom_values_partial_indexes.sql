-- +goose Up
-- A custom value is one typed column of its custom_values row: n for numbers and money, d
-- for dates and timestamps, b for booleans, t for the text-like types; the others are
-- null, and u is null unless the field is unique. The indexes of n, d, b and u held an
-- entry for every row all the same, so each value written (an import writes three per
-- record of the benchmark's file, imports/bench_test.go) cost seven btree insertions
-- where three carry a value. These indexes now hold only the rows whose column is set.
--
-- Reads are unchanged: a field's rows all set its type's column, and its probes and
-- sorts (workspace/customquery.go) say so (col IS NOT NULL), which is what lets the
-- planner use a partial index; the unique index's lookups are equalities on u, which imply
-- it. custom_values_t stays whole: a long_text value sets none of the columns (s only),
-- and its probe (has a value) reads the field's rows through it.
DROP INDEX custom_values_n, custom_values_d, custom_values_b, custom_values_unique;
CREATE INDEX custom_values_n ON custom_values (field_id, n, record_id) INCLUDE (workspace_id) WHERE n IS NOT NULL;
CREATE INDEX custom_values_d ON custom_values (field_id, d, record_id) INCLUDE (workspace_id) WHERE d IS NOT NULL;
CREATE INDEX custom_values_b ON custom_values (field_id, b, record_id) INCLUDE (workspace_id) WHERE b IS NOT NULL;
CREATE UNIQUE INDEX custom_values_unique ON custom_values (field_id, u) WHERE u IS NOT NULL;

-- +goose Down
DROP INDEX custom_values_n, custom_values_d, custom_values_b, custom_values_unique;
CREATE INDEX custom_values_n ON custom_values (field_id, n, record_id) INCLUDE (workspace_id);
CREATE INDEX custom_values_d ON custom_values (field_id, d, record_id) INCLUDE (workspace_id);
CREATE INDEX custom_values_b ON custom_values (field_id, b, record_id) INCLUDE (workspace_id);
CREATE UNIQUE INDEX custom_values_unique ON custom_values (field_id, u);
