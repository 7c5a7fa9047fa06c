-- PL/pgSQL: trigger variables (TG_ARGV, TG_NARGS, ...), pg_trigger_depth(),
-- FOREACH over arrays, and cursors (OPEN, FETCH, MOVE, CLOSE, FOR over a
-- cursor, refcursors fetched from in SQL).

-- ----- trigger variables -----
create table trg_t (a int, b text);
create table trg_log (note text);
create function trg_vars() returns trigger language plpgsql as $$
begin
  raise notice 'name=% when=% level=% op=% rel=% table=% schema=% nargs=% argv=%',
    tg_name, tg_when, tg_level, tg_op, tg_relname, tg_table_name,
    tg_table_schema, tg_nargs, tg_argv;
  raise notice 'argv[0]=% argv[1]=% argv[5]=% relid ok=%',
    tg_argv[0], tg_argv[1], tg_argv[5], tg_relid = 'trg_t'::regclass;
  if tg_level = 'ROW' then
    if tg_op = 'DELETE' then
      return old;
    end if;
    return new;
  end if;
  return null;
end $$;
create trigger t1 before insert or update on trg_t for each row
  execute function trg_vars('first', 'sec ond', 42);
create trigger t2 after delete on trg_t for each row execute function trg_vars();
create trigger t3 after insert on trg_t for each statement
  execute function trg_vars('stmt');
insert into trg_t values (1, 'x');
update trg_t set a = 2;
delete from trg_t;
select tgname, tgnargs from pg_trigger where tgrelid = 'trg_t'::regclass order by tgname;

-- TG_ARGV drives the function: a prefix check
create function trg_prefix() returns trigger language plpgsql as $$
begin
  if substr(new.b, 1, length(tg_argv[0])) != tg_argv[0] then
    raise exception 'b must begin with %', tg_argv[0];
  end if;
  return new;
end $$;
create trigger t4 before insert on trg_t for each row execute function trg_prefix('PF');
insert into trg_t values (3, 'PFok');
insert into trg_t values (4, 'bad');
select * from trg_t;
drop trigger t1 on trg_t;
drop trigger t3 on trg_t;

-- pg_trigger_depth(): 0 outside, the nesting depth inside
select pg_trigger_depth();
create table depth_a (x int);
create table depth_b (x int);
create function depth_a_trg() returns trigger language plpgsql as $$
begin
  raise notice 'depth_a trigger at depth %', pg_trigger_depth();
  insert into depth_b values (new.x);
  return new;
end $$;
create function depth_b_trg() returns trigger language plpgsql as $$
begin
  raise notice 'depth_b trigger at depth %', pg_trigger_depth();
  return new;
end $$;
create trigger da after insert on depth_a for each row execute function depth_a_trg();
create trigger db before insert on depth_b for each row execute function depth_b_trg();
insert into depth_a values (1);
insert into depth_b values (2);
select pg_trigger_depth();

-- ALIAS FOR: another name for an argument, NEW, or another variable
create function al_test(int, text) returns text language plpgsql as $$
declare
  n alias for $1;
  t alias for $2;
  nn alias for n;
begin
  return t || ':' || (nn + 1);
end $$;
select al_test(41, 'answer');
create function trg_alias() returns trigger language plpgsql as $$
declare
  row_in alias for new;
begin
  row_in.b := upper(row_in.b);
  return row_in;
end $$;
create trigger t5 before insert on trg_t for each row execute function trg_alias();
insert into trg_t values (5, 'PFlower');
select * from trg_t order by a;
drop trigger t5 on trg_t;

-- ----- FOREACH -----
do $$
declare x int; a int[] := array[[1,2],[3,4]]; s int[];
begin
  foreach x in array a loop
    raise notice 'element %', x;
  end loop;
  foreach s slice 1 in array a loop
    raise notice 'slice1 %', s;
  end loop;
  foreach s slice 2 in array a loop
    raise notice 'slice2 % dims %', s, array_dims(s);
  end loop;
  foreach x in array '[3:5]={7,8,9}'::int[] loop
    continue when x = 8;
    raise notice 'bounded %', x;
  end loop;
  foreach x in array array[10, 20, 30] loop
    exit when x = 20;
    raise notice 'until %', x;
  end loop;
  raise notice 'found after loop: %', found;
  foreach x in array '{}'::int[] loop
    raise notice 'never';
  end loop;
  raise notice 'found after empty loop: %', found;
end $$;

-- elements are cast to the loop variable's type
do $$
declare t text; n numeric;
begin
  foreach t in array array[1.5, 2.25] loop raise notice 'text %', t; end loop;
  foreach n in array array['1', '2.5'] loop raise notice 'numeric %', n + 1; end loop;
end $$;

-- labels
do $$
declare x int; y int;
begin
  <<outer_loop>>
  foreach x in array array[1, 2, 3] loop
    foreach y in array array[10, 20] loop
      continue outer_loop when y = 20 and x = 1;
      exit outer_loop when x = 3;
      raise notice '% %', x, y;
    end loop;
  end loop;
end $$;

-- composite elements
create type fe_pair as (x int, y text);
do $$
declare r record; p fe_pair; x int; y text;
begin
  foreach r in array array[(1, 'a'), (2, 'b')]::fe_pair[] loop
    raise notice 'record % x=% y=%', r, r.x, r.y;
  end loop;
  foreach p in array array[(3, 'c')]::fe_pair[] loop
    raise notice 'typed %', p;
  end loop;
  foreach x, y in array array[(4, 'd'), (5, 'e')]::fe_pair[] loop
    raise notice 'fields % %', x, y;
  end loop;
end $$;

-- errors
do $$ declare x int; begin foreach x in array null::int[] loop end loop; end $$;
do $$ declare x int; begin foreach x slice 1 in array array[1,2] loop end loop; end $$;
do $$ declare x int[]; begin foreach x slice 2 in array array[1,2] loop end loop; end $$;
do $$ declare x int[]; begin foreach x in array array[1,2] loop end loop; end $$;
do $$ declare x int; begin foreach x in array 5 loop end loop; end $$;
do $$ declare x int[]; begin foreach x slice 1 in array '{}'::int[] loop end loop; end $$;
do $$ declare x int; begin foreach x in array array['a'] loop end loop; end $$;

-- ----- cursors -----
create table rc (a int, b int);
insert into rc values (5, 10), (50, 100), (500, 1000);

-- a bound cursor with arguments, positional and named
create function rc_bound(p int, q int) returns text language plpgsql as $$
declare
  c cursor (lo int, hi int) for select a, b from rc where a > lo and b < hi order by a;
  r record;
  out text := '';
begin
  open c(p, q);
  loop
    fetch c into r;
    exit when not found;
    out := out || r.a || '/' || r.b || ' ';
  end loop;
  close c;
  open c(hi := q, lo := 0);
  fetch c into r;
  out := out || 'named:' || r.a;
  close c;
  return out;
end $$;
select rc_bound(1, 2000), rc_bound(10, 200), rc_bound(1000, 1);

-- FETCH INTO scalars, found, directions on a scroll cursor
create function rc_scroll() returns setof text language plpgsql as $$
declare
  c scroll cursor for select a from rc order by a;
  x int;
begin
  open c;
  fetch last from c into x;
  return next 'last ' || x;
  fetch prior from c into x;
  return next 'prior ' || x;
  fetch first from c into x;
  return next 'first ' || x;
  fetch absolute 3 from c into x;
  return next 'absolute 3 ' || x;
  fetch relative -2 from c into x;
  return next 'relative -2 ' || x;
  fetch next from c into x;
  return next 'next ' || x;
  fetch c into x;
  return next 'fetch ' || x || ' found ' || found;
  fetch c into x;
  return next 'past the end: found ' || found || ', x ' || coalesce(x::text, 'null');
  move first in c;
  return next 'move first: found ' || found;
  move forward all in c;
  fetch backward from c into x;
  return next 'backward from the end ' || x;
  move absolute 10 in c;
  return next 'move absolute 10: found ' || found;
  close c;
end $$;
select * from rc_scroll();

-- FETCH with a count expression
do $$
declare c refcursor; x int; n int := 2;
begin
  open c scroll for select g from generate_series(1, 10) g;
  fetch absolute n * 3 from c into x;
  raise notice 'absolute 6 -> %', x;
  fetch relative -n from c into x;
  raise notice 'relative -2 -> %', x;
  move forward n in c;
  fetch c into x;
  raise notice 'after move forward 2 -> %', x;
  close c;
end $$;

-- an unbound cursor: OPEN FOR query, OPEN FOR EXECUTE ... USING
create function rc_unbound(lim int) returns int language plpgsql as $$
declare
  c refcursor;
  x int;
  total int := 0;
begin
  open c for select a from rc where a < lim;
  loop
    fetch c into x;
    exit when not found;
    total := total + x;
  end loop;
  close c;
  open c for execute 'select b from rc where b < $1' using lim;
  loop
    fetch c into x;
    exit when not found;
    total := total + x;
  end loop;
  close c;
  return total;
end $$;
select rc_unbound(60), rc_unbound(1);

-- FOR over a bound cursor, with and without arguments
do $$
declare
  c cursor (lo int) for select a from rc where a >= lo order by a;
  d cursor for select b from rc order by b desc;
  n int;
begin
  for r in c(50) loop
    raise notice 'c row % from %', r.a, c;
  end loop;
  for r in c(500) loop
    raise notice 'again % from %', r.a, c;
  end loop;
  for r in d loop
    raise notice 'd row %', r.b;
    exit when r.b = 100;
  end loop;
  raise notice 'found %', found;
  -- the cursor is closed after the loop
  open d;
  fetch d into n;
  raise notice 'reopened: %', n;
  close d;
end $$;

-- a refcursor returned to the caller, fetched from in SQL
create function rc_open(name refcursor) returns refcursor language plpgsql as $$
begin
  open name for select a, b from rc order by a;
  return name;
end $$;
begin;
select rc_open('rc_portal');
fetch next from rc_portal;
fetch all in rc_portal;
close rc_portal;
commit;
fetch next from rc_portal;

-- an unnamed refcursor argument, as PostgreSQL's documentation shows it
create function reffunc(refcursor) returns refcursor language plpgsql as $$
begin
  open $1 for select a from rc order by a desc;
  return $1;
end $$;
begin;
select reffunc('funccursor');
fetch all in funccursor;
commit;

-- a cursor variable's name is its declared name
create function rc_named() returns refcursor language plpgsql as $$
declare
  c cursor for select b from rc order by b;
begin
  open c;
  return c;
end $$;
begin;
select rc_named();
fetch 2 from c;
select name, is_holdable, is_scrollable from pg_cursors order by name;
commit;

-- an unnamed refcursor gets a generated name
create function rc_unnamed() returns refcursor language plpgsql as $$
declare c refcursor;
begin
  open c for select 42 as answer;
  return c;
end $$;
create function rc_use() returns int language plpgsql as $$
declare c refcursor; x int;
begin
  c := rc_unnamed();
  fetch c into x;
  close c;
  return x;
end $$;
select rc_use();

-- errors
do $$ declare c refcursor; x int; begin fetch c into x; end $$;
do $$ declare c refcursor := 'nosuch'; x int; begin fetch c into x; end $$;
do $$ declare c refcursor := 'nosuch'; begin close c; end $$;
do $$ declare c refcursor; begin close c; end $$;
do $$
declare c cursor for select 1;
begin
  open c;
  open c;
end $$;
do $$
declare c refcursor := 'dup';
begin
  open c for select 1;
  open c for select 2;
end $$;
do $$
declare c no scroll cursor for select a from rc; x int;
begin
  open c;
  fetch c into x;
  fetch prior from c into x;
end $$;
do $$
declare c refcursor; x int;
begin
  open c for select 1;
  fetch absolute null from c into x;
end $$;
create function rc_const() returns refcursor language plpgsql as $$
declare rc constant refcursor;
begin
  open rc for select 1;
  return rc;
end $$;
select rc_const();

drop function rc_bound(int, int);
drop function rc_scroll();
drop function rc_unbound(int);
drop function rc_open(refcursor);
drop function reffunc(refcursor);
drop function al_test(int, text);
drop function trg_alias();
drop function rc_named();
drop function rc_use();
drop function rc_unnamed();
drop function rc_const();
drop table rc;
drop type fe_pair;
drop table trg_t, trg_log, depth_a, depth_b;
drop function trg_vars();
drop function trg_prefix();
drop function depth_a_trg();
drop function depth_b_trg();
