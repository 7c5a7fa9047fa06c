\set VERBOSITY verbose
create table pt (a int, b text) partition by range (a);
create table pt1 partition of pt for values from (0) to (10);
create table pt2 partition of pt for values from (10) to (20) partition by range (a);
create table pt21 partition of pt2 for values from (10) to (15);
create function trf() returns trigger language plpgsql as $$ begin raise notice '% % % % on %', tg_name, tg_when, tg_level, tg_op, tg_table_name; if tg_op = 'DELETE' then return old; end if; return new; end $$;
create trigger tb before insert or update or delete on pt for each row execute function trf();
create trigger ta after insert or update or delete on pt for each row execute function trf();
create trigger ts after insert on pt for each statement execute function trf();
select tgrelid::regclass, tgname, tgparentid <> 0 as child, tgisinternal from pg_trigger where tgrelid::regclass::text like 'pt%' order by 1,2;
create table pt3 partition of pt for values from (20) to (30);
create table pt4 (a int, b text);
alter table pt attach partition pt4 for values from (30) to (40);
select tgrelid::regclass, tgname, tgparentid <> 0 as child from pg_trigger where tgrelid::regclass::text like 'pt%' order by 1,2;
insert into pt values (1,'x'), (12, 'y'), (25, 'z');
update pt set a = a + 1;
update pt set a = 22 where a = 2;
delete from pt where a = 13;
drop trigger tb on pt1;
alter trigger tb on pt1 rename to tbx;
alter trigger tb on pt rename to tbb;
select tgrelid::regclass, tgname from pg_trigger where tgrelid::regclass::text like 'pt%' order by 1,2;
alter table pt detach partition pt4;
select tgrelid::regclass, tgname from pg_trigger where tgrelid::regclass::text like 'pt4%' order by 1,2;
create trigger tb before insert on pt1 for each row execute function trf();
create trigger tc before insert on pt1 for each row execute function trf();
create trigger tc before insert on pt for each row execute function trf();
create or replace trigger tc before insert on pt for each row execute function trf();
\d pt1
create function mover() returns trigger language plpgsql as $$ begin new.a := new.a + 10; return new; end $$;
create trigger zmove before insert on pt for each row execute function mover();
insert into pt values (3, 'm');
drop trigger tbb on pt;
select tgrelid::regclass, tgname from pg_trigger where tgrelid::regclass::text like 'pt%' order by 1,2;
drop table pt cascade;
create table pt (a int, b text) partition by range (a);
create table pt2 partition of pt for values from (10) to (20) partition by range (a);
create table pt21 partition of pt2 for values from (10) to (15);
create trigger tb before insert on pt for each row execute function trf();
drop trigger tb on pt21;
drop trigger tb on pt2;
create table px (a int, b text);
create trigger tb after insert on px for each row execute function trf();
alter table pt attach partition px for values from (30) to (40);
create or replace trigger tb before insert on pt21 for each row execute function trf();
create trigger tz after insert on pt21 for each row execute function trf();
alter trigger tb on pt rename to tz;
begin;
create trigger tq before insert on pt for each row execute function trf();
create table pt3 (a int, b text) partition by range (a);
create table pt31 partition of pt3 for values from (20) to (25);
alter table pt attach partition pt3 for values from (20) to (30);
select tgrelid::regclass, tgname, tgparentid <> 0 from pg_trigger order by 1,2;
alter table pt detach partition pt3;
select tgrelid::regclass, tgname, tgparentid <> 0 from pg_trigger order by 1,2;
rollback;
create trigger ts before insert on pt for each statement execute function trf();
create trigger tw before update on pt for each row when (new.a > 5) execute function trf();
create trigger tu before update of b on pt for each row execute function trf();
\d pt
\d pt21
drop table pt, px cascade;
create table pt (a int) partition by list (a);
create table pt1 partition of pt for values in (1);
create trigger tb before insert on pt for each row execute function trf();
create trigger tc before insert on pt1 for each row execute function trf();
alter table pt disable trigger tb;
select tgrelid::regclass, tgname, tgenabled from pg_trigger order by 1,2;
insert into pt values (1);
alter table pt enable replica trigger tb;
alter table only pt enable always trigger tb;
select tgrelid::regclass, tgname, tgenabled from pg_trigger order by 1,2;
alter table pt1 disable trigger user;
select tgrelid::regclass, tgname, tgenabled from pg_trigger order by 1,2;
alter table pt1 enable trigger all;
alter table pt1 disable trigger nope;
alter table pt enable always trigger tb;
set session_replication_role = replica;
insert into pt values (1);
alter table pt1 enable replica trigger tc;
insert into pt values (1);
reset session_replication_role;
insert into pt values (1);
\d pt1
drop table pt cascade;
-- leaves whose columns are laid out differently; BEFORE ROW triggers
-- change the row; RETURNING shows the row as written
create table lp (a int, b text, c int) partition by list (a);
create table lp1 (c int, b text, a int);
alter table lp attach partition lp1 for values in (1);
create table lp2 partition of lp for values in (2);
create function upper_b() returns trigger language plpgsql as $$
begin new.b := upper(new.b); new.c := coalesce(new.c, 0) + 100; return new; end $$;
create function skip_x() returns trigger language plpgsql as $$
begin if new.b = 'X' then return null; end if; return new; end $$;
create function after_note() returns trigger language plpgsql as $$
begin raise notice 'after % on %: %', tg_op, tg_table_name, new; return null; end $$;
create trigger t1 before insert or update on lp for each row execute function upper_b();
create trigger t2 before insert on lp for each row execute function skip_x();
create trigger t3 after insert or update on lp for each row execute function after_note();
insert into lp values (1, 'one', 1), (2, 'two', null), (1, 'x', 5), (2, 'four', 4) returning *;
select tableoid::regclass, * from lp order by a, b;
copy lp from stdin;
1	five	5
2	x	6
2	seven	7
\.
select tableoid::regclass, * from lp order by a, b;
update lp set a = 3 - a where b = 'FIVE' returning *;
update lp set b = b || '!' where a = 2 returning *;
-- a trigger cloned from the parent may not move the row
create function bump_a() returns trigger language plpgsql as $$
begin new.a := new.a + 1; return new; end $$;
create trigger t0 before insert on lp for each row execute function bump_a();
insert into lp values (1, 'moves', 0);
insert into lp1 values (0, 'direct', 1);
drop trigger t0 on lp;
-- a leaf's own trigger moving the row fails the partition constraint
create trigger t00 before insert on lp2 for each row execute function bump_a();
insert into lp values (2, 'own', 0);
-- DROP TABLE of a partition and of the parent take their triggers along
drop table lp2;
select tgrelid::regclass, tgname, tgparentid <> 0 as clone from pg_trigger
  where tgrelid in ('lp'::regclass, 'lp1'::regclass) order by 1, 2;
drop table lp;
select count(*) from pg_trigger;
