-- DEFAULT: its position in INSERT's arity errors; elsewhere PostgreSQL's 42601.
create table df_t (col1 int, col2 int default 5);
insert into df_t (col1) values (DEFAULT, DEFAULT);
insert into df_t (col1) values (1, DEFAULT);
insert into df_t (col1, col2) values (DEFAULT);
insert into df_t values (DEFAULT, DEFAULT, DEFAULT);
update df_t set col1 = DEFAULT + 1;
select DEFAULT;
drop table df_t;
