package webhooks_test

import (
	"context"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/agencyos/workspaced/enrich"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/webhooks"
	"github.com/agencyos/workspaced/workspace"
)

// resolver answers names from a table the test can change (DNS rebinding).
type resolver struct {
	mu    sync.Mutex
	names map[string]string
}

func (r *resolver) set(name, addr string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.names[name] = addr
}

func (r *resolver) Resolve(_ context.Context, host, port string) ([]netip.AddrPort, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, ok := r.names[host]
	if !ok {
		return nil, &netErr{host}
	}
	ap, err := netip.ParseAddrPort(a + ":" + port)
	if err != nil {
		ap = netip.AddrPortFrom(netip.MustParseAddr(a), 443)
	}
	return []netip.AddrPort{ap}, nil
}

type netErr struct{ host string }

func (e *netErr) Error() string { return "no such host " + e.host }

// TestEndpointURLsAtCreation: only https to a public address is registered (the
// enrichment guard's rules), whatever the spelling of a private one; while PUBLIC_URL is
// loopback, http to loopback is accepted too and nothing else is.
func TestEndpointURLsAtCreation(t *testing.T) {
	dns := &resolver{names: map[string]string{"public.example.test": "93.184.216.34", "private.example.test": "10.0.0.5",
		"metadata.example.test": "169.254.169.254", "v6.example.test": "::1"}}
	e := newEnv(t, webhooks.URLPolicy{Guard: enrich.Guard{Resolver: dns}})
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	for _, bad := range []string{
		"https://127.0.0.1/hook", "https://127.1/hook", "https://2130706433/hook", "https://0x7f000001/hook",
		"https://0x7f.0.0.1/hook", "https://0177.0.0.1/hook", "https://017700000001/hook",
		"https://10.1.2.3/", "https://172.16.0.1/", "https://192.168.1.1/", "https://100.64.0.1/",
		"https://169.254.169.254/latest/meta-data", "https://0.0.0.0/",
		"https://[::1]/", "https://[::ffff:127.0.0.1]/", "https://[::ffff:7f00:1]/", "https://[fe80::1]/",
		"https://[fc00::1]/", "https://[64:ff9b::a00:1]/", "https://[2002:a00:1::]/", "https://[::]/",
		"https://private.example.test/", "https://metadata.example.test/", "https://v6.example.test/",
		"https://nowhere.example.test/",
		"http://93.184.216.34/", "ftp://93.184.216.34/", "https://user:pw@93.184.216.34/", "/relative", "not a url",
	} {
		r := e.do(f.Admin, "POST", "/webhook_endpoints", map[string]any{"url": bad})
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Raw), `"field":"url"`) {
			t.Errorf("%s: %d %s, want 422 on url", bad, r.Status, r.Raw)
		}
	}
	for _, good := range []string{"https://93.184.216.34/hook", "https://public.example.test:8443/h?x=1"} {
		if r := e.do(f.Admin, "POST", "/webhook_endpoints", map[string]any{"url": good}); r.Status != http.StatusCreated {
			t.Errorf("%s: %d %s, want 201", good, r.Status, r.Raw)
		}
	}
	id, _ := e.createEndpoint(f.Admin, "https://93.184.216.34/hook")
	if r := e.do(f.Admin, "PATCH", "/webhook_endpoints/"+id, map[string]any{"url": "https://[::1]/"}); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("update to loopback: %d %s, want 422", r.Status, r.Raw)
	}

	local := newEnv(t, loopbackPolicy)
	f = storetest.Workspace(t, local.store, workspace.Scopes())
	for url, want := range map[string]int{
		"http://127.0.0.1:8080/hook": http.StatusCreated, "http://[::1]:8080/": http.StatusCreated,
		"http://10.0.0.1/": http.StatusUnprocessableEntity, "http://93.184.216.34/": http.StatusUnprocessableEntity,
		"http://2130706433/": http.StatusUnprocessableEntity,
	} {
		if r := local.do(f.Admin, "POST", "/webhook_endpoints", map[string]any{"url": url}); r.Status != want {
			t.Errorf("loopback PUBLIC_URL, %s: %d %s, want %d", url, r.Status, r.Raw, want)
		}
	}
}

// TestRefusalNamesNoAddress: refusing a name that resolves to a private address says that
// it is not public and nothing of what it resolves to, when registered over REST and when
// a delivery checks it again (the delivery log's error), so a refusal maps no internal name.
func TestRefusalNamesNoAddress(t *testing.T) {
	dns := &resolver{names: map[string]string{"internal.example.test": "10.20.30.40", "rebind.example.test": "93.184.216.34"}}
	e := newEnv(t, webhooks.URLPolicy{Guard: enrich.Guard{Resolver: dns}})
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	for _, u := range []string{"https://internal.example.test/hook", "https://10.20.30.40/hook"} {
		r := e.do(f.Admin, "POST", "/webhook_endpoints", map[string]any{"url": u})
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Raw), "is not a public address") {
			t.Errorf("%s: %d %s, want 422 saying that it is not a public address", u, r.Status, r.Raw)
		}
	}
	if r := e.do(f.Admin, "POST", "/webhook_endpoints", map[string]any{"url": "https://internal.example.test/hook"}); strings.Contains(string(r.Raw), "10.20.30.40") {
		t.Errorf("the refusal names the address the host resolves to: %s", r.Raw)
	}

	// The same check at delivery: the name now resolves to a private address.
	rc := newReceiver(t)
	id, _ := e.createEndpoint(f.Admin, "https://rebind.example.test:"+mustURL(t, rc.URL).Port()+"/hook", "labels.*")
	dns.set("rebind.example.test", "10.20.30.40")
	e.start(e.svc)
	r := e.do(f.Admin, "POST", "/webhook_endpoints/"+id+"/test", nil)
	if r.Status != http.StatusAccepted {
		t.Fatalf("test: %d %s", r.Status, r.Raw)
	}
	eventID := r.data()["event_id"].(string)
	var problem string
	eventually(t, "the attempt to be refused", func() bool {
		e.serviceRow(f.WorkspaceID, `SELECT coalesce(max(error), '') FROM webhook_deliveries WHERE event_id = $1::text::uuid`,
			[]any{eventID}, &problem)
		return problem != ""
	})
	if !strings.Contains(problem, "is not a public address") || strings.Contains(problem, "10.20.30.40") {
		t.Errorf("delivery error %q, want it to say only that the host is not a public address", problem)
	}
}

// TestRefusedSchemeSaysWhatIsAccepted: the refusal of a scheme names what the policy
// takes: https, and while the service runs locally http on a loopback address as well.
func TestRefusedSchemeSaysWhatIsAccepted(t *testing.T) {
	dns := &resolver{names: map[string]string{"public.example.test": "93.184.216.34"}}
	production := webhooks.URLPolicy{Guard: enrich.Guard{Resolver: dns}}
	local := webhooks.URLPolicy{Guard: enrich.Guard{Resolver: dns}, LoopbackHTTP: true}
	for _, c := range []struct {
		policy webhooks.URLPolicy
		url    string
		want   string
	}{
		{production, "http://93.184.216.34/", ": the URL must be https"},
		{production, "ftp://public.example.test/", ": the URL must be https"},
		{local, "ftp://127.0.0.1/", ": the URL must be https, or http on a loopback address while the service runs locally"},
		{local, "ftp://[::1]/", ": the URL must be https, or http on a loopback address while the service runs locally"},
		{local, "http://93.184.216.34/", ": the URL must be https, or http on a loopback address while the service runs locally"},
	} {
		err := c.policy.Check(context.Background(), c.url)
		if !errors.Is(err, webhooks.ErrRefusedURL) || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%s (loopback http %v): %v, want it to end %q", c.url, c.policy.LoopbackHTTP, err, c.want)
		}
	}
}

// TestEndpointURLsAtDelivery: every delivery checks the URL and each connection again, so
// a name that now resolves to loopback (DNS rebinding), an address edited into the
// database, or a redirect reaches nothing but the first hop.
func TestEndpointURLsAtDelivery(t *testing.T) {
	rc := newReceiver(t)
	port := mustURL(t, rc.URL).Port()
	dns := &resolver{names: map[string]string{"rebind.example.test": "93.184.216.34"}}
	e := newEnv(t, webhooks.URLPolicy{Guard: enrich.Guard{Resolver: dns}})
	f := storetest.Workspace(t, e.store, workspace.Scopes())
	id, _ := e.createEndpoint(f.Admin, "https://rebind.example.test:"+port+"/hook", "labels.*")
	e.start(e.svc)

	ping := func(what string) {
		t.Helper()
		r := e.do(f.Admin, "POST", "/webhook_endpoints/"+id+"/test", nil)
		if r.Status != http.StatusAccepted {
			t.Fatalf("%s: test: %d %s", what, r.Status, r.Raw)
		}
		eventID := r.data()["event_id"].(string)
		eventually(t, what+": the attempt to be refused", func() bool {
			var problem string
			var attempts int
			e.serviceRow(f.WorkspaceID, `SELECT coalesce(max(error), ''), coalesce(max(attempts), 0) FROM webhook_deliveries WHERE event_id = $1::text::uuid`,
				[]any{eventID}, &problem, &attempts)
			if attempts == 0 {
				return false
			}
			if !strings.Contains(problem, "not a public address") && !strings.Contains(problem, "write the host as a name") {
				t.Fatalf("%s: attempt error %q", what, problem)
			}
			return true
		})
	}
	dns.set("rebind.example.test", "127.0.0.1")
	ping("rebinding to loopback")
	for _, raw := range []string{"https://127.0.0.1:" + port + "/", "https://[::ffff:127.0.0.1]:" + port + "/",
		"https://2130706433:" + port + "/", "https://10.0.0.1:" + port + "/", "https://[::1]:" + port + "/"} {
		e.serviceRow(f.WorkspaceID, `UPDATE webhook_endpoints SET url = $2 WHERE id = $1::text::uuid RETURNING id::text`,
			[]any{id, raw}, new(string))
		ping(raw)
	}
	if n := len(rc.deliveries()); n != 0 {
		t.Fatalf("the receiver on loopback got %d requests", n)
	}

}

// TestRedirectsAreNotFollowed: the first hop's 307 is the attempt's answer; the target
// gets nothing. (Apart from the test above: every service in the database works every
// workspace's jobs, so the two policies must not run at once.)
func TestRedirectsAreNotFollowed(t *testing.T) {
	local := newEnv(t, loopbackPolicy)
	target := newReceiver(t)
	redirector := newReceiver(t)
	redirector.Config.Handler = http.RedirectHandler(target.URL+"/hook", http.StatusTemporaryRedirect)
	lf := storetest.Workspace(t, local.store, workspace.Scopes())
	rid, _ := local.createEndpoint(lf.Admin, redirector.URL+"/hook", "labels.*")
	local.start(local.svc)
	local.do(lf.Admin, "POST", "/labels", map[string]any{"name": "Redirected"})
	eventually(t, "the redirected attempt", func() bool {
		r := local.do(lf.Admin, "GET", "/webhook_deliveries?endpoint_id="+rid, nil)
		list, _ := r.Body["data"].([]any)
		return len(list) == 1 && list[0].(map[string]any)["response_status"] == float64(http.StatusTemporaryRedirect) &&
			list[0].(map[string]any)["status"] == "pending"
	})
	if n := len(target.deliveries()); n != 0 {
		t.Fatalf("the redirect target got %d requests", n)
	}
}

// TestEndpointAccess: members get 403 on every webhook route; another workspace's
// endpoint and delivery ids are 404, as if they did not exist.
func TestEndpointAccess(t *testing.T) {
	e := newEnv(t, loopbackPolicy)
	rc := newReceiver(t)
	a := storetest.Workspace(t, e.store, workspace.Scopes())
	b := storetest.Workspace(t, e.store, workspace.Scopes())
	id, _ := e.createEndpoint(a.Admin, rc.URL+"/hook", "labels.*")
	e.start(e.svc)
	e.do(a.Admin, "POST", "/labels", map[string]any{"name": "Seen"})
	var deliveryID string
	eventually(t, "a delivery", func() bool {
		r := e.do(a.Admin, "GET", "/webhook_deliveries?endpoint_id="+id, nil)
		list, _ := r.Body["data"].([]any)
		if len(list) == 0 {
			return false
		}
		deliveryID = list[0].(map[string]any)["id"].(string)
		return true
	})
	routes := []struct{ method, path string }{
		{"GET", "/webhook_endpoints/" + id}, {"PATCH", "/webhook_endpoints/" + id},
		{"POST", "/webhook_endpoints/" + id + "/test"}, {"POST", "/webhook_endpoints/" + id + "/rotate_secret"},
		{"GET", "/webhook_deliveries/" + deliveryID}, {"POST", "/webhook_deliveries/" + deliveryID + "/retry"},
	}
	for _, rt := range routes {
		var body any
		if rt.method == "PATCH" {
			body = map[string]any{"description": "mine now"}
		}
		if r := e.do(a.Member, rt.method, rt.path, body); r.Status != http.StatusForbidden || r.Body["error"] != "insufficient_permission" {
			t.Errorf("member %s %s: %d %s, want 403", rt.method, rt.path, r.Status, r.Raw)
		}
		if r := e.do(b.Admin, rt.method, rt.path, body); r.Status != http.StatusNotFound {
			t.Errorf("other workspace's admin %s %s: %d %s, want 404", rt.method, rt.path, r.Status, r.Raw)
		}
	}
	for _, path := range []string{"/webhook_endpoints", "/webhook_deliveries?endpoint_id=" + id} {
		if r := e.do(a.Member, "GET", path, nil); r.Status != http.StatusForbidden {
			t.Errorf("member GET %s: %d, want 403", path, r.Status)
		}
		r := e.do(b.Admin, "GET", path, nil)
		if list, _ := r.Body["data"].([]any); r.Status != http.StatusOK || len(list) != 0 {
			t.Errorf("other workspace's admin GET %s: %d %s, want an empty list", path, r.Status, r.Raw)
		}
	}
	if r := e.do(a.Member, "POST", "/webhook_endpoints", map[string]any{"url": rc.URL}); r.Status != http.StatusForbidden {
		t.Errorf("member create: %d %s, want 403", r.Status, r.Raw)
	}
	// A narrower credential: an admin without webhooks:write may not act.
	narrow := *a.Admin
	narrow.Scopes = []string{"webhooks:read"}
	if r := e.do(&narrow, "POST", "/webhook_endpoints/"+id+"/test", nil); r.Status != http.StatusForbidden || r.Body["error"] != "insufficient_scope" {
		t.Errorf("webhooks:read only, test: %d %s, want 403 insufficient_scope", r.Status, r.Raw)
	}
	if r := e.do(a.Admin, "POST", "/webhook_endpoints/not-a-uuid/test", nil); r.Status != http.StatusNotFound {
		t.Errorf("malformed id: %d %s, want 404", r.Status, r.Raw)
	}
}

func mustURL(t testing.TB, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
