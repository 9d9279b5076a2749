-- +goose Up
-- Two per-row costs of a many-row INSERT (a batch, an import's chunk: workspace/batchset.go)
-- that did not depend on the row.
--
-- ws_record_event_rows (00058_statement_triggers.sql) left a record's archived custom
-- fields out of its event through ws_custom_shown, which reads the resource's archived
-- keys (ws_custom_archived, 00064_custom_archived_keys.sql): one query per inserted row,
-- for a list that is the same for every row of the statement. It is read once per
-- statement now, and each row's custom_fields loses those keys as ws_custom_shown took
-- them (not an object, or empty: {}).
--
-- activity_redact (00035_admin_activity.sql) ran a PL/pgSQL call for every activity row
-- to change only those of webhook endpoints; its WHEN clause now says so, and other rows
-- skip the call.
--
-- ws_address_words (00062_search_address_hosts.sql), called by ws_search_doc for every
-- search document with an address (each person's, with an email), was a SQL function of
-- three set-returning scans, an append and an aggregate, which PostgreSQL cannot inline:
-- each call started and ended an executor for it, about 40 us, the largest part of a
-- person's search_doc. It is PL/pgSQL over the same regular expressions now (the n-th
-- match of regexp_substr is regexp_matches' n-th with 'g'), giving the same words in the
-- same order (the document's positions depend on it; store's TestAddressWords holds
-- examples), so the stored documents and the indexes over it stay valid; 2 to 3 times
-- faster.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_record_event_rows() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  ws uuid := app_workspace_id();
  typ text := TG_ARGV[0] || '.created';
  targets uuid[];
  archived text[];
BEGIN
  IF app_user_id() IS NULL OR ws IS NULL THEN
    RETURN NULL;
  END IF;
  SELECT array_agg(id) INTO targets FROM webhook_endpoints
   WHERE workspace_id = ws AND enabled AND events && ARRAY['*', TG_ARGV[0] || '.*', typ];
  IF targets IS NULL THEN
    RETURN NULL;
  END IF;
  archived := ws_custom_archived(ws, TG_ARGV[0]);
  INSERT INTO webhook_outbox (workspace_id, type, object, object_id, record, changed, endpoint_ids)
  SELECT ws, typ, TG_ARGV[0], (r ->> 'id')::uuid, r, NULL, targets
    FROM (SELECT CASE WHEN TG_ARGV[0] = 'webhook_endpoints' AND jsonb_typeof(c -> 'url') = 'string'
                      THEN jsonb_set(c, '{url}', to_jsonb(ws_redact_url(c ->> 'url'))) ELSE c END AS r
            FROM (SELECT CASE WHEN r0 ? 'custom_fields' -- archived fields stay out of events
                              THEN jsonb_set(r0, '{custom_fields}', CASE WHEN jsonb_typeof(r0 -> 'custom_fields') = 'object'
                                                                         THEN (r0 -> 'custom_fields') - archived ELSE '{}' END)
                              ELSE r0 END AS c
                    FROM (SELECT to_jsonb(n) - 'search_doc' AS r0 FROM new_rows n) a) b) s;
  RETURN NULL;
END
$$;
-- +goose StatementEnd
DROP TRIGGER activity_redact ON activity;
CREATE TRIGGER activity_redact BEFORE INSERT ON activity FOR EACH ROW
  WHEN (NEW.entity_type = 'webhook_endpoints') EXECUTE FUNCTION ws_activity_redact();
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_address_words(s text) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  email constant text := '([[:alnum:]._%+-]+)@[[:alnum:]-]+(\.[[:alnum:]-]+)+';
  host constant text := '((https?://)?([[:alnum:]-]+\.)+[[:alpha:]]{2,})';
  words text[] := '{}'; -- each email's local part, split
  hosts text[] := '{}'; -- each host's labels
  suffixes text[] := '{}'; -- each host whole and its shorter suffixes
  labels text[];
  h text;
BEGIN
  IF s IS NULL THEN
    RETURN '';
  END IF;
  FOR i IN 1 .. regexp_count(s, email) LOOP
    words := words || regexp_split_to_array(regexp_substr(s, email, 1, i, '', 1), '[._%+-]+');
  END LOOP;
  FOR i IN 1 .. regexp_count(s, host, 1, 'i') LOOP
    h := public.ws_domain(regexp_substr(s, host, 1, i, 'i', 1));
    hosts := hosts || regexp_split_to_array(h, '[.-]+');
    labels := string_to_array(h, '.');
    FOR j IN 1 .. coalesce(cardinality(labels) - 1, 0) LOOP
      suffixes := suffixes || array_to_string(labels[j:], '.');
    END LOOP;
  END LOOP;
  RETURN array_to_string(array_remove(words || hosts || suffixes, ''), ' ');
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_address_words(s text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(string_agg(w, ' '), '') FROM (
    SELECT regexp_split_to_table(m[1], '[._%+-]+') FROM regexp_matches(s, '([[:alnum:]._%+-]+)@[[:alnum:]-]+(\.[[:alnum:]-]+)+', 'g') m
    UNION ALL
    SELECT regexp_split_to_table(public.ws_domain(m[1]), '[.-]+')
      FROM regexp_matches(s, '((https?://)?([[:alnum:]-]+\.)+[[:alpha:]]{2,})', 'gi') m
    UNION ALL
    SELECT array_to_string(h.labels[i:], '.')
      FROM (SELECT string_to_array(public.ws_domain(m[1]), '.')
              FROM regexp_matches(s, '((https?://)?([[:alnum:]-]+\.)+[[:alpha:]]{2,})', 'gi') m) h(labels),
           generate_series(1, cardinality(h.labels) - 1) i
  ) x(w) WHERE w <> ''
$$;
-- +goose StatementEnd
DROP TRIGGER activity_redact ON activity;
CREATE TRIGGER activity_redact BEFORE INSERT ON activity FOR EACH ROW EXECUTE FUNCTION ws_activity_redact();
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION ws_record_event_rows() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
DECLARE
  ws uuid := app_workspace_id();
  typ text := TG_ARGV[0] || '.created';
  targets uuid[];
BEGIN
  IF app_user_id() IS NULL OR ws IS NULL THEN
    RETURN NULL;
  END IF;
  SELECT array_agg(id) INTO targets FROM webhook_endpoints
   WHERE workspace_id = ws AND enabled AND events && ARRAY['*', TG_ARGV[0] || '.*', typ];
  IF targets IS NULL THEN
    RETURN NULL;
  END IF;
  INSERT INTO webhook_outbox (workspace_id, type, object, object_id, record, changed, endpoint_ids)
  SELECT ws, typ, TG_ARGV[0], (r ->> 'id')::uuid, r, NULL, targets
    FROM (SELECT CASE WHEN TG_ARGV[0] = 'webhook_endpoints' AND jsonb_typeof(c -> 'url') = 'string'
                      THEN jsonb_set(c, '{url}', to_jsonb(ws_redact_url(c ->> 'url'))) ELSE c END AS r
            FROM (SELECT CASE WHEN r0 ? 'custom_fields' -- archived fields stay out of events
                              THEN jsonb_set(r0, '{custom_fields}', ws_custom_shown(ws, TG_ARGV[0], r0 -> 'custom_fields')) ELSE r0 END AS c
                    FROM (SELECT to_jsonb(n) - 'search_doc' AS r0 FROM new_rows n) a) b) s;
  RETURN NULL;
END
$$;
-- +goose StatementEnd
