-- bit(n) and bit varying(n): input, length checks, casts, operators,
-- functions, ordering, indexes and the bitwise aggregates.
\set VERBOSITY verbose
SELECT B'0101', X'1F', B'', X'', '0101'::bit(4), 'x1f'::varbit, pg_typeof(B'1');
SELECT '102'::varbit;
SELECT 'x1g'::bit(8);
SELECT B'2';
SELECT '1'::bit(0);
SELECT '1'::varbit(0);
SELECT '1'::bit(100000000);
-- explicit casts pad and truncate; assignment does not
SELECT B'10'::bit(4), B'10101'::bit(4), B'10101'::varbit(3), '101'::bit(4),
  '101'::bit, B'1010'::bit varying, CAST(B'11' AS bit varying(1));
CREATE TABLE bt (id int4, b bit(4), v bit varying(6), d bit, w varbit);
INSERT INTO bt VALUES (1, B'1010', B'101', B'1', B'');
INSERT INTO bt VALUES (2, '0110', '111111', '0', '1');
INSERT INTO bt VALUES (3, X'F', X'3', B'1', X'ABCD');
INSERT INTO bt VALUES (4, B'0000', B'0', NULL, NULL);
INSERT INTO bt VALUES (5, NULL, NULL, B'0', B'10');
INSERT INTO bt VALUES (9, B'10', NULL, NULL, NULL);
INSERT INTO bt VALUES (9, B'10101', NULL, NULL, NULL);
INSERT INTO bt VALUES (9, NULL, B'1010101', NULL, NULL);
INSERT INTO bt VALUES (9, NULL, NULL, B'11', NULL);
INSERT INTO bt (id, b) VALUES (9, B'10'::bit(4));
SELECT * FROM bt ORDER BY id;
UPDATE bt SET b = B'111' WHERE id = 1;
UPDATE bt SET v = v || B'1' WHERE id = 1;
SELECT id, b, v FROM bt WHERE id = 1;
-- format_type, \d and pg_type
SELECT format_type(1560, 4), format_type(1562, 4), format_type(1560, -1),
  format_type(1562, -1), format_type(1561, 3), format_type(1563, -1);
SELECT oid, typname, typlen, typcategory, typispreferred, typarray
  FROM pg_type WHERE oid IN (1560, 1562) ORDER BY oid;
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
  WHERE attrelid = 'bt'::regclass AND attnum > 0 ORDER BY attnum;
\d bt
SELECT column_name, data_type, character_maximum_length, udt_name
  FROM information_schema.columns WHERE table_name = 'bt' ORDER BY ordinal_position;
CREATE TABLE bt_as AS SELECT B'10' AS x, B'1'::varbit(4) AS y, B'1' || B'1' AS z, '101'::"bit" AS q;
\d bt_as
SELECT * FROM bt_as;
DROP TABLE bt_as;
-- comparison and ordering
SELECT B'101' = '101', B'101' < B'1011', B'101' = B'1010', B'101' = B'101'::varbit,
  B'01' < B'1', B'10' < B'100', B'1' <> B'0', B'110' >= B'11', B'0' <= B'';
SELECT id, v FROM bt ORDER BY v, id;
SELECT id, v FROM bt ORDER BY v DESC NULLS LAST, id;
SELECT DISTINCT d FROM bt ORDER BY d;
SELECT d, count(*) FROM bt GROUP BY d ORDER BY d;
SELECT min(v) FROM bt;
CREATE INDEX bt_v ON bt (v);
SELECT id FROM bt WHERE v = B'111111';
SELECT id FROM bt WHERE v > B'1' ORDER BY v;
SELECT a.id, b.id FROM bt a JOIN bt b ON a.d = b.d ORDER BY 1, 2;
SELECT a.id, b.id FROM bt a JOIN bt b ON a.w = b.d ORDER BY 1, 2;
SELECT v FROM bt UNION SELECT w FROM bt ORDER BY 1;
SELECT id, CASE WHEN id > 2 THEN b ELSE v END AS bv FROM bt ORDER BY id;
CREATE TABLE bt_hash (b bit(3)) PARTITION BY HASH (b);
CREATE TABLE bt_range (v varbit) PARTITION BY RANGE (v);
CREATE TABLE bt_range_1 PARTITION OF bt_range FOR VALUES FROM (B'0') TO (B'1');
INSERT INTO bt_range VALUES (B'01'), (B'0');
INSERT INTO bt_range VALUES (B'1');
SELECT * FROM bt_range ORDER BY v;
DROP TABLE bt_range;
CREATE UNIQUE INDEX bt_b ON bt (b);
INSERT INTO bt (id, b) VALUES (6, B'0110');
-- operators
SELECT B'1100' & B'1010', B'1100' | B'1010', B'1100' # B'1010', ~B'1100', ~B'',
  B'1101' << 1, B'1101' >> 1, B'1101' << -1, B'1101' >> 10, B'1101' << 0;
SELECT B'01' || B'1', B'1' || '0', '0'::text || B'1', pg_typeof(B'01' || B'1'),
  pg_typeof(B'1100' & B'1010'), pg_typeof(B'1100'::varbit & B'1010'),
  pg_typeof(~B'1'::varbit), pg_typeof(B'1'::bit(1) << 1);
SELECT B'101' & B'10';
SELECT B'0111' | B'011';
SELECT B'0010' # B'011101';
SELECT B'1' + B'1';
SELECT B'1' LIKE '1';
SELECT B'10' << 1::int8;
SELECT B'1' = 'a'::text;
-- functions
SELECT length(B'0101'), bit_length(B'0101'::varbit), octet_length(B'0101010101'),
  length(B''), octet_length(B'');
SELECT position(B'1010' IN B'00001010'), position(B'' IN B'0'), position(B'0' IN B''),
  position(B'11' IN B'0101');
SELECT substring(B'0101' FROM 2), substring(B'0101' FROM 2 FOR 2),
  substring(B'01010101'::bit(8) FROM -10 FOR 2147483646), substring(B'0101', 2, 1),
  substring(B'0101' FROM 5);
SELECT substring(B'0101' FROM 1 FOR -1);
SELECT overlay(B'0101011100' PLACING '001' FROM 2 FOR 3),
  overlay(B'0101011100' PLACING '101' FROM 6), overlay(B'0101' PLACING B'11' FROM 20);
SELECT get_bit(B'0101011000100', 10), set_bit(B'0101011000100100', 15, 1),
  bit_count(B'0101011100'::bit(10)), bit_count(B''), pg_typeof(bit_count(B'1'));
SELECT set_bit(B'0101011000100100', 16, 1);
SELECT get_bit(B'0101', -1);
SELECT set_bit(B'0101', 0, 2);
-- casts to and from integers and text
SELECT 5::bit(8), (-1)::bit(4), 300::bit(4), (-2)::bit(40), 7::int8::bit(3), 1::bit;
SELECT B'1111'::int4, X'FF'::int8, B'10000000000000000000000000000001'::int4,
  B''::int4, X'FFFFFFFFFFFFFFFF'::int8;
SELECT B'111111111111111111111111111111111'::int4;
SELECT X'FFFFFFFFFFFFFFFFF'::int8;
SELECT B'101'::text, '101'::text::bit(3), B'1'::varbit::bit, B'10'::varbit::bit(1),
  B'1'::bit(3)::varbit(2), B'11'::varchar;
SELECT 5::int2::bit(4);
SELECT B'1'::bool;
-- binary form
SELECT bit_send(B'101'), varbit_send(X'F0F'), bit_send(B'');
-- arrays
SELECT ARRAY[B'1', B'01'], '{101,0}'::bit(3)[], ARRAY[B'1']::varbit[], pg_typeof(ARRAY[B'1']);
SELECT '{1,011}'::bit(2)[];
CREATE TABLE bta (a bit(2)[]);
INSERT INTO bta VALUES ('{01,10}'), (ARRAY[B'11']);
SELECT a, a[1] AS first FROM bta ORDER BY a;
\d bta
-- aggregates
SELECT bit_and(v), bit_or(v), bit_xor(v) FROM (VALUES (B'1100'), (NULL), (B'1010')) s(v);
SELECT bit_and(v) FROM (VALUES (B'1100'), (B'101')) s(v);
SELECT bit_and(i), bit_or(i), bit_xor(i), bit_and(j), bit_or(j), bit_xor(j),
  bit_and(k), bit_or(k), bit_xor(k)
  FROM (VALUES (1::int2, 3, 5::int8), (3::int2, 6, 3::int8), (NULL, 7, NULL)) s(i, j, k);
SELECT pg_typeof(bit_and(1::int2)), pg_typeof(bit_xor(1::int8)), pg_typeof(bit_or(B'1'::bit(1))),
  pg_typeof(bit_or(B'1'::varbit)), bit_and(x) FROM (VALUES (1)) s(x) WHERE false;
SELECT bit_and(d::varbit) FILTER (WHERE id < 4), bit_or(w) FROM bt;
SELECT bit_and('1');
-- COPY text form
COPY (SELECT id, b, v FROM bt ORDER BY id) TO stdout;
COPY bt (id, b, v) FROM stdin;
7	X3	b01
8	0001	\N
\.
COPY bt (id, b) FROM stdin;
10	01
\.
SELECT id, b, v FROM bt WHERE id > 6 ORDER BY id;
DROP TABLE bt;
DROP TABLE bta;
