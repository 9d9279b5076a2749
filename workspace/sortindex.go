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

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
)

// A custom sort reads its page from an index of the record table in the sort's order when
// one exists (store/migrations/00070_custom_sort_indexes.sql): one per table, key and
// value column, (workspace_id, ws_custom_sort_<col>(custom_fields -> 'key'), id) WHERE
// custom_fields ? 'key', shared by the workspaces whose fields of that key sort by that
// column. The service builds it CONCURRENTLY in the background when a field is defined
// and, should it be missing (a field defined before, a build that failed, an index
// dropped), when a list first sorts by the field; until it is valid, sorts walk
// custom_values (customQuery.page), with the same pages.

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
	names  map[string]bool
	readAt time.Time
}

const (
	// maxSortIndexes bounds the sort indexes of a table: each is a predicate every write of
	// the table checks and a path every plan of it weighs (docs/performance.md, "Custom
	// fields"). Keys are the workspaces' own, so distinct keys may grow with them; past the
	// bound, sorts by the others walk custom_values, as before.
	maxSortIndexes = 100
	sortIndexTTL   = 30 * time.Second
	// sortIndexRetry is how long a build that failed waits before a list tries it again.
	sortIndexRetry = 5 * time.Minute
)

// customSortIndex names the index of key's values in column col of table: readable while
// it fits PostgreSQL's 63 bytes, a hash of the key otherwise (keys have up to 63).
func customSortIndex(table, key, col string) string {
	name := table + "_cf_" + key + "_" + col
	if len(name) <= 63 {
		return name
	}
	sum := sha256.Sum256([]byte(key))
	return table + "_cf_" + hex.EncodeToString(sum[:8]) + "_" + col
}

// customSortExpr is the sort value of key's entry in a record of table, as the index
// holds it: the planner uses the index for an ORDER BY written exactly so.
func customSortExpr(table, key, col string) string {
	return fmt.Sprintf(`ws_custom_sort_%s(%s."custom_fields" -> %s)`, col, ident(table), quoteLiteral(key))
}

// customSortHas is the index's predicate as a list's condition: the planner uses a
// partial index only for a statement whose conditions imply it.
func customSortHas(table, key string) string {
	return fmt.Sprintf(`%s."custom_fields" ? %s`, ident(table), quoteLiteral(key))
}

// sortIndexReady reports whether f's sort index on r's table is valid, as p reads the
// catalogue; when it is not, it starts its build in the background.
func (o *Ops) sortIndexReady(ctx context.Context, p *auth.Principal, r *Resource, f *CustomField) (bool, error) {
	col := customTypeOf(f.Type).col
	name := customSortIndex(r.Table, f.Key, col)
	s := &o.sortIndexes
	s.mu.Lock()
	v, ok := s.tables[r.Table]
	s.mu.Unlock()
	if !ok || time.Since(v.readAt) > sortIndexTTL {
		names := map[string]bool{}
		err := o.store.Query(ctx, p.Actor(), `SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
			WHERE i.indrelid = $1::text::regclass AND i.indisvalid AND i.indisready`, []any{r.Table}, func(rows pgx.Rows) error {
			for rows.Next() {
				var n string
				if err := rows.Scan(&n); err != nil {
					return err
				}
				names[n] = true
			}
			return rows.Err()
		})
		if err != nil {
			return false, readError(err)
		}
		v = validIndexes{names: names, readAt: time.Now()}
		s.mu.Lock()
		if s.tables == nil {
			s.tables = map[string]validIndexes{}
		}
		s.tables[r.Table] = v
		s.mu.Unlock()
	}
	if !v.names[name] {
		o.startSortIndex(r.Table, f.Key, col)
	}
	return v.names[name], nil
}

// startSortIndex builds the sort index of key's values in column col of table in the
// background, unless this process started it within sortIndexRetry.
func (o *Ops) startSortIndex(table, key, col string) {
	name := customSortIndex(table, key, col)
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
		if err := o.BuildCustomSortIndex(context.Background(), table, key, col); err != nil {
			slog.Default().Warn("custom sort index", "index", name, "err", err)
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
	o.startSortIndex(r.Table, f.Key, customTypeOf(f.Type).col)
}

// BuildCustomSortIndex builds the sort index of key's values in column col (t, n, d or
// b) of table, and returns once it is valid: CREATE INDEX CONCURRENTLY, which writes to
// the table go on during (it waits for the transactions writing it when it starts, and
// before it ends). An index left invalid by a build that failed is dropped first. Builds
// of one index by several processes run one after the other (an advisory lock); the later
// ones find it built.
func (o *Ops) BuildCustomSortIndex(ctx context.Context, table, key, col string) error {
	name := customSortIndex(table, key, col)
	s := &o.sortIndexes
	s.build.Lock()
	defer s.build.Unlock()
	ctx = store.WithoutDeadlines(ctx)
	conn, err := o.store.Pool().Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	lock := "custom_sort:" + name
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(hashtextextended($1, 0))", lock); err != nil {
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
			WHERE i.indrelid = $1::text::regclass AND starts_with(c.relname, $2)`, table, table+"_cf_").Scan(&n); err != nil {
			return err
		}
		if n >= maxSortIndexes {
			return fmt.Errorf("%s has %d custom sort indexes already, the most it gets: sorts by %s walk custom_values", table, n, key)
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
		build := fmt.Sprintf(`CREATE INDEX CONCURRENTLY %s ON %s ("workspace_id", (ws_custom_sort_%s("custom_fields" -> %s)), "id") WHERE "custom_fields" ? %s`,
			ident(name), ident(table), col, quoteLiteral(key), quoteLiteral(key))
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
		s.tables[table] = validIndexes{names: names, readAt: v.readAt}
	}
	s.mu.Unlock()
	return nil
}
