-- A one-argument call named after a type, with no function of that name,
-- is a cast (PostgreSQL's FUNCDETAIL_COERCION), except a row to a string.
select int4(1.5), text(5), float8(2::bigint), date('2020-01-01 10:00'::timestamp), int8(2.5::float4), bpchar('a'), pg_catalog.int2(7);
create type mood as enum ('happy', 'sad');
select mood('happy');
select text(row(1,2));
select nosuchtype(1);
select int4('x');
select int4(1, 2);
select numeric(5);
