-- A relation created in pg_temp without TEMP is temporary; an UNLOGGED
-- one there is an error (42P16).
\set VERBOSITY verbose
create table pg_temp.implicitly_temp (a int primary key);
create temp table pg_temp.doubly_temp (a int primary key);
create unlogged table pg_temp.unlogged3 (a int primary key);
create unlogged table pg_temp.unlogged4 as select 1 as a;
\set VERBOSITY default
select relname, relpersistence from pg_class
  where relname in ('implicitly_temp', 'implicitly_temp_pkey', 'doubly_temp', 'unlogged3')
  order by relname;
select nspname like 'pg_temp%' as in_temp from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where relname = 'implicitly_temp';
insert into implicitly_temp values (1), (2);
insert into pg_temp.implicitly_temp values (2);
select * from implicitly_temp;
-- CREATE TABLE AS, views, sequences
create table pg_temp.ctas_temp as select 1 as a;
create table pg_temp.ctas_temp2 (x) as select 'x'::text with no data;
create view pg_temp.v_temp as select 1 as one;
create sequence pg_temp.s_temp;
select relname, relkind, relpersistence from pg_class
  where relname in ('ctas_temp', 'ctas_temp2', 'v_temp', 's_temp') order by relname;
select nextval('s_temp'), * from v_temp, ctas_temp;
-- a temporary table needs a temporary schema
create temp table public.not_temp (a int);
-- ON COMMIT needs a temporary table, which this is
begin;
create table pg_temp.oc (a int) on commit drop;
insert into oc values (1);
commit;
select count(*) from pg_class where relname = 'oc';
-- partitions of a temporary partitioned table
create table pg_temp.tp (a int) partition by list (a);
create table pg_temp.tp1 partition of tp for values in (1);
insert into tp values (1);
select tableoid::regclass, * from tp;
-- a permanent table may not be a partition of it, nor inherit from it
create table tp_perm partition of tp for values in (2);
create table inh_perm () inherits (implicitly_temp);
-- nor a temporary table a partition of a permanent one
create table perm_parted (a int) partition by list (a);
create table pg_temp.temp_part partition of perm_parted for values in (1);
drop table perm_parted;
