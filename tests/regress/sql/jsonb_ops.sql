-- jsonb operators: -> ->> #> #>> @> <@ ? ?| ?&, jsonb_typeof, jsonb_array_length.
\set VERBOSITY verbose
CREATE TABLE jd (id int PRIMARY KEY, doc jsonb);
INSERT INTO jd VALUES (1, '{"a": [1, "two", {"b": null}], "c": "x", "n": 1.50}'), (2, '[1, 2, [3, 4]]'), (3, '"s"'), (4, NULL), (5, '{"tags": ["red", "blue"], "size": {"w": 3}}');
SELECT id, doc -> 'a' AS a, doc ->> 'c' AS c, doc -> 0 AS first, doc ->> -1 AS last FROM jd ORDER BY id;
SELECT id, doc #> '{a,2}' AS p, doc #>> '{a,1}' AS pt, doc #> '{}' AS whole, doc #>> '{size,w}' FROM jd ORDER BY id;
SELECT id FROM jd WHERE doc @> '{"tags": ["blue"]}' ORDER BY id;
SELECT id FROM jd WHERE '{"c": "x"}' <@ doc ORDER BY id;
SELECT id, doc ? 'a' AS has_a, doc ? 's' AS has_s, doc ?| '{c,tags}' AS any_, doc ?& array['c','a'] AS all_ FROM jd ORDER BY id;
SELECT '[1, 2, [3, 4]]'::jsonb @> '[[4], 1, 1]', '["x", 1]'::jsonb @> '"x"', '{"a": {"b": 1}}'::jsonb @> '{"b": 1}', '1.0'::jsonb @> '1';
SELECT jsonb_typeof(doc), jsonb_array_length(doc -> 'a') FROM jd ORDER BY id;
SELECT jsonb_array_length('{}');
SELECT '{"a": {"b": "c"}}'::jsonb -> 'a' ->> 'b';
SELECT doc -> true FROM jd;
SELECT ('{"a": 1}'::jsonb ->> 'a')::int + 1;
SELECT '{"a": null}'::jsonb ->> 'a' IS NULL, '{"a": null}'::jsonb -> 'a';
DROP TABLE jd;
