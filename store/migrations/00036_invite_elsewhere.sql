-- +goose Up
-- An address has one account (users_email), but an invitation to it is not an account
-- yet: an admin may invite an address that has an account in another workspace, and is
-- answered as for any other address, so no admin learns who has an account elsewhere
-- (docs/console.md, "Invitations"). The invited row cannot become a second account: its
-- activation hits users_email, and the link's page says why. Within a workspace an
-- address is still one row.
DROP INDEX users_email;
CREATE UNIQUE INDEX users_email ON users (lower(email)) WHERE status <> 'invited';
CREATE UNIQUE INDEX users_workspace_email ON users (workspace_id, lower(email));

-- +goose Down
DROP INDEX users_workspace_email;
DROP INDEX users_email;
CREATE UNIQUE INDEX users_email ON users (lower(email));
