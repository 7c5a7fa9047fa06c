-- Equi-joins without an index (Nestor runs them as hash joins): every join
-- kind over a few thousand rows with duplicate keys and NULL keys; keys of
-- mixed integer widths, text against varchar, numerics with different
-- scales, expressions; join filters besides the keys, over one side or
-- both; USING and NATURAL; joins of joins. Results are aggregated or
-- ordered, so the output does not depend on the plan.
\set VERBOSITY verbose
create table hl (id int, k int, k2 text, n numeric, v int);
create table hr (id int, k bigint, k2 varchar(10), n numeric(10, 2), v int);
insert into hl select g, case when g % 11 = 0 then null else g % 97 end,
  case when g % 13 = 0 then null else 'x' || (g % 5) end,
  case when g % 17 = 0 then null else (g % 7)::numeric / 2 end, g % 10
  from generate_series(1, 3000) g;
insert into hr select g, case when g % 7 = 0 then null else (g * 3) % 120 end,
  case when g % 9 = 0 then null else 'x' || (g % 6) end,
  case when g % 19 = 0 then null else (g % 9)::numeric / 2 end, g % 13
  from generate_series(1, 2000) g;
-- inner
select count(*), sum(hl.id), sum(hr.id) from hl join hr on hl.k = hr.k;
select count(*), sum(hl.id), sum(hr.id) from hl join hr on hr.k = hl.k and hl.k2 = hr.k2;
select count(*), sum(hl.id), sum(hr.id) from hl, hr where hl.k = hr.k and hl.v < hr.v;
select count(*) from hl join hr on hl.n = hr.n where hl.id % 10 = 0;
select count(*) from hl join hr on hl.k + 1 = hr.k + 1;
select count(*) from hl join hr on hl.k2 = hr.k2 and hl.v = hr.v and hl.id < 100;
-- left
select count(*), count(hr.id), sum(hl.id), sum(hr.id) from hl left join hr on hl.k = hr.k;
select count(*), count(hr.id), sum(hr.id) from hl left join hr on hl.k = hr.k and hr.v > 6;
select count(*), count(hr.id), sum(hr.id) from hl left join hr on hl.k = hr.k and hl.v > 6;
select count(*), count(hr.id), sum(hr.id) from hl left join hr on hl.k = hr.k and hl.v + hr.v = 12;
select count(*), count(hr.id) from hl left join hr on hl.k = hr.k where hr.id is null;
-- right
select count(*), count(hl.id), sum(hl.id), sum(hr.id) from hl right join hr on hl.k = hr.k;
select count(*), count(hl.id), sum(hl.id) from hl right join hr on hl.k = hr.k and hl.v > 6;
select count(*), count(hl.id), sum(hl.id) from hl right join hr on hl.k = hr.k and hl.v + hr.v = 12;
-- full
select count(*), count(hl.id), count(hr.id), sum(hl.id), sum(hr.id) from hl full join hr on hl.k = hr.k;
select count(*), count(hl.id), count(hr.id) from hl full join hr on hl.k = hr.k and hl.v > 6;
select count(*), count(hl.id), count(hr.id) from hl full join hr on hl.k = hr.k and hr.v > 6;
select count(*), count(hl.id), count(hr.id) from hl full join hr on hl.n = hr.n and hl.k2 = hr.k2;
select hl.id, hl.k, hr.id, hr.k from hl full join hr on hl.k = hr.k
  where hl.id is null or hr.id is null order by hl.id nulls first, hr.id limit 12;
-- rows, not just counts
select hl.id, hr.id, hl.k from hl join hr on hl.k = hr.k and hl.k2 = hr.k2
  where hl.id < 60 order by 1, 2;
select hl.id, hr.id, hl.n, hr.n from hl left join hr on hl.n = hr.n and hr.id < 40
  where hl.id between 30 and 45 order by 1, 2;
-- USING and NATURAL
select count(*), sum(k) from hl join hr using (k);
select count(*), count(k), sum(k) from hl full join hr using (k);
select count(*) from (select id, k from hl) a natural join (select id, k from hr) b;
-- joins of joins
select count(*), sum(a.id + b.id + c.id)
  from hl a join hr b on a.k = b.k join hl c on c.k2 = b.k2 and c.v = a.v where a.id < 500 and c.id < 600;
select count(*), count(c.id)
  from hl a left join hr b on a.k = b.k left join hr c on c.v = b.v and c.k = b.k where a.id < 300;
-- grouping over a join
select hl.v, count(*), count(hr.id) from hl left join hr on hl.k = hr.k and hl.k2 = hr.k2
  group by hl.v order by hl.v;
-- duplicates on both sides multiply; NULL keys never match
create table d1 (k int, tag text);
create table d2 (k int, tag text);
insert into d1 values (1, 'a'), (1, 'b'), (null, 'n1'), (2, 'c');
insert into d2 values (1, 'x'), (1, 'y'), (1, 'z'), (null, 'n2'), (3, 'w');
select d1.tag, d2.tag from d1 join d2 on d1.k = d2.k order by 1, 2;
select d1.tag, d2.tag from d1 full join d2 on d1.k = d2.k order by 1 nulls first, 2 nulls first;
select d1.tag, d2.tag from d1 right join d2 on d1.k = d2.k and d1.tag <> 'a' order by 1, 2;
select d1.tag, d2.tag from d1 left join d2 on d1.k = d2.k and d2.tag > 'x' order by 1, 2;
-- an empty side
select count(*) from d1 join (select * from d2 where false) e on d1.k = e.k;
select count(*), count(e.k) from d1 left join (select * from d2 where false) e on d1.k = e.k;
select count(*) from (select * from d1 where false) e right join d2 on d2.k = e.k;
-- correlated subqueries over an unindexed column (read once, looked up
-- per outer row)
select count(*) from hl where exists (select 1 from hr where hr.k = hl.k and hr.v > hl.v);
select count(*) from hl where hl.id < 1000
  and not exists (select 1 from hr where hr.k2 = hl.k2 and hr.n = hl.n);
select sum((select count(*) from hr where hr.n = hl.n)), sum((select max(hr.id) from hr where hr.k = hl.id)) from hl;
select hl.id, (select string_agg(hr.id::text, ',' order by hr.id) from hr where hr.k = hl.k and hr.id < 200)
  from hl where hl.id < 25 order by hl.id;
select hl.id, x.id from hl, lateral (select hr.id from hr where hr.k2 = hl.k2 and hr.v = hl.v order by hr.id limit 2) x
  where hl.id < 20 order by 1, 2;
select count(*) from hl where hl.id < 1000 and hl.k in (select hr.k from hr where hr.k2 = hl.k2);
