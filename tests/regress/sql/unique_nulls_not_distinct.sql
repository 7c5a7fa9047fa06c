-- UNIQUE ... NULLS NOT DISTINCT (PostgreSQL 15): NULL keys conflict; CREATE
-- INDEX CONCURRENTLY refuses a transaction block.
CREATE TABLE unique_tbl (i int, t text);
CREATE UNIQUE INDEX unique_idx1 ON unique_tbl (i) NULLS DISTINCT;
CREATE UNIQUE INDEX unique_idx2 ON unique_tbl (i) NULLS NOT DISTINCT;
INSERT INTO unique_tbl VALUES (1, 'one');
INSERT INTO unique_tbl VALUES (2, 'two');
INSERT INTO unique_tbl VALUES (3, 'three');
INSERT INTO unique_tbl VALUES (4, 'four');
INSERT INTO unique_tbl VALUES (5, 'one');
INSERT INTO unique_tbl (t) VALUES ('six');
INSERT INTO unique_tbl (t) VALUES ('seven');  -- error from unique_idx2
DROP INDEX unique_idx1, unique_idx2;
INSERT INTO unique_tbl (t) VALUES ('seven');
-- build indexes on filled table
CREATE UNIQUE INDEX unique_idx3 ON unique_tbl (i) NULLS DISTINCT;  -- ok
CREATE UNIQUE INDEX unique_idx4 ON unique_tbl (i) NULLS NOT DISTINCT;  -- error
DELETE FROM unique_tbl WHERE t = 'seven';
CREATE UNIQUE INDEX unique_idx4 ON unique_tbl (i) NULLS NOT DISTINCT;  -- ok now
\d unique_tbl
SELECT pg_get_indexdef('unique_idx3'::regclass);
SELECT pg_get_indexdef('unique_idx4'::regclass);
DROP TABLE unique_tbl;
CREATE TABLE concur_heap (f1 text, f2 text);
BEGIN;
CREATE INDEX CONCURRENTLY concur_index7 ON concur_heap(f1);
COMMIT;
SELECT 1\; CREATE INDEX CONCURRENTLY concur_index7 ON concur_heap(f1);
CREATE INDEX CONCURRENTLY concur_index7 ON concur_heap(f1);
DROP TABLE concur_heap;
CREATE TABLE nnd_t (a int, b int, UNIQUE NULLS NOT DISTINCT (a, b), c int UNIQUE NULLS NOT DISTINCT);
INSERT INTO nnd_t VALUES (1, NULL, 1), (NULL, NULL, 2);
INSERT INTO nnd_t VALUES (1, NULL, 3);
INSERT INTO nnd_t VALUES (2, 2, NULL);
INSERT INTO nnd_t VALUES (3, 3, NULL);
INSERT INTO nnd_t VALUES (NULL, NULL, 4) ON CONFLICT DO NOTHING;
SELECT * FROM nnd_t ORDER BY a, b, c;
\d nnd_t
SELECT indexrelid::regclass, indnullsnotdistinct FROM pg_index WHERE indrelid = 'nnd_t'::regclass ORDER BY 1;
CREATE UNIQUE INDEX nnd_expr ON nnd_t ((a + 1)) NULLS NOT DISTINCT;
