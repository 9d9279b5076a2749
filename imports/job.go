package imports

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/imports/importfile"
	"github.com/agencyos/workspaced/workspace"
)

// pending is one row of the file on its way to a batch.
type pending struct {
	row   int // 1 is the first row after the header
	cells []string
	rec   map[string]json.RawMessage
	key   string               // the upsert key the row is the file's first to carry
	err   *workspace.ItemError // refused before the batch: a bad cell, a key seen before
}

// chunker turns rows into batch records, remembering each upsert key it has seen so a key
// repeated within the file is refused (the first row with the key is written).
type chunker struct {
	plan   *workspace.ImportPlan
	header []string
	seen   map[string]int
}

func newChunker(plan *workspace.ImportPlan, header []string) *chunker {
	return &chunker{plan: plan, header: header, seen: map[string]int{}}
}

// mapped is a row's cells of the mapped columns, by header.
func (c *chunker) mapped(cells []string) map[string]string {
	m := make(map[string]string, len(c.header))
	for i, h := range c.header {
		if i < len(cells) && c.plan.Mapped(h) {
			m[h] = cells[i]
		}
	}
	return m
}

func (c *chunker) row(n int, cells []string) pending {
	m := c.mapped(cells)
	pr := pending{row: n, cells: cells}
	if key := c.plan.MatchKey(m); key != "" {
		if first, ok := c.seen[key]; ok {
			pr.err = &workspace.ItemError{Code: apierr.CodeValidation,
				Message: fmt.Sprintf("%s %q is also on row %d of the file; each key may appear once", c.plan.Match, clip(key), first)}
			return pr
		}
		c.seen[key] = n
		pr.key = key
	}
	rec, problems := c.plan.Record(m)
	if len(problems) > 0 {
		msg := make([]string, len(problems))
		for i, f := range problems {
			msg[i] = f.Field + " " + f.Problem
		}
		pr.err = &workspace.ItemError{Code: apierr.CodeValidation, Message: "fix these cells: " + strings.Join(msg, "; "), Fields: problems}
		return pr
	}
	pr.rec = rec
	return pr
}

// skip reads row n of a chunk committed before: only its upsert key matters now.
func (c *chunker) skip(n int, cells []string) {
	if key := c.plan.MatchKey(c.mapped(cells)); key != "" {
		if _, ok := c.seen[key]; !ok {
			c.seen[key] = n
		}
	}
}

// batchOf is the chunk's batch request and, for each of its records, the chunk's index.
func batchOf(plan *workspace.ImportPlan, chunk []pending) (*workspace.BatchRequest, []int) {
	req := &workspace.BatchRequest{Operation: plan.Operation, Match: plan.Match}
	var index []int
	for i, pr := range chunk {
		if pr.err == nil {
			req.Records = append(req.Records, pr.rec)
			index = append(index, i)
		}
	}
	return req, index
}

// reason is a failed row's error as one line of errors.csv (the message names the
// fields at fault).
func reason(e *workspace.ItemError) string { return string(e.Code) + ": " + e.Message }

type worker struct {
	river.WorkerDefaults[jobArgs]
	s *Service
}

// errMoved says another worker committed the import's progress since this one read it.
var errMoved = errors.New("imports: the import moved on")

// errEnded says a chunk's failure ended the import (it is marked failed).
var errEnded = errors.New("imports: the import failed")

// errCancelled says a chunk's commit found a cancel asked for.
var errCancelled = errors.New("imports: cancel asked")

// errBusy says a chunk was refused a place among the writes in flight (the member's or
// the workspace's fair share is taken, or the server's capacity: workspace/capacity.go):
// the import waits and tries again; it is background work and yields to the rest.
var errBusy = errors.New("imports: no place for a chunk now")

// Timeout bounds an attempt; the worker yields after Slice, well within it.
func (w *worker) Timeout(*river.Job[jobArgs]) time.Duration { return jobTimeout }

func (w *worker) Work(ctx context.Context, job *river.Job[jobArgs]) error {
	until := time.Now().Add(Slice)
	for {
		err := w.s.run(ctx, job.Args.Principal, job.Args.ImportID, until)
		switch {
		case errors.Is(err, errSlice):
			return river.JobSnooze(0)
		case errors.Is(err, errBusy):
			return river.JobSnooze(BusyWait)
		case !errors.Is(err, errMoved):
			return err
		}
	}
}

// errSlice says the job worked its Slice: it yields and is run again at once.
var errSlice = errors.New("imports: slice over")

// importRow is what the job reads of an import.
type importRow struct {
	prm    importfile.Params
	status string
	cancel bool
	header []string
}

func (s *Service) load(ctx context.Context, p *auth.Principal, id string) (*importRow, error) {
	var r *importRow
	err := s.cfg.Store.Query(ctx, p.Actor(), `SELECT resource, operation, coalesce(match, ''), mapping, format, delimiter, date_format,
		status, cancel_requested, header FROM imports WHERE id = $1`, []any{id}, func(rows pgx.Rows) error {
		if !rows.Next() {
			return rows.Err()
		}
		r = &importRow{}
		var delim string
		if err := rows.Scan(&r.prm.Resource, &r.prm.Operation, &r.prm.Match, &r.prm.Mapping, &r.prm.Format, &delim,
			&r.prm.DateFormat, &r.status, &r.cancel, &r.header); err != nil {
			return err
		}
		r.prm.Delimiter = []rune(delim)[0]
		return nil
	})
	return r, err
}

// resumePoint is where a run of the import starts reading its file: after the longest run
// of chunks committed from the file's start whose end is known (import_chunks), skipping
// the chunks committed beyond it. The upsert keys of every committed chunk come back too.
type resumePoint struct {
	row    int         // the rows before offset
	offset int64       // the byte offset to read on from; 0 is the file's start, header and all
	skip   map[int]int // committed chunks past row: first row -> rows
	firsts []int       // skip's first rows, in order
	keys   []string    // the committed chunks' upsert keys
	keyRow []int64     // and the row each is first on
}

// next is the first row of the next committed chunk after row (0: none).
func (r *resumePoint) next(row int) int {
	for _, f := range r.firsts {
		if f > row {
			return f
		}
	}
	return 0
}

func (s *Service) resumePoint(ctx context.Context, p *auth.Principal, id string) (*resumePoint, error) {
	at := &resumePoint{skip: map[int]int{}}
	next := 1 // the first row after the run of chunks from the file's start
	type chunk struct{ first, rows int }
	var chunks []chunk
	err := s.cfg.Store.Query(ctx, p.Actor(), `SELECT first_row, rows, coalesce(end_offset, -1), keys, key_rows
		FROM import_chunks WHERE import_id = $1 ORDER BY first_row`, []any{id}, func(rows pgx.Rows) error {
		for rows.Next() {
			var c chunk
			var end int64
			var keys []string
			var keyRows []int64
			if err := rows.Scan(&c.first, &c.rows, &end, &keys, &keyRows); err != nil {
				return err
			}
			at.keys, at.keyRow = append(at.keys, keys...), append(at.keyRow, keyRows...)
			if c.first == next {
				next = c.first + c.rows
				if end >= 0 {
					at.row, at.offset = next-1, end
				}
			}
			chunks = append(chunks, c)
		}
		return rows.Err()
	})
	for _, c := range chunks {
		if c.first > at.row {
			at.skip[c.first] = c.rows
			at.firsts = append(at.firsts, c.first)
		}
	}
	return at, err
}

// finish ends the import with status, and failure's message when it failed.
func (s *Service) finish(ctx context.Context, p *auth.Principal, id, status, failure string) error {
	return s.cfg.Store.Query(ctx, p.Actor(), `UPDATE imports SET status = $2, failure = nullif($3, ''), finished_at = now()
		WHERE id = $1 AND status IN ('queued', 'running')`, []any{id, status, failure}, func(pgx.Rows) error { return nil })
}

// run works the import from where its committed chunks end to the end of the file, a
// cancel, or a failure of the whole import (the member lost the right to write, the file
// no longer parses). errMoved: another worker committed progress first; start again from
// there.
func (s *Service) run(ctx context.Context, p *auth.Principal, id string, until time.Time) error {
	ctx = workspace.Background(ctx) // the import's operations are not the API's traffic
	imp, err := s.load(ctx, p, id)
	if err != nil {
		return err
	}
	if imp == nil || (imp.status != "queued" && imp.status != "running") {
		return nil // gone (the member was removed) or ended
	}
	if imp.cancel {
		return s.finish(ctx, p, id, "cancelled", "")
	}
	// The member as they are now: a member suspended since, or whose role or grants
	// changed, is judged so from the next slice on, not as they were at the upload.
	var active bool
	var role string
	var grants map[string]string
	if err := s.cfg.Store.Query(ctx, p.Actor(), `SELECT status = 'active', role, grants FROM users WHERE id = app_user_id()`, nil, func(rows pgx.Rows) error {
		for rows.Next() {
			if err := rows.Scan(&active, &role, &grants); err != nil {
				return err
			}
		}
		return rows.Err()
	}); err != nil {
		return err
	}
	if !active {
		return s.finish(ctx, p, id, "failed", "the member who started the import is no longer active")
	}
	now := *p
	now.Role, now.Grants = role, grants
	p = &now
	plan, err := s.plan(ctx, p, &imp.prm)
	if err != nil {
		return s.fail(ctx, p, id, err)
	}
	at, err := s.resumePoint(ctx, p, id)
	if err != nil {
		return err
	}
	rows, err := openRows(imp.prm.Format, openParts(ctx, s.cfg.Store, p, id, at.offset), imp.prm.Delimiter,
		mappedColumns(imp.prm.Mapping), imp.header, at.offset)
	if err != nil {
		return s.fail(ctx, p, id, err)
	}
	if err := s.cfg.Store.Query(ctx, p.Actor(), `UPDATE imports SET status = 'running', started_at = coalesce(started_at, now()), header = $2
		WHERE id = $1`, []any{id, rows.Header()}, func(pgx.Rows) error { return nil }); err != nil {
		return err
	}
	ch := newChunker(plan, rows.Header())
	for i, key := range at.keys {
		ch.seen[key] = int(at.keyRow[i])
	}
	// An upsert's chunks are written one at a time, in the file's order: two keys the
	// database takes for one (two spellings of a website's domain) are then written in
	// the file's order too. A create's chunks have no order to keep.
	writers := s.cfg.Writers
	if plan.Operation != workspace.BatchCreate {
		writers = 1
	}
	return s.write(ctx, p, id, ch, rows, at, writers, until)
}

// work is a chunk on its way to a writer, and the byte offset in the file past its rows.
type work struct {
	chunk []pending
	end   int64
}

// write reads the file's chunks from at on and hands them to writers writers, each
// committing its chunks on its own connection, until the file ends, until passes, or a
// chunk's commit ends the run (a cancel, a failure, another worker's progress).
func (s *Service) write(ctx context.Context, p *auth.Principal, id string, ch *chunker, rows rowReader, at *resumePoint,
	writers int, until time.Time) error {
	jobs := make(chan work)
	halt := make(chan struct{})
	var mu sync.Mutex
	var stop error // the first writer's outcome that ends the run
	end := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if stop == nil {
			stop = err
			close(halt)
		}
	}
	read := make(chan struct{}) // closed once every chunk is handed out
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			for {
				if i > 0 && !s.quiet(halt, read) {
					return
				}
				w, ok := <-jobs
				if !ok {
					return
				}
				select {
				case <-halt:
					continue
				default:
				}
				cancel, err := s.commit(ctx, p, id, ch.plan, w.chunk, w.end)
				switch {
				case err != nil:
					end(err)
				case cancel:
					end(errCancelled)
				}
			}
		})
	}
	n := at.row
	var readErr error
	eof := false
read:
	for {
		first := n + 1
		if k, ok := at.skip[first]; ok { // committed: only its keys matter
			for range k {
				cells, err := rows.Next()
				if errors.Is(err, io.EOF) {
					err = fmt.Errorf("imports: the stored file ends inside the chunk committed at row %d", first)
				}
				if err != nil {
					readErr = err
					break read
				}
				n++
				ch.skip(n, cells)
			}
			continue
		}
		limit := ChunkRows
		if next := at.next(n); next > 0 {
			limit = min(limit, next-first)
		}
		var chunk []pending
		for len(chunk) < limit {
			cells, err := rows.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				readErr = err
				break read
			}
			n++
			chunk = append(chunk, ch.row(n, cells))
		}
		if len(chunk) == 0 {
			eof = true
			break
		}
		select {
		case jobs <- work{chunk: chunk, end: rows.Offset()}:
		case <-halt:
			break read
		}
		if time.Now().After(until) {
			break
		}
	}
	close(jobs)
	close(read)
	wg.Wait()
	switch {
	case errors.Is(stop, errCancelled):
		return s.finish(ctx, p, id, "cancelled", "")
	case errors.Is(stop, errEnded):
		return nil
	case stop != nil:
		return stop
	case readErr != nil:
		return s.fail(ctx, p, id, readErr)
	case eof:
		return s.finish(ctx, p, id, "completed", "")
	}
	return errSlice
}

// quiet waits until no API operation has begun in this process for QuietWindow
// (workspace.Ops.QuietFor), and reports false if halt or read closes first. Writers beyond
// the first wait for it before each chunk: with them the import takes every core, and the
// API's requests wait for one (docs/performance.md, "Imports").
func (s *Service) quiet(halt, read <-chan struct{}) bool {
	for {
		wait := s.ops.QuietFor(QuietWindow)
		if wait == 0 {
			return true
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-halt:
			t.Stop()
			return false
		case <-read:
			t.Stop()
			return false
		}
	}
}

// fail ends the import as failed when err is the import's fault (a 4xx); anything else
// is returned for River to retry.
func (s *Service) fail(ctx context.Context, p *auth.Principal, id string, err error) error {
	var e *apierr.Error
	if errors.As(err, &e) && s.cfg.Status(e) < 500 {
		return s.finish(ctx, p, id, "failed", e.Message)
	}
	return err
}

// commit writes a chunk of rows as one batch and, in its transaction, the chunk's row of
// import_chunks (end: the byte offset past its rows), the import's progress and the
// chunk's failed rows. It reports whether a cancel is asked.
func (s *Service) commit(ctx context.Context, p *auth.Principal, id string, plan *workspace.ImportPlan, chunk []pending, end int64) (bool, error) {
	var cancel, moved bool
	var keys []string
	var keyRows []int64
	for _, pr := range chunk {
		if pr.key != "" {
			keys, keyRows = append(keys, pr.key), append(keyRows, int64(pr.row))
		}
	}
	progress := func(ctx context.Context, tx pgx.Tx, items []workspace.BatchItem) error {
		type failed struct {
			Row    int      `json:"r"`
			Reason string   `json:"e"`
			Cells  []string `json:"c"`
		}
		var fails []failed
		var created, updated int
		j := 0
		for _, pr := range chunk {
			e := pr.err
			if e == nil {
				switch it := items[j]; {
				case it.Error != nil:
					e = it.Error
				case it.Status == 201:
					created++
				default:
					updated++
				}
				j++
			}
			if e != nil {
				cells := pr.cells
				if cells == nil {
					cells = []string{}
				}
				fails = append(fails, failed{pr.row, reason(e), cells})
			}
		}
		err := tx.QueryRow(ctx, `UPDATE imports SET row_offset = row_offset + $2, rows_created = rows_created + $3,
			rows_updated = rows_updated + $4, rows_failed = rows_failed + $5
			WHERE id = $1 AND status = 'running' RETURNING cancel_requested`,
			id, len(chunk), created, updated, len(fails)).Scan(&cancel)
		if errors.Is(err, pgx.ErrNoRows) {
			moved = true
			return errMoved
		}
		if err != nil {
			return err
		}
		// The UPDATE holds the import's row to the commit, so this sees every chunk
		// committed before: a chunk overlapping one (another worker's) is not written.
		tag, err := tx.Exec(ctx, `INSERT INTO import_chunks (import_id, first_row, rows, end_offset, keys, key_rows)
			SELECT $1, $2::bigint, $3::integer, $4::bigint, coalesce($5::text[], '{}'), coalesce($6::bigint[], '{}')
			WHERE NOT EXISTS (SELECT FROM import_chunks WHERE import_id = $1 AND first_row < $2::bigint + $3::integer AND first_row + rows > $2::bigint)`,
			id, chunk[0].row, len(chunk), end, keys, keyRows)
		if err == nil && tag.RowsAffected() == 0 {
			moved = true
			return errMoved
		}
		if err != nil || len(fails) == 0 {
			return err
		}
		b, _ := json.Marshal(fails)
		_, err = tx.Exec(ctx, `INSERT INTO import_errors (import_id, row_number, reason, cells)
			SELECT $1, (e->>'r')::bigint, e->>'e', ARRAY(SELECT json_array_elements_text(e->'c'))
			FROM json_array_elements($2::json) e`, id, b)
		return err
	}
	req, _ := batchOf(plan, chunk)
	req.IDsOnly = true // the progress reads each row's outcome, never its record
	var err error
	if len(req.Records) == 0 {
		err = s.cfg.Store.InTx(ctx, p.Actor(), func(tx pgx.Tx) error { return progress(ctx, tx, nil) })
	} else {
		req.Then = progress
		_, err = s.ops.Batch(ctx, p, workspace.Lookup(plan.Resource.Name), req, "", s.cfg.Status)
	}
	var e *apierr.Error
	switch {
	case moved:
		return false, errMoved
	case errors.As(err, &e) && (e.Code == apierr.CodeRateLimited || e.Code == apierr.CodeOverloaded):
		return false, errBusy
	case err != nil:
		if err := s.fail(ctx, p, id, err); err != nil {
			return false, err
		}
		return false, errEnded
	}
	return cancel, nil
}
