--
-- COPY ... (FORMAT binary): round trips through files written by psql's
-- \copy (psql runs in tests/regress, so data/ is the committed fixtures),
-- a file PostgreSQL 15 wrote, and PostgreSQL's errors for bad input.
--
\set QUIET off
\set VERBOSITY verbose
\set cbcols 'id int4, i2 int2, i8 int8, f4 float4, f8 float8, n numeric, n2 numeric(10, 3), t text, vc varchar(10), ch char(3), b bool, by bytea, d date, ts timestamp, tstz timestamptz, iv interval, u uuid, j json, jb jsonb, ia int4[], ta text[]'
CREATE TABLE cb (:cbcols, PRIMARY KEY (id));
INSERT INTO cb VALUES
    (1, 1, 10000000000, 1.5, 3.25, 123.456, 7.5,
     'hello', 'var', 'ab', true, '\x00ff10',
     '2024-02-29', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05+02', '1 year 2 mons 3 days 04:05:06.7',
     'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
     '{"a": [1, 2]}', '{"b": {"c": null}, "a": 1}', '{1,NULL,3}', '{"x y",NULL,""}'),
    (2, -32768, -9223372036854775808, 'NaN', '-Infinity', -0.000001, -12345.678,
     E'tab\there\nnewline ünï', '', '', false, '\x',
     '-infinity', 'infinity', '1999-12-31 23:59:59.999999+00', '-1 days -00:00:01',
     '00000000-0000-0000-0000-000000000000',
     '[]', '[1, "two", false]', '{}', '{{a,b},{c,d}}'),
    (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
     NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    (4, 32767, 0, 1e-30, 1e300, 100000000000000000000.5, 0,
     repeat('long ', 200), 'ten chars!', 'xyz', true, ('\x' || repeat('ab', 300))::bytea,
     '0001-01-01', '4713-01-01 00:00:00 BC', '2000-01-01 00:00:00+00', '0 seconds',
     'ffffffff-ffff-ffff-ffff-ffffffffffff',
     '  {"spaces" :  1 }  ', '"just a string"', '{-2147483648,2147483647}', '{NULL}');
-- round trip: out to a file, back into an empty copy of the table
\copy cb to '/tmp/nestor_regress_copy_binary_rt.bin' with (format binary)
CREATE TABLE cb2 (:cbcols);
\copy cb2 from '/tmp/nestor_regress_copy_binary_rt.bin' with (format binary)
SELECT count(*) FROM cb2;
SELECT id, i2, i8, f4, f8, n, n2, vc, ch, b, substr(by, 1, 3) AS by3, length(by), d, ts, tstz, iv, u
    FROM cb2 ORDER BY id;
SELECT id, length(t), md5(t), j, jb, ia, ta FROM cb2 ORDER BY id;
SELECT count(*) AS differing FROM (
    (SELECT id, i2, i8, f4, f8, n, n2, t, vc, ch, b, by, d, ts, tstz, iv, u, j::text, jb, ia, ta FROM cb
     EXCEPT
     SELECT id, i2, i8, f4, f8, n, n2, t, vc, ch, b, by, d, ts, tstz, iv, u, j::text, jb, ia, ta FROM cb2)
    UNION ALL
    (SELECT id, i2, i8, f4, f8, n, n2, t, vc, ch, b, by, d, ts, tstz, iv, u, j::text, jb, ia, ta FROM cb2
     EXCEPT
     SELECT id, i2, i8, f4, f8, n, n2, t, vc, ch, b, by, d, ts, tstz, iv, u, j::text, jb, ia, ta FROM cb)) x;
-- a file PostgreSQL 15 wrote from the same rows (ordered by id) loads ...
CREATE TABLE cb_pg (:cbcols);
\copy cb_pg from 'data/copy_binary_pg15.bin' with (format binary)
SELECT count(*) AS differing FROM (
    SELECT id, i2, i8, f4, f8, n, n2, t, vc, ch, b, by, d, ts, tstz, iv, u, j::text, jb, ia, ta FROM cb
    EXCEPT
    SELECT id, i2, i8, f4, f8, n, n2, t, vc, ch, b, by, d, ts, tstz, iv, u, j::text, jb, ia, ta FROM cb_pg) x;
-- ... and this server writes the same bytes
\copy (SELECT * FROM cb ORDER BY id) to '/tmp/nestor_regress_copy_binary_out.bin' with (format binary)
\set cmp `cmp -s data/copy_binary_pg15.bin /tmp/nestor_regress_copy_binary_out.bin && echo identical || echo different`
\echo :cmp
-- old syntax, a column list, a query, an empty result
\copy cb (id, t, ia) to '/tmp/nestor_regress_copy_binary_cols.bin' with binary
CREATE TABLE cb3 (id int4, t text, ia int4[], extra text DEFAULT 'default');
\copy cb3 (id, t, ia) from '/tmp/nestor_regress_copy_binary_cols.bin' binary
SELECT id, md5(t), ia, extra FROM cb3 ORDER BY id;
\copy (SELECT id * 10, ta FROM cb WHERE id < 3) to '/tmp/nestor_regress_copy_binary_q.bin' (format binary)
CREATE TABLE cb4 (a int4, b text[]);
\copy cb4 from '/tmp/nestor_regress_copy_binary_q.bin' (format binary)
SELECT * FROM cb4 ORDER BY a;
-- a header extension is skipped, low flag bits are ignored
\copy cb4 from 'data/copy_binary_extension.bin' (format binary)
SELECT * FROM cb4 ORDER BY a;
\copy (SELECT 1 WHERE false) to '/tmp/nestor_regress_copy_binary_empty.bin' (format binary)
\copy cb4 (a) from '/tmp/nestor_regress_copy_binary_empty.bin' (format binary)
\set cmp `od -A d -t x1 /tmp/nestor_regress_copy_binary_empty.bin`
\echo :cmp
-- options binary mode rejects
COPY cb TO STDOUT (FORMAT binary, DELIMITER ',');
COPY cb TO STDOUT (FORMAT binary, NULL 'x');
COPY cb TO STDOUT (FORMAT binary, HEADER);
COPY cb TO STDOUT (FORMAT binary, QUOTE '"');
COPY cb TO STDOUT (FORMAT binary, FORMAT csv);
COPY cb TO STDOUT WITH BINARY CSV;
COPY cb FROM STDIN WITH BINARY DELIMITER ',';
COPY cb TO STDOUT (ESCAPE 'x');
-- bad input: each error rolls the whole COPY back
\copy (SELECT 'not a binary file') to '/tmp/nestor_regress_copy_binary_text.txt'
\copy cb4 from '/tmp/nestor_regress_copy_binary_text.txt' (format binary)
\copy cb4 (a) from '/tmp/nestor_regress_copy_binary_q.bin' (format binary)
\copy cb3 from '/tmp/nestor_regress_copy_binary_q.bin' (format binary)
\copy cb4 from 'data/copy_binary_truncated.bin' (format binary)
\copy cb4 from 'data/copy_binary_after_trailer.bin' (format binary)
\copy cb4 from 'data/copy_binary_oids.bin' (format binary)
\copy cb4 from 'data/copy_binary_short_header.bin' (format binary)
-- field data that does not fit the column's type
CREATE TABLE cb5 (a int8, b text[]);
\copy cb5 from '/tmp/nestor_regress_copy_binary_q.bin' (format binary)
CREATE TABLE cb6 (a int2, b text[]);
\copy cb6 from '/tmp/nestor_regress_copy_binary_q.bin' (format binary)
CREATE TABLE cb7 (a int4, b int4[]);
\copy cb7 from '/tmp/nestor_regress_copy_binary_q.bin' (format binary)
CREATE TABLE cb8 (a int4, b varchar(1)[]);
\copy cb8 from '/tmp/nestor_regress_copy_binary_q.bin' (format binary)
-- typmods apply as the field is read (the error names the column)
CREATE TABLE cb9 (a int4, vc varchar(2), n numeric(3, 1));
\copy (SELECT 1, 'hello'::text, 1.5) to '/tmp/nestor_regress_copy_binary_tm.bin' (format binary)
\copy cb9 from '/tmp/nestor_regress_copy_binary_tm.bin' (format binary)
\copy (SELECT 1, 'hi'::text, 123.45) to '/tmp/nestor_regress_copy_binary_tm.bin' (format binary)
\copy cb9 from '/tmp/nestor_regress_copy_binary_tm.bin' (format binary)
\copy (SELECT 1, 'hi'::text, 12.36) to '/tmp/nestor_regress_copy_binary_tm.bin' (format binary)
\copy cb9 from '/tmp/nestor_regress_copy_binary_tm.bin' (format binary)
SELECT * FROM cb9;
-- a constraint violation names the tuple
\copy cb from '/tmp/nestor_regress_copy_binary_rt.bin' with (format binary)
SELECT count(*) FROM cb4;
SELECT count(*) FROM cb;
