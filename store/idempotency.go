package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/apierr"
)

// Idempotency keys (Stripe's semantics; docs/rest.md, "Idempotency-Key on every POST"): a
// POST carrying Idempotency-Key claims the key for its credential, runs, and stores its
// response with its write; a retry within IdempotencyTTL replays that response. The rows
// live in idempotency_keys under the workspace's row-level security.

// IdempotencyTTL is how long a completed key replays its response.
const IdempotencyTTL = 24 * time.Hour

// IdempotencyLease is how long a claimed key stays in flight when its request dies before
// finishing (a crashed process): after it, a retry may claim the key again. It outlasts
// any request.
const IdempotencyLease = 2 * time.Minute

// IdempotencyRecord is what a key already holds.
type IdempotencyRecord struct {
	Fingerprint []byte // hash of the operation and body that first used the key
	Status      int    // the stored response's status; 0 while the first request is in flight
	Body        []byte // the stored response's data, as first sent
}

// credentialKey names the credential a key belongs to: the token or agent key row.
func credentialKey(a Actor) string {
	if a.Credential.ID == "" {
		return "user:" + a.UserID
	}
	return a.Credential.Type + ":" + a.Credential.ID
}

// ClaimIdempotencyKey claims key for a's credential. It returns nil when the claim is
// made (the key was unused, expired, or its lease ran out): the caller runs the operation
// and then calls SaveIdempotentResponse or ReleaseIdempotencyKey. Otherwise it returns
// what the key holds, for the caller to replay, refuse as in flight, or refuse as a
// conflict.
func (s *Store) ClaimIdempotencyKey(ctx context.Context, a Actor, key string, fingerprint []byte) (*IdempotencyRecord, error) {
	// A key released (its request failed) between the two statements below is gone when
	// read: claim again.
	for range 3 {
		rec, err := s.claimIdempotencyKey(ctx, a, key, fingerprint)
		if !errors.Is(err, pgx.ErrNoRows) {
			if err != nil {
				return nil, Internal(err)
			}
			return rec, nil
		}
	}
	return nil, apierr.Errorf(apierr.CodeIdempotencyInFlight,
		"requests with this Idempotency-Key are racing; retry after a moment")
}

func (s *Store) claimIdempotencyKey(ctx context.Context, a Actor, key string, fingerprint []byte) (*IdempotencyRecord, error) {
	var rec *IdempotencyRecord
	err := s.InTx(ctx, a, func(tx pgx.Tx) error {
		var claimed bool
		err := tx.QueryRow(ctx, `INSERT INTO idempotency_keys AS k (credential, key, fingerprint, locked_until, expires_at)
			VALUES ($1, $2, $3, now() + $4::interval, now() + $5::interval)
			ON CONFLICT (workspace_id, credential, key) DO UPDATE
			   SET fingerprint = excluded.fingerprint, response_status = NULL, response_body = NULL,
			       locked_until = excluded.locked_until, expires_at = excluded.expires_at, created_at = now()
			 WHERE k.expires_at <= now() OR (k.response_status IS NULL AND k.locked_until <= now())
			RETURNING true`, credentialKey(a), key, fingerprint, seconds(IdempotencyLease), seconds(IdempotencyTTL)).Scan(&claimed)
		if err == nil {
			return nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		// The key is live: read what it holds. The conflicting row is committed (ON
		// CONFLICT waited for it), so this statement's snapshot sees it.
		rec = &IdempotencyRecord{}
		var status *int
		if err := tx.QueryRow(ctx, `SELECT fingerprint, response_status, response_body FROM idempotency_keys
			WHERE credential = $1 AND key = $2`, credentialKey(a), key).Scan(&rec.Fingerprint, &status, &rec.Body); err != nil {
			return err
		}
		if status != nil {
			rec.Status = *status
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rec, nil
}

// SaveIdempotentResponse stores the response of a claimed key in tx, the transaction of
// the operation's write, so the write and its replayable response commit together.
func SaveIdempotentResponse(ctx context.Context, tx pgx.Tx, a Actor, key string, status int, body []byte) error {
	_, err := tx.Exec(ctx, `UPDATE idempotency_keys SET response_status = $3, response_body = $4
		WHERE credential = $1 AND key = $2`, credentialKey(a), key, status, body)
	return err
}

// ReleaseIdempotencyKey forgets a claimed key whose operation failed, so a retry runs the
// operation again (a failure is not replayed).
func (s *Store) ReleaseIdempotencyKey(ctx context.Context, a Actor, key string) error {
	return s.InTx(ctx, a, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `DELETE FROM idempotency_keys WHERE credential = $1 AND key = $2 AND response_status IS NULL`,
			credentialKey(a), key)
		return err
	})
}

// IdempotencySweepEvery is how often SweepIdempotencyKeys runs (cmd's loop).
const IdempotencySweepEvery = time.Minute

// SweepIdempotencyKeys deletes the keys that expired before now, across workspaces, and
// returns how many; cmd runs it every IdempotencySweepEvery.
func SweepIdempotencyKeys(ctx context.Context, s *Store, now time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE expires_at < $1`, now)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

// seconds writes d as a PostgreSQL interval.
func seconds(d time.Duration) string { return fmt.Sprintf("%d seconds", int64(d.Seconds())) }
