package pglaunch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Restart stops the server (fast mode: open transactions roll back) and starts it again
// on the same port, so the DSN stays valid: fault drills take a database away under load
// and bring it back.
func (s *Server) Restart(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return errors.New("pglaunch: Restart after Stop")
	}
	if err := s.pgctl(ctx, s.logw, "stop", "-s", "-w", "-t", "60", "-m", "fast"); err != nil {
		return fmt.Errorf("pglaunch: stopping for a restart: %w", err)
	}
	s.waitLog(5 * time.Second)
	return s.startOnce(ctx)
}

// Signal sends sig to the postmaster and to every process it started (backends,
// background workers). SIGSTOP freezes the whole server the way a stalled host does:
// connections stay open and nothing answers; SIGCONT thaws it.
func (s *Server) Signal(sig syscall.Signal) error {
	b, err := os.ReadFile(filepath.Join(s.cluster, "postmaster.pid"))
	if err != nil {
		return fmt.Errorf("pglaunch: %w", err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return fmt.Errorf("pglaunch: postmaster.pid: %w", err)
	}
	pids := append([]int{pid}, children(pid)...)
	for _, p := range pids {
		if err := syscall.Kill(p, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("pglaunch: signalling %d: %w", p, err)
		}
	}
	return nil
}

// children lists the processes whose parent is pid, from /proc.
func children(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
		i := strings.LastIndexByte(string(stat), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}
