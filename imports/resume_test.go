package imports

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/imports/importfile"
	riverqueue "github.com/agencyos/workspaced/queue"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

// resumeFixture is a service whose jobs are queued but never started: the test runs the
// import's slices itself (run), so it decides where each one stops.
type resumeFixture struct {
	svc *Service
	s   *store.Store
	p   *auth.Principal
}

func newResumeFixture(t *testing.T) *resumeFixture {
	t.Helper()
	s := storetest.New(t)
	ops := workspace.NewOps(workspace.Config{Store: s})
	fx := storetest.Workspace(t, s, workspace.Scopes())
	svc := New(Config{Store: s, Status: httpx.Status})
	svc.UseOps(ops)
	workers := river.NewWorkers()
	client, err := river.NewClient(riverqueue.Driver(s), &river.Config{Queues: svc.Register(workers), Workers: workers,
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	svc.Use(client)
	return &resumeFixture{svc: svc, s: s, p: fx.Admin}
}

// create stores file as an import of people and returns its id.
func (f *resumeFixture) create(t *testing.T, operation, match, file string) string {
	t.Helper()
	data, err := f.svc.Create(context.Background(), f.p, importfile.Params{Resource: "people", Operation: operation, Match: match,
		Mapping: map[string]string{"Name": "name", "Email": "email"}}, strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	var imp struct{ ID string }
	_ = json.Unmarshal(data, &imp)
	return imp.ID
}

// slice runs one slice of the import that ends after its first chunk (until has passed).
func (f *resumeFixture) slice(t *testing.T, id string) error {
	t.Helper()
	err := f.svc.run(context.Background(), f.p, id, time.Time{})
	if err != nil && !errors.Is(err, errSlice) {
		t.Fatal(err)
	}
	return err
}

// finish runs the import to its end in one slice; it returns the import's status and
// counts.
func (f *resumeFixture) finish(t *testing.T, id string) (status string, read, created, updated, failed int) {
	t.Helper()
	if err := f.svc.run(context.Background(), f.p, id, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	f.query(t, `SELECT status, row_offset, rows_created, rows_updated, rows_failed FROM imports WHERE id = $1`, []any{id},
		&status, &read, &created, &updated, &failed)
	return
}

func (f *resumeFixture) query(t *testing.T, sql string, args []any, dest ...any) {
	t.Helper()
	if err := f.s.Query(context.Background(), f.p.Actor(), sql, args, func(rows pgx.Rows) error {
		for rows.Next() {
			if err := rows.Scan(dest...); err != nil {
				return err
			}
		}
		return rows.Err()
	}); err != nil {
		t.Fatal(err)
	}
}

// people counts the workspace's people whose email matches like, and their distinct emails.
func (f *resumeFixture) people(t *testing.T, like string) (n, distinct int) {
	f.query(t, `SELECT count(*), count(DISTINCT email) FROM people WHERE email LIKE $1`, []any{like}, &n, &distinct)
	return
}

// spoil overwrites the stored file's byte at (from 0) with a bare quote: a CSV reader
// that reads that byte again refuses the file.
func spoil(t *testing.T, id string, at int) {
	t.Helper()
	if _, err := storetest.Pool(t).Exec(context.Background(), `UPDATE import_parts SET data = overlay(data placing '"'::bytea from $2 for 1)
		WHERE import_id = $1 AND seq = 0`, id, at+1); err != nil {
		t.Fatal(err)
	}
}

func peopleCSV(n int, email func(i int) string) string {
	var b strings.Builder
	b.WriteString("Name,Email\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "Person %d,%s\n", i, email(i))
	}
	return b.String()
}

// A slice after the first resumes at the byte offset its committed chunks end at: the
// rows before it are not read again (a spoiled byte there goes unnoticed), and every row
// of the file is written once.
func TestImportResumesAtTheCommittedOffset(t *testing.T) {
	f := newResumeFixture(t)
	const rows = 1600
	id := f.create(t, "create", "", peopleCSV(rows, func(i int) string { return fmt.Sprintf("r%d@resume.example", i) }))
	if err := f.slice(t, id); !errors.Is(err, errSlice) {
		t.Fatalf("the first slice: %v, want it to yield after its chunk", err)
	}
	var first, n int
	var end int64
	f.query(t, `SELECT first_row, rows, end_offset FROM import_chunks WHERE import_id = $1`, []any{id}, &first, &n, &end)
	if first != 1 || n != ChunkRows || end != int64(len(peopleCSV(ChunkRows, func(i int) string { return fmt.Sprintf("r%d@resume.example", i) }))) {
		t.Fatalf("the committed chunk: first row %d, %d rows, ends at byte %d", first, n, end)
	}
	spoil(t, id, 20) // row 1
	status, read, created, _, failed := f.finish(t, id)
	if status != "completed" || read != rows || created != rows || failed != 0 {
		t.Fatalf("the import: %s, %d read, %d created, %d failed; want completed, %d of each", status, read, created, failed, rows)
	}
	if n, distinct := f.people(t, "%@resume.example"); n != rows || distinct != rows {
		t.Fatalf("%d people, %d distinct emails; want %d", n, distinct, rows)
	}
}

// An upsert's key repeated across a resume is refused as within one slice: the keys the
// committed chunks were first with come back with them, not from reading the file again.
func TestImportResumeKeepsTheKeysSeen(t *testing.T) {
	f := newResumeFixture(t)
	const rows = 700
	id := f.create(t, "upsert", "email", peopleCSV(rows, func(i int) string {
		if i == 650 {
			return " K2@Keys.Example" // row 2's key, spelled otherwise
		}
		return fmt.Sprintf("k%d@keys.example", i)
	}))
	if err := f.slice(t, id); !errors.Is(err, errSlice) {
		t.Fatalf("the first slice: %v", err)
	}
	spoil(t, id, 20)
	status, read, created, _, failed := f.finish(t, id)
	if status != "completed" || read != rows || created != rows-1 || failed != 1 {
		t.Fatalf("the import: %s, %d read, %d created, %d failed; want completed, %d, %d, 1", status, read, created, failed, rows, rows-1)
	}
	var row int
	var reason string
	f.query(t, `SELECT row_number, reason FROM import_errors WHERE import_id = $1`, []any{id}, &row, &reason)
	if row != 650 || !strings.Contains(reason, "also on row 2 ") {
		t.Fatalf("failed row %d: %q; want row 650, its key also on row 2", row, reason)
	}
}

// A resume skips chunks committed beyond the run from the file's start (two writers
// commit out of order) and reads rows whose committed chunk has no known end from the
// start: no committed row is written again.
func TestImportResumeSkipsCommittedChunks(t *testing.T) {
	for _, tc := range []struct {
		name      string
		first     int
		rows      int
		knownEnd  bool
		untouched string // the emails of the rows the chunk holds, which the resume must not write
	}{
		{"a chunk committed out of order", 501, 500, true, "o%@skip.example"},
		{"a chunk of an import begun before chunks had ends", 1, 500, false, "o%@skip.example"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newResumeFixture(t)
			const rows = 1600
			email := func(i int) string {
				if i >= tc.first && i < tc.first+tc.rows {
					return fmt.Sprintf("o%d@skip.example", i)
				}
				return fmt.Sprintf("w%d@skip.example", i)
			}
			file := peopleCSV(rows, email)
			id := f.create(t, "create", "", file)
			var end any
			if tc.knownEnd {
				end = len(peopleCSV(tc.first+tc.rows-1, email))
			}
			if _, err := storetest.Pool(t).Exec(context.Background(), `WITH c AS (INSERT INTO import_chunks (import_id, first_row, rows, end_offset, workspace_id)
				SELECT id, $2, $3, $4, workspace_id FROM imports WHERE id = $1)
				UPDATE imports SET row_offset = $3, rows_created = $3 WHERE id = $1`, id, tc.first, tc.rows, end); err != nil {
				t.Fatal(err)
			}
			status, read, created, _, _ := f.finish(t, id)
			if status != "completed" || read != rows || created != rows {
				t.Fatalf("the import: %s, %d read, %d created; want completed, %d of each", status, read, created, rows)
			}
			if n, _ := f.people(t, tc.untouched); n != 0 {
				t.Fatalf("%d people of the committed chunk written again", n)
			}
			if n, distinct := f.people(t, "w%@skip.example"); n != rows-tc.rows || distinct != n {
				t.Fatalf("%d people (%d distinct) of the rest; want %d", n, distinct, rows-tc.rows)
			}
		})
	}
}
