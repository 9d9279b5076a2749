package console

import (
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/workspace"
)

// The fields page (docs/console.md, "Fields"): the workspace's custom fields, by resource.
// Every read and write is the REST API's own operation on the catalogue resource
// custom_fields (workspace.Ops), run as the signed-in admin with via = console, so the
// admin rule, the key and type rules, options and conversions live there alone.

const fieldsResource = "custom_fields"

// newOptionRows is how many empty option rows the add and edit forms offer.
const newOptionRows = 3

// maxOptionRows bounds the option rows a posted form is read for.
const maxOptionRows = 200

// customField is a custom_fields record as the page shows it.
type customField struct {
	ID                string                   `json:"id"`
	Resource          string                   `json:"resource"`
	Key               string                   `json:"key"`
	Label             string                   `json:"label"`
	Type              string                   `json:"type"`
	Options           []workspace.CustomOption `json:"options"`
	ReferenceResource *string                  `json:"reference_resource"`
	Required          bool                     `json:"required"`
	Unique            bool                     `json:"unique"`
	Searchable        bool                     `json:"searchable"`
	Description       *string                  `json:"description"`
	Archived          bool                     `json:"archived"`
	Position          *int                     `json:"position"`
	Ready             bool                     `json:"ready"`
}

// Choices reports whether the field takes options.
func (f customField) Choices() bool { return f.Type == "select" || f.Type == "multi_select" }

// OptionRows are the field's options in order, then newOptionRows empty ones.
func (f customField) OptionRows() []workspace.CustomOption {
	rows := slices.Clone(f.Options)
	slices.SortStableFunc(rows, func(a, b workspace.CustomOption) int { return cmp.Compare(a.Order, b.Order) })
	for range newOptionRows {
		rows = append(rows, workspace.CustomOption{Order: len(rows) + 1})
	}
	return rows
}

// fieldsData is what the page shows.
type fieldsData struct {
	Resource   string   // the resource listed
	Resources  []string // the resources that take custom fields
	Types      []string
	Fields     []customField
	Form       customField              // a refused add, to fix
	NewOptions []workspace.CustomOption // the add form's option rows
}

// fieldsPrincipal is the signed-in admin as the REST API's principal: the scopes the
// definitions' resource and the resources they describe need (a session has no OAuth
// scopes of its own) and via = console; its credential is the session.
func fieldsPrincipal(me *store.OAuthMember) *auth.Principal {
	p := principalOf(me).WithVia(store.ViaConsole)
	scopes := map[string]bool{}
	for _, name := range append(workspace.CustomResources(), fieldsResource) {
		r := workspace.Lookup(name)
		scopes[r.ReadScope()], scopes[r.WriteScope()] = true, true
	}
	for sc := range scopes {
		p.Scopes = append(p.Scopes, sc)
	}
	slices.Sort(p.Scopes)
	return p
}

// fieldsResourceOf is the resource a request names (resource=), deals by default; one
// that takes no custom fields is a 404.
func fieldsResourceOf(r *http.Request) (string, bool) {
	res := r.FormValue("resource")
	if res == "" {
		return workspace.CustomResources()[0], true
	}
	return res, slices.Contains(workspace.CustomResources(), res)
}

func (s *Server) fields(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	res, ok := fieldsResourceOf(r)
	if !ok {
		s.errorPage(w, r, me, http.StatusNotFound, "Not found", "Custom fields are kept for "+strings.Join(workspace.CustomResources(), ", ")+".")
		return
	}
	s.fieldsPage(w, r, me, http.StatusOK, res, customField{}, "", "")
}

func (s *Server) fieldsPage(w http.ResponseWriter, r *http.Request, me *store.OAuthMember, status int, res string, form customField, notice, msg string) {
	var fs []customField
	params := workspace.ListParams{Limit: workspace.MaxLimit, Filters: map[string]string{"resource": res}}
	if err := s.list(r.Context(), fieldsPrincipal(me), fieldsResource, params, &fs); err != nil {
		s.fail(w, r, me, err)
		return
	}
	slices.SortStableFunc(fs, func(a, b customField) int {
		return cmp.Or(cmp.Compare(archivedRank(a), archivedRank(b)), cmp.Compare(pos(a), pos(b)), cmp.Compare(a.Key, b.Key))
	})
	if form.Type == "" {
		form.Type = "text"
	}
	data := fieldsData{Resource: res, Resources: workspace.CustomResources(), Types: workspace.Lookup(fieldsResource).Field("type").Enum,
		Fields: fs, Form: form, NewOptions: customField{Options: form.Options}.OptionRows()}
	s.render(w, r, status, "fields", page{Title: "Fields", Nav: "fields", Me: principalOf(me), Notice: notice, Error: msg, Data: data})
}

// archivedRank sorts archived fields after the others.
func archivedRank(f customField) int {
	if f.Archived {
		return 1
	}
	return 0
}

func pos(f customField) int {
	if f.Position == nil {
		return 0
	}
	return *f.Position
}

// fieldsAnswer shows the resource's page after a write: the notice, or why the operation
// refused it (see refused), keeping a refused add's fields.
func (s *Server) fieldsAnswer(w http.ResponseWriter, r *http.Request, me *store.OAuthMember, res string, form customField, notice string, err error) {
	if err == nil {
		s.fieldsPage(w, r, me, http.StatusOK, res, customField{}, notice, "")
		return
	}
	s.refused(w, r, me, err, func(status int, msg string) {
		s.fieldsPage(w, r, me, status, res, form, "", msg)
	})
}

// postedOptions reads the option rows of a form (opt-key-N, opt-label-N, opt-order-N,
// opt-archived-N): rows without a key are empty and skipped; orders not given follow the
// rows' order.
func postedOptions(r *http.Request) []workspace.CustomOption {
	var out []workspace.CustomOption
	for i := range maxOptionRows {
		n := strconv.Itoa(i)
		if _, ok := r.PostForm["opt-key-"+n]; !ok {
			break
		}
		key := strings.TrimSpace(r.PostFormValue("opt-key-" + n))
		if key == "" {
			continue
		}
		o := workspace.CustomOption{Key: key, Label: strings.TrimSpace(r.PostFormValue("opt-label-" + n)),
			Archived: r.PostFormValue("opt-archived-"+n) == "true"}
		if o.Label == "" {
			o.Label = key
		}
		o.Order = len(out) + 1
		if v, err := strconv.Atoi(strings.TrimSpace(r.PostFormValue("opt-order-" + n))); err == nil {
			o.Order = v
		}
		out = append(out, o)
	}
	slices.SortStableFunc(out, func(a, b workspace.CustomOption) int { return cmp.Compare(a.Order, b.Order) })
	for i := range out { // 1, 2, 3 ... in the order chosen
		out[i].Order = i + 1
	}
	return out
}

func checked(r *http.Request, name string) bool { return r.PostFormValue(name) == "true" }

func (s *Server) fieldsCreate(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	res := r.PostFormValue("resource")
	form := customField{Resource: res, Key: strings.TrimSpace(r.PostFormValue("key")), Label: strings.TrimSpace(r.PostFormValue("label")),
		Type: r.PostFormValue("type"), Required: checked(r, "required"), Unique: checked(r, "unique"), Searchable: checked(r, "searchable")}
	body := map[string]any{"resource": res, "key": form.Key, "label": form.Label, "type": form.Type,
		"required": form.Required, "unique": form.Unique, "searchable": form.Searchable}
	if d := strings.TrimSpace(r.PostFormValue("description")); d != "" {
		form.Description, body["description"] = &d, d
	}
	if form.Choices() {
		form.Options = postedOptions(r)
		body["options"] = form.Options
	}
	if form.Type == "reference" {
		ref := r.PostFormValue("reference_resource")
		form.ReferenceResource, body["reference_resource"] = &ref, ref
	}
	if !slices.Contains(workspace.CustomResources(), res) {
		s.errorPage(w, r, me, http.StatusNotFound, "Not found", "Custom fields are kept for "+strings.Join(workspace.CustomResources(), ", ")+".")
		return
	}
	raw, _ := json.Marshal(body)
	_, err := s.cfg.Records.Post(r.Context(), fieldsPrincipal(me), workspace.OpCreate, workspace.Lookup(fieldsResource), workspace.NewBody(raw), "")
	s.fieldsAnswer(w, r, me, res, form, "Field "+form.Key+" added.", err)
}

// fieldsUpdate saves a field: archived (archive/unarchive) alone, or its label,
// description, flags and, for selects, options.
func (s *Server) fieldsUpdate(w http.ResponseWriter, r *http.Request, me *store.OAuthMember) {
	res, _ := fieldsResourceOf(r)
	body, notice := map[string]any{}, "Field saved."
	switch a := r.PostFormValue("archived"); a {
	case "true", "false":
		body["archived"] = a == "true"
		notice = map[string]string{"true": "Field archived: hidden from records and schemas, its values kept.",
			"false": "Field restored, with its values."}[a]
	default:
		body["label"] = strings.TrimSpace(r.PostFormValue("label"))
		body["description"] = nil
		if d := strings.TrimSpace(r.PostFormValue("description")); d != "" {
			body["description"] = d
		}
		body["required"], body["unique"], body["searchable"] = checked(r, "required"), checked(r, "unique"), checked(r, "searchable")
		if r.PostFormValue("choices") == "true" {
			body["options"] = postedOptions(r)
		}
	}
	raw, _ := json.Marshal(body)
	_, err := s.cfg.Records.Update(r.Context(), fieldsPrincipal(me), workspace.Lookup(fieldsResource), strings.TrimSpace(r.PostFormValue("id")), raw)
	s.fieldsAnswer(w, r, me, res, customField{}, notice, err)
}
