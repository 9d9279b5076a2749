package console

import (
	"context"
	"strings"
)

// credential is how a page shows an activity or usage credential: Text names it (an agent
// key by its agent and hint), Href opens the record it is, Raw is the stored label.
type credential struct {
	Text, Href, Raw string
}

// names resolves the workspace's agents and agent keys to their names, for the pages
// that would otherwise show an agent's placeholder address or "agent_key:<id>".
type names struct {
	agents map[string]string     // agent's user id → name
	keys   map[string]credential // key id → its label
}

func (s *Server) names(ctx context.Context, workspaceID string) (names, error) {
	rows, err := s.cfg.Admin.Agents(ctx, workspaceID)
	if err != nil {
		return names{}, err
	}
	n := names{agents: map[string]string{}, keys: map[string]credential{}}
	for _, a := range rows {
		n.agents[a.UserID] = a.Name
		for _, k := range a.Keys {
			n.keys[k.ID] = credential{Text: a.Name + " · key kagt_…" + k.Hint, Href: "/console/agents#key-" + k.ID}
		}
	}
	return n, nil
}

// credential words a stored label: an agent key of this workspace by name, anything else
// as stored.
func (n names) credential(label string) credential {
	if id, ok := strings.CutPrefix(label, "agent_key:"); ok {
		if c, ok := n.keys[id]; ok {
			c.Raw = label
			return c
		}
	}
	return credential{Text: label, Raw: label}
}

// who names an activity's actor: an agent by its name, a person by their address.
func (n names) who(userID, email string) string {
	if name, ok := n.agents[userID]; ok {
		return name
	}
	return email
}
