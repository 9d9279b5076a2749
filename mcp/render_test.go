package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRender: the compact text of results (docs/mcp.md, "Results").
func TestRender(t *testing.T) {
	cursor := "c2"
	for _, tc := range []struct {
		name string
		got  []byte
		want string
	}{
		{"record as PostgreSQL writes it", renderValue(json.RawMessage(`{"id": "d1", "name": "Acme, Inc", "value": 12.50, "notes": null, "won": false}`)),
			"id: d1\nname: Acme, Inc\nvalue: 12.50\nwon: false\n"},
		{"text that would be misread is quoted", renderValue(json.RawMessage(`{"a":"","b":"two\nlines","c":"\"q\"","d":"tab\there","e":"[x]","f":"caf\u00e9"}`)),
			"a: \"\"\nb: \"two\\nlines\"\nc: \"\\\"q\\\"\"\nd: \"tab\\there\"\ne: \"[x]\"\nf: café\n"},
		{"nested objects and lists", renderValue(json.RawMessage(`{"user":{"id":"u","grants":{"crm":"full"}},"scopes":["a:read","b:write"],"tags":["x,y"],"jsonb":{},"n":[1, 2]}`)),
			"user.id: u\nuser.grants.crm: full\nscopes: read: a; write: b\ntags: [\"x,y\"]\nn: [1,2]\n"},
		{"short values on one line, scopes by what they allow, times to the minute, the workspace named only",
			renderValue(json.RawMessage(`{"workspace_id":"w","grants":{"crm":"full","hr":"none"},"scopes":["deals:read","deals:write","hr:read"],` +
				`"urls":["https://a:b"],"created_at":"2026-11-27T20:38:46.493991+00:00","due":"2026-11-27T20:38:46+02:00"}`)),
			"grants: crm=full, hr=none\nscopes: read+write: deals; read: hr\nurls: https://a:b\ncreated_at: 2026-11-27T20:38Z\n" +
				"due: 2026-11-27T20:38:46+02:00\nnot shown: workspace_id\n"},
		{"a page's columns with one value or none are said once; long text is cut",
			appendPage(nil, json.RawMessage(`[{"id":"1","type":"deals","owner_id":null,"notes":"`+strings.Repeat("x", 70)+`","score":0.5},`+
				`{"id":"2","type":"deals","notes":"short","score":0.4}]`), nil),
			"id\tnotes\n1\t" + strings.Repeat("x", 60) + "…\n2\tshort\nevery row: type=deals\nempty: owner_id\nnot shown: score\n"},
		{"scopes grouped by what they allow, in the order met; times are not scopes",
			renderValue(json.RawMessage(`{"scopes":["deals:read","deals:write","activity:read","people:read","people:write","enrich:write"],"at":["10:30","11:00"]}`)),
			"scopes: read+write: deals, people; read: activity; write: enrich\nat: 10:30, 11:00\n"},
		{"times in the same minute are said once",
			appendPage(nil, json.RawMessage(`[{"id":"1","updated_at":"2026-11-27T20:38:46.1+00:00","due":"2026-12-01"},`+
				`{"id":"2","updated_at":"2026-11-27T20:38:59.2+00:00","due":"2026-12-02"}]`), nil),
			"id\tdue\n1\t2026-12-01\n2\t2026-12-02\nevery row: updated_at=2026-11-27T20:38Z\n"},
		{"text alike only where cut is not said once",
			appendPage(nil, json.RawMessage(`[{"id":"1","notes":"`+strings.Repeat("x", 70)+`a"},{"id":"2","notes":"`+strings.Repeat("x", 70)+`b"}]`), nil),
			"id\tnotes\n1\t" + strings.Repeat("x", 60) + "…\n2\t" + strings.Repeat("x", 60) + "…\n"},
		{"a value said once with a comma is quoted", appendPage(nil, json.RawMessage(`[{"id":"1","name":"Acme, Inc","tags":["a","b"]},{"id":"2","name":"Acme, Inc","tags":["a","b"]}]`), nil),
			"id\n1\n2\nevery row: name=\"Acme, Inc\", tags=\"a, b\"\n"},
		{"an array of objects under its name", renderValue(json.RawMessage(`{"tools":[{"name":"a","schema":{"type": "object"}},{"name":"b","extra":1}]}`)),
			"tools:\nname\tschema\textra\na\t{\"type\":\"object\"}\t\nb\t\t1\n"},
		{"a page", appendPage(nil, json.RawMessage(`[{"id": "1", "name": "A", "value": null}, {"id": "2", "name": "B", "value": 3}]`), &cursor),
			"id\tname\tvalue\n1\tA\t\n2\tB\t3\nnext_cursor: c2\n"},
		{"an empty page", appendPage(nil, json.RawMessage(`[]`), nil), "(none)\n"},
	} {
		if string(tc.got) != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, tc.got, tc.want)
		}
	}
}

// TestAppendJSONString: the direct path escapes text as encoding/json does.
func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", "tab\there\nline \"q\" back\\slash", "<a&b>", "\x00\x1f\x7f", "café \u2028 \u2029 日本", "bad \xff utf8"} {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
}

// BenchmarkGetText is the text part of a get_deals answer on the direct path: the record's
// JSON quoted into the response as the text was before (json.Marshal of the same JSON
// again), against its compact rendering quoted by appendJSONString, each into a buffer
// reused as the direct path reuses its own (writeResult).
func BenchmarkGetText(b *testing.B) {
	record := json.RawMessage(`{"id": "6f1e2b7f-2c36-4c0a-9a4e-8c1f8a9e7a11", "workspace_id": "1c1f8a9e-2c36-4c0a-9a4e-6f1e2b7f7a11", ` +
		`"name": "Acme retainer 12", "pipeline_id": "2c1f8a9e-2c36-4c0a-9a4e-6f1e2b7f7a11", "pipeline_stage_id": "3c1f8a9e-2c36-4c0a-9a4e-6f1e2b7f7a11", ` +
		`"owner_id": "4c1f8a9e-2c36-4c0a-9a4e-6f1e2b7f7a11", "value": 4000.00, "confidence": 0.6, "website": "https://acme-12.example.com", ` +
		`"instagram": null, "twitter": null, "notes": "Met the marketing lead; wants a proposal for Q3.", "company_id": null, ` +
		`"created_by": "4c1f8a9e-2c36-4c0a-9a4e-6f1e2b7f7a11", "created_at": "2026-11-27T14:16:21.171932+00:00", "updated_at": "2026-11-27T14:16:21.261285+00:00"}`)
	out, text := make([]byte, 0, 4096), make([]byte, 0, 4096)
	b.Run("json", func(b *testing.B) {
		for b.Loop() {
			q, _ := json.Marshal(string(record))
			out = append(out[:0], q...)
		}
	})
	b.Run("rendered", func(b *testing.B) {
		for b.Loop() {
			text = appendText(text[:0], false, result{data: record})
			out = appendJSONString(out[:0], text)
		}
	})
}
