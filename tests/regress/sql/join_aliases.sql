-- A join's alias with a column list, FOR UPDATE OF a join, and LATERAL
-- references an UPDATE's or DELETE's FROM list may not make.
create table ja1 (i integer, j integer, t text);
create table ja2 (i integer, k integer);
insert into ja1 values (1, 4, 'one'), (2, 3, 'two'), (0, null, 'zero');
insert into ja2 values (1, -1), (2, 2), (null, 0);

select ii, tt, kk from (ja1 cross join ja2) as tx (ii, jj, tt, ii2, kk) order by 1, 2, 3;
select tx.ii, tx.jj, tx.kk
  from (ja1 t1 (a, b, c) cross join ja2 t2 (d, e)) as tx (ii, jj, tt, ii2, kk)
  order by 1, 2, 3;
-- fewer names than columns: the rest keep theirs
select * from (ja1 cross join ja2) as tx (ii, jj) order by 1, 2, 4, 5;
select i from (ja1 cross join ja2) as tx (ii) order by 1;
-- USING: the merged column comes first
select * from (ja1 join ja2 using (i)) as x (a, b, c, d) order by 1;
select * from (ja1 full join ja2 using (i)) as x (a, b) order by 1, 2;
select a, x.b from (ja1 full join ja2 using (i)) as x (a, b) order by 1, 2;
-- (the hint naming the hidden tables' columns is left out)
\set VERBOSITY terse
select x.i from (ja1 join ja2 using (i)) as x (a);  -- fail, renamed
\set VERBOSITY default
select x.a, x.k from (ja1 join ja2 using (i)) as x (a) order by 1;
-- more names than columns
select * from (ja1 join ja2 using (i)) as x (a, b, c, d, e);  -- fail
select * from (ja1 cross join ja2) ss(a, b, c, d, e, f);  -- fail

-- FOR UPDATE of a join or a function
create table ja3 (y int);
select foo.*, unnamed_join.* from
  ja1 join ja2 using (i) as foo, ja3 as unnamed_join
  for update of foo;  -- fail
select bar.*, unnamed_join.* from
  (ja1 join ja2 using (i) as foo) as bar, ja3 as unnamed_join
  for update of foo;  -- fail, not found
select bar.*, unnamed_join.* from
  (ja1 join ja2 using (i) as foo) as bar, ja3 as unnamed_join
  for update of bar;  -- fail
select * from ja3, generate_series(1, 2) g for share of g;  -- fail
select * from ja3 for key share of nosuch;  -- fail
select * from ja3 for update of ja3;

-- LATERAL items of UPDATE ... FROM and DELETE ... USING do not see the
-- target
create table ja_x (x1 int, x2 int);
insert into ja_x values (1, 10), (2, 20);
update ja_x set x2 = k from (select * from ja2 where i = x1) ss;  -- fail
update ja_x set x2 = k from (select * from ja2 where i = ja_x.x1) ss;  -- fail
update ja_x set x2 = k from lateral (select * from ja2 where i = x1) ss;  -- fail
update ja_x set x2 = k from lateral (select * from ja2 where i = ja_x.x1) ss;  -- fail
delete from ja_x using (select * from ja2 where i = x1) ss;  -- fail
delete from ja_x using lateral (select * from ja2 where i = x1) ss;  -- fail
delete from ja_x using lateral (select * from ja2 where i = ja_x.x1) ss;  -- fail
-- earlier FROM items are visible
update ja_x set x2 = ss.k from ja2 a, lateral (select * from ja2 where i = a.i) ss
  where x1 = a.i;
select * from ja_x order by 1;

-- two items of one name inside a join are found when the join is
-- complete; a LATERAL item planned before then that names them is
-- ambiguous
create table ja8 (q1 int8, q2 int8);
create table ja4 (f1 int4);
insert into ja8 values (1, 2);
insert into ja4 values (3);
select * from ja8 x cross join (ja4 x cross join lateral (select x.f1) ss);  -- fail, ambiguous
select * from ja8 x cross join (ja4 x cross join lateral (select x.q1) ss);  -- fail, ambiguous
select * from ja8 x cross join (ja4 x cross join lateral (select x) ss);  -- fail, ambiguous
select * from ja8 x, (ja4 x cross join lateral (select x.f1) ss);  -- fail, ambiguous
select * from ja8 x cross join (ja4 x cross join lateral (select f1) ss);  -- fail, twice
select * from ja8 x cross join (ja4 x left join lateral (select x.f1) s on true);  -- fail, ambiguous
select * from ja8 x join ja4 x on x.f1 > 0;  -- fail, twice
select * from ja8 x cross join (ja4 y cross join (ja4 x cross join lateral (select y.f1) s));  -- fail, twice
select * from (ja8 x cross join ja4 x) j;  -- fail, twice
select * from ja8 x, ja4 x;  -- fail, twice
select * from ja8 x cross join (select * from ja4 x cross join lateral (select x.f1) s) q;
