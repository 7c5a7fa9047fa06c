-- A table's storage parameters (WITH (...), ALTER TABLE SET): checked as
-- PostgreSQL's heap reloptions are.
CREATE TABLE r1 (a int) WITH (foo = 1);
CREATE TABLE r1 (a int) WITH (fillfactor = 5);
CREATE TABLE r1 (a int) WITH (fillfactor = abc);
CREATE TABLE r1 (a int) WITH (autovacuum_vacuum_scale_factor = 200);
CREATE TABLE r1 (a int) WITH (autovacuum_enabled = maybe);
CREATE TABLE r1 (a int) WITH (fillfactor = 50, fillfactor = 60);
CREATE TABLE r1 (a int) WITH (toast.fillfactor = 50);
CREATE TABLE r1 (a int) WITH (foo.fillfactor = 50);
CREATE TABLE r1 (a int) WITH (vacuum_index_cleanup = maybe);
CREATE TABLE r1 (a int) WITH ("Fillfactor" = 10);
CREATE TABLE r1 (a int) WITH (fillfactor);
CREATE TABLE withoid () WITH (oids);
CREATE TABLE withoid () WITH (oids = true);
CREATE TABLE r1 (a int) WITH (oids = false, fillfactor = 70, autovacuum_enabled = off,
  toast.autovacuum_enabled = false, parallel_workers = 4, vacuum_index_cleanup = auto);
ALTER TABLE r1 SET (nosuch = 1);
ALTER TABLE r1 SET (fillfactor = 101);
ALTER TABLE r1 SET (fillfactor = 90, autovacuum_analyze_scale_factor = 0.5);
ALTER TABLE r1 RESET (nosuch);
ALTER TABLE r1 RESET (fillfactor);
CREATE TABLE r2 WITH (foo = 1) AS SELECT 1 AS a;
CREATE TABLE r2 WITH (fillfactor = 20) AS SELECT 1 AS a;
SELECT * FROM r2;
-- integer options are read as PostgreSQL's parse_int reads them: rounded,
-- within int4, bare words named in the error
CREATE TABLE tsp_int (a int[]);
CREATE INDEX ON tsp_int (a) WITH (fillfactor = maybe);
CREATE INDEX ON tsp_int (a) WITH (fillfactor = 3000000000);
CREATE INDEX ON tsp_int (a) WITH (fillfactor = 2147483647);
CREATE INDEX tsp_int_ff ON tsp_int (a) WITH (fillfactor = 99.6);
CREATE INDEX ON tsp_int USING gin (a) WITH (gin_pending_list_limit = 3000000000);
CREATE TABLE tsp_int2 (a int) WITH (fillfactor = 30000000000);
DROP TABLE tsp_int;
