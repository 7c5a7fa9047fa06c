-- A table's whole row is NULL where an outer join NULL-extends it
-- (not a row of NULLs)
create table wa (id int, v text);
create table wb (id int, w text);
insert into wa values (1, 'a'), (2, 'b'), (3, null);
insert into wb values (1, 'x'), (3, null), (null, null);
select wa.id, row_to_json(wb) from wa left join wb on wa.id = wb.id order by 1;
select wa.id, count(wb.*), count(wb) from wa left join wb on wa.id = wb.id group by 1 order by 1;
select wa.id, wb is null as isnull, wb is not null as notnull, wb::text from wa left join wb on wa.id = wb.id order by 1;
select wb, wb is null from wb order by 1;
select wa.id, wb from wa full join wb on wa.id = wb.id order by 1, 2;
select wa.id, to_jsonb(wb) from wa left join wb on wa.id = wb.id where wa.id < 3 order by 1;
select wa.id, (select wb.w) from wa left join wb on wa.id = wb.id order by 1;
select wa.id, x from wa left join wb on wa.id = wb.id, lateral (select wb as x) s order by 1;
update wb set w = 'y' where id = 1 returning wb;
-- subqueries, views, functions, VALUES and CTEs: their rows carry a marker
create view wv as select * from wb;
select wa.id, count(s.*) from wa left join (select * from wb) s on wa.id = s.id group by 1 order by 1;
select wa.id, count(s.*) from wa left join (select * from wb offset 0) s on wa.id = s.id group by 1 order by 1;
select wa.id, row_to_json(s) from wa left join (select id, null::text as n from wb) s on wa.id = s.id order by 1;
select wa.id, row_to_json(wv) from wa left join wv on wa.id = wv.id order by 1;
select wa.id, g from wa left join generate_series(1, 2) g on wa.id = g order by 1;
select wa.id, v from wa left join (values (1), (null::int)) v(x) on wa.id = v.x order by 1;
select * from wa left join (select * from wb) s on wa.id = s.id order by 1;
select s.* from wa left join (select * from wb) s on wa.id = s.id order by 1;
select * from (select * from wb) s right join wa on wa.id = s.id order by wa.id;
select s, t from (select * from wb) s full join (select * from wa) t on t.id = s.id order by t.id, s.id;
select * from wa natural left join (select id, w as v from wb) s order by 1;
select * from wa left join (select * from wb) s using (id) order by 1;
select * from wa left join (select * from wb) s(a, b) on wa.id = s.a order by 1;
select * from wa left join (select * from wb) s(a, b, c) on wa.id = s.a;
with c as (select * from wb) select wa.id, c from wa left join c on c.id = wa.id order by 1;
drop view wv;
-- inheritance and partitions: the same
create table wp (id int, v text) partition by range (id);
create table wp1 partition of wp for values from (0) to (10);
insert into wp values (1, 'p');
select wa.id, row_to_json(wp) from wa left join wp on wa.id = wp.id order by 1;
drop table wa, wb, wp;
-- with no outer join a whole row is its row, even where no row id is set
-- yet (a new row's policy check) or allowed (a partition key)
CREATE TABLE gtest_parent (f1 date NOT NULL, f2 bigint, f3 bigint GENERATED ALWAYS AS (f2 * 2) STORED) PARTITION BY RANGE ((gtest_parent is not null));
create table rls_t (a int, b int);
alter table rls_t enable row level security;
alter table rls_t force row level security;
create policy p on rls_t using (rls_t is not null) with check (rls_t is not null);
create role rls_u;
grant all on rls_t to rls_u;
set role rls_u;
insert into rls_t select 10, 20;
select * from rls_t;
reset role;
drop table rls_t; drop role rls_u;
