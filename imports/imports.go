// Package imports runs file imports (docs/rest.md, "Imports"): an uploaded CSV or NDJSON
// file is stored in the database (import_parts) as it arrives, then a River job reads it
// back as a stream and writes its rows ChunkRows at a time through the operation layer's
// batch write (workspace.Ops.Batch) as the member who started the import, so the gates,
// row-level security, activity and webhooks of every row hold. A create's chunks are
// written Config.Writers at a time, each on its own connection. Each chunk's rows, its
// failed rows, the import's progress and the chunk's mark (import_chunks: its rows and
// the byte offset past them) commit in one transaction (BatchRequest.Then): a job that
// dies, or yields after its Slice, resumes reading the stored file where its committed
// chunks end, skips any committed beyond, and writes no row twice.
package imports

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/imports/importfile"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/workspace"
)

// Limits of an import's work (docs/rest.md, "Imports"); the file's own are importfile's.
const (
	PreviewRows = 20 // rows a dry run reads
	// ChunkRows is the rows of one chunk: one transaction, one batch written set-based
	// (workspace/batchset.go), more rows than an API batch takes (workspace.MaxBatch) since
	// its cost is per statement, not per row. At most 19 writable fields, two parameters
	// each in an update, keep a chunk's statements far below PostgreSQL's 65,535
	// parameters.
	ChunkRows = 500
	PartSize  = 1 << 20 // bytes per stored part of the file
	// FirstErrors is how many failed rows GET /v1/imports/{id} shows; errors.csv has all.
	FirstErrors = 10
)

const queue = "imports"

// Config is what the service needs; cmd builds it.
type Config struct {
	Store *store.Store
	// Status is the HTTP status of an error (httpx.Status): a row's, and whether a
	// failure is the import's fault (4xx) or the service's (retried).
	Status func(*apierr.Error) int
	// Workers is how many imports one process runs at once (default 2).
	Workers int
	// Writers is how many chunks of one import are written at once, each on its own
	// connection (default 2; an upsert's one at a time; one while the process's API is
	// not quiet, QuietWindow). Each chunk takes a place among
	// the writes in flight as the member (workspace/capacity.go), so an import holds at
	// most Writers of its member's and workspace's shares, and waits when they are taken.
	Writers int
}

// Service creates, runs and reports imports. Its jobs run on the process's River client
// (webhooks.Service's): Register adds the worker and queue to it, Use hands it over.
type Service struct {
	cfg   Config
	ops   *workspace.Ops
	river *river.Client[pgx.Tx]
}

// Slice is how long a job works an import before it yields (a snooze) and is picked up
// again at the committed offset; jobTimeout bounds an attempt, so River's rescuer hands the
// import of a process that died to another worker once the client's rescue horizon
// (RescueStuckJobsAfter) has passed.
const (
	Slice      = 10 * time.Second
	jobTimeout = 25 * time.Second
	// QuietWindow is how long the API must have begun no operation before an import
	// writes on more than one connection (Config.Writers).
	QuietWindow = 500 * time.Millisecond
	// BusyWait is how long an import whose chunk found no place among the writes in
	// flight waits before it tries again.
	BusyWait = time.Second
)

// New builds the service; Register and Use wire it to River, UseOps to the operations.
func New(cfg Config) *Service {
	if cfg.Workers <= 0 {
		cfg.Workers = 2
	}
	if cfg.Writers <= 0 {
		cfg.Writers = 2
	}
	return &Service{cfg: cfg}
}

// Register adds the import worker to workers and returns its queue.
func (s *Service) Register(workers *river.Workers) map[string]river.QueueConfig {
	river.AddWorker(workers, &worker{s: s})
	return map[string]river.QueueConfig{queue: {MaxWorkers: s.cfg.Workers}}
}

// Use sets the River client the jobs are queued on (the one Register's workers run in).
func (s *Service) Use(c *river.Client[pgx.Tx]) { s.river = c }

// UseOps sets the operation layer the rows are written through.
func (s *Service) UseOps(ops *workspace.Ops) { s.ops = ops }

func (s *Service) plan(ctx context.Context, p *auth.Principal, prm *importfile.Params) (*workspace.ImportPlan, error) {
	switch prm.Format {
	case "":
		prm.Format = importfile.FormatCSV
	case importfile.FormatCSV, importfile.FormatNDJSON:
	default:
		return nil, apierr.BadRequest("format must be csv or ndjson")
	}
	if prm.Delimiter == 0 {
		prm.Delimiter = ','
	}
	res := workspace.Lookup(prm.Resource)
	if res == nil && prm.Resource != "" {
		return nil, workspace.UnknownResource(prm.Resource)
	}
	plan, err := s.ops.PlanImport(ctx, p, res, prm.Operation, prm.Match, prm.Mapping)
	if err != nil {
		return nil, err
	}
	if prm.DateFormat != "" {
		layout, ok := workspace.ImportDateFormats[prm.DateFormat]
		if !ok {
			return nil, apierr.BadRequest("date_format must be one of YYYY-MM-DD, DD/MM/YYYY, MM/DD/YYYY, DD.MM.YYYY")
		}
		plan.DateLayout = layout
	}
	plan.CSV = prm.Format == importfile.FormatCSV // an XLSX file arrives as CSV too
	return plan, nil
}

func mappedColumns(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// jobArgs names the import a job runs and the member it runs as.
type jobArgs struct {
	ImportID  string          `json:"import_id"`
	Principal *auth.Principal `json:"principal"`
}

func (jobArgs) Kind() string { return "import" }

func (jobArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: queue, MaxAttempts: 25} // a snooze (Slice) spends no attempt
}

// Create checks the import, stores file (refusing one past importfile.MaxFileBytes or importfile.MaxRows, or
// one that does not parse) and queues its job; it returns the import.
func (s *Service) Create(ctx context.Context, p *auth.Principal, prm importfile.Params, file io.Reader) (json.RawMessage, error) {
	if _, err := s.plan(ctx, p, &prm); err != nil {
		return nil, err
	}
	mapping, _ := json.Marshal(prm.Mapping)
	var id string
	err := s.cfg.Store.InTx(ctx, p.Actor(), func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `INSERT INTO imports (resource, operation, match, mapping, format, delimiter, date_format)
			VALUES ($1, $2, nullif($3, ''), $4, $5, $6, $7) RETURNING id::text`,
			prm.Resource, prm.Operation, prm.Match, mapping, prm.Format, string(prm.Delimiter), prm.DateFormat).Scan(&id); err != nil {
			return err
		}
		w := &partWriter{ctx: ctx, tx: tx, id: id}
		// The file is parsed as it is stored, so a file that is not CSV, or holds too
		// many rows, is refused now rather than found out by the job.
		rows, err := newRowReader(prm.Format, io.TeeReader(file, w), prm.Delimiter, mappedColumns(prm.Mapping))
		if err != nil {
			return err
		}
		n := 0
		for {
			_, err := rows.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
			if n++; n > importfile.MaxRows {
				return apierr.BadRequest("the file holds more than %d rows; split it into several imports", importfile.MaxRows)
			}
		}
		if _, err := io.Copy(io.Discard, io.TeeReader(file, w)); err != nil {
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE imports SET size = $2 WHERE id = $1`, id, w.size); err != nil {
			return err
		}
		// River's tables are the service's: the job is queued as the service (the role the
		// transaction started as), last, once every write of the member is done.
		if _, err := tx.Exec(ctx, `SET LOCAL ROLE NONE`); err != nil {
			return err
		}
		_, err = s.river.InsertTx(ctx, tx, jobArgs{ImportID: id, Principal: p}, nil)
		return err
	})
	if errors.Is(err, errTooBig) {
		return nil, apierr.BadRequest("the file exceeds %d MB; split it into several imports", importfile.MaxFileBytes>>20)
	}
	if err != nil {
		var e *apierr.Error
		if errors.As(err, &e) {
			return nil, e
		}
		return nil, store.Internal(err)
	}
	return s.Get(ctx, p, id)
}

// PreviewRow is one row of a dry run: what would be written, or why not.
type PreviewRow struct {
	Row    int                  `json:"row"`
	Status int                  `json:"status"`
	Record json.RawMessage      `json:"record,omitempty"`
	Error  *workspace.ItemError `json:"error,omitempty"`
}

// errDryRun rolls a dry run's batch back.
var errDryRun = errors.New("imports: dry run")

// Preview reads the first PreviewRows rows of file and runs them as the import would, in a
// transaction rolled back: the rows' results say what would be written and why not.
func (s *Service) Preview(ctx context.Context, p *auth.Principal, prm importfile.Params, file io.Reader, status func(*apierr.Error) int) (json.RawMessage, error) {
	plan, err := s.plan(ctx, p, &prm)
	if err != nil {
		return nil, err
	}
	rows, err := newRowReader(prm.Format, io.LimitReader(file, importfile.MaxFileBytes), prm.Delimiter, mappedColumns(prm.Mapping))
	if err != nil {
		return nil, err
	}
	ch := newChunker(plan, rows.Header())
	var chunk []pending
	for len(chunk) < PreviewRows {
		cells, err := rows.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		chunk = append(chunk, ch.row(len(chunk)+1, cells))
	}
	out := make([]PreviewRow, len(chunk))
	req, index := batchOf(plan, chunk)
	var items []workspace.BatchItem
	if len(req.Records) > 0 {
		req.Then = func(_ context.Context, _ pgx.Tx, its []workspace.BatchItem) error { items = its; return errDryRun }
		if _, err := s.ops.Batch(ctx, p, plan.Resource, req, "", status); items == nil {
			return nil, err
		}
	}
	for i, pr := range chunk {
		out[i] = PreviewRow{Row: pr.row}
		if pr.err != nil {
			out[i].Status, out[i].Error = http.StatusUnprocessableEntity, pr.err
		}
	}
	for j, it := range items {
		i := index[j]
		out[i].Status, out[i].Record, out[i].Error = it.Status, it.Record, it.Error
	}
	return json.Marshal(map[string]any{"dry_run": true, "columns": rows.Header(), "rows": out})
}

// Get returns the import id as p sees it: not_found for another member's or workspace's.
func (s *Service) Get(ctx context.Context, p *auth.Principal, id string) (json.RawMessage, error) {
	if !isUUID(id) {
		return nil, notFound(id)
	}
	var out json.RawMessage
	err := s.cfg.Store.Query(ctx, p.Actor(), `SELECT json_build_object('id', i.id, 'resource', resource, 'operation', operation,
		'match', match, 'status', status, 'rows_read', row_offset, 'rows_created', rows_created, 'rows_updated', rows_updated,
		'rows_failed', rows_failed, 'failure', failure, 'size', size, 'created_at', created_at, 'started_at', started_at,
		'finished_at', finished_at, 'cancel_requested', cancel_requested,
		'first_errors', coalesce((SELECT json_agg(json_build_object('row', e.row_number, 'error', e.reason) ORDER BY e.row_number)
		   FROM (SELECT * FROM import_errors WHERE import_id = i.id ORDER BY row_number LIMIT $2) e), '[]'))
		FROM imports i WHERE i.id = $1`, []any{id, FirstErrors}, func(rows pgx.Rows) error {
		if rows.Next() {
			return rows.Scan(&out)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, store.Internal(err)
	}
	if out == nil {
		return nil, notFound(id)
	}
	return out, nil
}

// Cancel asks the import to stop after its current chunk; a queued one stops before any.
func (s *Service) Cancel(ctx context.Context, p *auth.Principal, id string) (json.RawMessage, error) {
	if !isUUID(id) {
		return nil, notFound(id)
	}
	found := false
	err := s.cfg.Store.Query(ctx, p.Actor(), `UPDATE imports SET cancel_requested = true,
		status = CASE WHEN status = 'queued' THEN 'cancelled' ELSE status END,
		finished_at = CASE WHEN status = 'queued' THEN now() ELSE finished_at END
		WHERE id = $1 RETURNING true`, []any{id}, func(rows pgx.Rows) error {
		found = rows.Next()
		return rows.Err()
	})
	if err != nil {
		return nil, store.Internal(err)
	}
	if !found {
		return nil, notFound(id)
	}
	return s.Get(ctx, p, id)
}

// Errors writes every failed row of the import as CSV: its row number, the reason, then
// the row's cells under the file's header.
func (s *Service) Errors(ctx context.Context, p *auth.Principal, id string, w func(row []string) error) error {
	if _, err := s.Get(ctx, p, id); err != nil {
		return err
	}
	var header []string
	if err := s.cfg.Store.Query(ctx, p.Actor(), `SELECT coalesce(header, '{}') FROM imports WHERE id = $1`, []any{id}, func(rows pgx.Rows) error {
		for rows.Next() {
			if err := rows.Scan(&header); err != nil {
				return err
			}
		}
		return rows.Err()
	}); err != nil {
		return store.Internal(err)
	}
	if err := w(append([]string{"row", "error"}, header...)); err != nil {
		return err
	}
	// Pages of 1,000 rows by row number: a long error report is never held whole.
	after := int64(0)
	for {
		n := 0
		err := s.cfg.Store.Query(ctx, p.Actor(), `SELECT row_number, reason, cells FROM import_errors
			WHERE import_id = $1 AND row_number > $2 ORDER BY row_number LIMIT 1000`, []any{id, after}, func(rows pgx.Rows) error {
			for rows.Next() {
				var reason string
				var cells []string
				if err := rows.Scan(&after, &reason, &cells); err != nil {
					return err
				}
				n++
				row := append([]string{fmt.Sprint(after), reason}, cells...)
				for i := range row {
					row[i] = neutralise(row[i])
				}
				if err := w(row); err != nil {
					return err
				}
			}
			return rows.Err()
		})
		if err != nil {
			return err
		}
		if n < 1000 {
			return nil
		}
	}
}

// neutralise keeps a spreadsheet from running a file's cell as a formula: the cell as the
// import read it (workspace.RestoreCell), written as an export writes text, so the row
// fixed and imported again reads as it did the first time.
func neutralise(cell string) string { return workspace.NeutraliseCell(workspace.RestoreCell(cell)) }

func notFound(id string) *apierr.Error {
	return apierr.Errorf(apierr.CodeNotFound, "no import %q", clip(id))
}

func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f', 'A' <= c && c <= 'F':
		default:
			return false
		}
	}
	return true
}
