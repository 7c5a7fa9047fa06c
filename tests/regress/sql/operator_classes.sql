-- User-defined operator classes and families (CREATE / DROP OPERATOR
-- CLASS / FAMILY), and hash partition keys hashed by a class's support
-- function 2, as PostgreSQL's regression setup (test_setup.sql) uses them.
\set VERBOSITY verbose

create function part_hashint4_noop(value int4, seed int8)
    returns int8 as $$
    select value + seed;
    $$ language sql strict immutable parallel safe;
create operator class part_test_int4_ops for type int4 using hash as
    operator 1 =,
    function 2 part_hashint4_noop(int4, int8);
create function part_hashtext_length(value text, seed int8)
    returns int8 as $$
    select length(coalesce(value, ''))::int8
    $$ language sql strict immutable parallel safe;
create operator class part_test_text_ops for type text using hash as
    operator 1 =,
    function 2 part_hashtext_length(text, int8);

-- validation, in PostgreSQL's order
create operator class part_test_int4_ops for type int4 using hash as operator 1 =;
create function bad_ret(int4, int8) returns int4 as $$ select $1 $$ language sql immutable;
create function one_arg(int4) returns int8 as $$ select $1::int8 $$ language sql immutable;
create operator class c_bad for type int4 using hash as function 2 bad_ret(int4, int8);
create operator class c_bad for type int4 using hash as function 2 one_arg(int4);
create operator class c_bad for type int4 using hash as function 1 one_arg(int4);
create operator class c_bad for type int4 using hash as function 2 nosuch(int4, int8);
create operator class c_bad for type int4 using hash as operator 1 ===;
create operator class c_bad for type int4 using nosuch as operator 1 =;
create operator class c_bad for type nosuch using hash as operator 1 =;
create operator class c_bad for type int4 using hash as operator 2 =;
create operator class c_bad for type int4 using hash as function 4 one_arg(int4);
create operator class c_bad for type int4 using hash as function 3 one_arg(int4);
create operator class c_bad for type int4 using hash as operator 1 =, operator 1 =;
create operator class c_bad for type int4 using hash as
    function 2 part_hashint4_noop(int4, int8), function 2 part_hashint4_noop(int4, int8);
create operator class c_bad for type int4 using hash family nosuch as operator 1 =;
create operator class c_bad default for type int4 using hash as operator 1 =;
create operator class c_bad default for type int4 using btree as operator 1 <;
create operator class c_bad for type int4 using btree as operator 6 <;
create operator class c_bad for type int4 using btree as function 1 one_arg(int4);
create operator class c_bad for type int4 using btree as function 1 bad_ret(int4, int8);
select count(*) from pg_opclass where opcname = 'c_bad';

-- families
create operator family fam1 using hash;
create operator family fam1 using hash;
create operator family fam1 using btree;
create operator class c_in_fam for type int4 using hash family fam1 as operator 1 =;
create operator class c_in_fam2 for type int8 using hash family fam1 as operator 1 =;
select c.opcname, f.opfname, c.opcmethod, c.opcintype::regtype, c.opcdefault
  from pg_opclass c join pg_opfamily f on f.oid = c.opcfamily
 where c.opcnamespace = 'public'::regnamespace order by 1;
select f.opfname, a.amopstrategy, a.amoplefttype::regtype, a.amoprighttype::regtype,
       a.amoppurpose, a.amopopr = 96 as int4eq, a.amopmethod
  from pg_amop a join pg_opfamily f on f.oid = a.amopfamily
 where f.opfnamespace = 'public'::regnamespace order by 1, 3;
select f.opfname, p.amprocnum, p.amproclefttype::regtype, p.amprocrighttype::regtype, p.amproc
  from pg_amproc p join pg_opfamily f on f.oid = p.amprocfamily
 where f.opfnamespace = 'public'::regnamespace order by 1;

-- rolled back with its family
begin;
create operator class c_gone for type int4 using hash as operator 1 =;
select count(*) from pg_opfamily where opfname = 'c_gone';
rollback;
select count(*) from pg_opclass where opcname = 'c_gone';
select count(*) from pg_opfamily where opfname = 'c_gone';

-- hash partitioning with the classes: rows land where PostgreSQL puts them
create table hash_parted (a int) partition by hash (a part_test_int4_ops);
create table hpart0 partition of hash_parted for values with (modulus 4, remainder 0);
create table hpart1 partition of hash_parted for values with (modulus 4, remainder 1);
create table hpart2 partition of hash_parted for values with (modulus 4, remainder 2);
create table hpart3 partition of hash_parted for values with (modulus 4, remainder 3);
insert into hash_parted select g from generate_series(1, 10) g;
insert into hpart0 values (12), (16);
insert into hpart0 values (11);
insert into hpart3 values (11);
insert into hash_parted values (null);
select tableoid::regclass as part, a, a % 4 as "remainder = a % 4"
  from hash_parted order by part, a;
select * from hash_parted where a = 5;
select pg_get_partkeydef('hash_parted'::regclass);
select partclass = (select oid::text::oidvector from pg_opclass where opcname = 'part_test_int4_ops')
  from pg_partitioned_table where partrelid = 'hash_parted'::regclass;
\d hash_parted
update hash_parted set a = a + 1 where a = 12;
select tableoid::regclass, a from hash_parted where a = 13;
update hpart1 set a = 2 where a = 1;

-- several key columns, one of them with the default class
create table mchash (a int, b text, c int) partition by hash (a part_test_int4_ops, b part_test_text_ops, c);
create table mchash0 partition of mchash for values with (modulus 2, remainder 0);
create table mchash1 partition of mchash for values with (modulus 2, remainder 1);
insert into mchash values (1, 'ab', null), (2, 'abc', null), (3, null, null), (null, 'x', 7),
    (4, 'abcd', 1), (5, '', 2);
select tableoid::regclass, * from mchash order by 2, 3;
\d+ mchash

-- satisfies_hash_partition hashes as routing does
select satisfies_hash_partition('hash_parted'::regclass, 4, 0, 12),
       satisfies_hash_partition('hash_parted'::regclass, 4, 3, 11),
       satisfies_hash_partition('hash_parted'::regclass, 4, 1, 11);
select satisfies_hash_partition('mchash'::regclass, 2, 1, 1, 'ab'::text, null::int),
       satisfies_hash_partition('mchash'::regclass, 2, 0, 4, 'abcd'::text, 1);
select satisfies_hash_partition('mchash'::regclass, 2, 1, 1, 'ab'::text);
select satisfies_hash_partition('mchash'::regclass, 2, 1, 1, 2, 3);
select satisfies_hash_partition('mchash'::regclass, 2, 1, variadic array[1, 2, 3]);
select satisfies_hash_partition('hash_parted'::regclass, 4, 0, variadic array[12]);
select satisfies_hash_partition('hash_parted'::regclass, null, 0, 12);
select satisfies_hash_partition('hash_parted'::regclass, 4, 4, 12);
select satisfies_hash_partition('hpart0'::regclass, 4, 0, 12);
select count(*) from hash_parted
 where satisfies_hash_partition('hash_parted'::regclass, 4, a % 4, a);

-- a text class on varchar; a class of another type; a hash class in a list key
create table vchash (v varchar(10)) partition by hash (v part_test_text_ops);
create table vchash0 partition of vchash for values with (modulus 3, remainder 0);
create table vchash1 partition of vchash for values with (modulus 3, remainder 1);
create table vchash2 partition of vchash for values with (modulus 3, remainder 2);
insert into vchash values ('a'), ('bb'), ('ccc'), ('dddd');
select tableoid::regclass, v from vchash order by v;
create table bad_parted (a int) partition by hash (a part_test_text_ops);
create table bad_parted (a int) partition by list (a part_test_int4_ops);
create table bad_parted (a int) partition by hash (a nosuch_ops);

-- a PL/pgSQL support function (update.sql's)
create or replace function dummy_hashint4(a int4, seed int8) returns int8 as
$$ begin return (a + seed); end; $$ language 'plpgsql' immutable;
create operator class custom_opclass for type int4 using hash as
operator 1 = , function 2 dummy_hashint4(int4, int8);
create table hp (a int, b int) partition by hash (a custom_opclass, b custom_opclass);
create table hp1 partition of hp for values with (modulus 2, remainder 1);
create table hp2 partition of hp for values with (modulus 4, remainder 2);
create table hp3 partition of hp for values with (modulus 8, remainder 0);
create table hp4 partition of hp for values with (modulus 8, remainder 4);
insert into hp1 values (1, 1);
insert into hp2 values (2, 5);
insert into hp4 values (3, 4);
update hp1 set a = 3, b = 4 where a = 1;
update hp set b = b - 1 where b = 1;
update hp set b = b + 8 where b = 1;
select tableoid::regclass, * from hp order by a;

-- dropping: dependents, CASCADE, IF EXISTS
drop operator class custom_opclass using hash;
drop operator family custom_opclass using hash;
drop operator class custom_opclass using btree;
drop operator class nosuch using hash;
drop operator class if exists nosuch using hash;
drop operator family if exists nosuch using hash;
drop operator family nosuch using btree;
drop operator class custom_opclass using hash cascade;
select count(*) from pg_class where relname like 'hp_';
drop operator family custom_opclass using hash;
drop operator family fam1 using hash;
select opcname from pg_opclass where opcname like 'c_in_fam%';
drop operator family fam1 using btree;

-- a hash class's function 2 goes with its function; function 1 may not
create function h1(int4) returns int4 as $$ select $1 $$ language sql immutable;
create operator class c_h1 for type int4 using hash as
    operator 1 =, function 1 h1(int4), function 2 part_hashint4_noop(int4, int8);
drop function h1(int4);
create function my_int4_sort(int4, int4) returns int language sql
  as $$ select case when $1 = $2 then 0 when $1 > $2 then 1 else -1 end; $$;
create operator class test_int4_ops for type int4 using btree as
  operator 1 < (int4, int4), operator 2 <= (int4, int4),
  operator 3 = (int4, int4), operator 4 >= (int4, int4),
  operator 5 > (int4, int4), function 1 my_int4_sort(int4, int4);
drop function my_int4_sort(int4, int4);
drop function my_int4_sort(int4, int4) cascade;
select count(*) from pg_opclass where opcname = 'test_int4_ops';
drop operator class c_h1 using hash;

drop table hash_parted, mchash, vchash;
drop operator class part_test_int4_ops using hash;
drop operator class part_test_text_ops using hash;
select opcname from pg_opclass where opcnamespace = 'public'::regnamespace;
