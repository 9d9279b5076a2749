package imports

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/imports/importfile"
	"github.com/agencyos/workspaced/store"
)

// rowReader reads a file's rows one at a time: the header, then each row as the cells in
// the header's order.
type rowReader interface {
	Header() []string
	Next() ([]string, error) // io.EOF after the last row
	// Offset is the byte offset in the file just past the last row Next returned: where
	// the next row starts, so a resume may read on from there (openRows).
	Offset() int64
}

// newRowReader reads format ("csv" or "ndjson") from r. A CSV's first record is its
// header; an NDJSON file's columns are the mapping's, sorted (columns maps header -> field).
func newRowReader(format string, r io.Reader, delimiter rune, columns []string) (rowReader, error) {
	return openRows(format, r, delimiter, columns, nil, 0)
}

// openRows reads format from r as newRowReader does, r starting at byte base of the file:
// from a row's start when base > 0, header then being the file's header as read before.
func openRows(format string, r io.Reader, delimiter rune, columns, header []string, base int64) (rowReader, error) {
	if format == importfile.FormatNDJSON {
		dec := json.NewDecoder(r)
		dec.UseNumber()
		cols := slices.Sorted(slices.Values(columns))
		return &ndjsonReader{dec: dec, header: cols, base: base}, nil
	}
	cr := csv.NewReader(r)
	cr.Comma = delimiter
	cr.FieldsPerRecord = -1
	if base > 0 {
		return &csvReader{r: cr, header: header, base: base}, nil
	}
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, apierr.BadRequest("file is empty: a CSV file starts with a header row")
	}
	if errors.Is(err, errTooBig) {
		return nil, err
	}
	if e, ok := asStoreError(err); ok {
		return nil, e
	}
	if err != nil {
		return nil, apierr.BadRequest("file is not CSV: %s", csvProblem(err))
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff") // a spreadsheet's byte order mark
	}
	return &csvReader{r: cr, header: slices.Clone(header)}, nil
}

type csvReader struct {
	r      *csv.Reader
	header []string
	base   int64
}

func (c *csvReader) Header() []string { return c.header }

func (c *csvReader) Offset() int64 { return c.base + c.r.InputOffset() }

func (c *csvReader) Next() ([]string, error) {
	rec, err := c.r.Read()
	if e, ok := asStoreError(err); ok {
		return nil, e
	}
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, errTooBig) {
		return nil, apierr.BadRequest("file is not CSV: %s", csvProblem(err))
	}
	return rec, err
}

// asStoreError is err when it is already the answer (an XLSX file's own, through the pipe).
func asStoreError(err error) (*apierr.Error, bool) {
	var e *apierr.Error
	return e, errors.As(err, &e)
}

func csvProblem(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("line %d: %v", pe.Line, pe.Err)
	}
	return "it could not be read"
}

type ndjsonReader struct {
	dec    *json.Decoder
	header []string
	base   int64
}

func (n *ndjsonReader) Header() []string { return n.header }

func (n *ndjsonReader) Offset() int64 { return n.base + n.dec.InputOffset() }

func (n *ndjsonReader) Next() ([]string, error) {
	var obj map[string]json.RawMessage
	if err := n.dec.Decode(&obj); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, errTooBig) {
			return nil, err
		}
		return nil, apierr.BadRequest("file is not NDJSON: each line must be a JSON object")
	}
	cells := make([]string, len(n.header))
	for i, h := range n.header {
		v, ok := obj[h]
		switch {
		case !ok || string(v) == "null":
		case len(v) > 0 && v[0] == '"':
			var s string
			_ = json.Unmarshal(v, &s)
			cells[i] = s
		default:
			cells[i] = string(v)
		}
	}
	return cells, nil
}

// partWriter stores an upload in import_parts, PartSize bytes a row, as it arrives.
type partWriter struct {
	ctx  context.Context
	tx   pgx.Tx
	id   string
	seq  int
	buf  []byte
	size int64
}

func (w *partWriter) Write(b []byte) (int, error) {
	w.size += int64(len(b))
	if w.size > importfile.MaxFileBytes {
		return 0, errTooBig
	}
	w.buf = append(w.buf, b...)
	for len(w.buf) >= PartSize {
		if err := w.flush(w.buf[:PartSize]); err != nil {
			return 0, err
		}
		w.buf = append(w.buf[:0], w.buf[PartSize:]...)
	}
	return len(b), nil
}

func (w *partWriter) flush(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	_, err := w.tx.Exec(w.ctx, `INSERT INTO import_parts (import_id, seq, data) VALUES ($1, $2, $3)`, w.id, w.seq, b)
	w.seq++
	return err
}

func (w *partWriter) Close() error { return w.flush(w.buf) }

var errTooBig = errors.New("imports: file too big")

// partReader streams an import's stored file, one part (one query) at a time, from byte
// skip of its part seq (every part but the last holds PartSize bytes).
type partReader struct {
	ctx  context.Context
	s    *store.Store
	p    *auth.Principal
	id   string
	seq  int
	skip int
	buf  *bytes.Reader
	eof  bool
}

func (r *partReader) Read(b []byte) (int, error) {
	for r.buf == nil || r.buf.Len() == 0 {
		if r.eof {
			return 0, io.EOF
		}
		var data []byte
		err := r.s.Query(r.ctx, r.p.Actor(), `SELECT data FROM import_parts WHERE import_id = $1 AND seq = $2`, []any{r.id, r.seq}, func(rows pgx.Rows) error {
			if rows.Next() {
				return rows.Scan(&data)
			}
			r.eof = true
			return rows.Err()
		})
		if err != nil {
			return 0, err
		}
		r.seq++
		data = data[min(r.skip, len(data)):]
		r.skip = 0
		r.buf = bytes.NewReader(data)
	}
	return r.buf.Read(b)
}

// openParts returns a buffered reader over the stored file from byte offset on.
func openParts(ctx context.Context, s *store.Store, p *auth.Principal, id string, offset int64) io.Reader {
	return bufio.NewReaderSize(&partReader{ctx: ctx, s: s, p: p, id: id,
		seq: int(offset / PartSize), skip: int(offset % PartSize)}, 64<<10)
}
