package storetest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
)

// localURL is the server these machines run (trust auth).
const localURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// adminURL finds a server to make test databases on: TEST_DATABASE_URL, else the local
// server on 127.0.0.1:5432, else a private PostgreSQL started by the same launcher the
// service uses for its zero-config start.
func adminURL(ctx context.Context) (string, error) {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u, nil
	}
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if conn, err := pgx.Connect(pctx, localURL); err == nil {
		conn.Close(ctx)
		return localURL, nil
	}
	u, err := startLauncher(ctx)
	if err != nil {
		return "", fmt.Errorf("no TEST_DATABASE_URL, nothing on 127.0.0.1:5432, and no private PostgreSQL: %w", err)
	}
	return u, nil
}

func replaceDatabase(dsn, db string) string {
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		return dsn + " dbname=" + db
	}
	u.Path = "/" + db
	return u.String()
}

func redact(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return "the database"
	}
	return u.Redacted()
}
