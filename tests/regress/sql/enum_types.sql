-- Enum types: CREATE TYPE ... AS ENUM, ALTER TYPE, DROP TYPE and the
-- values in tables, indexes, joins, arrays and the catalogs.
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
SELECT 'ok'::mood, 'happy'::mood > 'sad'::mood AS gt, 'sad'::mood < 'ok' AS lt;
SELECT 'meh'::mood;
SELECT ''::mood;
CREATE TYPE mood AS ENUM ('x');
CREATE TYPE toolong AS ENUM ('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa');
CREATE TYPE justright AS ENUM ('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa');
\set VERBOSITY terse
CREATE TYPE dup AS ENUM ('a', 'b', 'a');
\set VERBOSITY default
CREATE TYPE empty_enum AS ENUM ();
SELECT enum_first(NULL::empty_enum);
SELECT enum_range(NULL::empty_enum);
-- ALTER TYPE ... ADD VALUE
ALTER TYPE mood ADD VALUE 'ecstatic';
ALTER TYPE mood ADD VALUE 'miserable' BEFORE 'sad';
ALTER TYPE mood ADD VALUE 'meh' AFTER 'sad';
ALTER TYPE mood ADD VALUE 'fine' BEFORE 'happy';
ALTER TYPE mood ADD VALUE 'ok';
ALTER TYPE mood ADD VALUE IF NOT EXISTS 'ok';
ALTER TYPE mood ADD VALUE 'glum' AFTER 'nope';
ALTER TYPE mood ADD VALUE 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
ALTER TYPE nosuch ADD VALUE 'x';
ALTER TYPE int4 ADD VALUE 'x';
ALTER TYPE text RENAME VALUE 'x' TO 'y';
SELECT enumlabel, enumsortorder FROM pg_enum
 WHERE enumtypid = 'mood'::regtype ORDER BY enumsortorder;
SELECT enum_range(NULL::mood);
SELECT enum_first(NULL::mood), enum_last('ok'::mood);
SELECT enum_range('meh'::mood, 'fine'::mood), enum_range(NULL, 'meh'::mood),
       enum_range('fine'::mood, NULL), enum_range('happy'::mood, 'sad'::mood);
SELECT enum_range(NULL, NULL);
-- Renumbering when float4 runs out of room keeps the order
CREATE TYPE crowded AS ENUM ('L1', 'L2');
DO $$
BEGIN
  FOR i IN 1..30 LOOP
    EXECUTE format('ALTER TYPE crowded ADD VALUE %L BEFORE %L', 'i' || i, 'L2');
  END LOOP;
END $$;
SELECT enumlabel, CASE WHEN enumsortorder > 20 THEN NULL ELSE enumsortorder END AS so
  FROM pg_enum WHERE enumtypid = 'crowded'::regtype ORDER BY enumsortorder;
SELECT array_agg(v ORDER BY v) = enum_range(NULL::crowded) AS same
  FROM unnest(enum_range(NULL::crowded)) v;
-- Columns
CREATE TABLE person (name text PRIMARY KEY, current mood, history mood[]);
INSERT INTO person VALUES ('ann', 'happy', '{sad,ok}'), ('bob', 'sad', NULL),
  ('cy', 'meh', '{meh}'), ('di', NULL, '{}'), ('ed', 'ecstatic', '{happy,ecstatic}');
INSERT INTO person VALUES ('fay', 'grumpy', NULL);
INSERT INTO person VALUES ('gus', 'ok'::text, NULL);
SELECT * FROM person ORDER BY current, name;
SELECT * FROM person ORDER BY current DESC NULLS LAST, name;
SELECT name FROM person WHERE current > 'meh' ORDER BY name;
SELECT name FROM person WHERE current BETWEEN 'sad' AND 'fine' ORDER BY name;
SELECT name FROM person WHERE current IN ('sad', 'happy') ORDER BY name;
SELECT min(current), max(current), count(DISTINCT current) FROM person;
SELECT current, count(*) FROM person GROUP BY current ORDER BY current;
SELECT DISTINCT current FROM person ORDER BY 1;
SELECT name, current::text || '!' AS shout, length(current::text) FROM person ORDER BY name;
SELECT 'ok'::text::mood = 'ok'::mood AS eq;
SELECT current = 'ok'::text FROM person;
SELECT name, history, history[1], 'ok' = ANY (history) AS any_ok FROM person ORDER BY name;
SELECT pg_typeof(current), pg_typeof(history) FROM person LIMIT 1;
UPDATE person SET current = 'fine' WHERE name = 'bob';
SELECT name, current FROM person ORDER BY name;
-- Indexes order by the labels' sort order, not their text
CREATE INDEX person_current ON person (current);
SET enable_seqscan = off;
SELECT name, current FROM person WHERE current >= 'meh' ORDER BY current;
SELECT name FROM person WHERE current = 'happy';
RESET enable_seqscan;
ALTER TYPE mood ADD VALUE 'content' BEFORE 'ok';
INSERT INTO person VALUES ('hal', 'content', NULL);
SELECT name, current FROM person WHERE current BETWEEN 'meh' AND 'ok' ORDER BY current;
-- Joins
CREATE TABLE advice (m mood, tip text);
INSERT INTO advice VALUES ('sad', 'call a friend'), ('happy', 'share it'), ('content', 'enjoy');
SELECT p.name, a.tip FROM person p JOIN advice a ON a.m = p.current ORDER BY p.name;
SELECT p.name, a.tip FROM person p LEFT JOIN advice a USING (name) ORDER BY 1;
SELECT a.m, count(p.name) FROM advice a LEFT JOIN person p ON p.current = a.m
 GROUP BY a.m ORDER BY a.m;
-- Two enum types do not compare
CREATE TYPE color AS ENUM ('red', 'green');
SELECT 'red'::color = 'sad'::mood;
SELECT 'red'::color::text = 'sad'::mood::text;
-- RENAME VALUE and RENAME TO
ALTER TYPE mood RENAME VALUE 'meh' TO 'so-so';
ALTER TYPE mood RENAME VALUE 'meh' TO 'whatever';
ALTER TYPE mood RENAME VALUE 'sad' TO 'happy';
SELECT name, current FROM person ORDER BY current, name;
ALTER TYPE color RENAME TO colour;
SELECT 'red'::colour;
SELECT 'red'::color;
ALTER TYPE colour RENAME TO mood;
-- Catalogs
SELECT typname, typtype, typcategory, typlen, typbyval, typelem = 0 AS no_elem,
       typinput, typoutput, typreceive, typsend
  FROM pg_type WHERE typname IN ('mood', '_mood') ORDER BY typname;
SELECT t.typarray = a.oid AS arr, a.typelem = t.oid AS elem
  FROM pg_type t, pg_type a WHERE t.typname = 'mood' AND a.typname = '_mood';
SELECT 'mood'::regtype, '_mood'::regtype, 'mood[]'::regtype,
       format_type('mood'::regtype::oid, NULL);
SELECT column_name, data_type, udt_schema, udt_name FROM information_schema.columns
 WHERE table_name = 'person' ORDER BY ordinal_position;
\dT
\dT+ mood
\d person
-- Transactions
BEGIN;
CREATE TYPE fleeting AS ENUM ('a');
SELECT 'a'::fleeting;
ROLLBACK;
SELECT 'a'::fleeting;
BEGIN;
ALTER TYPE mood ADD VALUE 'new';
SELECT 'new'::mood;
ROLLBACK;
BEGIN;
ALTER TYPE mood ADD VALUE 'new';
SAVEPOINT s;
SELECT enum_first(NULL::mood);
SELECT enum_range(NULL::mood);
ROLLBACK TO s;
COMMIT;
SELECT 'new'::mood, enum_last(NULL::mood);
BEGIN;
CREATE TYPE fresh AS ENUM ('one');
ALTER TYPE fresh ADD VALUE 'two';
SELECT 'one'::fresh;
SELECT 'two'::fresh;
ROLLBACK;
BEGIN;
ALTER TYPE mood RENAME VALUE 'ok' TO 'okay';
SELECT enum_range(NULL::mood);
ROLLBACK;
SELECT enum_range(NULL::mood);
-- COPY
COPY (SELECT name, current FROM person ORDER BY name) TO stdout;
COPY advice FROM stdin;
ok	stay
\.
COPY advice FROM stdin;
bad	nope
\.
SELECT * FROM advice ORDER BY m;
-- binary COPY: a label travels as its text (enum_send / enum_recv)
\copy advice to '/tmp/nestor_regress_enum_types.bin' with (format binary)
CREATE TABLE advice2 (LIKE advice);
\copy advice2 from '/tmp/nestor_regress_enum_types.bin' with (format binary)
SELECT * FROM advice2 ORDER BY m;
DROP TABLE advice2;
-- DROP TYPE
DROP TABLE advice;
ALTER TABLE person DROP COLUMN history;
DROP TYPE mood;
DROP TYPE mood RESTRICT;
DROP TYPE mood, nosuch;
DROP TYPE IF EXISTS nosuch;
DROP TYPE text;
DROP TABLE person;
CREATE TABLE arrays_only (ms mood[]);
DROP TYPE mood;
DROP TABLE arrays_only;
DROP TYPE mood;
DROP TYPE IF EXISTS mood, crowded;
SELECT count(*) FROM pg_type WHERE typname IN ('mood', '_mood', 'crowded');
SELECT count(*) FROM pg_enum WHERE NOT EXISTS
  (SELECT 1 FROM pg_type WHERE pg_type.oid = enumtypid);
