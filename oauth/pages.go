package oauth

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"html/template"
	"net/http"
	"strings"

	"github.com/agencyos/workspaced/console/nav"
	"github.com/agencyos/workspaced/oauth/permissions"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static/style.css
var styleCSS []byte

// pages are the HTML pages; html/template escapes every value (client_name and logo_uri
// come from whoever registered the client).
type pages struct {
	t map[string]*template.Template
}

func newPages() (*pages, error) {
	p := &pages{t: map[string]*template.Template{}}
	for _, name := range []string{"error", "login", "consent", "apps", "admin_apps"} {
		t, err := template.ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err == nil {
			t, err = t.Parse(permissions.Template)
		}
		if err == nil && name == "admin_apps" {
			t, err = t.Parse(nav.Template) // the console's navigation: this page is one of its Apps
		}
		if err != nil {
			return nil, err
		}
		p.t[name] = t
	}
	return p, nil
}

// render writes a page under a strict Content-Security-Policy: no script at all, styles
// from our one stylesheet, images over https (client logos), and forms posting only to us
// and, where a form's answer redirects to a client, that client's redirect origin (CSP 3
// form-action also governs the redirects that follow a submission).
func (s *Server) render(w http.ResponseWriter, status int, name string, data any, formTargets ...string) {
	var buf bytes.Buffer
	if err := s.pages.t[name].ExecuteTemplate(&buf, "layout", data); err != nil {
		s.log.Error("oauth: render", "page", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	formAction := "'self'"
	for _, t := range formTargets {
		if t != "" && !strings.ContainsAny(t, " ;,'\"\r\n") {
			formAction += " " + t
		}
	}
	pageHeaders(w.Header(), formAction)
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// pageHeaders sets the headers every HTML page carries, the console's included.
func pageHeaders(h http.Header, formAction string) {
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src https: data:; form-action "+
		formAction+"; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
}

// errorPage is shown instead of redirecting when the client or its redirect_uri cannot be
// trusted (RFC 6749 4.1.2.1: the server MUST NOT automatically redirect the user-agent to
// an invalid redirection URI).
func (s *Server) errorPage(w http.ResponseWriter, status int, title, message, hint string) {
	s.render(w, status, "error", map[string]string{"Title": title, "Message": message, "Hint": hint})
}

// errorLinkPage is an error page whose link leads on to the client's redirect URI with the
// error response, for a member who wants the application to know (RFC 9700 4.11.2). The
// URI was registered and checked (no script or data schemes), so it may be a link target
// even with a private-use scheme, which html/template would otherwise blank out.
func (s *Server) errorLinkPage(w http.ResponseWriter, status int, title, message, link, host string) {
	s.render(w, status, "error", map[string]any{"Title": title, "Message": message,
		"Hint": "If you started this yourself, you can tell the application:", "Link": template.URL(link), "LinkHost": host})
}

func serveCSS(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/css; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(styleCSS)
}

// Cookies --------------------------------------------------------------------------------

// cookieName uses the __Host- prefix when cookies are Secure, so a sibling subdomain can
// neither set nor shadow them.
func (s *Server) cookieName(base string) string {
	if s.secure {
		return "__Host-" + base
	}
	return base
}

func (s *Server) setCookie(w http.ResponseWriter, base, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: s.cookieName(base), Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode})
}

func (s *Server) cookie(r *http.Request, base string) string {
	c, err := r.Cookie(s.cookieName(base))
	if err != nil {
		return ""
	}
	return c.Value
}

// csrfToken returns the token every form carries: an HMAC, under the service's key, of a
// random per-browser cookie (set here when absent). A cross-site page can neither read the
// cookie nor compute the token.
func (s *Server) csrfToken(w http.ResponseWriter, r *http.Request) string {
	bid := s.cookie(r, "ws_bid")
	if len(bid) < 20 {
		var b [24]byte
		_, _ = rand.Read(b[:])
		bid = base64.RawURLEncoding.EncodeToString(b[:])
		s.setCookie(w, "ws_bid", bid, 0)
		// Later reads in this request see the new value.
		r.AddCookie(&http.Cookie{Name: s.cookieName("ws_bid"), Value: bid})
	}
	return s.csrfFor(bid)
}

func (s *Server) csrfFor(bid string) string {
	m := hmac.New(sha256.New, s.csrfKey)
	m.Write([]byte("csrf|" + bid))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// csrfValid reports whether a posted form carries the token of this browser.
func (s *Server) csrfValid(r *http.Request) bool {
	bid := s.cookie(r, "ws_bid")
	got := r.PostFormValue("csrf")
	return bid != "" && got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(s.csrfFor(bid))) == 1
}
