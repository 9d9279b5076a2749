package webhooks

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
	"github.com/agencyos/workspaced/workspace"
)

// The admin actions of docs/webhooks.md, as the domain names them (workspace.Actions,
// workspace.WebhookDelivery). Each first reads the record as the actor p (RLS and the
// admin-only policy decide what p sees: another workspace's id is not_found), then acts as
// the service and, in the same transaction, records the action in activity as p's
// (store.RecordAction; docs/console.md, "Audit log"), its action named as the route names
// it. The domain (workspace.Ops.Act) has checked the scope and the admin role.

var _ workspace.WebhookDelivery = (*Service)(nil)

// visible reports whether p sees the row id of table (webhook_endpoints or webhook_deliveries).
func (s *Service) visible(ctx context.Context, p *auth.Principal, table, id string) error {
	found := false
	err := s.cfg.Store.Query(ctx, p.Actor(), `SELECT 1 FROM `+pgx.Identifier{table}.Sanitize()+` WHERE id = $1::text::uuid`,
		[]any{id}, func(rows pgx.Rows) error {
			found = rows.Next()
			return nil
		})
	if err != nil {
		return store.MapReadError(err)
	}
	if !found {
		return apierr.NotFound("no %s record %s in this workspace", table, id)
	}
	return nil
}

// Ping queues a ping event to endpoint id alone and returns the event's id.
func (s *Service) Ping(ctx context.Context, p *auth.Principal, id string) (string, error) {
	if err := s.visible(ctx, p, "webhook_endpoints", id); err != nil {
		return "", err
	}
	var eventID string
	err := s.cfg.Store.ServiceTx(ctx, p.WorkspaceID, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `INSERT INTO webhook_outbox (id, workspace_id, type, object, object_id, endpoint_id)
			VALUES (gen_random_uuid(), $1::text::uuid, $2, 'webhook_endpoints', $3::text::uuid, $3::text::uuid) RETURNING id::text`,
			p.WorkspaceID, workspace.EventPing, id).Scan(&eventID); err != nil {
			return err
		}
		return store.RecordAction(ctx, tx, p.Actor(), "webhook_endpoints", id, workspace.ActionTest, map[string]any{"event_id": eventID, "type": workspace.EventPing})
	})
	return eventID, err
}

// Retry queues delivery id again now, whatever its state; its attempt count goes on.
func (s *Service) Retry(ctx context.Context, p *auth.Principal, id string) error {
	if err := s.visible(ctx, p, "webhook_deliveries", id); err != nil {
		return err
	}
	return s.cfg.Store.ServiceTx(ctx, p.WorkspaceID, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = $2, updated_at = now()
			WHERE id = $1::text::uuid`, id, s.cfg.Now()); err != nil {
			return err
		}
		if _, err := s.river.InsertTx(ctx, tx, deliveryArgs{DeliveryID: id, WorkspaceID: p.WorkspaceID}, nil); err != nil {
			return err
		}
		return store.RecordAction(ctx, tx, p.Actor(), "webhook_deliveries", id, workspace.ActionRetry, map[string]any{"status": "pending"})
	})
}

// Rotate gives endpoint id the signing secret secret; the previous one keeps signing
// (beside the new one) for workspace.RotationOverlap.
func (s *Service) Rotate(ctx context.Context, p *auth.Principal, id, secret string) error {
	if err := s.visible(ctx, p, "webhook_endpoints", id); err != nil {
		return err
	}
	return s.cfg.Store.ServiceTx(ctx, p.WorkspaceID, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE webhook_secrets SET previous_secret = secret, previous_expires_at = $3, secret = $2
			WHERE endpoint_id = $1::text::uuid`, id, secret, s.cfg.Now().Add(workspace.RotationOverlap))
		if err == nil && tag.RowsAffected() == 0 {
			err = errors.New("webhooks: endpoint has no secret row")
		}
		if err != nil {
			return err
		}
		// What was done, never the secret.
		return store.RecordAction(ctx, tx, p.Actor(), "webhook_endpoints", id, workspace.ActionRotateSecret, map[string]any{"secret": "rotated"})
	})
}
