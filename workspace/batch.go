package workspace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
)

// Batch writes (docs/rest.md, "Batch writes"): up to MaxBatch records created, updated or
// upserted in one request and one transaction. Each record goes through the same gates,
// validation and statement as a single write (create, update), so RLS, activity and
// webhooks hold for every row; each runs in its own savepoint, so one record's failure
// undoes only that record, unless the batch is atomic, when it undoes them all.
//
// An upsert matches on id (an update: an id that does not exist is a 404, never a record
// created with a chosen id), on a natural key of the catalogue (Resource.Matches) or on a
// unique custom field. Before any record is written the batch takes a transaction lock on
// each of its keys, in one sorted order, so concurrent batches with the same keys run one
// after the other for those keys: each finds the record the first created, and a key gets
// exactly one record. A single create does not take the lock; for a unique custom field
// the database's unique index refuses a second record all the same (409 conflict).

// MaxBatch is the most records one batch carries.
const MaxBatch = 100

// BatchUnitRecords is how many records of a batch cost one more unit of the rate limits,
// beyond the one every request costs (docs/rest.md, "Rate limits").
const BatchUnitRecords = 10

// BatchUnits is the rate-limit units a batch of n records costs beyond its request's one.
func BatchUnits(n int) int { return (n + BatchUnitRecords - 1) / BatchUnitRecords }

// The operations of a batch.
const (
	BatchCreate = "create"
	BatchUpdate = "update"
	BatchUpsert = "upsert"
)

// BatchRequest is a batch's body, decoded by DecodeBatch.
type BatchRequest struct {
	Operation string
	Match     string // upsert only: "id", a natural key, or custom_fields.<key>
	Records   []map[string]json.RawMessage
	Atomic    bool
	// Then, when set, runs in the batch's transaction after its records are written, with
	// the per-record results: what it writes commits or rolls back with them (an import's
	// progress, imports/).
	Then func(ctx context.Context, tx pgx.Tx, items []BatchItem) error
	// IDsOnly leaves each written record out of its result (ID and Status stay): the
	// database then renders no record and the caller decodes none, which an import, reading
	// only each row's outcome, would spend on every row.
	IDsOnly bool
	raw     []byte // the body, for the idempotency fingerprint
}

// BatchItem is one record's outcome, in the order of the input.
type BatchItem struct {
	Index int `json:"index"`
	// Status is the HTTP status the record alone would have had: 201 created, 200
	// updated, or its error's.
	Status int             `json:"status"`
	ID     *string         `json:"id"`
	Record json.RawMessage `json:"record,omitempty"`
	Error  *ItemError      `json:"error,omitempty"`
}

// ItemError is a failed record's error, in the spec's error shape without request_id.
type ItemError struct {
	Code    apierr.Code         `json:"error"`
	Message string              `json:"message"`
	Fields  []apierr.FieldError `json:"fields,omitempty"`
}

// DecodeBatch reads a batch's body: a JSON object with operation, records (1 to MaxBatch
// JSON objects), match (upsert only) and atomic (optional boolean). Anything else is a 400
// bad_request saying what to change; the records' own fields are judged per record.
func DecodeBatch(raw []byte) (*BatchRequest, error) {
	m, err := DecodeObject(raw)
	if err != nil {
		return nil, err
	}
	req := &BatchRequest{raw: raw}
	for k, v := range m {
		switch k {
		case "operation":
			if json.Unmarshal(v, &req.Operation) != nil {
				return nil, apierr.BadRequest("operation must be a string: create, update or upsert")
			}
		case "match":
			if json.Unmarshal(v, &req.Match) != nil || req.Match == "" {
				return nil, apierr.BadRequest("match must be a non-empty string naming the field an upsert matches on")
			}
		case "atomic":
			if json.Unmarshal(v, &req.Atomic) != nil {
				return nil, apierr.BadRequest("atomic must be true or false")
			}
		case "records":
			var recs []json.RawMessage
			if json.Unmarshal(v, &recs) != nil {
				return nil, apierr.BadRequest("records must be an array of JSON objects")
			}
			if len(recs) == 0 || len(recs) > MaxBatch {
				return nil, apierr.BadRequest("records must hold 1 to %d records, got %d; split larger sets into several batches", MaxBatch, len(recs))
			}
			req.Records = make([]map[string]json.RawMessage, len(recs))
			for i, rec := range recs {
				obj, err := DecodeObject(rec)
				if err != nil {
					return nil, apierr.BadRequest("records[%d] must be a JSON object", i)
				}
				req.Records[i] = obj
			}
		default:
			return nil, apierr.BadRequest("unknown member %q; a batch takes operation, match, records and atomic", clip(k))
		}
	}
	switch {
	case req.Operation != BatchCreate && req.Operation != BatchUpdate && req.Operation != BatchUpsert:
		return nil, apierr.BadRequest("operation must be create, update or upsert, got %q", clip(req.Operation))
	case req.Records == nil:
		return nil, apierr.BadRequest("records is required: an array of 1 to %d JSON objects", MaxBatch)
	case req.Operation == BatchUpsert && req.Match == "":
		return nil, apierr.BadRequest("an upsert needs match: id, a natural key of the resource or custom_fields.<key> of a unique custom field")
	case req.Operation != BatchUpsert && req.Match != "":
		return nil, apierr.BadRequest("match applies to upsert only; an update names each record by its id")
	}
	return req, nil
}

// batchFailed is an atomic batch's failing record: it aborts the transaction.
type batchFailed struct {
	index int
	err   *apierr.Error
}

func (b *batchFailed) Error() string { return fmt.Sprintf("records[%d]: %v", b.index, b.err) }

// matcher finds the records an upsert's keys name.
type matcher struct {
	from   string // the field carrying the key; for a custom field, custom_fields
	custom string // the custom field's key, "" for a natural key or id
	// lookup is SQL: $1 the keys as text[] -> for each key with a normalised form, one
	// row: its position in $1 (from 1), the normalised key, the ids (at most 2)
	lookup string
	lock   string // SQL: $1 prefix, $2 keys as text -> takes each key's lock in sorted order
}

// path names the field carrying the key in messages: email, custom_fields.<key>.
func (m *matcher) path() string {
	if m.custom != "" {
		return customFieldsName + "." + m.custom
	}
	return m.from
}

// Batch runs a batch write on r (see above) and returns data listing one BatchItem per
// record. status gives the HTTP status of a record's error (the adapter's table). A
// non-empty key makes it idempotent as Post is. Errors: those of the gates (for the whole
// batch: the resource, the operation, the scope, the member's grant), bad_request for a
// match the resource does not have, the idempotency errors, and for an atomic batch the
// first failing record's error, its message and fields naming the record (records[i]);
// nothing is written then.
func (o *Ops) Batch(ctx context.Context, p *auth.Principal, r *Resource, req *BatchRequest, key string, status func(*apierr.Error) int) (*Posted, error) {
	ops := []Op{OpCreate}
	switch req.Operation {
	case BatchUpdate:
		ops = []Op{OpUpdate}
	case BatchUpsert:
		ops = []Op{OpCreate, OpUpdate}
		if req.Match == "id" {
			ops = []Op{OpUpdate}
		}
	}
	if r != nil && (r.Access == WriteOnly || r.Access == Singleton) {
		return nil, apierr.BadRequest("%s takes no batches; batches write records of the resources that create or update them", r.Name)
	}
	done, err := o.admitWrite(ctx, p, r, true, ops...)
	if err != nil {
		return nil, err
	}
	defer done()
	var m *matcher
	if req.Operation == BatchUpsert && req.Match != "id" {
		if m, err = o.matcher(ctx, p, r, req.Match); err != nil {
			return nil, err
		}
	}
	if key != "" {
		if err := checkIdempotencyKey(key); err != nil {
			return nil, err
		}
		if posted, err := o.claimKey(ctx, p, key, fingerprint(OpCreate, r.Name+"/batch", req.raw)); posted != nil || err != nil {
			return posted, err
		}
	}
	var items []BatchItem
	var data json.RawMessage // the answer's items, marshalled in the transaction when kept for the key
	// A batch runs set-based (batchset.go) where it can; when its records must be written
	// one at a time (errPerRecord) it runs again so, each record in its own savepoint
	// unless the batch is atomic (its first failure ends it).
	perRecord := !setBased(r)
	for {
		err = o.store.InTx(ctx, p.Actor(), func(tx pgx.Tx) error {
			var err error
			if perRecord {
				items, err = o.runBatch(ctx, tx, p, r, req, m, status, !req.Atomic)
			} else {
				items, err = o.runBatchSet(ctx, tx, p, r, req, m, status)
			}
			if err == nil && req.Then != nil {
				err = req.Then(ctx, tx, items)
			}
			if err == nil && key != "" {
				if data, err = json.Marshal(items); err == nil {
					err = store.SaveIdempotentResponse(ctx, tx, p.Actor(), key, http.StatusOK, data)
				}
			}
			return err
		})
		if perRecord || !errors.Is(err, errPerRecord) {
			break
		}
		perRecord = true
	}
	if err != nil {
		if key != "" {
			if err := o.releaseKey(ctx, p, key, err); err != nil {
				return nil, err
			}
		}
		var failed *batchFailed
		if errors.As(err, &failed) {
			return nil, atomicError(failed)
		}
		return nil, readError(err)
	}
	if data == nil {
		if data, err = json.Marshal(items); err != nil {
			return nil, err
		}
	}
	return &Posted{Status: http.StatusOK, Data: data}, nil
}

// runBatch writes the batch's records in tx one at a time, each in its own savepoint when
// savepoints is set, and returns the per-record results.
func (o *Ops) runBatch(ctx context.Context, tx pgx.Tx, p *auth.Principal, r *Resource, req *BatchRequest, m *matcher,
	status func(*apierr.Error) int, savepoints bool) ([]BatchItem, error) {
	if m != nil {
		if err := lockKeys(ctx, tx, p, r, req, m); err != nil {
			return nil, err
		}
	}
	items := make([]BatchItem, len(req.Records))
	for i, rec := range req.Records {
		q := tx
		if savepoints {
			sp, err := tx.Begin(ctx) // this record's failure undoes only it
			if err != nil {
				return nil, err
			}
			q = sp
		}
		out, code, err := o.batchItem(ctx, txQuerier{q}, p, r, req, m, cloneRecord(rec))
		var e *apierr.Error
		switch {
		case err != nil && errors.As(err, &e) && status(e) < 500:
			if req.Atomic {
				return nil, &batchFailed{index: i, err: e}
			}
			if err := q.Rollback(ctx); err != nil {
				return nil, err
			}
			items[i] = BatchItem{Index: i, Status: status(e), Error: &ItemError{Code: e.Code, Message: e.Message, Fields: e.Fields}}
			continue
		case err != nil:
			return nil, err
		}
		if savepoints {
			if err := q.Commit(ctx); err != nil {
				return nil, err
			}
		}
		id := recordID(out)
		items[i] = BatchItem{Index: i, Status: code, ID: &id}
		if !req.IDsOnly {
			items[i].Record = out
		}
	}
	return items, nil
}

// atomicError is an atomic batch's answer when a record failed: that record's error, its
// message and fields naming the record.
func atomicError(f *batchFailed) *apierr.Error {
	e := *f.err
	prefix := fmt.Sprintf("records[%d]", f.index)
	e.Message = prefix + ": " + e.Message + " (the batch is atomic: no record was written)"
	e.Fields = make([]apierr.FieldError, len(f.err.Fields))
	for i, fe := range f.err.Fields {
		e.Fields[i] = apierr.FieldError{Field: prefix + "." + fe.Field, Problem: fe.Problem}
	}
	if len(e.Fields) == 0 {
		e.Fields = nil
	}
	return &e
}

// batchItem writes one record of a batch through q and returns it with its status.
func (o *Ops) batchItem(ctx context.Context, q querier, p *auth.Principal, r *Resource, req *BatchRequest, m *matcher, rec map[string]json.RawMessage) (json.RawMessage, int, error) {
	if req.Operation == BatchCreate {
		return o.batchCreate(ctx, q, p, r, rec)
	}
	if m == nil { // update, or upsert on id
		id, err := takeID(r, rec)
		if err != nil {
			return nil, 0, err
		}
		return o.batchUpdate(ctx, q, p, r, id, rec)
	}
	keyText, err := matchKey(r, req, m, rec)
	if err != nil {
		return nil, 0, err
	}
	var norm *string
	var ids []string
	err = q.Query(ctx, p.Actor(), m.lookup, []any{[]string{keyText}}, func(rows pgx.Rows) error {
		if rows.Next() {
			var ord int
			return rows.Scan(&ord, &norm, &ids)
		}
		return nil
	})
	switch {
	case err != nil:
		return nil, 0, store.MapWriteError(err, "create_failed")
	case norm == nil:
		return nil, 0, validationError(r, []apierr.FieldError{{Field: m.path(), Problem: "has no " + req.Match + " to match on"}})
	case len(ids) > 1:
		return nil, 0, apierr.Errorf(apierr.CodeConflict,
			"more than one %s record has %s %q; upsert needs one record per key, so update the one you mean by id", r.Name, req.Match, clip(*norm))
	case len(ids) == 1:
		return o.batchUpdate(ctx, q, p, r, ids[0], rec)
	}
	return o.batchCreate(ctx, q, p, r, rec)
}

func (o *Ops) batchCreate(ctx context.Context, q querier, p *auth.Principal, r *Resource, rec map[string]json.RawMessage) (json.RawMessage, int, error) {
	if err := o.permitWrite(p, r, OpCreate, "", rec); err != nil {
		return nil, 0, err
	}
	out, err := o.create(ctx, q, p, r, rec)
	return out, http.StatusCreated, err
}

func (o *Ops) batchUpdate(ctx context.Context, q querier, p *auth.Principal, r *Resource, id string, rec map[string]json.RawMessage) (json.RawMessage, int, error) {
	if !isUUID(id) {
		return nil, 0, notFound(r, id)
	}
	if err := o.permitWrite(p, r, OpUpdate, id, rec); err != nil {
		return nil, 0, err
	}
	out, err := o.update(ctx, q, p, r, id, rec, nil, true)
	return out, http.StatusOK, err
}

// takeID removes a record's id, which names the record an update changes, from its
// fields.
func takeID(r *Resource, rec map[string]json.RawMessage) (string, error) {
	raw, ok := rec["id"]
	var id string
	if !ok || json.Unmarshal(raw, &id) != nil {
		return "", validationError(r, []apierr.FieldError{{Field: "id", Problem: "is required: the id (a uuid) of the record to update"}})
	}
	delete(rec, "id")
	return id, nil
}

// recordID reads a written record's id.
func recordID(rec json.RawMessage) string {
	var v struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(rec, &v)
	return v.ID
}

// matcher resolves an upsert's match (other than id) on r: a natural key of the catalogue
// or a unique custom field. Anything else is a 400 naming what r matches on.
func (o *Ops) matcher(ctx context.Context, p *auth.Principal, r *Resource, match string) (*matcher, error) {
	table := ident(r.Table)
	if nk := r.Match(match); nk != nil {
		return &matcher{from: nk.From,
			lookup: "SELECT i.n, s.k, ARRAY(SELECT id::text FROM " + table + ` WHERE "workspace_id" = app_workspace_id() AND ` + nk.Column +
				" = s.k LIMIT 2) FROM unnest($1::text[]) WITH ORDINALITY i(v, n) CROSS JOIN LATERAL (SELECT " + fmt.Sprintf(nk.Key, "i.v") + " AS k) s WHERE s.k IS NOT NULL",
			lock: "SELECT pg_advisory_xact_lock(hashtextextended($1::text || k, 0)) FROM (SELECT DISTINCT " +
				fmt.Sprintf(nk.Key, "v") + " AS k FROM unnest($2::text[]) v ORDER BY 1) s WHERE k IS NOT NULL",
		}, nil
	}
	if key, ok := strings.CutPrefix(match, customFieldsName+"."); ok && r.Custom {
		defs, err := loadCustomFields(ctx, o.store, p, r.Name)
		if err != nil {
			return nil, readError(err)
		}
		if f := findCustom(activeFields(defs), key); f != nil && f.Unique {
			return &matcher{from: customFieldsName, custom: key,
				lookup: "SELECT i.n, k.u, ARRAY(SELECT c.record_id::text FROM custom_values c JOIN " + table +
					" t ON t.id = c.record_id WHERE c.field_id = f.id AND c.u = k.u LIMIT 2)" +
					// OFFSET 0 keeps the value a column: a constant would be folded into
					// every branch of ws_custom_rows's CASE, casting text to numeric.
					" FROM (SELECT n, v::jsonb AS v FROM unnest($1::text[]) WITH ORDINALITY u(v, n) OFFSET 0) i, custom_fields f CROSS JOIN LATERAL ws_custom_rows(f, f.workspace_id, NULL, i.v) k" +
					" WHERE f.resource = " + quoteLiteral(r.Name) + " AND f.key = " + quoteLiteral(key),
				// The value's JSON text is the lock's key: a value written two ways (1 and
				// 1.0) takes two locks, and the unique index refuses the second record.
				lock: "SELECT pg_advisory_xact_lock(hashtextextended($1::text || k, 0)) FROM (SELECT DISTINCT v AS k FROM unnest($2::text[]) v ORDER BY 1) s",
			}, nil
		}
	}
	return nil, apierr.BadRequest("%s upserts match on %s; got %q", r.Name, strings.Join(matchNames(r), ", "), clip(match))
}

// matchNames lists what upserts of r may match on.
func matchNames(r *Resource) []string {
	out := []string{"id"}
	for _, m := range r.Matches {
		out = append(out, m.Name)
	}
	if r.Custom {
		out = append(out, "custom_fields.<key> of a unique custom field")
	}
	return out
}

// lockKeys takes the transaction lock of each key of the batch's records, in one sorted
// order (two batches never wait for each other crosswise), before any record is written.
func lockKeys(ctx context.Context, tx pgx.Tx, p *auth.Principal, r *Resource, req *BatchRequest, m *matcher) error {
	var keys []string
	for _, rec := range req.Records {
		raw, ok := rec[m.from]
		if ok && m.custom != "" {
			var cf map[string]json.RawMessage
			if json.Unmarshal(raw, &cf) != nil {
				continue
			}
			raw, ok = cf[m.custom]
		}
		if !ok {
			continue
		}
		if m.custom != "" {
			var b bytes.Buffer
			if json.Compact(&b, raw) == nil {
				keys = append(keys, b.String())
			}
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			keys = append(keys, s)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	prefix := p.WorkspaceID + "/" + r.Name + "/" + req.Match + "/"
	rows, err := tx.Query(ctx, m.lock, prefix, keys)
	if err != nil {
		return err
	}
	return store.Scan(rows, func(rows pgx.Rows) error {
		for rows.Next() {
		}
		return nil
	})
}

// TakeBatchUnits charges a batch of n records its units beyond its request's own
// (BatchUnits) to p's budgets, setting the rate-limit headers on h (nil for none) from the
// last charge, so X-RateLimit-Remaining counts them. A unit the budget denies ends the
// charge with LimitError's answer: the batch is refused, and the units taken until then
// stay spent.
func TakeBatchUnits(ctx context.Context, l Limiter, p *auth.Principal, h http.Header, n int) error {
	for range BatchUnits(n) {
		if err := TakeCall(ctx, l, p, h); err != nil {
			return err
		}
	}
	return nil
}
