-- Expression and partial indexes: creation and its checks, uniqueness,
-- maintenance through UPDATE / DELETE / savepoints, plans, \d and
-- pg_get_indexdef.
CREATE TABLE ei (a int, b text, c int);
INSERT INTO ei SELECT i, 'Name' || i, i % 7 FROM generate_series(1, 2000) i;
CREATE INDEX ON ei (lower(b));
CREATE INDEX ON ei ((a + c));
CREATE INDEX ON ei (c, upper(b));
CREATE INDEX ei_big ON ei (a) WHERE a > 1500;
CREATE INDEX ei_notnull ON ei (c) WHERE b IS NOT NULL AND c > 3;
\d ei
SELECT indexrelid::regclass AS index, indkey, indnatts, pg_get_expr(indexprs, indrelid) AS exprs,
       pg_get_expr(indpred, indrelid) AS pred
  FROM pg_index WHERE indrelid = 'ei'::regclass ORDER BY 1::text;
SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = 'ei'::regclass ORDER BY 1;
SELECT pg_get_indexdef('ei_lower_idx'::regclass, 1, true), pg_get_indexdef('ei_expr_idx'::regclass, 1, false),
       pg_get_indexdef('ei_expr_idx'::regclass, 1, true), pg_get_indexdef('ei_c_upper_idx'::regclass, 2, false);
SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'ei' ORDER BY 1;

-- what creation refuses
CREATE INDEX ON ei (random());
CREATE INDEX ON ei ((a + random()::int));
CREATE INDEX ON ei (a) WHERE random() > 0.5;
CREATE INDEX ON ei ((count(*)));
CREATE INDEX ON ei (a) WHERE count(*) > 0;
CREATE INDEX ON ei ((row_number() OVER ()));
CREATE INDEX ON ei (a) WHERE a IN (SELECT 1);
CREATE INDEX ON ei (((SELECT 1)));
CREATE INDEX ON ei (a) WHERE b;
CREATE INDEX ON ei ((a + nosuch));
CREATE INDEX ON ei (a) WHERE nosuch > 1;
CREATE INDEX ON ei ((1 / (a - 7)));

-- plans (no bitmap scans in Nestor; sequential scans off so both agree)
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM ei WHERE lower(b) = 'name17';
SELECT a, b FROM ei WHERE lower(b) = 'name17';
EXPLAIN (COSTS OFF) SELECT * FROM ei WHERE a + c = 100;
SELECT a, c FROM ei WHERE a + c = 100 ORDER BY a;
EXPLAIN (COSTS OFF) SELECT * FROM ei WHERE a + c > 1990 AND a + c <= 1995;
SELECT a FROM ei WHERE a + c > 1990 AND a + c <= 1995 ORDER BY a;
EXPLAIN (COSTS OFF) SELECT * FROM ei WHERE c = 3 AND upper(b) = 'NAME10';
SELECT a FROM ei WHERE c = 3 AND upper(b) = 'NAME10';
-- a partial index serves a query whose WHERE implies its predicate
EXPLAIN (COSTS OFF) SELECT * FROM ei WHERE a > 1500 AND a < 1503;
SELECT a FROM ei WHERE a > 1500 AND a < 1503 ORDER BY a;
EXPLAIN (COSTS OFF) SELECT * FROM ei WHERE a = 1990;
EXPLAIN (COSTS OFF) SELECT * FROM ei WHERE a > 1998;
SELECT a FROM ei WHERE a > 1998 ORDER BY a;
EXPLAIN (COSTS OFF) SELECT * FROM ei WHERE c = 5 AND b IS NOT NULL;
SELECT count(*) FROM ei WHERE c = 5 AND b IS NOT NULL;
-- ORDER BY an indexed expression, with a LIMIT
EXPLAIN (COSTS OFF) SELECT * FROM ei ORDER BY lower(b) LIMIT 3;
SELECT * FROM ei ORDER BY lower(b) LIMIT 3;
EXPLAIN (COSTS OFF) SELECT * FROM ei ORDER BY a + c DESC LIMIT 2;
SELECT * FROM ei ORDER BY a + c DESC LIMIT 2;
EXPLAIN (COSTS OFF) SELECT * FROM ei WHERE a > 1990 ORDER BY a LIMIT 2;
SELECT * FROM ei WHERE a > 1990 ORDER BY a LIMIT 2;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- maintenance: UPDATE moves rows between keys and in and out of a
-- partial index; DELETE; savepoints
SET enable_seqscan = off;
SET enable_bitmapscan = off;
UPDATE ei SET b = 'Moved' WHERE a = 17;
SELECT a, b FROM ei WHERE lower(b) = 'name17';
SELECT a, b FROM ei WHERE lower(b) = 'moved';
UPDATE ei SET a = a + 1000 WHERE a = 600;
SELECT a FROM ei WHERE a > 1590 AND a < 1610 AND c = 5 ORDER BY a;
UPDATE ei SET a = 5 WHERE a = 1601;
SELECT a FROM ei WHERE a > 1597 AND a < 1603 ORDER BY a;
SELECT a, b FROM ei WHERE a = 5 ORDER BY b;
DELETE FROM ei WHERE a = 1600;
SELECT a FROM ei WHERE a > 1598 AND a < 1603 ORDER BY a;
BEGIN;
UPDATE ei SET b = 'Temp' WHERE a = 20;
SAVEPOINT s1;
UPDATE ei SET b = 'Other' WHERE a = 20;
INSERT INTO ei VALUES (3000, 'Fresh', 1);
SELECT a, b FROM ei WHERE lower(b) IN ('temp', 'other', 'fresh') ORDER BY a;
ROLLBACK TO s1;
SELECT a, b FROM ei WHERE lower(b) IN ('temp', 'other', 'fresh') ORDER BY a;
SELECT a FROM ei WHERE a > 2500;
ROLLBACK;
SELECT a, b FROM ei WHERE lower(b) IN ('temp', 'other', 'fresh', 'name20') ORDER BY a;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- UNIQUE expression and partial indexes
CREATE TABLE eu (id int, email text, active bool);
INSERT INTO eu VALUES (1, 'A@x.org', true), (2, 'a@x.org', false);
CREATE UNIQUE INDEX eu_email ON eu (lower(email));
DELETE FROM eu WHERE id = 2;
CREATE UNIQUE INDEX eu_email ON eu (lower(email));
INSERT INTO eu VALUES (3, 'a@X.ORG', true);
INSERT INTO eu VALUES (3, 'b@x.org', true), (4, NULL, true), (5, NULL, true);
UPDATE eu SET email = 'B@X.org' WHERE id = 1;
UPDATE eu SET email = 'c@x.org' WHERE id = 1;
SELECT * FROM eu ORDER BY id;
CREATE UNIQUE INDEX eu_active ON eu (id) WHERE active;
INSERT INTO eu VALUES (1, 'd@x.org', false);
INSERT INTO eu VALUES (1, 'e@x.org', true);
UPDATE eu SET active = true WHERE email = 'd@x.org';
UPDATE eu SET active = false WHERE email = 'c@x.org';
UPDATE eu SET active = true WHERE email = 'd@x.org';
SELECT * FROM eu ORDER BY id, email;
CREATE UNIQUE INDEX ON eu ((id + 1));
INSERT INTO eu VALUES (1, 'f@x.org', false);
CREATE TABLE ed (a int, b text);
INSERT INTO ed VALUES (1, 'abc'), (2, 'ABC');
CREATE UNIQUE INDEX ed_lower ON ed (lower(b));
CREATE UNIQUE INDEX ed_both ON ed (a, lower(b));
INSERT INTO ed VALUES (1, 'Abc');
\d eu

-- ON CONFLICT with expression and partial unique indexes
INSERT INTO eu VALUES (9, 'C@x.org', true) ON CONFLICT DO NOTHING;
INSERT INTO eu VALUES (9, 'C@x.org', true) ON CONFLICT ((lower(email))) DO NOTHING;
INSERT INTO eu VALUES (9, 'C@x.org', true) ON CONFLICT ((lower(email)))
  DO UPDATE SET active = NOT eu.active;
INSERT INTO eu VALUES (1, 'g@x.org', true) ON CONFLICT (id) WHERE active DO NOTHING;
INSERT INTO eu VALUES (1, 'g@x.org', true) ON CONFLICT (id) DO NOTHING;
INSERT INTO eu VALUES (1, 'g@x.org', true) ON CONFLICT (id) WHERE active
  DO UPDATE SET email = excluded.email;
SELECT * FROM eu ORDER BY id, email;

-- DROP COLUMN drops the indexes that use it
CREATE TABLE edc (a int, b text, c int);
CREATE INDEX edc_lower ON edc (lower(b));
CREATE INDEX edc_part ON edc (a) WHERE c > 0;
CREATE INDEX edc_a ON edc (a);
ALTER TABLE edc DROP COLUMN b;
ALTER TABLE edc DROP COLUMN c;
\d edc
-- RENAME COLUMN follows into the stored expressions
CREATE TABLE ern (a int, b text);
INSERT INTO ern SELECT i, 'V' || i FROM generate_series(1, 100) i;
CREATE INDEX ern_lower ON ern (lower(b)) WHERE a > 0;
ALTER TABLE ern RENAME b TO bb;
ALTER TABLE ern RENAME a TO aa;
\d ern
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM ern WHERE lower(bb) = 'v7' AND aa > 0;
SELECT * FROM ern WHERE lower(bb) = 'v7' AND aa > 0;
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE ei, eu, ed, edc, ern;
