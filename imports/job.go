package imports

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
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

func (c *chunker) row(n int, cells []string) pending {
	m := make(map[string]string, len(c.header))
	for i, h := range c.header {
		if i < len(cells) && c.plan.Mapped(h) {
			m[h] = cells[i]
		}
	}
	pr := pending{row: n, cells: cells}
	if key := c.plan.MatchKey(m); key != "" {
		if first, ok := c.seen[key]; ok {
			pr.err = &workspace.ItemError{Code: apierr.CodeValidation,
				Message: fmt.Sprintf("%s %q is also on row %d of the file; each key may appear once", c.plan.Match, clip(key), first)}
			return pr
		}
		c.seen[key] = n
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

// batch is the chunk's batch request and, for each of its records, the chunk's index.
func (c *chunker) batch(chunk []pending) (*workspace.BatchRequest, []int) {
	req := &workspace.BatchRequest{Operation: c.plan.Operation, Match: c.plan.Match}
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

// Timeout bounds an attempt; the worker yields after Slice, well within it.
func (w *worker) Timeout(*river.Job[jobArgs]) time.Duration { return jobTimeout }

func (w *worker) Work(ctx context.Context, job *river.Job[jobArgs]) error {
	until := time.Now().Add(Slice)
	for {
		err := w.s.run(ctx, job.Args.Principal, job.Args.ImportID, until)
		switch {
		case errors.Is(err, errSlice):
			return river.JobSnooze(0)
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
	offset int64
}

func (s *Service) load(ctx context.Context, p *auth.Principal, id string) (*importRow, error) {
	var r *importRow
	err := s.cfg.Store.Query(ctx, p.Actor(), `SELECT resource, operation, coalesce(match, ''), mapping, format, delimiter, date_format,
		status, cancel_requested, row_offset FROM imports WHERE id = $1`, []any{id}, func(rows pgx.Rows) error {
		if !rows.Next() {
			return rows.Err()
		}
		r = &importRow{}
		var delim string
		if err := rows.Scan(&r.prm.Resource, &r.prm.Operation, &r.prm.Match, &r.prm.Mapping, &r.prm.Format, &delim,
			&r.prm.DateFormat, &r.status, &r.cancel, &r.offset); err != nil {
			return err
		}
		r.prm.Delimiter = []rune(delim)[0]
		return nil
	})
	return r, err
}

// finish ends the import with status, and failure's message when it failed.
func (s *Service) finish(ctx context.Context, p *auth.Principal, id, status, failure string) error {
	return s.cfg.Store.Query(ctx, p.Actor(), `UPDATE imports SET status = $2, failure = nullif($3, ''), finished_at = now()
		WHERE id = $1 AND status IN ('queued', 'running')`, []any{id, status, failure}, func(pgx.Rows) error { return nil })
}

// run works the import from its stored offset to the end of the file, a cancel, or a
// failure of the whole import (the member lost the right to write, the file no longer
// parses). errMoved: another worker committed progress first; start again from there.
func (s *Service) run(ctx context.Context, p *auth.Principal, id string, until time.Time) error {
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
	rows, err := newRowReader(imp.prm.Format, openParts(ctx, s.cfg.Store, p, id), imp.prm.Delimiter, mappedColumns(imp.prm.Mapping))
	if err != nil {
		return s.fail(ctx, p, id, err)
	}
	if err := s.cfg.Store.Query(ctx, p.Actor(), `UPDATE imports SET status = 'running', started_at = coalesce(started_at, now()), header = $2
		WHERE id = $1`, []any{id, rows.Header()}, func(pgx.Rows) error { return nil }); err != nil {
		return err
	}
	ch := newChunker(plan, rows.Header())
	n := 0
	for ; int64(n) < imp.offset; n++ { // the rows done before: only their keys matter now
		cells, err := rows.Next()
		if err != nil {
			return s.fail(ctx, p, id, err)
		}
		ch.row(n+1, cells)
	}
	for {
		var chunk []pending
		for len(chunk) < ChunkRows {
			cells, err := rows.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return s.fail(ctx, p, id, err)
			}
			n++
			chunk = append(chunk, ch.row(n, cells))
		}
		if len(chunk) == 0 {
			return s.finish(ctx, p, id, "completed", "")
		}
		cancel, err := s.commit(ctx, p, id, ch, chunk, int64(n-len(chunk)), int64(n))
		if errors.Is(err, errEnded) {
			return nil
		}
		if err != nil {
			return err
		}
		if cancel {
			return s.finish(ctx, p, id, "cancelled", "")
		}
		if time.Now().After(until) {
			return errSlice
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

// commit writes a chunk of rows (from, to] as one batch and, in its transaction, the
// import's progress and the chunk's failed rows. It reports whether a cancel is asked.
func (s *Service) commit(ctx context.Context, p *auth.Principal, id string, ch *chunker, chunk []pending, from, to int64) (bool, error) {
	var cancel, moved bool
	progress := func(ctx context.Context, tx pgx.Tx, data json.RawMessage) error {
		var items []workspace.BatchItem
		if data != nil {
			if err := json.Unmarshal(data, &items); err != nil {
				return err
			}
		}
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
		err := tx.QueryRow(ctx, `UPDATE imports SET row_offset = $3, rows_created = rows_created + $4,
			rows_updated = rows_updated + $5, rows_failed = rows_failed + $6
			WHERE id = $1 AND row_offset = $2 AND status = 'running' RETURNING cancel_requested`,
			id, from, to, created, updated, len(fails)).Scan(&cancel)
		if errors.Is(err, pgx.ErrNoRows) {
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
	req, _ := ch.batch(chunk)
	var err error
	if len(req.Records) == 0 {
		err = s.cfg.Store.InTx(ctx, p.Actor(), func(tx pgx.Tx) error { return progress(ctx, tx, nil) })
	} else {
		req.Then = progress
		_, err = s.ops.Batch(ctx, p, workspace.Lookup(ch.plan.Resource.Name), req, "", s.cfg.Status)
	}
	switch {
	case moved:
		return false, errMoved
	case err != nil:
		if err := s.fail(ctx, p, id, err); err != nil {
			return false, err
		}
		return false, errEnded
	}
	return cancel, nil
}
