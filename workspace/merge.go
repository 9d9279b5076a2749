package workspace

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/agencyos/workspaced/apierr"
	"github.com/agencyos/workspaced/auth"
	"github.com/agencyos/workspaced/store"
)

// MergedIntoField is the read-only field of a Mergeable resource that marks a merged record
// with the id of the record it was merged into (null while it stands on its own).
const MergedIntoField = "merged_into_id"

var mergedInto = doc(ro(MergedIntoField, UUID),
	"null, or the id of the record this one was merged into (POST /<resource>/{id}/merge); a merged record is left out of lists and search")

// notMerged is the condition lists, q and search add for a Mergeable resource: a merged
// record is reached only by its id (a get answers it, merged_into_id naming the kept one).
const notMerged = `"merged_into_id" IS NULL`

// mergeMove is one reference to a Mergeable resource that a merge moves from the merged
// record to the kept one: table.column holds the id. carry marks a join table (deal_people),
// which the API only inserts and deletes: its rows are relinked by a delete and an insert
// carrying these columns, and a link the kept record already has stays as it is (the
// merged record's duplicate of it goes).
type mergeMove struct {
	table, column string
	carry         []string
}

// mergeMoves lists, per Mergeable resource, every foreign key to its table (store/schema.sql)
// but the merge mark itself; TestMergeMovesEveryForeignKey holds this list to pg_constraint.
// Custom reference fields, which no foreign key states, are found at merge time.
var mergeMoves = map[string][]mergeMove{
	"people":    {{table: "deal_people", column: "person_id", carry: []string{"deal_id", "role", "is_primary"}}},
	"companies": {{table: "deals", column: "company_id"}, {table: "people", column: "company_id"}},
}

// Merge folds the record from into the record id of a Mergeable resource (people,
// companies) as one transaction: every reference to from moves to id, id's blank fields
// and missing custom values are filled from from's, and from is marked merged_into_id (it
// stays; the UPDATE that marks it leaves the one "merged" activity row and webhook event).
// body is {"from": "<id>"}. The gates are an update's: the write scope, the resource's
// grant. Errors: not_found for an id the actor cannot see; bad_request for a malformed
// body, merging a record into itself, a from the actor cannot see (another workspace's
// answers as a missing one), or either record already merged.
func (o *Ops) Merge(ctx context.Context, p *auth.Principal, r *Resource, id string, body json.RawMessage) (json.RawMessage, error) {
	if err := admit(p, r, OpUpdate); err != nil {
		return nil, err
	}
	if !r.Mergeable {
		return nil, apierr.BadRequest("%s records cannot be merged; merge applies to people and companies", r.Name)
	}
	if err := o.permitWrite(p, r, OpUpdate, id, nil); err != nil {
		return nil, err
	}
	done, err := o.admitClass(ctx, p, ClassWrite)
	if err != nil {
		return nil, err
	}
	defer done()
	if !isUUID(id) {
		return nil, notFound(r, id)
	}
	from, err := mergeFrom(body)
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(from, id) {
		return nil, apierr.BadRequest("a record cannot be merged into itself: from must name another %s record", recordNoun(r))
	}
	var rec json.RawMessage
	err = o.writeTx(ctx, p, func(tx pgx.Tx) error {
		q := txQuerier{tx}
		if err := lockMergePair(ctx, tx, r, id, from); err != nil {
			return err
		}
		if err := o.mergeRows(ctx, tx, r, id, from); err != nil {
			return err
		}
		var err error
		rec, err = one(ctx, q, p, o.statements[r].get, []any{id})
		return err
	})
	if err != nil {
		return nil, err
	}
	return rec, nil
}

// mergeFrom reads {"from": "<uuid>"}; any other key is refused, so a typo is not ignored.
func mergeFrom(body json.RawMessage) (string, error) {
	m, err := DecodeObject(body)
	if err != nil {
		return "", err
	}
	for k := range m {
		if k != "from" {
			return "", apierr.BadRequest("unknown key %q: a merge body is {\"from\": \"<id>\"}", clip(k))
		}
	}
	var from string
	if raw, ok := m["from"]; !ok || json.Unmarshal(raw, &from) != nil || !isUUID(from) {
		return "", apierr.BadRequest("from is required: the id (a uuid) of the record to merge into this one, as {\"from\": \"<id>\"}")
	}
	return strings.ToLower(from), nil
}

// lockMergePair locks both records in id order, so two merges of the same pair (either
// way round) queue and the second sees the first's mark, and checks what the lock found.
func lockMergePair(ctx context.Context, tx pgx.Tx, r *Resource, id, from string) error {
	rows, err := tx.Query(ctx, `SELECT id::text, merged_into_id IS NOT NULL FROM `+ident(r.Table)+
		` WHERE id = ANY($1::text[]::uuid[]) ORDER BY id FOR UPDATE`, []string{id, from})
	if err != nil {
		return err
	}
	merged := map[string]bool{}
	if err := store.Scan(rows, func(rows pgx.Rows) error {
		for rows.Next() {
			var rid string
			var m bool
			if err := rows.Scan(&rid, &m); err != nil {
				return err
			}
			merged[rid] = m
		}
		return nil
	}); err != nil {
		return err
	}
	idMerged, idFound := merged[strings.ToLower(id)]
	fromMerged, fromFound := merged[from]
	switch {
	case !idFound:
		return notFound(r, id)
	case !fromFound:
		return apierr.BadRequest("from: no %s record %s in this workspace", r.Name, from)
	case idMerged:
		return apierr.BadRequest("%s %s was itself merged into another record; merge into that one (its merged_into_id)", recordNoun(r), id)
	case fromMerged:
		return apierr.BadRequest("%s %s is already merged into another record", recordNoun(r), from)
	}
	return nil
}

// mergeRows does the merge's writes once both records are locked: mark from (moving away
// its unique custom values the kept record lacks, which cannot be in two records), fill
// id's blanks, then move every reference.
func (o *Ops) mergeRows(ctx context.Context, tx pgx.Tx, r *Resource, id, from string) error {
	t := ident(r.Table)
	var custom string // from's custom values before the mark moves its unique ones away
	if err := tx.QueryRow(ctx, `SELECT coalesce(custom_fields, '{}')::text FROM `+t+` WHERE id = $1::text::uuid`, from).Scan(&custom); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE `+t+` m SET merged_into_id = $1::text::uuid,
		custom_fields = nullif(m.custom_fields - ARRAY(SELECT cf.key FROM custom_fields cf, `+t+` k
			WHERE k.id = $1::text::uuid AND cf.resource = $3 AND cf."unique" AND NOT coalesce(k.custom_fields, '{}') ? cf.key), '{}')
		WHERE m.id = $2::text::uuid`, id, from, r.Name); err != nil {
		return err
	}
	// A record without custom values holds NULL (store/migrations/00040_custom_fields.sql).
	fills := []string{`custom_fields = nullif($3::text::jsonb || coalesce(k.custom_fields, '{}'), '{}')`}
	for _, f := range r.Writable() {
		if f.Name == customFieldsName {
			continue
		}
		c := ident(f.Name)
		blank := "k." + c
		if f.Type == String {
			blank = "nullif(k." + c + ", '')"
		}
		fills = append(fills, c+" = coalesce("+blank+", m."+c+")")
	}
	if _, err := tx.Exec(ctx, `UPDATE `+t+` k SET `+strings.Join(fills, ", ")+` FROM `+t+` m
		WHERE k.id = $1::text::uuid AND m.id = $2::text::uuid`, id, from, custom); err != nil {
		return err
	}
	for _, mv := range mergeMoves[r.Name] {
		mt, mc := ident(mv.table), ident(mv.column)
		if len(mv.carry) > 0 { // a join row: no UPDATE grant, so relinked by delete and insert
			carry := make([]string, len(mv.carry))
			for i, c := range mv.carry {
				carry[i] = ident(c)
			}
			cols := strings.Join(carry, ", ")
			if _, err := tx.Exec(ctx, `WITH gone AS (DELETE FROM `+mt+` WHERE `+mc+` = $2::text::uuid RETURNING `+cols+`)
				INSERT INTO `+mt+` (`+mc+`, `+cols+`) SELECT $1::text::uuid, `+cols+` FROM gone ON CONFLICT DO NOTHING`, id, from); err != nil {
				return err
			}
			continue
		}
		if _, err := tx.Exec(ctx, `UPDATE `+mt+` SET `+mc+` = $1::text::uuid WHERE `+mc+` = $2::text::uuid`, id, from); err != nil {
			return err
		}
	}
	return moveCustomReferences(ctx, tx, r, id, from)
}

// moveCustomReferences repoints every custom reference field naming r (custom_fields.go)
// whose value is from to id, in whichever resource the field belongs to.
func moveCustomReferences(ctx context.Context, tx pgx.Tx, r *Resource, id, from string) error {
	rows, err := tx.Query(ctx, `SELECT resource, key FROM custom_fields WHERE type = 'reference' AND reference_resource = $1 ORDER BY resource, key`, r.Name)
	if err != nil {
		return err
	}
	type ref struct{ resource, key string }
	var refs []ref
	if err := store.Scan(rows, func(rows pgx.Rows) error {
		for rows.Next() {
			var f ref
			if err := rows.Scan(&f.resource, &f.key); err != nil {
				return err
			}
			refs = append(refs, f)
		}
		return nil
	}); err != nil {
		return err
	}
	for _, f := range refs {
		holder := Lookup(f.resource)
		if holder == nil {
			return fmt.Errorf("workspace: custom field %s.%s belongs to no catalogue resource", f.resource, f.key)
		}
		if _, err := tx.Exec(ctx, `UPDATE `+ident(holder.Table)+` SET custom_fields = jsonb_set(custom_fields, ARRAY[$3], to_jsonb($1::text))
			WHERE custom_fields ->> $3 = $2`, id, from, f.key); err != nil {
			return err
		}
	}
	return nil
}
