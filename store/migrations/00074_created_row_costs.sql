-- +goose Up
-- Two per-row costs of a created record (docs/performance.md, "Imports").
--
-- ws_address_words (00066_insert_triggers_once_per_statement.sql) runs for the search
-- document of each record with an address in it. Its patterns had capturing groups, and a
-- match whose groups are asked for makes PostgreSQL's regular expression engine find each
-- group's bounds afterwards, a second pass: on 20,000 people's search text a pattern with
-- groups took 2.5 to 4.4 times the time of the same pattern without them. The patterns are
-- non-capturing now, with the same matches: an email's local part is the match before
-- its '@' (the pattern's local part holds no '@'); a host is matched without its scheme
-- (ws_domain drops the scheme, and the scheme's letters cannot start a host: "http" is
-- followed by ':'), so the 'i' flag, there for "HTTP://", goes too ([[:alpha:]] and
-- [[:alnum:]] hold both cases). The words are the same in the same order, so stored
-- search documents and the indexes over them stay valid (43,605 texts compared equal,
-- 23,000 of them random strings of address pieces); the function takes 0.55 to 0.7 times
-- the time.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.ws_address_words(s text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    AS $$
DECLARE
  email constant text := '[[:alnum:]._%+-]+@[[:alnum:]-]+(?:\.[[:alnum:]-]+)+';
  host constant text := '(?:[[:alnum:]-]+\.)+[[:alpha:]]{2,}';
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
    words := words || regexp_split_to_array(split_part(regexp_substr(s, email, 1, i), '@', 1), '[._%+-]+');
  END LOOP;
  FOR i IN 1 .. regexp_count(s, host) LOOP
    h := public.ws_domain(regexp_substr(s, host, 1, i));
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

-- A custom value's row was checked against two foreign keys, its workspace and its field,
-- each a lookup with a row lock per value (three per person of an import with three
-- custom fields). One key to its field in its own workspace says both, and more: the
-- field's workspace is the value's (custom_fields' own key holds its workspace).
ALTER TABLE custom_values DROP CONSTRAINT custom_values_workspace_id_fkey,
  DROP CONSTRAINT custom_values_field_id_fkey,
  ADD CONSTRAINT custom_values_workspace_id_field_id_fkey FOREIGN KEY (workspace_id, field_id) REFERENCES custom_fields (workspace_id, id);

-- +goose Down
ALTER TABLE custom_values DROP CONSTRAINT custom_values_workspace_id_field_id_fkey,
  ADD CONSTRAINT custom_values_workspace_id_fkey FOREIGN KEY (workspace_id) REFERENCES workspaces (id),
  ADD CONSTRAINT custom_values_field_id_fkey FOREIGN KEY (field_id) REFERENCES custom_fields (id);
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION public.ws_address_words(s text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
    AS $$
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
