-- DROP TYPE ... CASCADE of an enum or composite type that functions take
-- or return: the functions go with it.
create type dtc_pair as (a int, b text);
create function dtc_f(dtc_pair) returns int language sql as 'select $1.a';
create function dtc_g() returns dtc_pair language sql as $$ select 1, 'x' $$;
drop type dtc_pair;
drop type dtc_pair cascade;
select dtc_f(null);
create type dtc_mood as enum ('sad', 'ok');
create function dtc_m(dtc_mood) returns text language sql as 'select $1::text';
create function dtc_n() returns dtc_mood language sql as $$ select 'ok'::dtc_mood $$;
drop type dtc_mood;
drop type dtc_mood cascade;
