package jsonscan_test

import (
	"fmt"
	"testing"

	"github.com/agencyos/workspaced/internal/jsonscan"
)

// TestObject: an object's members come out in order as slices of it, keys unescaped;
// malformed objects are refused (not an object, or Bad after the members before the
// fault).
func TestObject(t *testing.T) {
	for _, c := range []struct {
		obj     string
		members string // key=value pairs as fmt prints them
		ok      bool
	}{
		{`{}`, `[]`, true},
		{` { } `, `[]`, true},
		{`{"a":1}`, `[a=1]`, true},
		{`{"a": "x", "b" : [1, {"c": null}], "d\"e": {"f": "}"}}`, `[a="x" b=[1, {"c": null}] d"e={"f": "}"}]`, true},
		{`{"": true}`, `[=true]`, true},
		{`{"a":1,"a":2}`, `[a=1 a=2]`, true},
		{`{"a":1,}`, `[a=1]`, false},
		{`{"a":1`, `[a=1]`, false},
		{`{"a":1 "b":2}`, `[a=1]`, false},
		{`{,}`, `[]`, false},
		{`{"a"}`, `[]`, false},
		{`{"a":}`, `[]`, false},
		{`{"a":"x}`, `[]`, false},
		{`[]`, `[]`, false},
		{``, `[]`, false},
	} {
		m, ok := jsonscan.Object([]byte(c.obj))
		var got []string
		for k, v := m.Next(); ok && k != nil; k, v = m.Next() {
			got = append(got, string(k)+"="+string(v))
		}
		if ok = ok && !m.Bad(); ok != c.ok || fmt.Sprint(got) != c.members && !(len(got) == 0 && c.members == "[]") {
			t.Errorf("%s: %v %v, want %s %v", c.obj, got, ok, c.members, c.ok)
		}
	}
}

// TestValueEnd: where each kind of value ends, and -1 where none does.
func TestValueEnd(t *testing.T) {
	for _, c := range []struct {
		b    string
		i    int
		want int
	}{
		{`"a\"b" x`, 0, 6},
		{`[1,[2],"]"] x`, 0, 11},
		{`{"a":{"b":"}"}},`, 0, 15},
		{`12.5e3,`, 0, 6},
		{`true}`, 0, 4},
		{`x null`, 2, 6},
		{`"open`, 0, -1},
		{`[1,2`, 0, -1},
		{`,`, 0, -1},
		{``, 0, -1},
	} {
		if got := jsonscan.ValueEnd([]byte(c.b), c.i); got != c.want {
			t.Errorf("ValueEnd(%q, %d) = %d, want %d", c.b, c.i, got, c.want)
		}
	}
}

// TestUnquote: a JSON string's text, escapes decoded; anything else refused.
func TestUnquote(t *testing.T) {
	for _, c := range []struct {
		v, want string
		ok      bool
	}{
		{`"plain"`, "plain", true},
		{`"a\"b\u00e9"`, `a"bé`, true},
		{`""`, "", true},
		{`plain`, "", false},
		{`"`, "", false},
		{`"bad \x"`, "", false},
	} {
		if got, ok := jsonscan.Unquote([]byte(c.v)); got != c.want || ok != c.ok {
			t.Errorf("Unquote(%s) = %q %v, want %q %v", c.v, got, ok, c.want, c.ok)
		}
	}
}
