-- CREATE AGGREGATE of several arguments, of none (name(*)), the old
-- BASETYPE = 'ANY' spelling, PostgreSQL's internal support functions,
-- DISTINCT / ORDER BY over several arguments, COMMENT ON AGGREGATE.
CREATE TABLE ua (a int, b int, c text);
INSERT INTO ua VALUES (1, 3, 'foo'), (0, NULL, NULL), (2, 2, 'bar'), (3, 1, 'baz'), (1, 3, 'foo');

CREATE TYPE ua_row AS (a integer, b integer, c text);
CREATE FUNCTION ua_strict(ua_row[], integer, integer, text) RETURNS ua_row[]
  AS 'SELECT array_append($1, ROW($2, $3, $4)::ua_row)' LANGUAGE sql STRICT IMMUTABLE;
CREATE FUNCTION ua_lax(ua_row[], integer, integer, text) RETURNS ua_row[]
  AS 'SELECT array_append($1, ROW($2, $3, $4)::ua_row)' LANGUAGE sql IMMUTABLE;
CREATE AGGREGATE ua_s(integer, integer, text) (sfunc = ua_strict, stype = ua_row[], initcond = '{}');
CREATE AGGREGATE ua_l(integer, integer, text) (sfunc = ua_lax, stype = ua_row[], initcond = '{}');

SELECT ua_s(a, b, c) FROM (SELECT * FROM ua ORDER BY a, b) s;
SELECT ua_l(a, b, c ORDER BY a, b, c) FROM ua;
SELECT ua_l(DISTINCT a, b, c) FROM ua;
SELECT ua_s(DISTINCT a, b, c) FROM ua;
SELECT ua_l(DISTINCT a, b, c ORDER BY b) FROM ua;
SELECT ua_l(DISTINCT a, b, c ORDER BY c USING ~<~, a) FROM ua;
SELECT ua_l(a, b, c ORDER BY c USING ~>~, a) FROM ua;
SELECT ua_l(a, b, c ORDER BY b + 1) FILTER (WHERE a > 0) FROM ua;
SELECT a, ua_l(a, b, c ORDER BY b) FROM ua GROUP BY a ORDER BY a;
-- ORDER BY keys of a DISTINCT aggregate must be arguments
SELECT ua_l(DISTINCT a, b, c ORDER BY a + 1) FROM ua;
SELECT ua_l(DISTINCT a, b, c ORDER BY a, b, c, a * 2) FROM ua;
SELECT string_agg(DISTINCT c::text, ',' ORDER BY c) FROM ua;
SELECT string_agg(DISTINCT c, ',' ORDER BY c) FROM ua;
SELECT array_agg(DISTINCT a ORDER BY a DESC) FROM ua;
-- no such aggregate for these arguments
SELECT ua_l(a, b) FROM ua;

-- a sum of products, two arguments
CREATE FUNCTION ua_sum_prod(int8, int8, int8) RETURNS int8
  AS 'SELECT $1 + $2 * $3' LANGUAGE sql STRICT IMMUTABLE;
CREATE AGGREGATE ua_dot(int8, int8) (sfunc = ua_sum_prod, stype = int8, initcond = '0');
SELECT ua_dot(a, b) FROM ua;
SELECT ua_dot(a, b) FROM ua WHERE false;

-- zero arguments, new and old spelling, with the internal int8inc
CREATE AGGREGATE ua_cnt(*) (sfunc = int8inc, stype = int8, initcond = '0');
CREATE AGGREGATE ua_oldcnt (sfunc = int8inc, basetype = 'ANY', stype = int8, initcond = '0');
SELECT ua_cnt(*), ua_oldcnt(*) FROM ua;
SELECT ua_cnt(*) FROM ua WHERE a > 100;
SELECT a, ua_cnt(*) FROM ua GROUP BY a ORDER BY a;
SELECT ua_cnt(a) FROM ua;
-- avg's own transition and final functions
CREATE AGGREGATE ua_avg (sfunc = int4_avg_accum, basetype = int4, stype = _int8,
  finalfunc = int8_avg, initcond1 = '{0,0}');
SELECT ua_avg(a), avg(a) FROM ua;
SELECT ua_avg(a) FROM ua WHERE false;

-- pg_proc sees the arguments
SELECT proname, pronargs, pg_get_function_arguments(oid), prokind
  FROM pg_proc WHERE proname LIKE 'ua\_%' AND prokind = 'a' ORDER BY proname;

COMMENT ON AGGREGATE ua_cnt(*) IS 'counts rows';
COMMENT ON AGGREGATE ua_l(integer, integer, text) IS 'three arguments';
SELECT obj_description('ua_cnt'::regproc, 'pg_proc'), obj_description('ua_l'::regproc, 'pg_proc');
COMMENT ON AGGREGATE ua_l(integer, integer, text) IS NULL;
SELECT obj_description('ua_l'::regproc, 'pg_proc');
COMMENT ON AGGREGATE ua_nosuch(*) IS 'x';
COMMENT ON AGGREGATE ua_nosuch(integer, text) IS 'x';
COMMENT ON AGGREGATE ua_l(integer) IS 'x';

DROP AGGREGATE ua_l(integer, integer, text);
SELECT ua_l(a, b, c) FROM ua;
DROP AGGREGATE ua_cnt(*);
DROP AGGREGATE ua_oldcnt(*);
DROP AGGREGATE ua_dot(int8, int8);
DROP AGGREGATE ua_s(integer, integer, text);
DROP AGGREGATE ua_avg(int4);

-- pg_get_viewdef by name (its older text form)
CREATE VIEW ua_v AS SELECT a FROM ua;
SELECT pg_get_viewdef('ua_v') IS NOT NULL AS found;
SELECT pg_get_viewdef('ua_nosuch');

-- planner settings accepted without effect
SET jit_above_cost = 0;
SHOW jit_above_cost;
RESET jit_above_cost;
SHOW jit_above_cost;
SET min_parallel_table_scan_size = 0;
RESET min_parallel_table_scan_size;
SHOW maintenance_work_mem;
SET maintenance_work_mem = '1MB';
SHOW maintenance_work_mem;
SET maintenance_work_mem = '10kB';
RESET maintenance_work_mem;
SET constraint_exclusion = on;
SHOW constraint_exclusion;
SET constraint_exclusion = sometimes;
RESET constraint_exclusion;
SET geqo_threshold = 1;
SET lc_numeric = 'C';
SHOW lc_numeric;
RESET lc_numeric;
