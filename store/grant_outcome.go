package store

// GrantOutcome names the rule that decided a token grant: the outcome column of the grant
// functions oauth_refresh_grant and oauth_code_grant, and of their client check
// oauth_client_check (migration 00017). The SQL and these constants are one list: store's
// TestGrantOutcomesMatchTheSQL reads the functions' source from the database and compares.
type GrantOutcome string

// The client check's outcomes, made before anything else, so a failed authentication
// neither consumes a code nor rotates a token. The check passing is the empty outcome.
const (
	ClientAuthenticated GrantOutcome = ""
	ClientUnknown       GrantOutcome = "client_unknown"        // no such client, or it is disabled
	ClientSecretMissing GrantOutcome = "client_secret_missing" // a confidential client sent no secret
	ClientSecretWrong   GrantOutcome = "client_secret_wrong"   // the secret is not the client's
)

// Outcomes both grants share.
const (
	GrantUnknown       GrantOutcome = "unknown"        // no such code or refresh token
	GrantExpired       GrantOutcome = "expired"        // past its lifetime
	GrantOtherClient   GrantOutcome = "other_client"   // issued to another client
	GrantOtherResource GrantOutcome = "other_resource" // bound to another RFC 8707 resource
)

// The authorization code grant's own outcomes.
const (
	CodeGrantIssued        GrantOutcome = "issued"         // a new family and its first pair
	CodeGrantReplayed      GrantOutcome = "replayed"       // used before: what it issued is revoked
	CodeGrantBadRequest    GrantOutcome = "bad_request"    // the request failed a check made without the code
	CodeGrantOtherRedirect GrantOutcome = "other_redirect" // redirect_uri differs from the authorization request's
	CodeGrantWrongVerifier GrantOutcome = "wrong_verifier" // the PKCE verifier does not match the challenge
)

// The refresh grant's own outcomes (docs/contract.md section 3, docs/decisions.md 7).
const (
	RefreshRotated    GrantOutcome = "rotated"     // an active token retired, a new pair issued
	RefreshSuperseded GrantOutcome = "superseded"  // a retired token inside the grace window: a new pair, later pairs revoked
	RefreshRevoked    GrantOutcome = "revoked"     // its family was revoked
	RefreshInactive   GrantOutcome = "inactive"    // the member can no longer sign in
	RefreshReused     GrantOutcome = "reused"      // retired before the grace window: the family is revoked
	RefreshWiderScope GrantOutcome = "wider_scope" // the request widens the token's scope
)
