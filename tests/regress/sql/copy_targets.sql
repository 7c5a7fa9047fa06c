-- COPY into and out of relations that are not plain tables: PostgreSQL
-- refuses views, materialized views, sequences (and, for COPY TO,
-- partitioned tables) with its errors; a refused COPY FROM STDIN still
-- reads its data, so the data lines are not run as statements. COPY TO
-- of an inheritance parent copies its own rows only.
CREATE TABLE vt(id serial, name text);
CREATE VIEW vt_view AS SELECT ''::text AS str;
COPY vt_view FROM stdin; -- fail
test1
\.
CREATE MATERIALIZED VIEW vt_mv AS SELECT 1 AS a;
COPY vt_mv FROM stdin;
1
\.
CREATE SEQUENCE vt_seq;
COPY vt_seq FROM stdin;
1
\.
COPY vt_view TO stdout;
SELECT 1;
DROP VIEW vt_view; DROP MATERIALIZED VIEW vt_mv; DROP SEQUENCE vt_seq; DROP TABLE vt;
create table par (a int); create table chi () inherits (par);
insert into par values (1); insert into chi values (2);
copy par to stdout;
create table pt (a int) partition by list (a); create table pt1 partition of pt for values in (1);
insert into pt values (1);
copy pt to stdout;
copy pt from stdin;
1
\.
copy (select * from pt) to stdout;
drop table par, chi, pt;
