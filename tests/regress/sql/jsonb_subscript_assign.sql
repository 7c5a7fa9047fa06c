create TEMP TABLE test_jsonb_subscript (
       id int,
       test_json jsonb
);

insert into test_jsonb_subscript values
(1, '{}'), -- empty jsonb
(2, '{"key": "value"}'); -- jsonb with data

-- update empty jsonb
update test_jsonb_subscript set test_json['a'] = '1' where id = 1;
select * from test_jsonb_subscript order by id;

-- update jsonb with some data
update test_jsonb_subscript set test_json['a'] = '1' where id = 2;
select * from test_jsonb_subscript order by id;

-- replace jsonb
update test_jsonb_subscript set test_json['a'] = '"test"';
select * from test_jsonb_subscript order by id;

-- replace by object
update test_jsonb_subscript set test_json['a'] = '{"b": 1}'::jsonb;
select * from test_jsonb_subscript order by id;

-- replace by array
update test_jsonb_subscript set test_json['a'] = '[1, 2, 3]'::jsonb;
select * from test_jsonb_subscript order by id;

-- use jsonb subscription in where clause
select * from test_jsonb_subscript where test_json['key'] = '"value"';
select * from test_jsonb_subscript where test_json['key_doesnt_exists'] = '"value"';
select * from test_jsonb_subscript where test_json['key'] = '"wrong_value"';

-- NULL
update test_jsonb_subscript set test_json[NULL] = '1';
update test_jsonb_subscript set test_json['another_key'] = NULL;
select * from test_jsonb_subscript order by id;

-- NULL as jsonb source
insert into test_jsonb_subscript values (3, NULL);
update test_jsonb_subscript set test_json['a'] = '1' where id = 3;
select * from test_jsonb_subscript order by id;

update test_jsonb_subscript set test_json = NULL where id = 3;
update test_jsonb_subscript set test_json[0] = '1';
select * from test_jsonb_subscript order by id;

-- Fill the gaps logic
delete from test_jsonb_subscript;
insert into test_jsonb_subscript values (1, '[0]');

update test_jsonb_subscript set test_json[5] = '1';
select * from test_jsonb_subscript order by id;

update test_jsonb_subscript set test_json[-4] = '1';
select * from test_jsonb_subscript order by id;

update test_jsonb_subscript set test_json[-8] = '1';
select * from test_jsonb_subscript order by id;

-- keep consistent values position
delete from test_jsonb_subscript;
insert into test_jsonb_subscript values (1, '[]');

update test_jsonb_subscript set test_json[5] = '1';
select * from test_jsonb_subscript order by id;

-- create the whole path
delete from test_jsonb_subscript;
insert into test_jsonb_subscript values (1, '{}');
update test_jsonb_subscript set test_json['a'][0]['b'][0]['c'] = '1';
select * from test_jsonb_subscript order by id;

delete from test_jsonb_subscript;
insert into test_jsonb_subscript values (1, '{}');
update test_jsonb_subscript set test_json['a'][2]['b'][2]['c'][2] = '1';
select * from test_jsonb_subscript order by id;

-- create the whole path with already existing keys
delete from test_jsonb_subscript;
insert into test_jsonb_subscript values (1, '{"b": 1}');
update test_jsonb_subscript set test_json['a'][0] = '2';
select * from test_jsonb_subscript order by id;

-- the start jsonb is an object, first subscript is treated as a key
delete from test_jsonb_subscript;
insert into test_jsonb_subscript values (1, '{}');
update test_jsonb_subscript set test_json[0]['a'] = '1';
select * from test_jsonb_subscript order by id;

-- the start jsonb is an array
delete from test_jsonb_subscript;
insert into test_jsonb_subscript values (1, '[]');
update test_jsonb_subscript set test_json[0]['a'] = '1';
update test_jsonb_subscript set test_json[2]['b'] = '2';
select * from test_jsonb_subscript order by id;

-- overwriting an existing path
delete from test_jsonb_subscript;
insert into test_jsonb_subscript values (1, '{}');
update test_jsonb_subscript set test_json['a']['b'][1] = '1';
update test_jsonb_subscript set test_json['a']['b'][10] = '1';
select * from test_jsonb_subscript order by id;

delete from test_jsonb_subscript;
insert into test_jsonb_subscript values (1, '[]');
update test_jsonb_subscript set test_json[0][0][0] = '1';
update test_jsonb_subscript set test_json[0][0][1] = '1';
select * from test_jsonb_subscript order by id;

delete from test_jsonb_subscript;
insert into test_jsonb_subscript values (1, '{}');
update test_jsonb_subscript set test_json['a']['b'][10] = '1';
update test_jsonb_subscript set test_json['a'][10][10] = '1';
select * from test_jsonb_subscript order by id;

-- an empty sub element

delete from test_jsonb_subscript;
insert into test_jsonb_subscript values (1, '{"a": {}}');
update test_jsonb_subscript set test_json['a']['b']['c'][2] = '1';
select * from test_jsonb_subscript order by id;

delete from test_jsonb_subscript;
insert into test_jsonb_subscript values (1, '{"a": []}');
update test_jsonb_subscript set test_json['a'][1]['c'][2] = '1';
select * from test_jsonb_subscript order by id;

-- trying replace assuming a composite object, but it's an element or a value

delete from test_jsonb_subscript;
insert into test_jsonb_subscript values (1, '{"a": 1}');
update test_jsonb_subscript set test_json['a']['b'] = '1';
update test_jsonb_subscript set test_json['a']['b']['c'] = '1';
update test_jsonb_subscript set test_json['a'][0] = '1';
update test_jsonb_subscript set test_json['a'][0]['c'] = '1';
update test_jsonb_subscript set test_json['a'][0][0] = '1';

-- trying replace assuming a composite object, but it's a raw scalar

delete from test_jsonb_subscript;
insert into test_jsonb_subscript values (1, 'null');
update test_jsonb_subscript set test_json[0] = '1';
update test_jsonb_subscript set test_json[0][0] = '1';


-- subscripts of other types, slices, values that are not jsonb
delete from test_jsonb_subscript;
insert into test_jsonb_subscript values (1, '{"a": [1, 2]}');
update test_jsonb_subscript set test_json[1::int2] = '1';
update test_jsonb_subscript set test_json[1::int8] = '1';
update test_jsonb_subscript set test_json[1.5] = '1';
update test_jsonb_subscript set test_json['a'][1:2] = '1';
update test_jsonb_subscript set test_json['a'][:2] = '1';
update test_jsonb_subscript set test_json['a'] = 1;
update test_jsonb_subscript set test_json['a'] = '{bad';
update test_jsonb_subscript set test_json['a'][-1] = '"last"', test_json['b'] = '{"c": null}';
update test_jsonb_subscript set test_json['a'][-3] = '1';
update test_jsonb_subscript set test_json['a']['-1'] = '"by text"';
update test_jsonb_subscript set test_json['a']['x'] = '1';
select * from test_jsonb_subscript order by id;
update test_jsonb_subscript set test_json['a'] = test_json['b'] returning *;
update test_jsonb_subscript set test_json['a'] = DEFAULT;

-- INSERT into subscripted columns
delete from test_jsonb_subscript;
insert into test_jsonb_subscript (id, test_json['a']) values (1, '1');
insert into test_jsonb_subscript (id, test_json[2]) values (2, '"x"');
insert into test_jsonb_subscript (id, test_json['a'][1], test_json['b']) values (3, '1', '2');
insert into test_jsonb_subscript (id, test_json['a'], test_json['a']) values (4, '1', '2');
insert into test_jsonb_subscript (id, test_json[NULL]) values (5, '1');
insert into test_jsonb_subscript (id, test_json['k']) select 6, to_jsonb(x) from generate_series(1, 2) x;
select * from test_jsonb_subscript order by id, test_json::text;

-- an UPDATE reading the column it assigns into
delete from test_jsonb_subscript;
insert into test_jsonb_subscript values (1, '{"n": 1}'), (2, NULL);
update test_jsonb_subscript set test_json['m'] = to_jsonb(coalesce((test_json['n'])::text, '0') || '!');
select * from test_jsonb_subscript order by id;

-- ON CONFLICT DO UPDATE, RETURNING, parameters as subscripts
create temp table u (id int primary key, j jsonb);
insert into u values (1, '{"n": 1}');
insert into u values (1, NULL) on conflict (id) do update set j['n'] = '2', j['m'] = excluded.j returning *;
insert into u values (2, NULL) on conflict (id) do update set j['n'] = '2' returning *;
insert into u (id, j[0], j[1]) values (3, '"a"', '"b"') returning *;
prepare p(jsonb, text) as update u set j[$2] = $1 where id = 2 returning j;
execute p('[1]', 'k');
execute p(NULL, NULL);
update u set j = j - 'n', j['z'] = '0' where id = 1 returning *;
deallocate p;
