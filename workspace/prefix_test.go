package workspace

import "testing"

// TestPrefixEnd: the end of a prefix's range in code point order, written out by hand.
func TestPrefixEnd(t *testing.T) {
	for p, want := range map[string]string{
		"Acme":                   "Acmf",
		"Alpha_":                 "Alpha`",
		"Cr\u00e8":               "Cr\u00e9",
		"Q\ud7ff":                "Q\ue000", // past the surrogates
		"Z\U0010ffff":            "[",       // no character follows U+10FFFF
		"Za\U0010ffff\U0010ffff": "Zb",
		"\u007f":                 "\u0080",
		"\uffff":                 "\U00010000",
	} {
		if got, ok := prefixEnd(p); !ok || got != want {
			t.Errorf("prefixEnd(%+q) = %+q, %v; want %+q", p, got, ok, want)
		}
	}
	for _, p := range []string{"", "\U0010ffff", "\U0010ffff\U0010ffff"} {
		if got, ok := prefixEnd(p); ok {
			t.Errorf("prefixEnd(%+q) = %+q, want no end", p, got)
		}
	}
}
