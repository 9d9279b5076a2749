package workspace

import (
	"context"
	"sync"

	"github.com/agencyos/workspaced/auth"
)

// fieldCache keeps the custom field definitions lists read (customQuery), by workspace and
// resource, with the version of the workspace's definitions they were read at
// (store.FieldsVersion, store/migrations/00068_custom_list_costs.sql). A list built
// from kept definitions has the database check that version in its own round trip
// (store.QueryAtFields) and, when the definitions changed through any process, reads
// them again and runs once more (List): the definitions' own round trip is saved while
// nothing changes, and a change is seen by the next list on every process.
//
// Kept lists are shared and never changed. Every actor permitted to list a resource
// (Permits) sees the same definitions of it, row-level security hiding a workspace's
// definitions only from other workspaces and from actors without the resource's grant
// (the policies of custom_fields), so an entry serves only actors of its workspace that
// may list its resource; others read through row-level security as before.
type fieldCache struct {
	mu   sync.Mutex
	kept map[fieldKey]keptFields
	held int // the cost (keptFields.cost) of what kept holds, at most maxKeptFields
}

type fieldKey struct{ workspace, resource string }

type keptFields struct {
	version int64
	list    []CustomField
}

// maxKeptFields bounds what a process keeps: definitions, plus one per list (a resource
// without definitions is kept too). A workspace has at most MaxCustomFields per resource.
const maxKeptFields = 10_000

func (k keptFields) cost() int { return len(k.list) + 1 }

// listFields returns the definitions of r for a list as p sees them, and when they are
// kept ones (only if kept) the version the list's statement must check (nil when they
// were read now).
func (o *Ops) listFields(ctx context.Context, p *auth.Principal, r *Resource, kept bool) ([]CustomField, *int64, error) {
	key := fieldKey{p.WorkspaceID, r.Name}
	permitted := Permits(p, r, OpList)
	if permitted && kept {
		if k, ok := o.fields.get(key); ok {
			return k.list, &k.version, nil
		}
	}
	defs, version, err := readCustomFields(ctx, o.store, p, r.Name)
	if err != nil {
		return nil, nil, err
	}
	if permitted {
		o.fields.put(key, keptFields{version: version, list: defs})
	}
	return defs, nil, nil
}

func (c *fieldCache) get(key fieldKey) (keptFields, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k, ok := c.kept[key]
	return k, ok
}

// put keeps k unless a newer version of the same list is kept, making room by dropping
// other lists, any of them (map order).
func (c *fieldCache) put(key fieldKey, k keptFields) {
	if k.cost() > maxKeptFields {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.kept == nil {
		c.kept = map[fieldKey]keptFields{}
	}
	if old, ok := c.kept[key]; ok {
		if old.version >= k.version {
			return
		}
		delete(c.kept, key)
		c.held -= old.cost()
	}
	for other, v := range c.kept {
		if c.held+k.cost() <= maxKeptFields {
			break
		}
		delete(c.kept, other)
		c.held -= v.cost()
	}
	c.kept[key] = k
	c.held += k.cost()
}

// forget drops the list of key, kept at version, unless a newer one replaced it.
func (c *fieldCache) forget(key fieldKey, version int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.kept[key]; ok && old.version == version {
		delete(c.kept, key)
		c.held -= old.cost()
	}
}
