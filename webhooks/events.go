package webhooks

import (
	"fmt"
	"slices"
	"strings"
)

// Event actions: every write leaves one of these (store/migrations/00023_webhooks.sql).
var actions = []string{"created", "updated", "detached"}

// PingType is the type of the event POST /v1/webhook_endpoints/{id}/test sends.
const PingType = "ping"

// Matches reports whether an event of type typ goes to an endpoint subscribed to patterns:
// "*" takes everything, "deals.*" every action on deals, "deals.created" exactly that. A
// ping goes only to the endpoint it was sent to, whatever its patterns.
func Matches(patterns []string, typ string) bool {
	object, _, _ := strings.Cut(typ, ".")
	for _, p := range patterns {
		if p == "*" || p == typ || p == object+".*" {
			return true
		}
	}
	return false
}

// CheckPatterns returns a problem phrase for the first pattern that names no event a
// resource of resources can emit, or "".
func CheckPatterns(patterns, resources []string) string {
	for _, p := range patterns {
		if p == "*" {
			continue
		}
		object, action, ok := strings.Cut(p, ".")
		if !ok || !slices.Contains(resources, object) || action != "*" && !slices.Contains(actions, action) {
			return fmt.Sprintf("has %q, which is not an event type: use *, <resource>.* or <resource>.<%s>",
				clip(p), strings.Join(actions, "|"))
		}
	}
	return ""
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
