-- VARIADIC json_build_*, jsonb_extract_path's variadic form, jsonb casts
SELECT json_build_array(VARIADIC NULL::text[]);
SELECT json_build_array(VARIADIC '{}'::text[]);
SELECT json_build_array(VARIADIC '{a,b,c}'::text[]);
SELECT json_build_array(VARIADIC ARRAY['a', NULL]::text[]);
SELECT json_build_array(VARIADIC '{1,2,3,4}'::int[]);
SELECT json_build_array(VARIADIC '{{1,4},{2,5},{3,6}}'::int[][]);
SELECT jsonb_build_object(VARIADIC NULL::text[]);
SELECT jsonb_build_object(VARIADIC '{}'::text[]);
SELECT jsonb_build_object(VARIADIC '{a,b,c}'::text[]);
SELECT jsonb_build_object(VARIADIC ARRAY['a', NULL]::text[]);
SELECT jsonb_build_object(VARIADIC ARRAY[NULL, 'a']::text[]);
SELECT jsonb_build_object(VARIADIC '{1,2,3,4}'::int[]);
SELECT json_build_object(VARIADIC '{{1,4},{2,5},{3,6}}'::int[][]);
select json_build_array(VARIADIC 1);
select jsonb_extract_path('{"a":{"b":2}}', 'a', NULL), jsonb_extract_path('{"a":{"b":2}}', 'a', 'b'), jsonb_extract_path_text('{"a":{"b":2}}', 'a'), jsonb_extract_path('{"a":1}', VARIADIC ARRAY['a']);
select 'true'::jsonb::bool, '1.5'::jsonb::int4, '12345.05'::jsonb::float4, 'null'::jsonb::int8 ;
select '"x"'::jsonb::numeric;
select '[]'::jsonb::bool;
select 'true'::jsonb::int;
select '1'::jsonb::bool;

-- json arguments, key checks, JSON dates and times
SELECT json_build_object('a',1,'b',1.2,'c',true,'d',null,'e',json '{"x": 3, "y": [1,2,3]}');
SELECT jsonb_build_object('a',1,'b',1.2,'c',true,'d',null,'e',json '{"x": 3, "y": [1,2,3]}');
SELECT json_build_array('a', json '[1,  2]', jsonb '[1,  2]');
select json_build_object('{"a":1}'::jsonb, 1);
select jsonb_build_object('{"a":1}'::jsonb, 1);
select json_build_object(json '{"a":1}', 1);
select json_build_object(NULL, 1);
select jsonb_build_object(NULL, 1);
select jsonb_build_object(row(1), 1);
select json_build_object(ARRAY[1], 1);
select to_json(json '{"a" :  1}'), to_jsonb(json '{"a" :  1}');
set datestyle = 'postgres, mdy';
select to_json(date '2014-05-28'), to_json(timestamp '2014-05-28 12:22:35.614298'), to_jsonb(timestamptz '2014-05-28 12:22:35.614298-04'), to_json(timestamptz '-infinity');
select json_agg(d) from (values (date '2014-05-28')) v(d);

-- json_typeof, json_array_length, json_strip_nulls
select json_typeof(' [1] '), json_typeof('null'), json_typeof(NULL), json_typeof('-1'), json_typeof('"x"'), json_typeof(' false'), json_typeof('{}');
select json_array_length(' [1, [2,3] ,{"a":[4]} , "x,]" ] '), json_array_length('[]'), json_array_length(NULL);
select json_array_length('{}');
select json_array_length('"x"');
select json_strip_nulls('{ "a" : null , "b":[ null, {"c":null} ], "x\\y" : 1.0e2 , "d": "a \" null"}');
select json_strip_nulls('  null  '), json_strip_nulls(' [ ] '), json_strip_nulls('{"a":{"b":null,"c":null},"d":{} }');

-- json_each / json_array_elements keep json's text
select * from json_each('{"f1":[1,2,3],"f2":{"f3":1},"f4":null,"f5":99,"f6":"stringy", "f1" : "dup"}') q;
select json_each_text('{"f1":[1,2,3],"f2":{"f3":1},"f4":null,"f5":"null", "k\"q": "a\nb"}');
select * from json_array_elements(' [1,true,[1,[2,3]],null,{"f1":1,"f2":[7,8,9]},false,"stringy", 1.0e1 ] ') q;
select * from json_array_elements_text('[1,true,[1,[2,3]],null,{"f1":1,"f2":[7,8,9]},false,"stringy", "a\"b"]') q;
select * from json_array_elements('{}');
select * from json_array_elements('1');
select * from json_each('[]');
select * from json_each(' 3 ');
select * from json_array_elements_text('{}');

-- array_to_json
select array_to_json('{{1,5},{99,100}}'::int[]), array_to_json(ARRAY[1,2], true), array_to_json(ARRAY[[1,2],[3,4]], true), array_to_json(ARRAY[jsonb '{"a":1}']);
select array_to_json(ARRAY['a', NULL], false), array_to_json(NULL::int[]), array_to_json(ARRAY[1], NULL), array_to_json('{}'::text[], true);
SELECT array_to_json(array_agg(x),false) from generate_series(5,10) x;
select array_to_json(1);
