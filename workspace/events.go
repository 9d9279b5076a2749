package workspace

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Event actions: a create, an update and a detach made through the API leave an event of
// type <resource>.<action> (ws_record_event, store/migrations/00034_webhook_outbox.sql). It
// goes to the endpoints whose events take it, as the trigger matches them at the write: "*"
// takes everything, "deals.*" every action on deals, "deals.created" exactly that. A ping
// goes only to the endpoint it was sent to, whatever its events.
const (
	EventCreated  = "created"
	EventUpdated  = "updated"
	EventDetached = "detached"
	// EventMerged is the event of a merge (people, companies), sent for the merged record
	// when it is marked merged_into_id (store/migrations/00055_merge_records.sql).
	EventMerged = "merged"
)

var eventActions = []string{EventCreated, EventUpdated, EventDetached, EventMerged}

// EventPing is the type of the event the webhook endpoints' test action sends.
const EventPing = "ping"

// RotationOverlap is how long the previous signing secret still signs after a rotation.
const RotationOverlap = 24 * time.Hour

// SigningSecretPrefix marks a signing secret, as the Standard Webhooks libraries expect.
const SigningSecretPrefix = "whsec_"

// NewSigningSecret makes a webhook endpoint's signing secret: whsec_ and 32 random bytes
// in base64.
func NewSigningSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return SigningSecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// takes says what an endpoint's events may hold, for CheckEventPatterns' problems.
const takes = "use *, <resource>.*, <resource>.created, <resource>.updated, for a join resource <resource>.detached or, for people and companies, <resource>.merged"

// CheckEventPatterns returns a problem phrase for patterns as an endpoint's events, or "": they
// name at least one event type, and each is *, or <resource>.* or <resource>.<action> of a
// resource of sends, which maps each resource whose writes leave events to their actions.
func CheckEventPatterns(patterns []string, sends map[string][]string) string {
	if len(patterns) == 0 {
		return "must name at least one event type: " + takes
	}
	for _, p := range patterns {
		if p == "*" {
			continue
		}
		object, action, ok := strings.Cut(p, ".")
		switch sent := sends[object]; {
		case !ok || action != "*" && !slices.Contains(eventActions, action):
			return fmt.Sprintf("has %q, which is not an event type: %s", clip(p), takes)
		case len(sent) == 0:
			return fmt.Sprintf("has %q, but no write of %s sends an event: %s", clip(p), clip(object), takes)
		case action != "*" && !slices.Contains(sent, action):
			types := make([]string, len(sent))
			for i, a := range sent {
				types[i] = object + "." + a
			}
			return fmt.Sprintf("has %q, but %s sends only %s", clip(p), object, strings.Join(types, " and "))
		}
	}
	return ""
}
