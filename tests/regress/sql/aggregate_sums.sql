-- sum() and avg() of integers (exec aggregate.rs: an exact integer total,
-- turned into PostgreSQL's result type once at the end).
CREATE TABLE ag (g int, s smallint, i int, b bigint);
INSERT INTO ag VALUES
  (1, 1, 10, 9223372036854775807),
  (1, 2, -3, 9223372036854775807),
  (2, NULL, NULL, NULL),
  (2, 32767, 2147483647, -9223372036854775808),
  (3, -5, 7, 1);
SELECT sum(s), sum(i), sum(b), avg(s), avg(i), avg(b) FROM ag;
SELECT g, sum(s), sum(i), sum(b), avg(s), avg(i), avg(b), count(*) FROM ag GROUP BY g ORDER BY g;
SELECT pg_typeof(sum(s)), pg_typeof(sum(i)), pg_typeof(sum(b)), pg_typeof(avg(i)) FROM ag;
-- No rows, only NULLs.
SELECT sum(i), avg(b) FROM ag WHERE false;
SELECT sum(i), avg(b) FROM ag WHERE g = 2 AND i IS NULL;
-- Large totals stay exact.
SELECT sum(b) * 2, avg(b) FROM ag WHERE b > 0;
SELECT sum(x), avg(x) FROM generate_series(9223372036854775000, 9223372036854775807) AS x;
SELECT sum(x::int), avg(x::int) FROM generate_series(1, 100000) AS x;
-- As window functions (running totals over the same accumulators).
SELECT g, i, sum(i) OVER (ORDER BY g, i), avg(b) OVER (PARTITION BY g ORDER BY i)
  FROM ag ORDER BY g, i;
-- FILTER and DISTINCT.
SELECT sum(i) FILTER (WHERE g > 1), avg(DISTINCT b), sum(DISTINCT s) FROM ag;
-- Other argument types keep their own arithmetic.
SELECT sum(x::numeric / 3), avg(x::float8), sum(x::float4) FROM generate_series(1, 5) AS x;
SELECT sum(i * 1.5), avg(i::numeric) FROM ag;
DROP TABLE ag;
