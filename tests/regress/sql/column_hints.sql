-- errorMissingColumn's hints: the closest column names, or a column of
-- that name that cannot be referenced here
create table t1 (a int, b int, unique1 int);
create table t3 (x int, y int);
create table t2 (unique1 int, two int);
create table xx1 (x1 int, x2 int);
select t1.x from t1 join t3 on (t1.a = t3.x);
select t1.uunique1 from t1, t2;
select t2.uunique1 from t1, t2;
select uunique1 from t1, t2;
select f1,g from t3 a cross join (select x as g) ss;
update xx1 set x2 = f1 from (select * from t3 where y = x1) ss;
delete from xx1 using (select * from t3 where y = x1) ss;
select * from t1 join t2 using (unique1) as j where j.a = 1;
select aa from t1;
select bb from t1, t3;
select abc from t1;
select t1.unique from t1;
select q from t1;
select yy from t3;
select xyz from t3;
select t.a from t1 tt;
select unique2 from t1, t2;
create table ut (a int, b int); create table uf (c int);
insert into ut values (1, 1); insert into uf values (1);
update ut set b = s.x from uf, lateral (select uf.c + 10 as x) s where ut.a = uf.c returning ut.*;
update ut set b = s.x from uf, lateral (select ut.a + 10 as x) s where ut.a = uf.c returning ut.*;
drop table t1, t2, t3, xx1, ut, uf;
