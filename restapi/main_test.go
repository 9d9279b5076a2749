package restapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agencyos/workspaced/restapi"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

const testAPIKey = "pk_test_routing_key"

// env is a running API over the package database, authenticating agent keys through the
// same revocation-aware cache the server uses.
type env struct {
	t     testing.TB
	store *store.Store
	srv   *httptest.Server
}

func newEnv(t testing.TB) *env {
	t.Helper()
	s := storetest.New(t)
	scopes := restapi.Scopes()
	keys := restapi.AuthenticatorFunc(func(ctx context.Context, bearer string) (*store.Principal, error) {
		return s.AgentKeyPrincipal(ctx, bearer, scopes)
	})
	cache := restapi.NewCache(restapi.Prefixed{store.PrefixAgentKey: keys}, 30*time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	go s.ListenRevocations(ctx, cache.Flush, cache.SetListening)
	api := restapi.New(restapi.Config{Store: s, Auth: cache, APIKey: testAPIKey})
	mux := http.NewServeMux()
	mux.Handle("/v1/", http.StripPrefix("/v1", api.Handler()))
	srv := httptest.NewServer(mux)
	t.Cleanup(func() { srv.Close(); cancel() })
	return &env{t: t, store: s, srv: srv}
}

// response is a decoded exchange.
type response struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

// do sends a request with the apikey header and bearer (both optional: "" omits).
func (e *env) do(method, path, bearer, apikey string, body string, headers ...string) response {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.srv.URL+"/v1"+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if apikey != "" {
		req.Header.Set("apikey", apikey)
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	_ = json.Unmarshal(raw, &out.Body)
	return out
}

// wantError asserts the spec's error envelope with the given status and code.
func wantError(t testing.TB, r response, status int, code string) {
	t.Helper()
	if r.Status != status || r.Body["error"] != code {
		t.Fatalf("want %d %s, got %d %s", status, code, r.Status, r.Raw)
	}
	id := r.Header.Get("X-Request-Id")
	if id == "" || r.Body["request_id"] != id {
		t.Fatalf("error body request_id %v does not repeat X-Request-Id %q", r.Body["request_id"], id)
	}
	if msg, _ := r.Body["message"].(string); msg == "" {
		t.Fatalf("error without a message: %s", r.Raw)
	}
}
