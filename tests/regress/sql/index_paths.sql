-- Index access paths: = ANY (array), LIKE / ~ prefixes, ORDER BY ... LIMIT
-- served by an index scan (forward and backward).
CREATE TABLE ip (a int, b text, c int);
INSERT INTO ip SELECT i, 'x' || i, i % 10 FROM generate_series(1, 10000) i;
INSERT INTO ip VALUES (NULL, NULL, 0), (0, NULL, 1);
CREATE INDEX ip_b ON ip (b);
CREATE INDEX ip_a ON ip (a);
CREATE INDEX ip_ca ON ip (c, a);
ANALYZE ip;

-- = ANY (array): a union of point lookups, duplicates and NULLs dropped
EXPLAIN (COSTS OFF) SELECT * FROM ip WHERE b = ANY ('{x1,x2}');
SELECT * FROM ip WHERE b = ANY ('{x1,x2,x1,NULL}') ORDER BY a;
EXPLAIN (COSTS OFF) SELECT * FROM ip WHERE a = ANY (ARRAY[1, 2]);
SELECT * FROM ip WHERE a = ANY (ARRAY[3, 2, 3]) ORDER BY a;
SELECT * FROM ip WHERE a = ANY (NULL::int[]);
SELECT * FROM ip WHERE a = ANY ('{}'::int[]);
EXPLAIN (COSTS OFF) SELECT * FROM ip WHERE b IN ('x1', 'x2');
PREPARE ip_any(int[]) AS SELECT a, b FROM ip WHERE a = ANY ($1) ORDER BY a;
EXECUTE ip_any('{5,7,5}');
EXECUTE ip_any(NULL);
DEALLOCATE ip_any;
-- after an equality prefix
EXPLAIN (COSTS OFF) SELECT * FROM ip WHERE c = 3 AND a = ANY ('{3,13,14}');
SELECT * FROM ip WHERE c = 3 AND a = ANY ('{3,13,14,NULL}') ORDER BY a;
EXPLAIN (COSTS OFF) SELECT * FROM ip WHERE c = 4 AND a IN (4, 14, 15);
SELECT * FROM ip WHERE c = 4 AND a IN (4, 14, 15) ORDER BY a;
SELECT * FROM ip WHERE c = NULL AND a IN (4, 14, 15);
-- the deparsed condition of a filter
EXPLAIN (COSTS OFF) SELECT * FROM ip WHERE c + 0 = ANY ('{1,2}');
EXPLAIN (COSTS OFF) SELECT * FROM ip WHERE c + 0 <> ALL ('{1,2}');

-- LIKE 'prefix%' and ~ '^prefix': a range of the index plus the filter
SELECT count(*) FROM ip WHERE b LIKE 'x12%';
SELECT a, b FROM ip WHERE b LIKE 'x12%' ORDER BY a LIMIT 5;
SELECT count(*) FROM ip WHERE b LIKE 'x1_2%';
SELECT a, b FROM ip WHERE b LIKE 'x123';
SELECT count(*) FROM ip WHERE b ~ '^x12';
SELECT count(*) FROM ip WHERE b ~ '^x12?3';
SELECT count(*) FROM ip WHERE b ~ '^x1|x2';
SELECT count(*) FROM ip WHERE b LIKE 'x%';
SELECT count(*) FROM ip WHERE b NOT LIKE 'x12%';
SELECT count(*) FROM ip WHERE b ILIKE 'X12%';
SELECT count(*) FROM ip WHERE b LIKE 'x99\%%';

-- ORDER BY the index's columns with a LIMIT: no sort
EXPLAIN (COSTS OFF) SELECT * FROM ip ORDER BY b LIMIT 3;
SELECT * FROM ip ORDER BY b LIMIT 3;
EXPLAIN (COSTS OFF) SELECT * FROM ip ORDER BY b DESC LIMIT 3;
SELECT * FROM ip ORDER BY b DESC, a LIMIT 1 OFFSET 2;
SELECT * FROM ip ORDER BY a DESC LIMIT 3;
SELECT * FROM ip ORDER BY a LIMIT 3;
SELECT * FROM ip ORDER BY a NULLS FIRST LIMIT 3;
SELECT * FROM ip ORDER BY a DESC NULLS LAST LIMIT 3;
SELECT * FROM ip WHERE a > 9990 ORDER BY a DESC;
-- a lower bound alone stops before the NULLs (no filter needed)
EXPLAIN (COSTS OFF) SELECT * FROM ip WHERE a > 9990;
SELECT count(*) FROM ip WHERE a >= 0;
SELECT * FROM ip WHERE c = 0 AND a > 9980 ORDER BY a;
SELECT count(*) FROM ip WHERE c = 0 AND a >= -1;
SELECT * FROM ip WHERE c = 0 AND a > 9980 ORDER BY a DESC LIMIT 1;
SELECT a, b FROM ip WHERE b > 'x9995' ORDER BY b LIMIT 3;
-- a WHERE equality fixes the index's leading column
EXPLAIN (COSTS OFF) SELECT * FROM ip WHERE c = 3 ORDER BY a LIMIT 3;
SELECT * FROM ip WHERE c = 3 ORDER BY a LIMIT 3;
EXPLAIN (COSTS OFF) SELECT * FROM ip WHERE c = 3 ORDER BY a DESC LIMIT 3;
SELECT * FROM ip WHERE c = 3 ORDER BY a DESC LIMIT 3;
SELECT * FROM ip WHERE c = 3 ORDER BY c, a DESC LIMIT 3;
SELECT * FROM ip WHERE c = 3 AND a < 100 ORDER BY a DESC LIMIT 3;
-- a filter on other columns, rows changed in the transaction
BEGIN;
DELETE FROM ip WHERE a = 1;
UPDATE ip SET b = 'a0' WHERE a = 5;
SELECT * FROM ip WHERE c = 1 ORDER BY b LIMIT 3;
SELECT * FROM ip ORDER BY b LIMIT 2;
ROLLBACK;
SELECT * FROM ip ORDER BY b LIMIT 2;
-- FETCH ... WITH TIES keeps its sort
SELECT c, a FROM ip WHERE c = 2 ORDER BY c FETCH FIRST 1 ROWS WITH TIES LIMIT 2;
DROP TABLE ip;
