package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestDrillImportSurvivesKill: an import whose server is killed (SIGKILL) mid-file
// resumes after a restart at the row it had committed, and every row of the file ends in
// the database exactly once.
func TestDrillImportSurvivesKill(t *testing.T) {
	pg := privatePG(t)
	bin := buildBinary(t)
	listen := freeAddr(t)
	env := []string{"DATABASE_URL=" + pg.DSN, roomyLimits, "RATE_LIMIT_PER_WORKSPACE=1000000",
		"LISTEN_ADDR=" + listen}
	d := startDaemon(t, bin, nil, env...)
	ws, key := agentKey(t, pg.DSN)

	const rows = 6000
	var file strings.Builder
	file.WriteString("Name,Email\n")
	for i := range rows {
		fmt.Fprintf(&file, "Person %05d,p%05d@drill.example\n", i, i)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("resource", "people")
	_ = mw.WriteField("operation", "create")
	_ = mw.WriteField("mapping", `{"Name": "name", "Email": "email"}`)
	fw, _ := mw.CreateFormFile("file", "people.csv")
	_, _ = io.WriteString(fw, file.String())
	_ = mw.Close()
	req, _ := http.NewRequest("POST", "http://"+listen+"/v1/imports", &body)
	req.Header.Set("apikey", drillAPIKey)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		t.Fatalf("POST /v1/imports: %d %s", res.StatusCode, raw)
	}

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	progress := func() (status string, offset, created int) {
		t.Helper()
		if err := conn.QueryRow(ctx, `SELECT status, row_offset, rows_created FROM imports WHERE workspace_id = $1`, ws).
			Scan(&status, &offset, &created); err != nil {
			t.Fatal(err)
		}
		return
	}
	waitFor := func(what string, ok func(status string, offset int) bool) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Minute)
		for time.Now().Before(deadline) {
			if status, offset, _ := progress(); ok(status, offset) {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		status, offset, _ := progress()
		t.Fatalf("%s: still %s at row %d", what, status, offset)
	}
	waitFor("the import never got going", func(_ string, offset int) bool { return offset >= 1000 })
	d.cmd.Process.Signal(syscall.SIGKILL)
	<-d.exited
	_, killedAt, _ := progress()
	if killedAt >= rows {
		t.Fatalf("the import ended (%d rows) before the kill", killedAt)
	}
	people := func() (n, distinct int) {
		t.Helper()
		if err := conn.QueryRow(ctx, `SELECT count(*), count(DISTINCT email) FROM people WHERE workspace_id = $1`, ws).
			Scan(&n, &distinct); err != nil {
			t.Fatal(err)
		}
		return
	}
	if n, _ := people(); n != killedAt {
		t.Fatalf("after the kill: %d people in the database, the import's offset says %d", n, killedAt)
	}

	startDaemon(t, bin, nil, env...)
	waitFor("the import did not resume", func(status string, _ int) bool { return status == "completed" })
	status, offset, created := progress()
	n, distinct := people()
	if status != "completed" || offset != rows || created != rows || n != rows || distinct != rows {
		t.Fatalf("after the restart: %s, offset %d, created %d; %d people, %d distinct emails; want %d of each",
			status, offset, created, n, distinct, rows)
	}
	t.Logf("killed at row %d of %d; resumed and completed with every row once", killedAt, rows)
}
