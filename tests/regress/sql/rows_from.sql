-- ROWS FROM, column definition lists, functions returning record and
-- composite types in FROM, and column alias counts.
select * from rows from(generate_series(1,2), generate_series(1,3));
select * from rows from(generate_series(1,2), generate_series(1,3)) as z(a,b);
select * from rows from(generate_series(1,2), generate_series(1,3)) with ordinality as z(a,b,c);
select * from rows from(unnest(array[10,20],array['foo','bar'],array[1.0])) with ordinality as z(a,b,c,ord);
select * from rows from(unnest(array[10,20],array['foo','bar']), generate_series(101,102)) with ordinality as z(a,b,c,ord);
select * from (values (1),(2),(3)) v(r), rows from(generate_series(1,r), unnest(array['a','b'])) as z(g, u);
select * from rows from(jsonb_to_record('{"a":1,"b":"x"}') as (a int, b text), generate_series(1,2)) z;
select count(*) from rows from(generate_series(1,0), generate_series(1,0));
-- too many column aliases
select * from rows from(generate_series(1,2), generate_series(1,3)) as z(a,b,c);
select * from rows from(generate_series(1,2), generate_series(1,3)) with ordinality as z(a,b,c,d);
select * from generate_series(1,2) as z(a,b);
select * from (select 1, 2) as s(a,b,c);
create table alias_t (a int, b text);
select * from alias_t as x(a,b,c);
-- column definition lists
select * from rows from(generate_series(1,2), generate_series(1,3)) as (a int);
select * from rows from(generate_series(1,2)) as (a int);
select * from generate_series(1,2) as (a int);
select * from jsonb_each('{"a":1}') as x(a int);
create function fo(out x int, out y int) as 'select 1, 2' language sql;
select * from fo() as (a int, b int);
create type pair as (i integer, s bigint);
create function fpair() returns pair as 'select 1, 2::bigint' language sql;
select * from fpair() as (i int, s bigint);
-- functions returning record
create table rec_src (a int, b int, c text);
insert into rec_src values (1, 1, 'Joe'), (2, 2, 'Ann');
create function rec_one(int) returns record as 'select * from rec_src where a = $1' language sql;
create function rec_set() returns setof record as 'select * from rec_src order by a' language sql;
select * from rec_one(1) as t(a int, b int, c text);
select * from rec_one(3) as t(a int, b int, c text);
select * from rec_set() as t(a int, b int, c text);
select * from rec_set() as t(a bigint, b int, c text);
select * from rec_set() as t(a int, b int, c int);
select * from rec_set() as t(a int, b int);
select * from rec_set();
select * from rows from(rec_set() as (a int, b int, c text), generate_series(1,3)) with ordinality;
create function rec_pl() returns setof record language plpgsql as $$
declare r record;
begin
  select 1 as x, 'a'::text as y into r;
  return next r;
end $$;
select * from rec_pl() as (a int, b text);
-- set-returning functions of a composite type
create sequence pair_seq;
create function pair_sql(int, int) returns setof pair as 'select i, nextval(''pair_seq'') from generate_series($1, $2) i' language sql;
create function pair_pl(int, int) returns setof pair language plpgsql as 'begin for i in $1..$2 loop return next (i, (i * 10)::bigint); end loop; end';
select * from pair_sql(1, 2);
select * from pair_pl(1, 3) with ordinality as f(i, s, o);
-- a function in FROM runs once, not once per row of a nested loop
select setval('pair_seq', 1, false);
select * from (values (1), (2), (3)) v(r) left join pair_sql(11, 12) with ordinality as f(i, s, o) on (r + i) < 100;
create function one_pair(int) returns pair language plpgsql as 'declare r pair; begin r := row($1, 6); return r; end';
select * from one_pair(2);
select (one_pair(3)).s;
-- an alias names the item, not the composite's columns
select f.i, f.s > 0 as positive from pair_sql(1, 2) f;
-- no left row: the function does not run
select nextval('pair_seq');
select * from (select 1 where false) v(r) left join pair_sql(11, 12) f on true;
select nextval('pair_seq');
