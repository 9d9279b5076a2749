-- +goose Up
-- "Open deals" has one meaning (docs/rest.md, "Deal status"): a pipeline stage has an
-- outcome, open, won or lost (open by default), and a deal's status is its stage's
-- outcome, or open while it has no stage. The status is stored on the deal, so lists
-- filter it (?status=open) through an index like any other filter, and kept right by two
-- triggers: one sets it whenever a deal is written (a new deal, a move to another stage),
-- the other copies a stage's new outcome onto its deals. Clients cannot write it: the
-- catalogue lists it read only, and the first trigger overwrites whatever a write says.
ALTER TABLE pipeline_stages ADD COLUMN outcome text NOT NULL DEFAULT 'open'
  CHECK (outcome IN ('open', 'won', 'lost'));
ALTER TABLE deals ADD COLUMN status text NOT NULL DEFAULT 'open'
  CHECK (status IN ('open', 'won', 'lost'));

-- SECURITY DEFINER: the stage is read, and its deals written, whatever the acting member's
-- policies let them see; the foreign key (workspace_id, pipeline_stage_id) keeps both in
-- the deal's workspace.
-- +goose StatementBegin
CREATE FUNCTION ws_deal_status() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  NEW.status := coalesce((SELECT s.outcome FROM pipeline_stages s
                           WHERE s.workspace_id = NEW.workspace_id AND s.id = NEW.pipeline_stage_id), 'open');
  RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER deals_status BEFORE INSERT OR UPDATE OF pipeline_stage_id, status ON deals FOR EACH ROW EXECUTE FUNCTION ws_deal_status();

-- A stage's changed outcome reaches its deals as an update of each (updated_at moves, so
-- clients that sync by updated_at see it; the audit log records it as the stage's editor's).
-- +goose StatementBegin
CREATE FUNCTION ws_stage_outcome() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
BEGIN
  UPDATE deals SET status = NEW.outcome
   WHERE workspace_id = NEW.workspace_id AND pipeline_stage_id = NEW.id AND status <> NEW.outcome;
  RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER pipeline_stages_outcome AFTER UPDATE OF outcome ON pipeline_stages FOR EACH ROW
  WHEN (NEW.outcome IS DISTINCT FROM OLD.outcome) EXECUTE FUNCTION ws_stage_outcome();

-- The filter's index carries the keyset order, as every filter index does since
-- 00011_keyset_policies.sql: ?status=open, which most deals match, walks 51 rows.
CREATE INDEX deals_status ON deals (workspace_id, status, created_at DESC, id DESC);

-- Tasks and CRM tasks name their assignees twice, assignee_id and assignee_ids; they now
-- agree (docs/rest.md, "Task assignees"): assignee_ids lists every assignee and
-- assignee_id is its first, null when there is none. A write may send either or both; the
-- trigger completes the other (a new assignee_id replaces the old one in the list, a new
-- list names the new first assignee), and a CHECK holds the rule for every row.
-- +goose StatementBegin
CREATE FUNCTION ws_task_assignees() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.assignee_ids := coalesce(NEW.assignee_ids, '{}');
  IF TG_OP = 'UPDATE' AND NEW.assignee_ids IS NOT DISTINCT FROM OLD.assignee_ids
     AND NEW.assignee_id IS DISTINCT FROM OLD.assignee_id THEN
    -- Only assignee_id was written: it takes the old first assignee's place.
    NEW.assignee_ids := array_remove(NEW.assignee_ids, OLD.assignee_id);
  ELSIF TG_OP = 'UPDATE' AND NEW.assignee_ids IS DISTINCT FROM OLD.assignee_ids
     AND NEW.assignee_id IS NOT DISTINCT FROM OLD.assignee_id THEN
    -- Only the list was written: its first is the assignee.
    NEW.assignee_id := NEW.assignee_ids[1];
  END IF;
  IF NEW.assignee_id IS NOT NULL THEN
    NEW.assignee_ids := NEW.assignee_id || array_remove(NEW.assignee_ids, NEW.assignee_id);
  ELSE
    NEW.assignee_id := NEW.assignee_ids[1];
  END IF;
  RETURN NEW;
END
$$;
-- +goose StatementEnd
UPDATE tasks SET assignee_ids = assignee_id || array_remove(assignee_ids, assignee_id)
 WHERE assignee_id IS NOT NULL AND assignee_ids[1] IS DISTINCT FROM assignee_id;
UPDATE tasks SET assignee_id = assignee_ids[1] WHERE assignee_id IS NULL AND cardinality(assignee_ids) > 0;
UPDATE deal_tasks SET assignee_ids = assignee_id || array_remove(assignee_ids, assignee_id)
 WHERE assignee_id IS NOT NULL AND assignee_ids[1] IS DISTINCT FROM assignee_id;
UPDATE deal_tasks SET assignee_id = assignee_ids[1] WHERE assignee_id IS NULL AND cardinality(assignee_ids) > 0;
CREATE TRIGGER tasks_assignees BEFORE INSERT OR UPDATE OF assignee_id, assignee_ids ON tasks
  FOR EACH ROW EXECUTE FUNCTION ws_task_assignees();
CREATE TRIGGER deal_tasks_assignees BEFORE INSERT OR UPDATE OF assignee_id, assignee_ids ON deal_tasks
  FOR EACH ROW EXECUTE FUNCTION ws_task_assignees();
ALTER TABLE tasks ADD CONSTRAINT tasks_assignees_agree CHECK (assignee_id IS NOT DISTINCT FROM assignee_ids[1]);
ALTER TABLE deal_tasks ADD CONSTRAINT deal_tasks_assignees_agree CHECK (assignee_id IS NOT DISTINCT FROM assignee_ids[1]);

-- +goose Down
ALTER TABLE deal_tasks DROP CONSTRAINT deal_tasks_assignees_agree;
ALTER TABLE tasks DROP CONSTRAINT tasks_assignees_agree;
DROP TRIGGER deal_tasks_assignees ON deal_tasks;
DROP TRIGGER tasks_assignees ON tasks;
DROP FUNCTION ws_task_assignees();
DROP INDEX deals_status;
DROP TRIGGER pipeline_stages_outcome ON pipeline_stages;
DROP FUNCTION ws_stage_outcome();
DROP TRIGGER deals_status ON deals;
DROP FUNCTION ws_deal_status();
ALTER TABLE deals DROP COLUMN status;
ALTER TABLE pipeline_stages DROP COLUMN outcome;
