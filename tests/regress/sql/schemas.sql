-- CREATE SCHEMA / DROP SCHEMA on the schemas that exist (Nestor has one
-- user schema, public): what migration tools emit works as in PostgreSQL.
\set VERBOSITY verbose
CREATE SCHEMA IF NOT EXISTS public;
CREATE SCHEMA public;
CREATE SCHEMA IF NOT EXISTS information_schema;
CREATE SCHEMA pg_mine;
CREATE SCHEMA IF NOT EXISTS pg_catalog;
DROP SCHEMA IF EXISTS nosuch;
DROP SCHEMA nosuch;
DROP SCHEMA IF EXISTS nosuch, other;
CREATE TABLE kept (a int);
DROP SCHEMA public;
DROP SCHEMA pg_catalog;
SELECT count(*) FROM kept;
DROP TABLE kept;
-- Schemas of their own: the same name in two schemas, qualified names.
CREATE SCHEMA app;
CREATE SCHEMA app;
CREATE SCHEMA IF NOT EXISTS app;
CREATE TABLE app.t (id serial PRIMARY KEY, v text UNIQUE);
CREATE TABLE t (id int PRIMARY KEY, w int);
INSERT INTO app.t (v) VALUES ('a'), ('b');
INSERT INTO t VALUES (10, 100);
SELECT * FROM app.t ORDER BY id;
SELECT * FROM t;
SELECT t.v FROM app.t WHERE t.id = 2;
SELECT a.v, p.w FROM app.t a, public.t p ORDER BY a.id;
UPDATE app.t SET v = 'bb' WHERE id = 2 RETURNING *;
DELETE FROM app.t WHERE id = 1;
SELECT * FROM app.t;
INSERT INTO app.t (v) VALUES ('bb');
CREATE TABLE app.t (x int);
CREATE TABLE IF NOT EXISTS app.t (x int);
CREATE TABLE nosuch.t (x int);
SELECT * FROM nosuch.t;
SELECT * FROM app.nosuch;
CREATE TEMP TABLE app.tt (x int);
-- Sequences, serial columns and regclass.
SELECT nextval('app.t_id_seq');
CREATE SEQUENCE app.seq START 5;
SELECT nextval('app.seq'), currval('app.seq');
SELECT 'app.t'::regclass, 'app.seq'::regclass, 't'::regclass;
SELECT pg_get_serial_sequence('app.t', 'id');
SELECT column_default FROM information_schema.columns
 WHERE table_schema = 'app' AND table_name = 't' AND column_name = 'id';
-- Indexes live in their table's schema.
CREATE INDEX t_w_idx ON t (w);
CREATE INDEX t_w_idx ON app.t (v);
SELECT schemaname, tablename, indexname, indexdef FROM pg_indexes
 WHERE tablename = 't' ORDER BY schemaname, indexname;
DROP INDEX app.t_w_idx;
-- Views and foreign keys across schemas.
CREATE VIEW app.v AS SELECT id, v FROM app.t;
SELECT * FROM app.v;
CREATE TABLE app.child (id int REFERENCES public.t (id));
INSERT INTO app.child VALUES (10);
INSERT INTO app.child VALUES (11);
-- The catalog.
SELECT nspname, pg_get_userbyid(nspowner) FROM pg_namespace
 WHERE nspname IN ('app', 'public') ORDER BY 1;
SELECT c.relname, n.nspname, c.relkind FROM pg_class c
 JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'app' ORDER BY 1;
SELECT table_schema, table_name, table_type FROM information_schema.tables
 WHERE table_schema IN ('app', 'public') ORDER BY 1, 2;
SELECT schema_name FROM information_schema.schemata
 WHERE schema_name IN ('app', 'public') ORDER BY 1;
SELECT schemaname, tablename FROM pg_tables WHERE schemaname = 'app' ORDER BY 2;
SELECT schemaname, sequencename FROM pg_sequences ORDER BY 1, 2;
-- ALTER SCHEMA: RENAME and OWNER TO.
ALTER SCHEMA app RENAME TO application;
SELECT * FROM application.t;
SELECT * FROM application.v;
INSERT INTO application.t (v) VALUES ('c') RETURNING id;
DELETE FROM application.t WHERE v = 'c';
SELECT * FROM app.t;
ALTER SCHEMA nosuch RENAME TO x;
ALTER SCHEMA application RENAME TO public;
CREATE ROLE schema_owner;
ALTER SCHEMA application OWNER TO schema_owner;
SELECT nspname, pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = 'application';
CREATE SCHEMA owned AUTHORIZATION schema_owner;
CREATE SCHEMA AUTHORIZATION schema_owner;
SELECT nspname, pg_get_userbyid(nspowner) FROM pg_namespace
 WHERE nspname IN ('owned', 'schema_owner') ORDER BY 1;
DROP SCHEMA owned, schema_owner;
-- DROP SCHEMA: RESTRICT lists what is in it, CASCADE drops it.
DROP SCHEMA application;
DROP SCHEMA application RESTRICT;
BEGIN;
DROP SCHEMA application CASCADE;
SELECT * FROM application.t;
ROLLBACK;
SELECT * FROM application.t;
DROP SCHEMA application CASCADE;
SELECT nspname FROM pg_namespace WHERE nspname = 'application';
SELECT * FROM t;
-- CREATE SCHEMA with elements.
CREATE SCHEMA elts
    CREATE TABLE e (a int PRIMARY KEY)
    CREATE VIEW ev AS SELECT a FROM elts.e
    CREATE SEQUENCE es
    CREATE INDEX e_a_idx ON e (a);
INSERT INTO elts.e VALUES (1);
SELECT * FROM elts.ev;
CREATE SCHEMA other CREATE TABLE elts.x (a int);
DROP SCHEMA elts CASCADE;
-- A rolled-back CREATE SCHEMA leaves nothing.
BEGIN;
CREATE SCHEMA gone;
CREATE TABLE gone.t (a int);
ROLLBACK;
SELECT nspname FROM pg_namespace WHERE nspname = 'gone';
CREATE TABLE gone.t (a int);
-- GRANT ON SCHEMA.
CREATE SCHEMA granted;
GRANT USAGE ON SCHEMA granted TO schema_owner;
SELECT nspname, nspacl FROM pg_namespace WHERE nspname = 'granted';
DROP SCHEMA granted;
DROP ROLE schema_owner;
DROP TABLE t;
-- DROP SCHEMA CASCADE takes foreign keys of other schemas' tables along.
CREATE SCHEMA s9;
CREATE TABLE s9.t2 (id int PRIMARY KEY);
CREATE TABLE t9 (id int REFERENCES s9.t2 (id));
CREATE TABLE s9.t0 (id int);
DROP SCHEMA s9;
DROP SCHEMA s9 CASCADE;
INSERT INTO t9 VALUES (5);
DROP TABLE t9;
