package store

import "github.com/jackc/pgx/v5/pgxpool"

// PoolOf hands store's own tests the pool of s, deadlines and all; other packages' tests
// use storetest.Pool.
func PoolOf(s *Store) *pgxpool.Pool { return s.pool }
