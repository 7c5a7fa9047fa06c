-- standby-long-tx, load on the primary (pgbench -i tables): three nested
-- savepoints around a no-op update, as in the postgres.ai article's
-- reproduction. Run with pgbench -n -M prepared.
\set id random(1, 10000)
BEGIN;
SAVEPOINT s1;
SAVEPOINT s2;
SAVEPOINT s3;
UPDATE pgbench_accounts SET aid = aid WHERE aid = :id;
COMMIT;
