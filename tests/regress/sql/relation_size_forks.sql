-- pg_relation_size with a fork: main holds the rows, the others are empty
-- here (Nestor keeps no free space or visibility maps; PostgreSQL's are
-- empty for a small table)
create table rs (a int, b text);
insert into rs values (1, 'x');
select pg_relation_size('rs', 'main') > 0 as main_has_rows,
       pg_relation_size('rs', 'main') = pg_relation_size('rs') as main_is_default;
select pg_relation_size('rs', 'fsm'), pg_relation_size('rs', 'vm'), pg_relation_size('rs', 'init');
select pg_relation_size('rs', 'bogus');
select pg_relation_size('rs', null) is null;
