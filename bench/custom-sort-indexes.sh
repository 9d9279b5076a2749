#!/usr/bin/env bash
# What a custom field's sort index costs (docs/performance.md, "Custom fields"), against a
# migrated database (DATABASE_URL; it holds ws_custom_sort_*, ws_custom_value_t and ws_custom_value_head), in throwaway tables:
#   writes    100,000 rows with three custom fields inserted into a bare table, rounds
#             alternating: no sort index (A), the three fields' sort indexes (B), three sort
#             indexes of keys the rows lack (C), B and the list index of lead_source (L,
#             as a select or member field has: workspace/sortindex.go), B and the prefix
#             index of lead_source (P, as a url or phone field has); rows/s each
#             (VARIANTS="B L" runs only those)
#   planning  median planning time of a custom sort and of a plain list, in one session,
#             with 0, 20 and 100 sort indexes on a table of 50,000 rows
set -euo pipefail
: "${DATABASE_URL:?a migrated database, e.g. postgres://postgres@127.0.0.1:5432/ws_test_...}"
ROUNDS=${ROUNDS:-4}
P() { psql "$DATABASE_URL" -qAt -v ON_ERROR_STOP=1 "$@"; }
col() { case $(($1 % 3)) in 0) echo n ;; 1) echo t ;; 2) echo d ;; esac; }

writes() {
	P -c "DROP TABLE IF EXISTS bench_sort_writes; CREATE TABLE bench_sort_writes (id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
		workspace_id uuid NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), name text, custom_fields jsonb);
		CREATE INDEX ON bench_sort_writes (workspace_id, created_at, id);"
	local keys="lead_source:t retainer:n renewal:d"
	[ "$1" = C ] && keys="other_a:t other_b:n other_c:d"
	if [ "$1" != A ]; then
		for kc in $keys; do
			P -c "CREATE INDEX ON bench_sort_writes (workspace_id, ws_custom_sort_${kc#*:}(custom_fields, '${kc%:*}'), id) WHERE custom_fields ? '${kc%:*}'"
		done
	fi
	if [ "$1" = L ]; then
		P -c "CREATE INDEX ON bench_sort_writes (workspace_id, ws_custom_value_t(custom_fields, 'lead_source'), created_at DESC, id DESC) WHERE custom_fields ? 'lead_source'"
	fi
	if [ "$1" = P ]; then
		P -c "CREATE INDEX ON bench_sort_writes (workspace_id, created_at DESC, id DESC, (ws_custom_value_head(custom_fields, 'lead_source')) COLLATE \"C\") WHERE custom_fields ? 'lead_source'"
	fi
	local start end
	start=$(date +%s.%N)
	for b in $(seq 0 9); do
		P -c "INSERT INTO bench_sort_writes (workspace_id, name, custom_fields) SELECT '00000000-0000-0000-0000-000000000001', 'p' || g,
			jsonb_build_object('lead_source', 'src ' || (g % 37), 'retainer', g % 5000, 'renewal', (date '2026-01-01' + g % 700)::text)
			FROM generate_series($b * 10000 + 1, ($b + 1) * 10000) g"
	done
	end=$(date +%s.%N)
	echo "writes $1: $(echo "100000 / ($end - $start)" | bc) rows/s"
}

planning() { # $1: label; median planning ms of 40 EXPLAINs of each statement, one session
	local what="custom sort"
	for q in "SELECT id FROM bench_sort_plans WHERE workspace_id = '00000000-0000-0000-0000-000000000003' AND custom_fields ? 'k03'
			AND ws_custom_sort_n(custom_fields, 'k03') IS NOT NULL ORDER BY ws_custom_sort_n(custom_fields, 'k03'), id LIMIT 51" \
		"SELECT id FROM bench_sort_plans WHERE workspace_id = '00000000-0000-0000-0000-000000000003' ORDER BY created_at DESC, id DESC LIMIT 51"; do
		for _ in $(seq 1 40); do echo "EXPLAIN (SUMMARY) $q;"; done | P | sed -n 's/^Planning Time: \([0-9.]*\) ms/\1/p' |
			sort -n | awk -v l="$1" -v w="$what" '{a[NR]=$1} END {printf "planning, %s, %s: %.3f ms\n", l, w, a[int(NR/2)+1]}'
		what="plain list"
	done
}

for _ in $(seq 1 "$ROUNDS"); do for v in ${VARIANTS:-A B C L}; do writes $v; done; done
P -c "DROP TABLE bench_sort_writes"

P -c "DROP TABLE IF EXISTS bench_sort_plans; CREATE TABLE bench_sort_plans (id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
	workspace_id uuid NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), custom_fields jsonb);
	CREATE INDEX ON bench_sort_plans (workspace_id, created_at, id);
	INSERT INTO bench_sort_plans (workspace_id, custom_fields) SELECT ('00000000-0000-0000-0000-0000000000' || lpad((g % 10)::text, 2, '0'))::uuid,
		(SELECT jsonb_object_agg('k' || lpad(k::text, 2, '0'), CASE WHEN k % 3 = 0 THEN to_jsonb(g % 1000) WHEN k % 3 = 1 THEN to_jsonb('s' || (g % 997))
			ELSE to_jsonb((date '2020-01-01' + g % 2000)::text) END) FROM generate_series(0, 19) k)
	FROM generate_series(1, 50000) g;"
P -c "VACUUM ANALYZE bench_sort_plans"
planning "0 sort indexes"
for k in $(seq -w 0 99); do
	P -c "CREATE INDEX bench_sort_plans_k$k ON bench_sort_plans (workspace_id, ws_custom_sort_$(col $((10#$k)))(custom_fields, 'k$k'), id) WHERE custom_fields ? 'k$k'"
	if [ "$k" = 19 ] || [ "$k" = 99 ]; then
		P -c "ANALYZE bench_sort_plans"
		planning "$((10#$k + 1)) sort indexes"
	fi
done
P -c "DROP TABLE bench_sort_plans"
