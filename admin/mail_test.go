package admin_test

import (
	"testing"

	"github.com/agencyos/workspaced/admin"
)

func TestNewSMTPMailer(t *testing.T) {
	for _, tc := range []struct {
		url, from string
		ok        bool
	}{
		{"smtp://user:pw@mail.example.com:587", "no-reply@example.com", true},
		{"smtps://mail.example.com", "no-reply@example.com", true},
		{"smtp://127.0.0.1:2525?from=a@b.test", "", true},
		{"smtp://mail.example.com:587", "", false}, // no sender anywhere
		{"smtp://mail.example.com:587?from=not%20an%20email", "", false},
		{"http://mail.example.com", "no-reply@example.com", false}, // not SMTP
		{"smtp://", "no-reply@example.com", false},                 // no host
		{"smtp://mail.example.com:port", "no-reply@example.com", false},
	} {
		_, err := admin.NewSMTPMailer(tc.url, tc.from)
		if (err == nil) != tc.ok {
			t.Errorf("NewSMTPMailer(%q, %q): %v, want ok %v", tc.url, tc.from, err, tc.ok)
		}
	}
	if got := admin.DefaultFrom("https://crm.example.com:8443"); got != "no-reply@crm.example.com" {
		t.Errorf("DefaultFrom: %q", got)
	}
}
