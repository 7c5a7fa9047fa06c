-- Rows equal on every sort key ("peers") come out in the order
-- PostgreSQL's quicksort leaves them (unstable, but deterministic for one
-- input order), under ORDER BY, window sorts and a LIMIT's bounded sort.
CREATE TABLE t (u int, four int, name text);
INSERT INTO t SELECT u, u % 4, 'n' || u FROM unnest(ARRAY[4, 2, 1, 6, 9, 8, 5, 3, 7, 0]) u;
SELECT u, four FROM t ORDER BY four;
SELECT u, four FROM t ORDER BY four DESC;
SELECT u, four FROM t ORDER BY four LIMIT 2;
SELECT u, four FROM t ORDER BY four LIMIT 3;
SELECT u, four FROM t ORDER BY four LIMIT 5;
SELECT u, four FROM t ORDER BY four LIMIT 2 OFFSET 1;
SELECT u, four FROM t ORDER BY four FETCH FIRST 1 ROWS WITH TIES;
SELECT u, four FROM (SELECT * FROM t UNION ALL SELECT * FROM t) s ORDER BY four LIMIT 4;
-- window sorts: each sorts the previous one's output
SELECT u, four, row_number() OVER (ORDER BY four) FROM t;
SELECT u, four, sum(u) OVER (PARTITION BY four), rank() OVER (ORDER BY four DESC) FROM t;
SELECT u, four, first_value(u) OVER (ORDER BY four ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING EXCLUDE GROUP) FROM t;
SELECT four, sum(u), row_number() OVER (ORDER BY four), sum(sum(u)) OVER (ORDER BY four DESC) FROM t GROUP BY four;
SELECT u, four, lag(u, 1, 0.5) OVER (ORDER BY four), lead(u, 2, -1) OVER (PARTITION BY four ORDER BY u) FROM t;
SELECT lag(u, 1, 'x'::text) OVER () FROM t;
-- set-returning functions run after the sort, so each row's set keeps its order
SELECT u, generate_series(1, 3) FROM t ORDER BY four LIMIT 7;
-- ordered aggregates sort their input the same way
SELECT four % 2 AS parity, string_agg(name, ',' ORDER BY four) FROM t GROUP BY 1 ORDER BY 1;
