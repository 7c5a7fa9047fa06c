-- DEFERRABLE foreign keys: INITIALLY DEFERRED checked at COMMIT, SET
-- CONSTRAINTS, savepoints, NO ACTION deferred on the parent side.
\set VERBOSITY verbose
create table dp (id int primary key);
create table dc (id int primary key, pid int references dp deferrable initially deferred);
create table di (id int primary key, pid int references dp deferrable);
begin;
insert into dc values (1, 10);
insert into dp values (10);
commit;
select * from dc;
begin;
insert into dc values (2, 20);
commit;
select count(*) from dc;
insert into dc values (3, 30);
begin;
insert into di values (1, 40);
rollback;
begin;
set constraints all deferred;
insert into di values (1, 40);
insert into dp values (40);
commit;
begin;
insert into dc values (4, 50);
set constraints all immediate;
rollback;
begin;
delete from dp where id = 10;
insert into dp values (10);
commit;
begin;
delete from dp where id = 10;
commit;
begin;
savepoint s;
insert into dc values (5, 60);
rollback to s;
commit;
set constraints all deferred;
select conname, condeferrable, condeferred, pg_get_constraintdef(oid) from pg_constraint where contype = 'f' order by 1;
create table bad (x int references dp initially deferred not deferrable);
-- ALTER COLUMN TYPE between string types (what Django's migrations send)
create table names (n varchar(10), t text);
insert into names values ('abcdefghij', 'xyz');
alter table names alter column n type varchar(20);
alter table names alter column n type varchar(5);
alter table names alter column t type varchar(3);
alter table names alter column n type text;
alter table names alter column n type int;
\d names
