-- ORDER BY ... USING < / >
create table ou (a int, b text);
insert into ou values (1,'x'),(2,'y'),(null,'z'),(3,'y');
select * from ou order by a using >;
select * from ou order by a using <;
select * from ou order by b using >, a using <;
select * from ou order by a using > nulls last;
drop table ou;
