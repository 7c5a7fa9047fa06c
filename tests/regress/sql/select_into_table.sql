-- SELECT ... INTO [TEMP | UNLOGGED] [TABLE] t: CREATE TABLE AS; INTO elsewhere
-- is PostgreSQL's 42601.
create table si_src (a int, b text);
insert into si_src values (1, 'x'), (2, 'y'), (3, 'z');
select * into si_t from si_src where a > 1;
select * from si_t order by a;
select a, b into temp si_tmp from si_src;
select count(*) from si_tmp;
select a into unlogged table si_u from si_src;
select relpersistence from pg_class where relname = 'si_u';
select a into si_t from si_src;
select * from (select a into si_x from si_src) s;
select a from si_src union select a into si_y from si_src;
select a into si_z from si_src union select a from si_src;
select count(*) from si_z;
drop table si_src, si_t, si_u, si_z;
