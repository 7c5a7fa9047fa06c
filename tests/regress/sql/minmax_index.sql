-- min and max of an indexed column read the index's first non-NULL entry
-- in their direction (PostgreSQL's planagg); answers as a full scan's.
CREATE TABLE mx (id int PRIMARY KEY, v int, w text, d date);
INSERT INTO mx SELECT g, CASE WHEN g % 7 = 0 THEN NULL ELSE g % 100 END,
  'w' || (g % 37), DATE '2024-01-01' + g % 400 FROM generate_series(1, 2000) g;
CREATE INDEX mx_v ON mx (v);
CREATE INDEX mx_w ON mx (w);
CREATE INDEX mx_d ON mx (d DESC);
SELECT min(id), max(id), min(v), max(v), min(w), max(w), min(d), max(d) FROM mx;
SELECT max(v) FROM mx WHERE v < 42;
SELECT min(v) FROM mx WHERE v > 42 AND id % 2 = 0;
SELECT max(v) FROM mx WHERE id > 1990;
SELECT min(id) FROM mx WHERE v IS NULL;
SELECT max(v) FROM mx WHERE v > 1000;
SELECT max(v) FROM mx HAVING max(v) > 50;
SELECT max(v) FROM mx HAVING max(v) > 500;
SELECT max(v) + 1 AS m, min(v) * 2 FROM mx;
SELECT max(v), count(*) FROM mx;
SELECT max(DISTINCT v), min(v) FILTER (WHERE v > 10) FROM mx;
-- answers follow updates, deletes and rollbacks
BEGIN;
DELETE FROM mx WHERE v = 99;
SELECT max(v) FROM mx;
ROLLBACK;
SELECT max(v) FROM mx;
UPDATE mx SET v = NULL WHERE v >= 98;
SELECT max(v), min(v) FROM mx;
-- all NULL, empty
CREATE TABLE mxn (a int);
CREATE INDEX ON mxn (a);
SELECT min(a), max(a) FROM mxn;
INSERT INTO mxn VALUES (NULL), (NULL);
SELECT min(a), max(a) FROM mxn;
-- in a subquery and a prepared statement
SELECT id FROM mx WHERE id = (SELECT max(id) FROM mx);
PREPARE mxp(int) AS SELECT max(v) FROM mx WHERE v < $1;
EXECUTE mxp(10);
EXECUTE mxp(0);
