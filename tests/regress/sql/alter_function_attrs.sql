-- ALTER FUNCTION / PROCEDURE / ROUTINE with the attributes CREATE
-- FUNCTION takes.
create function aft_f(int) returns int language sql as 'select $1 * 2';
create function aft_srf(int) returns setof int language sql as 'select generate_series(1, $1)';
create procedure aft_p(int) language sql as 'select $1';
alter function aft_f(int) stable strict;
select provolatile, proisstrict from pg_proc where proname = 'aft_f';
select aft_f(null) is null as strict_null, aft_f(4);
alter function aft_f(int) immutable called on null input cost 5 parallel safe;
select provolatile, proisstrict from pg_proc where proname = 'aft_f';
alter function aft_f volatile returns null on null input;
select provolatile, proisstrict from pg_proc where proname = 'aft_f';
alter routine aft_f(integer) leakproof;
alter function aft_srf(int) rows 100 stable;
select provolatile from pg_proc where proname = 'aft_srf';
-- errors
alter function aft_f(int) rows 10;
alter function aft_f(int) cost -1;
alter function aft_f(int) stable immutable;
alter function aft_f(text) stable;
alter function aft_nosuch stable;
alter function aft_p(int) stable;
alter procedure aft_f(int) stable;
-- undone with its transaction
begin;
alter function aft_f(int) immutable;
rollback;
select provolatile from pg_proc where proname = 'aft_f';
-- a table's row type in the signature
create table aft_t (a int);
create function aft_row(aft_t) returns int language sql as 'select $1.a';
alter function aft_row(aft_t) immutable;
select provolatile from pg_proc where proname = 'aft_row';
drop function aft_row(aft_t);
drop table aft_t;
drop function aft_f(int);
drop function aft_srf(int);
drop procedure aft_p(int);
