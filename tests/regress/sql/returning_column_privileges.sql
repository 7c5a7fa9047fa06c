-- INSERT ... RETURNING needs SELECT only on the columns it reads.
create table rp_t (a int, b text, c int);
create role rp_role;
grant insert on rp_t to rp_role;
grant select (a) on rp_t to rp_role;
set role rp_role;
insert into rp_t values (1, 'x', 1) returning 1;
insert into rp_t values (2, 'y', 2) returning a;
insert into rp_t values (3, 'z', 3) returning b;
insert into rp_t values (4, 'w', 4) returning *;
insert into rp_t values (5, 'v', 5) returning rp_t;
insert into rp_t values (6, 'u', 6);
reset role;
select count(*) from rp_t;
drop table rp_t;
drop role rp_role;
