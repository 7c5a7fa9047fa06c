-- money (lc_monetary = C): input forms, output, arithmetic with integers,
-- floats and money, overflow, comparisons, casts, aggregates, cash_words,
-- arrays, indexes, partitions, COPY and the catalog.
CREATE TABLE money_t (id int, m money);
INSERT INTO money_t VALUES (1, '123'), (2, '$1,234.56'), (3, '(5.50)'),
  (4, '-$0.01'), (5, '12.345'), (6, '12.355'), (7, NULL), (8, ' $ 7 '),
  (9, '3-'), (10, '$-1,000'), (11, '.5'), (12, '+7'), (13, ''),
  (14, '1,2,3'), (15, '99.999');
INSERT INTO money_t VALUES (99, '12.3.4');
INSERT INTO money_t VALUES (99, '1e3');
INSERT INTO money_t VALUES (99, '1 2');
INSERT INTO money_t VALUES (99, 'abc');
SELECT * FROM money_t ORDER BY id;
SELECT * FROM money_t ORDER BY m, id;
SELECT '92233720368547758.07'::money AS max, '-92233720368547758.08'::money AS min;
SELECT '92233720368547758.08'::money;
SELECT '-92233720368547758.085'::money;
SELECT '123456789012345678'::money;
-- arithmetic
SELECT m + '1.01' AS plus, m - '$0.02' AS minus, m * 2 AS times_int,
       2 * m AS int_times, m * 1.5 AS times_numeric, 1.5::float4 * m AS f4_times,
       m / 3 AS div_int, m / 2.5 AS div_numeric, m / '2'::money AS ratio
FROM money_t WHERE id = 2;
SELECT m * 2::int2, 2::int2 * m, m / 2::int2, m * 2::int8, 2::int8 * m,
       m / 2::int8, m * 2::float8, 2::float8 * m, m / 2::float8, m / 2::float4
FROM money_t WHERE id = 1;
SELECT '878.08'::money / 11::float8, '878.08'::money / 11::float4,
       '878.08'::money / 11::bigint, '878.08'::money / 11::int,
       '878.08'::money / 11::smallint;
SELECT '90000000000000099.00'::money / 10::bigint;
SELECT '1'::money / 0;
SELECT '1'::money / 0.0::float8;
SELECT '1'::money / '0'::money;
SELECT '92233720368547758.07'::money + '0.01'::money;
SELECT '-92233720368547758.08'::money - '0.01'::money;
SELECT '92233720368547758.07'::money * 2::float8;
SELECT '92233720368547758.07'::money * 2::int4;
SELECT '-1'::money / 1.175494e-38::float4;
SELECT '42'::money * 'inf'::float8;
SELECT '42'::money * 'nan'::float4;
SELECT '5'::money + 1;
SELECT pg_typeof('10'::money / '3'::money), '10'::money / '4'::money;
-- comparisons
SELECT m = '$123.00' AS eq, m <> '$123.00' AS ne, m < '$124' AS lt,
       m <= '$123.00' AS le, m > '$122.99' AS gt, m >= '$123.01' AS ge
FROM money_t WHERE id = 1;
SELECT cashlarger('1', '2'), cashsmaller('1', '2');
SELECT cash_words('1234567.89'), cash_words('-0.01'), cash_words('1.00'),
       cash_words('110.20'), cash_words('0'), cash_words('1000000000000');
SELECT cash_words('-92233720368547758.08');
-- aggregates
SELECT sum(m), min(m), max(m), count(m) FROM money_t;
SELECT sum(m) FROM (VALUES ('92233720368547758.07'::money), ('1')) v(m);
SELECT avg(m) FROM money_t;
SELECT i, sum(v::money) OVER (ORDER BY i ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING)
FROM (VALUES (1, '1.10'), (2, '2.20'), (3, NULL), (4, NULL)) t(i, v);
-- casts
SELECT 12::money AS int4, 12345678901234567::money AS int8,
       (-5)::int8::money AS neg, 12.345::numeric::money AS num,
       12.355::numeric::money AS num2, '12.34'::money::numeric AS to_num,
       '-0.05'::money::numeric(10,1) AS to_num1;
SELECT '-92233720368547758.08'::money::numeric;
SELECT 100000000000000000::int8::money;
SELECT 'NaN'::numeric::money;
SELECT '1'::money::int4;
SELECT 2.5::float8::money;
SELECT 2::int2::money;
SELECT '1.5'::money::text, 'x' || '1.5'::money;
-- set operations, arrays, records, recursion
SELECT x FROM (VALUES (100::money), (200::money)) _(x)
UNION SELECT x FROM (VALUES (100::money), (300::money)) _(x) ORDER BY 1;
SELECT ARRAY['1', '$2,000.50', '(3)']::money[] AS arr, ('{1.5}'::money[])[1] AS elem;
SELECT row(1.5::money, 'x');
WITH RECURSIVE t(n) AS (
    VALUES (1::money)
  UNION ALL
    SELECT n + 1::money FROM t WHERE n < 5::money
) SELECT sum(n), max(n) FROM t;
-- UNION (not ALL) needs hashable columns
WITH RECURSIVE t(n) AS (
    VALUES (1::money)
  UNION
    SELECT n + 1::money FROM t WHERE n < 5::money
) SELECT sum(n) FROM t;
-- indexes and partitions
CREATE INDEX money_t_m ON money_t (m);
SELECT id, m FROM money_t WHERE m > '$10' ORDER BY m;
CREATE TABLE moneyp (a money) PARTITION BY LIST (a);
CREATE TABLE moneyp_10 PARTITION OF moneyp FOR VALUES IN (10);
CREATE TABLE moneyp_11 PARTITION OF moneyp FOR VALUES IN ('11');
CREATE TABLE moneyp_12 PARTITION OF moneyp FOR VALUES IN (to_char(12, '99')::int);
INSERT INTO moneyp VALUES (10), ('$11.00'), (12);
SELECT tableoid::regclass, a FROM moneyp ORDER BY a;
CREATE TABLE moneyh (a money) PARTITION BY HASH (a);
DROP TABLE moneyp;
-- the catalog
SELECT format_type(790, -1), format_type(791, -1), pg_typeof('1'::money);
SELECT typname, typlen, typbyval, typalign, typcategory, typarray
FROM pg_type WHERE oid IN (790, 791) ORDER BY oid;
\d money_t
-- COPY
COPY money_t TO STDOUT;
CREATE TABLE money_c (m money, ms money[]);
COPY money_c FROM STDIN;
$1,000.00	{$1.00,-$2.50}
(12.5)	\N
\.
SELECT * FROM money_c;
SELECT cash_send('1.23'::money);
DROP TABLE money_c;
DROP TABLE money_t;
