-- Polymorphic user functions: anyelement, anyarray, anynonarray, anyenum
-- and the anycompatible family, resolved at each call from the arguments.
\set VERBOSITY verbose
CREATE FUNCTION ident(anyelement) RETURNS anyelement LANGUAGE sql AS 'SELECT $1';
SELECT ident(1), ident('a'::text), ident(1.5), pg_typeof(ident(1.5));
SELECT ident(ARRAY[1, 2]), pg_typeof(ident(ARRAY[1, 2]));
SELECT ident('abc'::varchar(2)), pg_typeof(ident('abc'::varchar(5)));
-- An unknown literal or NULL decides nothing.
SELECT ident('foo');
SELECT ident(NULL);
CREATE FUNCTION first_of(anyelement, anyelement) RETURNS anyelement LANGUAGE sql
  AS 'SELECT $1';
SELECT first_of(1, 2), first_of(1, NULL), first_of(NULL, 'x'::text);
SELECT first_of(1, 'a');
SELECT first_of(1, 'a'::text);
SELECT first_of(1, 2.5);
SELECT first_of(1::int2, 2::int8);
-- anyarray and anyelement together.
CREATE FUNCTION append(anyelement, anyarray) RETURNS anyarray LANGUAGE sql
  AS 'SELECT $2 || $1';
SELECT append(1, ARRAY[2, 3]), append('x', ARRAY['a']), append(4, NULL);
SELECT pg_typeof(append(1, NULL));
SELECT append(1, ARRAY['a']);
SELECT append(NULL, NULL);
CREATE FUNCTION head(anyarray) RETURNS anyelement LANGUAGE sql AS 'SELECT $1[1]';
SELECT head(ARRAY[5, 6]), head(ARRAY['p', 'q']), pg_typeof(head(ARRAY[1.5]));
SELECT head(1);
-- anynonarray and anyenum.
CREATE FUNCTION describe(anynonarray) RETURNS text LANGUAGE sql AS 'SELECT $1::text';
SELECT describe(1), describe(now()::date > '2000-01-01');
SELECT describe(ARRAY[1]);
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE FUNCTION enum_label(anyenum) RETURNS text LANGUAGE sql AS 'SELECT $1::text';
SELECT enum_label('ok'::mood);
SELECT enum_label(1);
-- The anycompatible family: the common type.
CREATE FUNCTION pair(anycompatible, anycompatible) RETURNS anycompatiblearray
  LANGUAGE sql AS 'SELECT ARRAY[$1, $2]';
SELECT pair(1, 2.5), pair(1, '2'), pair('a', 'b'), pg_typeof(pair('a', 'b'));
SELECT pair(1, 2::int8), pg_typeof(pair(1, 2::int8));
SELECT pair(1, 'x'::text);
CREATE FUNCTION push(anycompatible, anycompatiblearray) RETURNS anycompatiblearray
  LANGUAGE sql AS 'SELECT $2 || $1';
SELECT push(1, ARRAY[2.5]), push(1.5, ARRAY[1, 2]);
CREATE FUNCTION pick(anycompatiblenonarray, anycompatible) RETURNS anycompatible
  LANGUAGE sql AS 'SELECT $1';
SELECT pick(1, 2.5), pg_typeof(pick(1, 2.5));
SELECT pick(ARRAY[1], 2);
CREATE FUNCTION mixed(anyelement, anycompatible) RETURNS anycompatible
  LANGUAGE sql AS 'SELECT $2';
SELECT mixed('x'::text, 2);
-- A polymorphic argument whose result is not: still resolved.
CREATE FUNCTION one(anyelement) RETURNS int LANGUAGE sql AS 'SELECT 1';
SELECT one(1), one('x'::text);
SELECT one('x');
-- Defaults take part in the resolution.
CREATE FUNCTION second(x anyelement, y anyelement DEFAULT 3) RETURNS anyelement
  LANGUAGE sql AS 'SELECT $2';
SELECT second(1), second(1, 5);
CREATE FUNCTION dflt(x int, y anyelement DEFAULT 3) RETURNS anyelement
  LANGUAGE sql AS 'SELECT $2';
SELECT dflt(1), pg_typeof(dflt(1));
-- Overloads: an exact match wins over a polymorphic one.
CREATE FUNCTION which(int) RETURNS text LANGUAGE sql AS $$ SELECT 'int' $$;
CREATE FUNCTION which(anyelement) RETURNS text LANGUAGE sql AS $$ SELECT 'any' $$;
SELECT which(1), which(1.5), which('x'::text);
-- OUT arguments of polymorphic types.
CREATE FUNCTION dup(f1 anyelement, f2 OUT anyelement, f3 OUT anyarray)
  AS 'SELECT $1, ARRAY[$1, $1]' LANGUAGE sql;
SELECT * FROM dup(22);
SELECT * FROM dup('xyz'::text);
SELECT f3[2] FROM dup(4.5);
SELECT * FROM dup('xyz');
CREATE FUNCTION wrap(x anyelement, OUT y anyarray) AS 'SELECT ARRAY[$1]' LANGUAGE sql;
SELECT wrap(3), wrap('a'::text);
SELECT * FROM wrap(3);
-- Set-returning, and RETURNS SETOF record with a column definition list.
CREATE FUNCTION twice(anyelement) RETURNS SETOF anyelement LANGUAGE sql
  AS 'SELECT $1 UNION ALL SELECT $1';
SELECT * FROM twice(3);
SELECT * FROM twice('a'::text) AS t(v);
CREATE FUNCTION array_to_set(anyarray) RETURNS SETOF record AS $$
  SELECT i AS "index", $1[i] AS "value" FROM generate_subscripts($1, 1) i
$$ LANGUAGE sql STRICT IMMUTABLE;
SELECT * FROM array_to_set(ARRAY['one', 'two']) AS t(f1 int, f2 text);
SELECT * FROM array_to_set(ARRAY[10, 20, 30]) AS t(i int, v int) WHERE v > 15;
-- In a select list.
SELECT twice(5);
SELECT array_to_set(ARRAY['one', 'two']);
SELECT array_to_set(ARRAY[7]), 'x' AS tag;
CREATE TYPE pair_t AS (a int, b numeric(5,1));
CREATE FUNCTION pairs(anyelement) RETURNS SETOF pair_t LANGUAGE sql
  AS 'SELECT 1, 2.25 UNION ALL SELECT 2, 3.75';
SELECT pairs(0);
CREATE FUNCTION rec(anyelement) RETURNS record LANGUAGE sql AS 'SELECT $1, 2';
SELECT rec(1), rec('z'::text);
-- CREATE OR REPLACE keeps the input parameters' names.
CREATE OR REPLACE FUNCTION dup(INOUT f2 anyelement, OUT f3 anyarray)
  AS 'SELECT $1, ARRAY[$1, $1]' LANGUAGE sql;
-- PL/pgSQL: the body is compiled for each resolved signature.
CREATE FUNCTION plus_one(anyelement) RETURNS anyelement LANGUAGE plpgsql
  AS $$ BEGIN RETURN $1 + 1; END $$;
SELECT plus_one(1), plus_one(1.5), plus_one(10::int8);
SELECT plus_one('a'::text);
SELECT plus_one(2), plus_one(2.5);
CREATE FUNCTION type_of(anyelement) RETURNS text LANGUAGE plpgsql
  AS $$ BEGIN RETURN pg_typeof($1)::text; END $$;
SELECT type_of(1), type_of('x'::varchar(3)), type_of(2.5::numeric(5,2)), type_of(ARRAY[true]);
CREATE FUNCTION first_elem(x anyarray) RETURNS anyelement LANGUAGE plpgsql AS $$
DECLARE
  r x%TYPE;
BEGIN
  r := x;
  RETURN r[1];
END $$;
SELECT first_elem(ARRAY[5, 6]), first_elem(ARRAY['u', 'v']);
CREATE FUNCTION swap(INOUT a anyelement, INOUT b anyelement) LANGUAGE plpgsql AS $$
DECLARE
  t a%TYPE;
BEGIN
  t := a; a := b; b := t;
END $$;
SELECT * FROM swap(1, 2);
SELECT * FROM swap('x'::text, 'y');
CREATE FUNCTION concat_all(anycompatiblearray) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  s text := '';
BEGIN
  FOR i IN array_lower($1, 1) .. array_upper($1, 1) LOOP
    s := s || $1[i];
  END LOOP;
  RETURN s;
END $$;
SELECT concat_all(ARRAY[1, 2, 3]), concat_all(ARRAY['a', 'b']);
-- A polymorphic procedure.
CREATE PROCEDURE show_it(anyelement) LANGUAGE plpgsql
  AS $$ BEGIN RAISE NOTICE '% is %', $1, pg_typeof($1); END $$;
CALL show_it(7);
CALL show_it('seven'::text);
-- The body is checked at the call for the call's types.
CREATE FUNCTION ret_text(anyelement) RETURNS anyelement LANGUAGE sql
  AS $$ SELECT 'x'::text $$;
SELECT ret_text('y'::text);
-- CREATE FUNCTION: a polymorphic result needs an input of its family.
CREATE FUNCTION bad1(int) RETURNS anyelement LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION bad2(int, OUT x anyelement) LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION bad3(int) RETURNS anycompatible LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION bad4(anyelement) RETURNS anycompatible LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION bad5(anycompatible) RETURNS anyelement LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION bad6(int) RETURNS anyarray LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION bad7(int, OUT a int, OUT b anyarray) LANGUAGE sql AS 'SELECT 1, 2';
CREATE FUNCTION bad8(x anyelement[]) RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION bad9(x "any") RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION bad10(x "any") RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;
-- A body that does not plan is reported at the call.
CREATE FUNCTION late(anyelement) RETURNS anyelement LANGUAGE sql
  AS $$ SELECT $1 FROM no_such_table $$;
-- VARIADIC arguments: the elements one by one, or the array with VARIADIC.
CREATE FUNCTION vcount(VARIADIC int[]) RETURNS int LANGUAGE sql
  AS 'SELECT array_length($1, 1)';
SELECT vcount(1), vcount(1, 2, 3), vcount(VARIADIC ARRAY[1, 2]), vcount(1, '2');
SELECT vcount(VARIADIC NULL);
SELECT vcount();
SELECT vcount(VARIADIC 1);
SELECT vcount(1.5);
SELECT vcount(ARRAY[1, 2]);
CREATE FUNCTION vjoin(a text, VARIADIC b int[]) RETURNS text LANGUAGE sql
  AS $$ SELECT $1 || array_to_string($2, '-') $$;
SELECT vjoin('x', 1, 2), vjoin('y', VARIADIC ARRAY[3]), vjoin(a => 'z', VARIADIC b => ARRAY[1, 2]);
SELECT vjoin(a => 'z', b => ARRAY[1, 2]);
SELECT vjoin('x');
CREATE FUNCTION vany(VARIADIC anyarray) RETURNS anyarray LANGUAGE sql AS 'SELECT $1';
SELECT vany(1, 2), vany('a'::text, 'b'), vany(VARIADIC ARRAY[1.5]);
SELECT vany('a', 'b');
SELECT vany(1, 'x'::text);
CREATE FUNCTION vcompat(VARIADIC anycompatiblearray) RETURNS anycompatiblearray
  LANGUAGE sql AS 'SELECT $1';
SELECT vcompat(1, 2.5, 3::int8), pg_typeof(vcompat(1, 2.5, 3::int8));
CREATE FUNCTION vdefault(VARIADIC int[] DEFAULT ARRAY[9]) RETURNS int[] LANGUAGE sql
  AS 'SELECT $1';
SELECT vdefault(), vdefault(1);
CREATE FUNCTION vplpgsql(VARIADIC x text[]) RETURNS text LANGUAGE plpgsql
  AS $$ BEGIN RETURN array_to_string(x, ','); END $$;
SELECT vplpgsql('a', 'b', 'c');
SELECT pg_get_function_arguments('vjoin'::regproc), provariadic::regtype
  FROM pg_proc WHERE proname = 'vjoin';
CREATE FUNCTION vbad1(VARIADIC int) RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION vbad2(VARIADIC int[], x int) RETURNS int LANGUAGE sql AS 'SELECT 1';
-- Several OUT arguments in an expression: a record.
SELECT dup(22), dup('xyz'::text);
SELECT (dup(4)).f3;
-- The catalog shows the declared types.
SELECT proname, prorettype::regtype, proargtypes::regtype[]
  FROM pg_proc WHERE proname IN ('ident', 'append', 'pair', 'dup') ORDER BY 1;
DROP FUNCTION ident(anyelement);
SELECT ident(1);
-- Overloads: an unknown literal prefers the candidate taking a string.
CREATE FUNCTION pref(a int DEFAULT 1) RETURNS text LANGUAGE sql AS $$ SELECT 'int' $$;
CREATE FUNCTION pref(a text DEFAULT 'x') RETURNS text LANGUAGE sql AS $$ SELECT 'text' $$;
SELECT pref('Hi'), pref(1);
SELECT pref();
-- CREATE OR REPLACE cannot drop a parameter default.
CREATE OR REPLACE FUNCTION pref(a int) RETURNS text LANGUAGE sql AS $$ SELECT 'int' $$;
