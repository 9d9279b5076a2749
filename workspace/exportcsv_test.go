package workspace

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
)

// The CSV an export writes for a record must be, byte for byte, what decoding the record
// into its members and writing the cells with encoding/csv gives (csvByDecoding): the
// export walks the record's JSON once instead (csvWriter), and these tests hold the two
// to the same bytes on the edges.

// exportCSVColumns are the columns the tests lay records out in: members present, absent
// and repeated, custom fields present, absent and also found at the top level.
var exportCSVColumns = []string{"id", "name", "value", "active", "custom_fields.tier",
	"custom_fields.tags", "custom_fields.gone", "missing", "name", "custom_fields.top"}

// exportCSVRecords are records as the database may print them: compact, or with the
// spaces PostgreSQL prints in a jsonb value, or anything else valid JSON allows.
var exportCSVRecords = []string{
	`{"id":"a","name":"Plain","value":10.5,"active":true,"custom_fields":{"tier": "gold", "tags": ["a", "b,c"]}}`,
	`{"id":"f1","name":"=1+2","value":-5,"custom_fields":{"tier": "+1", "tags": "-2"}}`,
	`{"id":"f2","name":"@SUM(A1)","custom_fields":{"tier": "\tTab", "tags": "\rCR"}}`,
	`{"id":"f3","name":"'=already","custom_fields":{"tier": "'x", "tags": "''"}}`,
	`{"id":"f4","name":"'","custom_fields":{"tier": "", "tags": "-"}}`,
	`{"id":"f5","name":"-5","value":-0.5,"active":false,"custom_fields":{"tier": 1e5, "tags": 0}}`,
	`{"id":"q1","name":"say \"hi\"\nbye","custom_fields":{"tier": "a,b", "tags": "\r\n"}}`,
	`{"id":"q2","name":"\"quoted\"","custom_fields":{"tier": "x\"", "tags": "\"=\""}}`,
	`{"id":"u1","name":"é 日本 😀","custom_fields":{"tier": "\u00e9", "tags": "\ud83d\ude00"}}`,
	`{"id":"u2","name":"\ud800 lone","custom_fields":{"tier": "\u0000nul", "tags": "a\u0000b"}}`,
	`{"id":"u3","name":"\u00a0nbsp","custom_fields":{"tier": "\u3000ideographic", "tags": " lead"}}`,
	`{"id":"u4","name":"\\.","custom_fields":{"tier": "\\", "tags": "\/slash"}}`,
	"{\"id\":\"u5\",\"name\":\"bad \xff byte\",\"custom_fields\":{\"tier\": \"\xc3\", \"tags\": \"=\xff\"}}",
	`{"id":"n1","name":null,"value":null,"custom_fields":{"tier": null}}`,
	`{"id":"n2","name":"no custom","custom_fields":null}`,
	`{"id":"n3","name":"no custom member"}`,
	`{"id":"n4","custom_fields":{}}`,
	`{"id":"j1","name":"nested","custom_fields":{"tier": {"a": 1, "b": "x,y", "c": [1, {"d": "]"}]}, "tags": [], "gone": {}}}`,
	` { "id" : "s1" , "name" : "spaced"` + "\n\t," + ` "custom_fields" : { "tier" : "t" } } `,
	`{"id":"d1","name":"first","name":"second","custom_fields":{"tier": "one", "tier": "two"}}`,
	`{"id":"e1","na\u006de":"escaped key","custom_fields":{"ti\u0065r": "escaped custom key"}}`,
	`{"id":"t1","custom_fields.top":"outer","custom_fields":{"top": "inner", "tier": "kept"}}`,
	`{"id":"t2","custom_fields.top":null,"custom_fields":{"top": "inner"}}`,
	`{}`,
}

func TestExportCSVRows(t *testing.T) {
	t.Parallel()
	for _, rec := range exportCSVRecords {
		if got, want := csvByWalking(t, exportCSVColumns, rec), csvByDecoding(t, exportCSVColumns, rec); got != want {
			t.Errorf("record %s:\nwalked  %q\ndecoded %q", rec, got, want)
		}
	}
	// A few rows spelled out, so that the two cannot agree on something wrong.
	for rec, want := range map[string]string{
		exportCSVRecords[1]:  "f1,'=1+2,-5,,'+1,'-2,,,'=1+2,\n",
		exportCSVRecords[6]:  "q1,\"say \"\"hi\"\"\nbye\",,,\"a,b\",\"'\r\n\",,,\"say \"\"hi\"\"\nbye\",\n",
		exportCSVRecords[9]:  "u2,\ufffd lone,,,\x00nul,a\x00b,,,\ufffd lone,\n",
		exportCSVRecords[21]: "t1,,,,kept,,,,,outer\n",
		exportCSVRecords[22]: "t2,,,,,,,,,\n",
	} {
		if got := strings.SplitN(csvByWalking(t, exportCSVColumns, rec), "\n", 2)[1]; got != want {
			t.Errorf("record %s: row %q, want %q", rec, got, want)
		}
	}
	// A record that is not a JSON object is an internal error, never a row.
	for _, rec := range []string{`[1]`, `{"id":`, `{"id":"a"`, `{"id" "a"}`, `{"id":"a",}`, `"x"`, ``} {
		var buf bytes.Buffer
		if err := newCSVWriter(&buf, exportCSVColumns).record([]byte(rec)); err == nil {
			t.Errorf("record %q: no error, wrote %q", rec, buf.String())
		}
	}
}

// FuzzExportCSVRows puts any text in a record's members, as a string and, when it is one,
// as a JSON value, and wants the same CSV as decoding the record gives.
func FuzzExportCSVRows(f *testing.F) {
	for _, s := range []string{"plain", "=1", "'+", "a\"b\nc", "\\.", " x", "\u00a0", "\xff", "[1, 2]", `{"a": "b"}`, "-5", "null", `"x"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		text, _ := json.Marshal(s)
		recs := []string{`{"id":"x","name":` + string(text) + `,"custom_fields":{"tier": ` + string(text) + `}}`}
		if json.Valid([]byte(s)) {
			recs = append(recs, `{"id":"x","name":`+s+`,"custom_fields":{"tier": `+s+`, "tags": `+s+`}}`)
		}
		for _, rec := range recs {
			if got, want := csvByWalking(t, exportCSVColumns, rec), csvByDecoding(t, exportCSVColumns, rec); got != want {
				t.Fatalf("record %s:\nwalked  %q\ndecoded %q", rec, got, want)
			}
		}
	})
}

// csvByWalking is what an export writes for cols and rec.
func csvByWalking(t *testing.T, cols []string, rec string) string {
	t.Helper()
	var buf bytes.Buffer
	c := newCSVWriter(&buf, cols)
	c.header()
	if err := c.record([]byte(rec)); err != nil {
		t.Fatalf("record %s: %v", rec, err)
	}
	return buf.String()
}

// csvByDecoding decodes rec into its members (and its custom_fields member into its own)
// and writes the cells with encoding/csv: a string as its text, neutralised, null or
// nothing as empty, anything else as its JSON.
func csvByDecoding(t *testing.T, cols []string, rec string) string {
	t.Helper()
	var m, custom map[string]json.RawMessage
	if err := json.Unmarshal([]byte(rec), &m); err != nil {
		t.Fatalf("record %s: %v", rec, err)
	}
	if raw, ok := m[customFieldsName]; ok {
		_ = json.Unmarshal(raw, &custom)
	}
	row := []string{}
	for _, col := range cols {
		raw, ok := m[col]
		if key, isCustom := strings.CutPrefix(col, customFieldsName+"."); isCustom && !ok {
			raw = custom[key]
		}
		raw = bytes.TrimSpace(raw)
		var s string
		switch {
		case len(raw) == 0 || string(raw) == "null":
		case raw[0] != '"' || json.Unmarshal(raw, &s) != nil:
			s = string(raw)
		default:
			s = NeutraliseCell(s)
		}
		row = append(row, s)
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write(cols)
	_ = w.Write(row)
	w.Flush()
	return buf.String()
}
