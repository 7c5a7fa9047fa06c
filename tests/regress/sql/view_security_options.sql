-- View options security_invoker (what the view reads is checked as the
-- querying user: privileges and row-level security) and security_barrier,
-- in CREATE VIEW WITH (...) and ALTER VIEW SET / RESET.
create table vo_t (id int, owner_name text, secret text);
insert into vo_t values (1, 'alice', 'a-secret'), (2, 'bob', 'b-secret');
create role vo_alice;
create role vo_bob;
grant select on vo_t to vo_alice;
create view vo_definer as select id, owner_name from vo_t;
create view vo_invoker with (security_invoker) as select id, owner_name from vo_t;
create view vo_barrier with (check_option = local, security_barrier = true) as select * from vo_t where id > 0;
grant select on vo_definer, vo_invoker to vo_alice, vo_bob;
select relname, reloptions from pg_class where relname like 'vi\_%' and relkind = 'v' order by 1;
set role vo_bob;
select * from vo_definer order by id;
select * from vo_invoker order by id;
reset role;
set role vo_alice;
select * from vo_invoker order by id;
reset role;
-- row-level security applies as the invoker
alter table vo_t enable row level security;
create policy vo_own on vo_t using (owner_name = current_user);
grant select on vo_t to vo_bob;
set role vo_bob;
select * from vo_invoker order by id;
select * from vo_definer order by id;
reset role;
alter view vo_invoker reset (security_invoker);
alter view vo_definer set (security_barrier, security_invoker = true);
alter view vo_barrier reset (check_option, security_barrier);
select relname, reloptions from pg_class where relname like 'vi\_%' and relkind = 'v' order by 1;
alter view vo_definer set (security_invoker = maybe);
alter view vo_definer set (nosuch = 1);
alter view vo_definer set (check_option = sideways);
create view vo_bad with (fillfactor = 10) as select 1;

drop view vo_definer, vo_invoker, vo_barrier;
drop table vo_t;
drop role vo_alice;
drop role vo_bob;
