--
-- Types: input and output of each supported type, casts, overflow and
-- invalid input.
--
SET TimeZone = 'UTC';
SET DateStyle = 'ISO, MDY';
-- smallint, integer, bigint
SELECT 32767::smallint AS s, (-32768)::smallint AS s_min, 2147483647 AS i, -2147483648 AS i_min, 9223372036854775807 AS b;
SELECT '  12  '::integer AS padded, '-0'::integer AS neg_zero, '+7'::smallint AS plus;
SELECT 32768::smallint;
SELECT 2147483647 + 1;
SELECT -2147483648 - 1;
SELECT 2147483647::bigint + 1 AS promoted;
SELECT 9223372036854775807 + 1;
SELECT 100000 * 100000;
SELECT (-2147483647 - 1) / -1;
SELECT 'abc'::integer;
SELECT '1.5'::integer;
SELECT ''::integer;
SELECT '99999999999'::integer;
SELECT '9223372036854775808'::bigint;
SELECT 1 / 0;
SELECT 1 % 0;
SELECT 3.7::integer AS up, 3.2::integer AS down, 2.5::integer AS half_up, -2.5::integer AS half_down;
SELECT 2.5::double precision::integer AS even2, 3.5::double precision::integer AS even4, 2.5::real::smallint AS even_s;
-- numeric
SELECT 1.50::numeric AS keeps_scale, 1.5::numeric(5,2) AS scale2, 1.005::numeric(5,2) AS rounded, -1.005::numeric(5,2) AS rounded_neg;
SELECT 123.456::numeric(5,1), 0.00001::numeric, 1e3::numeric, '1e-3'::numeric, '  -12.50 '::numeric;
SELECT 12345678901234567890123456789.123456789::numeric * 10 AS big;
SELECT 10::numeric / 4 AS div, 1::numeric / 3 AS third, 2::numeric / 3 * 3 AS roundtrip, 100::numeric / 7 AS seventh;
SELECT 1.23 * 4.5 AS mul_scale, 10.5 % 3 AS modulo, -7.5 / 2 AS neg;
SELECT 'NaN'::numeric AS nan, 'NaN'::numeric = 'NaN'::numeric AS nan_eq;
SELECT 12345.6::numeric(5,2);
SELECT 'x1'::numeric;
SELECT 1::numeric / 0;
SELECT 0.1 + 0.2 = 0.3 AS exact_decimal;
-- real, double precision
SELECT 0.1::double precision AS d, 0.1::real AS r, 1.0::double precision / 3 AS third, 1e100::double precision AS big;
SELECT 1.5e-10::double precision AS small, 123456789.125::real AS r_rounded, -0.0::double precision AS neg_zero;
SELECT 'NaN'::double precision, 'Infinity'::double precision, '-Infinity'::float8, 'inf'::real;
SELECT 0.1::double precision + 0.2::double precision AS inexact, 0.1::double precision + 0.2::double precision = 0.3 AS inexact_eq;
SELECT 1e308::double precision * 10;
SELECT 1e39::real;
SELECT 'abc'::double precision;
SELECT 1.0::double precision / 0;
-- boolean
SELECT true, false, 't'::boolean, 'yes'::boolean, 'on'::boolean, '1'::boolean, 'f'::boolean, 'NO'::boolean, 'off'::boolean, '0'::boolean;
SELECT ' true '::boolean AS padded, 'TRUE'::boolean AS upper;
SELECT 'maybe'::boolean;
SELECT true > false AS ordered, true::text AS as_text, 1::boolean AS from_int, false::integer AS to_int;
-- text, varchar(n), char(n)
SELECT 'plain'::text, 'it''s'::text AS quoted, E'tab\there' AS escaped, '' AS empty, 'ünïcödé' AS utf8, length('ünïcödé') AS chars;
SELECT 'abcdef'::varchar(3) AS truncated_by_cast, 'ab'::varchar(3) AS short, 'abc'::character varying AS unbounded;
SELECT 'ab'::char(4) AS padded, length('ab'::char(4)) AS len, 'ab'::char(4) = 'ab  '::char(4) AS eq, 'abcdef'::char(3) AS cut;
SELECT 'ab'::char(4) || '|' AS concat_trims, 'x'::character AS one_char;
CREATE TABLE strs (v varchar(3), c char(3));
INSERT INTO strs VALUES ('abc', 'xy');
INSERT INTO strs VALUES ('abcd', 'x');
INSERT INTO strs VALUES ('abc   ', 'x');
INSERT INTO strs VALUES ('a', 'wxyz');
SELECT v, c, length(v) AS lv, length(c) AS lc FROM strs ORDER BY v;
-- bytea
SELECT '\x414243'::bytea AS hex_in, 'abc'::bytea AS escape_in, '\000\001'::bytea AS octal_in, ''::bytea AS empty;
SELECT length('\xdeadbeef'::bytea) AS len, '\xDEADBEEF'::bytea = '\xdeadbeef'::bytea AS eq;
SELECT '\xabc'::bytea;
SELECT '\x4g'::bytea;
-- date
SELECT '2024-02-29'::date AS leap, '1999-12-31'::date AS y2k, '2000-01-01'::date - '1999-12-01'::date AS days;
SELECT '2024-01-31'::date + 1 AS next_day, '2024-03-01'::date - 1 AS prev_day, '2024-01-01'::date < '2024-01-02'::date AS lt;
SELECT '2023-02-29'::date;
SELECT '2024-13-01'::date;
SELECT 'not a date'::date;
-- timestamp
SELECT '2024-01-02 03:04:05'::timestamp AS ts, '2024-01-02 03:04:05.678'::timestamp AS frac, '2024-01-02'::timestamp AS midnight;
SELECT '2024-01-02 03:04:05.1234567'::timestamp AS rounded_to_micros;
SELECT '2024-01-02 03:04:05+05'::timestamp AS ignores_zone, '2024-01-02'::date::timestamp AS from_date, '2024-01-02 23:59:59'::timestamp::date AS to_date;
SELECT '2024-01-02 25:00:00'::timestamp;
-- timestamptz
SELECT '2024-01-02 03:04:05+02'::timestamptz AS plus2, '2024-01-02 03:04:05-08:30'::timestamptz AS minus830, '2024-01-02 03:04:05'::timestamptz AS local_utc;
SELECT '2024-06-01 12:00:00+00'::timestamptz = '2024-06-01 14:00:00+02'::timestamptz AS same_instant;
SET TimeZone = 'America/New_York';
SELECT '2024-01-02 03:04:05+00'::timestamptz AS winter, '2024-07-02 03:04:05+00'::timestamptz AS summer;
SELECT '2024-01-02 03:04:05'::timestamptz AS local_input;
SET TimeZone = '+05:30';
SELECT '2024-01-02 03:04:05+00'::timestamptz AS fixed_offset;
SET TimeZone = 'UTC';
SELECT '2024-01-02 03:04:05+02'::timestamptz::timestamp AS to_ts, '2024-01-02 03:04:05'::timestamp::timestamptz AS from_ts, '2024-01-02 03:04:05+02'::timestamptz::date AS to_date;
SELECT 'yesterday-ish'::timestamptz;
-- uuid
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS canonical, 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid AS upper_in, '{a0eebc999c0b4ef8bb6d6bb9bd380a11}'::uuid AS braces;
SELECT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid = 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid AS eq;
SELECT 'a0eebc99-9c0b-4ef8-bb6d'::uuid;
-- jsonb (storage and equality)
SELECT '{"b": 1, "a": [1, 2, {"c": null}]}'::jsonb AS normalized, '  [1,  "two" , true]  '::jsonb AS arr, '"s"'::jsonb AS scalar, 'null'::jsonb AS json_null;
SELECT '{"a": 1, "b": 2}'::jsonb = '{"b":2,"a":1}'::jsonb AS eq, '{"a": 1}'::jsonb = '{"a": 2}'::jsonb AS ne;
-- a table with every type: insert, read back, compare
CREATE TABLE alltypes (
    i2 smallint, i4 integer, i8 bigint, num numeric(12,3), f4 real, f8 double precision,
    b boolean, t text, vc varchar(10), ch char(5), by bytea, d date, ts timestamp,
    tz timestamptz, u uuid, j jsonb
);
INSERT INTO alltypes VALUES (
    -1, 2, 3000000000, 1234.5, 1.25, -2.5e-3, true, 'text', 'varchar', 'ch', '\x00ff',
    '2024-02-29', '2024-02-29 12:34:56.5', '2024-02-29 12:34:56.5+01',
    '00000000-0000-0000-0000-000000000001', '{"k": [true, 1.5]}'
);
INSERT INTO alltypes (i2) VALUES (NULL);
SELECT * FROM alltypes ORDER BY i2;
SELECT i4 + i2 AS int_mix, i8 * 2 AS big, num * 2 AS num2, f4 + f8 AS floats FROM alltypes WHERE i2 = -1;
SELECT count(*) FROM alltypes WHERE j = '{"k":[true,1.5]}' AND u = '00000000-0000-0000-0000-000000000001' AND by = '\x00FF';
INSERT INTO alltypes (i2) VALUES (40000);
INSERT INTO alltypes (vc) VALUES ('this is too long');
INSERT INTO alltypes (d) VALUES ('2024-02-30');
INSERT INTO alltypes (u) VALUES ('not-a-uuid');
INSERT INTO alltypes (num) VALUES (1234567890.5);
-- implicit and explicit casts between types
SELECT 1::smallint + 1::bigint AS int8_result, 1 + 1.5 AS numeric_result, 1 + 1.5::double precision AS float_result;
SELECT 42::text AS int_text, '3.14'::numeric::double precision AS num_float, 3.99::numeric::integer AS num_int, 12::numeric(5,2) AS int_numeric;
SELECT 'true'::text::boolean AS text_bool, '2024-05-05'::text::date AS text_date, 255::bigint::text AS bigint_text;
SELECT true::date;
SELECT '1'::integer::uuid;
DROP TABLE strs, alltypes;
