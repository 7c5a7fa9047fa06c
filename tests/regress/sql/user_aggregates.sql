-- CREATE AGGREGATE / DROP AGGREGATE with SQL, PL/pgSQL and built-in steps.
CREATE TABLE ua (g int, x int, n numeric, s text);
INSERT INTO ua VALUES (1, 1, 1.5, 'a'), (1, 2, NULL, 'b'), (1, NULL, 2.5, NULL),
  (2, 5, 3, 'c'), (2, 5, 4, 'c'), (3, NULL, NULL, NULL);

-- built-in transition functions
CREATE AGGREGATE my_sum(int) (SFUNC = int4pl, STYPE = int, INITCOND = '0');
CREATE AGGREGATE my_max(int) (SFUNC = int4larger, STYPE = int);
CREATE AGGREGATE my_concat(text) (SFUNC = textcat, STYPE = text, INITCOND = '');
SELECT g, my_sum(x), my_max(x), my_concat(s) FROM ua GROUP BY g ORDER BY g;
SELECT my_sum(x), my_max(x) FROM ua WHERE false;

-- SQL and PL/pgSQL steps, strict and not
CREATE FUNCTION add_sq(st numeric, v numeric) RETURNS numeric LANGUAGE sql
  AS 'SELECT coalesce(st, 0) + coalesce(v * v, 0)';
CREATE FUNCTION add_sq_strict(st numeric, v numeric) RETURNS numeric LANGUAGE sql STRICT
  AS 'SELECT st + v * v';
CREATE FUNCTION show_total(st numeric) RETURNS text LANGUAGE plpgsql
  AS $$ BEGIN RETURN 'total: ' || coalesce(st::text, 'none'); END $$;
CREATE AGGREGATE sumsq(numeric) (SFUNC = add_sq, STYPE = numeric);
CREATE AGGREGATE sumsq_strict(numeric) (SFUNC = add_sq_strict, STYPE = numeric);
CREATE AGGREGATE sumsq_text(numeric) (SFUNC = add_sq, STYPE = numeric, FINALFUNC = show_total,
  INITCOND = '10');
SELECT g, sumsq(n), sumsq_strict(n), sumsq_text(n) FROM ua GROUP BY g ORDER BY g;
-- a strict transition function without INITCOND starts from the first non-NULL input
SELECT sumsq_strict(v) FROM (VALUES (NULL::numeric), (3), (2), (NULL)) s(v);
SELECT sumsq_strict(v) FROM (VALUES (NULL::numeric)) s(v);

-- old-style syntax and FINALFUNC_EXTRA
CREATE AGGREGATE old_sum (BASETYPE = int, SFUNC = int4pl, STYPE = int, INITCOND = 100);
CREATE FUNCTION final_extra(st int, dummy int) RETURNS text LANGUAGE sql
  AS 'SELECT st::text || coalesce(dummy::text, ''/null'')';
CREATE AGGREGATE sum_extra(int) (SFUNC = int4pl, STYPE = int, FINALFUNC = final_extra,
  FINALFUNC_EXTRA, INITCOND = 0);
SELECT old_sum(x), sum_extra(x) FROM ua;

-- DISTINCT, ORDER BY, FILTER, argument casts, HAVING
SELECT my_sum(DISTINCT x), my_concat(s ORDER BY s DESC), my_sum(x) FILTER (WHERE g = 2) FROM ua;
SELECT my_concat(s ORDER BY g DESC, s) FROM ua;
SELECT sumsq(x) FROM ua;
SELECT g FROM ua GROUP BY g HAVING my_sum(x) > 3 ORDER BY g;

-- as window functions
SELECT g, x, my_sum(x) OVER (ORDER BY g, x), my_concat(s) OVER (PARTITION BY g ORDER BY s)
FROM ua ORDER BY g, x, s;
SELECT g, sumsq_text(n) OVER (PARTITION BY g) FROM ua ORDER BY g, n;

-- the catalog
SELECT proname, prokind, pg_get_function_result(oid) FROM pg_proc
WHERE proname IN ('my_sum', 'sumsq_text', 'add_sq') ORDER BY proname;

SELECT aggfnoid::regproc, aggkind, aggnumdirectargs, aggtransfn::regproc, aggfinalfn::regproc,
       aggfinalextra, aggtranstype::regtype, agginitval
FROM pg_aggregate WHERE aggfnoid::regproc::text IN ('sumsq', 'sumsq_text')
ORDER BY 1::text;

-- replacing and dropping
CREATE AGGREGATE my_sum(int) (SFUNC = int4pl, STYPE = int);
CREATE OR REPLACE AGGREGATE my_sum(int) (SFUNC = int4pl, STYPE = int, INITCOND = '1000');
SELECT my_sum(x) FROM ua;
DROP FUNCTION my_sum(int);
DROP AGGREGATE my_sum(numeric);
DROP AGGREGATE IF EXISTS my_sum(numeric);
DROP AGGREGATE my_sum(int);
SELECT my_sum(x) FROM ua;
DROP AGGREGATE sumsq(numeric), sumsq_strict(numeric);

-- made by another role: it owns the aggregate
CREATE ROLE ua_owner;
GRANT CREATE ON SCHEMA public TO ua_owner;
SET ROLE ua_owner;
CREATE AGGREGATE owned_sum(int) (SFUNC = int4pl, STYPE = int);
RESET ROLE;
SELECT proname, pg_get_userbyid(proowner) FROM pg_proc WHERE proname = 'owned_sum';
CREATE ROLE ua_other;
SET ROLE ua_other;
DROP AGGREGATE owned_sum(int);
RESET ROLE;
DROP ROLE ua_other;
DROP AGGREGATE owned_sum(int);
REVOKE CREATE ON SCHEMA public FROM ua_owner;
DROP ROLE ua_owner;

-- errors
CREATE AGGREGATE bad(int) (SFUNC = no_such_function, STYPE = int);
CREATE AGGREGATE bad(int) (STYPE = int);
CREATE AGGREGATE bad(int) (SFUNC = int4pl);
CREATE AGGREGATE bad(text) (SFUNC = add_sq_strict, STYPE = numeric);
SELECT my_max(x) FROM ua WHERE my_max(x) > 1;
SELECT my_max(my_max(x)) FROM ua;
DROP TABLE ua;
