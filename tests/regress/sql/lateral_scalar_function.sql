-- A scalar (not set-returning) function in FROM whose arguments read an
-- earlier FROM item: one row per row of that item.
select * from (values (1), (-2)) c(a), lateral abs(c.a) x;
select c.a, x from (values (1), (-2), (null)) c(a), lateral abs(c.a) as x(x);
select * from (values ('a'), ('Bc')) c(a), lateral upper(c.a) order by 1;
select * from (values ('a'), ('Bc')) c(a) cross join lateral length(c.a) n order by 1;
select * from abs(-1) x;
create table lsf (a int, b int);
insert into lsf values (1, 2), (3, 4);
create table lsf2 (a int);
insert into lsf2 values (1), (3);
select lsf.a, s from lsf join lsf2 on lsf.a = lsf2.a, lateral abs(lsf.a - lsf.b * 2) s order by 1;
select relname, d from pg_class c, lateral pg_get_indexdef(c.oid) d
  where relname like 'lsf%' order by 1;
create index lsf_b on lsf (b);
select relname, d from pg_class c, lateral pg_get_indexdef(c.oid) d
  where relname like 'lsf%' order by 1;
drop table lsf, lsf2;
