package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
)

// A custom sort reads its page from an index of the record table in the sort's order when
// one exists (store/migrations/00070_custom_sort_indexes.sql): one per table, key and
// value column, (workspace_id, ws_custom_sort_<col>(custom_fields, 'key'), id) WHERE
// custom_fields ? 'key', shared by the workspaces whose fields of that key sort by that
// column. The service builds it CONCURRENTLY in the background when a field is defined
// and, should it be missing (a field defined before, a build that failed, an index
// dropped), when a list first sorts by the field; until it is valid, sorts walk
// custom_values (customQuery.page), with the same pages.
//
// A list in its own order (newest first) with an eq condition on a field of a type whose
// values repeat across many records (ListIndexed: select, member) reads its page from a
// list index built the same way (store/migrations/00076_custom_list_indexes.sql):
// (workspace_id, ws_custom_value_t(custom_fields, 'key'), created_at DESC, id DESC) WHERE
// custom_fields ? 'key', the records holding one value in the list's order (listQuery).
// Until it is valid, or where ws_custom_value_t is not LEAKPROOF (then row-level security
// keeps the condition out of the index), such a list probes custom_values and walks the
// list's order (fewOrWalk), with the same pages.
//
// A list in its own order with prefix on a field of a type whose prefixes many records
// share (PrefixIndexed: url, phone) probes custom_values as before and, when the probe
// finds more than fewMatches, walks a prefix index built the same way
// (store/migrations/00080_custom_prefix_indexes.sql): (workspace_id, created_at DESC, id
// DESC, ws_custom_value_head(custom_fields, 'key') COLLATE "C") WHERE custom_fields ? 'key',
// the list's order with the head of each record's value, on which the walk checks the
// prefix's range before it reads the record. Until it is valid, where
// ws_custom_value_head is not LEAKPROOF, or for a prefix longer than the head, the walk
// reads the list's order, with the same pages.

// sortIndexes is what a process knows of those indexes: the valid indexes of each table,
// read from pg_index at most every sortIndexTTL (so an index dropped, or built by another
// process, is seen within it), and the builds it started.
type sortIndexes struct {
	mu      sync.Mutex
	tables  map[string]validIndexes
	started map[string]time.Time // builds under way or tried, by index name
	build   sync.Mutex           // one build at a time per process: each reads its whole table
}

type validIndexes struct {
	names map[string]bool
	// leakproof is whether ws_custom_value_t is LEAKPROOF, without which list indexes are
	// neither built nor read; headLeakproof the same of ws_custom_value_head and prefix
	// indexes.
	leakproof, headLeakproof bool
	readAt                   time.Time
}

const (
	// maxSortIndexes bounds the custom indexes of a table, sort, list and prefix indexes together:
	// each is a predicate every write of the table checks and a path every plan of it weighs
	// (docs/performance.md, "Custom fields"). Keys are the workspaces' own, so distinct keys
	// may grow with them; past the bound, sorts by the others walk custom_values and their
	// eq conditions probe it, as before.
	maxSortIndexes = 100
	sortIndexTTL   = 30 * time.Second
	// sortIndexRetry is how long a build that failed waits before a list tries it again.
	sortIndexRetry = 5 * time.Minute
)

// customIndex is an index of a record table on the values of one custom key in column col
// (t, n, d or b): a sort index, with list set a list index (of column t), with prefix set
// a prefix index (of column t).
type customIndex struct {
	table, key, col string
	list, prefix    bool
}

// name names the index: <table>_cf_<key>_<col> for a sort index, <table>_cfl_<key>_<col>
// for a list index, <table>_cfp_<key>_<col> for a prefix index, readable while it fits
// PostgreSQL's 63 bytes, a hash of the key otherwise (keys have up to 63).
func (ix customIndex) name() string {
	kind := "_cf_"
	if ix.list {
		kind = "_cfl_"
	}
	if ix.prefix {
		kind = "_cfp_"
	}
	name := ix.table + kind + ix.key + "_" + ix.col
	if len(name) <= 63 {
		return name
	}
	sum := sha256.Sum256([]byte(ix.key))
	return ix.table + kind + hex.EncodeToString(sum[:8]) + "_" + ix.col
}

// create is the statement building the index.
func (ix customIndex) create() string {
	value, order := fmt.Sprintf(`ws_custom_sort_%s("custom_fields", %s)`, ix.col, quoteLiteral(ix.key)), `"id"`
	if ix.list {
		value, order = fmt.Sprintf(`ws_custom_value_t("custom_fields", %s)`, quoteLiteral(ix.key)), `"created_at" DESC, "id" DESC`
	}
	if ix.prefix {
		return fmt.Sprintf(`CREATE INDEX CONCURRENTLY %s ON %s ("workspace_id", "created_at" DESC, "id" DESC, (ws_custom_value_head("custom_fields", %s)) COLLATE "C") WHERE "custom_fields" ? %s`,
			ident(ix.name()), ident(ix.table), quoteLiteral(ix.key), quoteLiteral(ix.key))
	}
	return fmt.Sprintf(`CREATE INDEX CONCURRENTLY %s ON %s ("workspace_id", (%s), %s) WHERE "custom_fields" ? %s`,
		ident(ix.name()), ident(ix.table), value, order, quoteLiteral(ix.key))
}

// customSortExpr is the sort value of key's entry in a record of table, as the index
// holds it: the planner uses the index for an ORDER BY written exactly so.
func customSortExpr(table, key, col string) string {
	return fmt.Sprintf(`ws_custom_sort_%s(%s."custom_fields", %s)`, col, ident(table), quoteLiteral(key))
}

// customListExpr is the value of key's entry in a record of table as its list index holds
// it, written as the index's expression.
func customListExpr(table, key string) string {
	return fmt.Sprintf(`ws_custom_value_t(%s."custom_fields", %s)`, ident(table), quoteLiteral(key))
}

// customHeadExpr is the head of key's entry in a record of table as its prefix index holds
// it, in code point order (the index's collation, whatever the database's): a prefix of at
// most prefixHead characters is a range of it (prefixEnd).
func customHeadExpr(table, key string) string {
	return fmt.Sprintf(`(ws_custom_value_head(%s."custom_fields", %s) COLLATE "C")`, ident(table), quoteLiteral(key))
}

// prefixHead is how many characters of a value ws_custom_value_head keeps
// (store/migrations/00080_custom_prefix_indexes.sql).
const prefixHead = 64

// customSortHas is the index's predicate as a list's condition: the planner uses a
// partial index only for a statement whose conditions imply it.
func customSortHas(table, key string) string {
	return fmt.Sprintf(`%s."custom_fields" ? %s`, ident(table), quoteLiteral(key))
}

// sortIndexReady reports whether f's sort index on r's table is valid, as p reads the
// catalogue; when it is not, it starts its build in the background.
func (o *Ops) sortIndexReady(ctx context.Context, p *auth.Principal, r *Resource, f *CustomField) (bool, error) {
	return o.customIndexReady(ctx, p, customIndex{table: r.Table, key: f.Key, col: customTypeOf(f.Type).col})
}

// prefixIndexReady reports whether f's prefix index on r's table is valid, as
// sortIndexReady.
func (o *Ops) prefixIndexReady(ctx context.Context, p *auth.Principal, r *Resource, f *CustomField) (bool, error) {
	return o.customIndexReady(ctx, p, customIndex{table: r.Table, key: f.Key, col: "t", prefix: true})
}

// listIndexReady reports whether f's list index on r's table is valid, as sortIndexReady.
func (o *Ops) listIndexReady(ctx context.Context, p *auth.Principal, r *Resource, f *CustomField) (bool, error) {
	return o.customIndexReady(ctx, p, customIndex{table: r.Table, key: f.Key, col: "t", list: true})
}

// customIndexReady reports whether ix is valid, as p reads the catalogue (at most every
// sortIndexTTL); when it is not, it starts its build in the background.
func (o *Ops) customIndexReady(ctx context.Context, p *auth.Principal, ix customIndex) (bool, error) {
	name := ix.name()
	s := &o.sortIndexes
	s.mu.Lock()
	v, ok := s.tables[ix.table]
	s.mu.Unlock()
	if !ok || time.Since(v.readAt) > sortIndexTTL {
		var names []string
		var leakproof, headLeakproof bool
		err := o.store.Query(ctx, p.Actor(), `SELECT ARRAY(SELECT c.relname::text FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
			WHERE i.indrelid = $1::text::regclass AND i.indisvalid AND i.indisready),
			coalesce((SELECT proleakproof FROM pg_proc WHERE oid = to_regprocedure('ws_custom_value_t(jsonb, text)')), false),
			coalesce((SELECT proleakproof FROM pg_proc WHERE oid = to_regprocedure('ws_custom_value_head(jsonb, text)')), false)`,
			[]any{ix.table}, func(rows pgx.Rows) error {
				for rows.Next() {
					if err := rows.Scan(&names, &leakproof, &headLeakproof); err != nil {
						return err
					}
				}
				return rows.Err()
			})
		if err != nil {
			return false, readError(err)
		}
		v = validIndexes{names: map[string]bool{}, leakproof: leakproof, headLeakproof: headLeakproof, readAt: time.Now()}
		for _, n := range names {
			v.names[n] = true
		}
		s.mu.Lock()
		if s.tables == nil {
			s.tables = map[string]validIndexes{}
		}
		s.tables[ix.table] = v
		s.mu.Unlock()
	}
	if ix.list && !v.leakproof || ix.prefix && !v.headLeakproof {
		return false, nil
	}
	if !v.names[name] {
		o.startCustomIndex(ix)
	}
	return v.names[name], nil
}

// startCustomIndex builds ix in the background, unless this process started it within
// sortIndexRetry.
func (o *Ops) startCustomIndex(ix customIndex) {
	name := ix.name()
	s := &o.sortIndexes
	s.mu.Lock()
	if at, ok := s.started[name]; ok && time.Since(at) < sortIndexRetry {
		s.mu.Unlock()
		return
	}
	if s.started == nil {
		s.started = map[string]time.Time{}
	}
	s.started[name] = time.Now()
	s.mu.Unlock()
	go func() {
		if err := o.buildCustomIndex(context.Background(), ix); err != nil {
			slog.Default().Warn("custom index", "index", name, "err", err)
		}
	}()
}

// startSortIndexOf starts the sort index of the definition rec (a custom_fields record as
// create returns it) if its type sorts.
func (o *Ops) startSortIndexOf(rec []byte) {
	var d struct{ Resource, Key, Type string }
	if json.Unmarshal(rec, &d) != nil {
		return
	}
	f := CustomField{Resource: d.Resource, Key: d.Key, Type: d.Type}
	r := Lookup(d.Resource)
	if r == nil || customTypeOf(f.Type) == nil || !f.Sortable() {
		return
	}
	o.startCustomIndex(customIndex{table: r.Table, key: f.Key, col: customTypeOf(f.Type).col})
	if f.ListIndexed() {
		o.startCustomIndex(customIndex{table: r.Table, key: f.Key, col: "t", list: true})
	}
	if f.PrefixIndexed() {
		o.startCustomIndex(customIndex{table: r.Table, key: f.Key, col: "t", prefix: true})
	}
}

// BuildCustomSortIndex builds the sort index of key's values in column col (t, n, d or
// b) of table, and returns once it is valid (buildCustomIndex).
func (o *Ops) BuildCustomSortIndex(ctx context.Context, table, key, col string) error {
	return o.buildCustomIndex(ctx, customIndex{table: table, key: key, col: col})
}

// BuildCustomListIndex builds the list index of key's values on table, and returns once it
// is valid (buildCustomIndex).
func (o *Ops) BuildCustomListIndex(ctx context.Context, table, key string) error {
	return o.buildCustomIndex(ctx, customIndex{table: table, key: key, col: "t", list: true})
}

// BuildCustomPrefixIndex builds the prefix index of key's values on table, and returns once
// it is valid (buildCustomIndex).
func (o *Ops) BuildCustomPrefixIndex(ctx context.Context, table, key string) error {
	return o.buildCustomIndex(ctx, customIndex{table: table, key: key, col: "t", prefix: true})
}

// CustomIndexLock is the name of the advisory lock (hashtextextended(name, 0)) a build of
// a custom index of table holds while it runs.
func CustomIndexLock(table string) string { return "custom_index:" + table }

// lockPoll is how often a build waiting for its table's lock tries it again.
const lockPoll = 100 * time.Millisecond

// tryUntilLocked takes the session advisory lock name on conn, trying every lockPoll. It
// does not wait inside a statement: a statement waiting holds a snapshot, and the build
// holding the lock waits, before it ends, for every transaction older than its own
// snapshot (CREATE INDEX CONCURRENTLY): PostgreSQL would end the two as a deadlock.
func tryUntilLocked(ctx context.Context, conn *pgxpool.Conn, name string) error {
	for {
		var locked bool
		if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock(hashtextextended($1, 0))", name).Scan(&locked); err != nil || locked {
			return err
		}
		t := time.NewTimer(lockPoll)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}

// buildCustomIndex builds ix and returns once it is valid: CREATE INDEX CONCURRENTLY,
// which writes to the table go on during (it waits for the transactions writing it when it
// starts, and before it ends). An index left invalid by a build that failed is dropped
// first. Builds of one table by several processes run one after the other (an advisory
// lock on the table): two CREATE INDEX CONCURRENTLY on one table deadlock, one waiting for
// the table's lock, the other for the transactions older than its snapshot, the first
// among them; a later build of the same index finds it built. A table gets at most maxSortIndexes of them, sort,
// list and prefix indexes together.
func (o *Ops) buildCustomIndex(ctx context.Context, ix customIndex) error {
	name, table := ix.name(), ix.table
	s := &o.sortIndexes
	s.build.Lock()
	defer s.build.Unlock()
	ctx = store.WithoutDeadlines(ctx)
	conn, err := o.store.Pool().Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	lock := CustomIndexLock(table)
	if err := tryUntilLocked(ctx, conn, lock); err != nil {
		return err
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(hashtextextended($1, 0))", lock)
	var valid *bool
	err = conn.QueryRow(ctx, `SELECT i.indisvalid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid
		WHERE c.relname = $1 AND c.relnamespace = 'public'::regnamespace`, name).Scan(&valid)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	if valid == nil {
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
			WHERE i.indrelid = $1::text::regclass AND (starts_with(c.relname, $2) OR starts_with(c.relname, $3) OR starts_with(c.relname, $4))`,
			table, table+"_cf_", table+"_cfl_", table+"_cfp_").Scan(&n); err != nil {
			return err
		}
		if n >= maxSortIndexes {
			return fmt.Errorf("%s has %d custom indexes already, the most it gets: lists by %s read custom_values", table, n, ix.key)
		}
	}
	if valid == nil || !*valid {
		if _, err := conn.Exec(ctx, "SET statement_timeout = 0"); err != nil {
			return err
		}
		defer conn.Exec(context.WithoutCancel(ctx), "RESET statement_timeout")
		if valid != nil {
			if _, err := conn.Exec(ctx, "DROP INDEX CONCURRENTLY IF EXISTS "+ident(name)); err != nil {
				return err
			}
		}
		build := ix.create()
		if _, err := conn.Exec(ctx, build); err != nil {
			return fmt.Errorf("%s: %w", build, err)
		}
	}
	s.mu.Lock()
	if v, ok := s.tables[table]; ok { // a new map: lists read the one they were given unlocked
		names := map[string]bool{name: true}
		for n := range v.names {
			names[n] = true
		}
		s.tables[table] = validIndexes{names: names, leakproof: v.leakproof, headLeakproof: v.headLeakproof, readAt: v.readAt}
	}
	s.mu.Unlock()
	return nil
}
