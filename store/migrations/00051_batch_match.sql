-- +goose Up
-- Natural keys a batch upsert matches records on (workspace/batch.go; the catalogue names
-- them, Resource.Matches in workspace/catalog.go): a person by email, compared without
-- case, and a company by the host of its website, normalised by ws_domain. Each lookup
-- walks one of these indexes. They are not unique: workspaces may already hold duplicates,
-- which an upsert reports as a 409 rather than guessing; upserts of the same key never
-- create two records because each takes a transaction lock on the key first.

-- ws_domain is the normalised host of a website: lower case, without scheme, user
-- information, port, path, query, fragment, a leading "www." or a trailing dot; NULL when
-- nothing is left. "https://WWW.Acme.example:443/about" -> "acme.example".
-- +goose StatementBegin
CREATE FUNCTION ws_domain(url text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT nullif(regexp_replace(regexp_replace(regexp_replace(regexp_replace(
           split_part(split_part(split_part(
             regexp_replace(lower(btrim(url)), '^[a-z][a-z0-9+.-]*://', ''), '/', 1), '?', 1), '#', 1),
           '^.*@', ''), ':[0-9]*$', ''), '^www\.', ''), '\.$', ''), '')
$$;
-- +goose StatementEnd

CREATE INDEX people_email_match ON people (workspace_id, lower(email));
CREATE INDEX companies_domain_match ON companies (workspace_id, ws_domain(website));

-- +goose Down
DROP INDEX companies_domain_match;
DROP INDEX people_email_match;
DROP FUNCTION ws_domain(text);
