-- jsonb's btree order (object > array > boolean > number > string > null;
-- containers by count first; numbers by value) in comparisons, sorts,
-- DISTINCT, GROUP BY, hash joins and btree indexes.
SELECT '{"a":1}'::jsonb > '{"p":1}', '[1,2]'::jsonb > '{}', '{"aa":1}'::jsonb > '{"b":1}',
       '1.0'::jsonb = '1', '[]'::jsonb < 'null', '"a"'::jsonb < '1', 'true'::jsonb > '1',
       '{"a":1, "b":2}'::jsonb > '{"c":5}', '[[1]]'::jsonb > '[1]';
CREATE TABLE jo (id int, j jsonb);
INSERT INTO jo VALUES (1, '1'), (2, '1.0'), (3, '"x"'), (4, 'null'), (5, '[]'),
  (6, '[1, 2]'), (7, '{}'), (8, '{"a": 1}'), (9, '{"a": 1.00}'), (10, 'true'),
  (11, '[1]'), (12, '{"b": [2]}'), (13, '{"a": 1, "b": 2}'), (14, '"abc"'), (15, '[[1]]');
SELECT id, j FROM jo ORDER BY j, id;
SELECT count(DISTINCT j) FROM jo;
SELECT j, count(*) FROM jo GROUP BY j ORDER BY j;
SELECT a.id, b.id FROM jo a JOIN jo b ON a.j = b.j AND a.id < b.id ORDER BY 1, 2;
SELECT id FROM jo WHERE j > '{"a": 1}' ORDER BY id;
SELECT id FROM jo WHERE j = '1' ORDER BY id;
CREATE INDEX jo_j ON jo (j);
SET enable_seqscan = off;
SELECT id FROM jo WHERE j > '{"a": 1}' ORDER BY id;
SELECT id FROM jo WHERE j = '1.000' ORDER BY id;
SELECT id FROM jo WHERE j BETWEEN '[]' AND '[1]' ORDER BY id;
RESET enable_seqscan;
CREATE TABLE ju (j jsonb UNIQUE);
INSERT INTO ju VALUES ('{"n": 2.5}');
INSERT INTO ju VALUES ('{"n": 2.50}');
SELECT * FROM ju;
-- ORDER BY ... LIMIT reads a btree index on jsonb in its order
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM jo ORDER BY j LIMIT 3;
SELECT id, j FROM jo ORDER BY j LIMIT 3;
SELECT id, j FROM jo ORDER BY j DESC LIMIT 3;
RESET enable_seqscan;
