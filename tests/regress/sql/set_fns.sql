-- regexp_matches, regexp_split_to_table, json(b)_array_elements[_text],
-- json(b)_each[_text], json(b)_object_keys: in a select list and in FROM
SELECT regexp_matches('a1b22c333', '\d+', 'g');
SELECT regexp_matches('a1b22c333', '\d+');
SELECT regexp_matches('foobarbequebaz', '(bar)(beque)');
SELECT regexp_matches('abc', 'x');
SELECT regexp_matches('ABC', 'b', 'gi');
SELECT * FROM regexp_matches('k=v; x=y', '(\w)=(\w)', 'g') AS m;
SELECT m[1] AS k, m[2] AS v FROM regexp_matches('k=v; x=y', '(\w)=(\w)', 'g') AS m;
SELECT regexp_split_to_table('the quick  brown', '\s+');
SELECT * FROM regexp_split_to_table('a,b,,c', ',') WITH ORDINALITY AS t(piece, n);
SELECT regexp_matches('a', 'a', 'z');
SELECT jsonb_array_elements('[1, "two", {"a": null}, null]');
SELECT jsonb_array_elements_text('[1, "two", {"a": null}, null]');
SELECT * FROM jsonb_array_elements('[1, [2, 3]]') WITH ORDINALITY;
SELECT value FROM json_array_elements('[1, "x"]');
SELECT * FROM json_array_elements_text('["a", 2]') AS e(v);
SELECT jsonb_each('{"b": 2, "a": [1]}');
SELECT * FROM jsonb_each('{"b": 2, "a": [1], "c": null}');
SELECT * FROM jsonb_each_text('{"b": 2, "a": "s", "c": null}') ORDER BY key;
SELECT key, value FROM json_each('{"x": {"y": 1}}');
SELECT jsonb_object_keys('{"b": 1, "a": 2, "aa": 3}');
SELECT * FROM json_object_keys('{"k": 1}');
SELECT jsonb_array_elements('{"a": 1}');
SELECT jsonb_array_elements('3');
SELECT * FROM jsonb_each('[1]');
SELECT jsonb_object_keys('[1]');
SELECT jsonb_object_keys('1');
SELECT jsonb_array_elements(NULL);
CREATE TEMP TABLE docs (id int, d jsonb);
INSERT INTO docs VALUES (1, '{"tags": ["x", "y"]}'), (2, '{"tags": ["z"]}'), (3, '{"tags": []}');
SELECT id, t FROM docs, jsonb_array_elements_text(d->'tags') AS t ORDER BY id, t;
SELECT id, jsonb_array_elements_text(d->'tags') FROM docs ORDER BY 1, 2;
-- functions on the right of a JOIN see its left side
SELECT id, e FROM docs CROSS JOIN LATERAL jsonb_array_elements_text(d->'tags') AS e ORDER BY 1, 2;
SELECT id, count(*) FROM docs CROSS JOIN jsonb_array_elements(d->'tags') GROUP BY id ORDER BY id;
SELECT d.id, g FROM docs d JOIN LATERAL generate_series(1, d.id) AS g ON true ORDER BY 1, 2;
SELECT x.id, u FROM docs x CROSS JOIN unnest(ARRAY[x.id, x.id * 10]) WITH ORDINALITY AS u(v, n) ORDER BY 1, 2;
SELECT * FROM docs a JOIN generate_series(1, 2) g ON g = a.id ORDER BY 1;
