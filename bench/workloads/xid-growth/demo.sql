-- xid-growth: one transaction, three inserts, three savepoints (the
-- postgres.ai article's first problem). PostgreSQL assigns an XID to every
-- subtransaction that writes, so the two pg_current_xact_id() calls differ
-- by 4 and the rows carry three different xmin values; Nestor's savepoints
-- take no XID: the calls differ by 1 and every row has the top-level XID.
-- Output with psql -X -A -t -q: the XID inside, the next XID after the
-- commit, then one ctid|xmin|xmax|i line per row.
DROP TABLE IF EXISTS test1;
CREATE TABLE test1 (i int8);
BEGIN;
SELECT pg_current_xact_id();
INSERT INTO test1 SELECT 1;
SAVEPOINT s1;
INSERT INTO test1 SELECT 2;
SAVEPOINT s2;
SAVEPOINT s3;
INSERT INTO test1 SELECT 3;
COMMIT;
SELECT pg_current_xact_id();
SELECT ctid, xmin, xmax, i FROM test1 ORDER BY i;
