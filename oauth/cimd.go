package oauth

// Client ID Metadata Documents (MCP authorization 2025-11-25, "Client ID Metadata
// Documents"; draft-ietf-oauth-client-id-metadata-document): a client_id that is an https
// URL names a JSON document, served by the client, that describes it. The authorization
// server fetches it instead of requiring registration (docs/decisions.md 8).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"

	"github.com/agencyos/workspaced/store"
)

// Limits of docs/decisions.md 8, and the redirect URIs any client may have (docs/contract.md section 4.3).
const (
	cimdTimeout  = 5 * time.Second
	cimdMaxBytes = 5 << 10
	cimdCacheTTL = 10 * time.Minute
	// cimdFailureTTL is how long a failure is remembered, so repeating a request for a
	// client_id that cannot be fetched does not fetch again.
	cimdFailureTTL = time.Minute
	cimdMaxCache   = 1000
)

// ErrClientMetadata is wrapped by every failure to obtain a usable metadata document; the
// message says what is wrong with it, for the error page a user sees.
var ErrClientMetadata = errors.New("client metadata document")

// ErrMetadataBudget is returned, before any fetch, when the caller's budget refuses one
// more fetch (Config.RegisterLimiter: fetches count as registrations do).
var ErrMetadataBudget = errors.New("too many client metadata documents fetched from this address")

// fetchError is a document that could not be fetched or read. Whatever went wrong, its
// message is the same: the cause (a dial error naming the internal address the SSRF guard
// refused, a status, a timeout) is for the log, never for the client.
type fetchError struct{ cause error }

func (e *fetchError) Error() string   { return "client metadata document could not be fetched" }
func (e *fetchError) Unwrap() []error { return []error{ErrClientMetadata, e.cause} }

// fetchCause returns what made a fetch fail, for the log; nil for any other error.
func fetchCause(err error) error {
	var fe *fetchError
	if errors.As(err, &fe) {
		return fe.cause
	}
	return nil
}

// MetadataClient is a client described by its metadata document. Such clients are public
// and always unverified.
type MetadataClient struct {
	ClientID     string
	Name         string
	RedirectURIs []string
	Scope        string // "" when the document names none
	LogoURI      string
	ClientURI    string
}

// cimdDocument is the part of the document (RFC 7591 section 2 client metadata) used here.
type cimdDocument struct {
	ClientID                string   `json:"client_id"`
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	Scope                   string   `json:"scope"`
	LogoURI                 string   `json:"logo_uri"`
	ClientURI               string   `json:"client_uri"`
}

// MetadataDocuments fetches and caches client metadata documents. It is safe for
// concurrent use.
type MetadataDocuments struct {
	client  *http.Client
	timeout time.Duration
	now     func() time.Time

	// cache is an expiring LRU of cimdMaxCache documents; each entry also carries its own
	// deadline on the injected clock, as failures live shorter than documents.
	cache *expirable.LRU[string, cimdEntry]
}

// cimdEntry is a cached document, or a cached failure (err set).
type cimdEntry struct {
	c       *MetadataClient
	err     error
	expires time.Time
}

// NewMetadataDocuments fetches through transport, which must refuse non-public addresses
// (cmd passes enrich.Guard's transport; tests allow their loopback server explicitly).
// Redirects are not followed: the document must live at the client_id itself.
func NewMetadataDocuments(transport http.RoundTripper) *MetadataDocuments {
	return &MetadataDocuments{
		client: &http.Client{Transport: transport,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		timeout: cimdTimeout,
		now:     time.Now,
		cache:   expirable.NewLRU[string, cimdEntry](cimdMaxCache, nil, cimdCacheTTL),
	}
}

// IsMetadataURL reports whether clientID is to be resolved as a metadata document: an
// https URL with a path, no fragment, no user information and no dot segments (the
// draft's section 3 requirements on the client identifier URL).
func IsMetadataURL(clientID string) bool {
	u, err := url.Parse(clientID)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.Fragment != "" || u.RawFragment != "" ||
		strings.Contains(clientID, "#") {
		return false
	}
	if u.Path == "" || u.Path == "/" {
		return false
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// Client returns the client clientID describes, from the cache or by fetching the
// document. It returns an error wrapping ErrClientMetadata when the URL is not a valid
// client identifier, the fetch fails, times out or exceeds 5 KB, or the document is not
// valid for this client_id. Failures are cached for a minute.
func (m *MetadataDocuments) Client(ctx context.Context, clientID string) (*MetadataClient, error) {
	return m.clientWithin(ctx, clientID, nil)
}

// clientWithin is Client, asking mayFetch (when not nil) before fetching; a refusal is
// ErrMetadataBudget, and mayFetch's error is returned as it is.
func (m *MetadataDocuments) clientWithin(ctx context.Context, clientID string, mayFetch func() (bool, error)) (*MetadataClient, error) {
	if !IsMetadataURL(clientID) {
		return nil, fmt.Errorf("%w: client_id %q is not an https URL with a path", ErrClientMetadata, clientID)
	}
	now := m.now()
	e, ok := m.cache.Get(clientID)
	if ok && now.Before(e.expires) {
		return e.c, e.err
	}
	if mayFetch != nil {
		if ok, err := mayFetch(); err != nil {
			return nil, err
		} else if !ok {
			return nil, ErrMetadataBudget
		}
	}
	var c *MetadataClient
	doc, err := m.fetch(ctx, clientID)
	if err == nil {
		c, err = validateDocument(clientID, doc)
	}
	e = cimdEntry{c: c, err: err, expires: now.Add(cimdCacheTTL)}
	if err != nil {
		e.expires = now.Add(cimdFailureTTL)
	}
	m.cache.Add(clientID, e)
	return c, err
}

// fetch reads the document; every failure is a fetchError.
func (m *MetadataDocuments) fetch(ctx context.Context, clientID string) (*cimdDocument, error) {
	fail := func(format string, args ...any) (*cimdDocument, error) {
		return nil, &fetchError{fmt.Errorf(format, args...)}
	}
	ctx, cancel := context.WithTimeout(ctx, m.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, clientID, nil)
	if err != nil {
		return fail("%w", err)
	}
	req.Header.Set("Accept", "application/json")
	res, err := m.client.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fail("fetching %s took longer than %s", clientID, m.timeout)
		}
		return fail("fetching %s: %w", clientID, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fail("%s answered %d", clientID, res.StatusCode)
	}
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		return fail("%s is %q, not JSON", clientID, mt)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, cimdMaxBytes+1))
	if err != nil {
		return fail("reading %s: %w", clientID, err)
	}
	if len(body) > cimdMaxBytes {
		return fail("%s is larger than %d bytes", clientID, cimdMaxBytes)
	}
	var doc cimdDocument
	if err := json.Unmarshal(body, &doc); err != nil {
		return fail("%s is not a JSON object: %w", clientID, err)
	}
	return &doc, nil
}

// validateDocument applies the draft's section 4 rules: the document names itself, is for a
// public client, and lists the redirect URIs that will be enforced.
func validateDocument(clientID string, doc *cimdDocument) (*MetadataClient, error) {
	bad := func(format string, args ...any) (*MetadataClient, error) {
		return nil, fmt.Errorf("%w: %s: %s", ErrClientMetadata, clientID, fmt.Sprintf(format, args...))
	}
	// Simple string comparison, no normalisation.
	if doc.ClientID != clientID {
		return bad("its client_id %q is not its own URL", doc.ClientID)
	}
	ok, e := documentRulesFor(clientID).check(clientMetadata{Name: &doc.ClientName, RedirectURIs: doc.RedirectURIs,
		AuthMethod: &doc.TokenEndpointAuthMethod, GrantTypes: doc.GrantTypes, ResponseTypes: doc.ResponseTypes,
		LogoURI: doc.LogoURI, ClientURI: doc.ClientURI})
	if e != nil {
		return bad("%s", e.Description)
	}
	return &MetadataClient{ClientID: clientID, Name: ok.Name, RedirectURIs: ok.RedirectURIs, Scope: doc.Scope,
		LogoURI: ok.LogoURI, ClientURI: ok.ClientURI}, nil
}

// authorizeClient resolves a client_id for an authorization request from ip: a Client ID
// Metadata Document URL when Config.ClientMetadata is set, else a registered client. It
// returns nil, nil when there is no such client or it is disabled, an error wrapping
// ErrClientMetadata when a document cannot be used, and ErrMetadataBudget when ip has spent
// its registration budget (a fetch costs what a registration does).
func (s *Server) authorizeClient(ctx context.Context, ip netip.Addr, id string) (*Client, error) {
	if s.cfg.ClientMetadata == nil || !IsMetadataURL(id) {
		return s.registered(ctx, id)
	}
	m, err := s.cfg.ClientMetadata.clientWithin(ctx, id, func() (bool, error) { return s.allowRegistration(ctx, ip) })
	if err != nil {
		if cause := fetchCause(err); cause != nil {
			s.log.InfoContext(ctx, "oauth: client metadata document could not be fetched", "request_id", store.RequestID(ctx), "client_id", id, "err", cause)
		}
		return nil, err
	}
	var scope []string
	if strings.TrimSpace(m.Scope) != "" {
		if scope, err = s.parseScope(m.Scope); err != nil {
			return nil, fmt.Errorf("%w: %s: scope: %s", ErrClientMetadata, id, descriptionOf(err))
		}
	}
	// A row of its own lets codes, token families and consents reference the client, and an
	// admin disable it. It is refreshed from the document on every use, public (no secret)
	// and unverified; unused ones are purged like dynamically registered clients.
	c, err := s.db.UpsertMetadataClient(ctx, &store.OAuthClient{ID: m.ClientID, Name: m.Name, LogoURI: m.LogoURI,
		ClientURI: m.ClientURI, RedirectURIs: m.RedirectURIs, Scope: scope, CreatedAt: s.now()})
	if err != nil {
		return nil, err
	}
	if c.DisabledAt != nil {
		return nil, nil
	}
	return (*Client)(c), nil
}
