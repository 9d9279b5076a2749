// Package admin holds the workspace administration operations (docs/console.md): listing
// and inviting members, changing their role, grants and status, and the links that let a
// member set a password. The console's pages and the `workspaced admin` CLI both call
// these, so the two never disagree on a rule.
//
// Every operation that names a record also names the workspace it must belong to; a record
// of another workspace is not_found, exactly as a missing one (the console's admins can
// edit ids in forms). The CLI, which runs with the database's own credentials, passes ""
// where it acts across workspaces.
package admin

import (
	"context"
	"fmt"
	"log/slog"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/store"
)

// Link lifetimes (docs/console.md).
const (
	InviteTTL = 7 * 24 * time.Hour
	ResetTTL  = time.Hour
)

// Link purposes, as member_links.purpose stores them.
const (
	PurposeInvite = "invite"
	PurposeReset  = "reset"
)

// linkPrefix marks the secret of an invitation or reset link, so it is recognised (and
// checksummed, store.WellFormed) before any lookup.
const linkPrefix = "wsl_"

// Store is what the operations need from the database; *store.Store implements it.
type Store interface {
	AgentStore
	ActivityStore
	AppStore
	CreditsStore
	// WorkspaceMembers lists a workspace's human members, oldest first.
	WorkspaceMembers(ctx context.Context, workspaceID string) ([]store.MemberRow, error)
	// AddMember creates a user; a duplicate email is a 4xx apierr.Error.
	AddMember(ctx context.Context, m store.Member) (string, error)
	// SetMember changes a user (confined to m.WorkspaceID when set); not_found when the
	// workspace has no such user.
	SetMember(ctx context.Context, userID string, m store.Member) error
	// CreateMemberLink stores a link for a human member of the workspace; not_found when
	// it has no such member.
	CreateMemberLink(ctx context.Context, workspaceID string, l store.MemberLink) error
	// PeekMemberLink returns the member of a live unused link, or nil.
	PeekMemberLink(ctx context.Context, hash []byte, purpose string, now time.Time) (*store.OAuthMember, error)
	// OAuthMemberByEmail returns the user with email (case-insensitive), or nil: the
	// address's account when it has one, else an invitation.
	OAuthMemberByEmail(ctx context.Context, email string) (*store.OAuthMember, error)
	// WorkspaceName returns a workspace's name.
	WorkspaceName(ctx context.Context, id string) (string, error)
	// RedeemMemberLink uses a live link once and sets the password; nil when it cannot,
	// a 403 apierr.Error when the address of an invitation has an account elsewhere.
	RedeemMemberLink(ctx context.Context, hash []byte, purpose, passwordHash string, now time.Time) (*store.OAuthMember, error)
}

// Config is what the operations need; cmd builds it.
type Config struct {
	Store Store
	// PublicURL is the origin links point at (PUBLIC_URL).
	PublicURL string
	// ServiceName names the service in emails (SERVICE_NAME).
	ServiceName string
	// HashPassword hashes a new password (oauth.HashPassword); its error is shown to the
	// person choosing the password.
	HashPassword func(string) (string, error)
	// Mailer sends invitations and reset links; nil when SMTP_URL is not set, and links
	// are then only shown to the admin who made them.
	Mailer Mailer
	// Now is the clock; nil means time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}

// Ops are the administration operations.
type Ops struct {
	cfg     Config
	sending sync.WaitGroup // reset emails on their way (RequestReset)
}

// SendTimeout bounds one email's delivery to the mail server, the connection included.
const SendTimeout = 30 * time.Second

// New returns the operations over cfg.
func New(cfg Config) *Ops {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.ServiceName == "" {
		cfg.ServiceName = "workspaced"
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	return &Ops{cfg: cfg}
}

// CanEmail reports whether links are sent by email (SMTP_URL is set).
func (o *Ops) CanEmail() bool { return o.cfg.Mailer != nil }

// Members lists a workspace's human members.
func (o *Ops) Members(ctx context.Context, workspaceID string) ([]store.MemberRow, error) {
	return o.cfg.Store.WorkspaceMembers(ctx, workspaceID)
}

// CheckMember checks a role and a status ("" means unchanged). It returns a 400
// apierr.Error naming the allowed values.
func CheckMember(role, status string) error {
	if role != "" && !slices.Contains(store.Roles(), role) {
		return apierr.BadRequest("role must be %s", strings.Join(store.Roles(), " or "))
	}
	if status != "" && status != "active" && status != "invited" && status != "suspended" {
		return apierr.BadRequest("status must be active, invited or suspended")
	}
	return nil
}

// checkGrants checks feature=level pairs, returning a 400 apierr.Error.
func checkGrants(g map[string]string) error {
	for f, l := range g {
		if _, _, err := store.ParseGrant(f + "=" + l); err != nil {
			return apierr.BadRequest("%v", err)
		}
	}
	return nil
}

// checkEmail returns the address of a single plain email, or a 400 apierr.Error.
func checkEmail(email string) (string, error) {
	email = strings.TrimSpace(email)
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || len(email) > 254 || strings.ContainsAny(email, "\x00\r\n") {
		return "", apierr.BadRequest("%q is not an email address", email)
	}
	return email, nil
}

// AddMember adds a member (the CLI's add-member) after checking its email, role and
// status.
func (o *Ops) AddMember(ctx context.Context, m store.Member) (string, error) {
	email, err := checkEmail(m.Email)
	if err != nil {
		return "", err
	}
	if err := CheckMember(m.Role, m.Status); err != nil {
		return "", err
	}
	m.Email = email
	return o.cfg.Store.AddMember(ctx, m)
}

// Change is a change to a member; empty fields are kept, Grants are merged.
type Change struct {
	Role   string
	Status string
	Grants map[string]string
	// PasswordHash sets a password (CLI only).
	PasswordHash string
}

// SetMember changes a member of workspaceID ("" for any workspace: the CLI) for by, the
// admin making the change from the console or the CLI's operator: an admin cannot change
// their own role or status in the console, so a workspace never loses its last admin by a
// slip of the mouse.
// Suspending a member stops their tokens and sessions at once (store.SetMember notifies
// every process).
func (o *Ops) SetMember(ctx context.Context, workspaceID string, by store.By, userID string, c Change) error {
	if err := CheckMember(c.Role, c.Status); err != nil {
		return err
	}
	if err := checkGrants(c.Grants); err != nil {
		return err
	}
	if !isUUID(userID) {
		return store.NoMember(userID)
	}
	if by.UserID != "" && by.UserID == userID && (c.Role != "" || c.Status != "") {
		return apierr.BadRequest("you cannot change your own role or status; ask another admin")
	}
	return o.cfg.Store.SetMember(ctx, userID, store.Member{WorkspaceID: workspaceID, Role: c.Role, Status: c.Status,
		Grants: c.Grants, PasswordHash: c.PasswordHash, By: by})
}

// Invite is an invitation to make.
type Invite struct {
	WorkspaceID string
	Email       string
	Name        string
	Role        string // "" means member
	Grants      map[string]string
	By          store.By // the inviting admin, or the CLI's operator
}

// Invitation is a made invitation. Link is shown once to the admin who made it.
type Invitation struct {
	UserID  string    `json:"user_id"`
	Link    string    `json:"link"`
	Expires time.Time `json:"expires_at"`
	Emailed bool      `json:"emailed"`
	// Resent says the address was already invited to the workspace and has not joined:
	// its invitation was sent again with a new link (ResendInvite), its role and grants
	// as first given.
	Resent bool `json:"resent,omitempty"`
}

// Invite adds an invited member and makes their invitation link (single use, InviteTTL,
// only its hash kept), emailing it when a Mailer is configured. A failed email is no
// failure of the invitation: the admin still has the link to pass on, and Emailed says it
// was not sent. An address the workspace already invited, and that has not joined, is
// sent its invitation again (ResendInvite) rather than refused as a duplicate.
func (o *Ops) Invite(ctx context.Context, in Invite) (Invitation, error) {
	if err := CheckMember(in.Role, ""); err != nil {
		return Invitation{}, err
	}
	if err := checkGrants(in.Grants); err != nil {
		return Invitation{}, err
	}
	// An address with an account in another workspace is invited as any other (the admin's
	// answer must not tell who has an account elsewhere); its owner is told by mail
	// instead of being sent a link that could not make a second account.
	var elsewhere bool
	if email, err := checkEmail(in.Email); err == nil {
		if m, err := o.workspaceMember(ctx, in.WorkspaceID, func(m store.MemberRow) bool { return strings.EqualFold(m.Email, email) }); err != nil {
			return Invitation{}, err
		} else if m != nil && m.Status == "invited" {
			return o.resend(ctx, in.WorkspaceID, *m, in.By)
		}
		m, err := o.cfg.Store.OAuthMemberByEmail(ctx, email)
		if err != nil {
			return Invitation{}, err
		}
		elsewhere = m != nil && m.WorkspaceID != in.WorkspaceID && m.Status != "invited"
	}
	userID, err := o.AddMember(ctx, store.Member{WorkspaceID: in.WorkspaceID, Email: in.Email, Name: strings.TrimSpace(in.Name),
		Role: in.Role, Status: "invited", Grants: in.Grants, By: in.By})
	if err != nil {
		return Invitation{}, err
	}
	if elsewhere {
		link, expires, err := o.link(ctx, in.WorkspaceID, userID, PurposeInvite, in.By)
		if err != nil {
			return Invitation{}, err
		}
		name, err := o.cfg.Store.WorkspaceName(ctx, in.WorkspaceID)
		if err != nil {
			return Invitation{}, err
		}
		out := Invitation{UserID: userID, Link: link, Expires: expires}
		out.Emailed = o.send(ctx, strings.TrimSpace(in.Email), elsewhereMessage(o.cfg.ServiceName, name))
		return out, nil
	}
	return o.sendInvitation(ctx, in.WorkspaceID, userID, strings.TrimSpace(in.Email), in.By)
}

// ResendInvite sends a member who was invited to workspaceID and has not joined a new
// invitation link (the earlier ones keep working until they expire; the first used retires
// the others), emailed when a Mailer is configured. It returns not_found when the
// workspace has no such member, and bad_request when the member has already joined.
func (o *Ops) ResendInvite(ctx context.Context, workspaceID, userID string, by store.By) (Invitation, error) {
	m, err := o.workspaceMember(ctx, workspaceID, func(m store.MemberRow) bool { return m.UserID == userID })
	if err != nil {
		return Invitation{}, err
	}
	if m == nil {
		return Invitation{}, store.NoMember(userID)
	}
	if m.Status != "invited" {
		return Invitation{}, apierr.BadRequest("%s has already joined (status %s), so there is no invitation to re-send; "+
			"make a password reset link instead", m.Email, m.Status)
	}
	return o.resend(ctx, workspaceID, *m, by)
}

func (o *Ops) resend(ctx context.Context, workspaceID string, m store.MemberRow, by store.By) (Invitation, error) {
	out, err := o.sendInvitation(ctx, workspaceID, m.UserID, m.Email, by)
	out.Resent = true
	return out, err
}

// sendInvitation makes an invitation link for an invited member and emails it, naming the
// workspace and who invites.
func (o *Ops) sendInvitation(ctx context.Context, workspaceID, userID, email string, by store.By) (Invitation, error) {
	link, expires, err := o.link(ctx, workspaceID, userID, PurposeInvite, by)
	if err != nil {
		return Invitation{}, err
	}
	workspace, err := o.cfg.Store.WorkspaceName(ctx, workspaceID)
	if err != nil {
		return Invitation{}, err
	}
	var inviter store.MemberRow
	if by.UserID != "" {
		m, err := o.workspaceMember(ctx, workspaceID, func(m store.MemberRow) bool { return m.UserID == by.UserID })
		if err != nil {
			return Invitation{}, err
		}
		if m != nil {
			inviter = *m
		}
	}
	out := Invitation{UserID: userID, Link: link, Expires: expires}
	out.Emailed = o.send(ctx, email, inviteMessage(o.cfg.ServiceName, workspace, inviter, link, expires))
	return out, nil
}

// workspaceMember returns the first human member of workspaceID that match accepts, or nil.
func (o *Ops) workspaceMember(ctx context.Context, workspaceID string, match func(store.MemberRow) bool) (*store.MemberRow, error) {
	rows, err := o.cfg.Store.WorkspaceMembers(ctx, workspaceID)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		if match(rows[i]) {
			return &rows[i], nil
		}
	}
	return nil, nil
}

// elsewhereMessage tells the owner of an account that a workspace invited their address,
// which already has an account in another one. It carries no link: there is nothing to
// accept, and nothing in it acts on the account.
func elsewhereMessage(service, workspace string) Message {
	return Message{Subject: "An invitation to " + workspace + " on " + service,
		Body: fmt.Sprintf("An admin of the workspace %q on %s invited this address.\n\n"+
			"This address already has an account on %s, in another workspace, and an address has one account, "+
			"so the invitation cannot be accepted with it. Your account is unchanged: keep signing in as before.\n\n"+
			"To join %q, ask the admin who invited you to invite another address of yours. "+
			"If you do not know this workspace, ignore this email.\n", workspace, service, service, workspace)}
}

// link makes and stores a link of purpose for a member and returns its URL.
func (o *Ops) link(ctx context.Context, workspaceID, userID, purpose string, by store.By) (string, time.Time, error) {
	ttl := InviteTTL
	if purpose == PurposeReset {
		ttl = ResetTTL
	}
	expires := o.cfg.Now().Add(ttl)
	plain, hash := store.NewSecret(linkPrefix)
	if err := o.cfg.Store.CreateMemberLink(ctx, workspaceID, store.MemberLink{UserID: userID, Purpose: purpose,
		By: by, Hash: hash, Expires: expires}); err != nil {
		return "", time.Time{}, err
	}
	return o.cfg.PublicURL + "/console/" + purpose + "?" + url.Values{"token": {plain}}.Encode(), expires, nil
}

// send emails msg to to when a Mailer is configured, within SendTimeout, and reports
// whether it was sent. A failure is logged without the message (it holds a link).
func (o *Ops) send(ctx context.Context, to string, msg Message) bool {
	if o.cfg.Mailer == nil {
		return false
	}
	msg.To = to
	ctx, cancel := context.WithTimeout(ctx, SendTimeout)
	defer cancel()
	if err := o.cfg.Mailer.Send(ctx, msg); err != nil {
		o.cfg.Logger.WarnContext(ctx, "admin: email not sent", "subject", msg.Subject, "err", err)
		return false
	}
	return true
}

// LinkMember returns the member a live link of purpose belongs to, or nil when the link is
// malformed, unknown, used or expired.
func (o *Ops) LinkMember(ctx context.Context, token, purpose string) (*store.OAuthMember, error) {
	if !store.WellFormed(token, linkPrefix) {
		return nil, nil
	}
	return o.cfg.Store.PeekMemberLink(ctx, store.HashSecret(token), purpose, o.cfg.Now())
}

// UseLink sets the password of the member a live link of purpose belongs to, activating an
// invited member, and returns the member. The link is used up. It returns a 400
// apierr.Error for a password HashPassword refuses, and a 404 one when the link is
// malformed, unknown, used or expired.
func (o *Ops) UseLink(ctx context.Context, token, purpose, password string) (*store.OAuthMember, error) {
	if !store.WellFormed(token, linkPrefix) {
		return nil, deadLink()
	}
	hash, err := o.cfg.HashPassword(password)
	if err != nil {
		return nil, apierr.BadRequest("%s", strings.TrimPrefix(err.Error(), "password: "))
	}
	m, err := o.cfg.Store.RedeemMemberLink(ctx, store.HashSecret(token), purpose, hash, o.cfg.Now())
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, deadLink()
	}
	return m, nil
}

func deadLink() error {
	return apierr.NotFound("this link was already used or has expired; ask a workspace admin for a new one")
}

// inviteMessage is an invitation's email: the workspace, who invites (an admin's name and
// address; the zero inviter for the CLI's operator, who is no member, and the mail then
// says an administrator), the link and until when it works.
func inviteMessage(service, workspace string, inviter store.MemberRow, link string, expires time.Time) Message {
	who, short := "An administrator of "+strconv.Quote(workspace), "An administrator"
	switch {
	case inviter.Name != "":
		who, short = inviter.Name+" ("+inviter.Email+")", inviter.Name
	case inviter.Email != "":
		who, short = inviter.Email, inviter.Email
	}
	return Message{Subject: fmt.Sprintf("%s invites you to %s on %s", short, workspace, service),
		Body: fmt.Sprintf("%s invited you to join the workspace %q on %s.\n\nOpen this link to choose your password and sign in:\n\n%s\n\n"+
			"The link works once, until %s. If you do not know this workspace, ignore this email.\n",
			who, workspace, service, link, expires.UTC().Format("2006-01-02 15:04 UTC"))}
}

// isUUID reports whether id has a uuid's shape, so an id edited in a form is not_found
// rather than a database error.
func isUUID(id string) bool {
	if len(id) != 36 {
		return false
	}
	for i, c := range id {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'):
			return false
		}
	}
	return true
}

// ResetLink makes a password-reset link (single use, ResetTTL, only its hash kept) for an
// active member of workspaceID, for an admin (by) to pass on. It returns not_found when
// the workspace has no such member, and bad_request for a member who was invited and has
// not joined (they have no password yet: their invitation is re-sent instead) or is
// suspended.
func (o *Ops) ResetLink(ctx context.Context, workspaceID, userID string, by store.By) (Invitation, error) {
	if !isUUID(userID) {
		return Invitation{}, store.NoMember(userID)
	}
	m, err := o.workspaceMember(ctx, workspaceID, func(m store.MemberRow) bool { return m.UserID == userID })
	if err != nil {
		return Invitation{}, err
	}
	switch {
	case m == nil:
		return Invitation{}, store.NoMember(userID)
	case m.Status == "invited":
		return Invitation{}, apierr.BadRequest("%s was invited and has not joined yet, so has no password to reset; "+
			"re-send the invitation instead", m.Email)
	case m.Status != "active":
		return Invitation{}, apierr.BadRequest("%s is %s; reactivate them before making a reset link", m.Email, m.Status)
	}
	link, expires, err := o.link(ctx, workspaceID, userID, PurposeReset, by)
	return Invitation{UserID: userID, Link: link, Expires: expires}, err
}

// RequestReset is "Forgot password?": when email belongs to an active human member, a
// reset link is emailed to it. The caller's answer
// must not depend on the outcome, so this returns nothing but database failures, and the
// email goes out in the background (its round trip would otherwise tell a known address
// from an unknown one); Wait awaits it. Without a Mailer nothing is sent.
func (o *Ops) RequestReset(ctx context.Context, email string) error {
	email, err := checkEmail(email)
	if err != nil || o.cfg.Mailer == nil {
		return nil
	}
	m, err := o.cfg.Store.OAuthMemberByEmail(ctx, email)
	if err != nil || m == nil || m.IsAgent || m.Status != "active" {
		return err
	}
	link, expires, err := o.link(ctx, m.WorkspaceID, m.UserID, PurposeReset, store.By{})
	if err != nil {
		return err
	}
	o.sending.Add(1)
	go func() {
		defer o.sending.Done()
		o.send(context.WithoutCancel(ctx), m.Email, resetMessage(o.cfg.ServiceName, link, expires))
	}()
	return nil
}

// Wait returns when the reset emails on their way have been handed to the mail server or
// have failed (each within SendTimeout), or when ctx ends first; it reports whether none
// is left. The server waits for them when it stops, within its shutdown grace
// (cmd/workspaced/serve.go), so a link asked for just before a restart still arrives;
// invitations are sent within their request, which the grace already awaits.
func (o *Ops) Wait(ctx context.Context) bool {
	done := make(chan struct{})
	go func() { o.sending.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-ctx.Done():
		return false
	}
}

func resetMessage(service, link string, expires time.Time) Message {
	return Message{Subject: "Reset your " + service + " password",
		Body: fmt.Sprintf("Someone asked to reset the password of this address on %s.\n\nTo choose a new password, open:\n\n%s\n\n"+
			"The link works once, until %s. If you did not ask, ignore this email: your password stays as it is.\n",
			service, link, expires.UTC().Format("2006-01-02 15:04 UTC"))}
}
