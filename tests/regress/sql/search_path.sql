-- search_path decides where unqualified names resolve and where new
-- relations go (PostgreSQL 15's namespace.c).
\set VERBOSITY verbose
SHOW search_path;
SELECT current_schema(), current_schemas(false), current_schemas(true);
CREATE SCHEMA s1;
CREATE SCHEMA s2;
CREATE TABLE t (v text);
INSERT INTO t VALUES ('public');
CREATE TABLE s1.t (v text);
INSERT INTO s1.t VALUES ('s1');
SET search_path = s1, public;
SELECT current_schema(), current_schemas(false);
SELECT * FROM t;
SELECT * FROM public.t;
SET search_path = s2, public;
SELECT * FROM t;
-- Creation goes to the first schema of the path that exists.
CREATE TABLE u (id serial PRIMARY KEY, a int);
INSERT INTO u (a) VALUES (1) RETURNING *;
SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 's2' ORDER BY 1, 2;
SELECT column_default FROM information_schema.columns
 WHERE table_name = 'u' AND column_name = 'id';
SET search_path = nosuch, s1;
SELECT current_schema();
CREATE TABLE in_s1 (a int);
SELECT schemaname FROM pg_tables WHERE tablename = 'in_s1';
SET search_path = nosuch;
SELECT current_schema(), current_schemas(true);
CREATE TABLE nowhere (a int);
SELECT * FROM t;
SET search_path = "$user", public;
CREATE SCHEMA postgres;
SELECT current_schema(), current_schemas(false);
CREATE TABLE mine (a int);
SELECT schemaname FROM pg_tables WHERE tablename = 'mine';
DROP SCHEMA postgres CASCADE;
SELECT current_schema();
-- pg_table_is_visible follows the path (psql's \dt uses it).
SET search_path = public;
SELECT c.relname, pg_table_is_visible(c.oid) FROM pg_class c
 JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname IN ('public', 's1', 's2') AND c.relkind = 'r' ORDER BY n.nspname, 1;
SET search_path = s1, public;
SELECT n.nspname, c.relname, pg_table_is_visible(c.oid) FROM pg_class c
 JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname IN ('public', 's1', 's2') AND c.relkind = 'r' ORDER BY 1, 2;
SELECT 't'::regclass::oid = 's1.t'::regclass::oid;
-- A view reads the relations its names found when it was made.
CREATE VIEW s1.vt AS SELECT v FROM t;
SET search_path = public;
SELECT * FROM s1.vt;
SET search_path = s1, public;
-- A prepared statement resolved its names when planned; a new path
-- plans it again.
PREPARE q AS SELECT v FROM t;
EXECUTE q;
SET search_path = public;
EXECUTE q;
DEALLOCATE q;
-- SET LOCAL and a rolled-back SET restore the path.
BEGIN;
SET LOCAL search_path = s1;
SELECT * FROM t;
COMMIT;
SELECT * FROM t;
BEGIN;
SET search_path = s1;
ROLLBACK;
SELECT * FROM t;
-- TEMP tables come first unless the path lists pg_temp.
CREATE TEMP TABLE t (v text);
INSERT INTO t VALUES ('temp');
SELECT * FROM t;
SET search_path = public, pg_temp;
SELECT * FROM t;
SET search_path = public;
DROP TABLE t;
SELECT * FROM t;
-- Privileges on schemas: USAGE to look into one, CREATE to make in it.
CREATE ROLE sp_user;
GRANT SELECT ON s1.t TO sp_user;
SET ROLE sp_user;
SELECT * FROM s1.t;
CREATE TABLE s1.x (a int);
RESET ROLE;
GRANT USAGE ON SCHEMA s1 TO sp_user;
SET ROLE sp_user;
SELECT * FROM s1.t;
CREATE TABLE s1.x (a int);
RESET ROLE;
GRANT CREATE ON SCHEMA s1 TO sp_user;
SET ROLE sp_user;
CREATE TABLE s1.x (a int);
RESET ROLE;
REVOKE USAGE ON SCHEMA s1 FROM sp_user;
SET ROLE sp_user;
SELECT * FROM s1.t;
RESET ROLE;
DROP SCHEMA s1 CASCADE;
DROP SCHEMA s2 CASCADE;
DROP TABLE t;
DROP ROLE sp_user;
RESET search_path;
