-- REINDEX: INDEX, TABLE, SCHEMA, DATABASE, SYSTEM, CONCURRENTLY and the
-- options; the rebuilt indexes still answer index scans after updates,
-- deletes and VACUUM; PostgreSQL's errors and notices.
create table rt (a int primary key, b text);
create index rt_b on rt (b);
insert into rt select g, 'x' || g from generate_series(1, 1000) g;
update rt set b = 'y' || a where a % 2 = 0;
delete from rt where a > 900;
vacuum rt;
reindex table rt;
reindex index rt_b;
create table rv (a int primary key, b int);
create index rv_b on rv (b);
\set VERBOSITY terse
reindex (verbose) table rv;
\set VERBOSITY default
drop table rv;
reindex table concurrently rt;
begin; reindex table concurrently rt; rollback;
begin; reindex table rt; reindex index rt_pkey; commit;
begin; reindex schema public; rollback;
reindex schema public;
reindex schema nosuch;
reindex database postgres;
reindex database other;
reindex system postgres;
reindex system concurrently postgres;
reindex table concurrently pg_class;
reindex index rt;
reindex table rt_b;
reindex table nosuch;
create table noidx (a int);
reindex table noidx;
reindex (concurrently) table noidx;
reindex (tablespace pg_default) table rt;
reindex (tablespace nosuch) table rt;
set enable_seqscan = off;
select count(*) from rt where b like 'y%';
select * from rt where a = 10;
select * from rt where b = 'x11';
create table rp (a int, b int) partition by range (a);
create table rp1 partition of rp for values from (1) to (10);
create index rp_b on rp (b);
insert into rp values (1, 1), (2, 2);
reindex table rp;
reindex index rp_b;
begin; reindex table rp; rollback;
select * from rp where b = 2;
create role nobody; set role nobody;
reindex table rt;
reset role;
drop table rt, noidx, rp; drop role nobody;
