-- Functions taking and returning a table's row type: the argument is
-- the whole row (t, alias, t.*, ROW(...)), x.f is f(x) when x has no
-- column f, and the result is a value of the table's type.
create table rtf_people (id int, first text, last text);
insert into rtf_people values (1, 'Ada', 'Lovelace'), (2, 'Alan', 'Turing');
create function rtf_full_name(p rtf_people) returns text language sql
  as $$ select p.first || ' ' || p.last $$;
select rtf_full_name(rtf_people) from rtf_people order by id;
select rtf_full_name(p) from rtf_people p order by id;
select rtf_full_name(p.*) from rtf_people p order by id;
select p.id, p.rtf_full_name from rtf_people p order by id;
select rtf_full_name(row(9, 'Grace', 'Hopper'));
select rtf_full_name(null::rtf_people) is null as is_null;
select p.nosuch from rtf_people p;
-- the whole row of a table is of its type, fields named as its columns
select pg_typeof(p), row_to_json(p) from rtf_people p(x, y, z) order by x;
select pg_typeof(s), row_to_json(s) from (select * from rtf_people) s order by id;
-- PL/pgSQL: named and positional row arguments
create function rtf_initials(rtf_people) returns text language plpgsql
  as $$ begin return left($1.first, 1) || left($1.last, 1); end $$;
create function rtf_shift(p rtf_people, n int) returns rtf_people language plpgsql
  as $$ begin p.id := p.id + n; return p; end $$;
select rtf_initials(p), rtf_shift(p, 10), (rtf_shift(p, 10)).id from rtf_people p order by id;
select p.rtf_initials from rtf_people p order by id;
-- a composite type's positional argument too
create type rtf_pair as (a int, b text);
create function rtf_pair_text(rtf_pair) returns text language plpgsql
  as $$ begin return $1.b || $1.a; end $$;
select rtf_pair_text(row(1, 'x'));
-- returning the row type, called in an expression
create function rtf_first() returns rtf_people language sql
  as $$ select * from rtf_people order by id limit 1 $$;
create function rtf_none() returns rtf_people language sql
  as $$ select * from rtf_people where false $$;
select rtf_first(), (rtf_first()).last, rtf_none() is null as none_is_null;
select * from rtf_first();
-- the functions follow ALTER TABLE
alter table rtf_people add column age int default 36;
select rtf_full_name(p), p.rtf_initials, rtf_shift(p, 1) from rtf_people p order by id;
-- dropping the table: its functions depend on its type
drop table rtf_people;
drop table rtf_people cascade;
select rtf_full_name(null);
drop function rtf_pair_text(rtf_pair);
drop type rtf_pair;
