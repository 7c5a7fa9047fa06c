-- A view's definition as PostgreSQL's deparser prints it: pg_get_viewdef
-- (by OID and by name, plain, pretty and with a wrap column),
-- pg_views.definition, information_schema.views.view_definition and
-- psql's \d+. Columns are qualified, `*` is expanded, literals carry the
-- types the parser gave them, implicit casts show, and clauses sit on
-- their own lines.
create table ix (a int, b text, c varchar(10), d char(3), n numeric, f float8, g int8, dt date);
create table iy (a int, e text);

-- Target list, WHERE, ORDER BY; the pretty form drops parentheses.
create view v_basic as select a, b from ix where a > 1 order by b;
select pg_get_viewdef('v_basic'::regclass);
select pg_get_viewdef('v_basic'::regclass, true);
select pg_get_viewdef('v_basic');
select definition from pg_views where viewname = 'v_basic';
select view_definition from information_schema.views where table_name = 'v_basic';
\d+ v_basic

-- `*` is expanded; aliases print only where the name changes.
create view v_star as select * from ix;
select pg_get_viewdef('v_star');
create view v_alias (x, y) as select a, b as bee from ix;
select pg_get_viewdef('v_alias');

-- Constants with the parser's types; implicit casts on operands.
create view v_consts as
  select 42 as i, 42.5 as num, 'foo' as t, null as n, true as bo,
         -1 as neg, 5::bigint as big, 'x'::unknown as u
  from ix;
select pg_get_viewdef('v_consts');
create view v_casts as
  select a + 1 as p, -a as m, a * 2 + 1 as q, (a + 1) * 2 as r, a::text as at,
         cast(n as int) as ni
  from ix
  where c = 'z' and d = 'k' and n > 1 and a > 1.5 and f < 2 and g = a;
select pg_get_viewdef('v_casts');
select pg_get_viewdef('v_casts', true);

-- IN lists, BETWEEN, LIKE, IS NULL, NOT, boolean operators.
create view v_preds as
  select a from ix
  where (a in (1, 2, 3) or b in ('p', 'q') or a not in (7, 8))
    and a between 1 and 5 and a not between 8 and 9
    and b like 'x%' and b not like 'y%' and b ilike 'Z%'
    and (b is null or c is not null) and not (a = 4);
select pg_get_viewdef('v_preds');
select pg_get_viewdef('v_preds', true);

-- CASE, COALESCE, functions.
create view v_case as
  select case when a > 1 then 'big' when a = 1 then 'one' else 'small' end as size,
         case a when 1 then 'one' end as named,
         coalesce(b, 'none') as cb,
         upper(b) as ub, length(b) as lb, lower(c) as lc, abs(a) as aa
  from ix;
select pg_get_viewdef('v_case');
select pg_get_viewdef('v_case', true);

-- Functions PostgreSQL prints in SQL syntax or as keywords.
create view v_syntax as
  select nullif(a, 0) as na, greatest(a, 1, 2) as g, least(n, 1) as l,
         current_date as cd, date_trunc('day', dt::timestamp) as dtt,
         extract(year from dt) as ey, a is distinct from 1 as idf,
         a is not distinct from 2 as indf, substring(b from 1 for 2) as ss,
         position('x' in b) as p, trim(b) as tr, trim(leading 'x' from c) as tl,
         b || 'x' as cat, a::text || b as c2, concat(b, 'x', a) as cc
  from ix;
select pg_get_viewdef('v_syntax');
select pg_get_viewdef('v_syntax', true);

-- Aggregates (FILTER, ORDER BY, DISTINCT), GROUP BY, HAVING.
create view v_agg as
  select b, count(*), count(distinct a) as da, sum(a) filter (where a > 1) as s,
         string_agg(b, ',' order by b) as sa, avg(n) as an, max(dt) as md
  from ix group by b having count(*) > 1;
select pg_get_viewdef('v_agg');
select pg_get_viewdef('v_agg', true);

-- Window functions: inline and named windows, frames.
create view v_window as
  select a, row_number() over (partition by b order by a desc) as rn,
         sum(a) over (order by a rows between 1 preceding and 1 following) as s,
         rank() over w as r, lag(a) over w as la
  from ix window w as (partition by b order by a);
select pg_get_viewdef('v_window');
select pg_get_viewdef('v_window', true);

-- Joins: ON, LEFT, CROSS, USING, NATURAL, nested and aliased joins.
create view v_join as
  select x.a, y.e from ix x join iy y on x.a = y.a left join iy z on z.a = x.a;
select pg_get_viewdef('v_join');
select pg_get_viewdef('v_join', true);
create view v_using as select * from ix join iy using (a);
select pg_get_viewdef('v_using', true);
create view v_natural as select * from ix natural left join iy;
select pg_get_viewdef('v_natural', true);
create view v_cross as select ix.a, iy.e from ix cross join iy;
select pg_get_viewdef('v_cross', true);
create view v_aliased_join as select * from (ix join iy using (a)) j;
select pg_get_viewdef('v_aliased_join', true);
create view v_comma as select ix.a, iy.e from ix, iy where ix.a = iy.a;
select pg_get_viewdef('v_comma', true);

-- Subqueries in FROM and in expressions; a name reused inside a subquery
-- gets a suffix.
create view v_sub as
  select s.a, s.total from (select a, sum(a) as total from ix group by a) s
  where exists (select 1 from iy where iy.a = s.a)
    and s.a in (select a from iy)
    and s.total > (select min(a) from ix);
select pg_get_viewdef('v_sub');
select pg_get_viewdef('v_sub', true);
create view v_rename as select a from ix where a in (select a from ix where b = 'q');
select pg_get_viewdef('v_rename', true);

-- Set operations.
create view v_union as
  select a from ix union select a from iy union all select 3 order by 1;
select pg_get_viewdef('v_union');
create view v_except as select a from ix except select a from iy intersect select 5;
select pg_get_viewdef('v_except', true);

-- WITH, WITH RECURSIVE, VALUES.
create view v_with as with q as (select a, b from ix) select * from q where q.a > 0;
select pg_get_viewdef('v_with');
create view v_recursive as
  with recursive t(n) as (values (1) union all select n + 1 from t where n < 100)
  select sum(n) from t;
\d+ v_recursive
create view v_values as values (1, 'one'), (2, 'two');
select pg_get_viewdef('v_values');

-- LIMIT, OFFSET, FETCH FIRST ... WITH TIES, DISTINCT, DISTINCT ON.
create view v_limit as select a from ix order by a limit 5 offset 10;
select pg_get_viewdef('v_limit', true);
create view v_ties as select a from ix order by a fetch first 5 rows with ties;
select pg_get_viewdef('v_ties', true);
create view v_distinct as select distinct b from ix;
select pg_get_viewdef('v_distinct', true);
create view v_distinct_on as select distinct on (b) b, a from ix order by b, a desc nulls last;
select pg_get_viewdef('v_distinct_on', true);

-- A function in FROM gets its column alias list.
create view v_series as
  select i, sum(i) over (order by i) as s from generate_series(1, 10) i;
select pg_get_viewdef('v_series', true);

-- The wrap-column form joins target entries while they fit.
select pg_get_viewdef('v_star'::regclass, 40);
select pg_get_viewdef('v_comma'::regclass, 80);
-- That form takes an OID only: a name is not one.
select pg_get_viewdef('v_star', 40);

-- A view over a view, and a view in another schema.
create view v_over as select a from v_basic where b <> 'z';
select pg_get_viewdef('v_over', true);
create schema vs;
create table vs.t (k int);
create view vs.v as select k from vs.t;
select pg_get_viewdef('vs.v', true);

-- A row comparison is the pairwise comparisons.
create view v_row as select a from ix where (a, b) = (1, 'x') or (a, n) <> (2, 3);
select pg_get_viewdef('v_row');

-- json operators, ANY/ALL over arrays.
create table jt (id int, data jsonb, tags text[], k text);
create view v_json as
  select data->>'name' as name, data->'a'->'b' as ab, data @> '{"x": 1}' as hasx,
         id = any('{1,2,3}') as a1, k = any(tags) as a2,
         k <> all(array['a','b']::text[]) as a3
  from jt where data->>'k' = 'v';
select pg_get_viewdef('v_json');
select pg_get_viewdef('v_json', true);

-- `*` keeps the columns the table had when the view was made.
create view v_star_later as select * from jt;
alter table jt add column extra int;
select pg_get_viewdef('v_star_later', true);

-- || with a non-text operand; min/max of varchar go through text.
create view v_concat as
  select 'x' || a as s1, a || 'y' as s2, b || a as s3, min(c) as mc, max(c) as xc
  from ix group by a, b;
select pg_get_viewdef('v_concat');

-- Typical reporting views over typed columns (numeric(10,2), varchar(20),
-- timestamptz, int2, float8).
create table orders (id int, customer_id int, amount numeric(10,2), status varchar(20),
                     created_at timestamptz, note text, qty int2, price float8, active boolean);
create table customers (id int, name text, email varchar(100), created date);
create view r_totals as
  select c.name, count(o.id) as n, sum(o.amount) as total
  from customers c left join orders o on o.customer_id = c.id group by c.name;
create view r_recent as
  select * from orders where status = 'open' and created_at > now() - interval '7 days';
create view r_math as
  select id, amount * 1.1 as with_tax, round(amount, 0) as r, qty * price as v,
         greatest(amount, 0) as g, qty::numeric / nullif(price, 0)::numeric as ratio
  from orders where active;
create view r_codes as
  select id, case status when 'open' then 1 when 'closed' then 2 else 0 end as code
  from orders where not active or amount is null;
create view r_filter as
  select distinct customer_id from orders
  where amount between 10 and 100 and status in ('a', 'b');
create view r_last as
  select c.*, (select max(o.created_at) from orders o where o.customer_id = c.id) as last_order
  from customers c;
create view r_monthly as
  select date_trunc('month', created_at) as m, sum(amount) from orders group by 1 order by 1;
select pg_get_viewdef('r_totals', true);
select pg_get_viewdef('r_recent');
select pg_get_viewdef('r_math');
select pg_get_viewdef('r_codes');
select pg_get_viewdef('r_filter');
select pg_get_viewdef('r_filter', true);
select pg_get_viewdef('r_last', true);
select pg_get_viewdef('r_monthly');

-- User functions and aggregates.
create function addone(x int) returns int language sql as 'select x + 1';
create function greet(t text) returns text language sql as $$select 'hi ' || t$$;
create aggregate mysum(int) (sfunc = int4pl, stype = int, initcond = '0');
create view v_user_fns as
  select addone(a) as a1, greet(b) as g, greet('x') as gx, mysum(a) as ms
  from ix group by a, b;
select pg_get_viewdef('v_user_fns', true);

-- Repeated ORDER BY / GROUP BY items print once; USING orderings.
create view v_repeat as select a, b from ix order by b, a desc, b desc, a;
select pg_get_viewdef('v_repeat', true);
create view v_group_repeat as select a, count(*) from ix group by a, a, 1;
select pg_get_viewdef('v_group_repeat', true);
create view v_agg_using as select string_agg(b, ',' order by b using ~<~) from ix;
select pg_get_viewdef('v_agg_using', true);

-- Built-ins of fixed signature: literal arguments take the parameter
-- types, varchar arguments show their cast to text.
create view v_builtins as
  select split_part(b, ',', 2) as sp, regexp_replace(c, 'a', 'b') as rr,
         strpos(b, 'x') as spx, lpad(b, 5, '0') as lp, rpad(c, 3) as rp,
         to_date(b, 'YYYY') as td, to_number(b, '999') as tn, mod(a, 3) as m,
         ceil(n) as cn, floor(f) as ff, sqrt(f) as sq, jsonb_agg(a) as ja
  from ix group by a, b, c, n, f;
select pg_get_viewdef('v_builtins', true);

-- AT TIME ZONE.
create table tzt (f1 timetz, ts timestamptz, t2 timestamp);
create view v_tz as
  select f1 at time zone '00:00'::interval as x2, ts at time zone 'UTC' as x3,
         t2 at time zone 'Europe/Paris' as x4,
         (ts + interval '1 hour') at time zone 'UTC' as x5
  from tzt;
select pg_get_viewdef('v_tz');
select pg_get_viewdef('v_tz', true);
