// Command floor is the baseline of bench/perf-load.sh: a bare net/http + pgxpool server
// answering GET /v1/{resource}/{id}, GET /v1/{resource} (exact-match filters, q, limit,
// cursor) and GET /v1/search (q, types, limit) with the same rows in the same JSON as
// workspaced, searching with the SQL the workspace package builds for it (SearchMatch,
// SearchSQL) and listing by a custom field with the statement List builds (ListSQL), and
// nothing else: no apikey,
// no authentication, no gates, no row-level security (it connects as the schema owner and
// names the workspace in the statement), no rate limits, no logs, no metrics. What the
// service costs beyond it is the price of everything it does that the floor does not.
//
//	floor -listen 127.0.0.1:18093 -workspace <uuid>    (DATABASE_URL names the database)
package main

import (
	"context"
	"encoding/base64"
	"flag"
	"log"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/workspace"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:18093", "address to listen on")
	wsID := flag.String("workspace", "", "the workspace whose rows it answers")
	maxConns := flag.Int("max-conns", 16, "pool size")
	flag.Parse()
	cfg, err := pgxpool.ParseConfig(os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	cfg.MaxConns = int32(*maxConns)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		log.Fatal(err)
	}
	f := &floor{pool: pool, ws: *wsID, columns: map[*workspace.Resource]string{}}
	if f.custom, err = newCustomLists(context.Background(), *wsID); err != nil {
		log.Fatal(err)
	}
	for _, r := range workspace.Catalog() {
		f.columns[r] = columns(r)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/{resource}/{id}", f.get)
	mux.HandleFunc("GET /v1/{resource}", f.list)
	mux.HandleFunc("GET /v1/search", f.search)
	log.Fatal(http.ListenAndServe(*listen, mux))
}

type floor struct {
	pool    *pgxpool.Pool
	ws      string
	columns map[*workspace.Resource]string // quoted column lists, made once
	custom  *customLists
}

// customLists are the statements of lists by a custom field, as workspace.Ops.ListSQL
// builds them for the workspace's admin, made once per query string: the definitions they
// read to build one are the service's work, not the statement's.
type customLists struct {
	ops   *workspace.Ops
	admin *auth.Principal
	made  sync.Map // resource?query -> *customList
}

type customList struct {
	sql   string
	args  []any
	keys  int
	limit int
}

func newCustomLists(ctx context.Context, ws string) (*customLists, error) {
	s, err := store.Open(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		return nil, err
	}
	var admin string
	if ws != "" {
		if err := s.Pool().QueryRow(ctx, `SELECT id::text FROM users WHERE workspace_id = $1 AND role = 'admin' LIMIT 1`, ws).Scan(&admin); err != nil {
			return nil, err
		}
	}
	p := &auth.Principal{Identity: store.Identity{UserID: admin, WorkspaceID: ws, Role: "admin", Grants: map[string]string{"crm": "full"}, Scopes: workspace.Scopes()}}
	return &customLists{ops: workspace.NewOps(workspace.Config{Store: s}), admin: p}, nil
}

// isCustom reports whether a list's query names a custom field (a filter or a sort).
func isCustom(q url.Values) bool {
	for k, vs := range q {
		if strings.HasPrefix(k, "custom_fields.") || k == "sort" && strings.Contains(vs[0], "custom_fields.") {
			return true
		}
	}
	return false
}

// customList answers a list by a custom field: the service's statement, run on the
// floor's pool as the schema owner (no row-level security: the database holds one
// workspace) with the planner setting the service's requests run with (store/actor.go).
func (f *floor) customList(w http.ResponseWriter, r *http.Request, res *workspace.Resource) {
	key := res.Name + "?" + r.URL.RawQuery
	v, ok := f.custom.made.Load(key)
	if !ok {
		params, err := workspace.ParseListParams(res, r.URL.Query())
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		sql, args, keys, err := f.custom.ops.ListSQL(r.Context(), f.custom.admin, res, params)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		limit := params.Limit
		if limit == 0 {
			limit = workspace.DefaultLimit
		}
		v, _ = f.custom.made.LoadOrStore(key, &customList{sql: sql, args: args, keys: keys, limit: limit})
	}
	l := v.(*customList)
	br, rows, ok := f.querySetting(w, r, "enable_sort", "off", l.sql, l.args)
	if !ok {
		return
	}
	defer br.Close()
	keys := make([]any, l.keys) // the sort keys, of their own types
	var id string
	dest := make([]any, 0, l.keys+1)
	for i := range keys {
		dest = append(dest, &keys[i])
	}
	writePage(w, rows, l.limit, 64<<10, append(dest, &id), func() string { return id })
}

// columns is the record's column list, as the service selects it.
func columns(r *workspace.Resource) string {
	cols := workspace.Columns(r)
	for i, c := range cols {
		cols[i] = pgx.Identifier{c}.Sanitize()
	}
	return strings.Join(cols, ", ")
}

func (f *floor) get(w http.ResponseWriter, r *http.Request) {
	res := workspace.Lookup(r.PathValue("resource"))
	if res == nil {
		http.NotFound(w, r)
		return
	}
	var rec []byte
	err := f.pool.QueryRow(r.Context(), "SELECT row_to_json(x)::text FROM (SELECT "+f.columns[res]+" FROM "+
		pgx.Identifier{res.Table}.Sanitize()+` WHERE "id" = $1::text::uuid AND "workspace_id" = $2::uuid) x`,
		r.PathValue("id"), f.ws).Scan(&rec)
	if err == pgx.ErrNoRows {
		http.NotFound(w, r)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	body := append(append(append(make([]byte, 0, len(rec)+10), `{"data":`...), rec...), "}\n"...)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

func (f *floor) list(w http.ResponseWriter, r *http.Request) {
	res := workspace.Lookup(r.PathValue("resource"))
	if res == nil {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	if isCustom(q) {
		f.customList(w, r, res)
		return
	}
	limit := 50
	if v := q.Get("limit"); v != "" {
		limit, _ = strconv.Atoi(v)
	}
	args := []any{f.ws}
	where := []string{`"workspace_id" = $1::uuid`}
	for k, vs := range q {
		if k == "limit" || k == "cursor" || k == "apikey" || k == "q" || res.Field(k) == nil {
			continue
		}
		args = append(args, vs[0])
		where = append(where, pgx.Identifier{k}.Sanitize()+" = $"+strconv.Itoa(len(args))+"::text::"+res.Field(k).Type.SQLType())
	}
	if c := q.Get("cursor"); c != "" {
		raw, _ := base64.RawURLEncoding.DecodeString(c)
		at, id, _ := strings.Cut(string(raw), "|")
		args = append(args, at, id)
		where = append(where, `("created_at", "id") < ($`+strconv.Itoa(len(args)-1)+`::timestamptz, $`+strconv.Itoa(len(args))+`::uuid)`)
	}
	order, outer := `"created_at" DESC, "id" DESC`, ` ORDER BY x.created_at DESC, x.id DESC`
	if q.Has("q") { // by relevance, as List walks q (a first page: the cursor is not q's)
		match, rank, err := workspace.SearchMatch(res, q.Get("q"), func(v any) int { args = append(args, v); return len(args) })
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		where = append(where, match)
		order, outer = rank+" DESC, "+order, ""
	}
	rows, err := f.pool.Query(r.Context(), "SELECT x.created_at, x.id::text, row_to_json(x)::text FROM (SELECT "+f.columns[res]+
		" FROM "+pgx.Identifier{res.Table}.Sanitize()+" WHERE "+strings.Join(where, " AND ")+
		" ORDER BY "+order+" LIMIT "+strconv.Itoa(limit+1)+") x"+outer, args...)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	var created time.Time
	var id string
	writePage(w, rows, limit, 64<<10, []any{&created, &id}, func() string {
		return created.Format(time.RFC3339Nano) + "|" + id
	})
}

// search answers GET /v1/search?q=&types=&limit= with the statement the service's Search
// runs, each branch scoped to the workspace by its column instead of by row-level security.
func (f *floor) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := workspace.DefaultSearchLimit
	if v := q.Get("limit"); v != "" {
		limit, _ = strconv.Atoi(v)
	}
	types := workspace.SearchableTypes()
	if v := q.Get("types"); v != "" {
		types = strings.Split(v, ",")
	}
	args := []any{f.ws}
	sql, err := workspace.SearchSQL(q.Get("q"), types, limit, `"workspace_id" = $1::uuid`,
		func(v any) int { args = append(args, v); return len(args) })
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	// Its generic plan, as the service runs it (store.QueryGeneric): one round trip, the
	// setting local to the batch's implicit transaction.
	br, rows, ok := f.querySetting(w, r, "plan_cache_mode", "force_generic_plan", sql, args)
	if !ok {
		return
	}
	defer br.Close()
	var score, created, typ, id string
	writePage(w, rows, limit, 16<<10, []any{&score, &created, &typ, &id}, func() string {
		return score + "|" + created + "|" + typ + "|" + id
	})
}

// writePage sends a page of rows, each its keys (scanned into keys) then its record's
// JSON, as the service does: at most limit records, and when a further row exists a
// next_cursor made by cursor from the last record's keys.
// querySetting runs sql with the setting name local to one round trip (a batch's implicit
// transaction), as the service sets its own; on an error it answers 500 and ok is false.
// The caller closes br after reading rows.
func (f *floor) querySetting(w http.ResponseWriter, r *http.Request, name, value, sql string, args []any) (br pgx.BatchResults, rows pgx.Rows, ok bool) {
	b := &pgx.Batch{}
	b.Queue(`SELECT set_config($1, $2, true)`, name, value)
	b.Queue(sql, args...)
	br = f.pool.SendBatch(r.Context(), b)
	if _, err := br.Exec(); err != nil {
		br.Close()
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return nil, nil, false
	}
	rows, err := br.Query()
	if err != nil {
		br.Close()
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return nil, nil, false
	}
	return br, rows, true
}

func writePage(w http.ResponseWriter, rows pgx.Rows, limit, size int, keys []any, cursor func() string) {
	defer rows.Close()
	body := append(make([]byte, 0, size), `{"data":[`...)
	var rec []byte
	dest := append(keys, &rec)
	var next string
	for n := 0; rows.Next(); n++ {
		if n == limit {
			next = base64.RawURLEncoding.EncodeToString([]byte(cursor()))
			break
		}
		if err := rows.Scan(dest...); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if n > 0 {
			body = append(body, ',')
		}
		body = append(body, rec...)
	}
	if err := rows.Err(); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	body = append(body, `],"next_cursor":`...)
	if next == "" {
		body = append(body, "null"...)
	} else {
		body = strconv.AppendQuote(body, next)
	}
	body = append(body, "}\n"...)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}
