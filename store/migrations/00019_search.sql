-- +goose Up
-- Finding records: text search, typo-tolerant names, sorts on declared fields.
-- The indexes follow the catalogue's declarations (restapi/find.go); TestFindIndexes
-- checks each declaration against them. No search engine beside PostgreSQL: unaccent and
-- pg_trgm ship with it (Debian: postgresql-15, formerly postgresql-contrib), and both
-- are trusted extensions, so the schema's owner may create them.
CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- ws_unaccent is unaccent with its dictionary named, which makes it immutable, so indexes
-- may use it (unaccent(text) alone is only stable: it looks its dictionary up by name).
-- +goose StatementBegin
CREATE FUNCTION ws_unaccent(text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$;
-- +goose StatementEnd

-- ws_search_doc is a record's searchable text as one tsvector: the fields in catalogue
-- order, accents removed, the simple configuration (lower case, no stemming, no stop
-- words: names and mixed languages search as written). List's q= calls it with the very
-- fields its expression index was built on.
-- +goose StatementBegin
CREATE FUNCTION ws_search_doc(VARIADIC text[]) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT to_tsvector('simple'::regconfig, public.ws_unaccent(array_to_string($1, ' '))) $$;
-- +goose StatementEnd

-- Under row-level security the planner evaluates a condition before the policies only
-- when every function in it is LEAKPROOF (it cannot reveal a row the policy hides, by an
-- error or otherwise); an index condition is such a condition. Text matching and trigram
-- similarity raise no error that depends on a row's value, so they are marked so, and the
-- search indexes serve requests made as workspaced_app. Marking needs a superuser: run by
-- a role that is not one, the migration leaves them unmarked and q= reads the workspace's
-- rows through the keyset index instead (correct, slower; docs/performance.md).
-- +goose StatementBegin
DO $$
BEGIN
  IF (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    ALTER FUNCTION ws_unaccent(text) LEAKPROOF;
    ALTER FUNCTION ws_search_doc(VARIADIC text[]) LEAKPROOF;
    ALTER FUNCTION ts_match_vq(tsvector, tsquery) LEAKPROOF;
    ALTER FUNCTION word_similarity_op(text, text) LEAKPROOF;
    ALTER FUNCTION word_similarity_commutator_op(text, text) LEAKPROOF;
  ELSE
    RAISE NOTICE 'not a superuser: search functions left unmarked; q= will not use the search indexes';
  END IF;
END $$;
-- +goose StatementEnd

-- Per table: a GIN index on its search document, a trigram GIN index on each name and
-- email, and a btree (workspace_id, field, id) for each sortable field, which walks
-- sort=field and sort=-field (backwards) by keyset, and serves operator filters on it.
-- +goose StatementBegin
DO $$
DECLARE
  t text; search text[]; names text[]; sorts text[]; c text;
BEGIN
  FOR t, search, names, sorts IN VALUES
    ('deals', '{name,notes}', '{name}', '{name,value}'),
    ('crm_files', '{name}', '{name}', '{name}'),
    ('people', '{name,company,email,position}', '{name,email}', '{name,email}'),
    ('companies', '{name,industry,notes}', '{name}', '{name}'),
    ('pipelines', '{name}', '{name}', '{name}'),
    ('pipeline_stages', '{name}', '{name}', '{name}'),
    ('deal_tasks', '{name,description}', '{name}', '{name,due_date}'),
    ('tasks', '{name,description}', '{name}', '{name,due_date}'),
    ('task_attachments', '{name}', '{name}', '{name}'),
    ('spaces', '{name,notes}', '{name}', '{name}'),
    ('projects', '{name}', '{name}', '{name}'),
    ('project_stages', '{name}', '{name}', '{name}'),
    ('space_updates', '{content}', '{}', '{}'),
    ('labels', '{name}', '{name}', '{name}'),
    ('comments', '{content}', '{}', '{}'),
    ('metrics', '{name,slug}', '{name}', '{name}'),
    ('metric_pages', '{name}', '{name}', '{name}'),
    ('metric_entries', '{note}', '{}', '{}'),
    ('income', '{name,type}', '{name}', '{name,date,amount}'),
    ('expenses', '{name,type}', '{name}', '{name,date,amount}'),
    ('finance_categories', '{key,label}', '{label}', '{label}'),
    ('debts', '{name,notes}', '{name}', '{name,total_amount}'),
    ('debt_payments', '{}', '{}', '{date,amount}'),
    ('team_members', '{display_name,email,team_role,location}', '{display_name,email}', '{display_name,date_hired}'),
    ('departments', '{name}', '{name}', '{name}'),
    ('leave_requests', '{reason}', '{}', '{leave_date}'),
    ('hr_contracts', '{name}', '{name}', '{date}'),
    ('hr_change_requests', '{message}', '{}', '{}'),
    ('org_chart', '{title}', '{title}', '{title}'),
    ('documents', '{name,content}', '{name}', '{name}'),
    ('knowledge', '{name,content}', '{name}', '{name}'),
    ('canvases', '{name}', '{name}', '{name}'),
    ('automations', '{name}', '{name}', '{name}'),
    ('automation_logs', '{message}', '{}', '{}'),
    ('competitor_workflows', '{name}', '{name}', '{name}'),
    ('competitor_reports', '{title,content}', '{title}', '{title}'),
    ('agents', '{name,description}', '{name}', '{name}'),
    ('users', '{display_name,email}', '{display_name,email}', '{display_name,email}')
  LOOP
    IF cardinality(search) > 0 THEN
      EXECUTE format('CREATE INDEX %I ON %I USING gin (ws_search_doc(%s))', t || '_search', t,
        (SELECT string_agg(quote_ident(s), ', ') FROM unnest(search) s));
    END IF;
    FOREACH c IN ARRAY names LOOP
      EXECUTE format('CREATE INDEX %I ON %I USING gin (ws_unaccent(%I) gin_trgm_ops)', t || '_' || c || '_trgm', t, c);
    END LOOP;
    FOREACH c IN ARRAY sorts LOOP
      EXECUTE format('CREATE INDEX %I ON %I (workspace_id, %I, id)', t || '_' || c || '_sort', t, c);
    END LOOP;
  END LOOP;
END $$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
DO $$
DECLARE ix text;
BEGIN
  FOR ix IN SELECT indexname FROM pg_indexes WHERE schemaname = 'public'
      AND (indexname LIKE '%\_search' OR indexname LIKE '%\_trgm' OR indexname LIKE '%\_sort') LOOP
    EXECUTE format('DROP INDEX %I', ix);
  END LOOP;
END $$;
-- +goose StatementEnd
DROP FUNCTION ws_search_doc(VARIADIC text[]);
DROP FUNCTION ws_unaccent(text);
