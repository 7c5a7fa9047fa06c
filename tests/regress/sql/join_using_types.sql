-- JOIN USING of columns of different types: the merged column has the
-- common type (PostgreSQL's buildMergedJoinVar), each table's copy its
-- own; GROUP BY the merged column does not group a copy.
create table t1(f1 int, f2 bigint);
create table t2(f1 bigint, f22 bigint);
select f1 from t1 left join t2 using (f1) group by f1;
select f1 from t1 left join t2 using (f1) group by t1.f1;
select t1.f1 from t1 left join t2 using (f1) group by t1.f1;
select t1.f1 from t1 left join t2 using (f1) group by f1;
select t1.f1 from t1 join t2 using (f1) group by f1;
create table t3(f1 int);
select t1.f1 from t1 left join t3 using (f1) group by f1;
select t3.f1 from t1 right join t3 using (f1) group by f1;
select t1.f1 from t1 full join t3 using (f1) group by f1;
insert into t1 values (1, 10), (2, 20); insert into t2 values (1, 100), (3, 300); insert into t3 values (1), (2);
select pg_typeof(f1), f1 from t1 join t2 using (f1);
select * from t1 join t2 using (f1);
select pg_typeof(f1), * from t1 left join t2 using (f1) order by f1;
select pg_typeof(f1), * from t1 right join t2 using (f1) order by f1;
select pg_typeof(f1), * from t1 full join t2 using (f1) order by f1;
select t1.*, t2.* from t1 join t2 using (f1);
select j.* from (t1 join t2 using (f1)) j;
select x.*, pg_typeof(x.f1) from t1 join t2 using (f1) as x;
select pg_typeof(f1), f1 from t1 natural join t2;
select f1, count(*) from t1 join t2 using (f1) group by f1;
select f1 from t1 join t2 using (f1) where f1 = 1;
create view vj as select * from t1 join t2 using (f1);

select * from vj;
select pg_typeof(f1) from t1 join t3 using (f1);
create table t4 (f1 text);
select * from t1 join t4 using (f1);
drop view vj; drop table t1, t2, t3, t4;
