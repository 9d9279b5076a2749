package webhooks

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/agencyos/workspaced/store"
)

// Dispatch: the loop that turns outbox rows (written by the triggers in the same
// transaction as each write) into deliveries, one River job each.

func (s *Service) dispatchLoop(ctx context.Context) {
	t := time.NewTicker(s.cfg.Poll)
	defer t.Stop()
	for {
		for {
			var n int
			err := s.survive("dispatch", func() (err error) {
				n, err = s.Dispatch(ctx)
				return err
			})
			if err != nil && ctx.Err() == nil && !errors.Is(err, errPanic) {
				s.cfg.Logger.Warn("webhook dispatch failed", "err", err)
			}
			if n < dispatchBatch || err != nil {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

const dispatchBatch = 500

// Dispatch turns up to dispatchBatch outbox events into deliveries, one per event and
// endpoint subscribed to it at the write that is still enabled, and enqueues a River job
// for each, all in one transaction: rows locked with SKIP LOCKED, so concurrent processes
// split the work and every event is dispatched once. It returns how many events it took.
//
// An event the database refuses to dispatch (a constraint its deliveries would break) must
// not hold back the events after it: when the batch fails so, it is done again with each
// event in a savepoint of its own, and the events that fail are set aside (dispatched, with
// dispatch_error), logged and counted. The usual batch pays for no savepoint.
func (s *Service) Dispatch(ctx context.Context) (int, error) {
	n, err := s.dispatch(ctx, false)
	if _, _, ok := store.RowFault(err); ok {
		n, err = s.dispatch(ctx, true)
	}
	return n, err
}

// outboxEvent is an event as the dispatcher moves it out of the outbox: endpoint names a
// ping's one endpoint, endpoints those subscribed to the event at its write.
type outboxEvent struct {
	id, ws, typ, endpoint string
	endpoints             []string
}

// moveSQL takes up to $1 events from the outbox, the oldest first, skipping those another
// process holds, and moves them to the event log (webhook_events) as dispatched, each with
// its id (a ping brings its own): store/migrations/00034_webhook_outbox.sql.
const moveSQL = `WITH taken AS (
	DELETE FROM webhook_outbox WHERE seq IN (SELECT seq FROM webhook_outbox ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED)
	RETURNING *)
INSERT INTO webhook_events (seq, id, workspace_id, type, object, object_id, record, changed, endpoint_id, endpoint_ids,
	created_at, dispatched_at)
OVERRIDING SYSTEM VALUE
SELECT seq, coalesce(id, gen_random_uuid()), workspace_id, type, object, object_id, record, changed, endpoint_id,
	endpoint_ids, created_at, now()
  FROM taken ORDER BY seq
RETURNING id::text, workspace_id::text, type, coalesce(endpoint_id::text, ''), coalesce(endpoint_ids::text[], '{}')`

func (s *Service) dispatch(ctx context.Context, isolate bool) (int, error) {
	n := 0
	err := s.cfg.Store.ServiceTx(ctx, "", func(tx pgx.Tx) error {
		var events []outboxEvent
		rows, err := tx.Query(ctx, moveSQL, dispatchBatch)
		if err != nil {
			return err
		}
		if err := store.Scan(rows, func(rows pgx.Rows) error {
			for rows.Next() {
				var e outboxEvent
				if err := rows.Scan(&e.id, &e.ws, &e.typ, &e.endpoint, &e.endpoints); err != nil {
					return err
				}
				events = append(events, e)
			}
			return nil
		}); err != nil {
			return err
		}
		n = len(events)
		if n == 0 {
			return nil
		}
		enabled := map[string][]string{}
		var jobs []river.InsertManyParams
		for _, e := range events {
			if !isolate {
				made, err := s.deliveries(ctx, tx, e, enabled)
				if err != nil {
					return err
				}
				jobs = append(jobs, made...)
				continue
			}
			sp, err := tx.Begin(ctx) // a savepoint
			if err != nil {
				return err
			}
			made, err := s.deliveries(ctx, sp, e, enabled)
			if err == nil && len(made) > 0 {
				_, err = s.river.InsertManyTx(ctx, sp, made)
			}
			if err == nil {
				err = sp.Commit(ctx) // releases the savepoint
			}
			sqlstate, constraint, fault := store.RowFault(err)
			if err != nil && !fault {
				return err
			}
			if err != nil {
				if err := sp.Rollback(ctx); err != nil {
					return err
				}
				if err := s.setAside(ctx, tx, e, sqlstate, constraint); err != nil {
					return err
				}
				continue
			}
			s.m.dispatched.Add(float64(len(made)))
		}
		if len(jobs) > 0 {
			if _, err := s.river.InsertManyTx(ctx, tx, jobs); err != nil {
				return err
			}
		}
		s.m.dispatched.Add(float64(len(jobs)))
		return nil
	})
	return n, err
}

// deliveries makes the delivery rows of event e in tx and returns their River jobs;
// enabled caches each workspace's enabled endpoints for the batch.
func (s *Service) deliveries(ctx context.Context, tx pgx.Tx, e outboxEvent, enabled map[string][]string) ([]river.InsertManyParams, error) {
	if _, err := tx.Exec(ctx, `SELECT set_config('app.workspace_id', $1, true)`, e.ws); err != nil {
		return nil, err
	}
	ids, ok := enabled[e.ws]
	if !ok {
		// Filtered by workspace in the statement: the service's role may bypass RLS.
		rows, err := tx.Query(ctx, `SELECT id::text FROM webhook_endpoints WHERE workspace_id = $1::text::uuid AND enabled`, e.ws)
		if err != nil {
			return nil, err
		}
		if ids, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return nil, err
		}
		enabled[e.ws] = ids
	}
	// An event goes to the endpoints the outbox trigger found subscribed to it at the write
	// that are still enabled, so one created, widened or enabled since gets none of it
	// (docs/webhooks.md); a ping to its one endpoint.
	targets := []string{e.endpoint}
	if e.endpoint == "" {
		targets = slices.DeleteFunc(e.endpoints, func(id string) bool { return !slices.Contains(ids, id) })
	}
	var jobs []river.InsertManyParams
	for _, t := range targets {
		var id string
		err := tx.QueryRow(ctx, `INSERT INTO webhook_deliveries (workspace_id, endpoint_id, event_id, event_type)
			VALUES ($1::text::uuid, $2::text::uuid, $3::text::uuid, $4) ON CONFLICT DO NOTHING RETURNING id::text`,
			e.ws, t, e.id, e.typ).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, river.InsertManyParams{Args: deliveryArgs{DeliveryID: id, WorkspaceID: e.ws}})
	}
	return jobs, nil
}

// setAside records on event e, moved to the log as dispatched, the reason it could not be,
// and logs and counts it. The reason and the log name the SQLSTATE and the constraint,
// never a value of the event (a driver error's message or detail may quote one).
func (s *Service) setAside(ctx context.Context, tx pgx.Tx, e outboxEvent, sqlstate, constraint string) error {
	reason := "SQLSTATE " + sqlstate
	if constraint != "" {
		reason += " (constraint " + constraint + ")"
	}
	if _, err := tx.Exec(ctx, `UPDATE webhook_events SET dispatch_error = $2 WHERE id = $1::text::uuid`,
		e.id, reason); err != nil {
		return err
	}
	s.m.dispatchFailed.Inc()
	s.cfg.Logger.Error("webhook event set aside: it cannot be dispatched", "event_id", e.id, "workspace_id", e.ws,
		"event_type", e.typ, "sqlstate", sqlstate, "constraint", constraint)
	return nil
}
