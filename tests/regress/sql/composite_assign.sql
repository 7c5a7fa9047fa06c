-- Assignment to fields of composite columns, mixed with subscripts, in
-- INSERT and UPDATE targets (PostgreSQL's transformAssignmentIndirection).
create type ca_t as (if1 int, if2 text[]);
create table ca (id int, f3 ca_t, f4 ca_t[]);
insert into ca (id, f3.if1, f3.if2) values (1, 1, array['foo']);
insert into ca (id, f3.if1, f3.if2) values (2, 1, '{foo}'), (3, 2, '{bar}');
insert into ca (id, f3.if1, f3.if2) select 4, 3, '{baz,quux}';
insert into ca (id, f3.if2[1], f3.if2[2]) values (5, 'foo', 'bar');
insert into ca (id, f4[1].if2[1], f4[1].if2[2]) values (6, 'foo', 'bar');
insert into ca (id, f4[1].if1, f4[2].if2) values (7, 1, '{a}') returning *;
insert into ca (id, f3.if1, f3.if1) values (8, 1, 2) returning f3;
select * from ca order by id;
select id, (f3).if2[1], f4[1].if2[2], (f4[1]).if1 from ca order by id;
-- UPDATE: several targets in one column nest.
update ca set f3.if1 = id * 10, f3.if2[3] = 'x' where id <= 3 returning id, f3;
update ca set f4[1].if1 = 7, f4[1].if2[1] = 'q' where id in (6, 7) returning id, f4;
update ca set f3.if2 = '{}', f3.if2[1] = 'a' where id = 8 returning f3;
select * from ca order by id;
-- errors, as PostgreSQL gives them
insert into ca (f3.if1, f3.if2) values (1, default);
update ca set f3.if1 = default;
insert into ca (f4[1:2].if1) values (1);
insert into ca (f4[1].if1[1]) values (1);
update ca set f3.if1[1] = 1;
insert into ca (f3.nope) values (1);
insert into ca (id.x) values (1);
insert into ca (f3, f3.if1) values (null, 1);
insert into ca (f3.if1, f3) values (1, null);
insert into ca (f3.if1) values ('x');
update ca set f3.if1 = 'x';
update ca set f3.if1 = 'x'::text;
update ca set f3 = null, f3.if1 = 1;
-- a domain over the composite type checks the assembled value
create domain ca_d as ca_t check ((value).if2[1] is not null);
create table cad (f3 ca_d, f4 ca_d[]);
insert into cad (f3.if1, f3.if2) values (1, array['foo']);
insert into cad (f3.if1, f3.if2) values (1, array[null]);
insert into cad (f3.if2[1], f3.if2[2]) values ('foo', 'bar');
insert into cad (f3, f4[1].if2[1], f4[1].if2[2]) values (row(1,'{x}'), 'foo', 'bar');
update cad set f3.if2[1] = null;
select * from cad;
drop table cad;
drop domain ca_d;
drop table ca;
drop type ca_t;
