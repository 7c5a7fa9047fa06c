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
