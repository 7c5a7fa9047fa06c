-- CREATE INDEX ... USING hash: creation, its errors, equality-only use
-- by the planner, maintenance by every write path, partitioned tables,
-- and the catalog (pg_am, relam, pg_get_indexdef, psql's \d).
\set VERBOSITY verbose
CREATE TABLE h (a int, b text, c point, d money, e json);
-- what the hash method does not support
CREATE INDEX ON h USING hash (a, b);
CREATE UNIQUE INDEX ON h USING hash (a);
CREATE INDEX ON h USING hash (a) INCLUDE (b);
CREATE INDEX ON h USING hash (a DESC);
CREATE INDEX ON h USING hash (a NULLS FIRST);
-- key types without a hash operator class
CREATE INDEX ON h USING hash (c);
CREATE INDEX ON h USING hash (d);
CREATE INDEX ON h USING hash (e);
CREATE INDEX ON h USING hash (point(a, a));
-- storage parameters
CREATE INDEX ON h USING hash (a) WITH (fillfactor = 9);
CREATE INDEX ON h USING hash (a) WITH (fillfactor = 101);
CREATE INDEX ON h USING hash (a) WITH (fillfactor = 'abc');
CREATE INDEX ON h USING hash (a) WITH (deduplicate_items = on);
CREATE INDEX ON h (a) WITH (fillfactor = 5);
-- an unknown method, an unknown column
CREATE INDEX ON h USING nosuch (a);
CREATE INDEX ON h USING hash (nosuch);
\set VERBOSITY default
INSERT INTO h (a, b) SELECT g, 'v' || g FROM generate_series(1, 200) g;
INSERT INTO h (a, b) VALUES (NULL, NULL), (7, 'dup7');
CREATE INDEX h_a ON h USING hash (a);
CREATE INDEX ON h USING hash (b);
CREATE INDEX h_lower ON h USING hash (lower(b));
CREATE INDEX h_part ON h USING hash (a) WHERE a > 150;
CREATE INDEX ON h (a);
\d h
SELECT c.relname, a.amname
FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.relkind = 'i' AND c.relname LIKE 'h\_%' ORDER BY 1;
SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'h' ORDER BY 1;
SELECT pg_get_indexdef('h_lower'::regclass);
SELECT amname, amtype FROM pg_am WHERE oid = 405;
SELECT c.relname, o.opcname, a.amname
FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
JOIN pg_opclass o ON o.oid = i.indclass[0] JOIN pg_am a ON a.oid = o.opcmethod
WHERE i.indrelid = 'h'::regclass ORDER BY 1;
DROP INDEX h_a_idx;
-- whether a query's plan reads an index
CREATE FUNCTION uses_index(q text, idx text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line LIKE '%using ' || idx || ' %' THEN
      RETURN true;
    END IF;
  END LOOP;
  RETURN false;
END $$;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
-- equality
EXPLAIN (COSTS OFF) SELECT * FROM h WHERE a = 7;
SELECT * FROM h WHERE a = 7 ORDER BY b;
EXPLAIN (COSTS OFF) SELECT * FROM h WHERE b = 'v42';
SELECT * FROM h WHERE b = 'v42';
EXPLAIN (COSTS OFF) SELECT * FROM h WHERE lower(b) = 'v43';
SELECT * FROM h WHERE lower(b) = 'v43';
EXPLAIN (COSTS OFF) SELECT * FROM h WHERE b LIKE 'v44';
SELECT * FROM h WHERE b LIKE 'v44';
EXPLAIN (COSTS OFF) SELECT * FROM h WHERE a = 160 AND a > 150;
SELECT * FROM h WHERE a = 160 AND a > 150;
CREATE INDEX h_b_part ON h USING hash (b) WHERE b = 'v45';
EXPLAIN (COSTS OFF) SELECT * FROM h WHERE b = 'v45';
SELECT * FROM h WHERE b = 'v45';
DROP INDEX h_b_part;
EXPLAIN (COSTS OFF) SELECT * FROM h WHERE a = 7 ORDER BY a;
SELECT * FROM h WHERE a IN (3, 5, 1000) ORDER BY a;
SELECT * FROM h WHERE a = ANY (ARRAY[8, 9]) ORDER BY a;
PREPARE p(int) AS SELECT b FROM h WHERE a = $1;
EXECUTE p(11);
SELECT uses_index('SELECT b FROM h WHERE a = 11', 'h_a');
-- never ranges, prefixes, orders or IS NULL
SELECT uses_index('SELECT * FROM h WHERE a < 5', 'h_a');
SELECT uses_index('SELECT * FROM h WHERE a BETWEEN 5 AND 9', 'h_a');
SELECT uses_index('SELECT * FROM h WHERE b LIKE ''v1%''', 'h_b_idx');
SELECT uses_index('SELECT * FROM h ORDER BY a LIMIT 3', 'h_a');
SELECT uses_index('SELECT * FROM h WHERE a > 150 ORDER BY a LIMIT 3', 'h_part');
SELECT uses_index('SELECT * FROM h WHERE a IS NULL', 'h_a');
SELECT * FROM h WHERE a < 5 ORDER BY a;
SELECT * FROM h ORDER BY a DESC NULLS LAST LIMIT 3;
-- the inner side of a nested loop
CREATE TABLE o (x int);
INSERT INTO o VALUES (1), (7), (500);
SET enable_hashjoin = off;
SET enable_mergejoin = off;
SELECT uses_index('SELECT * FROM o JOIN h ON h.a = o.x', 'h_a');
SELECT o.x, h.b FROM o JOIN h ON h.a = o.x ORDER BY 1, 2;
RESET enable_hashjoin;
RESET enable_mergejoin;
-- writes keep it right
UPDATE h SET a = 1007 WHERE b = 'dup7';
SELECT * FROM h WHERE a = 7;
SELECT * FROM h WHERE a = 1007;
DELETE FROM h WHERE a = 8;
SELECT * FROM h WHERE a = 8;
BEGIN;
UPDATE h SET a = 9999 WHERE a = 9;
INSERT INTO h VALUES (9, 'new9');
DELETE FROM h WHERE a = 10;
SELECT * FROM h WHERE a IN (9, 10, 9999) ORDER BY a, b;
ROLLBACK;
SELECT * FROM h WHERE a IN (9, 10, 9999) ORDER BY a, b;
BEGIN;
SAVEPOINT s;
INSERT INTO h VALUES (12, 'sp12');
ROLLBACK TO s;
SELECT * FROM h WHERE a = 12;
COMMIT;
COPY h (a, b) FROM stdin;
12	copied12
\.
SELECT * FROM h WHERE a = 12 ORDER BY b;
SELECT * FROM h WHERE b = 'copied12';
TRUNCATE h;
SELECT * FROM h WHERE a = 12;
INSERT INTO h (a, b) VALUES (12, 'after');
SELECT * FROM h WHERE a = 12;
-- partitioned tables: the index on every partition
CREATE TABLE ph (k int, v text) PARTITION BY RANGE (k);
CREATE TABLE ph1 PARTITION OF ph FOR VALUES FROM (0) TO (100);
CREATE INDEX ph_v ON ph USING hash (v);
CREATE TABLE ph2 PARTITION OF ph FOR VALUES FROM (100) TO (200);
INSERT INTO ph SELECT g, 'w' || (g % 50) FROM generate_series(0, 199) g;
\d ph1
\d ph2
SELECT indexdef FROM pg_indexes WHERE tablename LIKE 'ph%' ORDER BY 1;
SELECT uses_index('SELECT * FROM ph2 WHERE v = ''w3''', 'ph2_v_idx');
SELECT * FROM ph WHERE v = 'w3' ORDER BY k;
CREATE UNIQUE INDEX ON ph USING hash (k);
-- attaching: a btree index on the key is not the parent's hash index
CREATE TABLE ph3 (k int, v text);
CREATE INDEX ON ph3 (v);
ALTER TABLE ph ATTACH PARTITION ph3 FOR VALUES FROM (200) TO (300);
\d ph3
CREATE TABLE ph4 (k int, v text);
CREATE INDEX ph4_hash ON ph4 USING hash (v);
ALTER TABLE ph ATTACH PARTITION ph4 FOR VALUES FROM (300) TO (400);
\d ph4
DROP TABLE ph;
-- an index described, copied by LIKE, renamed, reindexed
CREATE TABLE lk (a int, b text);
CREATE INDEX lk_b ON lk USING hash (b);
\d lk_b
CREATE TABLE lk2 (LIKE lk INCLUDING INDEXES);
\d lk2
ALTER INDEX lk_b RENAME TO lk_b2;
REINDEX INDEX lk_b2;
INSERT INTO lk VALUES (1, 'x'), (2, 'y');
SELECT uses_index('SELECT * FROM lk WHERE b = ''y''', 'lk_b2');
SELECT * FROM lk WHERE b = 'y';
ALTER TABLE lk ADD CONSTRAINT lk_u UNIQUE USING INDEX lk_b2;
-- the index is rebuilt for a new column type, which needs a hash class
ALTER TABLE lk ALTER COLUMN b TYPE varchar(10);
SELECT * FROM lk WHERE b = 'y';
ALTER TABLE lk ALTER COLUMN a TYPE bigint;
CREATE INDEX lk_a ON lk USING hash (a);
ALTER TABLE lk ALTER COLUMN a TYPE money USING a::int::money;
\d lk
DROP TABLE lk, lk2;
DROP TABLE h, o;
