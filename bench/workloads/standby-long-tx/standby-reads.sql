-- standby-long-tx, load on the replica: point reads of pgbench_accounts.
-- Their tps is what collapses on a PostgreSQL replica while a long
-- transaction is open on the primary. Run with pgbench -n -M prepared -P 5.
\set id random(1, 10000)
SELECT * FROM pgbench_accounts WHERE aid = :id;
