// Package smtptest is a real SMTP server (emersion/go-smtp) on loopback that keeps what it
// is sent, for tests of code that mails through admin.SMTPMailer (wneessen/go-mail): the
// console's invitation and reset tests and cmd's shutdown drill.
package smtptest

import (
	"io"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// Server is a running SMTP server.
type Server struct {
	// Addr is host:port.
	Addr string

	delay atomic.Int64 // nanoseconds each MAIL FROM waits before it is accepted
	mu    sync.Mutex
	got   []Received
	cond  chan struct{}
}

// Received is one message the server accepted.
type Received struct {
	From, To string
	Msg      *mail.Message
	Body     string // decoded from quoted-printable when so encoded
}

// Start starts a server that stops when the test ends.
func Start(tb testing.TB) *Server {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s := &Server{Addr: ln.Addr().String(), cond: make(chan struct{}, 100)}
	srv := smtp.NewServer(backend{s})
	srv.Domain = "localhost"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	go func() { _ = srv.Serve(ln) }()
	tb.Cleanup(func() { srv.Close() })
	return s
}

// URL is the SMTP_URL that sends through s with from as the sender.
func (s *Server) URL(from string) string { return "smtp://" + s.Addr + "?from=" + from }

// SetDelay makes each later MAIL FROM wait d before it is accepted: a slow mail server,
// whose client is still sending when something else happens. Nothing is kept of a message
// whose client goes away meanwhile.
func (s *Server) SetDelay(d time.Duration) { s.delay.Store(int64(d)) }

// Wait returns the first message to to, waiting up to within.
func (s *Server) Wait(tb testing.TB, to string, within time.Duration) Received {
	tb.Helper()
	deadline := time.After(within)
	for {
		s.mu.Lock()
		for _, m := range s.got {
			if m.To == to {
				s.mu.Unlock()
				return m
			}
		}
		s.mu.Unlock()
		select {
		case <-s.cond:
		case <-deadline:
			tb.Fatalf("no email to %s within %s", to, within)
		}
	}
}

// To returns the messages accepted so far for to, oldest first.
func (s *Server) To(to string) []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Received
	for _, m := range s.got {
		if m.To == to {
			out = append(out, m)
		}
	}
	return out
}

// Count is the number of messages accepted so far.
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.got)
}

type backend struct{ s *Server }

func (b backend) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{s: b.s}, nil }

type session struct {
	s        *Server
	from, to string
}

func (x *session) Mail(from string, _ *smtp.MailOptions) error {
	time.Sleep(time.Duration(x.s.delay.Load()))
	x.from = from
	return nil
}

func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error { x.to = to; return nil }
func (x *session) Reset()                                    {}
func (x *session) Logout() error                             { return nil }

func (x *session) Data(r io.Reader) error {
	m, err := mail.ReadMessage(r)
	if err != nil {
		return err
	}
	var rd io.Reader = m.Body
	if strings.EqualFold(m.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		rd = quotedprintable.NewReader(m.Body)
	}
	body, err := io.ReadAll(rd)
	if err != nil {
		return err
	}
	x.s.mu.Lock()
	x.s.got = append(x.s.got, Received{From: x.from, To: x.to, Msg: m, Body: string(body)})
	x.s.mu.Unlock()
	select {
	case x.s.cond <- struct{}{}:
	default:
	}
	return nil
}
