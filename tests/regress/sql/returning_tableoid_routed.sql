-- RETURNING tableoid of an INSERT into a partitioned table is the
-- partition each row was routed to.
create table rtr (a int, b text) partition by list (a);
create table rtr1 partition of rtr for values in (1);
create table rtr2 (b text, a int);
alter table rtr attach partition rtr2 for values in (2);
insert into rtr values (1, 'x'), (2, 'y') returning tableoid::regclass, *;
insert into rtr select g % 2 + 1, 'g' || g from generate_series(1, 4) g
  returning tableoid::regclass, a, b;
with ins as (insert into rtr values (2, 'z') returning tableoid::regclass as t, b)
  select * from ins;
insert into rtr1 values (1, 'direct') returning tableoid::regclass;
insert into rtr values (1, 'x') on conflict do nothing returning tableoid::regclass;
select tableoid::regclass, * from rtr order by a, b;
drop table rtr;
