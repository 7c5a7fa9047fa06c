-- View column defaults: ALTER VIEW ... ALTER COLUMN ... SET / DROP DEFAULT,
-- applied by writes through the view before the base table's defaults.
\set VERBOSITY verbose
CREATE TABLE vdt (a int PRIMARY KEY, b text DEFAULT 'table', c int);
CREATE VIEW vdv AS SELECT a, b, c FROM vdt;
-- Errors: unknown column, a value of the wrong type, a column reference,
-- a subquery.
ALTER VIEW vdv ALTER COLUMN nosuch SET DEFAULT 1;
ALTER VIEW vdv ALTER COLUMN a SET DEFAULT 'x';
ALTER VIEW vdv ALTER COLUMN a SET DEFAULT a;
ALTER VIEW vdv ALTER COLUMN a SET DEFAULT (SELECT 1);
ALTER VIEW vdv ALTER COLUMN b SET DEFAULT 'view';
ALTER VIEW vdv ALTER c SET DEFAULT 42;
ALTER TABLE vdv ALTER COLUMN a SET DEFAULT 100;
ALTER TABLE vdv ALTER COLUMN a DROP DEFAULT;
\d vdv
SELECT adnum, pg_get_expr(adbin, adrelid) FROM pg_attrdef
  WHERE adrelid = 'vdv'::regclass ORDER BY adnum;
SELECT attname, atthasdef FROM pg_attribute
  WHERE attrelid = 'vdv'::regclass AND attnum > 0 ORDER BY attnum;
SELECT column_name, column_default FROM information_schema.columns
  WHERE table_name = 'vdv' ORDER BY ordinal_position;
-- Left out, or DEFAULT: the view's default, before the table's.
INSERT INTO vdv (a) VALUES (1) RETURNING *;
INSERT INTO vdv VALUES (2, DEFAULT, DEFAULT) RETURNING *;
INSERT INTO vdv VALUES (3, 'x', 1), (4, DEFAULT, DEFAULT) RETURNING *;
INSERT INTO vdv (a) SELECT g FROM generate_series(5, 6) g RETURNING *;
ALTER VIEW vdv ALTER COLUMN a SET DEFAULT 10;
INSERT INTO vdv DEFAULT VALUES RETURNING *;
UPDATE vdv SET b = 'changed', c = 0 WHERE a = 10;
UPDATE vdv SET b = DEFAULT, c = DEFAULT WHERE a = 10 RETURNING *;
-- The table itself keeps its own default.
INSERT INTO vdt (a) VALUES (11) RETURNING *;
-- DROP DEFAULT: back to the table's.
ALTER VIEW vdv ALTER COLUMN b DROP DEFAULT;
INSERT INTO vdv (a) VALUES (12) RETURNING *;
-- Undone by ROLLBACK.
BEGIN;
ALTER VIEW vdv ALTER COLUMN b SET DEFAULT 'in transaction';
INSERT INTO vdv (a) VALUES (13) RETURNING *;
ROLLBACK;
INSERT INTO vdv (a) VALUES (13) RETURNING *;
ALTER VIEW vdv ALTER COLUMN b SET DEFAULT 'view';
-- Nested views: each level's default, outermost first; DEFAULT takes the
-- first level with one.
CREATE VIEW vdv2 AS SELECT a, b FROM vdv;
INSERT INTO vdv2 (a) VALUES (20) RETURNING *;
ALTER VIEW vdv2 ALTER b SET DEFAULT 'outer';
INSERT INTO vdv2 (a) VALUES (21) RETURNING *;
INSERT INTO vdv2 VALUES (22, DEFAULT) RETURNING *;
ALTER VIEW vdv2 ALTER a SET DEFAULT 23;
INSERT INTO vdv2 DEFAULT VALUES RETURNING *;
-- UPDATE's DEFAULT: the named view's own default, else NULL (not the
-- default of a view below, nor the table's).
UPDATE vdv2 SET b = DEFAULT WHERE a = 20 RETURNING *;
CREATE VIEW vdv4 AS SELECT a, b, c FROM vdv;
UPDATE vdv4 SET b = DEFAULT, c = DEFAULT WHERE a = 21 RETURNING *;
INSERT INTO vdv4 VALUES (24, DEFAULT, DEFAULT) RETURNING *;
SELECT * FROM vdt ORDER BY a;
-- A default on a computed column: an INSERT leaving it out fails, as in
-- PostgreSQL.
CREATE VIEW vdv3 AS SELECT a, b, c + 1 AS c1 FROM vdt;
ALTER VIEW vdv3 ALTER COLUMN c1 SET DEFAULT 5;
INSERT INTO vdv3 (a) VALUES (30);
UPDATE vdv3 SET b = DEFAULT WHERE a = 1 RETURNING *;
ALTER VIEW vdv3 ALTER COLUMN c1 DROP DEFAULT;
INSERT INTO vdv3 (a) VALUES (30) RETURNING *;
-- Combined with SET (...) options in one statement.
ALTER VIEW vdv3 ALTER COLUMN b SET DEFAULT 'three', SET (security_barrier = true);
INSERT INTO vdv3 (a) VALUES (31) RETURNING *;
SELECT relname, reloptions FROM pg_class WHERE relname = 'vdv3';
-- CREATE OR REPLACE VIEW keeps the defaults.
CREATE OR REPLACE VIEW vdv3 AS SELECT a, b, c + 2 AS c1 FROM vdt;
INSERT INTO vdv3 (a) VALUES (32) RETURNING *;
-- A view with an INSTEAD OF trigger: its defaults, else NULL.
CREATE VIEW vdv5 AS SELECT a, b, c FROM vdt;
ALTER VIEW vdv5 ALTER COLUMN c SET DEFAULT -1;
CREATE FUNCTION vdv5_ins() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO vdt VALUES (new.a, new.b, new.c);
  RETURN new;
END $$;
CREATE TRIGGER vdv5_ins INSTEAD OF INSERT ON vdv5
  FOR EACH ROW EXECUTE FUNCTION vdv5_ins();
INSERT INTO vdv5 (a) VALUES (40) RETURNING *;
INSERT INTO vdv5 VALUES (41, DEFAULT, DEFAULT), (42, 'x', DEFAULT) RETURNING *;
DROP TABLE vdt CASCADE;
DROP FUNCTION vdv5_ins();
