package workspace

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
)

// Idempotency keys on POST (docs/rest.md, "Idempotency-Key on every POST"), with Stripe's
// semantics: the same key from the same credential within 24 hours replays the first
// response (status and body) and writes nothing; the same key with another operation or
// body is a 422 idempotency_conflict; a key whose first request is still running is a 409
// idempotency_in_flight. A request that fails stores nothing, so its retry runs again. The
// key is claimed in its own short transaction (that is what makes a concurrent duplicate a
// 409 rather than a second write), and the response is stored in the transaction of the
// write itself; enrichment, which commits its credit charge in its own transactions around
// an upstream fetch, stores the response right after it (if that fails, the key is freed
// and the retry is served by the enrichment cache, free).

// MaxIdempotencyKey is the longest Idempotency-Key accepted, as Stripe's.
const MaxIdempotencyKey = 255

// Posted is the outcome of a POST operation.
type Posted struct {
	Status   int             // 201 for a created record; 200 for a detach or an enrichment
	Data     json.RawMessage // the response's data member
	Replayed bool            // the stored response of an earlier request with the same key
}

// Post runs a POST operation on r: create, detach, or (on the enrich resource, whose
// Access is WriteOnly) enrichment. The body arrives decoded (NewBody) and the gates run
// once, here; only the fingerprint of a keyed request reads the raw bytes again, to put
// its members in canonical order.
// A non-empty key makes it idempotent (see above). Errors: those of the operation, plus
// bad_request for a malformed key, idempotency_conflict and idempotency_in_flight.
func (o *Ops) Post(ctx context.Context, p *auth.Principal, op Op, r *Resource, body Body, key string) (*Posted, error) {
	done, err := o.admitWrite(ctx, p, r, false, op)
	if err != nil {
		return nil, err
	}
	defer done()
	// Which operation runs, and its status, decided once: nothing is created at a URL by
	// a detach or an enrichment.
	run, status, inTx := o.create, http.StatusCreated, true
	switch {
	case op == OpDetach:
		run, status = o.detach, http.StatusOK
	case r.Access == WriteOnly:
		run = func(ctx context.Context, _ querier, p *auth.Principal, r *Resource, m map[string]json.RawMessage) (json.RawMessage, error) {
			return o.enrich(ctx, p, r, m)
		}
		// Enrichment commits its credit charge in its own transactions around the
		// upstream fetch; its response is stored right after it.
		status, inTx = http.StatusOK, false
	}
	m, decodeErr := body.obj, body.err
	if key == "" {
		if decodeErr != nil {
			return nil, decodeErr
		}
		if err := o.permitWrite(p, r, op, "", m); err != nil {
			return nil, err
		}
		data, err := run(ctx, o.store, p, r, m)
		if err != nil {
			return nil, err
		}
		return &Posted{Status: status, Data: data}, nil
	}
	if err := checkIdempotencyKey(key); err != nil {
		return nil, err
	}
	// The gates run before a replay too: a credential that lost its grant or role gets no
	// stored response. A body that is not an object is refused after the key's claim, as
	// the operation's own failure (which frees the key).
	if decodeErr == nil {
		if err := o.permitWrite(p, r, op, "", m); err != nil {
			return nil, err
		}
	}
	if posted, err := o.claimKey(ctx, p, key, fingerprint(op, r.Name, body.raw)); posted != nil || err != nil {
		return posted, err
	}

	var data json.RawMessage
	switch {
	case decodeErr != nil:
		err = decodeErr
	case !inTx:
		if data, err = run(ctx, o.store, p, r, m); err == nil {
			err = o.store.InTx(ctx, p.Actor(), func(tx pgx.Tx) error {
				return store.SaveIdempotentResponse(ctx, tx, p.Actor(), key, status, data)
			})
		}
	default:
		err = o.store.InTx(ctx, p.Actor(), func(tx pgx.Tx) error {
			var werr error
			if data, werr = run(ctx, txQuerier{tx}, p, r, m); werr != nil {
				return werr
			}
			return store.SaveIdempotentResponse(ctx, tx, p.Actor(), key, status, data)
		})
	}
	if err != nil {
		if err := o.releaseKey(ctx, p, key, err); err != nil {
			return nil, err
		}
		return nil, readError(err)
	}
	return &Posted{Status: status, Data: data}, nil
}

// claimKey claims key for a request of fingerprint fp: nil when the request is to run,
// else the stored response to replay or the error saying why not (replay).
func (o *Ops) claimKey(ctx context.Context, p *auth.Principal, key string, fp []byte) (*Posted, error) {
	held, err := o.store.ClaimIdempotencyKey(ctx, p.Actor(), key, fp)
	if err != nil {
		return nil, err
	}
	if held != nil {
		return replay(held, fp)
	}
	return nil, nil
}

// releaseKey frees key after its request failed with err, wrote nothing (or the
// enrichment failed), so a retry runs again. When the commit was sent and not answered
// (outcome_unknown) the release is tried all the same: it deletes only a key with no
// stored response and waits for the write's row lock, so it frees the key only if the
// write did not commit; if the database does not answer, the key stays claimed until its
// lease ends. It returns the request's answer when that is not err's own: outcome_unknown
// as it is, or the release's failure.
func (o *Ops) releaseKey(ctx context.Context, p *auth.Principal, key string, err error) error {
	rerr := o.store.ReleaseIdempotencyKey(context.WithoutCancel(ctx), p.Actor(), key)
	var e *apierr.Error
	if errors.As(err, &e) && e.Code == apierr.CodeOutcomeUnknown {
		return e
	}
	if rerr != nil {
		return store.Internal(rerr)
	}
	return nil
}

// replay answers a request whose key was held already: the stored response, or the
// conflict or in-flight error when the key's first request differs or is still running.
func replay(held *store.IdempotencyRecord, fp []byte) (*Posted, error) {
	switch {
	case !bytes.Equal(held.Fingerprint, fp):
		return nil, apierr.Errorf(apierr.CodeIdempotencyConflict,
			"this Idempotency-Key was used within the last %s for a different request (another operation, resource or body); use a new key for a new request",
			IdempotencyWindow())
	case held.Status == 0:
		return nil, apierr.Errorf(apierr.CodeIdempotencyInFlight,
			"a request with this Idempotency-Key is still being processed; retry after it finishes to get its response")
	}
	return &Posted{Status: held.Status, Data: held.Body, Replayed: true}, nil
}

// checkIdempotencyKey accepts 1 to 255 printable ASCII characters.
func checkIdempotencyKey(key string) error {
	if len(key) > MaxIdempotencyKey {
		return apierr.BadRequest("Idempotency-Key is longer than %d characters; a UUID is a good key", MaxIdempotencyKey)
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return apierr.BadRequest("Idempotency-Key must be printable ASCII; a UUID is a good key")
		}
	}
	return nil
}

// fingerprint identifies a request for its key: the operation, the resource and the body
// with its members in canonical order, so re-encoding the same object is the same request.
func fingerprint(op Op, resource string, body json.RawMessage) []byte {
	h := sha256.New()
	h.Write([]byte(op.String()))
	h.Write([]byte{0})
	h.Write([]byte(resource))
	h.Write([]byte{0})
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber() // numbers keep their digits
	var v any
	if d.Decode(&v) == nil {
		if canon, err := json.Marshal(v); err == nil {
			h.Write(canon)
			return h.Sum(nil)
		}
	}
	h.Write(body)
	return h.Sum(nil)
}
