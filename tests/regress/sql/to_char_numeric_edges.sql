-- to_char of numbers: FM and a zero integer part, EEEE computed in
-- decimal, backslash-escaped quotes, no sign without digit positions;
-- to_number's L; round/trunc at numeric's extreme scales
select '['||to_char('100'::numeric, 'foo')||']', '['||to_char(-100::numeric, 'foo')||']', '['||to_char('100'::numeric, 'f"ool\\"999')||']', '['||to_char('100'::numeric, '"x"')||']', '['||to_char(100, 'fool')||']';
select '['||to_char(-1::numeric, '.')||']', '['||to_char(-1::numeric, 'x')||']', '['||to_char(1::numeric, '.')||']', '['||to_char(-1::int, 'th')||']', '['||to_char(-1::int, ',')||']';
SELECT to_char('100'::numeric, 'f\"oo999');
SELECT to_char('100'::numeric, 'f\\"oo999');
SELECT to_char('100'::numeric, 'f"ool\"999');
SELECT to_char('100'::numeric, 'f"ool\\"999');
SELECT to_number('1234.56','L99,999.99');
SELECT to_number('1,234.56','L99,999.99');
SELECT to_number(' 1234.56','L99,999.99');
select to_char(12, 'L99'), to_char(-12, 'L99'), to_char(12, 'FML99');
WITH v(exp) AS
  (VALUES(-16379),(-16378),(-1234),(-789),(-45),(-5),(-4),(-3),(-2),(-1),(0),
         (1),(2),(3),(4),(5),(38),(275),(2345),(45678),(131070),(131071))
SELECT exp,
  to_char(('1.2345e'||exp)::numeric, '9.999EEEE') as numeric
FROM v;
select to_char(9.9996::numeric, '9.999EEEE'), to_char(-9.9996::numeric, '9.999EEEE'), to_char(0.00099995::numeric, '9.99EEEE'), to_char(5::numeric, '9EEEE'), to_char(0::numeric, '9.99EEEE'), to_char(95::numeric, '9EEEE');
select to_char(0::numeric, 'FM9.99') a, to_char(0::numeric, 'FM9.09') b, to_char(0::numeric, 'FM999.0999') c, to_char(0::numeric, 'FM9') d, to_char(0.0::numeric, 'FM9.9') e, to_char(0::float8, 'FM9.09') f, to_char(0::int, 'FM9.09') g, to_char(0.001, 'FM9.09') h, to_char(0::numeric, 'FM9.90') i, round(5e-16383, 16383) = 5e-16383 j, trunc(5e-16383, 1000000) = 5e-16383 k, to_char(-0.4, 'FM9.99') l, to_char(0.4, 'FM0.99') m;
WITH v(val) AS (VALUES('0'::numeric),('inf'),('-inf'),('nan')) SELECT val, to_char(val, '9.999EEEE') as numeric, to_char(val::float8, '99.9EEEE') as float8, to_char(val::float4, '9EEEE') as float4 FROM v;
select to_char(1e400::numeric, '9.9'), to_char(-1e400::numeric, '9.9EEEE');
SELECT to_number('$1234.56','L99,999.99');
-- folding a negation that overflows is a run-time error: no cursor
select -('-9223372036854775808'::int8);
select -('-32768'::int2);
select -(-2147483648);
-- to_number: with S the sign may stand where a digit is read; MI takes it
-- only where it stands; no digits shows the collected sign.
SELECT to_number('.-01', 'S99.99');
SELECT to_number('.01-', '99.99S');
SELECT to_number('-1.5', 'S9.9');
SELECT to_number('1.5-', '9.9S');
SELECT to_number('+12', 'S99');
SELECT to_number('12+', '99S');
SELECT to_number('1.-5', '9.9MI');
SELECT to_number('-', 'S9');
SELECT to_number('x', '9');
