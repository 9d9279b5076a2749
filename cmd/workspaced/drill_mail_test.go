package main

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agencyos/workspaced/internal/smtptest"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/store/storetest"
)

// TestDrillSIGTERMMailInFlight: a reset link asked for just before SIGTERM, still on its
// way to a slow mail server (a real one, started here) when the signal arrives, is
// delivered before the process exits, and the exit is clean; a mail server slower than
// SHUTDOWN_GRACE does not hold the exit past the grace.
func TestDrillSIGTERMMailInFlight(t *testing.T) {
	bin := buildBinary(t)
	for _, c := range []struct {
		name         string
		slow, grace  time.Duration
		wantDelivery bool
	}{
		{"within the grace", 2 * time.Second, 10 * time.Second, true},
		{"slower than the grace", 6 * time.Second, time.Second, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			delivered, took, exit := resetAtSIGTERM(t, bin, c.slow, c.grace)
			var ee *exec.ExitError
			if errors.As(exit, &ee) {
				t.Errorf("exit code %d, want 0", ee.ExitCode())
			} else if exit != nil {
				t.Errorf("exit: %v", exit)
			}
			if delivered != c.wantDelivery {
				t.Errorf("delivered before the exit %s after SIGTERM: %v, want %v (mail server takes %s, grace %s)",
					took.Round(time.Millisecond), delivered, c.wantDelivery, c.slow, c.grace)
			}
			if !c.wantDelivery && took > c.grace+3*time.Second {
				t.Errorf("exit %s after SIGTERM; the grace is %s", took.Round(time.Millisecond), c.grace)
			}
			t.Logf("exit %s after SIGTERM, the mail server taking %s to accept, grace %s", took.Round(time.Millisecond), c.slow, c.grace)
		})
	}
}

// resetAtSIGTERM runs bin with SMTP_URL on a mail server that takes slow to accept a
// message, asks "Forgot password?" for a member, sends SIGTERM as soon as the answer is
// in, and reports whether the reset link reached the mail server before the process
// exited, how long after the signal it exited, and its exit error.
func resetAtSIGTERM(t *testing.T, bin string, slow, grace time.Duration) (bool, time.Duration, error) {
	t.Helper()
	mailbox := smtptest.Start(t)
	mailbox.SetDelay(slow)
	dsn := storetest.DSN(t)
	d := startDaemon(t, bin, nil, "DATABASE_URL="+dsn, "SMTP_URL="+mailbox.URL("accounts@drill.test"),
		"SHUTDOWN_DRAIN=0s", "SHUTDOWN_GRACE="+grace.String())
	s := openStore(t, dsn)
	ctx := context.Background()
	ws, err := s.CreateWorkspace(ctx, "Drill", store.By{})
	if err != nil {
		t.Fatal(err)
	}
	email := fmt.Sprintf("forgetful-%d@drill.test", time.Now().UnixNano()) // the package shares one database
	if _, err := s.AddMember(ctx, store.Member{WorkspaceID: ws, Email: email, Name: "Forgetful", Role: "member",
		Status: "active"}); err != nil {
		t.Fatal(err)
	}

	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	form := getPage(t, client, d.url+"/console/forgot")
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(form)
	if m == nil {
		t.Fatalf("no form on /console/forgot: %.300s", form)
	}
	res, err := client.PostForm(d.url+"/console/forgot", url.Values{"csrf": {html.UnescapeString(m[1])}, "email": {email}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.Contains(string(body), "on its way") {
		t.Fatalf("forgot password: %d %.300s", res.StatusCode, body)
	}
	sent := time.Now()
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var exit error
	select {
	case exit = <-d.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("no exit within 30s of SIGTERM")
	}
	took := time.Since(sent)
	if mailbox.Count() == 0 {
		return false, took, exit
	}
	if msg := mailbox.Wait(t, email, time.Second); !strings.Contains(msg.Body, "/console/reset?token=wsl_") {
		t.Fatalf("the email holds no reset link:\n%s", msg.Body)
	}
	return true, took, exit
}

// getPage returns the body of a GET that must answer 200.
func getPage(t *testing.T, client *http.Client, u string) string {
	t.Helper()
	res, err := client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %.300s", u, res.StatusCode, b)
	}
	return string(b)
}
