package enrich

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/url"
	"sort"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// page is what a home page says about its company.
type page struct {
	ld         ldOrg    // from the first JSON-LD Organization found
	ogSiteName string   // <meta property="og:site_name">
	title      string   // the first <title>
	links      []string // <a href> values, in document order
}

// ldOrg is the part of a JSON-LD Organization node we use.
type ldOrg struct {
	name     string
	industry string
	sameAs   []string
}

// parsePage reads an HTML document from r, decoding it from the charset named
// by contentType or declared in the document (UTF-8 by default). It returns
// what it found up to the first read error, and that error unless it is io.EOF.
func parsePage(r io.Reader, contentType string) (page, error) {
	if cr, err := charset.NewReader(r, contentType); err == nil {
		r = cr
	}
	var p page
	var ldScripts [][]byte
	z := html.NewTokenizer(r)
	inTitle, inLD := false, false
	for {
		switch z.Next() {
		case html.ErrorToken:
			p.ld = findOrg(ldScripts)
			if err := z.Err(); !errors.Is(err, io.EOF) {
				return p, err
			}
			return p, nil
		case html.TextToken:
			switch {
			case inTitle:
				p.title = collapseSpace(string(z.Text()))
			case inLD:
				ldScripts = append(ldScripts, bytes.Clone(z.Text()))
			}
		case html.EndTagToken:
			inTitle, inLD = false, false
		case html.StartTagToken, html.SelfClosingTagToken:
			inTitle, inLD = false, false
			name, hasAttr := z.TagName()
			attrs := map[string]string{}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				if _, dup := attrs[string(k)]; !dup {
					attrs[string(k)] = string(v)
				}
			}
			switch string(name) {
			case "title":
				inTitle = p.title == ""
			case "script":
				mt, _, _ := mime.ParseMediaType(attrs["type"])
				inLD = mt == "application/ld+json"
			case "meta":
				prop := attrs["property"]
				if prop == "" {
					prop = attrs["name"]
				}
				if strings.EqualFold(strings.TrimSpace(prop), "og:site_name") && p.ogSiteName == "" {
					p.ogSiteName = collapseSpace(attrs["content"])
				}
			case "a":
				if href := strings.TrimSpace(attrs["href"]); href != "" {
					p.links = append(p.links, href)
				}
			}
		}
	}
}

// collapseSpace trims s and turns each run of white space into one space.
func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// findOrg returns the Organization described by the JSON-LD scripts: nodes
// nearer the top (including @graph members) win over nested ones, earlier
// over later, and one with a name over one without.
func findOrg(scripts [][]byte) ldOrg {
	var queue []any
	for _, s := range scripts {
		var v any
		if json.Unmarshal(cleanLD(s), &v) == nil {
			queue = append(queue, v)
		}
	}
	var first map[string]any
	// Breadth-first, with keys in sorted order so the result does not depend
	// on map iteration; bounded so hostile input cannot make this expensive.
	for steps := 0; len(queue) > 0 && steps < 10000; steps++ {
		v := queue[0]
		queue = queue[1:]
		switch v := v.(type) {
		case []any:
			queue = append(queue, v...)
		case map[string]any:
			if isOrgType(v["@type"]) {
				if ldString(v["name"]) != "" {
					return orgFrom(v)
				}
				if first == nil {
					first = v
				}
			}
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				queue = append(queue, v[k])
			}
		}
	}
	if first == nil {
		return ldOrg{}
	}
	return orgFrom(first)
}

// cleanLD strips the HTML comment and CDATA wrappers some sites put around
// JSON-LD.
func cleanLD(b []byte) []byte {
	b = bytes.TrimSpace(b)
	for _, w := range [][2]string{{"<!--", "-->"}, {"//<![CDATA[", "//]]>"}, {"<![CDATA[", "]]>"}} {
		if bytes.HasPrefix(b, []byte(w[0])) {
			b = bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimPrefix(b, []byte(w[0])), []byte(w[1])))
		}
	}
	return b
}

func orgFrom(m map[string]any) ldOrg {
	o := ldOrg{name: collapseSpace(ldString(m["name"])), industry: collapseSpace(ldString(m["industry"]))}
	switch s := m["sameAs"].(type) {
	case string:
		o.sameAs = []string{s}
	case []any:
		for _, v := range s {
			if v, ok := v.(string); ok {
				o.sameAs = append(o.sameAs, v)
			}
		}
	}
	return o
}

// ldString returns v as text: a string, the first string of an array, or the
// @value or name of an object.
func ldString(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		for _, e := range v {
			if s := ldString(e); s != "" {
				return s
			}
		}
	case map[string]any:
		if s := ldString(v["@value"]); s != "" {
			return s
		}
		return ldString(v["name"])
	}
	return ""
}

// isOrgType reports whether a JSON-LD @type names schema.org Organization or
// one of its subtypes (Corporation, LocalBusiness and its own subtypes ...).
func isOrgType(t any) bool {
	switch t := t.(type) {
	case []any:
		for _, e := range t {
			if isOrgType(e) {
				return true
			}
		}
	case string:
		if i := strings.LastIndexAny(t, "/:#"); i >= 0 {
			t = t[i+1:] // "schema:Organization", "https://schema.org/Organization"
		}
		switch t {
		case "Organization", "Corporation", "LocalBusiness", "OnlineBusiness", "OnlineStore",
			"NGO", "Airline", "Consortium", "Cooperative", "FundingScheme", "LibrarySystem",
			"PerformingGroup", "ProfessionalService", "Project", "WorkersUnion", "Store",
			"Restaurant", "FinancialService", "LegalService", "MedicalBusiness":
			return true
		}
		return strings.HasSuffix(t, "Organization") || strings.HasSuffix(t, "Business")
	}
	return false
}

// socialKind says which Socials field a host belongs to, or "" for none.
func socialKind(host string) string {
	for _, s := range [...]struct{ domain, kind string }{
		{"linkedin.com", "linkedin"},
		{"twitter.com", "twitter"},
		{"x.com", "twitter"},
		{"instagram.com", "instagram"},
		{"facebook.com", "facebook"},
	} {
		if host == s.domain || strings.HasSuffix(host, "."+s.domain) {
			return s.kind
		}
	}
	return ""
}

// normalizeSocial returns raw as a social profile: its Socials field and the
// URL as https://host/path with no query, fragment or trailing slash. Share
// buttons, intents and bare site roots are not profiles.
func normalizeSocial(raw string) (kind, norm string) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" || u.User != nil || u.Port() != "" {
		return "", ""
	}
	if u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https" {
		return "", ""
	}
	host := strings.ToLower(u.Hostname())
	kind = socialKind(host)
	path := strings.TrimRight(u.EscapedPath(), "/")
	if kind == "" || path == "" {
		return "", ""
	}
	first, _, _ := strings.Cut(strings.ToLower(strings.TrimPrefix(path, "/")), "/")
	switch first {
	case "intent", "share", "sharer", "sharer.php", "sharearticle", "sharing", "cws",
		"dialog", "plugins", "tr", "home", "login", "signup":
		return "", ""
	}
	norm = "https://" + host + path
	if first == "profile.php" {
		if id := u.Query().Get("id"); id != "" {
			norm += "?id=" + url.QueryEscape(id)
		}
	}
	return kind, norm
}

// addSocials fills the empty fields of s from urls, first match each.
func addSocials(s *Socials, urls []string) {
	for _, raw := range urls {
		kind, norm := normalizeSocial(raw)
		var f *string
		switch kind {
		case "linkedin":
			f = &s.LinkedIn
		case "twitter":
			f = &s.Twitter
		case "instagram":
			f = &s.Instagram
		case "facebook":
			f = &s.Facebook
		default:
			continue
		}
		if *f == "" {
			*f = norm
		}
	}
}

// companyFrom builds the Company for domain from its home page p, reached at
// final (after redirects).
//
// The name is the JSON-LD Organization name, else og:site_name, else the
// title. The website is the origin actually reached, not JSON-LD url, which
// themes often ship with a placeholder. Socials come from JSON-LD sameAs
// first, then from links.
func companyFrom(domain string, final *url.URL, p page) Company {
	c := Company{Domain: domain, Industry: p.ld.industry}
	switch {
	case p.ld.name != "":
		c.Name = p.ld.name
	case p.ogSiteName != "":
		c.Name = p.ogSiteName
	default:
		c.Name = p.title
	}
	if final != nil {
		c.Website = (&url.URL{Scheme: final.Scheme, Host: final.Host}).String()
	}
	addSocials(&c.Socials, p.ld.sameAs)
	addSocials(&c.Socials, p.links)
	return c
}
