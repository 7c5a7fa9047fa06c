-- ADD CONSTRAINT ... NOT VALID and VALIDATE CONSTRAINT (CHECK and FOREIGN
-- KEY): existing rows are not checked until VALIDATE; new rows are.
CREATE TABLE nv_p (id int PRIMARY KEY);
INSERT INTO nv_p VALUES (1), (2);
CREATE TABLE nv_c (a int, p int);
INSERT INTO nv_c VALUES (-1, 99), (3, 1);
ALTER TABLE nv_c ADD CONSTRAINT u UNIQUE (a) NOT VALID;
ALTER TABLE nv_c ADD CONSTRAINT pos CHECK (a > 0) NOT VALID;
ALTER TABLE nv_c ADD CONSTRAINT fk FOREIGN KEY (p) REFERENCES nv_p NOT VALID;
-- Without NOT VALID the existing rows are checked at once.
ALTER TABLE nv_c ADD CONSTRAINT small CHECK (a < 3);
ALTER TABLE nv_c ADD CONSTRAINT fk2 FOREIGN KEY (p) REFERENCES nv_p;
SELECT conname, contype, convalidated, pg_get_constraintdef(oid)
  FROM pg_constraint WHERE conrelid = 'nv_c'::regclass ORDER BY 1;
\d nv_c
-- New rows are checked.
INSERT INTO nv_c VALUES (-2, NULL);
INSERT INTO nv_c VALUES (2, 5);
UPDATE nv_c SET a = -5 WHERE a = 3;
INSERT INTO nv_c VALUES (4, 2);
-- VALIDATE finds the old rows.
ALTER TABLE nv_c VALIDATE CONSTRAINT pos;
ALTER TABLE nv_c VALIDATE CONSTRAINT fk;
ALTER TABLE nv_c VALIDATE CONSTRAINT nope;
ALTER TABLE nv_p VALIDATE CONSTRAINT nv_p_pkey;
BEGIN;
DELETE FROM nv_c WHERE a < 0;
ALTER TABLE nv_c VALIDATE CONSTRAINT pos;
SELECT conname, convalidated FROM pg_constraint WHERE conrelid = 'nv_c'::regclass ORDER BY 1;
ROLLBACK;
-- The rollback undid the validation too.
SELECT conname, convalidated FROM pg_constraint WHERE conrelid = 'nv_c'::regclass ORDER BY 1;
-- A rewrite (ALTER COLUMN TYPE) does not check a NOT VALID constraint.
ALTER TABLE nv_c ALTER COLUMN a TYPE bigint;
SELECT count(*) FROM nv_c;
-- Renamed, it stays NOT VALID; dropped, it is gone.
ALTER TABLE nv_c RENAME CONSTRAINT pos TO positive;
SELECT conname, convalidated FROM pg_constraint WHERE conrelid = 'nv_c'::regclass ORDER BY 1;
DELETE FROM nv_c WHERE a < 0 OR p = 99;
ALTER TABLE nv_c VALIDATE CONSTRAINT positive;
ALTER TABLE nv_c VALIDATE CONSTRAINT positive;
ALTER TABLE nv_c VALIDATE CONSTRAINT fk;
ALTER TABLE nv_c DROP CONSTRAINT fk2;
SELECT conname, convalidated, pg_get_constraintdef(oid)
  FROM pg_constraint WHERE conrelid = 'nv_c'::regclass ORDER BY 1;
ALTER TABLE nv_c ADD CONSTRAINT later CHECK (p < 10) NOT VALID;
ALTER TABLE nv_c DROP CONSTRAINT later;
ALTER TABLE nv_c ADD CONSTRAINT later CHECK (p < 10);
SELECT conname, convalidated FROM pg_constraint WHERE conrelid = 'nv_c'::regclass ORDER BY 1;
DROP TABLE nv_c;
DROP TABLE nv_p;
