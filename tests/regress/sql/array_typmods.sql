-- Arrays keep their element's type modifier: char(n)[], varchar(n)[],
-- numeric(p,s)[] columns check (or round) every element, as PostgreSQL
-- keeps the element typmod in the column's atttypmod.
create table at_typmods (f char(5)[], g varchar(5)[], n numeric(4,1)[]);
insert into at_typmods(f) values ('{"too long"}');
insert into at_typmods(g) values ('{"too long"}');
insert into at_typmods(g) values (array['ok', 'too long']);
insert into at_typmods(f) values ('{abc}');
insert into at_typmods(n) values ('{1.25, 2.35}');
insert into at_typmods(n) values ('{12345}');
insert into at_typmods(n) values ('{{1.06},{2.04}}');
insert into at_typmods(g) values ('{"spaces    "}');
select * from at_typmods order by 1, 2, 3;
update at_typmods set f = '{abcdefg}' where f is not null;
update at_typmods set f[2] = 'abcdefg' where f is not null;
update at_typmods set f[2] = 'ab' where f is not null returning f;
select format_type(atttypid, atttypmod) from pg_attribute
 where attrelid = 'at_typmods'::regclass and attnum > 0 order by attnum;
\d at_typmods
-- explicit casts truncate or round each element
select '{abc,toolong}'::varchar(3)[], array['abc', 'toolong']::char(3)[];
select array[1.25, 3.35]::numeric(4,1)[], '{1.25}'::numeric(3,2)[];
select array[123.4]::numeric(3,1)[];
-- COPY applies them too
copy at_typmods(n) from stdin;
{7.77}
\.
copy at_typmods(g) from stdin;
{toolong}
\.
select n from at_typmods where n is not null order by n;
-- CREATE TABLE AS and views keep the declared type
create table at_copy as select * from at_typmods;
\d at_copy
create view at_view as select f, n from at_typmods;
\d at_view
-- PL/pgSQL array variables with a modifier check assigned elements
create function array_elem_check(numeric) returns numeric as $$
declare
  x numeric(4,2)[1];
begin
  x[1] := $1;
  return x[1];
end$$ language plpgsql;
select array_elem_check(121.00);
select array_elem_check(1.23456);
drop function array_elem_check(numeric);
drop view at_view;
drop table at_copy, at_typmods;
