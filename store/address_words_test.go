package store_test

import (
	"context"
	"testing"

	"github.com/agencyos/workspaced/store/storetest"
)

// TestAddressWords: ws_address_words lists the words a search document adds for the
// addresses in its text (store/migrations/00062_search_address_hosts.sql): each email's
// local part split, each host's labels, each host whole and its shorter suffixes, in that
// order (the document's positions follow it). The stored documents were computed with the
// function as it was when written, so its output must not change: these are the words of
// the SQL version of 00062, which 00066 replaced with PL/pgSQL.
func TestAddressWords(t *testing.T) {
	storetest.New(t)
	pool := storetest.Pool(t)
	for in, want := range map[string]string{
		"ada@acme.example": "ada acme example acme.example",
		"Ada Lovelace Analytical ada.lovelace+crm@mail.acme-corp.example Engineer": "ada lovelace crm ada lovelace mail acme corp example ada.lovelace mail.acme-corp.example acme-corp.example",
		"see https://www.Acme.co.uk/path?x#y":                                      "acme co uk acme.co.uk co.uk",
		"no address here":                                                          "",
		"":                                                                         "",
		"x@y":                                                                      "",
		"HTTP://EXAMPLE.COM:8080/":                                                 "example com example.com",
		"user@www.example.com.":                                                    "user example com example.com",
		"1.2.3.4":                                                                  "",
		"foo@bar.com foo@bar.com":                                                  "foo foo bar com bar com bar.com bar.com",
		"https://user:pw@host.example.org:99/p":                                    "pw host example org host.example.org example.org",
		"a-.b-.cc":                                                                 "a b cc a-.b-.cc b-.cc",
		".com":                                                                     "",
		"acme.example and bob_smith%x@e-f.gh.ij":                                   "bob smith x acme example e f gh ij acme.example e-f.gh.ij gh.ij",
		// A scheme in any case, or after other letters, is no part of the host (the
		// patterns match hosts without schemes since 00074_created_row_costs.sql).
		"xhttps://q.rs":     "q rs q.rs",
		"HtTp://WWW.Z.yy/x": "z yy z.yy",
		"https://https.io":  "https io https.io",
		"http.example":      "http example http.example",
		"mail me at john_doe%x@sub.dom-ain.org, site HTTPS://Sub.Example.COM:8080/path": "john doe x sub dom ain org sub example com sub.dom-ain.org dom-ain.org sub.example.com example.com",
	} {
		var got string
		if err := pool.QueryRow(context.Background(), `SELECT ws_address_words($1)`, in).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("ws_address_words(%q) = %q, want %q", in, got, want)
		}
	}
	var null string
	if err := pool.QueryRow(context.Background(), `SELECT ws_address_words(NULL)`).Scan(&null); err != nil || null != "" {
		t.Errorf("ws_address_words(NULL) = %q, %v; want \"\"", null, err)
	}
}
