-- CREATE TABLE ... AS EXECUTE: a table from a prepared statement's query
-- and its arguments.
create table src (id int, name text, price numeric(8,2), at date);
insert into src values (1, 'one', 1.50, '2024-01-02'), (2, 'two''s', 2.25, null),
  (3, null, 3.00, '2024-03-04');
prepare q(int, text) as select id, name, price, at from src where id >= $1 or name = $2 order by id;
create table t1 as execute q(2, 'one');
select * from t1;
\d t1
-- WITH NO DATA: the columns only
create table t2 as execute q(1, 'x') with no data;
select * from t2;
\d t2
-- column names, a temporary table
create temp table t3 (a, b) as execute q(3, null);
select * from t3;
select attname, format_type(atttypid, atttypmod) from pg_attribute where attrelid = 't3'::regclass and attnum > 0 order by attnum;
-- parameters typed by the query, arguments as expressions
prepare typed as select $1 + 1 as n, $2::varchar(5) as v, $3 as x, array[$1] as arr;
create table t4 as execute typed(40 + 1, 'abc', now()::date - now()::date);
select * from t4;
\d t4
-- a bare parameter's column is "?column?", also from a set operation
prepare bare(int, text) as select $1, $2 as named, -$1 as m union all select 2, 'b', 3;
create table t4b as execute bare(1, 'a');
select * from t4b order by 1;
\d t4b
drop table t4b;
prepare noparams as select 1 as a, 'x' as b, null::int as c;
create table t5 as execute noparams;
select * from t5;
\d t5
-- IF NOT EXISTS
create table t5 as execute noparams;
create table if not exists t5 as execute noparams;
create table t5 as execute noparams with no data;
create table if not exists t5 as execute noparams with no data;
create table if not exists t5 as execute nosuch(1);
create table if not exists t6 as execute noparams;
select * from t6;
-- errors
create table t7 as execute nosuch;
create table t7 as execute q(1);
create table t7 as execute q(1, 'a', 'b');
create table t7 as execute q('x', 'a');
prepare ins(int) as insert into src values ($1) returning id;
create table t7 as execute ins(9);
prepare upd as update src set id = id;
create table t7 as execute upd;
create table t7 (a, b, c, d, e) as execute q(1, 'a');
select count(*) from src;
-- in a transaction, rolled back
begin;
create table t8 as execute q(1, 'a');
select count(*) from t8;
rollback;
select count(*) from pg_class where relname = 't8';
-- the prepared statement counts the executions
select name, generic_plans + custom_plans > 0 as used from pg_prepared_statements where name = 'noparams';
deallocate all;
drop table src, t1, t2, t4, t5, t6;
