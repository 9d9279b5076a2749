package restapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/webhooks"
	"github.com/agencyos/workspaced/workspace"
)

// TestWebhookActionsFollowTheDocument: the three webhook actions of docs/webhooks.md (test,
// rotate_secret, retry) answer as the OpenAPI document declares, on success and on every
// refusal (doT validates each exchange, and fails on a success the document does not list).
func TestWebhookActionsFollowTheDocument(t *testing.T) {
	t.Parallel()
	var svc *webhooks.Service
	e := newEnv(t, func(c *envConfig) {
		var err error
		svc, err = webhooks.New(webhooks.Config{Store: c.opsConfig.Store})
		if err != nil {
			t.Fatal(err)
		}
		c.Webhooks = svc
	})
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	admin, member := e.as(t, f.Admin), e.as(t, f.Member)

	created := must(t, admin.post("/webhook_endpoints", map[string]any{"url": "https://93.184.216.34/hooks"}), http.StatusCreated)
	endpoint, secret := created.data()["id"].(string), created.data()["secret"].(string)

	ping := must(t, admin.post("/webhook_endpoints/"+endpoint+"/test", nil), http.StatusAccepted)
	if ping.data()["type"] != "ping" || ping.data()["event_id"] == "" {
		t.Fatalf("test: %s", ping.Raw)
	}
	rotated := must(t, admin.post("/webhook_endpoints/"+endpoint+"/rotate_secret", nil), http.StatusOK)
	if s, _ := rotated.data()["secret"].(string); !strings.HasPrefix(s, "whsec_") || s == secret || rotated.data()["id"] != endpoint {
		t.Fatalf("rotate_secret: %s", rotated.Raw)
	}

	// The ping's delivery: the outbox is shared with the package's other tests, so take
	// batches until one comes back short.
	for {
		n, err := svc.Dispatch(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n < 500 {
			break
		}
	}
	var delivery string
	for _, d := range admin.listAll("/webhook_deliveries?endpoint_id=" + endpoint) {
		if d["event_id"] == ping.data()["event_id"] {
			delivery = d["id"].(string)
		}
	}
	if delivery == "" {
		t.Fatal("no delivery of the ping")
	}
	retried := must(t, admin.post("/webhook_deliveries/"+delivery+"/retry", nil), http.StatusAccepted)
	if retried.data()["id"] != delivery || retried.data()["status"] != "pending" || retried.data()["next_attempt_at"] == nil {
		t.Fatalf("retry: %s", retried.Raw)
	}

	other := storetest.Workspace(t, e.store, workspace.Scopes())
	for _, path := range []string{"/webhook_endpoints/" + endpoint + "/test", "/webhook_endpoints/" + endpoint + "/rotate_secret",
		"/webhook_deliveries/" + delivery + "/retry"} {
		wantError(t, member.post(path, nil), http.StatusForbidden, "insufficient_permission")
		wantError(t, e.as(t, other.Admin).post(path, nil), http.StatusNotFound, "not_found")
		malformed := strings.Replace(path, endpoint, "not-a-uuid", 1)
		malformed = strings.Replace(malformed, delivery, "not-a-uuid", 1)
		wantError(t, admin.post(malformed, nil), http.StatusNotFound, "not_found")
	}

	// A server without webhook delivery answers 503, as the document says.
	plain := newEnv(t)
	wantError(t, plain.as(t, f.Admin).post("/webhook_endpoints/"+endpoint+"/test", nil), http.StatusServiceUnavailable, "internal_error")
}

// TestRoutesRefuseOtherMethods: a method a route does not take is a 405 naming the ones
// it does in Allow, not a 404 for a resource named as the path's first segment: the
// webhook actions take POST; /me, /search and /openapi.json take GET.
func TestRoutesRefuseOtherMethods(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	admin := e.as(t, f.Admin)
	id := uuid.NewString()
	for _, c := range []struct {
		paths   []string
		allow   string
		methods []string
	}{
		{[]string{"/webhook_endpoints/" + id + "/test", "/webhook_endpoints/" + id + "/rotate_secret",
			"/webhook_deliveries/" + id + "/retry"}, http.MethodPost,
			[]string{http.MethodGet, http.MethodPut, http.MethodPatch, http.MethodDelete}},
		{[]string{"/me", "/search", "/openapi.json"}, http.MethodGet,
			[]string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}},
	} {
		for _, path := range c.paths {
			for _, method := range c.methods {
				r := admin.req(method, path, map[string]any{})
				wantError(t, r, http.StatusMethodNotAllowed, "method_not_allowed")
				if allow := r.Header.Get("Allow"); allow != c.allow {
					t.Errorf("%s %s: Allow %q, want %s", method, path, allow, c.allow)
				}
			}
		}
	}
}
