-- A LATERAL subquery of one row computed from earlier FROM items
-- (VALUES, or SELECT without FROM) is pulled up: a condition on its
-- columns is one on those items' columns, so it can key an index scan
-- instead of a nested loop over every pair of rows.
create table lp (u1 int, u2 int primary key, v text);
insert into lp select g, 10001 - g, 'v' || g from generate_series(1, 10000) g;
analyze lp;
create function uses_index(q text, idx text) returns boolean language plpgsql as $$
DECLARE
  line text;
BEGIN
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
    IF line LIKE '%using ' || idx || ' %' THEN
      RETURN true;
    END IF;
  END LOOP;
  RETURN false;
END $$;
set enable_hashjoin = off;
set enable_mergejoin = off;

select uses_index('select count(*) from lp a, lp b join lateral (values (a.u1)) ss(x) on b.u2 = ss.x', 'lp_pkey');
select count(*) from lp a, lp b join lateral (values (a.u1)) ss(x) on b.u2 = ss.x;
select uses_index('select count(*) from lp a, lp b join lateral (select a.u1 as x) ss on b.u2 = ss.x', 'lp_pkey');
select count(*) from lp a, lp b join lateral (select a.u1 as x) ss on b.u2 = ss.x;
select a.u1, b.v, ss.* from lp a, lp b join lateral (values (a.u1, a.v)) ss(x, y) on b.u2 = ss.x
  where a.u1 < 4 order by 1;
-- in WHERE, an expression of it
select a.u1, ss.y from lp a, lateral (select a.u1 * 2 as y) ss where ss.y < 7 order by 1;
-- its whole row and * are still its own
select ss, ss.* from lp a, lateral (values (a.u1, 'x')) ss(p, q) where a.u1 = 5;
-- referenced from a subquery
select a.u1, (select ss.x + 1) from lp a, lateral (values (a.u1)) ss(x) where a.u1 < 3 order by 1;
-- grouped by it
select ss.x % 3 as m, count(*) from lp a, lateral (values (a.u1)) ss(x) group by ss.x % 3 order by 1;
-- on the nullable side of an outer join it stays NULL where the join
-- NULL-extends it
select a.u1, ss.x from lp a left join lateral (select a.u1 as x) ss on a.u1 > 2
  where a.u1 < 5 order by 1;
select a.u1, ss.x from lp a left join lateral (select a.u1 as x) ss on a.u1 > 2
  where a.u1 < 5 and ss.x is null order by 1;
-- a volatile expression is computed once per row, as the subquery does
select count(distinct ss.r = ss.r) from lp a, lateral (select random() as r, a.u1) ss where a.u1 < 10;
reset enable_hashjoin;
reset enable_mergejoin;
-- grouping sees the column as its own, as PostgreSQL's parser does
select ss.x from lp a, lateral (values (a.u1)) ss(x) group by a.u1;  -- fail
select a.u1 from lp a, lateral (values (a.u1)) ss(x) group by ss.x;  -- fail
select ss.x, count(*) from lp a, lateral (values (a.u1 % 2)) ss(x) where ss.x = 1 group by ss.x;
