package oauth

import (
	"strings"
	"testing"
)

// TestMetadataDocumentFollowsRegistrationRules: a Client ID Metadata Document is held to
// the rules a registration is (one validator, metadata.go), differing only where
// metadataRules says: a logo or home page a registration would refuse (not https, user
// information, over 2000 characters) is dropped from a document, and a blank name falls
// back to the document's URL.
func TestMetadataDocumentFollowsRegistrationRules(t *testing.T) {
	const self = "https://assistant.example/client.json"
	doc := func(name, logo, home string) *cimdDocument {
		return &cimdDocument{ClientID: self, ClientName: name, RedirectURIs: []string{"http://127.0.0.1/callback"},
			TokenEndpointAuthMethod: "none", LogoURI: logo, ClientURI: home}
	}
	for _, bad := range []string{"http://assistant.example/logo.png", "https://user:secret@assistant.example/logo.png",
		"https://assistant.example/" + strings.Repeat("a", 2000)} {
		c, err := validateDocument(self, doc("Desktop Assistant", bad, bad))
		if err != nil {
			t.Fatalf("%.60s: %v", bad, err)
		}
		if c.LogoURI != "" || c.ClientURI != "" {
			t.Fatalf("kept %.60q and %.60q; a registration refuses them", c.LogoURI, c.ClientURI)
		}
	}
	c, err := validateDocument(self, doc("   ", "https://assistant.example/logo.png", ""))
	if err != nil || c.Name != self || c.LogoURI != "https://assistant.example/logo.png" {
		t.Fatalf("blank name: %+v, %v", c, err)
	}
}
