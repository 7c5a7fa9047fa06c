-- Domains and composite types together: composite types with attributes
-- of domains, domains over composites and over arrays of composites
-- (after PostgreSQL's domain.sql and json.sql).

-- A composite type whose attribute is of a domain.
create domain posint as int check (value > 0);
create domain nnint as int not null;
create type ddtest1 as (f1 posint, f2 text);
select row(1, 'a')::ddtest1;
select row(-1, 'a')::ddtest1;  -- fail
select '(-1,a)'::ddtest1;  -- fail
select '(5,b)'::ddtest1;
select null::ddtest1;
select row(null, 'x')::ddtest1;  -- a check that is NULL passes
create type ddtest_nn as (i nnint);
select row(null)::ddtest_nn;  -- fail
select row(3)::ddtest_nn;
create table ddtest2 (id int, f1 ddtest1);
insert into ddtest2 values (1, row(1, 'a'));
insert into ddtest2 values (2, row(-1, 'a'));  -- fail
insert into ddtest2 values (3, '(-2,b)');  -- fail
insert into ddtest2 (id, f1.f1) values (4, 7);
insert into ddtest2 (id, f1.f1) values (5, -7);  -- fail
update ddtest2 set f1.f1 = 0 where id = 1;  -- fail
update ddtest2 set f1 = row(9, 'z') where id = 1;
update ddtest2 set f1 = row(-9, 'z') where id = 1;  -- fail
select * from ddtest2 order by id;
-- arrays of the composite
create table ddtest3 (f1 ddtest1[]);
insert into ddtest3 values ('{"(1,a)","(2,b)"}');
insert into ddtest3 values ('{"(1,a)","(-2,b)"}');  -- fail
insert into ddtest3 values (array[row(3, 'c')::ddtest1, null]);
insert into ddtest3 values (array[row(4, 'c'), row(0, 'd')]::ddtest1[]);  -- fail
select * from ddtest3;
-- nested composites
create type ddtest_outer as (inner_val ddtest1, n int);
select row(row(1, 'a'), 2)::ddtest_outer;
select row(row(-1, 'a'), 2)::ddtest_outer;  -- fail
-- an attribute of an array of a domain
create type ddtest_arr as (a posint[]);
select row(array[1, 2])::ddtest_arr;
select row(array[1, -2])::ddtest_arr;  -- fail
-- ALTER DOMAIN cannot check values inside composites
create domain posint2 as int4;
create type ddtest4 as (f1 posint2);
create table ddtest5 (f1 ddtest4);
insert into ddtest5 values (row(-1));
alter domain posint2 add constraint c1 check (value >= 0);  -- fail
drop table ddtest5;
create table ddtest5 (f1 ddtest4[]);
insert into ddtest5 values ('{(-1)}');
alter domain posint2 add constraint c1 check (value >= 0);  -- fail
drop table ddtest5;
create domain ddtest4d as ddtest4;
create table ddtest5 (f1 ddtest4d);
insert into ddtest5 values ('(-1)');
alter domain posint2 add constraint c1 check (value >= 0);  -- fail
alter domain posint2 set not null;  -- fail
drop table ddtest5;
drop domain ddtest4d;
create domain ddtest4d as ddtest4[];
create table ddtest5 (f1 ddtest4d);
insert into ddtest5 values ('{(-1)}');
alter domain posint2 add constraint c1 check (value >= 0);  -- fail
drop table ddtest5;
drop domain ddtest4d;
alter domain posint2 add constraint c1 check (value >= 0);
select row(-1)::ddtest4;  -- fail: the new constraint applies
drop type ddtest4;
drop domain posint2;

-- A domain an attribute uses cannot be dropped but with CASCADE, which
-- drops the attribute.
create domain posint3 as int;
create type ddtest7 as (a int, b posint3, c text);
drop domain posint3;  -- fail
drop domain posint3 cascade;
\d ddtest7
select row(1, 'x')::ddtest7;
drop type ddtest7;

-- Changing a composite type a domain is over.
create type comptype as (r float8, i float8);
create domain dcomptype as comptype;
alter domain dcomptype add constraint c1 check ((value).r > 0);
comment on constraint c1 on domain dcomptype is 'random commentary';
comment on constraint nope on domain dcomptype is 'x';  -- fail
select row(0,1)::dcomptype;  -- fail
alter type comptype alter attribute r type bigint;
alter type comptype drop attribute r;  -- fail
alter type comptype drop attribute i;
select conname, obj_description(oid, 'pg_constraint') from pg_constraint
  where contypid = 'dcomptype'::regtype;  -- the comment is still there
alter type comptype add attribute z posint;
select row(1, 2)::dcomptype;
select row(0, 2)::dcomptype;  -- fail
select row(1, -2)::dcomptype;  -- fail
drop type comptype cascade;

-- Domains over composites.
create type comptype as (r float8, i float8);
create domain dcomptype as comptype;
create table dcomptable (d1 dcomptype unique);
insert into dcomptable values (row(1,2)::dcomptype);
insert into dcomptable values (row(3,4)::comptype);
insert into dcomptable values (row(1,2)::dcomptype);  -- fail on uniqueness
insert into dcomptable (d1.r) values(11);
select * from dcomptable order by 1;
select (d1).r, (d1).i, (d1).* from dcomptable order by d1;
update dcomptable set d1.r = (d1).r + 1 where (d1).i > 0;
select * from dcomptable order by 1;
alter domain dcomptype add constraint c1 check ((value).r <= (value).i);
alter domain dcomptype add constraint c2 check ((value).r > (value).i);  -- fail
select row(2,1)::dcomptype;  -- fail
insert into dcomptable values (row(1,2)::comptype);
insert into dcomptable values (row(2,1)::comptype);  -- fail
insert into dcomptable (d1.r) values(99);
insert into dcomptable (d1.r, d1.i) values(99, 100);
insert into dcomptable (d1.r, d1.i) values(100, 99);  -- fail
update dcomptable set d1.r = (d1).r + 1 where (d1).i > 0;  -- fail
update dcomptable set d1.r = (d1).r - 1, d1.i = (d1).i + 1 where (d1).i > 0;
select * from dcomptable order by 1;
create function makedcomp(r float8, i float8) returns dcomptype
as 'select row(r, i)' language sql;
select makedcomp(1,2);
select makedcomp(2,1);  -- fail
select * from makedcomp(1,2) m;
drop function makedcomp(float8, float8);
drop table dcomptable;
drop type comptype cascade;

-- A domain over a composite with an attribute of a domain.
create domain ddtest1d as ddtest1 check ((value).f2 <> 'bad');
select row(1, 'ok')::ddtest1d;
select row(-1, 'ok')::ddtest1d;  -- fail: the attribute's domain first
select row(1, 'bad')::ddtest1d;  -- fail
create table ddtest6 (d ddtest1d);
insert into ddtest6 values (row(2, 'x'));
insert into ddtest6 values (row(-2, 'x'));  -- fail
insert into ddtest6 values (row(2, 'bad'));  -- fail
insert into ddtest6 values ('(-3,x)');  -- fail, at the literal
insert into ddtest6 values ('(3,bad)');  -- fail
select * from ddtest6;
drop table ddtest6;
-- a literal array of a domain is checked as it is read
create table pitable (f1 posint[]);
insert into pitable values ('{1,2}');
insert into pitable values ('{0}');  -- fail
insert into pitable values (array[-1]);  -- fail
drop table pitable;
drop domain ddtest1d;

-- Domains over arrays of composites.
create type comptype as (r float8, i float8);
create domain dcomptypea as comptype[];
create table dcomptable (d1 dcomptypea unique);
insert into dcomptable values (array[row(1,2)]::dcomptypea);
insert into dcomptable values (array[row(3,4), row(5,6)]::comptype[]);
insert into dcomptable values (array[row(7,8)::comptype, row(9,10)::comptype]);
insert into dcomptable values (array[row(1,2)]::dcomptypea);  -- fail on uniqueness
insert into dcomptable (d1[1]) values(row(9,10));
insert into dcomptable (d1[1].r) values(11);
select * from dcomptable order by 1;
select d1[2], d1[1].r, d1[1].i from dcomptable order by d1;
update dcomptable set d1[2] = row(d1[2].i, d1[2].r);
select * from dcomptable order by 1;
update dcomptable set d1[1].r = d1[1].r + 1 where d1[1].i > 0;
select * from dcomptable order by 1;
alter domain dcomptypea add constraint c1 check (value[1].r <= value[1].i);
alter domain dcomptypea add constraint c2 check (value[1].r > value[1].i);  -- fail
select array[row(2,1)]::dcomptypea;  -- fail
insert into dcomptable values (array[row(1,2)]::comptype[]);
insert into dcomptable values (array[row(2,1)]::comptype[]);  -- fail
insert into dcomptable (d1[1].r) values(99);
insert into dcomptable (d1[1].r, d1[1].i) values(99, 100);
insert into dcomptable (d1[1].r, d1[1].i) values(100, 99);  -- fail
update dcomptable set d1[1].r = d1[1].r + 1 where d1[1].i > 0;  -- fail
update dcomptable set d1[1].r = d1[1].r - 1, d1[1].i = d1[1].i + 1
  where d1[1].i > 0;
select * from dcomptable order by 1;
drop table dcomptable;
drop type comptype cascade;

-- Arrays of a domain over a composite.
create type comptype as (cf1 int, cf2 int);
create domain dcomptype as comptype check ((value).cf1 > 0);
create table dcomptable (f1 dcomptype[]);
insert into dcomptable values (null);
update dcomptable set f1[1].cf2 = 5;
table dcomptable;
update dcomptable set f1[1].cf1 = -1;  -- fail
update dcomptable set f1[1].cf1 = 1;
table dcomptable;
drop table dcomptable;
drop type comptype cascade;

-- json(b)_populate_record(set) with domains.
create domain js_int_not_null as int not null;
create domain js_int_array_1d as int[] check (array_length(value, 1) = 3);
create type jsrec as (i int, ia1d js_int_array_1d, t text);
create type jsrec_i_not_null as (i js_int_not_null);
select i from json_populate_record(null::jsrec_i_not_null, '{"x": 43.2}') q;  -- fail
select i from json_populate_record(null::jsrec_i_not_null, '{"i": null}') q;  -- fail
select i from json_populate_record(null::jsrec_i_not_null, '{"i": 12345}') q;
select json_populate_record(null::jsrec_i_not_null, '{"i": null}');  -- fail
select ia1d from json_populate_record(null::jsrec, '{"ia1d": null}') q;
select ia1d from json_populate_record(null::jsrec, '{"ia1d": [1, "2", null, 4]}') q;  -- fail
select ia1d from json_populate_record(null::jsrec, '{"ia1d": [1, "2", null]}') q;
select ia1d from jsonb_populate_record(null::jsrec, '{"ia1d": [1, 2]}') q;  -- fail
select * from json_populate_recordset(null::jsrec_i_not_null, '[{"i": 1}, {"i": null}]');  -- fail
select jsonb_populate_recordset(null::jsrec_i_not_null, '[{"i": 1}, {"i": 2}]');
select jsonb_populate_recordset(null::jsrec_i_not_null, '[{"i": 1}, {}]');  -- fail
create type j_unordered_pair as (x int, y int);
create domain j_ordered_pair as j_unordered_pair check ((value).x <= (value).y);
select json_populate_record(null::j_ordered_pair, '{"x": 0, "y": 1}');
select json_populate_record(row(1,2)::j_ordered_pair, '{"x": 0}');
select json_populate_record(row(1,2)::j_ordered_pair, '{"x": 1, "y": 0}');  -- fail
select * from jsonb_populate_record(null::j_ordered_pair, '{"x": 1, "y": 0}');  -- fail
select json_populate_recordset(null::j_ordered_pair, '[{"x": 0, "y": 1}]');
select json_populate_recordset(row(1,2)::j_ordered_pair, '[{"x": 0}, {"y": 3}]');
select json_populate_recordset(row(1,2)::j_ordered_pair, '[{"x": 1, "y": 0}]');  -- fail
select * from jsonb_populate_recordset(row(1,2)::j_ordered_pair, '[{"x": 1, "y": 0}]');  -- fail
