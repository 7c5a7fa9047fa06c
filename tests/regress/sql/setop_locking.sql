-- A locking clause on a set operation is refused, named by its strength
create table sl (a int);
select a from sl union select a from sl for update;
select a from sl except all select a from sl for no key update;
select a from sl intersect select a from sl for share;
select a from sl union all select a from sl for key share;
with recursive r(n) as (select 1 union all select n + 1 from r where n < 3 for share) select * from r;
drop table sl;
