package enrich

import (
	"strings"
	"testing"
)

func TestNormalizeSocial(t *testing.T) {
	tests := []struct {
		in, wantKind, want string
	}{
		{"https://www.linkedin.com/company/acme/", "linkedin", "https://www.linkedin.com/company/acme"},
		{"http://linkedin.com/in/jane?trk=x", "linkedin", "https://linkedin.com/in/jane"},
		{"https://uk.linkedin.com/company/acme", "linkedin", "https://uk.linkedin.com/company/acme"},
		{"https://twitter.com/acme#x", "twitter", "https://twitter.com/acme"},
		{"https://mobile.twitter.com/acme", "twitter", "https://mobile.twitter.com/acme"},
		{"https://X.com/acme", "twitter", "https://x.com/acme"},
		{"//instagram.com/acme", "instagram", "https://instagram.com/acme"},
		{"https://www.facebook.com/acme", "facebook", "https://www.facebook.com/acme"},
		{"https://www.facebook.com/profile.php?id=100&ref=x", "facebook", "https://www.facebook.com/profile.php?id=100"},
		// not profiles
		{"https://twitter.com/", "", ""},
		{"https://twitter.com", "", ""},
		{"https://twitter.com/intent/tweet?text=a", "", ""},
		{"https://twitter.com/share", "", ""},
		{"https://www.facebook.com/sharer/sharer.php?u=a", "", ""},
		{"https://www.facebook.com/sharer.php?u=a", "", ""},
		{"https://www.linkedin.com/shareArticle?mini=true", "", ""},
		{"https://www.linkedin.com/sharing/share-offsite/?url=a", "", ""},
		// not social hosts, or not web URLs
		{"https://notx.com/acme", "", ""},
		{"https://x.com.evil.test/acme", "", ""},
		{"https://user@twitter.com/acme", "", ""},
		{"https://twitter.com:8443/acme", "", ""},
		{"javascript:alert(1)", "", ""},
		{"mailto:hi@acme.test", "", ""},
		{"/about", "", ""},
		{"ftp://twitter.com/acme", "", ""},
	}
	for _, tt := range tests {
		kind, got := normalizeSocial(tt.in)
		if kind != tt.wantKind || got != tt.want {
			t.Errorf("normalizeSocial(%q) = %q, %q; want %q, %q", tt.in, kind, got, tt.wantKind, tt.want)
		}
	}
}

func TestParsePage(t *testing.T) {
	t.Run("charset from Content-Type", func(t *testing.T) {
		p, err := parsePage(strings.NewReader("<title>Caf\xe9 M\xfcller</title>"), "text/html; charset=iso-8859-1")
		if err != nil || p.title != "Café Müller" {
			t.Errorf("title = %q, %v; want Café Müller", p.title, err)
		}
	})
	t.Run("charset from meta", func(t *testing.T) {
		p, err := parsePage(strings.NewReader("<meta charset=\"windows-1252\"><title>Acme\x99</title>"), "text/html")
		if err != nil || p.title != "Acme™" {
			t.Errorf("title = %q, %v; want Acme™", p.title, err)
		}
	})
	t.Run("named Organization preferred over an unnamed one", func(t *testing.T) {
		p, _ := parsePage(strings.NewReader(`<script type="application/ld+json">
[{"@type":"Organization","industry":"Unnamed"},{"@type":"http://schema.org/Corporation","name":"Named Co","industry":"Retail"}]
</script>`), "")
		if p.ld.name != "Named Co" || p.ld.industry != "Retail" {
			t.Errorf("ld = %+v, want Named Co / Retail", p.ld)
		}
	})
	t.Run("top-level Organization preferred over a nested one", func(t *testing.T) {
		p, _ := parsePage(strings.NewReader(`<script type="application/ld+json">
{"@type":"WebPage","author":{"@type":"Organization","name":"Agency That Built It"}}</script>
<script type="application/ld+json">{"@type":"Organization","name":"Acme"}</script>`), "")
		if p.ld.name != "Acme" {
			t.Errorf("ld.name = %q, want Acme", p.ld.name)
		}
	})
	t.Run("broken JSON-LD ignored", func(t *testing.T) {
		p, err := parsePage(strings.NewReader(`<script type="application/ld+json">{"@type":"Organization",</script><title>T</title>`), "")
		if err != nil || p.ld.name != "" || p.title != "T" {
			t.Errorf("page = %+v, %v", p, err)
		}
	})
	t.Run("og:site_name given as name attribute", func(t *testing.T) {
		p, _ := parsePage(strings.NewReader(`<meta name="og:site_name" content="Acme">`), "")
		if p.ogSiteName != "Acme" {
			t.Errorf("ogSiteName = %q", p.ogSiteName)
		}
	})
}
