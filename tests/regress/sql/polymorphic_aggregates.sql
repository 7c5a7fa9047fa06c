-- Polymorphic user aggregates (PostgreSQL's manual, "User-Defined Aggregates").
CREATE AGGREGATE array_accum (anycompatible) (
    sfunc = array_append,
    stype = anycompatiblearray,
    initcond = '{}'
);
CREATE TABLE pa (i int, t text, n numeric);
INSERT INTO pa VALUES (1, 'a', 1.5), (2, 'b', NULL), (3, NULL, 2.25);
SELECT array_accum(i), array_accum(t), array_accum(n) FROM pa;
SELECT i % 2 AS k, array_accum(i ORDER BY i DESC) FROM pa GROUP BY 1 ORDER BY 1;
SELECT pg_typeof(array_accum(n)) FROM pa;
SELECT array_accum('x') FROM pa;
CREATE FUNCTION least_accum(anyelement, anyelement) RETURNS anyelement
  LANGUAGE sql AS 'SELECT least($1, $2)';
CREATE AGGREGATE least_agg(anyelement) (stype = anyelement, sfunc = least_accum);
SELECT least_agg(i), least_agg(t), least_agg(n) FROM pa;
SELECT least_agg(x) FROM (VALUES (date '2020-01-02'), (date '2019-05-05')) v(x);
CREATE FUNCTION first_el(anycompatiblearray) RETURNS anycompatible LANGUAGE sql AS 'SELECT $1[1]';
CREATE AGGREGATE first_agg(anycompatible) (
  sfunc = array_append, stype = anycompatiblearray, finalfunc = first_el, initcond = '{}');
SELECT first_agg(t ORDER BY t DESC NULLS LAST), pg_typeof(first_agg(n)) FROM pa;
CREATE AGGREGATE bad_agg2(int) (sfunc = array_append, stype = anycompatiblearray);
SELECT array_accum(i) OVER (ORDER BY i) FROM pa;
-- a polymorphic state needs a polymorphic argument
CREATE AGGREGATE bad_agg(int) (sfunc = array_append, stype = anyarray);
-- moving-aggregate options are checked
CREATE FUNCTION mfwd(int8, int) RETURNS int8 LANGUAGE sql AS 'SELECT $1 + $2';
CREATE FUNCTION minv(int8, int) RETURNS int8 LANGUAGE sql AS 'SELECT $1 - $2';
CREATE AGGREGATE msum(int) (sfunc = mfwd, stype = int8, initcond = '0',
  msfunc = mfwd, minvfunc = minv, mstype = int8, minitcond = '0');
SELECT i, msum(i) OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM pa;
CREATE AGGREGATE msum2(int) (sfunc = mfwd, stype = int8, msfunc = mfwd, mstype = int8);
CREATE AGGREGATE msum3(int) (sfunc = mfwd, stype = int8, msfunc = mfwd, minvfunc = minv);
CREATE AGGREGATE msum4(int) (sfunc = mfwd, stype = int8, msfunc = mfwd, minvfunc = nosuch, mstype = int8);
SELECT aggfnoid::regproc, aggtranstype::regtype, prorettype::regtype
  FROM pg_aggregate JOIN pg_proc p ON p.oid = aggfnoid
  WHERE proname IN ('array_accum', 'least_agg', 'first_agg', 'msum') ORDER BY proname;
DROP TABLE pa;
DROP AGGREGATE array_accum(anycompatible);
DROP AGGREGATE least_agg(anyelement);
DROP AGGREGATE first_agg(anycompatible);
DROP AGGREGATE msum(int);
DROP FUNCTION least_accum(anyelement, anyelement);
DROP FUNCTION first_el(anycompatiblearray);
DROP FUNCTION mfwd(int8, int);
DROP FUNCTION minv(int8, int);
CREATE AGGREGATE mysum (int) (stype = int, sfunc = int4pl, parallel = pear);
CREATE AGGREGATE mysum2 (int) (stype = int, sfunc = int4pl, parallel = safe);
CREATE FUNCTION float8mi_n(float8, float8) RETURNS float8 AS $$ SELECT $1 - $2; $$ LANGUAGE SQL;
CREATE AGGREGATE invalidsumdouble (float8) (stype = float8, sfunc = float8pl, mstype = float8, msfunc = float8pl, minvfunc = float8mi_n);
CREATE FUNCTION float8mi_int(float8, float8) RETURNS int AS $$ SELECT CAST($1 - $2 AS INT); $$ LANGUAGE SQL;
CREATE AGGREGATE wrongreturntype (float8) (stype = float8, sfunc = float8pl, mstype = float8, msfunc = float8pl, minvfunc = float8mi_int);
CREATE AGGREGATE case_agg ( -- old syntax
	"Sfunc1" = int4pl,
	"Basetype" = int4,
	"Stype1" = int4,
	"Initcond1" = '0',
	"Parallel" = safe
);
CREATE AGGREGATE nostype (int) (sfunc = int4pl);
CREATE AGGREGATE nosfunc (int) (stype = int);
SELECT mysum2(x) FROM generate_series(1, 4) x;
DROP AGGREGATE mysum2(int);
DROP FUNCTION float8mi_n(float8, float8);
DROP FUNCTION float8mi_int(float8, float8);
-- MINITCOND is the moving state's initial value: a strict forward step
-- with it is accepted; without it, a polymorphic input cannot start the
-- state (PostgreSQL's check in AggregateCreate).
CREATE FUNCTION logging_sfunc_strict(text, anyelement) RETURNS text AS
$$ SELECT $1 || '*' || quote_nullable($2) $$ LANGUAGE SQL STRICT IMMUTABLE;
CREATE FUNCTION logging_msfunc_strict(text, anyelement) RETURNS text AS
$$ SELECT $1 || '+' || quote_nullable($2) $$ LANGUAGE SQL STRICT IMMUTABLE;
CREATE FUNCTION logging_minvfunc_strict(text, anyelement) RETURNS text AS
$$ SELECT $1 || '-' || quote_nullable($2) $$ LANGUAGE SQL STRICT IMMUTABLE;
CREATE AGGREGATE logging_agg_strict_initcond (anyelement) (
    stype = text, sfunc = logging_sfunc_strict,
    mstype = text, msfunc = logging_msfunc_strict, minvfunc = logging_minvfunc_strict,
    initcond = 'I', minitcond = 'MI');
CREATE AGGREGATE logging_agg_no_minitcond (anyelement) (
    stype = text, sfunc = logging_sfunc_strict,
    mstype = text, msfunc = logging_msfunc_strict, minvfunc = logging_minvfunc_strict,
    initcond = 'I');
SELECT logging_agg_strict_initcond(x) FROM (VALUES (1), (NULL), (3)) v(x);
SELECT logging_agg_strict_initcond(x) FROM (VALUES ('a'::text), ('b')) v(x);
-- quote_literal and quote_nullable of any type print its text cast.
SELECT quote_nullable(42), quote_nullable(NULL::int), quote_literal(true),
       quote_literal(1.50::numeric), quote_literal(NULL::date), quote_nullable('it''s'),
       quote_literal(ARRAY[1,2]), quote_nullable('2020-01-02'::date);
DROP AGGREGATE logging_agg_strict_initcond(anyelement);
DROP FUNCTION logging_sfunc_strict(text, anyelement), logging_msfunc_strict(text, anyelement),
    logging_minvfunc_strict(text, anyelement);
