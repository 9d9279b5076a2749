package admin

import (
	"context"
	"strings"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/store"
)

// AgentStore is what the agent operations need; *store.Store implements it.
type AgentStore interface {
	// WorkspaceAgents lists a workspace's agents with their keys.
	WorkspaceAgents(ctx context.Context, workspaceID string) ([]store.AgentRow, error)
	// CreateAgent makes an agent and its first key.
	CreateAgent(ctx context.Context, workspaceID, name string, grants map[string]string, by store.By) (store.AgentKey, error)
	// IssueAgentKey issues another key; not_found when the workspace has no such agent.
	IssueAgentKey(ctx context.Context, workspaceID, agentID string, by store.By) (store.AgentKey, error)
	// RotateAgentKey replaces a live key; not_found when the workspace has no such key.
	RotateAgentKey(ctx context.Context, workspaceID, keyID string, by store.By) (store.AgentKey, error)
	// RevokeWorkspaceAgentKey revokes a key ("" workspace: any); not_found when missing.
	RevokeWorkspaceAgentKey(ctx context.Context, workspaceID, keyID string, by store.By) error
}

// Agents lists a workspace's agents with their grants and keys.
func (o *Ops) Agents(ctx context.Context, workspaceID string) ([]store.AgentRow, error) {
	return o.cfg.Store.WorkspaceAgents(ctx, workspaceID)
}

// CreateAgent makes an agent with grants and its first key, shown once.
func (o *Ops) CreateAgent(ctx context.Context, workspaceID, name string, grants map[string]string, by store.By) (store.AgentKey, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 200 || strings.ContainsRune(name, 0) {
		return store.AgentKey{}, apierr.BadRequest("an agent needs a name of at most 200 characters")
	}
	if err := checkGrants(grants); err != nil {
		return store.AgentKey{}, err
	}
	if !isUUID(workspaceID) {
		return store.AgentKey{}, apierr.NotFound("no workspace %q", workspaceID)
	}
	return o.cfg.Store.CreateAgent(ctx, workspaceID, name, grants, by)
}

// CreateKey issues another key to a workspace's agent, shown once.
func (o *Ops) CreateKey(ctx context.Context, workspaceID, agentID string, by store.By) (store.AgentKey, error) {
	if !isUUID(agentID) {
		return store.AgentKey{}, apierr.NotFound("no agent %q", agentID)
	}
	return o.cfg.Store.IssueAgentKey(ctx, workspaceID, agentID, by)
}

// RotateKey revokes a live key and issues its replacement, shown once. The old key stops
// at once in every process.
func (o *Ops) RotateKey(ctx context.Context, workspaceID, keyID string, by store.By) (store.AgentKey, error) {
	if !isUUID(keyID) {
		return store.AgentKey{}, apierr.NotFound("no agent key %q", keyID)
	}
	return o.cfg.Store.RotateAgentKey(ctx, workspaceID, keyID, by)
}

// RevokeKey revokes a key of workspaceID ("" for any: the CLI); it stops at once in every
// process. Revoking twice is harmless.
func (o *Ops) RevokeKey(ctx context.Context, workspaceID, keyID string, by store.By) error {
	if !isUUID(keyID) {
		return apierr.NotFound("no agent key %q", keyID)
	}
	return o.cfg.Store.RevokeWorkspaceAgentKey(ctx, workspaceID, keyID, by)
}
