-- ALTER FUNCTION / PROCEDURE / ROUTINE ... RENAME TO: lookup by name and
-- argument types with PostgreSQL's errors, collisions (42723), ROLLBACK,
-- and what follows the function by OID (owner, comment, triggers).
\set VERBOSITY verbose
create function f(a int) returns int language sql as 'select a + 1';
create function f(a text) returns text language sql as 'select a';
create function g(a int) returns int language sql as 'select a * 2';
create procedure p(a int) language sql as 'select 1';
alter function f(int) rename to g;
alter function f rename to h;
alter function f(text) rename to h;
select h('x');
alter function nosuch(int) rename to z;
alter function f(bigint) rename to z;
alter procedure f(int) rename to z;
alter function p(int) rename to z;
alter procedure nosuch(int) rename to z;
alter routine nosuch(int) rename to z;
alter procedure nosuch rename to z;
alter routine nosuch rename to z;
alter function nosuch rename to z;
alter procedure f rename to z;
alter procedure p rename to g;
alter routine p(int) rename to q;
alter procedure q(int) rename to r;
call r(1);
alter routine f(int) rename to f2;
select f2(1);
begin;
alter function f2(int) rename to f3;
select f3(1);
rollback;
select f2(1);
select f3(1);
alter function f2(int) owner to postgres;
alter function f2(int) rename to f2;
alter function f2(in integer, out r integer) rename to f4;
comment on function f4(int) is 'renamed';
select d.description from pg_description d join pg_proc p on p.oid = d.objoid where p.proname = 'f4';
create table tt (a int);
create function tt_trg() returns trigger language plpgsql as $$ begin new.a := new.a * 10; return new; end $$;
create trigger tt_bi before insert on tt for each row execute function tt_trg();
alter function tt_trg() rename to tt_trg2;
insert into tt values (4);
select * from tt;
select tgname, tgfoid::regproc from pg_trigger where tgname = 'tt_bi';
\df
