// Package permissions words OAuth scopes in plain words, grouped by family, as the consent
// page asks for them ("CRM: Read and change deals; read people", then "See deals and crm
// files deals:read" per scope). The consent page, the provider's Connected apps page and the
// console's account and apps pages all show scopes through it, so they cannot disagree.
// It imports nothing of the service: the families and the resources each scope reaches come
// from a Describe function (cmd passes workspace.DescribeScope).
package permissions

import (
	_ "embed"
	"slices"
	"strings"
)

// Describe says what a scope reaches: its family ("CRM") and the resources its action
// covers (deals, crm files). nil makes each scope's name its own family.
type Describe func(scope string) (family string, covers []string)

// Item is one scope: a checkbox of the consent page, or one line of a family.
type Item struct {
	Scope, ID, Label string
	Checked          bool
}

// Family is one group: the family's name ("CRM"), one sentence that sums up what is asked
// of it ("Read and change deals, people and companies"), and its scopes.
type Family struct {
	Name, ID, Summary string
	Scopes            []Item
}

// EnrichScope spends workspace credits, which its line says.
const EnrichScope = "enrich:write"

// Template defines the template "permissions": the families of a list (the dot is a
// []Family), for pages that show what was granted (not the consent page, whose lines are
// checkboxes). Its classes are in oauth/static/style.css, which the console loads too.
//
//go:embed permissions.html
var Template string

// Label returns a scope's family and the words of its line.
func Label(describe Describe, scope string) (family, label string) {
	if scope == EnrichScope {
		return "Company lookups", "Look up company details (spends workspace credits)"
	}
	if describe == nil {
		describe = byName
	}
	family, covers := describe(scope)
	if strings.HasSuffix(scope, ":read") {
		return family, "See " + joinWords(covers)
	}
	return family, "Create and change " + joinWords(covers)
}

// Group groups scopes by family, in the order given; checked (nil: none) says which start
// ticked on the consent page.
func Group(describe Describe, scopes []string, checked func(string) bool) []Family {
	var out []Family
	for _, sc := range scopes {
		family, label := Label(describe, sc)
		i := slices.IndexFunc(out, func(f Family) bool { return f.Name == family })
		if i < 0 {
			i = len(out)
			out = append(out, Family{Name: family, ID: htmlID(family)})
		}
		out[i].Scopes = append(out[i].Scopes, Item{Scope: sc, ID: htmlID(sc), Label: label, Checked: checked != nil && checked(sc)})
	}
	for i := range out {
		out[i].Summary = summary(out[i].Scopes)
	}
	return out
}

// byName is the Describe of nil: a scope's name is its family and all it covers.
func byName(scope string) (string, []string) {
	name, _, _ := strings.Cut(scope, ":")
	return name, []string{name}
}

// summary sums up a family's scopes in one sentence: the resources it may read and
// change, then those it may only read, then those it may only change. Company lookups
// need none: their one line says it all.
func summary(items []Item) string {
	if len(items) == 1 && items[0].Scope == EnrichScope {
		return ""
	}
	var names []string
	actions := map[string][]string{}
	for _, it := range items {
		name, action, _ := strings.Cut(it.Scope, ":")
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
		actions[name] = append(actions[name], action)
	}
	var both, read, change []string
	for _, n := range names {
		words := strings.ReplaceAll(n, "_", " ")
		switch a := actions[n]; {
		case slices.Contains(a, "read") && slices.Contains(a, "write"):
			both = append(both, words)
		case slices.Contains(a, "read"):
			read = append(read, words)
		default:
			change = append(change, words)
		}
	}
	var parts []string
	for _, p := range []struct {
		verb  string
		names []string
	}{{"read and change", both}, {"read", read}, {"change", change}} {
		if len(p.names) > 0 {
			parts = append(parts, p.verb+" "+joinWords(p.names))
		}
	}
	out := strings.Join(parts, "; ")
	return strings.ToUpper(out[:1]) + out[1:]
}

// joinWords joins words as a sentence lists them: "a", "a and b", "a, b and c".
func joinWords(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// htmlID turns a scope or family name into an element id: "deals:write" -> "deals-write",
// "Company lookups" -> "company-lookups".
func htmlID(s string) string {
	return strings.NewReplacer(":", "-", " ", "-").Replace(strings.ToLower(s))
}
