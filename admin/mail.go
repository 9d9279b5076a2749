package admin

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Message is a plain-text email.
type Message struct {
	To      string
	Subject string
	Body    string
}

// Mailer sends email.
type Mailer interface {
	// Send sends msg; an error means it was not accepted by the mail server.
	Send(ctx context.Context, msg Message) error
}

// SMTPMailer sends through an SMTP server with wneessen/go-mail, which speaks STARTTLS,
// implicit TLS and the usual SMTP AUTH mechanisms and writes well-formed MIME.
type SMTPMailer struct {
	from string
	opts []gomail.Option
	host string
}

// NewSMTPMailer parses SMTP_URL: smtps://user:password@host:465 for implicit TLS, or
// smtp://user:password@host:587 for STARTTLS, which is required unless the host is a
// loopback address (a relay on the same machine). The sender is the from query
// parameter, else defaultFrom.
func NewSMTPMailer(raw, defaultFrom string) (*SMTPMailer, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "smtp" && u.Scheme != "smtps") {
		return nil, errors.New("SMTP_URL must look like smtp://user:password@host:587 or smtps://user:password@host:465")
	}
	m := &SMTPMailer{from: u.Query().Get("from"), host: u.Hostname()}
	if m.from == "" {
		m.from = defaultFrom
	}
	if _, err := checkEmail(m.from); err != nil {
		return nil, fmt.Errorf("SMTP_URL: the sender %q is not an email address (set ?from=)", m.from)
	}
	m.opts = []gomail.Option{gomail.WithTimeout(15 * time.Second)}
	port := 587
	if u.Scheme == "smtps" {
		port = 465
		m.opts = append(m.opts, gomail.WithSSL())
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil {
			return nil, errors.New("SMTP_URL: the port is not a number")
		}
	}
	m.opts = append(m.opts, gomail.WithPort(port))
	if u.Scheme == "smtp" {
		policy := gomail.TLSMandatory
		if a, err := netip.ParseAddr(u.Hostname()); (err == nil && a.IsLoopback()) || u.Hostname() == "localhost" {
			policy = gomail.TLSOpportunistic
		}
		m.opts = append(m.opts, gomail.WithTLSPortPolicy(policy))
	}
	if u.User != nil {
		pass, _ := u.User.Password()
		m.opts = append(m.opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(u.User.Username()), gomail.WithPassword(pass))
	}
	return m, nil
}

// Send implements Mailer.
func (m *SMTPMailer) Send(ctx context.Context, msg Message) error {
	e := gomail.NewMsg()
	if err := e.From(m.from); err != nil {
		return err
	}
	if err := e.To(msg.To); err != nil {
		return err
	}
	e.Subject(msg.Subject)
	e.SetDate()
	e.SetMessageID()
	e.SetBodyString(gomail.TypeTextPlain, msg.Body)
	c, err := gomail.NewClient(m.host, m.opts...)
	if err != nil {
		return err
	}
	return c.DialAndSendWithContext(ctx, e)
}

// DefaultFrom is the sender used when SMTP_URL names none: no-reply at the public host.
func DefaultFrom(publicURL string) string {
	host := "localhost"
	if u, err := url.Parse(publicURL); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	return "no-reply@" + host
}
