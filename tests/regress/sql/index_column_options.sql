-- Index key options (CREATE INDEX's ASC/DESC, NULLS FIRST/LAST, COLLATE
-- and operator class): kept in the catalog, shown by pg_get_indexdef,
-- \d and pg_index, and followed by the index's own order
-- (nestor_storage::codec::put_key_ordered): ORDER BY uses an index read
-- forward in its declared order or backward in the exact reverse.
\set VERBOSITY verbose
CREATE TABLE ix (a int, b text);
CREATE INDEX ix_a ON ix (a DESC NULLS LAST, b COLLATE "C" text_pattern_ops);
SELECT pg_get_indexdef('ix_a'::regclass);
SELECT pg_get_indexdef('ix_a'::regclass, 0, true);
-- The column-number form shows the key alone.
SELECT pg_get_indexdef('ix_a'::regclass, 1, true), pg_get_indexdef('ix_a'::regclass, 2, false);
\d ix
SELECT indoption, indcollation, indclass FROM pg_index WHERE indexrelid = 'ix_a'::regclass;
SELECT opcname, opcdefault FROM pg_opclass WHERE oid IN (SELECT unnest(indclass::oid[]) FROM pg_index WHERE indexrelid = 'ix_a'::regclass) ORDER BY 1;
-- Defaults are not printed: DESC implies NULLS FIRST, the column's own
-- collation and the type's default class are left out.
CREATE TABLE kinds (a int, b text, v varchar(10), c char(3), n bigint);
CREATE INDEX kinds_all ON kinds (a DESC, a NULLS FIRST, a DESC NULLS LAST, a ASC NULLS LAST,
  a DESC NULLS FIRST, b COLLATE "default", b COLLATE "POSIX", b COLLATE ucs_basic DESC,
  b text_ops, v varchar_ops, v varchar_pattern_ops, b varchar_pattern_ops, c bpchar_pattern_ops,
  n int8_ops);
SELECT pg_get_indexdef('kinds_all'::regclass);
SELECT indoption, indcollation FROM pg_index WHERE indexrelid = 'kinds_all'::regclass;
CREATE INDEX kinds_expr ON kinds ((a + 1) DESC, lower(b) COLLATE "C" NULLS FIRST) WHERE a > 0;
CREATE UNIQUE INDEX kinds_u ON kinds (n DESC) NULLS NOT DISTINCT;
-- A top-level COLLATE of a key expression is the key's collation.
CREATE INDEX kinds_coll ON kinds ((b COLLATE "POSIX"), (v::text COLLATE "C") DESC, ((b COLLATE "POSIX")) COLLATE "C");
\d kinds
SELECT c.relname, i.indoption, i.indcollation FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
  WHERE i.indrelid = 'kinds'::regclass ORDER BY 1;
-- Errors, as PostgreSQL's ComputeIndexAttrs and ResolveOpClass.
CREATE INDEX ON kinds (n int4_ops);
CREATE INDEX ON kinds (n no_such_ops);
CREATE INDEX ON kinds (a COLLATE "C");
CREATE INDEX ON kinds (b COLLATE "no_such");
CREATE INDEX ON kinds ((a COLLATE "C"));
CREATE INDEX ON kinds ((b || 'x' COLLATE "no_such"));
CREATE INDEX ON kinds (b text_ops (k = 1));
CREATE INDEX ON kinds USING hash (a DESC);
CREATE INDEX ON kinds USING hash (a NULLS FIRST);
-- The entries lie in the declared order.
INSERT INTO ix VALUES (1, 'a'), (NULL, 'n'), (3, 'c'), (2, 'b'), (NULL, 'm'), (2, 'B');
SELECT * FROM ix ORDER BY a DESC NULLS LAST, b COLLATE "C";
SELECT * FROM ix ORDER BY a ASC NULLS FIRST, b COLLATE "C" DESC;
SELECT * FROM ix WHERE a > 1 ORDER BY a, b;
SELECT * FROM ix WHERE a < 3 ORDER BY a, b;
SELECT * FROM ix WHERE a >= 2 AND a <= 3 ORDER BY a, b;
SELECT * FROM ix WHERE a IS NULL ORDER BY b;
SELECT * FROM ix WHERE a = 2 ORDER BY b;
-- ORDER BY through the index, each way, on enough rows that PostgreSQL
-- prefers it too (the EXPLAINs read a column outside the indexes, so
-- PostgreSQL's plan is no index-only scan; the queries print columns
-- the order fixes, peers being in no defined order).
CREATE TABLE big (a int, b int, c text);
INSERT INTO big SELECT g % 100, g, 'r' || g FROM generate_series(1, 5000) g;
INSERT INTO big VALUES (NULL, 0, 'null0'), (NULL, -1, 'null1'), (50, NULL, 'bnull');
CREATE INDEX big_a ON big (a DESC NULLS LAST);
CREATE INDEX big_ab ON big (a, b DESC);
CREATE INDEX big_b ON big (b NULLS FIRST);
ANALYZE big;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT a, c FROM big ORDER BY a DESC NULLS LAST LIMIT 3;
SELECT a FROM big ORDER BY a DESC NULLS LAST LIMIT 3;
EXPLAIN (COSTS OFF) SELECT a, c FROM big ORDER BY a ASC NULLS FIRST LIMIT 3;
SELECT a FROM big ORDER BY a ASC NULLS FIRST LIMIT 3;
EXPLAIN (COSTS OFF) SELECT a, b, c FROM big ORDER BY a, b DESC LIMIT 3;
SELECT a, b, c FROM big ORDER BY a, b DESC LIMIT 3;
EXPLAIN (COSTS OFF) SELECT a, b, c FROM big ORDER BY a DESC NULLS FIRST, b ASC NULLS LAST LIMIT 3;
SELECT a, b, c FROM big ORDER BY a DESC NULLS FIRST, b ASC NULLS LAST LIMIT 3;
EXPLAIN (COSTS OFF) SELECT b, c FROM big ORDER BY b NULLS FIRST LIMIT 3;
SELECT b, c FROM big ORDER BY b NULLS FIRST LIMIT 3;
EXPLAIN (COSTS OFF) SELECT b, c FROM big ORDER BY b DESC NULLS LAST LIMIT 3;
SELECT b, c FROM big ORDER BY b DESC NULLS LAST LIMIT 3;
EXPLAIN (COSTS OFF) SELECT a, b, c FROM big WHERE a = 50 ORDER BY b DESC LIMIT 3;
SELECT a, b, c FROM big WHERE a = 50 ORDER BY b DESC LIMIT 3;
SELECT a, b FROM big WHERE a = 50 ORDER BY b LIMIT 3;
-- The equality picks big_a; the order wants big_ab, which the same
-- equality serves.
EXPLAIN (COSTS OFF) SELECT a, b, c FROM big WHERE a = 50 ORDER BY b LIMIT 3;
SELECT a, b FROM big WHERE a > 97 ORDER BY a DESC, b LIMIT 4;
SELECT count(*) FROM big WHERE a < 3;
SELECT count(*) FROM big WHERE b > 4990;
SELECT count(*) FROM big WHERE b < 5;
SELECT min(a), max(a), min(b), max(b) FROM big;
SELECT max(b) FROM big WHERE a = 7;
RESET enable_seqscan;
-- An order neither way of an index is sorted.
EXPLAIN (COSTS OFF) SELECT b, c FROM big ORDER BY b LIMIT 3;
SELECT b, c FROM big ORDER BY b LIMIT 3;
-- Uniqueness holds on DESC keys, with PostgreSQL's DETAIL.
CREATE TABLE u (a int, b text);
CREATE UNIQUE INDEX u_ab ON u (a DESC, b NULLS FIRST);
INSERT INTO u VALUES (1, 'x'), (1, NULL), (1, NULL), (2, 'x');
INSERT INTO u VALUES (1, 'x');
UPDATE u SET a = 1 WHERE a = 2;
DELETE FROM u WHERE a = 2;
SELECT * FROM u ORDER BY a DESC, b NULLS FIRST;
-- ADD CONSTRAINT ... USING INDEX needs each key's default sorting.
CREATE UNIQUE INDEX u_b ON u (b COLLATE "C");
CREATE UNIQUE INDEX u_c ON u (b text_pattern_ops);
ALTER TABLE u ADD CONSTRAINT u_ab_key UNIQUE USING INDEX u_ab;
ALTER TABLE u ADD PRIMARY KEY USING INDEX u_ab;
ALTER TABLE u ADD CONSTRAINT u_b_key UNIQUE USING INDEX u_b;
ALTER TABLE u ADD CONSTRAINT u_c_key UNIQUE USING INDEX u_c;
DELETE FROM u WHERE b IS NULL;
CREATE UNIQUE INDEX u_a ON u (a ASC NULLS LAST, b);
ALTER TABLE u ADD CONSTRAINT u_a_key UNIQUE USING INDEX u_a;
\d u
-- Key options follow an index down to a partitioned table's partitions.
CREATE TABLE pt (a int, b int) PARTITION BY RANGE (a);
CREATE TABLE pt1 PARTITION OF pt FOR VALUES FROM (0) TO (10);
CREATE INDEX pt_b ON pt (b DESC NULLS LAST);
CREATE TABLE pt2 PARTITION OF pt FOR VALUES FROM (10) TO (20);
SELECT c.relname, pg_get_indexdef(c.oid) FROM pg_class c WHERE c.relname LIKE 'pt%' AND c.relkind IN ('i', 'I') ORDER BY 1;
INSERT INTO pt VALUES (1, 1), (2, NULL), (11, 5), (12, 3);
SELECT * FROM pt1 ORDER BY b DESC NULLS LAST;
-- A pattern class serves equality (and LIKE prefixes), not the type's
-- ranges.
CREATE TABLE pat (b text, c int);
INSERT INTO pat SELECT 'v' || g, g FROM generate_series(1, 5000) g;
CREATE INDEX pat_b ON pat (b text_pattern_ops);
ANALYZE pat;
EXPLAIN (COSTS OFF) SELECT c FROM pat WHERE b = 'v12';
EXPLAIN (COSTS OFF) SELECT c FROM pat WHERE b > 'v4999';
EXPLAIN (COSTS OFF) SELECT c FROM pat WHERE b LIKE 'v12';
SELECT count(*) FROM pat WHERE b LIKE 'v12%';
SELECT count(*) FROM pat WHERE b > 'v4999';
CREATE TABLE vo (v varchar(10), c int);
INSERT INTO vo SELECT 'v' || g, g FROM generate_series(1, 5000) g;
CREATE INDEX vo_v ON vo (v varchar_ops DESC);
ANALYZE vo;
EXPLAIN (COSTS OFF) SELECT c FROM vo ORDER BY v DESC LIMIT 2;
SELECT v FROM vo ORDER BY v DESC LIMIT 2;
EXPLAIN (COSTS OFF) SELECT c FROM pat ORDER BY b LIMIT 2;
DROP TABLE pat, vo;
-- A class of a type the key's type is implicitly binary-coercible to
-- (bpchar_ops on text) is kept and shown; its operators are not the key
-- type's, so the planner matches no text condition to it (and the text
-- equality holds as text's).
CREATE TABLE bp (f1 text, i int, v varbit, c char(3));
CREATE INDEX bp_f1 ON bp (f1 bpchar_ops);
CREATE INDEX bp_all ON bp (i oid_ops, v bit_ops, c bpchar_ops, f1 bpchar_pattern_ops);
CREATE INDEX ON bp (i int8_ops);
CREATE TABLE bpo (o oid);
CREATE INDEX ON bpo (o int4_ops);
\d bp
INSERT INTO bp VALUES ('foo', 1, B'101', 'ab'), ('foo ', 2, B'1', 'ab ');
SELECT count(*) FROM bp WHERE f1 = 'foo';
DROP TABLE bp, bpo;
-- ALTER COLUMN TYPE resolves a key's COLLATE and class for the new type.
CREATE TABLE rt (a int, b text, c text);
CREATE INDEX rt_b ON rt (b text_pattern_ops);
CREATE INDEX rt_c ON rt (c COLLATE "C" DESC);
INSERT INTO rt VALUES (1, '12', '345'), (2, NULL, '6');
ALTER TABLE rt ALTER b TYPE int USING length(b);
ALTER TABLE rt ALTER c TYPE int USING length(c);
ALTER TABLE rt ALTER c TYPE varchar(10);
\d rt
SELECT c FROM rt ORDER BY c COLLATE "C" DESC;
DROP TABLE ix, kinds, big, u, pt, rt;
