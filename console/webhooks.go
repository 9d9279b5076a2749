package console

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/workspace"
)

// The webhooks page (docs/console.md, "Webhooks"): every read and write is the domain's
// own, the catalogue's operations and its record actions (workspace.Ops, workspace.Actions),
// run as the signed-in admin with via = console, so the admin rule, the URL policy, the
// event patterns and the one-time secret live there alone.

const (
	endpointsResource  = "webhook_endpoints"
	deliveriesResource = "webhook_deliveries"
)

// endpoint is a webhook_endpoints record as the page shows it, with its recent deliveries.
type endpoint struct {
	ID             string     `json:"id"`
	URL            string     `json:"url"`
	Events         []string   `json:"events"`
	Description    *string    `json:"description"`
	Enabled        bool       `json:"enabled"`
	DisabledReason *string    `json:"disabled_reason"`
	FailingSince   *time.Time `json:"failing_since"`
	Secret         *string    `json:"secret"`
	Deliveries     []delivery `json:"-"`
}

// delivery is a webhook_deliveries record.
type delivery struct {
	ID             string     `json:"id"`
	EventType      string     `json:"event_type"`
	Status         string     `json:"status"`
	Attempts       int        `json:"attempts"`
	ResponseStatus *int       `json:"response_status"`
	LatencyMS      *int       `json:"latency_ms"`
	NextAttemptAt  *time.Time `json:"next_attempt_at"`
	Error          *string    `json:"error"`
	CreatedAt      time.Time  `json:"created_at"`
}

// webhooksData is what the page shows; Secret is a secret just made, shown once.
type webhooksData struct {
	Endpoints []endpoint
	Secret    string
	Form      struct{ URL, Events, Description string } // a refused create, to fix
}

// recentDeliveries is how many deliveries the page shows per endpoint.
const recentDeliveries = 10

// hookPrincipal is the signed-in admin as the REST API's principal: the webhooks scopes (a
// session has no OAuth scopes of its own) and via = console; its credential is the session.
func hookPrincipal(me *store.OAuthMember) *auth.Principal {
	p := principalOf(me).WithVia(store.ViaConsole)
	r := workspace.Lookup(endpointsResource)
	p.Scopes = []string{r.ReadScope(), r.WriteScope()}
	return p
}

func (s *Server) webhooks(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	s.webhooksPage(w, r, me, http.StatusOK, webhooksData{}, "", "")
}

func (s *Server) webhooksPage(w http.ResponseWriter, r *http.Request, me *store.OAuthMember, status int, data webhooksData, notice, msg string) {
	p := hookPrincipal(me)
	var eps []endpoint
	if err := s.list(r.Context(), p, endpointsResource, workspace.ListParams{Limit: 200}, &eps); err != nil {
		s.serverError(w, r, err)
		return
	}
	for i := range eps {
		params := workspace.ListParams{Limit: recentDeliveries, Filters: map[string]string{"endpoint_id": eps[i].ID}}
		if err := s.list(r.Context(), p, deliveriesResource, params, &eps[i].Deliveries); err != nil {
			s.serverError(w, r, err)
			return
		}
	}
	data.Endpoints = eps
	s.render(w, r, status, "webhooks", page{Title: "Webhooks", Nav: "webhooks", Me: principalOf(me), Notice: notice, Error: msg, Data: data})
}

// list reads the first page of resource into out.
func (s *Server) list(ctx context.Context, p *auth.Principal, resource string, params workspace.ListParams, out any) error {
	pg, err := s.cfg.Records.List(ctx, p, workspace.Lookup(resource), params)
	if err != nil {
		return err
	}
	return json.Unmarshal(pg.Data, out)
}

// webhooksAnswer shows the page after an action: a new secret once, or why it was refused
// (see refused), keeping a refused create's fields.
func (s *Server) webhooksAnswer(w http.ResponseWriter, r *http.Request, me *store.OAuthMember, data webhooksData, notice string, err error) {
	if err == nil {
		s.webhooksPage(w, r, me, http.StatusOK, webhooksData{Secret: data.Secret}, notice, "")
		return
	}
	s.refused(w, r, me, err, func(status int, msg string) {
		s.webhooksPage(w, r, me, status, webhooksData{Form: data.Form}, "", msg)
	})
}

// events reads the events field: patterns separated by commas or spaces; none is the
// catalogue's default (every event).
func events(r *http.Request) []string {
	return strings.FieldsFunc(r.PostFormValue("events"), func(c rune) bool { return c == ',' || unicode.IsSpace(c) })
}

// secretOf reads the secret of an endpoint record the REST API answered.
func secretOf(rec json.RawMessage) string {
	var ep endpoint
	if json.Unmarshal(rec, &ep) != nil || ep.Secret == nil {
		return ""
	}
	return *ep.Secret
}

const secretNotice = "Copy the signing secret now: it is shown only once."

func (s *Server) webhooksCreate(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	body := map[string]any{"url": strings.TrimSpace(r.PostFormValue("url"))}
	if ev := events(r); len(ev) > 0 {
		body["events"] = ev
	}
	if d := strings.TrimSpace(r.PostFormValue("description")); d != "" {
		body["description"] = d
	}
	raw, _ := json.Marshal(body)
	var data webhooksData
	data.Form.URL, data.Form.Events, data.Form.Description = r.PostFormValue("url"), r.PostFormValue("events"), r.PostFormValue("description")
	posted, err := s.cfg.Records.Post(r.Context(), hookPrincipal(me), workspace.OpCreate, workspace.Lookup(endpointsResource), workspace.NewBody(raw), "")
	if err == nil {
		data.Secret = secretOf(posted.Data)
	}
	s.webhooksAnswer(w, r, me, data, "Endpoint created. "+secretNotice, err)
}

// webhooksUpdate changes an endpoint: enabled (enable/disable) or events and description.
func (s *Server) webhooksUpdate(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	body, notice := map[string]any{}, "Endpoint saved."
	switch on := r.PostFormValue("enabled"); on {
	case "true", "false":
		body["enabled"] = on == "true"
		notice = map[string]string{"true": "Endpoint enabled.", "false": "Endpoint disabled: nothing is sent to it."}[on]
	default:
		body["events"] = events(r)
		body["description"] = strings.TrimSpace(r.PostFormValue("description"))
	}
	raw, _ := json.Marshal(body)
	_, err := s.cfg.Records.Update(r.Context(), hookPrincipal(me), workspace.Lookup(endpointsResource), strings.TrimSpace(r.PostFormValue("id")), raw)
	s.webhooksAnswer(w, r, me, webhooksData{}, notice, err)
}

// webhookAction serves a form that runs a webhook action on the posted id.
func (s *Server) webhookAction(act *workspace.Action, notice string) func(http.ResponseWriter, *http.Request, *store.OAuthMember) {
	return func(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
		rec, err := s.cfg.Records.Act(r.Context(), hookPrincipal(me), act, strings.TrimSpace(r.PostFormValue("id")))
		s.webhooksAnswer(w, r, me, webhooksData{Secret: secretOf(rec)}, notice, err)
	}
}
