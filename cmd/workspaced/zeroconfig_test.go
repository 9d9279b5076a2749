package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildBinary compiles workspaced once for the subprocess tests.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "workspaced")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("build: %v", err)
	}
	return bin
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// started is a zero-config server process and what it printed.
type started struct {
	cmd      *exec.Cmd
	url      string
	apikey   string
	agentKey string
	banner   string
	took     time.Duration
	exited   chan error
}

var (
	apikeyLine   = regexp.MustCompile(`(?m)^\s*apikey\s+(\S+)`)
	agentKeyLine = regexp.MustCompile(`(?m)^\s*demo agent key\s+(kagt_\S+)`)
)

// startZeroConfig runs the binary in dir with no DATABASE_URL and waits for its banner.
func startZeroConfig(t *testing.T, bin, dir, addr string) *started {
	t.Helper()
	begin := time.Now()
	cmd := exec.Command(bin)
	cmd.Dir = dir
	// Each run's metrics listener gets a free port: parallel test runs would share 9090.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LISTEN_ADDR=" + addr, "LOG_LEVEL=warn",
		"METRICS_ADDR=" + freeAddr(t)}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &started{cmd: cmd, url: "http://" + addr, exited: make(chan error, 1)}
	banner := make(chan string, 1)
	go func() {
		var b strings.Builder
		sc := bufio.NewScanner(stdout)
		sent := false
		for sc.Scan() {
			b.WriteString(sc.Text() + "\n")
			if !sent && strings.Contains(sc.Text(), "mcpServers") {
				banner <- b.String()
				sent = true
			}
		}
		if !sent {
			banner <- b.String()
		}
		io.Copy(io.Discard, stdout)
	}()
	go func() { s.exited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	select {
	case out := <-banner:
		m1, m2 := apikeyLine.FindStringSubmatch(out), agentKeyLine.FindStringSubmatch(out)
		if m1 == nil || m2 == nil {
			t.Fatalf("banner lacks apikey or agent key:\n%s", out)
		}
		s.apikey, s.agentKey, s.banner = m1[1], m2[1], out
	case <-time.After(90 * time.Second):
		t.Fatal("zero-config start printed no banner within 90s")
	}
	waitReady(t, s.url)
	s.took = time.Since(begin)
	return s
}

func waitReady(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		res, err := http.Get(url + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s never became ready", url)
}

func (s *started) me(t *testing.T) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", s.url+"/v1/me", nil)
	req.Header.Set("apikey", s.apikey)
	req.Header.Set("Authorization", "Bearer "+s.agentKey)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func (s *started) stop(t *testing.T) {
	t.Helper()
	s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-s.exited:
		if err != nil {
			t.Fatalf("server exited uncleanly on Ctrl-C: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("server did not stop within 30s of Ctrl-C")
	}
}

func TestZeroConfigStart(t *testing.T) {
	if os.Getenv("DATABASE_URL") != "" {
		t.Log("DATABASE_URL is set in the environment; the subprocess runs without it")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	addr := freeAddr(t)

	first := startZeroConfig(t, bin, dir, addr)
	t.Logf("cold zero-config start (initdb, migrate, seed) ready in %s", first.took)
	code, body := first.me(t)
	if code != 200 || !strings.Contains(body, `"agent_key"`) {
		t.Fatalf("printed agent key on /v1/me: %d %s", code, body)
	}
	// The banner's console address is served, and / leads to it (docs/console.md); it
	// names the demo workspace's id, which the admin commands' --workspace takes.
	if want := "console        " + first.url + "/console\n"; !strings.Contains(first.banner, want) {
		t.Fatalf("banner lacks %q:\n%s", want, first.banner)
	}
	ws := regexp.MustCompile(`"workspace":\{"id":"([^"]+)"`).FindStringSubmatch(body)
	if ws == nil || !strings.Contains(first.banner, "workspace id   "+ws[1]+"\n") {
		t.Fatalf("banner lacks the workspace id of /v1/me (%v):\n%s", ws, first.banner)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for path, want := range map[string]string{"/": "/console", "/console": "/oauth/login?return=%2Fconsole"} {
		res, err := noFollow.Get(first.url + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if loc := res.Header.Get("Location"); loc != want {
			t.Fatalf("GET %s: %d to %q, want a redirect to %q", path, res.StatusCode, loc, want)
		}
	}
	// The admin CLI reaches the running server's private database.
	cli := exec.Command(bin, "admin", "create-workspace", "--name", "Made while running")
	cli.Dir, cli.Env = dir, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	out, err := cli.Output()
	if err != nil || !strings.Contains(string(out), "workspace_id") {
		t.Fatalf("admin CLI beside the running server: %v %s", err, out)
	}
	first.stop(t)
	if _, err := os.Stat(filepath.Join(dir, ".data")); err != nil {
		t.Fatalf("no .data folder: %v", err)
	}

	second := startZeroConfig(t, bin, dir, addr)
	t.Logf("warm zero-config start ready in %s", second.took)
	if second.agentKey != first.agentKey || second.apikey != first.apikey {
		t.Fatalf("restart printed other credentials: %s/%s vs %s/%s", second.apikey, second.agentKey, first.apikey, first.agentKey)
	}
	if code, body := second.me(t); code != 200 {
		t.Fatalf("after restart /v1/me: %d %s", code, body)
	}
	second.stop(t)
}
