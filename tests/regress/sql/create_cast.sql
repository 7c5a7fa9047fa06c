-- CREATE CAST / DROP CAST: user casts as catalog objects, used by the
-- binder for explicit casts, assignment and function-argument conversion
-- as far as each cast's context allows.
\set VERBOSITY verbose
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE FUNCTION mood_rank(mood) RETURNS int4 LANGUAGE sql IMMUTABLE
  AS $$ SELECT CASE $1 WHEN 'sad' THEN 1 WHEN 'ok' THEN 2 ELSE 3 END $$;
-- no cast yet
SELECT 'ok'::mood::int4;
CREATE CAST (mood AS int4) WITH FUNCTION mood_rank(mood) AS ASSIGNMENT;
SELECT 'ok'::mood::int4, CAST('happy'::mood AS integer), 'sad'::mood::int4 + 10;
SELECT m, m::int4 AS rank FROM unnest(enum_range(NULL::mood)) AS m ORDER BY 2;
-- assignment context: INSERT and UPDATE apply it
CREATE TABLE scores (id int4, score int4);
INSERT INTO scores VALUES (1, 'happy'::mood), (2, 'sad'::mood);
UPDATE scores SET score = 'ok'::mood WHERE id = 2;
SELECT * FROM scores ORDER BY id;
-- not an implicit cast: function arguments do not take it
CREATE FUNCTION twice(int4) RETURNS int4 LANGUAGE sql AS $$ SELECT $1 * 2 $$;
SELECT twice('ok'::mood);
SELECT twice('ok'::mood::int4);
-- pg_cast
SELECT castsource::regtype, casttarget::regtype, castcontext, castmethod,
       castfunc = 'mood_rank'::regproc AS func_ok
  FROM pg_cast WHERE castsource = 'mood'::regtype;
SELECT oid, castfunc, castcontext, castmethod FROM pg_cast
  WHERE castsource = 'int4'::regtype AND casttarget IN ('int8'::regtype, 'float4'::regtype)
  ORDER BY oid;
-- errors
CREATE CAST (mood AS int4) WITH FUNCTION mood_rank(mood);
CREATE CAST (int4 AS int4) WITHOUT FUNCTION;
CREATE CAST (int4 AS int8) WITHOUT FUNCTION;
CREATE CAST (int4 AS float4) WITHOUT FUNCTION;
CREATE CAST (int4 AS int8) WITH INOUT;
CREATE CAST (mood AS bool) WITH FUNCTION mood_rank(mood);
CREATE CAST (mood AS bool) WITH FUNCTION nosuch(mood);
CREATE CAST (mood AS bool) WITH FUNCTION mood_rank(int4);
CREATE FUNCTION two_args(mood, text) RETURNS bool LANGUAGE sql AS $$ SELECT true $$;
CREATE CAST (mood AS bool) WITH FUNCTION two_args(mood, text);
CREATE TYPE pair AS (a int4, b int4);
CREATE CAST (pair AS int8) WITHOUT FUNCTION;
-- an explicit-only cast: not in assignment
CREATE FUNCTION is_happy(mood) RETURNS bool LANGUAGE sql AS $$ SELECT $1 = 'happy' $$;
CREATE CAST (mood AS bool) WITH FUNCTION is_happy(mood);
SELECT 'happy'::mood::bool, 'ok'::mood::bool;
CREATE TABLE flags (b bool);
INSERT INTO flags VALUES ('happy'::mood);
-- WITH INOUT, AS IMPLICIT: function arguments take it
CREATE TYPE digit AS ENUM ('1', '2', '3');
CREATE FUNCTION digit_name(digit) RETURNS text LANGUAGE sql
  AS $$ SELECT 'digit ' || $1::text $$;
SELECT digit_name(2);
CREATE CAST (int4 AS digit) WITH INOUT AS IMPLICIT;
SELECT 3::digit, digit_name(2), digit_name(1 + 1);
SELECT 7::digit;
-- built-in functions take an implicit cast's target too
SELECT length('3'::digit);
CREATE CAST (digit AS text) WITH INOUT AS IMPLICIT;
SELECT length('3'::digit), repeat('2'::digit, 3);
DROP CAST (digit AS text);
-- WITHOUT FUNCTION between types of one physical form
CREATE CAST (date AS int4) WITHOUT FUNCTION;
CREATE CAST (int4 AS date) WITHOUT FUNCTION;
SELECT '2000-01-11'::date::int4, 10::date, (-1)::date;
-- a cast replaces the I/O conversion of a string type
CREATE FUNCTION text_len(text) RETURNS int4 LANGUAGE sql AS $$ SELECT length($1) $$;
SELECT 'hello'::text::int4;
CREATE CAST (text AS int4) WITH FUNCTION text_len(text);
SELECT 'hello'::text::int4, '42'::int4;
-- a domain: kept, with a warning, and never used
CREATE DOMAIN small AS int4 CHECK (VALUE < 10);
CREATE CAST (small AS text) WITH INOUT;
-- transactional
BEGIN;
CREATE CAST (mood AS text) WITH INOUT;
SELECT count(*) FROM pg_cast WHERE castsource = 'mood'::regtype;
ROLLBACK;
SELECT count(*) FROM pg_cast WHERE castsource = 'mood'::regtype;
-- DROP CAST
DROP CAST (mood AS text);
DROP CAST IF EXISTS (mood AS text);
DROP CAST IF EXISTS (mood AS nosuchtype);
DROP CAST (int4 AS int8);
DROP CAST (text AS int4);
SELECT 'hello'::text::int4;
DROP FUNCTION is_happy(mood);
DROP TYPE digit;
DROP FUNCTION is_happy(mood) CASCADE;
SELECT 'happy'::mood::bool;
DROP CAST (int4 AS digit);
DROP CAST (date AS int4);
DROP CAST (int4 AS date);
DROP DOMAIN small;
DROP DOMAIN small CASCADE;
CREATE CAST (pair AS text) WITH INOUT;
SELECT ROW(1, 2)::pair::text;
DROP TYPE pair;
DROP CAST (pair AS text);
DROP TYPE pair;
DROP CAST (mood AS int4);
SELECT 'ok'::mood::int4;
SELECT count(*) FROM pg_cast WHERE oid >= 16384;
-- only an owner of one of the types (or a superuser) creates a cast
CREATE ROLE cast_tester;
SET ROLE cast_tester;
CREATE CAST (int8 AS bool) WITH INOUT;
RESET ROLE;
DROP ROLE cast_tester;
