-- Arrays: literals, constructors, subscripts, ANY/ALL, functions, storage
-- and indexes (the subset of PostgreSQL's arrays Nestor has).
\set VERBOSITY verbose
select array[1,2,3], array[[1,2],[3,4]], array[]::int[], '{a,"b c",NULL}'::text[];
select (array[1,2,3])[2], 2 = any(array[1,2]), 5 = any('{1,2}'), 3 > all(array[1,2]);
select 1 = any(array[null, 1]), 2 = any(array[null, 1]), 2 <> all(array[]::int[]);
select array(select g from (values (1),(2)) v(g)), array_to_string(array[1,null,3], ',', '*');
select array(select g from (values (1),(2)) v(g) where false);
select '{1,2}'::int[] = '{1,2}', '{1,2}'::int[] < '{1,3}', array[1] || array[2], array[1] || 3, 0 || array[1];
select cardinality(array[[1,2],[3,4]]), array_upper('[0:2]={1,2,3}'::int[], 1), '[0:2]={1,2,3}'::int[];
select array_length(array[1,2,3], 1), array_lower(array[5], 1), array_ndims('{{1},{2}}'::int[]), array_dims('{{1},{2}}'::int[]);
select array_position(array['a','b','c'], 'c'), array_append(array[1], 2), array_prepend(0, array[1]), array_cat(array[1], array[2,3]);
select array_remove(array[1,2,1], 1), string_to_array('a,b,,c', ',', ''), string_to_array('abc', null);
select '{{1,2},{3,4}}'::int[] || array[5,6], array[1.5, 2]::int[], '{1,2}'::int[]::text[];
select '{"x\"y", "a,b", "", " s "}'::text[], array['NULL', null]::text[];
select ('{1,2,3}'::int8[])[1:2];
create table ta (id int primary key, tags text[], n int[]);
insert into ta values (1, '{x,y}', array[1,2]), (2, array['z'], '{}'), (3, null, '{{1,2},{3,4}}');
select * from ta order by n;
select id from ta where 'x' = any(tags);
create index ta_n on ta(n);
select * from ta where n = '{1,2}';
select array_length(n, 1), n[1], tags[2], n[2][1] from ta order by id;
update ta set tags = tags || 'w' where id = 1 returning tags;
-- errors
select '{1,2'::int[];
select '{{1,2},{3}}'::int[];
select '{1,2} x'::int[];
select array[1,'a'];
select array[];
select 1 = any(5);
select (5)[1];
select array_length('{1}', 1);
select array[[1,2],[3]];
