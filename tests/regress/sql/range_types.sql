-- The built-in range types (int4range, int8range, numrange, daterange,
-- tsrange, tstzrange): text input and output with canonicalization,
-- constructors, accessor functions, operators, B-tree order (ORDER BY,
-- DISTINCT, GROUP BY, indexes, joins), arrays of ranges, catalog rows and
-- polymorphic anyrange / anycompatiblerange functions.
\set VERBOSITY verbose
set datestyle = 'ISO, MDY';
set timezone = 'UTC';

-- input, canonical output
select '[1,10]'::int4range, '(1,10)'::int4range, '(1,10]'::int4range, '[1,10)'::int4range;
select '(1,2)'::int4range, '[3,3)'::int4range, '[3,3]'::int4range, '(3,3]'::int4range;
select '  empty  '::int4range, 'EMPTY'::int8range, '(,)'::numrange, '[,5]'::int4range, '(5,]'::int8range;
select '[1.5, 2.25)'::numrange, '(1.5,1.5]'::numrange, '[1.7,1.7]'::numrange, '[ 1 , 2 ]'::numrange;
select '[2000-01-01,2000-01-10]'::daterange, '(2000-01-01,2000-01-02)'::daterange;
select '[-infinity,infinity]'::daterange, '(,infinity)'::daterange;
select '[2000-01-01 10:00, 2000-01-02)'::tsrange, '["2000-01-01 10:00:00+02",)'::tstzrange;
select '["1","2")'::int4range, '[ "1" , "2" )'::int4range;
select '[-2147483648,2147483646]'::int4range;
select '(-9223372036854775808,0]'::int8range;

-- malformed literals and bounds out of order
select ''::int4range;
select '1,2'::int4range;
select '[1,2) x'::int4range;
select 'empty x'::int4range;
select '(1,2,3)'::int4range;
select '[1 2)'::int4range;
select '[1,2'::int4range;
select '("1,2)'::int4range;
select '[a,2)'::int4range;
select '[2,1]'::int4range;
select '[1,2147483647]'::int4range;
select '[2000-01-10,2000-01-01]'::daterange;

-- constructors
select int4range(1, 10), int4range(1, 10, '[]'), int4range(1, 10, '(]'), int4range(1, 10, '()');
select int4range(null, 5), int4range(5, null, '[]'), int4range(null, null);
select int8range(10000000000, 20000000000, '(]'), numrange(1, 2.5), numrange(1.1, 1.1, '[]');
select daterange('2000-01-10', '2000-01-20', '[]'), daterange(null, '2000-01-01', '()');
select tsrange('2000-01-01', '2000-01-02 12:00'), tstzrange('2000-01-01 00:00+00', null);
select int4range(2, 1);
select int4range(1, 2, 'x');
select int4range(1, 2, null);
select int4range(1, 2147483647, '[]');
select numrange(1, 2)::text, '[1,3)'::text::int4range;

-- accessors
select r, isempty(r), lower(r), upper(r), lower_inc(r), upper_inc(r), lower_inf(r), upper_inf(r)
from (values ('[1,5)'::int4range), ('empty'), ('(,3)'), ('[2,)'), ('(,)')) v(r);
select lower(numrange(1.5, 2.5, '(]')), upper(daterange('2000-01-01', '2000-01-05', '[]'));
select pg_typeof(lower(int8range(1, 2))), pg_typeof(upper(tsrange(null, null)));
select lower(null::int4range), isempty(null::numrange);

-- comparison and order
select int4range(1, 5) = '[1,4]', int4range(1, 5) <> int4range(1, 6),
       'empty'::int4range < int4range(1, 2), int4range(1, 2) < int4range(1, 3),
       '(,3)'::int4range < '[0,1)'::int4range, numrange(1.1, 2.2) < numrange(1.1, 2.2, '[]'),
       numrange(1.1, 2.2, '(]') > numrange(1.1, 3), int4range(2, 3) >= int4range(2, 3);
select 'empty'::int4range = int4range(3, 3), numrange(1.0, 2.0) = numrange(1.00, 2.000);

-- containment, overlap, position
select int4range(1, 10) @> 5, int4range(1, 10) @> 10, 5 <@ int4range(1, 10),
       numrange(1, 2) @> 1.5, daterange('2000-01-01', '2000-02-01') @> '2000-01-15'::date;
select int4range(1, 10) @> int4range(2, 3), int4range(2, 3) <@ int4range(1, 10),
       int4range(1, 10) @> 'empty'::int4range, 'empty'::int4range @> int4range(1, 2),
       int4range(1, 10) @> '[2,3)';
select numrange(4.5, 5.5, '[]') && numrange(5.5, 6.5), numrange(1, 2) && numrange(2, 3),
       int4range(1, 5) && 'empty';
select numrange(1.0, 2.0) << numrange(3.0, 4.0), numrange(1.0, 3.0, '[]') << numrange(3.0, 4.0, '[]'),
       numrange(1.0, 3.0, '()') << numrange(3.0, 4.0, '()'), numrange(1.0, 2.0) >> numrange(3.0, 4.0),
       numrange(3.0, 70.0) &< numrange(6.6, 100.0), numrange(3.0, 70.0) &> numrange(6.6, 100.0);
select numrange(2.0, 3.0) -|- numrange(3.0, 4.0), numrange(2.0, 3.0) -|- numrange(3.1, 4.0),
       numrange(2.0, 3.0, '[]') -|- numrange(3.0, 4.0, '()'), int4range(1, 3) -|- int4range(3, 5),
       int4range(1, 3, '[]') -|- int4range(4, 5), int4range(1, 3) -|- int4range(4, 5),
       range_adjacent(numrange(2.0, 3.0, '(]'), numrange(1.0, 2.0, '(]'));
select int4range(1, 10) @> 5::int8;
select numrange(1, 2) @> 1.5::float8;
select int4range(1, 2) @> '3';
select int4range(1, 2) && int8range(1, 2);

-- union, intersection, difference
select numrange(1.0, 2.0) + numrange(2.0, 3.0), numrange(1.0, 2.0) + numrange(1.5, 3.0),
       int4range(1, 3) + int4range(3, 5), 'empty'::int4range + int4range(1, 2);
select numrange(1.0, 2.0) + numrange(2.5, 3.0);
select range_merge(numrange(1.0, 2.0), numrange(2.5, 3.0)), range_merge('empty'::int4range, 'empty');
select numrange(1.0, 2.0) * numrange(2.0, 3.0), numrange(1.0, 2.0) * numrange(1.5, 3.0),
       int4range(1, 10) * int4range(5, 20, '[]'), int4range(1, 10) * 'empty';
select numrange(1.1, 2.2) - numrange(2.0, 3.0), numrange(1.1, 2.2) - numrange(2.2, 3.0),
       numrange(1.1, 2.2, '[]') - numrange(2.0, 3.0), int4range(1, 10) - int4range(1, 10),
       int4range(5, 10) - int4range(1, 7), int4range(1, 10) - 'empty';
select range_minus(numrange(10.1, 12.2, '[]'), numrange(0.0, 120.2, '(]'));
select int4range(1, 10) - int4range(3, 5);
select range_contains(int4range(1, 10), int4range(2, 3)), range_contained_by(int4range(2, 3), int4range(1, 10)),
       range_contains_elem(int4range(1, 10), 3), elem_contained_by_range(3, int4range(1, 10)),
       range_overlaps(int4range(1, 3), int4range(2, 4)), range_before(int4range(1, 3), int4range(5, 6)),
       range_after(int4range(1, 3), int4range(5, 6)), range_union(int4range(1, 3), int4range(2, 6)),
       range_intersect(int4range(1, 3), int4range(2, 6)), range_cmp(int4range(1, 3), int4range(2, 6));

-- tables: order, distinct, group by, indexes, joins
create table nr (id int, r numrange);
insert into nr values (1, '[,)'), (2, '[3,]'), (3, '[, 5)'), (4, numrange(1.1, 2.2)), (5, 'empty'),
    (6, numrange(1.7, 1.7, '[]')), (7, numrange(1.1, 2.2)), (8, null);
select * from nr order by r, id;
select * from nr order by r desc nulls last, id;
select distinct r from nr order by r;
select r, count(*) from nr group by r order by r;
select id from nr where r @> 1.8 order by id;
select id from nr where r && numrange(4, 6) order by id;
select id from nr where r = numrange(1.1, 2.2) order by id;
create index nr_r on nr (r);
set enable_seqscan = off;
select id from nr where r = numrange(1.1, 2.2) order by id;
select id from nr where r < numrange(0, 1) order by id;
select id from nr where r >= '[1.7,1.7]' order by id;
reset enable_seqscan;
create table nr2 (r numrange, tag text);
insert into nr2 values (numrange(1.1, 2.2), 'a'), ('empty', 'b'), ('[3,)', 'c'), ('[10,11)', 'd');
select nr.id, nr2.tag from nr join nr2 on nr.r = nr2.r order by nr.id;
select nr.id, nr2.tag from nr join nr2 on nr.r && nr2.r order by nr.id, nr2.tag;
create table ir (r int4range primary key);
insert into ir values ('[1,5)'), ('[5,10)');
insert into ir values ('[1,4]');
update ir set r = r + int4range(10, 20) where r = '[5,10)';
select * from ir order by r;
delete from ir where r @> 3;
select * from ir;

-- other subtypes in tables
create table dr (d daterange, t tsrange, z tstzrange, b int8range);
insert into dr values ('[2000-01-01,2000-02-01)', '[2000-01-01 10:00,2000-01-01 12:00)',
    '[2000-01-01 10:00+00,)', '[1,100]');
insert into dr values (daterange('2001-01-01', null), tsrange(null, '2000-01-01'), 'empty', int8range(-5, 5, '(]'));
select * from dr order by d;
select d @> '2000-01-15'::date, t @> '2000-01-01 11:00'::timestamp, z @> now(), b @> 5::int8 from dr order by d;

-- arrays of ranges
select array[int4range(1, 2), int4range(3, 4)], '{"[1,2)","(3,4]",empty}'::int4range[];
select (array[numrange(1.1, 1.2), numrange(12.3, 155.5)])[2];
select array[int4range(1, 2)] = array['[1,1]'::int4range];
create table ar (a daterange[]);
insert into ar values (array[daterange('2000-01-01', '2000-01-05'), 'empty']);
select a, a[1] from ar;

-- catalog rows and type names
select t.oid, typname, typlen, typbyval, typtype, typcategory, typalign, typstorage, typarray,
       typinput, typoutput, typreceive, typsend
from pg_type t where t.oid between 3904 and 3913 or t.oid in (3926, 3927) order by t.oid;
select rngtypid::regtype, rngsubtype::regtype, rngmultitypid, rngcollation, rngsubopc
from pg_range order by rngtypid;
select format_type(3904, -1), format_type(3905, -1), format_type(3926, null), 'tstzrange[]'::regtype,
       'numrange'::regtype::oid;
select pg_typeof(int4range(1, 2)), pg_typeof(array[daterange(null, null)]);
\d dr

-- polymorphic functions
create function range_len(r anyrange) returns anyelement
    as 'select upper($1) - lower($1)' language sql;
select range_len(int4range(1, 17)), range_len(numrange(1.5, 4));
create function range_of(r anyrange, out lo anyelement, out whole anyrange)
    as 'select lower($1), $1' language sql;
select * from range_of(daterange('2000-01-01', '2000-03-01'));
create function range_and_array(a anyarray, r anyrange) returns anyelement
    as 'select $1[1] + lower($2)' language sql;
select range_and_array(array[1, 2], int4range(10, 20));
select range_and_array(array[1, 2], numrange(10, 20));
create function compat_range(a anycompatible, r anycompatiblerange) returns anycompatible
    as 'select $1 + lower($2)' language sql;
select compat_range(1, numrange(10, 20)), compat_range(1, int4range(10, 20));
select compat_range(1.5, int4range(10, 20));
create function bad_range(anyelement) returns anyrange as 'select int4range(1, 10)' language sql;
create function plpgsql_range(r anyrange) returns boolean as $$
begin
    return isempty(r) or lower_inf(r);
end $$ language plpgsql;
select plpgsql_range('empty'::int4range), plpgsql_range(numrange(null, 1)), plpgsql_range(numrange(0, 1));

-- range_intersect_agg
select range_intersect_agg(r) from (values (numrange(1, 10)), (numrange(2, 20)), (null)) v(r);
select range_intersect_agg(r) from (values (numrange(1, 10))) v(r) where false;
select range_intersect_agg(r) from (values (numrange(1, 10)), ('empty')) v(r);
select g, range_intersect_agg(r) from (values (1, int4range(1, 10)), (1, int4range(5, 20)), (2, int4range(3, 4))) v(g, r)
group by g order by g;
select range_intersect_agg(x) from (values (1)) v(x);

-- edge cases
select isempty('empty');
select lower('[1,2)'), upper('ab');
select int4range(1, 2) < int8range(1, 2);
select distinct on (r) r, x from (values (int4range(1, 3), 1), ('[1,2]', 2), ('empty', 3)) v(r, x) order by r, x;
select r from (values (int4range(1, 3)), ('[1,2]'), ('empty')) v(r) union select '[5,6)'::int4range order by 1;
select row(int4range(1, 3), 1) = row('[1,2]'::int4range, 1), array[int4range(1, 3)] < array[int4range(1, 4)];
select int4range(1.5, 3);
select tsrange('2000-01-01'::date, '2000-01-03'::date), int8range(1, 3::int2);
select '[1,)'::int4range - '[5,)'::int4range, '(,5)'::int4range - '(,1)'::int4range;
select numrange(1, 2) @> 1;
select 1 <@ numrange(1, 2);
select range_contains_elem(numrange(1, 2), 1);
select range_contains_elem(numrange(1, 2), '1.5'), int8range(1, 5) @> 2::int8;
select max(r) from (values (int4range(1, 2))) v(r);
select int4range(1, 3) in ('[1,2]', 'empty'), int4range(1, 3) = any(array[int4range(5, 6), '[1,3)']);
select coalesce(null::int4range, '[1,2]'), greatest(int4range(1, 2), int4range(0, 5)), least(int4range(1, 2), 'empty');
select array_agg(r order by r) from (values (int4range(1, 2)), (int4range(0, 5)), ('empty')) v(r);
select to_json(int4range(1, 2)), to_jsonb(array[int4range(1, 2)]), row_to_json(row(int4range(1, 2)));
prepare contains3(int4range) as select $1 @> 3;
execute contains3('[1,5)');
