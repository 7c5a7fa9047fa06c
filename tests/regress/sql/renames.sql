-- ALTER TABLE / INDEX / TRIGGER ... RENAME (Django RenameModel/RenameField,
-- Alembic rename_table/alter_column), and what refers to the renamed names.
\set VERBOSITY verbose
CREATE TABLE r1 (id serial PRIMARY KEY, qty int CHECK (qty > 0), note text UNIQUE);
CREATE TABLE r1c (id int REFERENCES r1 (id), v int);
CREATE INDEX r1_qty_idx ON r1 (qty);
INSERT INTO r1 (qty, note) VALUES (1, 'a'), (2, 'b');
ALTER TABLE r1 RENAME TO r2;
SELECT * FROM r1;
SELECT * FROM r2 ORDER BY id;
ALTER TABLE r2 RENAME COLUMN qty TO amount;
ALTER TABLE r2 RENAME note TO remark;
INSERT INTO r2 (amount, remark) VALUES (0, 'c');
INSERT INTO r2 (amount, remark) VALUES (3, 'c') RETURNING *;
ALTER TABLE r2 RENAME COLUMN nosuch TO x;
ALTER TABLE r2 RENAME COLUMN amount TO remark;
ALTER TABLE r2 RENAME COLUMN amount TO xmin;
ALTER TABLE r2 RENAME CONSTRAINT r1_qty_check TO r2_amount_check;
ALTER TABLE r2 RENAME CONSTRAINT r1_pkey TO r2_pkey;
ALTER TABLE r2 RENAME CONSTRAINT nosuch TO x;
ALTER INDEX r1_qty_idx RENAME TO r2_amount_idx;
ALTER INDEX r2 RENAME TO foo;
ALTER TABLE foo RENAME TO r2;
ALTER TABLE r2 RENAME TO r1c;
ALTER TABLE IF EXISTS nosuch RENAME TO x;
ALTER TABLE nosuch RENAME TO x;
BEGIN;
ALTER TABLE r2 RENAME TO r3;
SELECT count(*) FROM r3;
ROLLBACK;
SELECT count(*) FROM r2;
\d r2
\d r1c
SELECT pg_get_serial_sequence('r2', 'id');
INSERT INTO r2 (amount, remark) VALUES (4, 'd') RETURNING id;
CREATE TABLE tg (a int, b int);
CREATE FUNCTION tgf() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE NOTICE 'fired %', NEW.b; RETURN NEW; END $$;
CREATE TRIGGER tgt BEFORE UPDATE OF a ON tg FOR EACH ROW WHEN (NEW.a > 5) EXECUTE FUNCTION tgf();
INSERT INTO tg VALUES (1, 1);
ALTER TABLE tg RENAME a TO aa;
ALTER TRIGGER tgt ON tg RENAME TO tgt2;
UPDATE tg SET aa = 10;
SELECT tgname, pg_get_triggerdef(oid), pg_get_triggerdef(oid, true) FROM pg_trigger WHERE tgrelid = 'tg'::regclass;
DROP FUNCTION tgf();
DROP TABLE r1c, r2, tg;
DROP FUNCTION tgf() CASCADE;
