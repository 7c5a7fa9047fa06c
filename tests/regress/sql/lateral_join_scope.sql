-- LATERAL references from inside a JOIN to FROM items before the join
create table la (id int, n int);
create table lb (id int, v text);
create table lc (k int);
insert into la values (1, 2), (2, 3), (3, 0);
insert into lb values (1, 'one'), (2, 'two'), (3, 'three'), (4, 'four');
insert into lc values (10), (20);
-- an earlier FROM-list item, from the right side of a join
select la.id, lb.v, s.x from la, lb join lateral (select la.n * 10 + lb.id as x) s on true
  where lb.id <= la.n order by 1, 2, 3;
-- from the left side of a join
select la.id, s.x, lc.k from la, lateral (select la.n + 100 as x) s join lc on true
  order by 1, 3;
select la.id, s.x, lc.k from la, (lateral (select la.n + 100 as x) s join lc on true)
  order by 1, 3;
-- the left side of an enclosing join, two joins deep
select lc.k, lb.id, s.* from lc join (lb join lateral (select lc.k + lb.id as sum) s on true) on true
  where lb.id < 3 order by 1, 2;
select la.id, lc.k, lb.id, s.* from la, (lc join (lb join lateral (select la.id, lc.k, lb.v) s on true) on lb.id = la.n)
  order by 1, 2, 3;
-- LEFT JOIN LATERAL inside, NULLs where the subquery has no row
select la.id, lb.id, s.v from la, lb left join lateral (select lb.v from lc where lc.k = la.n * 10) s on true
  where lb.id = la.id order by 1;
-- the subquery aggregates per outer row
select la.id, s.cnt from la, lc join lateral (select count(*) as cnt from lb where lb.id <= la.n and lc.k = 10) s on true
  order by 1, 2;
-- items before the join that are not LATERAL-visible
select * from la, lb right join lateral (select lb.id) s on true;
select * from la join (lb join (select la.n) s on true) on true;
-- functions in FROM referring past their join
select la.id, lb.id, g from la, lb join generate_series(1, la.n) g on true
  where lb.id = 1 order by 1, 3;
select la.id, lb.id, g from la, lb join generate_series(lb.id, la.n) g on true
  order by 1, 2, 3;
select la.id, g, lc.k from la, generate_series(1, la.n) g join lc on lc.k = g * 10
  order by 1, 2;
drop table la, lb, lc;
