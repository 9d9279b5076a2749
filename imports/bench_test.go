package imports_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/agencyos/workspaced/httpx"
	"github.com/agencyos/workspaced/imports"
	"github.com/agencyos/workspaced/imports/importfile"
	"github.com/agencyos/workspaced/queue"
	"github.com/agencyos/workspaced/store/storetest"
	"github.com/agencyos/workspaced/workspace"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// peopleFile generates a CSV of n people, 12 columns (8 fields, 3 custom fields, one
// column the mapping ignores), as it is read: the file is never in memory.
type peopleFile struct {
	n, i int
	buf  []byte
}

const peopleHeader = "Name,Company,Phone,Email,Position,LinkedIn,Twitter,Website,Score,Since,Tier,Notes\n"

func (f *peopleFile) Read(b []byte) (int, error) {
	for len(f.buf) < len(b) && f.i <= f.n {
		if f.i == 0 {
			f.buf = append(f.buf, peopleHeader...)
		} else {
			f.buf = fmt.Appendf(f.buf, "Person %d,Acme %d,+44 20 7946 %04d,p%d@bench.example,Engineer,https://linkedin.com/in/p%d,https://x.com/p%d,https://acme%d.example,%d.5,2026-01-%02d,gold,note %d\n",
				f.i, f.i%500, f.i%10000, f.i, f.i, f.i, f.i%500, f.i%100, f.i%28+1, f.i)
		}
		f.i++
	}
	if len(f.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(b, f.buf)
	f.buf = f.buf[n:]
	return n, nil
}

var peopleMapping = map[string]string{"Name": "name", "Company": "company", "Phone": "phone", "Email": "email",
	"Position": "position", "LinkedIn": "linkedin_url", "Twitter": "twitter_url",
	"Score": "custom_fields.score", "Since": "custom_fields.since", "Tier": "custom_fields.tier"}

// peakRSS is the process's peak resident set (VmHWM), in MB.
func peakRSS(tb testing.TB) float64 {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Skip("no /proc/self/status")
	}
	for line := range strings.Lines(string(raw)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.Fields(v)[0])
			return float64(kb) / 1024
		}
	}
	return 0
}

// serverCPU is the CPU time, in seconds, each PostgreSQL backend of the test database has
// used so far (utime and stime of /proc/<pid>/stat, in USER_HZ, 100 a second on Linux),
// by pid; nil when the server's processes are not this machine's to read.
func serverCPU(tb testing.TB) map[int]float64 {
	rows, err := storetest.Pool(tb).Query(context.Background(), `SELECT pid FROM pg_stat_activity WHERE datname = current_database()`)
	if err != nil {
		tb.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		tb.Fatal(err)
	}
	out := map[int]float64{}
	for _, pid := range pids {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return nil
		}
		f := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:])) // f[0] is field 3, state
		utime, _ := strconv.ParseFloat(f[11], 64)
		stime, _ := strconv.ParseFloat(f[12], 64)
		out[int(pid)] = (utime + stime) / 100
	}
	return out
}

// cpuSince is the CPU time the backends have used since before (serverCPU); a backend
// started since counts whole.
func cpuSince(before, after map[int]float64) float64 {
	var sum float64
	for pid, t := range after {
		sum += t - before[pid]
	}
	return sum
}

// BenchmarkImportPeople imports WORKSPACED_IMPORT_ROWS people (default 2,000) from a
// generated CSV of 12 columns with 3 custom fields, through the whole path: the upload
// stored, the River job, batches of 100 as the member, activity and webhook events. It
// reports rows/s and the process's peak RSS, and the same rows written as direct batches
// of 100 (the batch sub-benchmark) as the baseline: the ratio is the import's own cost.
// rows/pg-cpu-s is the rows per second of CPU the database's backends used meanwhile (when
// the server runs on this machine): the rate one core given to PostgreSQL alone would
// allow, a figure other work on a shared machine moves much less than rows/s.
func BenchmarkImportPeople(b *testing.B) {
	rows := 2000
	if v, err := strconv.Atoi(os.Getenv("WORKSPACED_IMPORT_ROWS")); err == nil && v > 0 {
		rows = v
	}
	s := storetest.New(b)
	ops := workspace.NewOps(workspace.Config{Store: s})
	fx := storetest.Workspace(b, s, workspace.Scopes())
	p := fx.Admin
	ctx := context.Background()
	for _, cf := range []string{`{"resource":"people","key":"score","label":"Score","type":"number"}`,
		`{"resource":"people","key":"since","label":"Since","type":"date"}`,
		`{"resource":"people","key":"tier","label":"Tier","type":"text"}`} {
		if _, err := ops.Post(ctx, p, workspace.OpCreate, workspace.Lookup("custom_fields"), workspace.NewBody([]byte(cf)), ""); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := storetest.Pool(b).Exec(ctx, `INSERT INTO webhook_endpoints (workspace_id, url) VALUES ($1, 'https://hooks.example/in')`, fx.WorkspaceID); err != nil {
		b.Fatal(err)
	}
	svc := imports.New(imports.Config{Store: s, Status: httpx.Status})
	svc.UseOps(ops)
	workers := river.NewWorkers()
	client, err := river.NewClient(queue.Driver(s), &river.Config{Queues: svc.Register(workers), Workers: workers,
		FetchCooldown: 20 * time.Millisecond, FetchPollInterval: 50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	svc.Use(client)
	if err := client.Start(ctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = client.Stop(context.WithoutCancel(ctx)) })

	b.Run("batch", func(b *testing.B) {
		for range b.N {
			start := time.Now()
			for i := 1; i <= rows; i += workspace.MaxBatch {
				req := &workspace.BatchRequest{Operation: workspace.BatchCreate}
				for j := i; j < i+workspace.MaxBatch && j <= rows; j++ {
					req.Records = append(req.Records, map[string]json.RawMessage{
						"name": json.RawMessage(strconv.Quote(fmt.Sprint("Base ", j))), "email": json.RawMessage(strconv.Quote(fmt.Sprintf("b%d@bench.example", j))),
						"company": json.RawMessage(`"Acme"`), "phone": json.RawMessage(`"+44 20 7946 0000"`), "position": json.RawMessage(`"Engineer"`),
						"linkedin_url": json.RawMessage(`"https://linkedin.com/in/b"`), "twitter_url": json.RawMessage(`"https://x.com/b"`),
						"custom_fields": json.RawMessage(`{"score": 1.5, "since": "2026-01-02", "tier": "gold"}`)})
				}
				if _, err := ops.Batch(ctx, p, workspace.Lookup("people"), req, "", httpx.Status); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rows)/time.Since(start).Seconds(), "rows/s")
		}
	})
	b.Run("import", func(b *testing.B) {
		for range b.N {
			cpu := serverCPU(b)
			start := time.Now()
			data, err := svc.Create(ctx, p, importfile.Params{Resource: "people", Operation: "create", Mapping: peopleMapping}, &peopleFile{n: rows})
			if err != nil {
				b.Fatal(err)
			}
			var imp struct{ ID string }
			_ = json.Unmarshal(data, &imp)
			var status string
			var created, failed int
			for {
				if err := s.Query(ctx, p.Actor(), `SELECT status, rows_created, rows_failed FROM imports WHERE id = $1`, []any{imp.ID}, func(r pgx.Rows) error {
					for r.Next() {
						if err := r.Scan(&status, &created, &failed); err != nil {
							return err
						}
					}
					return r.Err()
				}); err != nil {
					b.Fatal(err)
				}
				if status != "queued" && status != "running" {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if status != "completed" || created != rows {
				b.Fatalf("import %s: %d created, %d failed of %d", status, created, failed, rows)
			}
			b.ReportMetric(float64(rows)/time.Since(start).Seconds(), "rows/s")
			b.ReportMetric(peakRSS(b), "peak-RSS-MB")
			if cpu != nil {
				if after := serverCPU(b); after != nil {
					b.ReportMetric(float64(rows)/cpuSince(cpu, after), "rows/pg-cpu-s")
				}
			}
		}
	})
}
