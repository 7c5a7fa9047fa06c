-- EXECUTE's arguments are coerced to the parameters' types by assignment:
-- a typed argument that cannot be is 42804 at the argument.
\set VERBOSITY verbose
PREPARE q3(text, int, float, boolean, smallint) AS SELECT $1, $2, $3, $4, $5;
EXECUTE q3(5::smallint, 10.5::float, false, 4::bigint, 'bytea');
EXECUTE q3('a', 10.5::float, 1.5, true, 4::bigint);
EXECUTE q3(5, 10.5, 2, 'yes', 7);
EXECUTE q3(5, 11.5, 2, false, 7);
EXECUTE q3(NULL, NULL, NULL, NULL, NULL);
EXECUTE q3(true, 1, 1, 1, 1);
EXECUTE q3('x', '1', '1.25', 't', '3');
EXECUTE q3(now()::date, 1, 1, true, 99999);
create table t as execute q3(1, 2, 3, true::boolean, 4::int8);
select * from t;
create table t2 as execute q3(1, 2, 3, 4, 5);
drop table t;
