-- Records from set-returning functions with OUT columns, field selection,
-- pg_prepared_statements, and the built-in functions pg_proc lists (what
-- pgjdbc's and psycopg2's metadata queries need).
\set VERBOSITY verbose

-- information_schema._pg_expandarray: a record (x, n) per element
SELECT information_schema._pg_expandarray(ARRAY[10, 20, 30]);
SELECT (information_schema._pg_expandarray(ARRAY['a', 'b c'])).x,
       (information_schema._pg_expandarray(ARRAY['a', 'b c'])).n;
SELECT information_schema._pg_expandarray(ARRAY['(x)', '', NULL, 'a"b', 'back\slash']);
SELECT information_schema._pg_expandarray('{}'::int[]);
SELECT information_schema._pg_expandarray(NULL::int[]);
SELECT information_schema._pg_expandarray('[0:1]={7,8}'::int[]);
-- in step with another set-returning function, the shorter padded with NULL
SELECT information_schema._pg_expandarray(ARRAY[1, NULL]), generate_series(1, 3);
-- a record column of a subquery, its fields selected outside
SELECT r.k, (r.k).x, (r.k).n * 10 AS n10
FROM (SELECT information_schema._pg_expandarray(ARRAY[7, 8, 9]) AS k) r
WHERE (r.k).x > 7
ORDER BY (r.k).n DESC;
-- over int2vector, whose subscripts start at 0
CREATE TABLE rec_t (a int PRIMARY KEY, b text, c int, UNIQUE (c, b));
SELECT ci.relname, i.indkey, information_schema._pg_expandarray(i.indkey) AS k,
       (information_schema._pg_expandarray(i.indkey)).n
FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_class ci ON ci.oid = i.indexrelid
WHERE c.relname = 'rec_t' ORDER BY 1, 4;
-- pgjdbc's getPrimaryKeys
SELECT result.TABLE_SCHEM, result.TABLE_NAME, result.COLUMN_NAME, result.KEY_SEQ, result.PK_NAME
FROM (SELECT n.nspname AS TABLE_SCHEM, ct.relname AS TABLE_NAME, a.attname AS COLUMN_NAME,
        (information_schema._pg_expandarray(con.conkey)).n AS KEY_SEQ, con.conname AS PK_NAME,
        information_schema._pg_expandarray(con.conkey) AS KEYS, a.attnum AS A_ATTNUM
      FROM pg_catalog.pg_constraint con
        JOIN pg_catalog.pg_class ct ON (con.conrelid = ct.oid)
        JOIN pg_catalog.pg_namespace n ON (ct.relnamespace = n.oid)
        JOIN pg_catalog.pg_attribute a ON (a.attrelid = ct.oid)
      WHERE con.contype IN ('p', 'u') AND n.nspname = 'public' AND ct.relname = 'rec_t') result
WHERE result.A_ATTNUM = (result.KEYS).x
ORDER BY result.table_name, result.pk_name, result.key_seq;
DROP TABLE rec_t;
-- errors
SELECT (information_schema._pg_expandarray(ARRAY[1])).y;
SELECT (1).y;
SELECT information_schema._pg_expandarray(1);
SELECT 1 WHERE information_schema._pg_expandarray(ARRAY[1]) IS NULL;
SELECT 1 WHERE generate_series(1, 2) = 1;

-- pg_prepared_statements: the session's own named statements
PREPARE rec_p1 (int, varchar, text[]) AS SELECT $1 + 1, $2, $3;
PREPARE rec_p2 AS SELECT 1;
EXECUTE rec_p2;
SELECT name, statement, parameter_types, from_sql, generic_plans, custom_plans,
       pg_typeof(parameter_types), prepare_time <= now() AS past
FROM pg_prepared_statements ORDER BY name;
SELECT parameter_types::text, parameter_types[2] FROM pg_prepared_statements WHERE name = 'rec_p1';
DEALLOCATE rec_p1;
SELECT name FROM pg_prepared_statements;
DEALLOCATE ALL;
SELECT count(*) FROM pg_prepared_statements;

-- the types' I/O functions in pg_proc, named by pg_type
SELECT 'array_in'::regproc, 'pg_catalog.array_in'::regproc::oid, 'int4in'::regproc = 42 AS int4in,
       to_regproc('textout'), to_regproc('no_such_function');
SELECT oid, proname, pronargs, proargtypes::regtype[], prorettype::regtype, provolatile,
       prolang, proisstrict, proretset
FROM pg_proc WHERE proname IN ('array_in', 'int4in', 'textout', 'numeric_recv', 'uuid_send')
ORDER BY oid;
SELECT typname, typinput, typoutput, typreceive, typsend
FROM pg_type WHERE typname IN ('int4', '_text', 'numeric', 'varchar', 'uuid', 'regtype', '_regtype', 'record', 'cstring')
ORDER BY typname;
-- pgjdbc's getTypeInfo tells arrays this way
SELECT typname, typinput = 'pg_catalog.array_in'::regproc AS is_array
FROM pg_catalog.pg_type WHERE typname IN ('_int4', 'int4', '_uuid', 'jsonb') ORDER BY typname;
SELECT count(*) FROM pg_type t WHERE typinput <> 0 AND NOT EXISTS (SELECT 1 FROM pg_proc p WHERE p.oid = t.typinput);
