-- UPDATE and DELETE through a partitioned table check the table named
-- only, not its partitions (PostgreSQL's child range table entries).
create table rp (a text, c int) partition by list (a);
create table rp_a partition of rp for values in ('a');
create table rp_b partition of rp for values in ('b');
insert into rp values ('a', 1), ('b', 2);
create user regress_s37_user;
grant all on rp to regress_s37_user;
set session authorization regress_s37_user;
update rp set c = c + 1 where a = 'a';
update rp set a = 'b' where a = 'a';
select * from rp order by 1, 2;
delete from rp where c = 2;
select * from rp_a;
update rp_a set c = 0;
reset session authorization;
drop table rp;
drop user regress_s37_user;
