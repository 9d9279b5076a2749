package enrich

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const testAPIKey = "sk_test_6f1c0ffee"

// vendor is a fake firmographics API checking what the provider sends.
func vendor(t *testing.T, h func(w http.ResponseWriter, r *http.Request)) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if got := r.Header.Get("Authorization"); got != "Bearer "+testAPIKey {
			t.Errorf("Authorization = %q, want the bearer key", got)
		}
		if r.Method != http.MethodGet || r.URL.Path != "/v1/companies" {
			t.Errorf("request = %s %s, want GET /v1/companies", r.Method, r.URL.Path)
		}
		h(w, r)
	}))
	t.Cleanup(s.Close)
	return s, &n
}

func firmographics(t *testing.T, base string, edit ...func(*FirmographicsConfig)) *FirmographicsProvider {
	t.Helper()
	cfg := FirmographicsConfig{BaseURL: base + "/v1/", APIKey: testAPIKey}
	for _, f := range edit {
		f(&cfg)
	}
	p, err := NewFirmographicsProvider(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFirmographicsLookup(t *testing.T) {
	s, n := vendor(t, func(w http.ResponseWriter, r *http.Request) {
		if got := r.URL.Query().Get("domain"); got != "www.acme.com" {
			t.Errorf("domain = %q, want www.acme.com", got)
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"name": " Acme  Corp ", "domain": "acme.com", "website": "acme.com",
			"industry": "Manufacturing", "employees": 120,
			"linkedin_url": "http://www.linkedin.com/company/acme", "twitter_url": "twitter.com/acme",
			"instagram_url": null, "facebook_url": "javascript:alert(1)"}`)
	})
	got, err := firmographics(t, s.URL).Lookup(context.Background(), "https://WWW.acme.com/")
	if err != nil {
		t.Fatalf("Lookup: %v", err)
	}
	want := Company{
		Domain:   "www.acme.com",
		Name:     "Acme Corp",
		Website:  "https://acme.com",
		Industry: "Manufacturing",
		Socials: Socials{
			LinkedIn: "https://www.linkedin.com/company/acme",
			Twitter:  "https://twitter.com/acme",
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Lookup (-want +got):\n%s", diff)
	}
	if n.Load() != 1 {
		t.Errorf("vendor saw %d requests, want 1", n.Load())
	}
}

func TestFirmographicsLookupFails(t *testing.T) {
	tests := []struct {
		name    string
		handler func(w http.ResponseWriter, r *http.Request)
		edit    func(*FirmographicsConfig)
	}{
		{name: "fails because of a 500", handler: func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"error":"boom"}`, http.StatusInternalServerError)
		}},
		{name: "fails because of a 404 (no such company)", handler: func(w http.ResponseWriter, r *http.Request) {
			http.NotFound(w, r)
		}},
		{name: "fails because of a 401, body echoing the key not quoted", handler: func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "bad key "+r.Header.Get("Authorization"), http.StatusUnauthorized)
		}},
		{name: "fails because the answer is not JSON", handler: func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "<html>maintenance</html>")
		}},
		{name: "fails because the answer is null", handler: func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, "null")
		}},
		{name: "fails because a field has the wrong type", handler: func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"name": 7}`)
		}},
		{name: "fails because the answer is over the cap", handler: func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `{"name": "%s"}`, strings.Repeat("a", 2<<10))
		}, edit: func(c *FirmographicsConfig) { c.MaxBodyBytes = 1 << 10 }},
		{name: "fails because of a timeout", handler: func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}, edit: func(c *FirmographicsConfig) { c.Timeout = 200 * time.Millisecond }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := vendor(t, tt.handler)
			edit := func(*FirmographicsConfig) {}
			if tt.edit != nil {
				edit = tt.edit
			}
			_, err := firmographics(t, s.URL, edit).Lookup(context.Background(), "acme.com")
			if !errors.Is(err, ErrUpstream) {
				t.Fatalf("Lookup error = %v, want ErrUpstream", err)
			}
			if strings.Contains(err.Error(), testAPIKey) {
				t.Errorf("error %q contains the API key", err)
			}
		})
	}
}

func TestFirmographicsLookupUnreachable(t *testing.T) {
	s := httptest.NewServer(http.NotFoundHandler())
	base := s.URL
	s.Close()
	_, err := firmographics(t, base).Lookup(context.Background(), "acme.com")
	if !errors.Is(err, ErrUpstream) || strings.Contains(err.Error(), testAPIKey) {
		t.Fatalf("Lookup error = %v, want ErrUpstream without the key", err)
	}
}

func TestFirmographicsLookupInvalidDomain(t *testing.T) {
	s, n := vendor(t, func(w http.ResponseWriter, r *http.Request) {})
	_, err := firmographics(t, s.URL).Lookup(context.Background(), "localhost")
	if !errors.Is(err, ErrInvalidDomain) || n.Load() != 0 {
		t.Fatalf("Lookup error = %v after %d requests, want ErrInvalidDomain and none", err, n.Load())
	}
}

func TestNewFirmographicsProvider(t *testing.T) {
	for _, cfg := range []FirmographicsConfig{
		{BaseURL: "", APIKey: "k"},
		{BaseURL: "api.vendor.test/v1", APIKey: "k"},
		{BaseURL: "ftp://api.vendor.test", APIKey: "k"},
		{BaseURL: "https://user:pw@api.vendor.test", APIKey: "k"},
		{BaseURL: "https://api.vendor.test", APIKey: ""},
	} {
		if _, err := NewFirmographicsProvider(cfg); err == nil {
			t.Errorf("NewFirmographicsProvider(%v) succeeded, want an error", cfg)
		}
	}
}

func TestFirmographicsConfigRedactsKey(t *testing.T) {
	cfg := FirmographicsConfig{BaseURL: "https://api.vendor.test", APIKey: testAPIKey}
	for _, verb := range []string{"%v", "%+v", "%s", "%#v"} {
		if s := fmt.Sprintf(verb, cfg); strings.Contains(s, testAPIKey) || !strings.Contains(s, "[redacted]") {
			t.Errorf("Sprintf(%s, cfg) = %q, want the key redacted", verb, s)
		}
	}
	if s := fmt.Sprintf("%+v", &cfg); strings.Contains(s, testAPIKey) {
		t.Errorf("Sprintf(%%+v, &cfg) = %q leaks the key", s)
	}
}
