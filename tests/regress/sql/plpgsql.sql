-- Server-side code: SQL and PL/pgSQL functions, DO blocks, procedures.
\set VERBOSITY default
CREATE TABLE accounts (id int PRIMARY KEY, owner text NOT NULL, balance numeric(10,2) NOT NULL DEFAULT 0);
INSERT INTO accounts VALUES (1, 'ann', 100), (2, 'bob', 50), (3, 'cy', 0);

-- SQL functions
CREATE FUNCTION add(a int, b int) RETURNS int AS 'SELECT a + b' LANGUAGE sql;
SELECT add(1, 2), add(b => 10, a => 1);
CREATE FUNCTION add(a int, b int) RETURNS int AS 'SELECT a - b' LANGUAGE sql;
CREATE OR REPLACE FUNCTION add(a int, b int) RETURNS int AS 'SELECT $1 * 10 + $2' LANGUAGE sql;
SELECT add(1, 2);
CREATE OR REPLACE FUNCTION add(a int, b int) RETURNS text AS 'SELECT 1' LANGUAGE sql;
CREATE FUNCTION balance_of(who text) RETURNS numeric AS $$
  SELECT balance FROM accounts WHERE owner = who
$$ LANGUAGE sql STABLE;
SELECT balance_of('ann'), balance_of('nobody');
CREATE FUNCTION rich(min numeric DEFAULT 10) RETURNS SETOF accounts AS $$
  SELECT * FROM accounts WHERE balance >= min ORDER BY id
$$ LANGUAGE sql;
SELECT * FROM rich();
SELECT owner FROM rich(60);
CREATE FUNCTION pairs(n int) RETURNS TABLE (i int, sq int) AS $$
  SELECT g, g * g FROM generate_series(1, n) AS g
$$ LANGUAGE sql;
SELECT * FROM pairs(3);
SELECT sq FROM pairs(2) WHERE i = 2;
CREATE FUNCTION nothing() RETURNS void AS 'UPDATE accounts SET balance = balance WHERE false' LANGUAGE sql;
SELECT nothing();
CREATE FUNCTION strict_add(a int, b int) RETURNS int AS 'SELECT a + b' LANGUAGE sql STRICT;
SELECT strict_add(1, NULL) IS NULL AS is_null;
SELECT add(1);
SELECT add('x', 1);
CREATE FUNCTION bad() RETURNS int AS 'SELECT nosuchcol FROM accounts' LANGUAGE sql;
CREATE FUNCTION badlang() RETURNS int AS 'x' LANGUAGE klingon;

-- PL/pgSQL basics
CREATE FUNCTION fact(n int) RETURNS bigint AS $$
BEGIN
  IF n <= 1 THEN
    RETURN 1;
  END IF;
  RETURN n * fact(n - 1);
END
$$ LANGUAGE plpgsql;
SELECT fact(10);
CREATE FUNCTION classify(x int) RETURNS text AS $$
DECLARE
  r text;
BEGIN
  CASE
    WHEN x < 0 THEN r := 'negative';
    WHEN x = 0 THEN r := 'zero';
    ELSE r := 'positive';
  END CASE;
  RETURN r;
END
$$ LANGUAGE plpgsql IMMUTABLE;
SELECT classify(-5), classify(0), classify(7);
CREATE FUNCTION weekday(d int) RETURNS text AS $$
BEGIN
  CASE d
    WHEN 0, 6 THEN RETURN 'weekend';
    WHEN 1, 2, 3, 4, 5 THEN RETURN 'weekday';
  END CASE;
END
$$ LANGUAGE plpgsql;
SELECT weekday(0), weekday(3);
SELECT weekday(9);
CREATE FUNCTION loops() RETURNS text AS $$
DECLARE
  s text := '';
  i int := 0;
BEGIN
  LOOP
    i := i + 1;
    EXIT WHEN i > 3;
    s := s || i;
  END LOOP;
  WHILE i > 0 LOOP
    i := i - 1;
    CONTINUE WHEN i % 2 = 0;
    s := s || 'w' || i;
  END LOOP;
  FOR j IN REVERSE 10..1 BY 3 LOOP
    s := s || 'r' || j;
  END LOOP;
  <<outer>>
  FOR a IN 1..3 LOOP
    FOR b IN 1..3 LOOP
      EXIT outer WHEN a = 2;
      CONTINUE outer WHEN b = 2;
      s := s || '(' || a || ',' || b || ')';
    END LOOP;
  END LOOP;
  RETURN s;
END
$$ LANGUAGE plpgsql;
SELECT loops();
CREATE FUNCTION total() RETURNS numeric AS $$
DECLARE
  r record;
  t numeric := 0;
BEGIN
  FOR r IN SELECT * FROM accounts ORDER BY id LOOP
    t := t + r.balance;
    RAISE NOTICE 'account % of % has %', r.id, r.owner, r.balance;
  END LOOP;
  RETURN t;
END
$$ LANGUAGE plpgsql;
SELECT total();
CREATE FUNCTION intos(k int) RETURNS text AS $$
DECLARE
  o accounts.owner%TYPE;
  b numeric;
  row accounts%ROWTYPE;
BEGIN
  SELECT owner, balance INTO o, b FROM accounts WHERE id = k;
  IF NOT FOUND THEN
    RETURN 'none';
  END IF;
  SELECT * INTO row FROM accounts WHERE id = k;
  RETURN o || ':' || b || ':' || row.owner;
END
$$ LANGUAGE plpgsql;
SELECT intos(1), intos(9);
CREATE FUNCTION strict_into(k int) RETURNS text AS $$
DECLARE
  o text;
BEGIN
  SELECT owner INTO STRICT o FROM accounts WHERE id > k;
  RETURN o;
END
$$ LANGUAGE plpgsql;
SELECT strict_into(2);
SELECT strict_into(5);
SELECT strict_into(0);
CREATE FUNCTION counts() RETURNS text AS $$
DECLARE
  n bigint;
  s text := '';
BEGIN
  UPDATE accounts SET balance = balance + 1 WHERE balance > 10;
  GET DIAGNOSTICS n = ROW_COUNT;
  s := s || 'updated ' || n || ' found ' || FOUND;
  UPDATE accounts SET balance = balance WHERE id = 99;
  GET DIAGNOSTICS n = ROW_COUNT;
  s := s || ', then ' || n || ' found ' || FOUND;
  RETURN s;
END
$$ LANGUAGE plpgsql;
SELECT counts();
SELECT id, balance FROM accounts ORDER BY id;

-- OUT, INOUT, SETOF, RETURN NEXT / QUERY
CREATE FUNCTION split_name(full_name text, OUT first text, OUT last text) AS $$
BEGIN
  first := split_part(full_name, ' ', 1);
  last := split_part(full_name, ' ', 2);
END
$$ LANGUAGE plpgsql;
SELECT * FROM split_name('Ada Lovelace');
CREATE FUNCTION evens(n int) RETURNS SETOF int AS $$
BEGIN
  FOR i IN 1..n LOOP
    IF i % 2 = 0 THEN
      RETURN NEXT i;
    END IF;
  END LOOP;
  RETURN;
END
$$ LANGUAGE plpgsql;
SELECT * FROM evens(7);
CREATE FUNCTION owners() RETURNS TABLE (o text, b numeric) AS $$
BEGIN
  RETURN QUERY SELECT owner, balance FROM accounts WHERE balance > 0 ORDER BY owner;
  o := 'extra';
  b := -1;
  RETURN NEXT;
END
$$ LANGUAGE plpgsql;
SELECT * FROM owners();

-- Exceptions: blocks are savepoint marks
CREATE TABLE log (n int PRIMARY KEY);
CREATE FUNCTION safe_insert(k int) RETURNS text AS $$
BEGIN
  INSERT INTO log VALUES (k);
  RETURN 'ok';
EXCEPTION
  WHEN unique_violation THEN
    RETURN 'duplicate';
END
$$ LANGUAGE plpgsql;
SELECT safe_insert(1), safe_insert(2), safe_insert(1);
SELECT * FROM log ORDER BY n;
DO $$
DECLARE
  msg text;
  st text;
  det text;
BEGIN
  BEGIN
    INSERT INTO log VALUES (10);
    PERFORM 1 / 0;
  EXCEPTION WHEN division_by_zero THEN
    GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT, st = RETURNED_SQLSTATE;
    RAISE NOTICE 'caught % (%)', msg, st;
  END;
  BEGIN
    RAISE EXCEPTION 'custom %', 42 USING ERRCODE = '22012', DETAIL = 'some detail';
  EXCEPTION WHEN SQLSTATE '22012' THEN
    GET STACKED DIAGNOSTICS det = PG_EXCEPTION_DETAIL;
    RAISE NOTICE 'caught custom: % / % / %', SQLSTATE, SQLERRM, det;
  END;
  BEGIN
    INSERT INTO log VALUES (11);
    RAISE data_exception;
  EXCEPTION WHEN data_exception THEN
    RAISE NOTICE 'class caught: %', SQLERRM;
  END;
  BEGIN
    BEGIN
      PERFORM 1 / 0;
    EXCEPTION WHEN unique_violation THEN
      RAISE NOTICE 'not here';
    END;
  EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'outer caught %', SQLSTATE;
  END;
END
$$;
SELECT * FROM log ORDER BY n;
DO $$
BEGIN
  BEGIN
    PERFORM 1 / 0;
  EXCEPTION WHEN division_by_zero THEN
    RAISE NOTICE 'handling, then re-raise';
    RAISE;
  END;
END
$$;
DO $$ BEGIN RAISE EXCEPTION 'plain'; END $$;
DO $$ BEGIN RAISE EXCEPTION USING MESSAGE = 'via using', HINT = 'a hint', ERRCODE = 'check_violation'; END $$;
DO $$ BEGIN RAISE WARNING 'warned %', 'x'; RAISE INFO 'info'; RAISE LOG 'to the log'; END $$;
DO $$ BEGIN RAISE NOTICE '% and %% and %', 1, 2; END $$;
DO $$ BEGIN ASSERT 1 = 2, 'one is not two'; END $$;
DO $$ BEGIN ASSERT 1 = 1; RAISE NOTICE 'assert passed'; END $$;
DO $$ DECLARE x int NOT NULL := 1; BEGIN x := NULL; END $$;
DO $$ BEGIN SELECT 1; END $$;
DO $$ DECLARE r record; BEGIN RAISE NOTICE '%', r.x; END $$;

-- Dynamic SQL
CREATE FUNCTION count_of(tbl text) RETURNS bigint AS $$
DECLARE
  n bigint;
BEGIN
  EXECUTE 'SELECT count(*) FROM ' || tbl INTO n;
  RETURN n;
END
$$ LANGUAGE plpgsql;
SELECT count_of('accounts'), count_of('log');
DO $$
DECLARE
  o text;
BEGIN
  EXECUTE 'SELECT owner FROM accounts WHERE id = $1' INTO o USING 2;
  RAISE NOTICE 'owner 2 is %', o;
  EXECUTE 'UPDATE accounts SET balance = balance + $1 WHERE id = $2' USING 5, 3;
END
$$;
SELECT balance FROM accounts WHERE id = 3;

-- Volatility, variables, errors with context
CREATE FUNCTION sneaky() RETURNS int AS $$
BEGIN
  INSERT INTO log VALUES (99);
  RETURN 1;
END
$$ LANGUAGE plpgsql STABLE;
SELECT sneaky();
CREATE FUNCTION ambiguous(id int) RETURNS text AS $$
BEGIN
  RETURN (SELECT owner FROM accounts WHERE id = id);
END
$$ LANGUAGE plpgsql;
SELECT ambiguous(1);
CREATE FUNCTION qualified(id int) RETURNS text AS $$
BEGIN
  RETURN (SELECT owner FROM accounts a WHERE a.id = qualified.id);
END
$$ LANGUAGE plpgsql;
SELECT qualified(2);
CREATE FUNCTION no_return() RETURNS int AS $$ BEGIN END $$ LANGUAGE plpgsql;
SELECT no_return();
CREATE FUNCTION nested_err() RETURNS int AS $$
BEGIN
  RETURN fact(3) / 0;
END
$$ LANGUAGE plpgsql;
SELECT nested_err();
CREATE FUNCTION syntax_err() RETURNS int AS $$ BEGIN RETRN 1; END $$ LANGUAGE plpgsql;
-- Syntax errors are found at CREATE, positioned in the statement
CREATE FUNCTION s1() RETURNS int AS $$
BEGIN
  x := ;
  RETURN 1;
END $$ LANGUAGE plpgsql;
CREATE FUNCTION s2() RETURNS int AS $$
DECLARE x int;
BEGIN
  x := 1 +;
  RETURN 1;
END $$ LANGUAGE plpgsql;
CREATE FUNCTION s3() RETURNS int AS $$
BEGIN
  IF THEN RETURN 1; END IF;
END $$ LANGUAGE plpgsql;
CREATE FUNCTION s4() RETURNS int AS 'BEGIN RETURN ''a'' +; END' LANGUAGE plpgsql;
CREATE FUNCTION s5() RETURNS int AS $$
BEGIN
  INSERT INTO nowhere VALUES (;
  RETURN 1;
END $$ LANGUAGE plpgsql;
CREATE FUNCTION s6() RETURNS int AS $$
BEGIN
  PERFORM 1 +;
  RETURN 1;
END $$ LANGUAGE plpgsql;
DO $$ BEGIN RAISE NOTICE '%', 1 +; END $$;
CREATE FUNCTION s7() RETURNS int AS $$
BEGIN
  RETURN x;
END $$ LANGUAGE plpgsql;
SELECT s7();
CREATE FUNCTION s8() RETURNS int AS $$
DECLARE y int;
BEGIN
  y := (SELECT nosuch FROM accounts);
  RETURN y;
END $$ LANGUAGE plpgsql;
SELECT s8();
CREATE FUNCTION s9() RETURNS int AS $$
DECLARE y int;
BEGIN
  y := (SELECT 1/0);
  RETURN y;
END $$ LANGUAGE plpgsql;
SELECT s9();
CREATE FUNCTION shadow() RETURNS text AS $$
DECLARE
  x text := 'outer';
BEGIN
  DECLARE
    x text := 'inner';
  BEGIN
    RETURN x;
  END;
END
$$ LANGUAGE plpgsql;
SELECT shadow();
CREATE FUNCTION labels() RETURNS text AS $$
<<blk>>
DECLARE
  x text := 'outer';
BEGIN
  DECLARE
    x text := 'inner';
  BEGIN
    RETURN x || '/' || blk.x;
  END;
END
$$ LANGUAGE plpgsql;
SELECT labels();

-- Procedures
CREATE PROCEDURE transfer(src int, dst int, amt numeric) AS $$
BEGIN
  UPDATE accounts SET balance = balance - amt WHERE id = src;
  UPDATE accounts SET balance = balance + amt WHERE id = dst;
END
$$ LANGUAGE plpgsql;
CALL transfer(1, 2, 10);
SELECT id, balance FROM accounts ORDER BY id;
CREATE PROCEDURE double_it(INOUT x int) AS $$ BEGIN x := x * 2; END $$ LANGUAGE plpgsql;
CALL double_it(21);
CALL transfer(1, 2);
SELECT transfer(1, 2, 3);
CALL fact(3);
DROP PROCEDURE transfer(int, int, numeric);
-- OUT arguments of procedures are named in CALL (PostgreSQL 14+), and
-- written back to variables when called from PL/pgSQL.
CREATE PROCEDURE out_args(IN a int, OUT b int, INOUT c text) LANGUAGE plpgsql
  AS $$ BEGIN b := a * 2; c := c || '!'; END $$;
CALL out_args(3, NULL, 'x');
CALL out_args(3, 'x');
DO $$ DECLARE x int; y text := 'q'; BEGIN CALL out_args(5, x, y); RAISE NOTICE '% %', x, y; END $$;
CREATE PROCEDURE sql_inout(a int, INOUT c int) LANGUAGE sql AS 'SELECT c + a';
CALL sql_inout(1, 41);
DO $$ DECLARE v int := 1; BEGIN CALL sql_inout(10, v); RAISE NOTICE '%', v; END $$;
DROP PROCEDURE out_args;
DROP PROCEDURE sql_inout;

CALL transfer(1, 2, 10);

-- Functions in a transaction: rolled back with it
BEGIN;
CREATE FUNCTION temporary_fn() RETURNS int AS 'SELECT 7' LANGUAGE sql;
SELECT temporary_fn();
ROLLBACK;
SELECT temporary_fn();

-- DROP
DROP FUNCTION add(int, int);
DROP FUNCTION add(int, int);
DROP FUNCTION IF EXISTS add(int, int);
DROP FUNCTION nosuch;
CREATE FUNCTION ov(int) RETURNS int AS 'SELECT 1' LANGUAGE sql;
CREATE FUNCTION ov(text) RETURNS int AS 'SELECT 2' LANGUAGE sql;
SELECT ov(1), ov('a'::text);
DROP FUNCTION ov;
DROP FUNCTION ov(text);
DROP FUNCTION ov;
SELECT proname, prokind, provolatile, pronargs FROM pg_proc WHERE proname IN ('fact', 'classify', 'double_it', 'rich') ORDER BY proname;
-- Row results follow the table's row type; shapes are checked
create table tabwithcols(a int, b int, c int, d int);
insert into tabwithcols values(10,20,30,40),(50,60,70,80);
create or replace function returnqueryf()
returns setof tabwithcols as $$
begin
  return query select * from tabwithcols;
  return query execute 'select * from tabwithcols';
end;
$$ language plpgsql;
select * from returnqueryf();
alter table tabwithcols drop column b;
select * from returnqueryf();
alter table tabwithcols drop column d;
select * from returnqueryf();
alter table tabwithcols add column d int;
select * from returnqueryf();
create function bad1() returns setof tabwithcols as $$ begin return query select 1; end $$ language plpgsql;
select * from bad1();
create function bad2() returns setof int as $$ begin return query select 1::bigint; end $$ language plpgsql;
select * from bad2();
create function bad3() returns setof int as $$ begin return query select '1'; end $$ language plpgsql;
select * from bad3();
create function one() returns tabwithcols as $$ declare r tabwithcols; begin select * into r from tabwithcols limit 1; return r; end $$ language plpgsql;
select * from one();
create function onenull() returns tabwithcols as $$ begin return null; end $$ language plpgsql;
select * from onenull();
create function bad4() returns tabwithcols as $$ begin return 5; end $$ language plpgsql;
select * from bad4();
create function nx() returns setof tabwithcols as $$ declare r record; begin for r in select a, c from tabwithcols loop return next r; end loop; end $$ language plpgsql;
select * from nx();
drop function returnqueryf, bad1, bad2, bad3, one, onenull, bad4, nx;
drop table tabwithcols;
-- plpgsql.* settings and per-function options
create table vc (id int, v text);
insert into vc values (1, 'one'), (2, 'two');
create function amb(id int) returns text as $$ declare r text; begin select v into r from vc where id = id; return r; end $$ language plpgsql;
select amb(1);
set plpgsql.variable_conflict = use_variable;
create function amb_v(id int) returns text as $$ declare r text; begin select v into r from vc where id = id; return r; end $$ language plpgsql;
select amb_v(2);
set plpgsql.variable_conflict = use_column;
create function amb_c(id int) returns text as $$ declare r text; begin select v into r from vc where id = id limit 1; return r; end $$ language plpgsql;
select amb_c(2);
reset plpgsql.variable_conflict;
create function amb2(id int) returns text as $$
#variable_conflict use_column
declare r text; begin select v into r from vc where id = id limit 1; return r; end $$ language plpgsql;
select amb2(1);
create function amb3(id int) returns text as $$
#variable_conflict use_variable
declare r text; begin select v into r from vc where id = id limit 1; return r; end $$ language plpgsql;
select amb3(2);
create function st(k int) returns text as $$ declare r text; begin select v into strict r from vc where id > k; return r; end $$ language plpgsql;
select st(0);
select st(5);
create function st2(k int) returns text as $$
#print_strict_params on
declare r text; begin select v into strict r from vc where id > k; return r; end $$ language plpgsql;
select st2(0);
set plpgsql.print_strict_params = on;
create function st3(k int, w text) returns text as $$ declare r text; begin select v into strict r from vc where id > k and v <> w; return r; end $$ language plpgsql;
select st3(0, 'it''s');
reset plpgsql.print_strict_params;
do $$ begin assert false, 'asserted'; end $$;
set plpgsql.check_asserts = off;
do $$ begin assert false, 'asserted'; end $$;
reset plpgsql.check_asserts;
set check_function_bodies = off;
create function later() returns int as $$ begin return nosuch; end $$ language plpgsql;
create function later2() returns int as 'select nosuch' language sql;
reset check_function_bodies;
select later();
show plpgsql.variable_conflict;
set plpgsql.variable_conflict = bogus;
drop function amb, amb_v, amb_c, amb2, amb3, st, st2, st3, later, later2;
drop table vc;
-- Transaction control in procedures and DO blocks
CREATE TABLE tc (a int);
CREATE PROCEDURE tc_fill(n int) LANGUAGE plpgsql AS $$
BEGIN
  FOR i IN 1..n LOOP
    INSERT INTO tc VALUES (i);
    IF i % 2 = 0 THEN COMMIT; ELSE ROLLBACK; END IF;
  END LOOP;
END $$;
CALL tc_fill(6);
SELECT * FROM tc ORDER BY a;
BEGIN;
CALL tc_fill(2);
ROLLBACK;
SELECT count(*) FROM tc;
DO $$ BEGIN INSERT INTO tc VALUES (100); COMMIT; INSERT INTO tc VALUES (101); ROLLBACK; END $$;
SELECT * FROM tc WHERE a >= 100;
DO $$ BEGIN BEGIN INSERT INTO tc VALUES (200); COMMIT; EXCEPTION WHEN others THEN RAISE NOTICE 'caught: %', SQLERRM; END; END $$;
SELECT count(*) FROM tc WHERE a = 200;
CREATE FUNCTION tc_func() RETURNS int LANGUAGE plpgsql AS $$ BEGIN COMMIT; RETURN 1; END $$;
SELECT tc_func();
CALL tc_fill(1); SELECT 1;
CREATE PROCEDURE tc_dyn() LANGUAGE plpgsql AS $$ BEGIN EXECUTE 'CALL tc_fill(2)'; END $$;
CALL tc_dyn();
CREATE PROCEDURE tc_nested() LANGUAGE plpgsql AS $$ BEGIN CALL tc_fill(4); INSERT INTO tc VALUES (300); ROLLBACK; END $$;
CALL tc_nested();
SELECT (SELECT count(*) FROM tc WHERE a = 300) AS a300, count(*) FROM tc;
DO $$ DECLARE r record; BEGIN FOR r IN UPDATE tc SET a = a + 1000 WHERE a = 100 RETURNING a LOOP COMMIT; END LOOP; END $$;
DO $$ DECLARE r record; BEGIN FOR r IN SELECT a FROM tc WHERE a < 10 ORDER BY a LOOP INSERT INTO tc VALUES (r.a + 500); COMMIT; END LOOP; END $$;
SELECT count(*) FROM tc WHERE a > 500;
CREATE PROCEDURE tc_fail() LANGUAGE plpgsql AS $$ BEGIN INSERT INTO tc VALUES (400); COMMIT; INSERT INTO tc VALUES (401); PERFORM 1 / 0; END $$;
CALL tc_fail();
SELECT a FROM tc WHERE a IN (400, 401);
-- INOUT arguments of a CALL inside PL/pgSQL
CREATE PROCEDURE tc_inout(INOUT x int, INOUT y text) LANGUAGE plpgsql AS $$ BEGIN x := x * 2; y := y || '!'; END $$;
CALL tc_inout(21, 'hi');
DO $$ DECLARE a int := 5; b text := 'hey'; BEGIN CALL tc_inout(a, b); RAISE NOTICE 'a = %, b = %', a, b; CALL tc_inout(y => b, x => a); RAISE NOTICE 'a = %, b = %', a, b; END $$;
DO $$ DECLARE a int := 5; BEGIN CALL tc_inout(a, 'lit'); END $$;
-- A STABLE function called from a DO block sees the block's earlier writes
CREATE TABLE tx (x int);
INSERT INTO tx VALUES (0);
CREATE FUNCTION tx_get() RETURNS int STABLE LANGUAGE sql AS 'SELECT x FROM tx';
DO $$ BEGIN UPDATE tx SET x = x + 1; RAISE NOTICE 'x = %', tx_get(); UPDATE tx SET x = x + 1; RAISE NOTICE 'x = %', tx_get(); END $$;
DROP PROCEDURE tc_fill, tc_dyn, tc_nested, tc_fail, tc_inout;
DROP FUNCTION tc_func, tx_get;
DROP TABLE tc, tx;
-- Nestor does not record dependencies (PostgreSQL refuses to drop a table
-- a function's signature uses): the function goes first.
DROP FUNCTION rich;
DROP TABLE log;
DROP TABLE accounts;
