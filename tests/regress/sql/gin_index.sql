-- CREATE INDEX ... USING gin: jsonb_ops, jsonb_path_ops and array_ops,
-- their errors, the planner's use of them (Bitmap Heap Scan with a
-- recheck), results equal to an unindexed copy for every operator,
-- maintenance by every write path, partitions, and the catalog.
\set VERBOSITY verbose
CREATE TABLE g (id int, body jsonb, tags int[], words text[], n int);
-- what gin does not support
CREATE INDEX ON g USING gin (n);
CREATE INDEX ON g USING gin ((n + 1));
CREATE UNIQUE INDEX ON g USING gin (body);
CREATE INDEX ON g USING gin (body) INCLUDE (id);
CREATE INDEX ON g USING gin (body DESC);
CREATE INDEX ON g USING gin (body NULLS FIRST);
CREATE INDEX ON g USING gin (body nosuch_ops);
CREATE INDEX ON g USING gin (tags jsonb_path_ops);
CREATE INDEX ON g USING gin (body array_ops);
-- array elements without an order
CREATE TABLE gbad (p point[], j json[], l line[], m money[]);
CREATE INDEX ON gbad USING gin (p);
CREATE INDEX ON gbad USING gin (j);
CREATE INDEX ON gbad USING gin ((l));
CREATE INDEX ON gbad USING gin (m);
DROP TABLE gbad;
-- storage parameters
CREATE INDEX ON g USING gin (body) WITH (fillfactor = 50);
CREATE INDEX ON g USING gin (body) WITH (fastupdate = maybe);
CREATE INDEX ON g USING gin (body) WITH (gin_pending_list_limit = 10);
CREATE INDEX ON g USING gin (body) WITH (gin_pending_list_limit = 'x');
\set VERBOSITY default
-- the rows, and an unindexed copy to compare with
INSERT INTO g
SELECT i,
       jsonb_build_object('a', i % 5, 'b', jsonb_build_array(i % 3, 'x' || (i % 4)),
                          'k' || (i % 6), i % 2 = 0, 'c', jsonb_build_object('d', i % 7)),
       ARRAY[i % 7, i % 11, (i % 13) * 10],
       ARRAY['w' || (i % 5), 'v' || (i % 3)],
       i
FROM generate_series(1, 300) i;
INSERT INTO g VALUES
  (1001, '{}', '{}', '{}', 0),
  (1002, NULL, NULL, NULL, 0),
  (1003, '["foo", 1, null, true]', '{NULL}', '{NULL}', 0),
  (1004, '"foo"', '{1,NULL}', '{w1,NULL}', 0),
  (1005, '{"a": 1.0, "foo": "bar", "arr": ["foo"]}', '{1,1,2}', '{w1,w1}', 0),
  (1006, '[{"a": 1}, [2, 3]]', '{3}', '{}', 0),
  (1007, '123', '{{1,2},{3,4}}', '{{a,b},{c,d}}', 0);
CREATE TABLE gplain AS SELECT * FROM g;
CREATE INDEX g_body ON g USING gin (body);
CREATE INDEX g_path ON g USING gin (body jsonb_path_ops) WITH (fastupdate = off, gin_pending_list_limit = 1024);
CREATE INDEX g_tags ON g USING gin (tags);
\d g
SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'g' ORDER BY 1;
SELECT pg_get_indexdef('g_path'::regclass);
SELECT relname, reloptions FROM pg_class WHERE relname IN ('g_path', 'g_tags') ORDER BY 1;
SELECT amname, amtype FROM pg_am WHERE amname = 'gin';
SELECT c.relname, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam
WHERE c.relname LIKE 'g\_%' ORDER BY 1;
SELECT opcname, opcdefault, opcintype::regtype FROM pg_opclass o JOIN pg_am a ON a.oid = o.opcmethod
WHERE a.amname = 'gin' AND opcname <> 'tsvector_ops' ORDER BY 1;
SELECT c.relname, o.opcname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
JOIN pg_opclass o ON o.oid = i.indclass[0]
WHERE i.indrelid = 'g'::regclass ORDER BY 1;
-- each operator: the index's answer, and the unindexed copy's
SET enable_seqscan = off;
CREATE FUNCTION check_gin(cond text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  a text;
  b text;
BEGIN
  EXECUTE 'SELECT count(*) || '':'' || coalesce(sum(id), 0) FROM g WHERE ' || cond INTO a;
  EXECUTE 'SELECT count(*) || '':'' || coalesce(sum(id), 0) FROM gplain WHERE ' || cond INTO b;
  IF a = b THEN
    RETURN a;
  END IF;
  RETURN 'MISMATCH ' || a || ' vs ' || b;
END $$;
SELECT cond, check_gin(cond) FROM (VALUES
  ('body @> ''{"a": 1}'''),
  ('body @> ''{"a": 1.00}'''),
  ('body @> ''{"b": [2]}'''),
  ('body @> ''{"b": ["x3"]}'''),
  ('body @> ''{"b": [1, "x1"]}'''),
  ('body @> ''{"c": {"d": 3}}'''),
  ('body @> ''{"c": {}}'''),
  ('body @> ''{"k1": true}'''),
  ('body @> ''{"k1": false}'''),
  ('body @> ''{}'''),
  ('body @> ''[]'''),
  ('body @> ''"foo"'''),
  ('body @> ''["foo"]'''),
  ('body @> ''[1, true]'''),
  ('body @> ''[null]'''),
  ('body @> ''[[2]]'''),
  ('body @> ''[{"a": 1}]'''),
  ('body @> ''123'''),
  ('body @> ''{"foo": "bar"}'''),
  ('body @> ''{"arr": ["foo"]}'''),
  ('body @> ''{"a": 9}'''),
  ('''{"a": 2}'' <@ body'),
  ('body ? ''a'''),
  ('body ? ''k2'''),
  ('body ? ''foo'''),
  ('body ? ''bar'''),
  ('body ? ''x1'''),
  ('body ?| ARRAY[''k1'', ''k2'']'),
  ('body ?| ARRAY[''nosuch'']'),
  ('body ?| ''{}''::text[]'),
  ('body ?& ARRAY[''k1'', ''a'']'),
  ('body ?& ARRAY[''k1'', ''k2'']'),
  ('body ?& ''{}''::text[]'),
  ('body @? ''$.a ? (@ == 1)'''),
  ('body @@ ''$.a == 1'''),
  ('body @@ ''$.a == 1.0 && $.c.d == 3'''),
  ('body @? ''$.b[*] ? (@ == "x1")'''),
  ('body @@ ''$.b[*] == "x2"'''),
  ('body @@ ''$.foo == "bar"'''),
  ('body @@ ''$.arr == "foo"'''),
  ('body @@ ''$.c.d == 3'''),
  ('body @@ ''$.a == 1 || $.a == 2'''),
  ('body @@ ''!($.a == 1)'''),
  ('body @? ''$.k1'''),
  ('body @? ''$.*.d'''),
  ('body @? ''$.** ? (@ == 4)'''),
  ('body @@ ''$.b.type() == "array"'''),
  ('body @@ ''$.b.size() == 2'''),
  ('body @? ''strict $.b[0]'''),
  ('body @@ ''exists($.foo)'''),
  ('body @@ ''$.a > 2'''),
  ('body @@ ''$[*] == null'''),
  ('body @@ ''$ == 123'''),
  ('body @> ''{"a": 1}'' AND body ? ''k3'''),
  ('body @> ''{"a": 1}'' AND n > 100'),
  ('tags && ''{1,2}'''),
  ('tags && ''{}'''),
  ('tags && ''{NULL}'''),
  ('tags @> ''{1}'''),
  ('tags @> ''{1,2}'''),
  ('tags @> ''{}'''),
  ('tags @> ''{NULL}'''),
  ('tags <@ ''{1,2,3,10,20}'''),
  ('tags <@ ''{}'''),
  ('tags <@ ''{1,2,NULL}'''),
  ('tags = ''{}'''),
  ('tags = ''{NULL}'''),
  ('tags = ''{1,NULL}'''),
  ('tags = ''{1,1,2}'''),
  ('tags = ''{3}'''),
  ('tags = ''{{1,2},{3,4}}'''),
  ('''{1,2}'' && tags'),
  ('''{1,2,3}'' @> tags'),
  ('''{3}'' <@ tags'),
  ('words @> ''{w1}'''),
  ('words && ''{v2,w4}''')
) v(cond);
-- several key columns
CREATE TABLE gm AS SELECT id, words, body FROM g;
CREATE INDEX gm_multi ON gm USING gin (words, body) WITH (fastupdate);
\d gm
EXPLAIN (COSTS OFF) SELECT id FROM gm WHERE words @> '{w1}' AND body ? 'k2';
SELECT count(*), sum(id) FROM gm WHERE words @> '{w1}' AND body ? 'k2';
SELECT count(*), sum(id) FROM gplain WHERE words @> '{w1}' AND body ? 'k2';
SELECT count(*), sum(id) FROM gm WHERE body ? 'w1';
SELECT count(*), sum(id) FROM gm WHERE words @> '{k2}';
DROP TABLE gm;
-- the plans
EXPLAIN (COSTS OFF) SELECT * FROM g WHERE body @> '{"a": 1}';
EXPLAIN (COSTS OFF) SELECT * FROM g WHERE body ? 'a';
EXPLAIN (COSTS OFF) SELECT * FROM g WHERE body ?| ARRAY['a', 'b'] AND id > 5;
EXPLAIN (COSTS OFF) SELECT * FROM g WHERE body @@ '$.a == 1';
EXPLAIN (COSTS OFF) SELECT * FROM g WHERE body @? '$.c ? (@.d == 3)';
EXPLAIN (COSTS OFF) SELECT * FROM g WHERE tags && '{1,2}';
EXPLAIN (COSTS OFF) SELECT * FROM g WHERE tags <@ '{1,2}';
EXPLAIN (COSTS OFF) SELECT * FROM g WHERE tags = '{1,2}';
EXPLAIN (COSTS OFF) SELECT count(*) FROM g WHERE tags @> '{1}' AND tags && '{2,3}';
-- parameters
PREPARE pj(jsonb) AS SELECT count(*) FROM g WHERE body @> $1;
EXECUTE pj('{"a": 2}');
EXECUTE pj('{}');
EXECUTE pj(NULL);
PREPARE pa(int[]) AS SELECT count(*) FROM g WHERE tags && $1;
EXECUTE pa('{5,6}');
EXECUTE pa(NULL);
PREPARE pk(text) AS SELECT count(*) FROM g WHERE body ? $1;
EXECUTE pk('k5');
-- writes keep the index right: updates that change and keep keys
UPDATE g SET body = body || '{"new": 1}' WHERE id = 5;
UPDATE g SET n = n + 1 WHERE id = 6;
UPDATE g SET tags = '{777}' WHERE id = 7;
SELECT id FROM g WHERE body ? 'new';
SELECT id FROM g WHERE body @> '{"a": 1}' AND id < 12 ORDER BY id;
SELECT id FROM g WHERE tags && '{777}';
SELECT id FROM g WHERE tags @> '{0}' AND id < 10 ORDER BY id;
DELETE FROM g WHERE id = 8;
SELECT id FROM g WHERE body @> '{"a": 3}' AND id < 20 ORDER BY id;
BEGIN;
UPDATE g SET body = '{"tx": 1}' WHERE id = 9;
INSERT INTO g (id, body, tags) VALUES (2000, '{"tx": 2}', '{888}');
SELECT id FROM g WHERE body ? 'tx' ORDER BY id;
SAVEPOINT s;
INSERT INTO g (id, body, tags) VALUES (2001, '{"tx": 3}', '{888}');
DELETE FROM g WHERE id = 2000;
SELECT id FROM g WHERE body ? 'tx' ORDER BY id;
ROLLBACK TO s;
SELECT id FROM g WHERE body ? 'tx' ORDER BY id;
SELECT id FROM g WHERE tags && '{888}' ORDER BY id;
ROLLBACK;
SELECT id FROM g WHERE body ? 'tx' ORDER BY id;
SELECT id FROM g WHERE tags && '{888}' ORDER BY id;
COPY g (id, body, tags) FROM stdin;
3000	{"copied": [1, 2]}	{999}
\.
SELECT id FROM g WHERE body @> '{"copied": [2]}';
SELECT id FROM g WHERE tags @> '{999}';
-- after the writes: the index's answer against a scan of g itself
CREATE FUNCTION check_self(cond text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  a text;
  b text;
BEGIN
  EXECUTE 'SELECT count(*) || '':'' || coalesce(sum(id), 0) FROM g WHERE ' || cond INTO a;
  EXECUTE 'SELECT count(*) || '':'' || coalesce(sum(id), 0) FROM (SELECT * FROM g OFFSET 0) s WHERE ' || cond INTO b;
  IF a = b THEN
    RETURN a;
  END IF;
  RETURN 'MISMATCH ' || a || ' vs ' || b;
END $$;
SELECT cond, check_self(cond) FROM (VALUES
  ('body @> ''{"a": 1}'''), ('body ? ''new'''), ('tags && ''{777,999}'''),
  ('body @> ''{"copied": [1]}'''), ('tags <@ ''{0,1,2,3,10,20,777,999}''')
) v(cond);
TRUNCATE g;
SELECT count(*) FROM g WHERE body ? 'a';
INSERT INTO g (id, body, tags) VALUES (1, '{"a": 1}', '{1}');
SELECT id FROM g WHERE body ? 'a';
SELECT id FROM g WHERE tags && '{1}';
-- expression and partial GIN indexes
CREATE TABLE ge (id int, doc jsonb);
INSERT INTO ge SELECT i, jsonb_build_object('inner', jsonb_build_object('t', i % 4), 'id', i)
FROM generate_series(1, 50) i;
CREATE INDEX ge_inner ON ge USING gin ((doc -> 'inner') jsonb_path_ops);
CREATE INDEX ge_part ON ge USING gin (doc) WHERE id > 40;
\d ge
EXPLAIN (COSTS OFF) SELECT id FROM ge WHERE doc -> 'inner' @> '{"t": 2}';
SELECT count(*) FROM ge WHERE doc -> 'inner' @> '{"t": 2}';
EXPLAIN (COSTS OFF) SELECT id FROM ge WHERE doc ? 'id' AND id > 40;
SELECT count(*) FROM ge WHERE doc ? 'id' AND id > 40;
EXPLAIN (COSTS OFF) SELECT id FROM ge WHERE doc ? 'id' AND id > 45;
SELECT count(*) FROM ge WHERE doc ? 'id' AND id > 45;
-- partitioned tables: the index on every partition, with its class
CREATE TABLE gp (k int, doc jsonb) PARTITION BY RANGE (k);
CREATE TABLE gp1 PARTITION OF gp FOR VALUES FROM (0) TO (100);
CREATE INDEX gp_doc ON gp USING gin (doc jsonb_path_ops);
CREATE TABLE gp2 PARTITION OF gp FOR VALUES FROM (100) TO (200);
INSERT INTO gp SELECT i, jsonb_build_object('m', i % 10) FROM generate_series(0, 199) i;
SELECT indexdef FROM pg_indexes WHERE tablename LIKE 'gp%' ORDER BY 1;
SELECT count(*) FROM gp WHERE doc @> '{"m": 3}';
RESET enable_seqscan;
DROP INDEX g_body;
DROP TABLE g, gplain, ge, gp;
-- many generated conditions, each checked against the unindexed copy
-- (the count of mismatches must be 0)
CREATE TABLE g2 (id int, body jsonb, tags int[]);
INSERT INTO g2
SELECT i,
       CASE WHEN i % 17 = 0 THEN NULL
            WHEN i % 13 = 0 THEN jsonb_build_array(i % 4, 'k' || (i % 5))
            ELSE jsonb_build_object('k' || (i % 5), i % 4, 'k' || (i % 7), jsonb_build_array(i % 3, 'k' || (i % 2)))
       END,
       CASE WHEN i % 19 = 0 THEN NULL
            WHEN i % 11 = 0 THEN '{}'::int[]
            ELSE ARRAY[i % 5, (i * 7) % 9, (i * 3) % 4]
       END
FROM generate_series(1, 400) i;
CREATE TABLE g2plain AS SELECT * FROM g2;
CREATE INDEX ON g2 USING gin (body);
CREATE TABLE g3 AS SELECT * FROM g2;
CREATE INDEX ON g3 USING gin (body jsonb_path_ops);
CREATE INDEX ON g2 USING gin (tags);
CREATE FUNCTION check_gin2(cond text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  a text;
  b text;
BEGIN
  EXECUTE 'SELECT count(*) || '':'' || coalesce(sum(id), 0) FROM g2 WHERE ' || cond INTO a;
  EXECUTE 'SELECT count(*) || '':'' || coalesce(sum(id), 0) FROM g2plain WHERE ' || cond INTO b;
  IF a <> b THEN
    RETURN false;
  END IF;
  EXECUTE 'SELECT count(*) || '':'' || coalesce(sum(id), 0) FROM g3 WHERE ' || cond INTO a;
  RETURN a = b;
END $$;
SELECT count(*) AS conditions, count(*) FILTER (WHERE NOT check_gin2(c)) AS mismatches FROM (
  SELECT format('body @> ''{"k%s": %s}''', i % 7, i % 4) FROM generate_series(1, 30) i
  UNION ALL SELECT format('body @> ''{"k%s": [%s]}''', i % 7, i % 3) FROM generate_series(1, 30) i
  UNION ALL SELECT format('body @> ''[%s]''', i % 4) FROM generate_series(1, 5) i
  UNION ALL SELECT format('body ? ''k%s''', i % 8) FROM generate_series(1, 10) i
  UNION ALL SELECT format('body ?| ARRAY[''k%s'', ''k%s'']', i % 8, i % 3) FROM generate_series(1, 10) i
  UNION ALL SELECT format('body ?& ARRAY[''k%s'', ''k%s'']', i % 8, i % 3) FROM generate_series(1, 10) i
  UNION ALL SELECT format('body @@ ''$.k%s == %s''', i % 7, i % 4) FROM generate_series(1, 20) i
  UNION ALL SELECT format('body @@ ''$.k%s[*] == %s''', i % 7, i % 3) FROM generate_series(1, 20) i
  UNION ALL SELECT format('body @? ''$.k%s ? (@ == "k%s")''', i % 7, i % 2) FROM generate_series(1, 10) i
  UNION ALL SELECT format('body @@ ''$[*] == %s''', i % 4) FROM generate_series(1, 5) i
  UNION ALL SELECT format('tags && ''{%s,%s}''', i % 9, i % 4) FROM generate_series(1, 20) i
  UNION ALL SELECT format('tags @> ''{%s,%s}''', i % 9, i % 4) FROM generate_series(1, 20) i
  UNION ALL SELECT format('tags <@ ''{%s,%s,%s}''', i % 9, i % 4, i % 5) FROM generate_series(1, 20) i
  UNION ALL SELECT format('tags = ''{%s,%s,%s}''', i % 5, (i * 7) % 9, (i * 3) % 4) FROM generate_series(1, 20) i
) v(c);
DROP TABLE g2, g2plain, g3;
