-- The SQL/JSON path language (jsonpath) over jsonb: the type's input and
-- normalised output, lax and strict evaluation, filters, methods, the
-- jsonb_path_* functions and the @? / @@ operators.

-- jsonpath input and output
select '$.a[*] ? (@ > 1)'::jsonpath;
select 'strict $.a.b[1 to 2, last].**{2 to last}.c'::jsonpath;
select '$ ? (exists(@.x) && !(@ == "s" || @ like_regex "^a" flag "i") && @.y starts with "z")'::jsonpath;
select '$.a.type().size().double().abs().floor().ceiling().keyvalue()'::jsonpath;
select '$ ? (@ == null || @ == true || @ == 1.50 || @ == 1e3 || (@ > 2) is unknown)'::jsonpath;
select '$."a b".*[*]'::jsonpath, '$a'::jsonpath, '$."x"'::jsonpath;
select '-$.a'::jsonpath, '+$'::jsonpath, '1 + 2 * 3'::jsonpath, '(1 + 2) * 3'::jsonpath;
select '-1'::jsonpath, '- -1'::jsonpath, '-(1 + 2)'::jsonpath, '0.0010e+2'::jsonpath, '.5'::jsonpath;
select '$.**'::jsonpath, '$.**{1}'::jsonpath, '$.**{last}'::jsonpath, '$.**{1 to 3}'::jsonpath;
select '($.a + 1).type()'::jsonpath, '$ ? (@ > 1).a'::jsonpath, 'Strict $'::jsonpath, 'lax $'::jsonpath;
select '$.a[last - 1, 0 to 2]'::jsonpath, '$.true'::jsonpath, '"x\n\"y"'::jsonpath;
select '1.2.e'::jsonpath, '1..e'::jsonpath, '(1).type()'::jsonpath, '1?(2 > 3)'::jsonpath;
select '(($ + 1)).a + ((2)).b'::jsonpath, '($.a).b'::jsonpath;
select '"\x50\u0067\u{53}"'::jsonpath, '$.foo\x41\tbar'::jsonpath, '$"v\u00e9"'::jsonpath;
select '$ ? (@ like_regex "a" flag "smiq")'::jsonpath;
select pg_typeof('$'::jsonpath);
select null::jsonpath;

-- input errors
select '$.a +'::jsonpath;
select '$ ? (@.a == 1'::jsonpath;
select '@'::jsonpath;
select 'last'::jsonpath;
select '$.a.b()'::jsonpath;
select '$.a $.b'::jsonpath;
select '1.a'::jsonpath;
select ''::jsonpath;
select '1.type()'::jsonpath;
select '00'::jsonpath;
select '1e+'::jsonpath;
select '"\x4g"'::jsonpath;
select '$ ? (@ like_regex "(a")'::jsonpath;
select '$ ? (@ like_regex "a" flag "x")'::jsonpath;
select '$ ? (@ like_regex "a" flag "z")'::jsonpath;
select '$ ? (@.a)'::jsonpath;
\set VERBOSITY verbose
select '$ ? (@ + )'::jsonpath;
\set VERBOSITY default

-- accessors, lax (the default) and strict
select jsonb_path_query('{"a": [1, 5, "x"]}', '$.a[*] ? (@ > 2)');
select jsonb_path_query('{"a": 1}', '$.b');
select jsonb_path_query('{"a": 1}', 'strict $.b');
select jsonb_path_query('[{"a": 1}, {"a": 2}, 3]', '$.a');
select jsonb_path_query('[{"a": 1}, {"a": 2}]', 'strict $.a');
select jsonb_path_query('[1, 2, 3, 4]', '$[1 to 2, last]');
select jsonb_path_query('[1, 2, 3, 4]', '$[last - 1]');
select jsonb_path_query('[1, 2]', '$[5]');
select jsonb_path_query('[1, 2]', 'strict $[5]');
select jsonb_path_query('7', '$[0]');
select jsonb_path_query('7', 'strict $[0]');
select jsonb_path_query('7', 'strict $[*]');
select jsonb_path_query('[1, 2]', '$["a"]');
select jsonb_path_query('{"a": 1, "b": [2]}', '$.*');
select jsonb_path_query('1', 'strict $.*');
select jsonb_path_query('{"a": {"b": [1, {"c": 2}]}}', '$.**');
select jsonb_path_query('{"a": {"b": [1, {"c": 2}]}}', '$.**{2 to last}');
select jsonb_path_query('{"a": {"b": [1, {"c": 2}]}}', 'strict $.**.c');
select jsonb_path_query('{"a b": 1}', '$."a b"');
select jsonb_path_query('{"a": {"b": 1}, "c": [2, [3]]}', '$.**{last}');
select jsonb_path_query_first('[{"a": 1}, {"a": 2}, {}]', 'strict $[*].a', silent => true);
select jsonb_path_query_array('[{"a": 1}, {"a": 2}, {}]', 'strict $[*].a', silent => true);

-- filters: comparisons, three-valued logic, exists, like_regex, starts with
select jsonb_path_query('[1, "a", null, true, {}, []]', '$[*] ? (@ == null)');
select jsonb_path_query('[1, "a", null, true]', '$[*] ? (@ != null)');
select jsonb_path_query('[1, "a", null, true]', '$[*] ? (@ > 0)');
select jsonb_path_query('[1, 2, "a"]', '$[*] ? ((@ > 1) is unknown)');
select jsonb_path_query('[1, 2, 3]', '$[*] ? (@ >= 2 && !(@ == 3))');
select jsonb_path_query('[1, 2, 3]', '$[*] ? (@ < 2 || @ <> 2 && @ > 2)');
select jsonb_path_query('["abc", "xbc", "Abd", 1]', '$[*] ? (@ starts with "a")');
select jsonb_path_query('["abc", "xbc", "Abd", 1]', '$[*] ? (@ like_regex "^a" flag "i")');
select jsonb_path_query('["a.c", "abc"]', '$[*] ? (@ like_regex "a.c" flag "q")');
select jsonb_path_query('[{"a": 1}, {"b": 2}, {"a": null}]', '$[*] ? (exists (@.a))');
select jsonb_path_query('{"a": [1, 2, 3], "b": [2, 3]}', '$.a[*] ? (@ == $.b[*])');
select jsonb_path_query('[true, false, "true"]', '$[*] ? (@ == true)');
select jsonb_path_query('["b", "ab", "c"]', '$[*] ? (@ < "b")');
select jsonb_path_query('[1, [2, 3], 4]', 'lax $[*] ? (@ > 2)');
select jsonb_path_query('[1, [2, 3], 4]', 'strict $[*] ? (@ > 2)');
select jsonb_path_query('[{"x": 1}, {"x": "y"}]', 'strict $[*] ? (@.x > 0)');
select jsonb_path_query('[1, 2]', '$[*] ? (@ / 0 > 1)');
select jsonb_path_query('1', '$ > 0'), jsonb_path_query('1', '$ > "a"'), jsonb_path_query('1', '$ < 0');

-- arithmetic
select jsonb_path_query('{"a": 3, "b": [4]}', '$.a + $.b * -2');
select jsonb_path_query('{"a": 7}', '$.a % 3'), jsonb_path_query('{"a": 7}', '$.a / 2');
select jsonb_path_query('[1, 2, 3]', '-$[*]');
select jsonb_path_query('[1, 2]', '$ + 1');
select jsonb_path_query('{"a": 3}', '$.a / 0');
select jsonb_path_query('["a"]', '-$[*]');
select jsonb_path_query('{"a": "x"}', '$.a * 2');

-- item methods
select jsonb_path_query('[1, "a", null, {}, [], true]', '$[*].type()');
select jsonb_path_query('[1, 2, 3]', '$.size()'), jsonb_path_query('{"a": 1}', '$.size()');
select jsonb_path_query('1', 'strict $.size()');
select jsonb_path_query('[-1.5, 2.5, 0]', '$.abs()');
select jsonb_path_query('[-1.5, 2.5]', '$.floor()');
select jsonb_path_query('[-1.5, 2.5]', '$.ceiling()');
select jsonb_path_query('["1.50", 2, "-1e3"]', '$.double()');
select jsonb_path_query('"x"', '$.double()');
select jsonb_path_query('true', '$.double()');
select jsonb_path_query('"a"', '$.abs()');
select jsonb_path_query('{"a": 1, "b": {"c": 2}}', '$.keyvalue()');
select jsonb_path_query('{"a": {"b": 1}}', '$.a.keyvalue()');
select jsonb_path_query('[{"a": 1}, {"b": [2]}]', '$.keyvalue().key');
select jsonb_path_query('1', '$.keyvalue()');

-- variables
select jsonb_path_query('[1, 5, 9]', '$[*] ? (@ > $min && @ < $max)', '{"min": 2, "max": 8}');
select jsonb_path_query('{"a": 1}', '$x', '{"x": [1, 2]}');
select jsonb_path_query('{"a": 1}', '$x');
select jsonb_path_query('{"a": 1}', '$x', '[1]');
select jsonb_path_query('{"a": 10}', '$ ? (@.a < $value)');
select jsonb_path_query('{"a": 10}', '$ ? (@.a < $value)', silent => true);
select jsonb_path_query('{"a": 1}', '$.keyvalue()', vars => '{}');

-- silent
select jsonb_path_query('{"a": 1}', 'strict $.b', silent => true);
select jsonb_path_query('{"a": 3}', '$.a / 0', '{}', true);
select jsonb_path_query('[1, 0, 2]', '1 / $[*]', silent => true);
select jsonb_path_query_array('[1, 0, 2]', 'strict $[*].a', silent => true);
select jsonb_path_exists('{"a": 1}', 'strict $.b', silent => true);
select jsonb_path_match('{"a": 1}', '$.a', silent => true);

-- the other functions
select jsonb_path_query_array('[1, 2, 3, 4]', '$[*] ? (@ > 2)');
select jsonb_path_query_array('[1, 2]', '$[*] ? (@ > 5)');
select jsonb_path_query_first('[1, 2, 3, 4]', '$[*] ? (@ > 2)');
select jsonb_path_query_first('[1, 2]', '$[*] ? (@ > 5)');
select jsonb_path_exists('{"a": [1, 2]}', '$.a[*] ? (@ > 1)');
select jsonb_path_exists('{"a": [1, 2]}', '$.a[*] ? (@ > 5)');
select jsonb_path_exists('{"a": 1}', 'strict $.b');
select jsonb_path_exists('{"a": 1}', '$.b');
select jsonb_path_match('{"a": 1}', '$.a == 1');
select jsonb_path_match('{"a": 1}', '$.a > "x"');
select jsonb_path_match('{"a": 1}', '$.a');
select jsonb_path_match('[true, true]', '$[*]');
select jsonb_path_match('{"a": [1, 2]}', 'exists($.a[*] ? (@ > $x))', '{"x": 1}');

-- NULL inputs
select jsonb_path_query(null, '$');
select jsonb_path_query('{}', null);
select jsonb_path_query_array(null, '$'), jsonb_path_query_first('1', null);
select jsonb_path_exists('1', '$', null), jsonb_path_match('true', '$', '{}', null);
select jsonb_path_query('1', '$', null);

-- operators (errors silenced)
select '{"a": [1, 2]}'::jsonb @? '$.a[*] ? (@ > 1)';
select '{"a": [1, 2]}'::jsonb @? '$.a[*] ? (@ > 2)';
select '{"a": 1}'::jsonb @? 'strict $.b';
select '{"a": 1}'::jsonb @@ '$.a == 1';
select '{"a": 1}'::jsonb @@ '$.a';
select '{"a": 1}'::jsonb @@ '$.a / 0 == 1';
select null::jsonb @? '$';
select jsonb '["1", 2, 0, 3]' @? '-$[*]';
select jsonb '[1, "2", 0, 3]' @? 'strict -$[*]';
select jsonb '[1, {}]' @? '$[*] ? (@ > 0)';
select jsonb_path_exists('[1, "a"]', '$[*] ? (@ + 1 > 1)');
select jsonb_path_query('["a\b", "ab"]', '$[*] ? (@ like_regex "a\\b")');

-- in FROM, over a table, and in a WHERE clause
create table docs (id int, doc jsonb);
insert into docs values
  (1, '{"name": "a", "tags": ["x", "y"], "n": 3}'),
  (2, '{"name": "b", "tags": [], "n": 10}'),
  (3, '{"name": "c", "n": "many"}'),
  (4, null);
select id, jsonb_path_query(doc, '$.tags[*]') as tag from docs order by id, tag;
select id, t from docs, jsonb_path_query(doc, '$.tags[*]') as t order by id, t;
select * from jsonb_path_query('[1, 2, 3]', '$[*] ? (@ >= $m)', '{"m": 2}');
select id from docs where doc @? '$.n ? (@ > 5)' order by id;
select id from docs where doc @@ '$.n > 1' order by id;
select id, jsonb_path_query_first(doc, '$.n + 1', silent => true) from docs order by id;
select id, jsonb_path_exists(doc, 'strict $.tags') from docs order by id;
select jsonb_path_query_array(jsonb_agg(doc), '$[*].name') from docs;
create table paths (p jsonpath);
insert into paths values ('$.a ? (@ > 1)'), ('strict $[*]');
select p, jsonb_path_query_array('{"a": [1, 2, 3]}', p) from paths order by p::text;
drop table paths;
drop table docs;
