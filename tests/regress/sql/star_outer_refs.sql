-- t.* of an enclosing query's FROM item, and in VALUES
create table so (a int, b text);
create table so2 (k int);
create table so_nocols ();
insert into so values (1, 'x'), (2, 'y');
insert into so2 values (10);
insert into so_nocols default values;
select * from so x, lateral (select x.*) v order by 1;
select * from so x, lateral (select x.*, so2.k from so2) v order by 1;
select * from so x, lateral (values (x.*), (x.*)) v order by 1;
select * from so x, lateral (select y.* from so y where y.a > x.a) v;
select * from so_nocols n, lateral (values (n.*)) v;
select n from so_nocols n;
values (so.*);
select (select x.*) from so x;
select * from so x, lateral (select zz.*) v;
insert into so values ((select max(a) + 1 from so), 'z') returning so.*;
-- a table's own name where it has an alias
delete from so s where so.a > 25;
update so as t set b = so.b || 'x' where t.a = 10;
insert into so as bar values (9, 'n') returning so.*;
select so.a from so s;
select s.a from so s where s.a = 1;
drop table so, so2, so_nocols;
-- PL/pgSQL: NEW.* in VALUES and select lists of a trigger
create table src (a int, b text);
create table audit (a int, b text);
create function trg() returns trigger language plpgsql as $$ begin insert into audit values (new.*); insert into audit select new.*; insert into audit values ((new).a, new.b); return new; end $$;
create trigger t after insert on src for each row execute function trg();
insert into src values (1, 'x');
select * from audit;
drop table src, audit; drop function trg();
