package oauth

import (
	"context"
	"net/http"
	"strings"

	"github.com/agencyos/workspaced/store"
)

// revoke is the revocation endpoint (RFC 7009). A refresh token takes its whole family
// with it (docs/contract.md section 4.3 rule 5); an access token only itself. Unknown tokens, and
// tokens of another client, answer 200 and change nothing (RFC 7009 2.1, 2.2).
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	v, ok := s.endpointParams(w, r)
	if !ok {
		return
	}
	token := v.Get("token")
	if token == "" {
		s.fail(w, r, ErrInvalidRequest.WithHint("token is required"))
		return
	}
	// RFC 7009 2.1: the client authenticates as at the token endpoint.
	clientID, err := s.authenticateClient(r.Context(), r, v)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	// token_type_hint is only a hint (RFC 7009 2.1); the prefix says what the token is.
	switch {
	case strings.HasPrefix(token, store.PrefixRefreshToken) && store.WellFormed(token, store.PrefixRefreshToken):
		err = s.revokeRefresh(r.Context(), clientID, token)
	case strings.HasPrefix(token, store.PrefixAccessToken) && store.WellFormed(token, store.PrefixAccessToken):
		err = s.revokeAccess(r.Context(), clientID, token)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}

func (s *Server) revokeRefresh(ctx context.Context, clientID, plain string) error {
	familyID, err := s.db.RevokeRefreshToken(ctx, clientID, store.HashSecret(plain), s.now())
	if err != nil || familyID == "" {
		return err
	}
	s.notify(ctx, "oauth_family:"+familyID)
	return nil
}

func (s *Server) revokeAccess(ctx context.Context, clientID, plain string) error {
	id, err := s.db.RevokeAccessToken(ctx, clientID, store.HashSecret(plain), s.now())
	if err != nil || id == "" {
		return err
	}
	s.notify(ctx, "oauth_access:"+id)
	return nil
}
