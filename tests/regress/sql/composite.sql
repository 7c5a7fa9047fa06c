-- Composite types: CREATE / ALTER / DROP TYPE ... AS (...), columns and
-- casts of them, record_in / record_out quoting, comparisons, ORDER BY,
-- IS NULL, nesting, the catalog rows and psql's \dT / \d, and
-- json_populate_record and friends.
\set VERBOSITY verbose
CREATE TYPE pair AS (a int, b text);
CREATE TYPE pair AS (z int);
CREATE TYPE dup AS (a int, a text);
CREATE TYPE nosuch_attr AS (a nosuch);
CREATE TABLE t (id int PRIMARY KEY, x pair);
INSERT INTO t VALUES (1, ROW(1, 'a')), (2, '(2,"b c")'), (3, NULL),
  (4, ROW(NULL, NULL)), (5, '(5,)'), (6, ROW(6, 'q"uo\te')),
  (7, ROW(7, '')), (8, ROW(-1, 'z,(y)'));
SELECT id, x FROM t ORDER BY id;
SELECT id, (x).a, (x).b FROM t ORDER BY id;
SELECT (x).* FROM t WHERE id IN (1, 2) ORDER BY id;
SELECT t.x FROM t WHERE (x).a > 5 ORDER BY 1;
-- IS NULL: a NULL row or one whose fields are all NULL
SELECT id, x IS NULL AS isnull, x IS NOT NULL AS notnull FROM t ORDER BY id;
-- comparisons and ordering
SELECT id FROM t WHERE x = ROW(1, 'a');
SELECT id FROM t WHERE x = ROW(1, 'a'::text);
SELECT id FROM t WHERE x = '(2,"b c")';
SELECT id FROM t WHERE x = '(2,"b c")'::pair;
SELECT id FROM t WHERE x <> ROW(1, 'a'::text) ORDER BY id;
SELECT id FROM t WHERE x = ROW(1, 'a'::text, 3);
SELECT id FROM t WHERE x = ROW(1::int8, 'a'::text);
SELECT id, x FROM t ORDER BY x, id;
SELECT id, x FROM t ORDER BY x DESC NULLS LAST, id;
SELECT '(1,a)'::pair < '(1,b)'::pair AS lt, '(1,a)'::pair = ROW(1, 'a')::pair AS eq;
-- composite values of different types compare as records
CREATE TYPE ipair AS (a int, b int);
CREATE TYPE ipair2 AS (a int, b int);
CREATE TYPE ione AS (a int);
SELECT ROW(1, 2)::ipair < ROW(1, 3)::ipair2 AS lt, ROW(1, 2)::ipair = ROW(1, 2)::ipair2 AS eq;
SELECT ROW(1, 2)::ipair < ROW(1, 'x')::pair;
SELECT ROW(1, 2)::ipair = ROW(1)::ione;
-- record_in: quoting, escapes, white space, NULL fields
SELECT '(1,"")'::pair, '(1,)'::pair, '( 1 , a )'::pair AS spaces;
SELECT ('(1,"a""b")'::pair).b, ('(1,a\\b)'::pair).b, ('(1,"x\"y")'::pair).b;
SELECT ' (3,c) '::pair;
SELECT '(1,a'::pair;
SELECT '1,a)'::pair;
SELECT '(1)'::pair;
SELECT '(1,a,b)'::pair;
SELECT '(1,a) x'::pair;
SELECT '(x,a)'::pair;
SELECT '(1,"a'::pair;
SELECT '(1,a)'::record;
-- casts
SELECT ROW(8, 9)::pair, ROW(8, 9)::pair::text;
SELECT ROW(1, 2, 3)::pair;
SELECT ROW(1)::pair;
SELECT pg_typeof(x) FROM t WHERE id = 1;
SELECT x::text FROM t WHERE id = 6;
-- arrays of a composite type
CREATE TABLE arr (a pair[]);
INSERT INTO arr VALUES (ARRAY[ROW(1, 'x'), ROW(2, 'y z')]::pair[]), ('{"(3,)",NULL}');
SELECT a, (a[1]).b, array_length(a, 1) FROM arr ORDER BY 1;
SELECT '{"(1,a)","(2,\"b c\")"}'::pair[];
DROP TABLE arr;
-- nested composite types
CREATE TYPE outer_t AS (p pair, n numeric(4,1));
SELECT '("(1,x)",2.25)'::outer_t;
SELECT (('("(1,x)",2)'::outer_t).p).b;
SELECT ROW(ROW(3, 'y z'), 1.04)::outer_t;
-- a table's row type in casts
CREATE TABLE person (first text, last text);
SELECT '(Joe,"von Blow")'::person, ROW('a', 'b')::person, pg_typeof('(x,y)'::person);
SELECT ('(Joe,Blow)'::person).last, '(Joe,d''Blow)'::person;
SELECT '(Joe)'::person;
CREATE TABLE people (fn person, bd date);
INSERT INTO people VALUES ('(Joe,Blow)', '1984-01-10'), (ROW('Ann', NULL), NULL);
SELECT * FROM people ORDER BY fn;
SELECT (fn).last, fn FROM people WHERE fn = ROW('Joe', 'Blow')::person;
DROP TABLE person;
DROP TABLE people;
-- functions with composite arguments and results
CREATE FUNCTION pa(p pair) RETURNS int LANGUAGE sql AS 'SELECT (p).a * 10';
SELECT id, pa(x) FROM t WHERE id < 3 ORDER BY id;
CREATE FUNCTION mk(i int) RETURNS pair LANGUAGE sql AS 'SELECT ROW(i, i::text)::pair';
SELECT mk(4), (mk(5)).b;
-- UPDATE of a composite column and of one of its fields
UPDATE t SET x = ROW(10, 'ten') WHERE id = 1;
UPDATE t SET x.b = 'TEN' WHERE id = 1;
UPDATE t SET x.a = 33 WHERE id = 3;
UPDATE t SET x.nosuch = 1 WHERE id = 3;
UPDATE t SET id.a = 1 WHERE id = 3;
SELECT id, x FROM t WHERE id IN (1, 3) ORDER BY id;
-- catalog rows
SELECT t.typtype, t.typcategory, c.relkind, c.relnatts, a.typname AS arr
FROM pg_type t JOIN pg_class c ON c.oid = t.typrelid
JOIN pg_type a ON a.oid = t.typarray WHERE t.typname = 'pair';
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
WHERE attrelid = (SELECT typrelid FROM pg_type WHERE typname = 'outer_t') ORDER BY attnum;
COMMENT ON TYPE pair IS 'two things';
\dT
\d pair
\d t
-- ALTER TYPE and DROP TYPE
CREATE TYPE loose AS (a int);
ALTER TYPE loose ADD ATTRIBUTE b date;
ALTER TYPE loose RENAME ATTRIBUTE b TO c;
SELECT '(1,2024-01-02)'::loose;
ALTER TYPE loose DROP ATTRIBUTE c;
ALTER TYPE loose DROP ATTRIBUTE nosuch;
ALTER TYPE loose DROP ATTRIBUTE IF EXISTS nosuch;
ALTER TYPE loose ADD ATTRIBUTE a text;
ALTER TYPE pair ALTER ATTRIBUTE b TYPE varchar(3);
DROP TYPE pair;
DROP TYPE loose, nosuch;
DROP TYPE IF EXISTS nosuch;
BEGIN;
DROP TYPE loose;
ROLLBACK;
ALTER TYPE loose RENAME TO looser;
SELECT '(3)'::looser;
DROP TYPE looser;
SELECT '(3)'::looser;
-- json_populate_record and friends
CREATE TYPE jpop AS (a text, b int, c timestamp);
SELECT * FROM json_populate_record(null::jpop, '{"a":"blurfl","x":43.2}') q;
SELECT * FROM json_populate_record(row('x',3,'2012-12-31 15:30:56')::jpop, '{"a":"blurfl","x":43.2}') q;
SELECT * FROM jsonb_populate_record(row('x',3,'2012-12-31 15:30:56')::jpop, '{"a":"blurfl","x":43.2}') q;
SELECT * FROM json_populate_record(null::jpop, '{"a":[100,200,false],"x":43.2}') q;
SELECT * FROM jsonb_populate_record(null::jpop, '{"a":{"z":1},"b":"7","c":null}') q;
SELECT json_populate_record(null::jpop, '{"a":"x","b":2}');
SELECT (jsonb_populate_record(null::jpop, '{"a":"x","b":2}')).b;
SELECT * FROM json_populate_record(null::jpop, '{"b":"x"}') q;
SELECT * FROM json_populate_record(null::jpop, '[1]') q;
SELECT * FROM jsonb_populate_record(null::jpop, '3') q;
SELECT * FROM json_populate_recordset(null::jpop, '[{"a":1,"b":2},{"a":"x","c":"2012-01-20 10:42:53"}]') q;
SELECT * FROM jsonb_populate_recordset(row('def',99,null)::jpop, '[{"a":1,"b":2},{"c":"2012-01-20 10:42:53"}]') q;
SELECT json_populate_recordset(null::jpop, '[{"a":1},{"b":2}]');
SELECT * FROM json_populate_recordset(null::jpop, '{"a":1}') q;
SELECT * FROM jsonb_populate_recordset(null::jpop, '{"a":1}') q;
SELECT * FROM json_populate_recordset(null::jpop, '[1]') q;
SELECT * FROM json_to_record('{"a":1,"b":"foo","c":"bar"}') AS x(a int, b text, d text);
SELECT * FROM jsonb_to_record('{"a":[1,2],"b":{"k":"v"}}') AS x(a int[], b jsonb, c json);
SELECT * FROM json_to_recordset('[{"a":1,"b":"foo"},{"a":2,"c":"bar"}]') AS x(a int, b text);
SELECT * FROM jsonb_to_recordset('[{"a":[[1,2],[3,4]]}]') AS x(a int[]);
SELECT * FROM json_to_record('{"a":1}');
CREATE TYPE jnest AS (p pair, q int);
SELECT * FROM json_populate_record(null::jnest, '{"p":{"a":5,"b":"five"},"q":1}');
SELECT * FROM jsonb_populate_record(null::jnest, '{"p":"(6,six)"}');
SELECT * FROM json_populate_record(null::jnest, '{"p":[1]}');
SELECT row_to_json(ROW(1, 'x')::pair), to_json(ROW(2, 'y')::pair), to_jsonb(ROW(3, NULL)::pair);
SELECT to_jsonb(q) FROM json_populate_record(null::jnest, '{"p":{"a":5}}') q;
SELECT to_jsonb(r), to_json(NULL::int) IS NULL AS strict FROM json_populate_record(null::jnest, '{"p":{"a":5}}') r;
-- json_agg / jsonb_agg of rows
CREATE TABLE jrows AS SELECT x, 'txt' || x AS y FROM generate_series(1, 3) x;
SELECT json_agg(q ORDER BY x, y) FROM jrows q;
SELECT jsonb_agg(q ORDER BY x) FROM jrows q;
SELECT json_agg(x), json_agg(NULL::int) FROM jrows;
-- anonymous records as the base of a populate function
SELECT json_populate_record(row(1, 2), '{"f1": 0}');
SELECT * FROM json_populate_record(row(1, 2), '{}');
SELECT * FROM json_populate_record(null::record, '{"x": 776}') AS (x int, y int);
SELECT * FROM json_populate_recordset(row(1, 2), '[{"f1": 5}]') AS (f1 int, f2 int);
SELECT * FROM json_populate_recordset(row(0::int, 0::int), '[{"a": "1"}]') q (a text, b text);
SELECT json_populate_recordset(null::record, '[]');
