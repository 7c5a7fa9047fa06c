-- A query with HAVING but no GROUP BY and no aggregate is one group: its
-- input is not scanned (WHERE never runs), a Result.
create table hv_t (a int);
insert into hv_t values (0), (1);
select 1 as one from hv_t where 1/a = 1 having 1 < 2;
select 1 as one from hv_t having 1 > 2;
select 1 as one from hv_t where a > 5 having 1 < 2;
select count(*) from hv_t having count(*) > 1;
select min(a) from hv_t where a > 0 having 1 < 2;
explain (costs off) select 1 from hv_t having 1 < 2;
drop table hv_t;
