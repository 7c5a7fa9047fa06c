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
