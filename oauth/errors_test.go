package oauth_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/oauth"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// TestErrorUnwrapsItsCause: an OAuth error made WithCause answers errors.Is and errors.As
// for its cause, and refining a sentinel leaves the sentinel as it was.
func TestErrorUnwrapsItsCause(t *testing.T) {
	err := oauth.ErrServerError.WithCause(io.ErrUnexpectedEOF)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("errors.Is(%v, io.ErrUnexpectedEOF) = false", err)
	}
	if !errors.Is(err, oauth.ErrServerError) {
		t.Fatalf("errors.Is(%v, ErrServerError) = false", err)
	}
	want := oauth.ErrInvalidGrant.Description
	refined := oauth.ErrInvalidGrant.WithHint("the refresh token was issued to another client").WithCause(io.EOF)
	if oauth.ErrInvalidGrant.Description != want || errors.Unwrap(oauth.ErrInvalidGrant) != nil {
		t.Fatalf("refining changed the sentinel: %+v", oauth.ErrInvalidGrant)
	}
	var e *oauth.Error
	if !errors.As(refined, &e) || e.Code != "invalid_grant" {
		t.Fatalf("errors.As: %v", refined)
	}
}

// lockedBuffer collects log lines written from the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestFailureLogCarriesRequestID: when the database fails a token request (here every
// statement outlives a 1ns deadline), the error the provider logs carries the request's
// id, the one the X-Request-Id header gave, so the line can be found from the response.
func TestFailureLogCarriesRequestID(t *testing.T) {
	ctx := context.Background()
	s, err := store.OpenWith(ctx, storetest.DSN(t), store.Options{StatementTimeout: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var logs lockedBuffer
	srv, err := oauth.New(store.WithoutDeadlines(ctx), oauth.Config{Store: s, Issuer: "http://127.0.0.1",
		Scopes: workspace.Scopes(), GrantableScopes: workspace.GrantableScopes, APIKey: testAPIKey,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(httpx.RequestID(srv.Handler()))
	defer ts.Close()
	form := url.Values{"grant_type": {"refresh_token"}, "client_id": {"svcdyn_0123456789abcdef01234567"},
		"refresh_token": {store.PrefixRefreshToken + strings.Repeat("a", 43)}}
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Request-Id", "req-oauth-failure-1")
	req.Header.Set("apikey", testAPIKey)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode < 500 {
		t.Fatalf("status %d, want a 5xx from the failing database", res.StatusCode)
	}
	if got := logs.String(); !strings.Contains(got, "request_id=req-oauth-failure-1") {
		t.Fatalf("the log does not carry the request id:\n%s", got)
	}
}
