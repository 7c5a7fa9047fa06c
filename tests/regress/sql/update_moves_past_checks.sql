-- a row an UPDATE moves out of its partition is not checked by that
-- partition's CHECK constraints (the partition constraint comes first)
create table mvt (a int, b text) partition by list (a);
create table mv1 (a int check (a in (1)), b text);
create table mv2 (a int check (a in (2)), b text check (b <> 'no'));
alter table mvt attach partition mv1 for values in (1);
alter table mvt attach partition mv2 for values in (2);
insert into mvt values (1, 'foo'), (2, 'bar');
update mvt set a = 3 - a returning *;
update mvt set a = 3 - a where a = 1 returning *;
update mvt set a = 3 - a, b = 'no' where a = 1;
update mv1 set a = 2;
update mvt set b = 'no' where a = 2;
select tableoid::regclass, * from mvt order by a;
drop table mvt;
