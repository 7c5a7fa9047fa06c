-- Indexes on columns added by ALTER TABLE ADD COLUMN: rows stored before
-- the column existed hold its NULL or DEFAULT in the index too.
create table ac (a int primary key);
insert into ac select g from generate_series(1, 20) g;
alter table ac add column b int;
alter table ac add column c int default 7;
create index ac_b on ac (b);
create index ac_c on ac (c);
create index ac_bc_expr on ac ((c * 10 + coalesce(b, 0)));
create index ac_part on ac (a) where c = 7;
insert into ac values (21, 1, 8), (22, null, 7);
set enable_seqscan = off;
select count(*) from ac where c = 7;
select a from ac where c = 8;
select count(*) from ac where b is null;
select a from ac where b = 1;
select count(*) from ac where c * 10 + coalesce(b, 0) = 70;
select a from ac where c * 10 + coalesce(b, 0) = 81;
select count(*) from ac where a > 0 and c = 7;
reset enable_seqscan;
-- unique indexes see the old rows' values
create unique index ac_c_key on ac (c);
create unique index ac_b_key on ac (b);
create unique index ac_b_nnd on ac (b) nulls not distinct;
alter table ac add column d int default 0;
alter table ac add constraint ac_d_key unique (d);
alter table ac add column e int;
alter table ac add constraint ac_e_key unique (e);
insert into ac values (23, 2, 9, 1, 5);
insert into ac values (24, 3, 9, 2, 5);
alter table ac add column f serial;
alter table ac add constraint ac_f_key unique (f);
-- old rows change and go
update ac set c = 9 where a <= 3;
select a from ac where c = 9 order by a;
delete from ac where a between 4 and 6;
vacuum ac;
select count(*) from ac where c = 7;
alter table ac add column g text default 'x' primary key;
alter table ac drop constraint ac_pkey;
alter table ac add column h text default 'x' primary key;
select count(*), min(b), max(c) from ac where c >= 7;
drop table ac;
-- columns whose value differs row by row rewrite the table
create table ad (a int);
insert into ad select g from generate_series(1, 5) g;
alter table ad add column s serial;
alter table ad add column i int generated always as identity;
alter table ad add column r float8 default random() not null;
alter table ad add column u int unique default 3;
alter table ad add column u int unique;
alter table ad add column p int primary key;
alter table ad add column p bigserial primary key;
select a, s, i, r between 0 and 1 as r_ok from ad order by a;
\d ad
insert into ad (a) values (6) returning a, s, i, p;
create table ae (k int primary key);
insert into ae values (1), (2);
alter table ad add column k int default 1 references ae;
alter table ad add column k2 int default 3 references ae;
select count(*) from ad where k = 1;
delete from ae where k = 1;
drop table ad, ae;
