--
-- System functions and columns whose output PostgreSQL makes deterministic.
--
SET TimeZone = 'UTC';
CREATE TABLE sf (id integer PRIMARY KEY, v text);
-- transaction ids
SELECT pg_current_xact_id() IS NOT NULL AS has_xid;
SELECT txid_current() > 0 AS positive;
SELECT pg_current_xact_id_if_assigned() IS NULL AS none_outside_block;
BEGIN;
SELECT pg_current_xact_id_if_assigned() IS NULL AS not_assigned_yet;
SELECT txid_current() = txid_current() AS stable_in_block;
SELECT pg_current_xact_id() = pg_current_xact_id() AS xid8_stable;
SELECT pg_current_xact_id_if_assigned() = pg_current_xact_id() AS assigned_now;
SELECT pg_current_xact_id()::text = txid_current()::text AS xid8_matches_txid;
SELECT pg_xact_status(pg_current_xact_id()) AS own_status;
COMMIT;
-- a read-only block does not get one until asked
BEGIN;
SELECT count(*) FROM sf;
SELECT pg_current_xact_id_if_assigned() IS NULL AS read_only_has_none;
COMMIT;
-- writing assigns one
BEGIN;
INSERT INTO sf VALUES (1, 'one');
SELECT pg_current_xact_id_if_assigned() IS NOT NULL AS write_has_one;
COMMIT;
-- each transaction gets a new, larger one
SELECT txid_current() AS first_xid \gset
SELECT txid_current() > :first_xid AS increases;
-- status of finished transactions
BEGIN;
INSERT INTO sf VALUES (2, 'two');
SELECT txid_current() AS committed_xid \gset
COMMIT;
SELECT pg_xact_status(:'committed_xid'::xid8) AS committed;
BEGIN;
INSERT INTO sf VALUES (3, 'three');
SELECT txid_current() AS aborted_xid \gset
ROLLBACK;
SELECT pg_xact_status(:'aborted_xid'::xid8) AS aborted;
-- savepoints do not change the top-level transaction id
BEGIN;
SELECT txid_current() AS top_xid \gset
SAVEPOINT a;
INSERT INTO sf VALUES (4, 'four');
SELECT txid_current() = :top_xid AS same_in_savepoint;
ROLLBACK TO a;
SELECT txid_current() = :top_xid AS same_after_rollback_to;
COMMIT;
-- snapshots
SELECT pg_snapshot_xmin(pg_current_snapshot()) <= pg_snapshot_xmax(pg_current_snapshot()) AS ordered;
BEGIN;
SELECT txid_current() AS snap_xid \gset
SELECT pg_snapshot_xmin(pg_current_snapshot()) <= :'snap_xid'::xid8 AS xmin_not_after_own;
COMMIT;
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT pg_current_snapshot()::text AS rr_snap \gset
SELECT pg_current_snapshot()::text = :'rr_snap' AS rr_snapshot_stable;
COMMIT;
-- system columns of a row
SELECT xmin IS NOT NULL AS has_xmin, xmax::text AS xmax, ctid IS NOT NULL AS has_ctid FROM sf WHERE id = 1;
-- timestamps
BEGIN;
SELECT now() = current_timestamp AS now_is_current_timestamp;
SELECT now() AS t1 \gset
SELECT pg_sleep(0.01);
SELECT now() = :'t1'::timestamptz AS now_fixed_in_block, clock_timestamp() > now() AS clock_moves;
COMMIT;
SELECT now() > :'t1'::timestamptz AS later_transaction_later_now;
SELECT pg_sleep(0);
SELECT pg_sleep_for('1 millisecond');
-- identification
SELECT version() LIKE 'PostgreSQL%' AS version_ok;
SELECT current_database();
SELECT pg_backend_pid() > 0 AS has_pid, pg_backend_pid() = pg_backend_pid() AS stable_pid;
SELECT count(*) AS me_in_pg_stat_activity FROM pg_stat_activity WHERE pid = pg_backend_pid();
SELECT state, query FROM pg_stat_activity WHERE pid = pg_backend_pid();
SELECT datname, usename, application_name, wait_event_type IS NULL AS not_waiting FROM pg_stat_activity WHERE pid = pg_backend_pid();
SELECT backend_xid IS NULL AS no_xid_outside_block FROM pg_stat_activity WHERE pid = pg_backend_pid();
-- random
SELECT count(*) AS in_range FROM (SELECT random() AS r FROM generate_series(1, 100)) s WHERE r >= 0 AND r < 1;
SELECT random() >= 0 AND random() < 1 AS in_range;
DROP TABLE sf;
SELECT repeat('x', 3), lpad('7', 3, '0'), md5('abc'), split_part('a,b,c', ',', 2), reverse('abc');
