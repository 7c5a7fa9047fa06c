-- Functions and expressions in FROM whose value is a record: a named
-- composite expands into its fields, an anonymous record takes a column
-- definition list that must match it, a scalar takes none.
create type rf_pair as (a integer, b text);

-- unnest of an array of composites: one column per field, a NULL
-- element a row of NULLs (its whole row a record of NULLs)
select *, row_to_json(u) from unnest(array[(1,'foo')::rf_pair, null::rf_pair]) u;
select *, row_to_json(u) from unnest(array[null::rf_pair, null::rf_pair]) u;
select *, row_to_json(u) from unnest(array[]::rf_pair[]) u;
select u.a, u.b, u from unnest(array[(2,'bar')::rf_pair]) with ordinality u;
select * from unnest(array[(1,'foo')::rf_pair]) as u(x);
select * from unnest(array[(1,'foo')::rf_pair]) as u(x int, y text);  -- fail, redundant
create table rf_src (id int, p rf_pair);
insert into rf_src values (1, (10,'ten')), (2, null), (3, (30,'thirty'));
select s.id, u.* from rf_src s, unnest(array[s.p, (s.id, 'x')::rf_pair]) u order by 1, 2;

-- expressions in function syntax are FROM items too
select * from coalesce((1,'foo')::rf_pair) u;
select *, row_to_json(u) from coalesce(null::rf_pair) u;
select * from coalesce((1,'foo')::rf_pair) u(x);
select * from coalesce((1,'foo')::rf_pair) u(x, y, z);  -- fail
select * from coalesce((1,'foo')::rf_pair) as u(x int, y text);  -- fail, redundant
select * from coalesce(1);
select * from coalesce(1) x;
select * from coalesce(1) with ordinality;
select * from cast('12' as int) x(y);
select * from greatest(3, 7), nullif(1, 2);
select * from coalesce(row(1, 2)) u;  -- fail, needs a list
select * from coalesce(row(1, 2)) as u(x int, y int);
create table int8_tbl_rf (q1 int8, q2 int8);
insert into int8_tbl_rf values (123, 456), (4567890123456789, -4567890123456789);
select * from int8_tbl_rf, coalesce(row(1)) as (a int, b int);  -- fail
select * from int8_tbl_rf i, coalesce(row(i.q1, i.q2)) as (a int8, b int8) order by 1;
with a(b) as (values (row(1,2,3)))
select * from a, coalesce(b) as c(d int, e int);  -- fail
with a(b) as (values (row(1,2,3)))
select * from a, coalesce(b) as c(d int, e int, f int, g int);  -- fail
with a(b) as (values (row(1,2,3)))
select * from a, coalesce(b) as c(d int, e int, f float);  -- fail
with a(b) as (values (row(1,2,3)))
select * from a, coalesce(b) as c(d int, e int, f int);

-- a scalar takes no column definition list
select * from sin(3) as t(f1 int8, f2 int8);  -- fail
select * from abs(-1) as t(a int);  -- fail
select * from coalesce(1) as t(f1 int8);  -- fail
select * from generate_series(1, 2) as t(a int);  -- fail

-- a SQL function's composite result takes its type's modifiers
create type rf_num as (f1 numeric(35,6), f2 numeric(35,2));
create function rf_one() returns rf_num as $$
  select 7.136178319899999964, 7.136178319899999964;
$$ language sql volatile;
select rf_one();
select * from rf_one();
create function rf_set() returns setof rf_num as $$
  select 7.136178319899999964, 7.136178319899999964;
$$ language sql immutable;
select * from rf_set();
create or replace function rf_set() returns setof rf_num as $$
  select 1, 2 union select 3, 4 order by 1;
$$ language sql immutable;
select * from rf_set();
select * from rf_set() as t(f1 int8, f2 int8);  -- fail, composite result
-- OUT parameters have no modifiers
create function rf_out(out f1 numeric(10,3), out f2 varchar(3)) as $$
  select 1.23456, 'abcdef'
$$ language sql;
select * from rf_out();

-- a function with OUT parameters returning one composite value: it must
-- match the declared row
create function rf_bar(out integer, out numeric) as
$$ select (1, 2.1) $$ language sql;
select * from rf_bar();
create or replace function rf_bar(out integer, out numeric) as
$$ select (1, 2) $$ language sql;
select * from rf_bar();  -- fail
create or replace function rf_bar(out integer, out numeric) as
$$ select (1, 2.1, 3) $$ language sql;
select * from rf_bar();  -- fail

-- pg_get_keywords() has OUT parameters: a column list is redundant
select * from pg_get_keywords() as t(f1 int8, f2 int8);  -- fail
select count(*), count(*) filter (where barelabel) from pg_get_keywords();
select catcode, catdesc, count(*) from pg_get_keywords() group by 1, 2 order by 1;
select * from pg_get_keywords() where word in ('select', 'between', 'abort', 'authorization', 'as') order by 1;
select * from pg_get_keywords(1);  -- fail

-- one record column from a function returning a composite type: its
-- fields are coerced to the type's; with OUT parameters they must match
create function rf_rec_set() returns setof rf_num as 'select row(1, 2)' language sql;
select * from rf_rec_set();
create function rf_rec_one() returns rf_num as 'select row(1, 2)' language sql;
select * from rf_rec_one();
create function rf_rec_out(out a int8, out b int8) as 'select row(1, 2)' language sql;
select * from rf_rec_out();  -- fail
create function rf_rec_out2(out a int4, out b text) as 'select row(1, ''x''::varchar)' language sql;
select * from rf_rec_out2();
