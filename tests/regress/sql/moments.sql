-- var_pop, var_samp, stddev_pop, stddev_samp, variance, stddev (types/src/moments.rs).
SELECT var_pop(x), var_samp(x), stddev_pop(x), stddev_samp(x), variance(x), stddev(x) FROM (VALUES (1), (2), (4)) v(x);
SELECT var_pop(x::float8), var_samp(x::float4), stddev_pop(x::float8), stddev_samp(x::float8) FROM (VALUES (1), (2), (4)) v(x);
SELECT variance(x), stddev(x) FROM (VALUES (1.50),(2.25),(3.125)) v(x);
SELECT var_samp(x) FROM (VALUES (1::int8)) v(x);
SELECT var_pop(x) FROM (VALUES (1::int8)) v(x);
SELECT var_pop(x) FROM (VALUES (1::int8)) v(x) WHERE false;
SELECT var_pop(x), stddev_samp(x) FROM (VALUES ('NaN'::numeric), (1)) v(x);
SELECT var_pop(x), var_samp(x) FROM (VALUES ('Infinity'::float8), (1)) v(x);
SELECT var_pop(x) FROM (VALUES (1e308::float8), (1e308)) v(x);
SELECT g, variance(x), stddev(x) FROM (VALUES (1, 10), (1, 20), (2, 5), (2, 5), (2, 8)) v(g, x) GROUP BY g ORDER BY g;
SELECT stddev(x) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM (VALUES (1.0), (3.0), (7.5)) v(x);
SELECT variance('a'::text);
SELECT var_samp(x::int2), stddev_pop(x::int4) FROM generate_series(1, 100) x;
SELECT variance(x) FROM (VALUES (12345678901234567890.123), (1.5)) v(x);
