package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
)

// Fixture is a fresh workspace with an admin, a member with no grants, and an agent.
type Fixture struct {
	WorkspaceID string
	Admin       *auth.Principal
	Member      *auth.Principal
	Agent       store.AgentKey
}

// Workspace makes a fresh workspace; tests share the package database by using their own.
func Workspace(tb testing.TB, s *store.Store, scopes []string) Fixture {
	tb.Helper()
	ctx := context.Background()
	ws, err := s.CreateWorkspace(ctx, "Workspace "+tb.Name(), store.By{})
	if err != nil {
		tb.Fatalf("create workspace: %v", err)
	}
	f := Fixture{WorkspaceID: ws}
	f.Admin = AddUser(tb, s, ws, "admin", nil, scopes)
	f.Member = AddUser(tb, s, ws, "member", nil, scopes)
	f.Agent, err = s.CreateAgent(ctx, ws, "Agent", map[string]string{"crm": "full"}, store.By{})
	if err != nil {
		tb.Fatalf("create agent: %v", err)
	}
	return f
}

// AddUser adds an active user and returns a principal for it with the given scopes.
func AddUser(tb testing.TB, s *store.Store, workspaceID, role string, grants map[string]string, scopes []string) *auth.Principal {
	tb.Helper()
	email := fmt.Sprintf("%s-%d@example.test", role, time.Now().UnixNano())
	id, err := s.AddMember(context.Background(), store.Member{WorkspaceID: workspaceID, Email: email, Role: role, Grants: grants})
	if err != nil {
		tb.Fatalf("add %s: %v", role, err)
	}
	if grants == nil {
		grants = map[string]string{}
	}
	return &auth.Principal{Identity: store.Identity{UserID: id, WorkspaceID: workspaceID, Email: email, Role: role, Grants: grants,
		Scopes: scopes, Credential: store.Credential{Type: "agent_key", ID: "test-" + id}}}
}
