-- DROP of a relation a materialized view reads: 2BP01 naming it (and what
-- reads it), CASCADE drops them; REFRESH keeps the matview's columns.
CREATE TABLE mvd_f(a, b) AS VALUES(1, 10);
CREATE MATERIALIZED VIEW mvd_m AS SELECT * FROM mvd_f;
CREATE MATERIALIZED VIEW mvd_m2 AS SELECT a FROM mvd_m;
CREATE VIEW mvd_v AS SELECT * FROM mvd_m2;
drop table mvd_f;
alter table mvd_f add column c int default 5;
refresh materialized view mvd_m;
select * from mvd_m;
drop table mvd_f cascade;
select * from mvd_m;
CREATE TABLE mvd_f2(a int);
CREATE VIEW mvd_fv AS SELECT * FROM mvd_f2;
CREATE MATERIALIZED VIEW mvd_m3 AS SELECT * FROM mvd_fv;
drop view mvd_fv;
drop view mvd_fv cascade;
drop table mvd_f2;
