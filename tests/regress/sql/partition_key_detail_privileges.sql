-- A partition routing error shows the key's values only to a user with
-- SELECT on the table or on every key column (not for an expression key).
create table kd_t (a int, b int) partition by list ((a+0));
create table kd_t1 partition of kd_t for values in (1) partition by range (b);
create role kd_user;
grant select (a) on kd_t1 to kd_user;
grant insert on kd_t to kd_user;
set role kd_user;
insert into kd_t values (1, 1);
reset role;
grant select (b) on kd_t1 to kd_user;
set role kd_user;
insert into kd_t values (1, 1);
insert into kd_t values (2, 1);
reset role;
grant select on kd_t to kd_user;
set role kd_user;
insert into kd_t values (2, 1);
reset role;
revoke all on kd_t, kd_t1 from kd_user;
drop table kd_t;
drop role kd_user;
