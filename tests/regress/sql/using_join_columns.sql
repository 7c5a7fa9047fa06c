-- SELECT * over JOIN USING / NATURAL JOIN lists the merged columns first,
-- in USING order, then the left side's other columns, then the right's;
-- a join alias's j.* has the merged column once.
create table n1(a int, b int, c int);
create table n2(c int, d int, a int);
insert into n1 values (1,2,3); insert into n2 values (3,4,1);
select * from n1 natural join n2;
select * from n2 natural join n1;
select * from n1 join n2 using (c, a);
select * from n1 join n2 using (a, c);
select * from n1 natural left join n2;
select * from n1 natural full join n2;
select * from n1 natural right join n2;
create table n3(d int, e int, a int);
insert into n3 values (4, 5, 1);
select * from n1 natural join n2 natural join n3;
select * from n1 join (n2 natural join n3) using (a);
select j.* from (n1 join n2 using (c)) j;
select n1.*, n2.* from n1 join n2 using (c);
select * from (select * from n1 natural join n2) s;
create view nv as select * from n1 natural join n2;
select * from nv;
select x.* from n1 natural join n2 as x;
drop view nv;
drop table n1, n2, n3;
