--
-- DDL: CREATE/DROP TABLE, constraints, indexes, ALTER TABLE, TRUNCATE,
-- VACUUM/ANALYZE, transactional DDL.
--
\set QUIET off
CREATE TABLE d1 (
    id integer PRIMARY KEY,
    name text NOT NULL,
    qty integer DEFAULT 0 CHECK (qty >= 0),
    code varchar(5) UNIQUE
);
CREATE TABLE d1 (id integer);
CREATE TABLE IF NOT EXISTS d1 (id integer);
INSERT INTO d1 (id, name) VALUES (1, 'one');
INSERT INTO d1 VALUES (2, 'two', 5, 'abc');
SELECT * FROM d1 ORDER BY id;
-- constraint violations
INSERT INTO d1 VALUES (3, NULL);
INSERT INTO d1 VALUES (3, 'three', -1);
INSERT INTO d1 VALUES (1, 'one again');
INSERT INTO d1 VALUES (3, 'three', 1, 'abc');
INSERT INTO d1 VALUES (3, 'three', 1, 'toolong');
INSERT INTO d1 VALUES (NULL, 'no id');
UPDATE d1 SET qty = -5 WHERE id = 1;
UPDATE d1 SET name = NULL WHERE id = 1;
UPDATE d1 SET id = 2 WHERE id = 1;
-- NULLs do not collide in a unique column
INSERT INTO d1 VALUES (3, 'three', 1, NULL), (4, 'four', 1, NULL);
SELECT * FROM d1 ORDER BY id;
-- named constraints, table-level constraints, composite keys
CREATE TABLE d2 (
    a integer NOT NULL,
    b integer NOT NULL,
    c text,
    CONSTRAINT d2_pk PRIMARY KEY (a, b),
    CONSTRAINT c_not_empty CHECK (c <> ''),
    UNIQUE (c)
);
INSERT INTO d2 VALUES (1, 1, 'x'), (1, 2, 'y');
INSERT INTO d2 VALUES (1, 1, 'z');
INSERT INTO d2 VALUES (2, 1, '');
INSERT INTO d2 VALUES (2, 1, 'x');
SELECT * FROM d2 ORDER BY a, b;
-- more than one primary key
CREATE TABLE d3 (a integer PRIMARY KEY, b integer PRIMARY KEY);
-- a column named twice
CREATE TABLE d3 (a integer, a text);
-- an unknown type
CREATE TABLE d3 (a no_such_type);
-- TEMP and UNLOGGED tables, storage parameters
CREATE TEMP TABLE tmp1 (a integer);
INSERT INTO tmp1 VALUES (1);
SELECT * FROM tmp1;
CREATE TEMPORARY TABLE tmp2 (a integer PRIMARY KEY);
CREATE UNLOGGED TABLE ul (a integer PRIMARY KEY, b text) WITH (fillfactor = 70);
INSERT INTO ul VALUES (1, 'u');
SELECT * FROM ul;
CREATE TABLE ff (a integer) WITH (fillfactor = 90);
-- ALTER TABLE
ALTER TABLE d1 ADD COLUMN note text;
ALTER TABLE d1 ADD COLUMN flag boolean DEFAULT true;
ALTER TABLE d1 ADD COLUMN IF NOT EXISTS note text;
ALTER TABLE d1 ADD COLUMN note text;
SELECT * FROM d1 ORDER BY id;
INSERT INTO d1 (id, name, note) VALUES (5, 'five', 'noted');
SELECT id, note, flag FROM d1 ORDER BY id;
ALTER TABLE d1 DROP COLUMN note;
ALTER TABLE d1 DROP COLUMN note;
ALTER TABLE d1 DROP COLUMN IF EXISTS note;
SELECT * FROM d1 ORDER BY id;
CREATE TABLE d4 (id integer, x integer);
INSERT INTO d4 VALUES (1, 10), (2, 20), (2, 30);
ALTER TABLE d4 ADD PRIMARY KEY (id);
DELETE FROM d4 WHERE x = 30;
ALTER TABLE d4 ADD PRIMARY KEY (id);
INSERT INTO d4 VALUES (1, 11);
ALTER TABLE d4 ADD PRIMARY KEY (x);
ALTER TABLE d4 ADD CONSTRAINT d4_x_key UNIQUE (x);
INSERT INTO d4 VALUES (3, 10);
ALTER TABLE no_such_table ADD COLUMN a integer;
-- indexes
CREATE INDEX d1_name_idx ON d1 (name);
CREATE INDEX d1_name_idx ON d1 (name);
CREATE INDEX IF NOT EXISTS d1_name_idx ON d1 (name);
CREATE INDEX ON d1 (qty, name);
CREATE UNIQUE INDEX d1_qty_uidx ON d1 (qty);
CREATE UNIQUE INDEX d1_name_uidx ON d1 (name);
INSERT INTO d1 (id, name) VALUES (6, 'one');
SELECT id, name FROM d1 WHERE name = 'two';
CREATE INDEX bad_idx ON d1 (no_such_column);
-- TRUNCATE
TRUNCATE d2;
SELECT count(*) FROM d2;
INSERT INTO d2 VALUES (1, 1, 'x');
TRUNCATE TABLE d2, d4;
SELECT count(*) FROM d2;
SELECT count(*) FROM d4;
-- TRUNCATE is transactional
BEGIN;
TRUNCATE d1;
SELECT count(*) FROM d1;
ROLLBACK;
SELECT count(*) FROM d1;
-- so are CREATE TABLE and DROP TABLE
BEGIN;
CREATE TABLE d5 (a integer);
INSERT INTO d5 VALUES (1);
SELECT * FROM d5;
ROLLBACK;
SELECT * FROM d5;
BEGIN;
DROP TABLE d1;
ROLLBACK;
SELECT count(*) FROM d1;
BEGIN;
CREATE TABLE d6 (a integer PRIMARY KEY);
INSERT INTO d6 VALUES (1);
COMMIT;
SELECT * FROM d6;
-- VACUUM and ANALYZE
VACUUM;
VACUUM d1;
VACUUM ANALYZE d1;
ANALYZE;
ANALYZE d1;
BEGIN;
VACUUM d1;
ROLLBACK;
-- DROP TABLE
DROP TABLE d6;
DROP TABLE d6;
DROP TABLE IF EXISTS d6;
DROP TABLE IF EXISTS d6, d4;
DROP TABLE d2 CASCADE;
DROP TABLE d1, ul;
DROP TABLE ff, tmp1, tmp2;
SELECT * FROM d1;
-- unique index built over existing rows: duplicates refused; unnamed
-- CREATE UNIQUE INDEX is named _idx (a UNIQUE constraint's index _key)
CREATE TABLE uidx (a int, b int UNIQUE);
INSERT INTO uidx VALUES (1, 1), (2, 2), (1, 3);
CREATE UNIQUE INDEX ON uidx (a);
CREATE UNIQUE INDEX ON uidx (b);
INSERT INTO uidx VALUES (3, 1);
DROP TABLE uidx;
-- A unique index made by CREATE UNIQUE INDEX belongs to no constraint: it
-- can be dropped; one made by a constraint cannot.
CREATE TABLE uidx (a int, b int UNIQUE);
CREATE UNIQUE INDEX uidx_a ON uidx (a);
INSERT INTO uidx VALUES (1, 1);
INSERT INTO uidx VALUES (1, 2);
DROP INDEX uidx_a;
INSERT INTO uidx VALUES (1, 2);
DROP INDEX uidx_b_key;
DROP TABLE uidx;
