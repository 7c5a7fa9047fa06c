-- WITH RECURSIVE: item order and the shape of recursive queries
-- (PostgreSQL's parse_cte.c checks)

-- an item may name one written after it
with recursive
  x(id) as (select * from y union all select id + 1 from x where id < 3),
  y(id) as (values (1))
select * from x;

with recursive
  x(id) as (select 1 union all select id + 1 from x where id < 3),
  y(id) as (select * from x union all select * from x),
  z(id) as (select * from y union all select id + 1 from z where id < 4)
select id, count(*) from z group by id order by id;

-- mutual recursion
with recursive
  x (id) as (select 1 union all select id + 1 from y where id < 5),
  y (id) as (select 1 union all select id + 1 from x where id < 5)
select * from x;

-- the form non-recursive-term UNION [ALL] recursive-term
with recursive x(n) as (select 1 intersect select n + 1 from x)
select * from x;
with recursive x(n) as (select 1 except all select n + 1 from x)
select * from x;
with recursive x(n) as (select n from x)
select * from x;
with recursive x(n) as (select n from x union all select 1)
select * from x;

-- a WITH atop the UNION is in scope for both terms, but must not name
-- the query
with recursive x(n) as (
  with x1 as (select 1 as n)
  select 0
  union
  select * from x1)
select * from x order by n;

with recursive x(n) as (
  with x1 as (select 1 from x)
  select 0
  union
  select * from x1)
select * from x;

with recursive x(n) as (
  (with x1 as (select 1 from x) select * from x1)
  union
  select 0)
select * from x;

-- decorations atop the UNION
with recursive x(n) as (
  select 0 union select 1
  order by (select n from x))
select * from x;
with recursive x(n) as (select 1 union all select n + 1 from x order by 1)
select * from x;
with recursive x(n) as (select 1 union all select n + 1 from x limit 10 offset 1)
select * from x;
with recursive x(n) as (select 1 union all select n + 1 from x limit 10)
select * from x;

-- where the self-reference may not be
create table y (a int);
insert into y select generate_series(1, 10);

with recursive x(n) as (select a from y where a = 1
  union all
  select x.n + 1 from y left join x on x.n = y.a where n < 10)
select * from x;

with recursive x(n) as (select a from y where a = 1
  union all
  select x.n + 1 from x right join y on x.n = y.a where n < 10)
select * from x;

with recursive x(n) as (select a from y where a = 1
  union all
  select x.n + 1 from x full join y on x.n = y.a where n < 10)
select * from x;

-- the preserved side of an outer join is fine
with recursive x(n) as (select a from y where a = 1
  union all
  select x.n + 1 from x left join y on x.n = y.a where n < 5)
select * from x order by n;

with recursive x(n) as (select 1 union all select n + 1 from x
                        where n in (select * from x))
select * from x;

with recursive x(id) as (values (1)
  union all
  select (select * from x) from x where id < 5)
select * from x;

with recursive foo(i) as (values (1)
  union all
  (select i + 1 from foo where i < 10
   union all
   select i + 1 from foo where i < 5))
select * from foo;

with recursive foo(i) as (values (1)
  union all
  (select i + 1 from foo where i < 10
   except
   select i + 1 from foo where i < 5))
select * from foo;

with recursive foo(i) as (values (1)
  union all
  (select i + 1 from foo where i < 10
   intersect
   select i + 1 from foo where i < 5))
select * from foo;

-- a name an inner WITH defines is not the query
with recursive x(n) as (select 1
  union all
  select n + 1 from x where n < 3 and n not in (with x as (select 5) select * from x))
select * from x order by n;

-- aggregates in the recursive term
with recursive x(n) as (select 1 union all select count(*) from x)
select * from x;
with recursive x(n) as (select 1::bigint union all select sum(n) + 1 from x)
select * from x;

-- column types and counts
with recursive foo(i) as
  (select i from (values (1), (2)) t(i)
   union all
   select (i + 1)::numeric(10,0) from foo where i < 10)
select * from foo;

with recursive foo(i) as
  (select i::numeric(3,0) from (values (1), (2)) t(i)
   union all
   select (i + 1)::numeric(10,0) from foo where i < 10)
select * from foo;

with x(n, b) as (select 1)
select * from x;

-- data-modifying statements
with recursive x(n) as (
  with sub_cte as (select * from x)
  delete from y returning a)
select * from x;

-- qualified star of the right side of a join with USING
with recursive
  x(id) as (values (1) union all select id + 1 from x where id < 3),
  z(id) as (values (1) union all select id + 1 from z where id < 5)
select z.*, x.* from z left join x using (id) order by 1;

-- a CTE reading an enclosing query's row is computed for each row, and a
-- subquery reading it is correlated too
create table int4_tbl (f1 int);
insert into int4_tbl values (0), (123456), (-123456), (2147483647), (-2147483647);
select (with cte(foo) as (values (f1)) select (select foo from cte)) from int4_tbl;
select (with cte(foo) as (values (f1)) values ((select foo from cte))) from int4_tbl;
select f1, (with recursive r(n) as (select f1 % 3 union all select n + 1 from r where n < 2)
            select count(*) from r)
from int4_tbl order by 1;
select (select 1 as a union select 2 limit 1), (values (1)), (select x from (values (1)) v(x));

-- recursive views, and a view's dependencies leave WITH names out where
-- they are in scope
CREATE RECURSIVE VIEW nums (n) AS VALUES (1) UNION ALL SELECT n+1 FROM nums WHERE n < 5;
SELECT * FROM nums;
CREATE OR REPLACE RECURSIVE VIEW nums (n) AS VALUES (1) UNION ALL SELECT n+1 FROM nums WHERE n < 6;
SELECT * FROM nums;
create table t (a int);
create view vt as with t as (select * from t) select * from t;
drop table t;
create view vv as select 1 as a;
create view vw as with recursive x as (select * from vv union all select a + 1 from x where a < 3) select * from x;
drop view vv;
select * from vw;
