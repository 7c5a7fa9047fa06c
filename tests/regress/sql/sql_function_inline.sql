-- Simple SQL functions (a body of one SELECT expression) are inlined as
-- PostgreSQL's planner does: EXPLAIN shows the expression, an index on
-- the call serves it, the answers are the call's.
CREATE TABLE si (a int, b text);
INSERT INTO si SELECT g, 'b' || g FROM generate_series(1, 50) g;
INSERT INTO si VALUES (NULL, NULL);
CREATE FUNCTION si_add(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 + 1';
CREATE FUNCTION si_sq(x int) RETURNS int LANGUAGE sql IMMUTABLE STRICT AS 'SELECT x * x';
CREATE FUNCTION si_coalesce(int) RETURNS int LANGUAGE sql STRICT AS 'SELECT coalesce($1, -1)';
CREATE FUNCTION si_nonstrict(int) RETURNS int LANGUAGE sql AS 'SELECT coalesce($1, -1)';
CREATE FUNCTION si_twice(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 + $1';
CREATE FUNCTION si_def(a int, b int DEFAULT 10) RETURNS int LANGUAGE sql AS 'SELECT a * b';
CREATE FUNCTION si_nested(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT si_add(si_add($1))';
CREATE FUNCTION si_text(text) RETURNS text LANGUAGE sql IMMUTABLE AS 'SELECT upper($1) || ''!''';
EXPLAIN (COSTS OFF) SELECT si_add(a) FROM si WHERE si_add(a) = 5;
EXPLAIN (COSTS OFF) SELECT * FROM si WHERE si_nested(a) > 40;
SELECT si_add(a), si_sq(a), si_twice(a), si_def(a), si_def(a, 2), si_nested(a), si_text(b)
  FROM si WHERE a IS NULL OR a <= 3 ORDER BY a;
SELECT si_coalesce(NULL), si_nonstrict(NULL), si_sq(NULL), si_coalesce(a) FROM si WHERE a IS NULL;
SELECT si_twice((SELECT max(a) FROM si)), si_twice(a + 1) FROM si WHERE a = 2;
SELECT sum(si_add(a)) FROM si;
-- an index on a call
CREATE INDEX si_add_idx ON si (si_add(a));
SELECT pg_get_indexdef('si_add_idx'::regclass);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT a FROM si WHERE si_add(a) = 5;
SELECT a FROM si WHERE si_add(a) = 5;
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP FUNCTION si_add(int);
-- not inlined: a volatile body, a set-returning body, more than a SELECT
CREATE SEQUENCE si_seq;
CREATE FUNCTION si_next(int) RETURNS bigint LANGUAGE sql AS 'SELECT nextval(''si_seq'') + $1';
SELECT si_next(a) FROM si WHERE a <= 2 ORDER BY a;
CREATE FUNCTION si_rows(int) RETURNS SETOF int LANGUAGE sql AS 'SELECT g FROM generate_series(1, $1) g';
SELECT si_rows(3);
CREATE FUNCTION si_where(int) RETURNS int LANGUAGE sql AS 'SELECT a FROM si WHERE a = $1';
SELECT si_where(7);
-- An index on a call of a function that inlines to its argument is still
-- an expression index (its definition, and DROP FUNCTION's dependency);
-- arithmetic on constants is stored as written.
CREATE FUNCTION inl_same(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1';
CREATE TABLE inl_ix (a int);
CREATE INDEX inl_ix_1 ON inl_ix (inl_same(a));
CREATE INDEX inl_ix_2 ON inl_ix ((inl_same(a) + 1));
CREATE INDEX inl_ix_3 ON inl_ix ((a + (1 + 2))) WHERE a > 2 * 3;
SELECT pg_get_indexdef(oid) FROM pg_class WHERE relname LIKE 'inl_ix_%' ORDER BY relname;
INSERT INTO inl_ix SELECT generate_series(1, 100);
SELECT a FROM inl_ix WHERE inl_same(a) = 5;
SELECT a FROM inl_ix WHERE a + (1 + 2) = 12;
DROP FUNCTION inl_same(int);
DROP TABLE inl_ix;
DROP FUNCTION inl_same(int);
