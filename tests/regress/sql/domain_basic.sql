-- Domains: CREATE / ALTER / DROP DOMAIN, columns, casts, defaults.
CREATE DOMAIN posint AS integer CHECK (VALUE > 0);
CREATE DOMAIN nn_text text NOT NULL DEFAULT 'none';
CREATE DOMAIN code AS varchar(5) CONSTRAINT code_upper CHECK (VALUE = upper(VALUE)) CONSTRAINT code_len CHECK (length(VALUE) >= 2);
CREATE DOMAIN posint AS integer;
CREATE DOMAIN bad AS nosuchtype;
SELECT 5::posint, '7'::posint, CAST(3 AS posint);
SELECT 0::posint;
SELECT CAST(-1 AS posint);
SELECT NULL::posint IS NULL AS ok;
SELECT NULL::nn_text;
SELECT 'ab'::code, 'AB'::code;
SELECT 'A'::code;
SELECT 'abcdefg'::code;
CREATE TABLE dt (id int, p posint, t nn_text, c code);
INSERT INTO dt VALUES (1, 1, 'x', 'AA');
INSERT INTO dt (id, p, c) VALUES (2, 2, 'BB');
INSERT INTO dt VALUES (3, 0, 'x', 'CC');
INSERT INTO dt VALUES (4, 4, NULL, 'DD');
INSERT INTO dt VALUES (5, 5, 'x', 'e');
INSERT INTO dt VALUES (6, NULL, 'y', NULL);
SELECT * FROM dt ORDER BY id;
UPDATE dt SET p = -5 WHERE id = 1;
UPDATE dt SET p = p + 10 WHERE id = 1;
UPDATE dt SET t = NULL WHERE id = 2;
SELECT * FROM dt ORDER BY id;
COPY dt FROM STDIN;
7	7	z	ZZ
\.
COPY dt FROM STDIN;
8	-8	z	ZZ
\.
SELECT count(*) FROM dt;
SELECT p + 1 AS plus, pg_typeof(p + 1) FROM dt WHERE id = 1;
SELECT pg_typeof(1::posint), pg_typeof(ARRAY[1]::posint[]), pg_typeof(1::posint + 1);
-- catalog
SELECT typname, typtype, typbasetype::regtype, typnotnull, typtypmod, typdefault FROM pg_type WHERE typname IN ('posint', 'nn_text', 'code') ORDER BY typname;
SELECT conname, contype, pg_get_constraintdef(oid) FROM pg_constraint WHERE contypid = 'posint'::regtype ORDER BY conname;
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'dt'::regclass AND attnum > 0 ORDER BY attnum;
\dD posint
\dD nn_text
\d dt
-- ALTER DOMAIN
ALTER DOMAIN posint ADD CONSTRAINT posint_small CHECK (VALUE < 100);
INSERT INTO dt VALUES (9, 100, 'x', 'XX');
ALTER DOMAIN posint ADD CONSTRAINT posint_tiny CHECK (VALUE < 5);
ALTER DOMAIN posint ADD CONSTRAINT posint_tiny CHECK (VALUE < 5) NOT VALID;
INSERT INTO dt VALUES (10, 6, 'x', 'XX');
ALTER DOMAIN posint VALIDATE CONSTRAINT posint_tiny;
ALTER DOMAIN posint DROP CONSTRAINT posint_tiny;
ALTER DOMAIN posint DROP CONSTRAINT posint_tiny;
ALTER DOMAIN posint DROP CONSTRAINT IF EXISTS posint_tiny;
ALTER DOMAIN posint RENAME CONSTRAINT posint_small TO posint_lt100;
SELECT conname, convalidated FROM pg_constraint WHERE contypid = 'posint'::regtype ORDER BY conname;
ALTER DOMAIN nn_text DROP NOT NULL;
INSERT INTO dt VALUES (11, 1, NULL, 'XX');
ALTER DOMAIN nn_text SET NOT NULL;
DELETE FROM dt WHERE id = 11;
ALTER DOMAIN nn_text SET NOT NULL;
ALTER DOMAIN nn_text SET DEFAULT 'other';
INSERT INTO dt (id, p, c) VALUES (12, 1, 'XX');
ALTER DOMAIN nn_text DROP DEFAULT;
INSERT INTO dt (id, p, c) VALUES (13, 1, 'XX');
SELECT id, t FROM dt WHERE id >= 12 ORDER BY id;
ALTER DOMAIN code RENAME TO code2;
SELECT 'QQ'::code2;
SELECT 'QQ'::code;
ALTER DOMAIN code2 RENAME TO code;
CREATE ROLE dom_owner;
ALTER DOMAIN code OWNER TO dom_owner;
SELECT typname, typowner::regrole FROM pg_type WHERE typname = 'code';
-- arrays of a domain, function arguments, ALTER TABLE
SELECT ARRAY[1, 2]::posint[];
SELECT ARRAY[1, -2]::posint[];
CREATE TABLE da (a posint[]);
INSERT INTO da VALUES (ARRAY[1, 2]);
INSERT INTO da SELECT ARRAY[3, 0];
UPDATE da SET a = a || -1;
SELECT a FROM da;
CREATE FUNCTION dom_f(x posint) RETURNS int LANGUAGE sql AS 'SELECT x + 1';
SELECT dom_f(1);
SELECT dom_f(-1);
SELECT dom_f(p - 100) FROM dt WHERE id = 1;
DROP DOMAIN posint;
DROP FUNCTION dom_f;
ALTER TABLE dt ADD COLUMN q posint DEFAULT 0;
ALTER TABLE dt ADD COLUMN q posint DEFAULT 7;
ALTER TABLE dt ADD COLUMN r nn_text;
SELECT id, q, r FROM dt ORDER BY id;
ALTER TABLE dt ALTER COLUMN q TYPE int;
UPDATE dt SET q = -1 WHERE id = 1;
SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'dt'::regclass AND attname = 'q';
-- a domain over a domain
CREATE DOMAIN smallpos AS posint CHECK (VALUE < 10) DEFAULT 3;
SELECT 5::smallpos;
SELECT 0::smallpos;
SELECT 50::smallpos;
SELECT typname, typbasetype::regtype, typtypmod FROM pg_type WHERE typname = 'smallpos';
CREATE TABLE ds (id int, s smallpos);
INSERT INTO ds (id) VALUES (1);
INSERT INTO ds VALUES (2, 12);
SELECT * FROM ds;
DROP DOMAIN posint;
-- transactions
BEGIN;
CREATE DOMAIN tmpdom AS int CHECK (VALUE <> 13);
SELECT 13::tmpdom;
ROLLBACK;
SELECT 1::tmpdom;
BEGIN;
ALTER DOMAIN posint ADD CONSTRAINT posint_odd CHECK (VALUE % 2 = 1);
ROLLBACK;
SELECT 2::posint;
-- DROP DOMAIN
DROP DOMAIN posint;
DROP DOMAIN IF EXISTS nosuch;
DROP DOMAIN nosuch;
CREATE DOMAIN unused AS int;
DROP DOMAIN unused;
DROP DOMAIN posint CASCADE;
DROP TABLE da, ds;
SELECT * FROM dt ORDER BY id;
DROP TABLE dt;
DROP TYPE nn_text, code;
DROP ROLE dom_owner;
-- a domain over an enum keeps the enum
CREATE TYPE dmood AS ENUM ('sad', 'happy');
CREATE DOMAIN happy_only AS dmood CHECK (VALUE = 'happy');
SELECT 'happy'::happy_only;
SELECT 'sad'::happy_only;
DROP TYPE dmood;
DROP DOMAIN happy_only;
DROP TYPE dmood;
-- COMMENT ON DOMAIN
CREATE DOMAIN commented AS int;
COMMENT ON DOMAIN commented IS 'a domain';
SELECT obj_description('commented'::regtype, 'pg_type');
COMMENT ON DOMAIN nosuch IS 'x';
DROP DOMAIN commented;
-- ALTER TYPE renames a domain too
CREATE DOMAIN renamed1 AS int;
ALTER TYPE renamed1 RENAME TO renamed2;
SELECT 1::renamed2;
DROP DOMAIN renamed2;
