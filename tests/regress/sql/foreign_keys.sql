-- FOREIGN KEY constraints: actions, self-reference, DDL around them, the
-- catalog and psql output (crates/exec/src/foreign_keys.rs).
\set VERBOSITY verbose
create table p (id int primary key, code text unique);
create table c (id int primary key, pid int references p, note text);
create table c2 (id int primary key, pcode text, foreign key (pcode) references p (code) on delete cascade on update cascade);
create table tree (id int primary key, parent int references tree on delete cascade);
insert into p values (1, 'a'), (2, 'b');
insert into c values (1, 1, 'x'), (2, null, 'y');
insert into c values (3, 5, 'z');
insert into c2 values (1, 'a'), (2, 'b');
delete from p where id = 2;
select * from c2 order by id;
update p set code = 'aa' where id = 1;
select * from c2 order by id;
delete from p where id = 1;
update c set pid = 1 where id = 2;
update c set pid = 7 where id = 2;
insert into tree values (1, null), (2, 1), (3, 2), (4, 3);
insert into tree values (11, 12), (12, null);
delete from tree where id = 2;
select * from tree order by id;
delete from tree;
drop table p;
truncate p;
\d c
\d p
select conname, contype, confupdtype, confdeltype, pg_get_constraintdef(oid) from pg_constraint where contype = 'f' order by conname;
alter table c drop constraint c_pid_fkey;
insert into c values (9, 99, 'orphan');
alter table c add constraint c_pid_fkey foreign key (pid) references p;
delete from c where id = 9;
alter table c add constraint c_pid_fkey foreign key (pid) references p;
create table bad (x text references p);
create table bad2 (x int references p (code));
drop table p cascade;
