package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// One HTTP attempt of a delivery: a signed POST through the SSRF guard, its outcome.

// result is the outcome of one attempt.
type result struct {
	status     string // succeeded, failed, cancelled
	code       int
	body, err  string
	latency    time.Duration
	acceptedAt time.Time
}

// attempt POSTs the event to the endpoint: the URL checked again first, every connection
// through the guard, no redirects, at most BodyLimit bytes of the answer read.
func (s *Service) attempt(ctx context.Context, t *target) result {
	body, err := json.Marshal(t.ev)
	if err != nil {
		return result{status: "failed", err: "encoding the event: " + err.Error()}
	}
	if err := s.cfg.URLs.Check(ctx, t.url); err != nil {
		return result{status: "failed", err: err.Error()}
	}
	now := s.cfg.Now()
	sig, err := Sign(t.secrets, t.ev.ID, now, body)
	if err != nil {
		return result{status: "failed", err: err.Error()}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytesReader(body))
	if err != nil {
		return result{status: "failed", err: "bad URL"}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "workspaced-webhooks/1")
	req.Header.Set("webhook-id", t.ev.ID)
	req.Header.Set("webhook-timestamp", fmt.Sprint(now.Unix()))
	req.Header.Set("webhook-signature", sig)
	start := time.Now()
	resp, err := s.http.Do(req)
	latency := time.Since(start)
	if err != nil {
		return result{status: "failed", err: describeError(err), latency: latency}
	}
	defer resp.Body.Close()
	first := readAtMost(resp.Body, BodyLimit)
	r := result{code: resp.StatusCode, body: first, latency: latency, status: "failed"}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		r.status = "succeeded"
		r.acceptedAt = time.Now()
	} else {
		r.err = fmt.Sprintf("the endpoint answered %d", resp.StatusCode)
	}
	return r
}
