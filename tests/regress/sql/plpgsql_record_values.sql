-- A PL/pgSQL record variable used as a value, and a trigger's NEW/OLD
-- where the event has no such row (NULLs of the table's row type).
create table rv (a int, u int);
create table rv_audit (op text, j jsonb, t text);
create function rv_stmt() returns trigger language plpgsql as $$
begin
  raise notice 'new=% old=%', new, old;
  new.u := 1;
  raise notice 'after assigning a field: %', new;
  return null;
end $$;
create trigger rv_s after insert on rv for each statement execute function rv_stmt();
create trigger rv_d before delete on rv for each row execute function rv_stmt();
create function rv_aud() returns trigger language plpgsql as $$
begin
  insert into rv_audit values (tg_op, to_jsonb(coalesce(new, old)), row_to_json(old)::text);
  if new is distinct from old then
    raise notice 'changed % -> %', old, new;
  end if;
  return coalesce(new, old);
end $$;
create trigger rv_a after insert or update or delete on rv for each row execute function rv_aud();
insert into rv values (1, 2);
update rv set u = 3;
update rv set u = 3;
delete from rv;
select * from rv_audit;
-- a BEFORE trigger may return a record-valued expression
create function rv_before() returns trigger language plpgsql as $$
begin
  return coalesce(new, old);
end $$;
create trigger rv_b before insert on rv for each row execute function rv_before();
insert into rv values (5, 6) returning *;
do $$ declare r record; begin raise notice 'unassigned: %', r; end $$;
do $$ declare r record; begin raise notice '%', r.x; end $$;
do $$
declare r record;
begin
  select 1 as x, 'a' as y into r;
  raise notice '% % %', r, to_json(r), r is null;
  select 2 as x, null as y into r;
  raise notice '% %', r, to_jsonb(r);
end $$;
drop table rv, rv_audit;
drop function rv_stmt();
drop function rv_aud();
drop function rv_before();
-- the same expression before and after the record is assigned
do $$
declare r record;
begin
  for i in 1..2 loop
    raise notice '% %', r, to_jsonb(r);
    select i as x, 'b' as y into r;
  end loop;
  raise notice '% %', r, to_jsonb(r);
end $$;
