-- PL/pgSQL variables declared as a domain check every value assigned:
-- the initial value (with the declaration's line in CONTEXT), :=,
-- subscripted assignment and SELECT INTO.
create domain orderedpair as int[2] check (value[1] < value[2]);
create domain posint as int check (value > 0);
create or replace function f1(int) returns int as $$
declare
  x orderedpair := '{1,2}';
begin
  x := array[5, $1];
  return x[2];
end$$ language plpgsql;
select f1(3);
select f1(-1);
create or replace function f2(int) returns int as $$
declare
  y posint := 1;
begin
  y := $1;
  return y;
end$$ language plpgsql;
select f2(3);
select f2(-1);
create or replace function f3(int) returns int as $$
declare
  y posint := $1;
begin
  return y;
end$$ language plpgsql;
select f3(-1);
create domain nnint as int not null;
create or replace function f4() returns int as $$
declare
  y nnint;
begin
  return y;
end$$ language plpgsql;
select f4();
create or replace function f5(int) returns int as $$
declare
  y orderedpair := '{1,2}';
begin
  y[2] := $1;
  return y[2];
end$$ language plpgsql;
select f5(3);
select f5(-1);
create or replace function f6() returns int as $$
declare
  y posint;
begin
  y := 5;
  for i in 1..3 loop y := y - 1; end loop;
  return y;
end$$ language plpgsql;
select f6();
create or replace function f7() returns int as $$
declare
  y posint;
begin
  select -3 into y;
  return y;
end$$ language plpgsql;
select f7();
create or replace function g1(int) returns int as $$
declare
  a int := 1;
  y posint := $1;
begin
  return y;
end$$ language plpgsql;
select g1(-1);
create or replace function g2(int) returns int as $$
begin
  declare
    a int := 1;
    y posint := $1;
  begin
    return y;
  end;
end$$ language plpgsql;
select g2(-1);
create or replace function g3(int) returns int as $$
  declare
    a int := 1;
    y posint := $1;
  begin
    return y;
  end$$ language plpgsql;
select g3(-1);
drop function f1(int), f2(int), f3(int), f4(), f5(int), f6(), f7(), g1(int), g2(int), g3(int);
drop domain orderedpair, posint, nnint;
