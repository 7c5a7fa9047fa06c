-- SQL breadth (issue 15): math functions (width_bucket, gcd/lcm,
-- trigonometry in radians and degrees, hyperbolic, scales, factorial),
-- generate_series over numeric, PostgreSQL 15's regexp_count /
-- regexp_instr / regexp_like / regexp_substr and regexp_replace's start/n
-- form, UPDATE SET (a, b) = ..., FETCH FIRST ... WITH TIES and HAVING
-- without GROUP BY.
\set VERBOSITY verbose

-- width_bucket over float8 and numeric
SELECT width_bucket(5.35, 0.024, 10.06, 5), width_bucket(5.35::float8, 0.024, 10.06, 5);
SELECT width_bucket(-1, 0, 10, 5), width_bucket(10, 0, 10, 5), width_bucket(7, 10, 0, 5),
       width_bucket(0, 10, 0, 5), width_bucket(10, 10, 0, 5), pg_typeof(width_bucket(1, 0, 2, 3));
SELECT width_bucket('Infinity'::numeric, 1, 10, 10), width_bucket('-Infinity'::float8, 1, 10, 10);
SELECT x, width_bucket(x::numeric, 1, 10, 3) AS n, width_bucket(x, 1, 10, 3) AS f,
       width_bucket(x::numeric, 10, 1, 3) AS nr, width_bucket(x, 10, 1, 3) AS fr
  FROM (VALUES (0.5), (1), (3.99), (4), (6.5), (9.99), (10), (11)) v(x);
SELECT width_bucket(5.0, 3.0, 4.0, 0);
SELECT width_bucket(5.0, 3.0, 4.0, -5);
SELECT width_bucket(3.5, 3.0, 3.0, 888);
SELECT width_bucket(5.0::float8, 3.0::float8, 4.0::float8, 0);
SELECT width_bucket(3.5::float8, 3.0::float8, 3.0::float8, 888);
SELECT width_bucket('NaN', 3.0, 4.0, 888);
SELECT width_bucket(0::float8, 'NaN', 4.0::float8, 888);
SELECT width_bucket(2.0, 3.0, '-inf', 888);
SELECT width_bucket(0::float8, '-inf', 4.0::float8, 888);
SELECT width_bucket(10.5::numeric, 1, 10, 2147483647);
SELECT width_bucket(10.5::float8, 1, 10, 2147483647);
SELECT width_bucket(1::float8, -1.7e307, 1.7e307, 10);
SELECT width_bucket(NULL::numeric, 1, 2, 3), width_bucket(1.5, 1, 2, NULL);
-- over thresholds
SELECT width_bucket(0, ARRAY[1, 3, 5, 10]), width_bucket(5, ARRAY[1, 3, 5, 10]),
       width_bucket(11, ARRAY[1, 3, 5, 10]), width_bucket(5.5, ARRAY[1.0, 5.0, 6.0]),
       width_bucket(now(), array['yesterday', 'today', 'tomorrow']::timestamptz[]),
       width_bucket('m', ARRAY['a', 'k', 'z']), width_bucket(1, '{}'::int[]);
SELECT width_bucket(5, ARRAY[3, 4, NULL]);
SELECT width_bucket(5, ARRAY[ARRAY[1, 2], ARRAY[3, 4]]);

-- gcd and lcm
SELECT gcd(12, 18), gcd(-12, 18), gcd(0, 5), gcd(0, 0), gcd(7::int2, 21),
       pg_typeof(gcd(7::int2, 21)), gcd(12::int8, -18), pg_typeof(gcd(1, 2::int8));
SELECT gcd(7::int2, 21::int2);
SELECT lcm(4, 6), lcm(-4, 6), lcm(0, 6), lcm(12::int8, 18::int8), pg_typeof(lcm(1, 2));
SELECT gcd((-2147483648)::int4, 1), gcd((-2147483648)::int4, -1),
       gcd((-9223372036854775808)::int8, 2);
SELECT gcd((-2147483648)::int4, 0);
SELECT gcd((-2147483648)::int4, (-2147483648)::int4);
SELECT gcd((-9223372036854775808)::int8, 0::int8);
SELECT lcm(2147483647, 2147483646);
SELECT lcm((-2147483648)::int4, 1);
SELECT lcm(9223372036854775807, 9223372036854775806);
SELECT a, b, gcd(a, b), gcd(a, -b), gcd(-b, a), gcd(-b, -a)
  FROM (VALUES (0::numeric, 0::numeric), (0::numeric, numeric 'NaN'),
               (0::numeric, 46375::numeric), (433125::numeric, 46375::numeric),
               (43312.5::numeric, 4637.5::numeric), (4331.250::numeric, 463.75000::numeric),
               ('inf', '0'), ('inf', '42'), ('inf', 'inf')) AS v(a, b);
SELECT a, b, lcm(a, b), lcm(a, -b), lcm(-b, a), lcm(-b, -a)
  FROM (VALUES (0::numeric, 0::numeric), (0::numeric, numeric 'NaN'),
               (0::numeric, 13272::numeric), (13272::numeric, 13272::numeric),
               (423282::numeric, 13272::numeric), (42328.2::numeric, 1327.2::numeric),
               (4232.820::numeric, 132.72000::numeric), ('inf', '0'), ('inf', '42'),
               ('inf', 'inf')) AS v(a, b);
SELECT gcd(12, 8.0), pg_typeof(gcd(12, 8.0)), lcm(NULL, 3);
SELECT lcm(9999 * (10::numeric)^131068 + (10::numeric^131068 - 1), 2);
SELECT gcd(1.5::float8, 2);

-- factorial, scale, min_scale, trim_scale
SELECT factorial(0), factorial(1), factorial(5), factorial(25), pg_typeof(factorial(3));
SELECT factorial(-4);
SELECT factorial(100000);
SELECT scale(1.2300), scale(100), scale(-0.00), scale('NaN'::numeric), scale('inf'::numeric);
SELECT min_scale(1.2300), min_scale(100), min_scale(0.00), min_scale(1e-8),
       min_scale('NaN'::numeric), min_scale(-12.3400);
SELECT trim_scale(1.2300), trim_scale(100.000), trim_scale(0.000), trim_scale(-5.10),
       trim_scale('NaN'::numeric), trim_scale('-inf'::numeric), trim_scale(1e-8);

-- trigonometry
SELECT pi(), degrees(pi()), radians(180), degrees(1), radians(1.5);
SELECT sin(0), cos(0), tan(0), asin(1), acos(-1), atan(1), atan2(1, -1), cot(1);
SELECT sin('NaN'), asin('NaN'::float8), atan('Infinity'), atan2('-Infinity', 1);
SELECT sin('Infinity');
SELECT cos('-Infinity'::float8);
SELECT asin(1.1);
SELECT acos(-2);
SELECT radians(5e-324);
SELECT degrees(1.7e308);
SELECT x, sind(x), cosd(x), tand(x), cotd(x)
  FROM (VALUES (0), (30), (45), (60), (90), (135), (180), (225), (270), (300),
               (360), (-30), (-90), (390), (720), (-405)) v(x);
SELECT x, asind(x), acosd(x), atand(x)
  FROM (VALUES (-1), (-0.5), (0), (0.5), (1)) v(x);
SELECT atan2d(1, 1), atan2d(-1, -1), atan2d(0, -1), atan2d(1, 0), atand('Infinity'),
       atand('-Infinity'), sind('NaN'), atan2d('NaN', 1);
SELECT sind(12.5) BETWEEN 0.21 AND 0.22 AS ok;
SELECT sind('Infinity');
SELECT tand('-Infinity');
SELECT asind(2);
SELECT acosd(-1.0001);

-- hyperbolic (last digits follow the C library: printed with 15 digits)
SET extra_float_digits = 0;
SELECT sinh(1), cosh(1), tanh(1), asinh(1), acosh(2), atanh(0.5);
RESET extra_float_digits;
SELECT sinh(0), cosh(0), tanh(0), asinh(0), acosh(1), atanh(0);
SELECT sinh('Infinity'), sinh('-Infinity'), cosh('-Infinity'), tanh('Infinity'),
       asinh('-Infinity'), acosh('Infinity'), atanh(1), atanh(-1), sinh('NaN'), atanh('NaN');
SELECT sinh(1000), cosh(1000);
SELECT acosh(0.5);
SELECT atanh(2);
SELECT tanh(1000), tanh(-1000), pg_typeof(tanh(1::numeric));

-- generate_series over numeric
SELECT * FROM generate_series(0.1::numeric, 4.0::numeric, 1.3::numeric);
SELECT * FROM generate_series(1::numeric, 3);
SELECT * FROM generate_series(4.0, 1.0, -1.5);
SELECT generate_series(1.0, 2.0, 0.25), pg_typeof(generate_series(1.5, 2));
SELECT * FROM generate_series(1.0, 0.5) g;
SELECT * FROM generate_series(0.0, 1.0, 0.33333) WITH ORDINALITY AS g(v, n);
SELECT count(*), sum(g) FROM generate_series(1::numeric, 1000::numeric) g;
SELECT * FROM generate_series('nan'::numeric, 10::numeric);
SELECT * FROM generate_series(0::numeric, 'nan'::numeric);
SELECT * FROM generate_series(0::numeric, 10::numeric, 'nan'::numeric);
SELECT * FROM generate_series('-inf'::numeric, 10::numeric);
SELECT * FROM generate_series(0::numeric, 'inf'::numeric);
SELECT * FROM generate_series(0::numeric, 10::numeric, 'inf'::numeric);
SELECT * FROM generate_series(0::numeric, 10::numeric, 0.0);
SELECT generate_series(1.0, 5.0, 0);

-- regexp_count
SELECT regexp_count('123123123123123', '(12)3');
SELECT regexp_count('123123123123', '123', 1), regexp_count('123123123123', '123', 3),
       regexp_count('123123123123', '123', 33), regexp_count('ABCABCABCABC', 'Abc', 1, ''),
       regexp_count('ABCABCABCABC', 'Abc', 1, 'i'), regexp_count('abc', ''),
       regexp_count('baaac', 'a*'), regexp_count('abc', 'x*', 4), regexp_count(NULL, 'a');
SELECT regexp_count('123123123123', '123', 0);
SELECT regexp_count('123123123123', '123', -3);
SELECT regexp_count('abc', 'a', 1, 'g');
SELECT regexp_count('abc', 'a', 1, 'z');

-- regexp_like
SELECT regexp_like('Steven', '^Ste(v|ph)en$'), regexp_like('a'||CHR(10)||'d', 'a.d'),
       regexp_like('abc', 'B'), regexp_like('abc', 'B', 'i'), regexp_like('abc', 'B', 'ic'),
       regexp_like(NULL, 'a'), regexp_like('abc', NULL);
SELECT regexp_like('abc', 'a', 'g');

-- regexp_instr
SELECT regexp_instr('abcdefghi', 'd.f'), regexp_instr('abcdefghi', 'd.q'),
       regexp_instr('abcabcabc', 'a.c'), regexp_instr('abcabcabc', 'a.c', 2),
       regexp_instr('abcabcabc', 'a.c', 1, 3), regexp_instr('abcabcabc', 'a.c', 1, 4),
       regexp_instr('abcabcabc', 'A.C', 1, 2, 0, 'i');
SELECT regexp_instr('1234567890', '(123)(4(56)(78))', 1, 1, 0, 'i', 0),
       regexp_instr('1234567890', '(123)(4(56)(78))', 1, 1, 0, 'i', 1),
       regexp_instr('1234567890', '(123)(4(56)(78))', 1, 1, 0, 'i', 2),
       regexp_instr('1234567890', '(123)(4(56)(78))', 1, 1, 0, 'i', 3),
       regexp_instr('1234567890', '(123)(4(56)(78))', 1, 1, 0, 'i', 4),
       regexp_instr('1234567890', '(123)(4(56)(78))', 1, 1, 0, 'i', 5);
SELECT regexp_instr('1234567890', '(123)(4(56)(78))', 1, 1, 1, 'i', 0),
       regexp_instr('1234567890', '(123)(4(56)(78))', 1, 1, 1, 'i', 4),
       regexp_instr('abcabcabc', 'a.c', 1, 1, 1), regexp_instr('abc', 'b', 1, 1, 0, '', 1),
       regexp_instr('abc', 'b', 1, 1, 0, '', 2), regexp_instr('axbxc', '(x)|(y)', 1, 1, 0, '', 2),
       regexp_instr('日本語テキスト', 'テ'), regexp_instr('日本語テキスト', 'テ', 1, 1, 1);
SELECT regexp_instr('abcabcabc', 'a.c', 0, 1);
SELECT regexp_instr('abcabcabc', 'a.c', 1, 0);
SELECT regexp_instr('abcabcabc', 'a.c', 1, 1, -1);
SELECT regexp_instr('abcabcabc', 'a.c', 1, 1, 2);
SELECT regexp_instr('abcabcabc', 'a.c', 1, 1, 0, 'g');
SELECT regexp_instr('abcabcabc', 'a.c', 1, 1, 0, '', -1);

-- regexp_substr
SELECT regexp_substr('abcdefghi', 'd.f'), regexp_substr('abcdefghi', 'd.q') IS NULL,
       regexp_substr('abcabcabc', 'a.c'), regexp_substr('abcabcabc', 'a.c', 2),
       regexp_substr('abcabcabc', 'a.c', 1, 3), regexp_substr('abcabcabc', 'a.c', 1, 4) IS NULL,
       regexp_substr('abcabcabc', 'A.C', 1, 2, 'i');
SELECT regexp_substr('1234567890', '(123)(4(56)(78))', 1, 1, 'i', 0),
       regexp_substr('1234567890', '(123)(4(56)(78))', 1, 1, 'i', 1),
       regexp_substr('1234567890', '(123)(4(56)(78))', 1, 1, 'i', 2),
       regexp_substr('1234567890', '(123)(4(56)(78))', 1, 1, 'i', 3),
       regexp_substr('1234567890', '(123)(4(56)(78))', 1, 1, 'i', 4),
       regexp_substr('1234567890', '(123)(4(56)(78))', 1, 1, 'i', 5) IS NULL;
SELECT regexp_substr('abc', 'b', 1, 1, '', 1), regexp_substr('axbxc', '(x)|(y)', 1, 1, '', 2) IS NULL,
       regexp_substr('Ünïcödé', 'ï.ö'), regexp_substr('a1b22c333', '[0-9]+', 1, 3),
       regexp_substr('a1b22c333', '[0-9]+', 4, 1);
SELECT regexp_substr('abcabcabc', 'a.c', 0, 1);
SELECT regexp_substr('abcabcabc', 'a.c', 1, 0);
SELECT regexp_substr('abcabcabc', 'a.c', 1, 1, 'g');
SELECT regexp_substr('abcabcabc', 'a.c', 1, 1, '', -1);

-- regexp_replace: every match walk, and the start / n form
SELECT regexp_replace('baaac', 'a*', '-', 'g'), regexp_replace('abc', 'x*', '-', 'g'),
       regexp_replace('abc', '', 'X', 'g'), regexp_replace('1 2 3', '\d', '<\&>', 'g');
SELECT regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, 0, 'i'),
       regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, 1, 'i'),
       regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, 2, 'i'),
       regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, 3, 'i'),
       regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, 9, 'i'),
       regexp_replace('A PostgreSQL function', 'A|e|i|o|u', 'X', 7, 0, 'i'),
       regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 9),
       regexp_replace('A PostgreSQL function', 'a|e|i|o|u', 'X', 1, 0, 'g');
SELECT regexp_replace('abc', 'b', 'X', 0);
SELECT regexp_replace('abc', 'b', 'X', '1');
SELECT regexp_replace('abc', 'b', 'X', 1, -1);

-- UPDATE ... SET (a, b) = ...
CREATE TABLE upd (a int, b int, c text DEFAULT 'dflt');
INSERT INTO upd VALUES (1, 10, 'x'), (2, 20, 'y'), (3, 30, NULL);
UPDATE upd SET (a, b) = (a + 100, b + 1) WHERE a = 1;
UPDATE upd SET (c, b, a) = ('bugle', b + 11, DEFAULT) WHERE a = 2;
UPDATE upd SET (c, b) = ('car', a + b), a = a + 1000 WHERE a = 3;
SELECT * FROM upd ORDER BY b;
UPDATE upd SET (b, a) = (SELECT a, b FROM upd WHERE c = 'car') WHERE c = 'x';
SELECT * FROM upd ORDER BY b;
UPDATE upd o SET (b, c) = (SELECT i.b * 2, i.c || '!' FROM upd i WHERE i.a = o.a);
SELECT * FROM upd ORDER BY b;
UPDATE upd SET (b, c) = (SELECT 1, 'none' WHERE false) WHERE a IS NULL RETURNING *;
UPDATE upd SET (a, b) = ROW(v.*) FROM (VALUES (7, 70)) AS v(i, j) WHERE upd.c = 'car!' RETURNING a, b, c;
UPDATE upd SET (a, b) = (1, 2, 3);
UPDATE upd SET (a, b, c) = (1, 2);
UPDATE upd SET (a, b) = (SELECT 1, 2, 3);
UPDATE upd SET (a, b) = (SELECT 1);
UPDATE upd SET (a, b) = (v.*) FROM (VALUES (21, 101)) AS v(i, j);
UPDATE upd SET (a, b) = (SELECT a, b FROM upd);
UPDATE upd SET (c, b) = ('car', 1), b = 2;
UPDATE upd SET a = 1, a = 2;
UPDATE upd SET (a, b) = ('x', 1);
SELECT * FROM upd ORDER BY b;
BEGIN;
UPDATE upd SET (a, b) = (1, 2), (c) = ROW('single') RETURNING *;
ROLLBACK;
INSERT INTO upd VALUES (8, 0, 'conflict');
CREATE UNIQUE INDEX upd_a ON upd (a);
INSERT INTO upd VALUES (8, 5, 'new') ON CONFLICT (a) DO UPDATE SET (b, c) = (excluded.b, excluded.c || '/' || upd.c)
  RETURNING *;

-- FETCH FIRST ... WITH TIES
CREATE TABLE ties (id int, g int, s text);
INSERT INTO ties SELECT i, i / 3, 'r' || i FROM generate_series(0, 11) i;
SELECT g, id FROM ties ORDER BY g, id FETCH FIRST 1 ROW WITH TIES;
SELECT * FROM (SELECT g, id FROM ties ORDER BY g FETCH FIRST 1 ROW WITH TIES) s ORDER BY id;
SELECT * FROM (SELECT g, id FROM ties ORDER BY g FETCH FIRST 4 ROWS WITH TIES) s ORDER BY id;
SELECT g FROM ties ORDER BY g FETCH FIRST 3 ROWS WITH TIES;
SELECT * FROM (SELECT g, id FROM ties ORDER BY g DESC OFFSET 3 ROWS FETCH NEXT 2 ROWS WITH TIES) s
  ORDER BY id;
SELECT * FROM (SELECT s, id FROM ties ORDER BY g, id / 2 FETCH FIRST 2 ROWS WITH TIES) s ORDER BY id;
SELECT g, id FROM ties ORDER BY g, id FETCH FIRST 2 ROWS ONLY;
SELECT * FROM (SELECT g, count(*) FROM ties GROUP BY g ORDER BY count(*) FETCH FIRST 1 ROW WITH TIES) s
  ORDER BY g;
SELECT DISTINCT g FROM ties ORDER BY g FETCH FIRST 2 ROWS WITH TIES;
SELECT g FROM ties UNION ALL SELECT 1 ORDER BY 1 FETCH FIRST 5 ROWS WITH TIES;
SELECT g, id FROM ties ORDER BY g FETCH FIRST 0 ROWS WITH TIES;
SELECT count(*) FROM (SELECT g, id FROM ties ORDER BY g FETCH FIRST 100 ROWS WITH TIES) s;
SELECT id FROM ties ORDER BY g, id FETCH FIRST (1 + 1) ROWS WITH TIES;
PREPARE wt(int) AS
  SELECT count(*), sum(id) FROM (SELECT id FROM ties ORDER BY g FETCH FIRST $1 ROWS WITH TIES) s;
EXECUTE wt(5);
EXECUTE wt(NULL);
SELECT g, id FROM ties ORDER BY g FETCH FIRST NULL ROWS WITH TIES;
SELECT count(*) FROM (SELECT g, id FROM ties ORDER BY g FETCH FIRST (NULL + 1) ROWS WITH TIES) s;
SELECT g, id FROM ties FETCH FIRST 2 ROWS WITH TIES;
SELECT g, id FROM ties ORDER BY g FETCH FIRST 1 ROW WITH TIES FOR UPDATE SKIP LOCKED;
SELECT g, id FROM ties ORDER BY g FETCH FIRST -1 ROWS WITH TIES;
SELECT g, id FROM ties ORDER BY g OFFSET -1 ROWS;
SELECT g FROM ties ORDER BY g FETCH FIRST 1 ROW WITH TIES FOR UPDATE;
CREATE VIEW ties_v AS SELECT g, id FROM ties ORDER BY g FETCH FIRST 2 ROWS WITH TIES;
SELECT * FROM ties_v ORDER BY id;

-- HAVING without GROUP BY: the whole input is one group
SELECT 1 AS one HAVING false;
SELECT 1 AS one HAVING true;
SELECT 1 AS one FROM ties HAVING 1 > 2;
SELECT 1 AS one FROM ties HAVING 1 < 2;
SELECT count(*) FROM ties HAVING count(*) > 5;
SELECT 'x' AS x FROM ties WHERE id > 100 HAVING true;
SELECT min(id), max(id) FROM ties HAVING min(id) < 0;
SELECT id FROM ties HAVING true;
SELECT 1 FROM ties HAVING id > 1;
SELECT 1 FROM ties HAVING true FOR UPDATE;
