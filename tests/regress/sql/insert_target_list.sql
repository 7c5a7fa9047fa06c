-- INSERT target column lists on tables and views: unknown and repeated
-- columns (one binder function serves both).
\set VERBOSITY default
create table ti (a int, b int);
create view vi as select a, b from ti;
insert into ti (a, a) values (1, 2);
insert into ti (a, zz) values (1, 2);
insert into vi (b, b) values (1, 2);
insert into vi (zz) values (1);
insert into vi (b, a) values (1, 2);
select * from vi;
