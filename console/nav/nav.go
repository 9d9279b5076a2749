// Package nav is the console's navigation, written once: its sections as data (Sections)
// and one template that renders them (Template). The console's layout
// (console/templates/layout.html) and the OAuth provider's registered-apps page
// (oauth/templates/admin_apps.html), which the console's Apps page links to, both render
// it, so the two cannot list different pages. It imports nothing of the service.
package nav

import _ "embed"

// Link is one entry of the navigation.
type Link struct {
	Section   string // the page's section, which Bar marks as the current page
	Label     string
	Href      string
	AdminOnly bool // shown to the workspace's admins only
	Current   bool // set by For: the page shown is of this section (aria-current)
}

// Sections returns the console's sections in the order the navigation shows them.
func Sections() []Link {
	return []Link{
		{Section: "home", Label: "Overview", Href: "/console"},
		{Section: "members", Label: "Members", Href: "/console/members", AdminOnly: true},
		{Section: "agents", Label: "Agents", Href: "/console/agents", AdminOnly: true},
		{Section: "apps", Label: "Apps", Href: "/console/apps", AdminOnly: true},
		{Section: "webhooks", Label: "Webhooks", Href: "/console/webhooks", AdminOnly: true},
		{Section: "fields", Label: "Fields", Href: "/console/fields", AdminOnly: true},
		{Section: "credits", Label: "Credits", Href: "/console/credits", AdminOnly: true},
		{Section: "activity", Label: "Audit log", Href: "/console/activity", AdminOnly: true},
		{Section: "import", Label: "Import", Href: "/console/import"},
		{Section: "connect", Label: "Connect an assistant", Href: "/console/connect"},
		{Section: "account", Label: "Your account", Href: "/console/account"},
	}
}

// Bar is what the template "consolebar" renders: the header of a console page.
type Bar struct {
	Service string // SERVICE_NAME, the brand that leads to the console
	CSRF    string // the sign-out form's token
	Links   []Link // none when no one is signed in: then neither navigation nor sign-out
}

// For returns the bar of a page of section current for a signed-in member; admin reports
// whether the member is an admin, who sees the admin-only sections too.
func For(service, csrf, current string, admin bool) Bar {
	b := Bar{Service: service, CSRF: csrf}
	for _, l := range Sections() {
		if l.AdminOnly && !admin {
			continue
		}
		l.Current = l.Section == current
		b.Links = append(b.Links, l)
	}
	return b
}

// Template defines the template "consolebar", whose dot is a Bar. Its classes are in
// console/static/console.css, which both pages load.
//
//go:embed nav.html
var Template string
