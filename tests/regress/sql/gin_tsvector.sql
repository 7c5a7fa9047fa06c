-- GIN indexes on tsvector (tsvector_ops): on a column and on a
-- to_tsvector expression; answers equal to an unindexed scan's.
CREATE TABLE gt (id int, body text, tv tsvector);
INSERT INTO gt (id, body) SELECT g, 'the quick brown fox ' || g ||
  CASE WHEN g % 10 = 0 THEN ' jumps over' WHEN g % 7 = 0 THEN ' sleeps' ELSE ' runs' END
  FROM generate_series(1, 500) g;
UPDATE gt SET tv = to_tsvector('english', body);
CREATE TABLE gt_plain AS SELECT * FROM gt;
CREATE INDEX gt_tv ON gt USING gin (tv);
CREATE INDEX gt_body ON gt USING gin (to_tsvector('english', body));

SELECT opcname FROM pg_opclass WHERE oid = (SELECT indclass[0] FROM pg_index WHERE indexrelid = 'gt_tv'::regclass);
CREATE INDEX gt_bad ON gt USING gin (body);
SET enable_seqscan = off;
SELECT q, (SELECT count(*) FROM gt WHERE tv @@ q::tsquery) AS indexed,
          (SELECT count(*) FROM gt_plain WHERE tv @@ q::tsquery) AS plain
  FROM (VALUES ('jump'), ('!jump'), ('jump:*'), ('jump | sleep'), ('jump & 10'),
               ('fox <-> 10'), ('!(jump | sleep)'), ('nosuchword'), ('quick & !run')) v(q);
SELECT count(*) FROM gt WHERE to_tsvector('english', body) @@ plainto_tsquery('english', 'jumping foxes');
SELECT count(*) FROM gt WHERE to_tsquery('english', 'sleeping') @@ tv;
SELECT count(*) FROM gt WHERE to_tsvector('english', body) @@ websearch_to_tsquery('english', '"quick brown" -jumps');
-- writes keep the index
UPDATE gt SET body = body || ' leaps', tv = to_tsvector('english', body || ' leaps') WHERE id % 100 = 0;
DELETE FROM gt WHERE id % 50 = 1;
SELECT count(*) FROM gt WHERE tv @@ to_tsquery('english', 'leap');
SELECT count(*) FROM gt WHERE to_tsvector('english', body) @@ to_tsquery('english', 'leap');
SELECT count(*) FROM gt WHERE tv @@ to_tsquery('english', 'fox');
RESET enable_seqscan;
-- INSERT ... SELECT with a NULL for a column of another type
INSERT INTO gt SELECT 1000, 'no vector', NULL;
SELECT id, tv IS NULL FROM gt WHERE id = 1000;
