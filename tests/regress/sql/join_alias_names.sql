-- An aliased join hides its items' names: they may repeat names around it.
CREATE TABLE i8 (q1 int8, q2 int8);
CREATE TABLE i4 (f1 int4);
INSERT INTO i8 VALUES (1, 2); INSERT INTO i4 VALUES (1), (3);
select * from i8 x join (i4 x cross join i4 y) j on q1 = f1;
select * from i8 x join (i4 x cross join i4 y) j on q1 = y.f1;
select * from i8 x join (i4 x cross join i4 y(ff)) j on q1 = f1;
select * from i8 x join (i4 x cross join i4 x) j on true;
select * from i8 x join (i4 a cross join i4 b) x on true;
select * from i8 j join (i4 a cross join i4 b) j on true;
select * from (i4 a cross join i4 b) j, i8 j;
select * from (i4 a join i4 b using (f1)) j join i4 a on true;
