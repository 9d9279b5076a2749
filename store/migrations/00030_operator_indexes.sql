-- +goose Up
-- Indexes for the fields that take operator filters without being sortable or one of the
-- spec's exact filters (workspace/find.go, finding.ops): a list in its own order with a
-- condition on one of them probes the condition's matches first (workspace/listquery.go,
-- fewOrWalk), which reads few rows only through an index of the field. Without one, a
-- condition matching a handful of rows read the whole workspace (2,837 buffers at 100,000
-- deals, 2,139 with the probe), and for one matching a row in a hundred the probe read four
-- times what the walk reads (588 buffers, 145). Each carries the keyset order like the filter indexes of migration 00011, so eq
-- walks it for a page in the list's order (docs/performance.md, "Plans at scale").
CREATE INDEX deals_confidence ON deals (workspace_id, confidence, created_at DESC, id DESC);
CREATE INDEX deal_tasks_priority ON deal_tasks (workspace_id, priority, created_at DESC, id DESC);
CREATE INDEX tasks_priority ON tasks (workspace_id, priority, created_at DESC, id DESC);

-- +goose Down
DROP INDEX tasks_priority;
DROP INDEX deal_tasks_priority;
DROP INDEX deals_confidence;
