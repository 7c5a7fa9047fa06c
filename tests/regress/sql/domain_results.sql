-- A function declared to return a domain checks the domain's constraints
-- on its result; DROP TYPE ... CASCADE drops domains over a composite type.
CREATE DOMAIN dr_pos AS int CHECK (VALUE > 0);
CREATE DOMAIN dr_nn AS text NOT NULL;
CREATE FUNCTION dr_sql(x int) RETURNS dr_pos AS 'SELECT x' LANGUAGE sql;
CREATE FUNCTION dr_pl(x int) RETURNS dr_pos AS $$BEGIN RETURN x; END$$ LANGUAGE plpgsql;
CREATE FUNCTION dr_null() RETURNS dr_nn AS 'SELECT NULL::text' LANGUAGE sql;
SELECT dr_sql(3), pg_typeof(dr_sql(3));
SELECT dr_sql(-3);
SELECT dr_pl(4);
SELECT dr_null();
SELECT x, dr_sql(x) FROM generate_series(1, 3) x;
SELECT dr_sql(x) FROM generate_series(1, 3) x WHERE x > 2;
SELECT prorettype::regtype, pg_get_function_result(oid) FROM pg_proc
  WHERE proname IN ('dr_sql', 'dr_pl', 'dr_null') ORDER BY proname;
CREATE TYPE dr_comp AS (r float8, i float8);
CREATE DOMAIN dr_dcomp AS dr_comp CHECK ((VALUE).r <= (VALUE).i);
CREATE FUNCTION dr_make(r float8, i float8) RETURNS dr_dcomp AS 'SELECT row(r, i)' LANGUAGE sql;
SELECT dr_make(1, 2);
SELECT dr_make(2, 1);
DROP FUNCTION dr_make(float8, float8);
DROP TYPE dr_comp;
DROP TYPE dr_comp CASCADE;
SELECT count(*) FROM pg_type WHERE typname IN ('dr_comp', 'dr_dcomp');
CREATE TYPE dr_comp2 AS (a int);
CREATE DOMAIN dr_d2 AS dr_comp2;
CREATE DOMAIN dr_d3 AS dr_d2;
CREATE TABLE dr_t (x dr_d3);
DROP TYPE dr_comp2 CASCADE;
SELECT count(*) FROM pg_type WHERE typname IN ('dr_comp2', 'dr_d2', 'dr_d3');
\d dr_t
DROP FUNCTION dr_sql(int);
DROP FUNCTION dr_pl(int);
DROP FUNCTION dr_null();
DROP DOMAIN dr_pos;
DROP DOMAIN dr_nn;
DROP TABLE dr_t;
