package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/oauth2"
)

// TestRevocationFlushesOwnCache: the process that answers a revocation has already
// dropped the token from its own credential cache, so the very next call with it is 401,
// not a cached 200 until the LISTEN/NOTIFY round trip arrives (without that, it
// was 200 right after in 3 of 4 tries). Other processes still flush on the notification.
func TestRevocationFlushesOwnCache(t *testing.T) {
	ts, s := startServer(t)
	email, password := testMember(t, s, "member", map[string]string{"crm": "full"})
	ctx := context.Background()
	redirect := "http://127.0.0.1/callback"
	res, err := http.Post(ts.URL+"/oauth/register", "application/json",
		strings.NewReader(`{"client_name":"Revoker","redirect_uris":["`+redirect+`"],"token_endpoint_auth_method":"none"}`))
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		ClientID string `json:"client_id"`
	}
	err = json.NewDecoder(res.Body).Decode(&reg)
	res.Body.Close()
	if err != nil || reg.ClientID == "" {
		t.Fatalf("register: %d %v", res.StatusCode, err)
	}
	conf := &oauth2.Config{ClientID: reg.ClientID, RedirectURL: "http://127.0.0.1:49152/callback",
		Endpoint: oauth2.Endpoint{AuthURL: ts.URL + "/oauth/authorize", TokenURL: ts.URL + "/oauth/token?apikey=" + e2eAPIKey,
			AuthStyle: oauth2.AuthStyleInParams},
		Scopes: []string{"deals:read"}}
	verifier := oauth2.GenerateVerifier()
	landed, _ := signInAndApprove(t, ts.URL, conf.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)), email, password, []string{"deals:read"})
	tok, err := conf.Exchange(ctx, landed.Query().Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	me := func(access string) int { status, _ := getMe(t, ts.URL, access); return status }
	for i := range 8 {
		if status := me(tok.AccessToken); status != http.StatusOK { // now cached
			t.Fatalf("try %d: before revocation %d", i, status)
		}
		res, err := http.PostForm(ts.URL+"/oauth/revoke?apikey="+e2eAPIKey, url.Values{"token": {tok.AccessToken}, "client_id": {reg.ClientID},
			"token_type_hint": {"access_token"}})
		if err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("try %d: revoke: %v %v", i, res, err)
		}
		res.Body.Close()
		if status := me(tok.AccessToken); status != http.StatusUnauthorized {
			t.Fatalf("try %d: the revoked token right after the revocation: %d, want 401", i, status)
		}
		// The next access token of the family, for the next try.
		if tok, err = conf.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token(); err != nil {
			t.Fatal(err)
		}
	}
}
