-- Sorts, hash aggregates and hash joins past work_mem spill to temporary files and merge them back: each
-- query's result with work_mem = '64kB' (spilling) must be what it is in
-- memory, and PostgreSQL's. Results are fingerprinted with md5 to stay short.
SHOW work_mem;
SHOW temp_file_limit;
SET work_mem = 63;
SET temp_file_limit = -2;
CREATE TABLE t (id int, i int, s text, n numeric, f float8, a int[]);
INSERT INTO t SELECT g,
  CASE WHEN g % 11 = 0 THEN NULL ELSE (g * 7919) % 1000 END,
  CASE WHEN g % 13 = 0 THEN NULL ELSE md5(g::text) END,
  CASE WHEN g % 17 = 0 THEN NULL ELSE ((g * 31) % 977)::numeric / 7 END,
  ((g * 13) % 101)::float8 / 3,
  ARRAY[g % 5, g % 3]
FROM generate_series(1, 5000) g;
SET work_mem = '64kB';
SHOW work_mem;
SELECT md5(string_agg(id::text || ':' || coalesce(i::text, '-'), ',')) FROM (SELECT id, i FROM t ORDER BY i, id) x;
SELECT md5(string_agg(id::text || ':' || coalesce(i::text, '-'), ',')) FROM (SELECT id, i FROM t ORDER BY i DESC, id) x;
SELECT md5(string_agg(id::text || ':' || coalesce(i::text, '-'), ',')) FROM (SELECT id, i FROM t ORDER BY i NULLS FIRST, id DESC) x;
SELECT md5(string_agg(id::text || ':' || coalesce(i::text, '-'), ',')) FROM (SELECT id, i FROM t ORDER BY i DESC NULLS LAST, id) x;
SELECT md5(string_agg(id::text || ':' || coalesce(s, '-'), ',')) FROM (SELECT id, s FROM t ORDER BY s, id) x;
SELECT md5(string_agg(id::text || ':' || coalesce(s, '-'), ',')) FROM (SELECT id, s FROM t ORDER BY s DESC NULLS LAST, id) x;
SELECT md5(string_agg(x::text, ',')) FROM (SELECT * FROM t ORDER BY n, f DESC, id) x;
SELECT md5(string_agg(x::text, ',')) FROM (SELECT a, id FROM t ORDER BY a, id DESC) x;
SELECT id, i, s FROM t ORDER BY i, id LIMIT 5 OFFSET 3500;
SELECT id, n FROM t ORDER BY n DESC NULLS FIRST, id LIMIT 3;
SELECT g FROM generate_series(1, 10000) g ORDER BY (g * 7919) % 10007 LIMIT 5 OFFSET 5000;
SELECT count(*), sum(g::bigint) FROM (SELECT g FROM generate_series(1, 10000) g ORDER BY g DESC OFFSET 0) x;
-- Hash aggregation past work_mem: rows of new groups go to batches.
SELECT md5(string_agg(x::text, ',')) FROM (SELECT id % 1999 AS k, count(*), sum(i), min(s), max(n), max(f) FROM t GROUP BY 1 ORDER BY 1) x;
SELECT md5(string_agg(x::text, ',')) FROM (SELECT n, count(*) FROM (SELECT CASE WHEN id % 2 = 0 THEN (id % 1500)::numeric ELSE round((id % 1500)::numeric, 2) END AS n FROM t) y GROUP BY n ORDER BY n) x;
SELECT count(*), sum(c) FROM (SELECT s, count(*) AS c FROM t GROUP BY s) x;
SELECT md5(string_agg(x::text, ',')) FROM (SELECT id % 1000 AS k, i % 2 AS j, count(*) FROM t GROUP BY ROLLUP (1, 2) ORDER BY 1, 2, 3) x;
SELECT md5(string_agg(k::text, ',')) FROM (SELECT DISTINCT id % 2000 AS k FROM t ORDER BY k) x;
SELECT count(*) FROM (SELECT DISTINCT id % 2345, s FROM t) x;
SELECT count(*), sum(k) FROM (SELECT id % 1500 AS k FROM t UNION SELECT id % 2500 FROM t) x;
-- Hash joins past work_mem: grace hash join in batches, every join kind.
CREATE TABLE u (k bigint, v text);
INSERT INTO u SELECT CASE WHEN g % 19 = 0 THEN NULL ELSE g % 2500 END, 'v' || g FROM generate_series(1, 4000) g;
SELECT count(*), md5(string_agg(x::text, ',')) FROM (SELECT t.id, u.v FROM t JOIN u ON t.i = u.k ORDER BY 1, 2) x;
SELECT count(*), md5(string_agg(x::text, ',')) FROM (SELECT t.id, u.v FROM t LEFT JOIN u ON t.id = u.k ORDER BY 1, 2) x;
SELECT count(*), md5(string_agg(x::text, ',')) FROM (SELECT t.id, u.v FROM t RIGHT JOIN u ON t.id = u.k ORDER BY 1, 2) x;
SELECT count(*), md5(string_agg(x::text, ',')) FROM (SELECT t.id, u.v FROM t FULL JOIN u ON t.id = u.k AND u.v > 'v5' ORDER BY 1, 2) x;
SELECT count(*), count(t.id), count(u.k) FROM t FULL JOIN u ON t.id % 1000 = u.k;
-- An error while the runs are being written.
SELECT id FROM t ORDER BY 1 / (5000 - id);
SET temp_file_limit = '100kB';
SHOW temp_file_limit;
SELECT * FROM t ORDER BY s;
RESET temp_file_limit;
RESET work_mem;
SHOW work_mem;
SELECT md5(string_agg(x::text, ',')) FROM (SELECT * FROM t ORDER BY n, f DESC, id) x;
