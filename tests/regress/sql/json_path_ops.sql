-- json (not jsonb) operators -> ->> #> #>> and json_extract_path[_text]:
-- results are pieces of the text as written (spacing, number spelling and
-- duplicate keys kept), strings unescaped by the text forms.
\set VERBOSITY verbose
CREATE TABLE jt (id int PRIMARY KEY, doc json);
INSERT INTO jt VALUES
  (1, '{"a": [1, "two", {"b" : null}], "c": "x", "n": 1.50, "e": 1e2}'),
  (2, '[1, [2,  3], "x\"y"]'),
  (3, '"s"'),
  (4, NULL),
  (5, '{"tags": ["red", "blue"], "size": {"w": 3}, "k": 1, "k": 2}'),
  (6, ' {"sp" :  { "in" : [ 1 ,2 ] } } ');
SELECT id, doc -> 'a' AS a, doc ->> 'c' AS c, doc -> 'n' AS n, doc ->> 'e' AS e, doc -> 'k' AS k FROM jt ORDER BY id;
SELECT id, doc -> 0 AS first, doc ->> 1 AS second, doc -> -1 AS last, doc ->> -1 AS last_text, doc -> -4 AS none FROM jt ORDER BY id;
SELECT id, doc #> '{a,2}' AS p, doc #>> '{a,1}' AS pt, doc #> '{}' AS whole, doc #>> '{size,w}' AS w FROM jt ORDER BY id;
SELECT id, doc #> '{sp,in}' AS sp, doc #>> '{sp,in,-1}' AS spl, doc #> '{1,0}' AS nested, doc #>> '{2}' AS s2 FROM jt ORDER BY id;
SELECT '{"a": {"b": [10, {"c" : "d\u00e9"}]}}'::json #> '{a,b,1}', '{"a": {"b": [10, {"c" : "d\u00e9"}]}}'::json #>> '{a,b,1,c}';
SELECT '{"a": null}'::json -> 'a', '{"a": null}'::json ->> 'a' IS NULL, '{"a": null}'::json #>> '{a}' IS NULL;
SELECT '[1]'::json #> '{a}', '{"a":[1,2]}'::json #> '{a,-1}', '{"a":[1,2]}'::json #> '{a,x}', '{"a":[1,2]}'::json #> '{a,5}';
SELECT '{"a":1}'::json -> NULL, '{"a":1}'::json #> NULL, '{"a":1}'::json #> '{NULL}', '{"a":1}'::json #> ARRAY['a', NULL];
SELECT '"s"'::json -> 0, '"s"'::json #> '{}', '"s"'::json #>> '{}', '1'::json ->> 'a', ' [1,2] '::json #> '{}';
SELECT pg_typeof('{"a":1}'::json -> 'a'), pg_typeof('{"a":1}'::json ->> 'a'), pg_typeof('{"a":1}'::json #> '{a}'), pg_typeof('{"a":1}'::json #>> '{a}');
SELECT '{"a": [1, 2, {"b": "c"}]}'::json -> 'a' -> 2 ->> 'b';
SELECT '{"k\"ey": 5, "\u0061": 6}'::json -> 'k"ey', '{"k\"ey": 5, "\u0061": 6}'::json -> 'a';
SELECT '{"a": {"b": 1}}'::json #> ARRAY['a', 'b'], '{"a": {"b": 1}}'::json #>> ARRAY['a']::varchar[];
SELECT doc -> 'c', doc ->> 'c' FROM jt WHERE doc ->> 'c' = 'x';
SELECT id FROM jt WHERE (doc #>> '{size,w}')::int = 3;

-- the functions
SELECT json_extract_path('{"a": {"b": 1}}', 'a', 'b'), json_extract_path_text('{"a": {"b": "x"}}', 'a', 'b');
SELECT json_extract_path('{"a": {"b":  [1]}}', 'a'), pg_typeof(json_extract_path('{"a":1}', 'a')), pg_typeof(json_extract_path_text('{"a":1}', 'a'));
SELECT json_extract_path('{"a": 1}', 'a', NULL), json_extract_path(NULL, 'a'), json_extract_path_text('[5, 6]', '-1');
SELECT json_object_field('{"a":1}', 'a'), json_array_element('[1,2]', 1), json_object_field_text('{"a":"x"}', 'a'), json_array_element_text('[1,"z"]', -1);
SELECT id, json_extract_path(doc, 'a', '0'), json_extract_path_text(doc, 'size', 'w') FROM jt ORDER BY id;

-- jsonb keeps its own forms
SELECT '{"a": {"b": [1,  2]}}'::jsonb #> '{a,b}', '{"a": {"b": [1,  2]}}'::json #> '{a,b}';

-- errors
SELECT '{"a":1}'::json #> 'a';
SELECT '{"a":1}'::json #>> '{a';
SELECT '{"a":1}'::json -> 1.5;
SELECT '{"a":1}'::json #> 1;
SELECT '{"a":1}'::json ? 'a'::text;
SELECT json_extract_path('{"a":1}');
DROP TABLE jt;
