-- Sorts past work_mem spill to temporary files and merge them back: each
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
FROM generate_series(1, 30000) g;
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
SELECT id, i, s FROM t ORDER BY i, id LIMIT 5 OFFSET 20000;
SELECT id, n FROM t ORDER BY n DESC NULLS FIRST, id LIMIT 3;
SELECT g FROM generate_series(1, 50000) g ORDER BY (g * 7919) % 50021 LIMIT 5 OFFSET 25000;
SELECT count(*), sum(g::bigint) FROM (SELECT g FROM generate_series(1, 50000) g ORDER BY g DESC OFFSET 0) x;
-- An error while the runs are being written.
SELECT id FROM t ORDER BY 1 / (30000 - id);
SET temp_file_limit = '100kB';
SHOW temp_file_limit;
SELECT * FROM t ORDER BY s;
RESET temp_file_limit;
RESET work_mem;
SHOW work_mem;
SELECT md5(string_agg(x::text, ',')) FROM (SELECT * FROM t ORDER BY n, f DESC, id) x;
