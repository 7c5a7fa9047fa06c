-- Array containment and overlap: @>, <@, && (arraycontains,
-- arraycontained, arrayoverlap) with PostgreSQL's NULL rules and type
-- resolution.
select array[1,2] @> '{1}', '{1}' <@ array[1,2], array[1,null] @> array[null::int], array[1] @> '{}'::int[], array[[1,2],[3,4]] @> array[4], array['a'] && array['a'::text];
select array['a'::varchar] @> array['a'::varchar], array[1::int2] @> array[1::int2], array[1.0] @> array[1.00], array[null::int] && array[null::int], '{}'::int[] <@ '{}'::int[], null::int[] @> '{1}';
select array[1,2] @> array[1.0];
select array[1] @> array['a'];
select array['a'] && array['a'::varchar];
select arraycontains(array[1,2], array[2]), arrayoverlap('{1,2}'::int[], '{3}');
select array[1] @> 1;
select array[date '2020-01-01'] @> array['2020-01-01'::date], array[array[1]] <@ array[1,2];
create table ac (id int, i int[], t text[]);
insert into ac values (1, '{1,2,3}', '{a,b}'), (2, '{3,4}', '{c}'), (3, '{}', '{}'), (4, null, '{NULL}'), (5, '{5,NULL}', '{a,NULL}');
select id from ac where i @> '{3}' order by id;
select id from ac where i <@ '{1,2,3,4}' order by id;
select id from ac where i && '{4,5}' order by id;
select id from ac where t @> '{a}' order by id;
select id from ac where t @> '{NULL}' order by id;
select id, i && array[5,null] from ac order by id;
