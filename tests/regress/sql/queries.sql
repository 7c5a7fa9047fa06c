-- Query forms tools and ORMs send: WITH RECURSIVE, ORDER BY and FILTER
-- inside aggregates, array_agg, set-returning functions in the select
-- list, json builders, pg_typeof.
\set VERBOSITY verbose
with recursive t(n) as (select 1 union all select n+1 from t where n < 5) select * from t;
with recursive t(n) as (select 1 union select n % 3 + 1 from t) select * from t order by n;
with recursive fib(a, b) as (select 0::bigint, 1::bigint union all select b, a + b from fib where b < 100) select a from fib;
create table tree (id int primary key, parent int, name text);
insert into tree values (1, null, 'root'), (2, 1, 'a'), (3, 1, 'b'), (4, 2, 'a1'), (5, 4, 'a1x');
with recursive sub(id, name, depth) as (
  select id, name, 0 from tree where id = 2
  union all
  select t.id, t.name, s.depth + 1 from tree t join sub s on t.parent = s.id
) select * from sub order by depth, id;
with recursive x as (select 1 as a) select * from x;
-- FOR UPDATE in a recursive query is refused (it never ends otherwise).
with recursive x(n) as (select 1 union all select n+1 from x for update) select * from x;
with recursive x(n) as (select 1 union all (select n+1 from x for share)) select * from x;
with recursive t(n) as (select 1 union all select n+1 from t, t t2 where n < 5) select * from t;
with recursive t(n) as (select 1::int union all select n::bigint + 1 from t where n < 5) select * from t;
select array_agg(x order by x desc), array_agg(x) filter (where x > 1), string_agg(x::text, ',' order by x),
       count(*) filter (where x is null), array_agg(x) from (values (1),(3),(null),(2)) v(x);
select array_agg(x) from (values (1)) v(x) where false;
select parent, array_agg(name order by name), count(*) filter (where name like 'a%') from tree group by parent order by parent;
select x, unnest(a), generate_subscripts(a, 1) from (values (1, array[10,20,30]), (2, array[]::int[]), (3, array[5])) v(x, a);
select generate_series(1, x), x from (values (2),(3)) v(x);
select json_build_object('a', 1, 'b', 'x', 'c', null, 'd', true, 'e', array[1,2], 'f', '{"z": 1}'::jsonb, 'g', 1.5::float8);
select jsonb_build_object('b', 1, 'a', 'x'), json_build_array(1, 'a', null), jsonb_build_array(), json_build_object();
select to_json('2024-01-02 03:04:05+00'::timestamptz), to_json('2024-01-02 03:04:05'::timestamp), to_json('x"y'::text), to_jsonb(array['a','b']);
select '{"a" :  1}'::json, '{"a" :  1}'::json::jsonb;
select json_build_object('a');
select pg_typeof(json_build_object('a', 1)), pg_typeof(1), pg_typeof('x'::text), pg_typeof(array[1.5]);
select 'tree'::regclass, 'tree'::regclass::oid = (select oid from pg_class where relname = 'tree'), 'integer'::regtype, 'public'::regnamespace;
select to_regclass('tree'), to_regclass('nope'), to_regtype('text[]');
create table arrs (id int, a int[]);
insert into arrs values (1, '{10,20}'), (2, '{}'), (3, '{30}');
select id, x from arrs, unnest(a) x order by id, x;
select id, x, n from arrs, unnest(a) with ordinality u(x, n) where x > 10 order by 1, 2;
select i.indexrelid::regclass::text, k.key, k.option, k.arridx from pg_index i, unnest(i.indkey, i.indoption) with ordinality k(key, option, arridx) where i.indrelid = 'arrs'::regclass;
select id, g from arrs, generate_series(1, id) g order by 1, 2;
select 5 & 1, 6 | 1, 6 # 3, ~5, 1 << 4, 256 >> 2;
-- A CTE scan reads the CTE lazily: LIMIT ends an endless WITH RECURSIVE.
WITH RECURSIVE t(n) AS (VALUES (1) UNION ALL SELECT n+1 FROM t) SELECT * FROM t LIMIT 10;
WITH RECURSIVE t(n) AS (SELECT 1 UNION SELECT n+1 FROM t) SELECT * FROM t LIMIT 10;
WITH t AS (SELECT generate_series(1,5) AS x) SELECT a.x, b.x FROM t a JOIN t b ON a.x = b.x ORDER BY 1 LIMIT 3;
WITH t AS (SELECT generate_series(1,3) AS x) SELECT (SELECT count(*) FROM t), x FROM t;
-- A correlated subquery's equality on an indexed column looks the key up
-- per outer row (a scan per row before).
CREATE TABLE corr_t (k int PRIMARY KEY, v int);
INSERT INTO corr_t SELECT g, g * 10 FROM generate_series(1, 2000) g;
SELECT count((SELECT i.v FROM corr_t i WHERE i.k = o.k)),
       sum((SELECT i.v FROM corr_t i WHERE i.k = o.k + 1)),
       max((SELECT count(*) FROM corr_t i WHERE i.k BETWEEN o.k - 1 AND o.k + 1))
  FROM corr_t o;
SELECT o.k, (SELECT i.v FROM corr_t i WHERE i.k IN (o.k, o.k * 2) ORDER BY i.k DESC LIMIT 1)
  FROM corr_t o WHERE o.k <= 3 ORDER BY 1;
DROP TABLE corr_t;
