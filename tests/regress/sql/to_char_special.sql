-- to_char of NaN and infinite numerics and floats.
WITH v(val) AS
  (VALUES('0'::numeric),('-4.2'),('4.2e9'),('1.2e-5'),('inf'),('-inf'),('nan'))
SELECT val,
  to_char(val, 'MI9999999999.99') as numeric,
  to_char(val::float8, 'MI9999999999.99') as float8,
  to_char(val::float4, 'MI9999999999.99') as float4
FROM v;
WITH v(val) AS
  (VALUES('0'::numeric),('-4.2'),('4.2e9'),('1.2e-5'),('inf'),('-inf'),('nan'))
SELECT val,
  to_char(val, 'MI99.99') as numeric,
  to_char(val::float8, 'MI99.99') as float8,
  to_char(val::float4, 'MI99.99') as float4
FROM v;
select '[' || to_char('inf'::numeric, 'MI9999999999.99') || ']', '[' || to_char('nan'::numeric, 'MI9999999999.99') || ']', '[' || to_char('-inf'::numeric, 'MI9999999999.99') || ']', '[' || to_char('inf'::numeric, '9999999999') || ']', '[' || to_char('inf'::numeric, 'FM9999999999.99') || ']', '[' || to_char('nan'::numeric, '0000000000.00') || ']', '[' || to_char('-inf'::numeric, 'S9999999999.99') || ']', '[' || to_char('inf'::float8, '9999999999.99') || ']', '[' || to_char('nan'::float4, '99.99') || ']';
select '[' || to_char('-inf'::numeric, '9999999999PR') || ']', '[' || to_char('nan'::numeric, '9,999,999,999') || ']';
