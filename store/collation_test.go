package store_test

import (
	"context"
	"testing"

	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// TestTextInCodePointOrder: the store reads the database's default collation at open and
// says whether it orders text by code point (workspace's prefix operator then reads a
// range of a text index). The C library's C, POSIX and C.UTF-8 do; ICU's orders are a
// language's, so a database made with the ICU provider does not, whatever its datcollate.
func TestTextInCodePointOrder(t *testing.T) {
	ctx := context.Background()
	if !storetest.New(t).TextInCodePointOrder() {
		t.Fatal("the test database (C.UTF-8) is not in code point order")
	}
	for _, c := range []struct {
		options string
		want    bool
	}{
		{"LOCALE 'POSIX'", true},
		{"LOCALE 'C'", true},
		{"LOCALE_PROVIDER icu ICU_LOCALE 'en' LOCALE 'C.UTF-8'", false},
	} {
		s, err := store.Open(ctx, storetest.EmptyDatabase(t, "TEMPLATE template0 "+c.options))
		if err != nil {
			t.Fatal(err)
		}
		got := s.TextInCodePointOrder()
		s.Close()
		if got != c.want {
			t.Errorf("a database made with %s: TextInCodePointOrder() = %v, want %v", c.options, got, c.want)
		}
	}
}
