-- Numeric and float8 math: ln, log, log10, exp, power / ^, sqrt, cbrt,
-- with PostgreSQL's result scales, special values and errors.
\set VERBOSITY verbose

-- ln: at least 16 significant digits, not below the argument's scale
SELECT ln(10::numeric), ln(2.0), ln(0.5), ln(1.0), ln(1.05);
SELECT ln(100::numeric), ln(1e-10::numeric), ln(1234567.891::numeric);
SELECT ln(1.0000000001), ln(0.95), ln(0.9), ln(1.1), ln(1.11), ln(0.89);
SELECT ln(2.000000000000000000000000000000), ln(9.99999999999999999999e300::numeric);
SELECT ln('NaN'::numeric), ln('Infinity'::numeric), ln(NULL::numeric);

-- log(x) is base 10; log(b, x) is numeric only
SELECT log(100::numeric), log(0.001), log10(1000::numeric), log10(2.5);
SELECT log(2.0, 8), log(2, 8.0), log(2, 8), pg_typeof(log(2, 8));
SELECT log(10, 123.456), log(0.5, 0.25), log(1.1, 2), log(2, 1.0000000001);
SELECT log(2, 'NaN'::numeric), log('Infinity'::numeric, 2),
       log('Infinity'::numeric, 'Infinity'::numeric), log(10, 'Infinity'::numeric);
SELECT log(NULL, 2.0), log(2.0, NULL), log10(NULL::numeric);

-- exp
SELECT exp(1.0), exp(0::numeric), exp(-1.0), exp(10.5), exp(-0.5);
SELECT exp(100::numeric), exp(-100::numeric), exp(0.000001), exp(1e-20);
SELECT exp('-Infinity'::numeric), exp('Infinity'::numeric), exp('NaN'::numeric);
SELECT exp(230.2585::numeric);
SELECT length(exp(-5999.9)::text), exp(-6000::numeric) = 0;

-- power and ^
SELECT power(2::numeric, 0.5), 2.0::numeric ^ 3, 2 ^ 10, pg_typeof(2 ^ 10);
SELECT 2.5 ^ 2, 2 ^ 2.0, pg_typeof(2 ^ 2.0), pg_typeof(2.0 ^ 2::float8), '2' ^ 3, pg_typeof('2' ^ 3);
SELECT (-8)::numeric ^ 3, (-8)::numeric ^ 3.0, 2::numeric ^ -2, 0.5 ^ 100;
SELECT 1.000001 ^ 1000000, 10::numeric ^ -20, power(1.5, 2.5), 3 ^ 0.5::numeric;
SELECT power(10::numeric, 17.5), power(100::numeric, 1.5), power(2::numeric, 100.5);
SELECT 0::numeric ^ 0, 0::numeric ^ 0.5, 0.0 ^ 3, (-1)::numeric ^ 30000000000;
SELECT 'NaN'::numeric ^ 0, 1 ^ 'NaN'::numeric, 'Infinity'::numeric ^ 2,
       2 ^ 'Infinity'::numeric, 0.5 ^ 'Infinity'::numeric, 'NaN'::numeric ^ 2;
SELECT '-Infinity'::numeric ^ 3, '-Infinity'::numeric ^ -3, '-Infinity'::numeric ^ 2, (-2)::numeric ^ '-Infinity'::numeric;
SELECT power(NULL::numeric, 2), 2 ^ NULL::numeric, NULL::float8 ^ 2;
SELECT power('-2'::numeric, '3'), power('-2'::numeric, '-1'), power(2, '0.5'::text::numeric), pow('2', 2.5::numeric);

-- sqrt and cbrt
SELECT sqrt(2::numeric), sqrt(2.000000000000000000000), sqrt(2::float8), sqrt(2);
SELECT cbrt(27), cbrt(-8::float8), cbrt(2::numeric), pg_typeof(cbrt(2::numeric));
SELECT |/ 64, ||/ 27::numeric, |/ '2', @ -5, @ -2.5::numeric, pg_typeof(@ -5::int2), @ -1.5::float4;

-- float8 forms
SELECT pg_typeof(ln(2)), ln(2), log(2), log10(2), exp(2), pg_typeof(exp(2::float8));
SELECT ln(2::float8), log(100::float8), log10(0.001::float8), exp(1::float8);
SELECT exp(-740::float8), exp('Infinity'::float8), exp('-Infinity'::float8);
SELECT ln('Infinity'::float8), ln('NaN'::float8), (-1)::float8 ^ 'Infinity', 'NaN'::float8 ^ 0, 1 ^ 'NaN'::float8;
SELECT (-2)::float8 ^ 3, 'Infinity'::float8 ^ 2, 2::float8 ^ 0.5;

-- over a table
CREATE TABLE nm (x numeric, f float8);
INSERT INTO nm VALUES (1, 1), (2.5, 2.5), (10, 10), (0.001, 0.001), (NULL, NULL);
SELECT x, ln(x), log(x), exp(x), x ^ 2, power(x, 0.5) FROM nm ORDER BY x;
SELECT f, ln(f), log(f), exp(f), f ^ 2, cbrt(f) FROM nm ORDER BY f;

-- errors
SELECT ln(0::numeric);
SELECT ln(-1::numeric);
SELECT ln('-Infinity'::numeric);
SELECT ln(0::float8);
SELECT ln(-1::float8);
SELECT log(0::float8);
SELECT log10(-2::float8);
SELECT log(1, 10);
SELECT log(0, 10);
SELECT log(10::numeric, 0);
SELECT log(-2, 10);
SELECT log(0::numeric);
SELECT log10(-1.5);
SELECT log(2.0::float8, 8);
SELECT exp(6000::numeric);
SELECT exp(1000::float8);
SELECT exp(-1000::float8);
SELECT 0::numeric ^ -1;
SELECT power(0::numeric, -2.5);
SELECT (-2)::numeric ^ 0.5;
SELECT 0::float8 ^ -1;
SELECT (-2)::float8 ^ 0.5;
SELECT 2::float8 ^ 1024;
SELECT sqrt(-1::numeric);
SELECT sqrt(-1::float8);
SELECT 10::numeric ^ 200000;
SELECT power(10::numeric, 7000.5);
SELECT power('-Infinity'::numeric, 4.5);
SELECT 'a'::text ^ 2;
SELECT |/ -1;
SELECT |/ 'a'::text;
SELECT @ 'a'::text;
