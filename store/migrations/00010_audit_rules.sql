-- +goose Up
-- Rules an outside audit found missing: activity about a comment follows the
-- comment's visibility; comments are edited by their author or an admin, and writes on
-- deal comments need crm full; uuid-array references stay inside the workspace.

-- Activity is as visible as what it describes: the feature grant of its resource, private
-- tasks, and for comments the comment itself (whose own policy hides comments on private
-- tasks, and on deals without the crm grant). RLS of the subqueries applies.
DROP POLICY ws_entity_visible ON activity;
CREATE POLICY ws_entity_visible ON activity AS RESTRICTIVE FOR SELECT
  USING ((feature IS NULL OR (SELECT app_grant(feature)) IN ('read', 'full'))
     AND (entity_type NOT IN ('tasks', 'deal_tasks')
          OR EXISTS (SELECT 1 FROM tasks t WHERE t.id = entity_id)
          OR EXISTS (SELECT 1 FROM deal_tasks t WHERE t.id = entity_id))
     AND (entity_type <> 'comments' OR EXISTS (SELECT 1 FROM comments c WHERE c.id = activity.entity_id)));

-- A comment is edited by its author or an admin.
CREATE POLICY ws_author_edits ON comments AS RESTRICTIVE FOR UPDATE
  USING (user_id = (SELECT app_user_id()) OR (SELECT app_is_admin()))
  WITH CHECK (user_id = (SELECT app_user_id()) OR (SELECT app_is_admin()));
-- Writing a comment on a deal is writing to the CRM: crm full (spec 5.6).
CREATE POLICY ws_deal_comment_insert ON comments AS RESTRICTIVE FOR INSERT
  WITH CHECK (entity_type <> 'deal' OR (SELECT app_grant('crm')) = 'full');
CREATE POLICY ws_deal_comment_update ON comments AS RESTRICTIVE FOR UPDATE
  USING (entity_type <> 'deal' OR (SELECT app_grant('crm')) = 'full')
  WITH CHECK (entity_type <> 'deal' OR (SELECT app_grant('crm')) = 'full');

-- uuid arrays cannot carry foreign keys, so a trigger checks every element names a record
-- of the row's workspace (as the actor, so a hidden record counts as missing, as for
-- comments' entity) and fails like a foreign key would, naming the column.
-- TG_ARGV: the array column, the table its ids refer to.
-- +goose StatementBegin
CREATE FUNCTION ws_check_id_array() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids uuid[];
  bad boolean;
BEGIN
  EXECUTE format('SELECT ($1).%I', TG_ARGV[0]) INTO ids USING NEW;
  IF ids IS NULL OR cardinality(ids) = 0 THEN
    RETURN NEW;
  END IF;
  EXECUTE format('SELECT EXISTS (SELECT 1 FROM unnest($1) u WHERE u IS NULL
      OR NOT EXISTS (SELECT 1 FROM %I r WHERE r.id = u AND r.workspace_id = $2))', TG_ARGV[1])
    INTO bad USING ids, NEW.workspace_id;
  IF bad THEN
    RAISE EXCEPTION '% names a record of % that does not exist in this workspace', TG_ARGV[0], TG_ARGV[1]
      USING ERRCODE = 'foreign_key_violation', COLUMN = TG_ARGV[0];
  END IF;
  RETURN NEW;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER assignee_ids_check BEFORE INSERT OR UPDATE OF assignee_ids ON tasks
  FOR EACH ROW EXECUTE FUNCTION ws_check_id_array('assignee_ids', 'users');
CREATE TRIGGER assignee_ids_check BEFORE INSERT OR UPDATE OF assignee_ids ON deal_tasks
  FOR EACH ROW EXECUTE FUNCTION ws_check_id_array('assignee_ids', 'users');
CREATE TRIGGER member_ids_check BEFORE INSERT OR UPDATE OF member_ids ON metrics
  FOR EACH ROW EXECUTE FUNCTION ws_check_id_array('member_ids', 'users');
CREATE TRIGGER space_ids_check BEFORE INSERT OR UPDATE OF space_ids ON metrics
  FOR EACH ROW EXECUTE FUNCTION ws_check_id_array('space_ids', 'spaces');
CREATE TRIGGER pipeline_ids_check BEFORE INSERT OR UPDATE OF pipeline_ids ON metrics
  FOR EACH ROW EXECUTE FUNCTION ws_check_id_array('pipeline_ids', 'pipelines');

-- +goose Down
DROP TRIGGER pipeline_ids_check ON metrics;
DROP TRIGGER space_ids_check ON metrics;
DROP TRIGGER member_ids_check ON metrics;
DROP TRIGGER assignee_ids_check ON deal_tasks;
DROP TRIGGER assignee_ids_check ON tasks;
DROP FUNCTION ws_check_id_array();
DROP POLICY ws_deal_comment_update ON comments;
DROP POLICY ws_deal_comment_insert ON comments;
DROP POLICY ws_author_edits ON comments;
DROP POLICY ws_entity_visible ON activity;
CREATE POLICY ws_entity_visible ON activity AS RESTRICTIVE FOR SELECT
  USING ((feature IS NULL OR (SELECT app_grant(feature)) IN ('read', 'full'))
     AND (entity_type NOT IN ('tasks', 'deal_tasks')
          OR EXISTS (SELECT 1 FROM tasks t WHERE t.id = entity_id)
          OR EXISTS (SELECT 1 FROM deal_tasks t WHERE t.id = entity_id)));
