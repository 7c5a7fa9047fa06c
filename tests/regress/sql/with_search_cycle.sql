-- WITH RECURSIVE ... SEARCH DEPTH|BREADTH FIRST and CYCLE (PostgreSQL 14+)
create table graph (f int, t int, label text);
insert into graph values
  (1, 2, 'arc 1 -> 2'), (1, 3, 'arc 1 -> 3'), (2, 3, 'arc 2 -> 3'),
  (1, 4, 'arc 1 -> 4'), (4, 5, 'arc 4 -> 5');

-- SEARCH DEPTH FIRST: the path of (f, t) records, ordered depth first
with recursive search_graph(f, t, label) as (
  select * from graph g
  union all
  select g.* from graph g, search_graph sg where g.f = sg.t
) search depth first by f, t set seq
select * from search_graph order by seq;

-- UNION (distinct) keeps the same rows here
with recursive search_graph(f, t, label) as (
  select * from graph g
  union
  select g.* from graph g, search_graph sg where g.f = sg.t
) search depth first by f, t set seq
select * from search_graph order by seq;

-- SEARCH BREADTH FIRST: a record of the depth and the columns
with recursive search_graph(f, t, label) as (
  select * from graph g
  union all
  select g.* from graph g, search_graph sg where g.f = sg.t
) search breadth first by f, t set seq
select * from search_graph order by seq;

-- one search column; the column's types
with recursive test as (
  select 1 as x
  union all
  select x + 1 from test where x < 4
) search depth first by x set y
select x, y, pg_typeof(y) from test order by y;

with recursive test as (
  select 1 as x
  union all
  select x + 1 from test
) search breadth first by x set y
select x, y, pg_typeof(y) from test limit 4;

-- the search column can be read like any other
with recursive search_graph(f, t, label) as (
  select * from graph g
  union all
  select g.* from graph g join search_graph sg on g.f = sg.t
) search breadth first by t set seq
select f, t, seq, seq > row(0::bigint, 3) as deeper from search_graph order by seq desc, label;

-- the working table's alias and its own column names
with recursive search_graph(f, t, label) as (
  select * from graph g
  union all
  select g.* from graph g, search_graph as w(a, b, c) where g.f = w.b
) search depth first by t, f set seq
select seq, label from search_graph order by seq;

-- CYCLE: the mark (boolean by default) and the path; cycles stop
insert into graph values (5, 1, 'arc 5 -> 1');

with recursive search_graph(f, t, label) as (
  select * from graph g
  union all
  select g.* from graph g, search_graph sg where g.f = sg.t
) cycle f, t set is_cycle using path
select * from search_graph order by path;

with recursive search_graph(f, t, label) as (
  select * from graph g
  union distinct
  select g.* from graph g, search_graph sg where g.f = sg.t
) cycle f, t set is_cycle to 'Y' default 'N' using path
select * from search_graph order by path;

-- TO and DEFAULT of different types take their common type
with recursive test as (
  select 0 as x
  union all
  select (x + 1) % 4 from test
) cycle x set c to 1 default 2.5 using p
select x, c, pg_typeof(c), p, pg_typeof(p) from test order by p;

-- the recursive term may read the mark
with recursive test as (
  select 0 as x
  union all
  select (x + 1) % 5 from test where not is_cycle
) cycle x set is_cycle using path
select * from test order by path;

-- `*` in the recursive term leaves the added columns out
with recursive a as (
  select 1 as b
  union all
  select * from a
) cycle b set c using p
select * from a;

-- a subquery's `*` leaves them out too; a whole-row reference has them
with recursive a as (
  select 1 as b
  union all
  select b + 1 from a where b < 3
) cycle b set c using p
select (select count(*) from (select * from a) s), a from a order by b;

-- both clauses: the search column comes first
with recursive search_graph(f, t, label) as (
  select * from graph g
  union all
  select g.* from graph g, search_graph sg where g.f = sg.t
) search depth first by f, t set seq
  cycle f, t set is_cycle using path
select * from search_graph order by seq;

with recursive search_graph(f, t, label) as (
  select * from graph g
  union all
  select g.* from graph g, search_graph sg where g.f = sg.t
) search breadth first by f, t set seq
  cycle f, t set is_cycle using path
select * from search_graph order by seq;

-- several WITH items
with recursive
  edges(f, t) as (values (1, 2), (2, 3), (3, 1)),
  walk(f, t) as (
    select * from edges where f = 1
    union all
    select e.* from edges e, walk w where e.f = w.t
  ) cycle f set looped to true default false using trail
select * from walk order by trail;

-- a view keeps its clauses
create view v_cycle as
with recursive search_graph(f, t, label) as (
  select * from graph g
  union all
  select g.* from graph g, search_graph sg where g.f = sg.t
) cycle f, t set is_cycle using path
select f, t, label, is_cycle from search_graph;
select * from v_cycle order by f, t, label, is_cycle;

-- records and arrays of records
select array[row(1, 'a b'), row(2, null)] as a, pg_typeof(array[row(1, 2)]);
select row(1, 2) < row(1, 3), array[row(1, 2)] < array[row(1, 3), row(0, 0)];
select row(1, 2) = any (array[row(0, 0), row(1, 2)]);

-- errors
with recursive search_graph(f, t, label) as (
  select * from graph g
  union all
  select g.* from graph g, search_graph sg where g.f = sg.t
) search depth first by foo, tar set seq
select * from search_graph;

with recursive search_graph(f, t, label) as (
  select * from graph g
  union all
  select g.* from graph g, search_graph sg where g.f = sg.t
) search depth first by f, t set label
select * from search_graph;

with recursive search_graph(f, t, label) as (
  select * from graph g
  union all
  select g.* from graph g, search_graph sg where g.f = sg.t
) search depth first by f, t, f set seq
select * from search_graph;

with recursive search_graph(f, t, label) as (
  select * from graph g
  union all
  select * from graph g
  union all
  select g.* from graph g, search_graph sg where g.f = sg.t
) search depth first by f, t set seq
select * from search_graph;

with recursive search_graph(f, t, label) as (
  select * from graph g
  union all
  (select * from graph g
   union all
   select g.* from graph g, search_graph sg where g.f = sg.t)
) search depth first by f, t set seq
select * from search_graph;

with recursive x(col) as (
  select 1
  union
  (with x as (select * from x) select * from x)
) search depth first by col set seq
select * from x;

with recursive x(col) as (
  select 1
  union all
  select col + 1 from (select * from x) s where col < 3
) search depth first by col set seq
select * from x;

with recursive search_graph(f, t, label) as (
  select * from graph g
  union all
  select g.* from graph g, search_graph sg where g.f = sg.t
) cycle foo, tar set is_cycle using path
select * from search_graph;

with recursive search_graph(f, t, label) as (
  select * from graph g
  union all
  select g.* from graph g, search_graph sg where g.f = sg.t
) cycle f, t set is_cycle to true default 55 using path
select * from search_graph;

with recursive search_graph(f, t, label) as (
  select * from graph g
  union all
  select g.* from graph g, search_graph sg where g.f = sg.t
) cycle f, t set label to true default false using path
select * from search_graph;

with recursive search_graph(f, t, label) as (
  select * from graph g
  union all
  select g.* from graph g, search_graph sg where g.f = sg.t
) cycle f, t set is_cycle to true default false using label
select * from search_graph;

with recursive search_graph(f, t, label) as (
  select * from graph g
  union all
  select g.* from graph g, search_graph sg where g.f = sg.t
) cycle f, t set foo to true default false using foo
select * from search_graph;

with recursive search_graph(f, t, label) as (
  select * from graph g
  union all
  select g.* from graph g, search_graph sg where g.f = sg.t
) cycle f, t, f set is_cycle to true default false using path
select * from search_graph;

with recursive search_graph(f, t, label) as (
  select * from graph g
  union all
  select g.* from graph g, search_graph sg where g.f = sg.t
) search depth first by f, t set foo
  cycle f, t set foo to true default false using path
select * from search_graph;

with recursive search_graph(f, t, label) as (
  select * from graph g
  union all
  select g.* from graph g, search_graph sg where g.f = sg.t
) search depth first by f, t set foo
  cycle f, t set is_cycle to true default false using foo
select * from search_graph;

-- the clauses need a recursive query
with x as (select 1 as a) search depth first by a set s
select * from x;

with recursive x as (select 1 as a union all select 2) cycle a set c using p
select * from x;

-- the column list comes from the non-recursive term
with recursive x as (
  select 1 as a, 2 as b
  union all
  select a + 1, b from x where a < 2
) search breadth first by b, a set s
select * from x order by s;

-- a view cannot have the added columns
create view v_bad as
with recursive s(f, t) as (
  select f, t from graph
  union all
  select g.f, g.t from graph g, s where g.f = s.t
) search breadth first by f set q
select * from s;

create view v_bad as
with recursive s(f, t) as (
  select f, t from graph
  union all
  select g.f, g.t from graph g, s where g.f = s.t
) cycle f, t set c to 'Y' default 'N' using p
select * from s;
