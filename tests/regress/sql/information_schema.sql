-- information_schema views (SQL over pg_catalog, as PostgreSQL defines
-- them) for what Knex, Django and JDBC metadata ask.
create table items (id int primary key, name text not null default 'x', price numeric(10,2),
                    code varchar(20) unique, qty int check (qty >= 0), tags text[], f float8, c char(3));
create table orders (id serial primary key, item int not null references items on delete cascade, note text);
create sequence counter start 5 increment 2 maxvalue 1000 cycle;
select table_schema, table_name, table_type, is_insertable_into from information_schema.tables
 where table_schema = 'public' order by table_name;
select table_name, column_name, ordinal_position, column_default, is_nullable, data_type,
       character_maximum_length, numeric_precision, numeric_precision_radix, numeric_scale, udt_name
  from information_schema.columns where table_schema = 'public' order by table_name, ordinal_position;
select constraint_name, table_name, constraint_type, is_deferrable from information_schema.table_constraints
 where table_schema = 'public' and constraint_type <> 'CHECK' order by constraint_name;
select constraint_name, table_name, column_name, ordinal_position, position_in_unique_constraint
  from information_schema.key_column_usage where table_schema = 'public' order by constraint_name, ordinal_position;
select constraint_name, unique_constraint_name, match_option, update_rule, delete_rule
  from information_schema.referential_constraints where constraint_schema = 'public';
select table_name, column_name, constraint_name from information_schema.constraint_column_usage
 where table_schema = 'public' and constraint_name not like '%check' order by constraint_name, column_name;
select sequence_name, data_type, start_value, minimum_value, maximum_value, increment, cycle_option
  from information_schema.sequences order by 1;
select constraint_name, check_clause from information_schema.check_constraints
 where constraint_schema = 'public' and constraint_name not like '%not_null' order by 1;
select schema_name from information_schema.schemata where schema_name in ('public', 'pg_catalog') order by 1;
select count(*) from information_schema.views where table_schema = 'public';
select * from information_schema.nope;
create table dd (b boolean default '1', i int default '5', n numeric default '1.50', m int default '-3', f float8 default '2', d date default '2020-01-02', t text default 'x', v varchar(5) default 'y', b2 boolean default false, i2 int default 7);
select a.attname, pg_get_expr(d.adbin, d.adrelid) from pg_attrdef d join pg_attribute a on a.attrelid = d.adrelid and a.attnum = d.adnum where d.adrelid = 'dd'::regclass order by d.adnum;
select column_name, column_default from information_schema.columns where table_name = 'dd' order by ordinal_position;
drop table dd;
