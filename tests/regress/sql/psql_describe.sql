-- psql's \d family reads the system catalog (pg_class, pg_attribute,
-- pg_index, pg_constraint, pg_attrdef, pg_trigger, pg_sequence, ...) with
-- PostgreSQL 15's own queries; the output must be PostgreSQL's.
create table items (
    id int primary key,
    name text not null default 'x',
    price numeric(10,2),
    code varchar(20) unique,
    qty int check (qty >= 0),
    tags text[],
    created date
);
create index items_name on items (name);
create unique index items_code_name on items (code, name);
create table orders (id serial primary key, item int not null, note char(3));
create sequence counter start 5 increment 2;
create function touch() returns trigger language plpgsql as $$ begin return new; end $$;
create function add(a int, b int default 1) returns int language sql as 'select a + b';
create procedure p(inout x int) language plpgsql as $$ begin x := x + 1; end $$;
\dt
\di
\d
\ds
\d items
\d+ items
\d orders
\d items_name
\d items_code_name
\d counter
\d orders_id_seq
\dn
\du postgres
\df
\dT
\dp
create trigger items_touch before insert or update on items for each row execute function touch();
\d items
select c.relname, c.relkind, c.relnatts, c.relhasindex, c.relchecks, c.relhastriggers
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
 where n.nspname = 'public' order by 1;
select attname, format_type(atttypid, atttypmod), attnum, attnotnull, atthasdef
  from pg_attribute where attrelid = 'items'::regclass and attnum > 0 order by attnum;
select conname, contype, pg_get_constraintdef(oid), pg_get_constraintdef(oid, true)
  from pg_constraint where conrelid = 'items'::regclass order by conname;
select indexrelid::regclass::text, indisunique, indisprimary, indkey, pg_get_indexdef(indexrelid)
  from pg_index where indrelid = 'items'::regclass order by 1;
select pg_get_serial_sequence('orders', 'id'), pg_get_serial_sequence('items', 'id');
select typname, typlen, typcategory, typelem <> 0 as has_elem from pg_type
 where typname in ('int4', '_int4', 'text', '_text', 'numeric', 'bool', 'int2vector') order by 1;
select proname, pg_get_function_arguments(oid), pg_get_function_result(oid), prokind
  from pg_proc where pronamespace = 'public'::regnamespace order by 1;
select quote_ident('abc'), quote_ident('Abc'), quote_ident('select'), pg_size_pretty(123456789::bigint);
drop table items;
\d items
