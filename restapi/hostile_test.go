package restapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agencyos/workspaced/workspace"
)

// An HTTP fuzz run over every REST route: every filter, every
// writable field of every create and update, item ids, whole bodies, query strings and
// methods get hostile values, fixed ones and ones generated from a fixed seed (NUL bytes,
// invalid UTF-8, huge, deep, wrong types, out-of-range numbers and dates). Not one answer
// may be a 5xx: bad input is the client's error, in the spec's envelope.

// hostileJSON are body values, as JSON text, that have broken servers: NULs, invalid
// UTF-8, lone surrogates, text around each length bound, numbers beyond every width,
// dates beyond PostgreSQL's range, deep nesting and every wrong type.
var hostileJSON = []string{
	`"a\u0000b"`, `"\u0000"`, "\"\xff\xfe\"", `"\ud800"`, `"\u202e\u0007\t\r\n"`,
	`"` + strings.Repeat("x", 3000) + `"`, `"` + strings.Repeat("\U0001D54F", workspace.ShortText) + `"`,
	`"` + strings.Repeat("\U0001D54F", workspace.ShortText+1) + `"`, `"` + strings.Repeat("y", workspace.LongText+1) + `"`,
	`1e400`, `-1e400`, `1e-400`, `1e-16384`, `123456789e131072`, `9223372036854775807`, `9223372036854775808`,
	`-9223372036854775809`, `2147483648`, `-2147483649`, `1.5`, `-0`, `1e2`, `0.1e-9999`,
	`true`, `false`, `null`, `{}`, `[]`, `[1,2]`, `["x"]`, `[null]`, `[""]`, `["\u0000"]`, `{"a":[{"b":null}]}`,
	`{"\u0000":1}`, `"not-a-uuid"`, `"00000000-0000-0000-0000-000000000000"`, `["00000000-0000-0000-0000-000000000000"]`,
	`"2026-02-30"`, `"0000-01-01"`, `"-0001-01-01"`, `"10000-01-01"`, `"294277-01-01"`, `"0001-01-01T00:00:00+14:00"`,
	`"9999-12-31T23:59:59-23:59"`, `"2026-01-31T09:00:00Z"`, `"2026-01-31"`,
	strings.Repeat("[", workspace.MaxJSONDepth+1) + strings.Repeat("]", workspace.MaxJSONDepth+1),
	strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000),
}

// hostileBodies are whole request bodies.
var hostileBodies = []string{
	"", " ", "null", "[]", `"x"`, "1", "{", `{"a":1}{`, `{"name":"x"} trailing`, "\xef\xbb\xbf{}", "{\"name\":\"\xc0\x80\"}",
	`{"name":"a","name":"\u0000"}`, `{"_detach":"x"}`, `{"_detach":true}`, "\x00", "{\"name\":\"x\x00\"}",
	strings.Repeat("[", 100000) + strings.Repeat("]", 100000), `{"name":"` + strings.Repeat("z", workspace.MaxBody) + `"}`,
}

// hostileQuery are raw (already encoded) query values.
var hostileQuery = []string{
	"%00", "%ff%fe", "%C0%80", "%E2%80%AE", strings.Repeat("q", 20000), "true", "-1", "1e400", "null",
	"%27%3B--", "0000-01-01", "99999-01-01", "00000000-0000-0000-0000-00000000000g", "%%%", "a;b", "",
}

// hostileIDs are raw path segments in the place of a record id.
var hostileIDs = []string{"%00", "%ff", "00000000-0000-0000-0000-000000000000", strings.Repeat("a", 10000), "..%2f..", "%20"}

// generated are pseudo-random JSON values with hostile strings inside, from a fixed seed so
// a failure replays.
func generated(rng *rand.Rand, n int) []string {
	alphabet := []string{"a", "\\u0000", "\xff", "\\ud800", "\U0001D54F", "\"", "\\\\", "\\n", "é", "%00", "'", ";"}
	str := func() string {
		var b strings.Builder
		b.WriteByte('"')
		for i := rng.IntN(40); i > 0; i-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		b.WriteByte('"')
		return b.String()
	}
	var value func(depth int) string
	value = func(depth int) string {
		switch k := rng.IntN(7); {
		case k == 0 && depth < 80:
			parts := make([]string, rng.IntN(3))
			for i := range parts {
				parts[i] = value(depth + 1)
			}
			return "[" + strings.Join(parts, ",") + "]"
		case k == 1 && depth < 80:
			return "{" + str() + ":" + value(depth+1) + "}"
		case k == 2:
			return fmt.Sprintf("%de%d", rng.Int64(), rng.IntN(40000)-20000)
		case k == 3:
			return fmt.Sprint(rng.Uint64())
		default:
			return str()
		}
	}
	out := make([]string, n)
	for i := range out {
		out[i] = value(0)
	}
	return out
}

func TestHostileInputEveryRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *envConfig) { c.Enricher = fakeEnricher{} })
	w := newWorld(t, e)
	admin := e.as(t, w.admin)
	rng := rand.New(rand.NewPCG(10, 2026))

	var sent, failed atomic.Int64
	send := func(method, path, rawQuery, body string) {
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, err := http.NewRequest(method, e.srv.URL+"/v1/", rd)
		if err != nil {
			t.Fatal(err)
		}
		req.URL.Opaque = "//" + req.URL.Host + "/v1" + path // raw: hostile segments stay as sent
		req.URL.RawQuery = rawQuery
		req.Header.Set("apikey", testAPIKey)
		req.Header.Set("Authorization", "Bearer "+admin.token)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		sent.Add(1)
		var env struct{ Error, Message string }
		// A 4xx from the API (it carries X-Request-Id) is in the spec's envelope; Go's
		// server may refuse a malformed request line itself, before the API sees it.
		reached := res.Header.Get("X-Request-Id") != ""
		if res.StatusCode >= 500 || reached && res.StatusCode >= 400 && (json.Unmarshal(raw, &env) != nil || env.Error == "" || env.Message == "") {
			if failed.Add(1) <= 20 {
				t.Errorf("%s %s?%.120s body %.200q: %d %.300s", method, path, rawQuery, body, res.StatusCode, raw)
			}
		}
	}

	for _, r := range workspace.Catalog() {
		t.Run(r.Name, func(t *testing.T) {
			path := "/" + r.Name
			// Lists: each filter and the paging parameters with each hostile value.
			if r.CanList() {
				params := []string{"limit", "cursor", "%00", "unknown"}
				for _, f := range r.Filters() {
					params = append(params, f.Name)
				}
				for _, p := range params {
					for _, v := range hostileQuery {
						send("GET", path, p+"="+v, "")
					}
				}
				send("GET", path, "limit=1&limit=2", "")
				send("GET", path, "cursor="+strings.Repeat("A", 48), "")
			}
			for _, id := range hostileIDs {
				send("GET", path+"/"+id, "", "")
				send("PATCH", path+"/"+id, "", `{"name":"x"}`)
			}
			for _, m := range []string{"PUT", "DELETE", "PROPFIND"} {
				send(m, path, "", "{}")
				send(m, path+"/x", "", "{}")
			}
			if !r.CanCreate() && !r.CanUpdate() {
				return
			}
			writable := r.Writable()
			values := append(append([]string{}, hostileJSON...), generated(rng, 8)...)
			// Creates: a valid body with one field replaced at a time, so the others let the
			// statement reach the database; then whole hostile bodies.
			if r.CanCreate() {
				base := w.body(t, admin, r, nil)
				for _, f := range writable {
					for _, v := range values {
						send("POST", path, "", withRaw(t, base, f.Name, v))
					}
				}
				for _, b := range hostileBodies {
					send("POST", path, "", b)
				}
			}
			// Updates: each field of an existing record.
			if r.CanUpdate() {
				target := path + "/" + updateTarget(t, w, admin, r)
				for _, f := range writable {
					for _, v := range values {
						send("PATCH", target, "", `{"`+f.Name+`":`+v+`}`)
					}
				}
				for _, b := range hostileBodies {
					send("PATCH", target, "", b)
				}
			}
		})
	}
	for _, q := range hostileQuery {
		send("GET", "/me", "x="+q, "")
	}
	t.Logf("%d hostile requests, %d answered 5xx or without the error envelope", sent.Load(), failed.Load())
}

// withRaw renders base as JSON with field set to the raw JSON text v.
func withRaw(t testing.TB, base map[string]any, field, v string) string {
	t.Helper()
	parts := []string{`"` + field + `":` + v}
	for k, val := range base {
		if k == field {
			continue
		}
		raw, err := json.Marshal(val)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, `"`+k+`":`+string(raw))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// updateTarget is the id of a record of r the admin may update.
func updateTarget(t testing.TB, w *world, admin client, r *workspace.Resource) string {
	t.Helper()
	switch {
	case r.Access == workspace.Singleton:
		return w.id
	case r.Name == "users":
		return w.full.UserID
	}
	return w.create(t, admin, r, nil)["id"].(string)
}
