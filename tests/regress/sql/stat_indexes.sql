-- pg_stat_user_indexes / pg_stat_all_indexes and pg_statio_user_tables:
-- columns, one row per index, index scans counted per index (an IN list
-- counts one scan per distinct value) and summed into the table's idx_scan.
-- idx_tup_fetch is left out: PostgreSQL counts only plain index scans'
-- heap fetches (its planner picks bitmap scans here), Nestor every row an
-- index lookup returns. Block counters are left out too (Nestor has none).
SELECT * FROM pg_stat_user_indexes WHERE false;
SELECT * FROM pg_stat_all_indexes WHERE false;
SELECT * FROM pg_statio_user_tables WHERE false;
CREATE TABLE si (id int PRIMARY KEY, v int, w int);
CREATE INDEX si_v ON si (v);
CREATE TABLE si_noidx (x int);
INSERT INTO si SELECT g, g % 3, g FROM generate_series(1, 10) g;
INSERT INTO si_noidx VALUES (1), (2);
SELECT * FROM si WHERE id = 4;
SELECT * FROM si WHERE v = 1 ORDER BY id;
SELECT * FROM si WHERE id IN (1, 2, 2, 99) ORDER BY id;
UPDATE si SET w = 0 WHERE id = 5;
DELETE FROM si WHERE id = 6;
SELECT * FROM si_noidx;
SELECT pg_stat_force_next_flush();
SELECT relname, indexrelname, idx_scan, idx_tup_read,
       relid = 'si'::regclass AS relid_ok,
       indexrelid = indexrelname::regclass AS indexrelid_ok, schemaname
  FROM pg_stat_user_indexes ORDER BY indexrelname;
SELECT count(*) FROM pg_stat_all_indexes WHERE relname = 'si';
SELECT relname, idx_scan FROM pg_stat_user_tables ORDER BY relname;
SELECT relname, idx_blks_read IS NULL AS no_idx, toast_blks_read IS NULL AS no_toast,
       tidx_blks_hit IS NULL AS no_tidx
  FROM pg_statio_user_tables ORDER BY relname;
SELECT count(*) FROM pg_statio_all_tables WHERE relname LIKE 'si%';
DROP INDEX si_v;
SELECT indexrelname FROM pg_stat_user_indexes ORDER BY 1;
