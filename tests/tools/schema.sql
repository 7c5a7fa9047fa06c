-- A database with every kind of object Nestor supports: the pg_dump
-- round-trip tests load it into Nestor, and tests/tools/generate-pg15-dump
-- loads it into PostgreSQL 15 to make pg15_dump.sql.
create table items (
    id int primary key,
    name text not null default 'x',
    price numeric(10,2) default 0,
    code varchar(20) unique,
    qty int check (qty >= 0),
    tags text[],
    created date default current_date,
    flag boolean,
    data jsonb,
    u uuid,
    ts timestamptz,
    b bytea,
    f float8,
    ch char(3)
);
create index items_name on items (name);
create unique index items_code_name on items (code, name);
create table orders (id serial primary key, item int not null references items on delete cascade, note text);
create unlogged table scratch (k bigint, v text);
create sequence counter start 5 increment 2 minvalue 1 maxvalue 1000 cycle;
create function touch() returns trigger language plpgsql as $$ begin new.note := coalesce(new.note, 'n'); return new; end $$;
create function add(a int, b int default 1) returns int language sql immutable strict as 'select a + b';
create procedure p(inout x int) language plpgsql as $$ begin x := x + 1; end $$;
create trigger orders_touch before insert or update on orders for each row execute function touch();
insert into items values (1, 'a', 1.5, 'c1', 3, '{x,"y z"}', '2024-01-02', true, '{"k": [1,2]}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '2024-01-02 03:04:05+00', '\x0102', 1.25, 'ab');
insert into items (id, name) values (2, E'tab\there');
insert into orders (item) values (1), (2);
select nextval('counter');
create table events (id bigint generated always as identity primary key, kind text not null);
insert into events (kind) values ('start'), ('stop');
create view item_orders as select i.id, i.name, count(o.id) as orders from items i left join orders o on o.item = i.id group by i.id, i.name;
create view busy_items (item_id, item_name) as select id, name from item_orders where orders > 0;
comment on table items is 'things we sell';
comment on column items.price is 'in euros';
comment on view item_orders is 'orders per item';
comment on function add(int, int) is 'adds';
create materialized view order_counts as select item, count(*) as n from orders group by item;
create unique index order_counts_item on order_counts (item);
create materialized view later_counts as select item from orders with no data;
