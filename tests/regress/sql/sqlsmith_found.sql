--
-- Statements scripts/sqlsmith found that ended the session (a panic) or
-- answered differently from PostgreSQL 15, reduced by hand.
--
\set VERBOSITY verbose
CREATE TABLE t1 (id int PRIMARY KEY, a int, f float8, d bool);
CREATE TABLE t2 (id int, x int, y text, z numeric);
CREATE TABLE t3 (k text, v int);
INSERT INTO t1 VALUES (1, 0, 0.5, true), (2, 3, -2.25, false), (3, NULL, NULL, true), (4, 2, 0.5, NULL);
INSERT INTO t2 VALUES (1, 0, 'alpha', 1.5), (2, 2, 'beta', NULL), (3, NULL, 'gamma', 3), (5, 2, NULL, -1);
INSERT INTO t3 VALUES ('alpha', 0), ('beta', 2), (NULL, 2), ('gamma', NULL);
-- A correlated subquery in WHERE or ON reading a table other than the
-- first one of the FROM list was evaluated on the wrong row (index out of
-- bounds: the session ended).
SELECT count(*) FROM t1 a, t2 b WHERE EXISTS (SELECT 1 FROM t3 WHERE t3.v = b.x);
SELECT count(*) FROM t1 a JOIN t2 b ON EXISTS (SELECT 1 FROM t3 WHERE t3.v = b.x);
SELECT a.id, b.id FROM t1 a LEFT JOIN t2 b ON EXISTS (SELECT 1 FROM t3 WHERE t3.v = b.x AND b.x = a.a) ORDER BY 1, 2;
SELECT count(*) FROM t1 a JOIN t2 b ON a.id = b.id AND EXISTS (SELECT 1 FROM t3 WHERE t3.v = b.x) JOIN t3 c ON c.v = a.a;
SELECT b.y FROM t1 a, t2 b WHERE a.id = b.id ORDER BY (SELECT count(*) FROM t3 WHERE t3.v = b.x), 1;
-- The left operand of IN/ANY (SELECT ...) pushed down to one side of a
-- join kept the join row's positions.
SELECT count(*) FROM t1 a JOIN t1 b ON (b.a IN (SELECT v FROM t3));
SELECT a.id, b.id FROM t1 a JOIN t2 b ON (b.x IN (SELECT v FROM t3)) AND a.id = b.id ORDER BY 1;
SELECT b.x, count(*) FROM t2 b GROUP BY b.x HAVING count(*) IN (SELECT v FROM t3) ORDER BY 1;
SELECT b.x, sum(b.x) > ALL (SELECT v FROM t3) FROM t2 b GROUP BY b.x ORDER BY 1;
-- An ON clause sees its join's inputs only, not the FROM items before it.
SELECT 1 FROM t1 a, t2 b JOIN t3 c ON a.d;
SELECT 1 FROM t1 a, t2 b JOIN t3 c ON d;
SELECT 1 FROM t1 a, t2 b JOIN t3 c ON (SELECT a.d);
SELECT count(*) FROM t1 a, t2 b JOIN t3 c ON c.v = b.x;
-- An index range with a lower bound only reached the NULL keys (NULLs
-- sort last): x >= 1 returned the rows where x is NULL.
CREATE INDEX t2_x ON t2 (x);
CREATE INDEX t3_kv ON t3 (k, v);
INSERT INTO t3 VALUES ('beta', NULL);
SELECT count(*) FROM t2 WHERE x >= 1;
SELECT count(*) FROM t2 WHERE 0 < x;
SELECT count(*) FROM t2 WHERE x >= 1 AND x <= 5;
SELECT count(*) FROM t2 WHERE x < 5;
SELECT count(*) FROM t3 WHERE k = 'beta' AND v >= 0;
SELECT count(*) FROM t2 a, t2 b WHERE 1 BETWEEN abs(a.id) * (- a.id) AND b.x;
-- Smaller differences: a column named by an IN/ANY/ALL subquery, avg of
-- -0, the SQLSTATE of a negative substring length, the last years of the
-- timestamp range.
SELECT 1 IN (SELECT 1 AS v), 1 = ANY (SELECT 2 AS w), EXISTS (SELECT 1), (SELECT 3 AS z);
SELECT sum(x), avg(x) FROM (VALUES ('-0'::float8), ('-0')) v(x);
SELECT substr('abc', 1, -1);
SELECT '294277-12-31 23:59:59.999999'::timestamp;
SELECT '294247-01-01'::timestamp;
