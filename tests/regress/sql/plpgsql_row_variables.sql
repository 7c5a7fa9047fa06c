-- PL/pgSQL variables of a composite type or a table's row type: NULL rows
-- until assigned, field assignment, values cast to the declared type.
create type avg_state as (total bigint, count bigint);
create table tt(a int, b text);
insert into tt values (1, 'one'), (2, 'two');
create or replace function avg_transfn(state avg_state, n int) returns avg_state as
$$
declare new_state avg_state;
begin
	if state is null then
		if n is not null then
			new_state.total := n;
			new_state.count := 1;
			return new_state;
		end if;
		return null;
	elsif n is not null then
		state.total := state.total + n;
		state.count := state.count + 1;
		return state;
	end if;
	return null;
end
$$ language plpgsql;
select avg_transfn(null, 3), avg_transfn((1,2)::avg_state, 3), avg_transfn(null, null) is null;
do $$ declare r avg_state; begin raise notice '% % %', r, r.total, r is null; r.total := 5; raise notice '%', r; end $$;
do $$ declare r tt; begin r.a := 1; raise notice '%', r; end $$;
do $$ declare r tt%rowtype; begin select * into r from tt where a = 2; raise notice '% %', r, r.b; r.b := 'zwei'; raise notice '%', r; end $$;
do $$ declare r record; begin r := row(1,2)::avg_state; raise notice '% %', r.total, r; end $$;
do $$ declare r record; begin r := (1,2)::avg_state; r.total := 7; raise notice '%', r; end $$;
do $$ declare r avg_state; begin r := (1,2)::avg_state; raise notice '% %', r.total, pg_typeof(r); end $$;
do $$ declare r avg_state; begin r := row(3, 4); raise notice '%', r; end $$;
do $$ declare r avg_state; begin select 5, 6 into r; raise notice '%', r; end $$;
do $$ declare r tt; begin for r in select * from tt loop raise notice '% %', r.a, r.b; end loop; end $$;
-- arguments of a row type: ROW(...) passes as one, p.field selects
create function pair_sum(p avg_state) returns bigint language sql as $$ select p.total + p.count $$;
select pair_sum((1,2)), pair_sum(row(3,4)), pair_sum(null);
select avg_transfn((1,2), 3);
