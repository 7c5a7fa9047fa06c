-- ALTER DEFAULT PRIVILEGES: the ACL a role's new objects start from
-- (pg_default_acl), global and IN SCHEMA.
CREATE ROLE dp_owner LOGIN;
CREATE ROLE dp_reader;
CREATE ROLE dp_writer;
GRANT CREATE ON SCHEMA public TO dp_owner;
ALTER DEFAULT PRIVILEGES FOR ROLE dp_owner GRANT SELECT ON TABLES TO dp_reader;
ALTER DEFAULT PRIVILEGES FOR ROLE dp_owner IN SCHEMA public GRANT INSERT, UPDATE ON TABLES TO dp_writer;
ALTER DEFAULT PRIVILEGES FOR ROLE dp_owner GRANT USAGE ON SEQUENCES TO dp_reader WITH GRANT OPTION;
ALTER DEFAULT PRIVILEGES FOR ROLE dp_owner REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;
ALTER DEFAULT PRIVILEGES FOR ROLE dp_owner GRANT ALL ON SCHEMAS TO dp_reader;
SELECT r.rolname, d.defaclnamespace <> 0 AS in_schema, d.defaclobjtype, d.defaclacl
  FROM pg_default_acl d JOIN pg_roles r ON r.oid = d.defaclrole ORDER BY 1, 2, 3;
\ddp
-- Errors.
ALTER DEFAULT PRIVILEGES FOR ROLE dp_owner IN SCHEMA nosuch GRANT SELECT ON TABLES TO dp_reader;
ALTER DEFAULT PRIVILEGES FOR ROLE dp_owner IN SCHEMA public GRANT USAGE ON SCHEMAS TO dp_reader;
ALTER DEFAULT PRIVILEGES FOR ROLE dp_owner GRANT EXECUTE ON TABLES TO dp_reader;
ALTER DEFAULT PRIVILEGES FOR ROLE nobody GRANT SELECT ON TABLES TO dp_reader;
-- Objects dp_owner creates start from them; the superuser's do not.
SET ROLE dp_owner;
ALTER DEFAULT PRIVILEGES FOR ROLE postgres GRANT SELECT ON TABLES TO dp_reader;
CREATE TABLE dp_t (id serial PRIMARY KEY, v text);
CREATE VIEW dp_v AS SELECT v FROM dp_t;
CREATE FUNCTION dp_f() RETURNS int LANGUAGE sql AS 'SELECT 1';
RESET ROLE;
CREATE TABLE dp_mine (a int);
SELECT c.relname, c.relacl FROM pg_class c
  WHERE c.relname IN ('dp_t', 'dp_v', 'dp_t_id_seq', 'dp_mine') ORDER BY 1;
SELECT proname, proacl FROM pg_proc WHERE proname = 'dp_f';
-- The privileges work: dp_reader reads, dp_writer writes, neither deletes.
SET ROLE dp_writer;
INSERT INTO dp_t (v) VALUES ('w');
SELECT * FROM dp_t;
RESET ROLE;
SET ROLE dp_reader;
SELECT v FROM dp_t;
DELETE FROM dp_t;
RESET ROLE;
-- A role with default privileges, or named in them, cannot be dropped.
DROP ROLE dp_reader;
DROP ROLE dp_owner;
-- Revoking back to the default removes the entry; inside a rolled-back
-- transaction nothing changes.
BEGIN;
ALTER DEFAULT PRIVILEGES FOR ROLE dp_owner REVOKE SELECT ON TABLES FROM dp_reader;
SELECT count(*) FROM pg_default_acl WHERE defaclobjtype = 'r' AND defaclnamespace = 0;
ROLLBACK;
SELECT count(*) FROM pg_default_acl WHERE defaclobjtype = 'r' AND defaclnamespace = 0;
ALTER DEFAULT PRIVILEGES FOR ROLE dp_owner REVOKE SELECT ON TABLES FROM dp_reader;
ALTER DEFAULT PRIVILEGES FOR ROLE dp_owner IN SCHEMA public REVOKE ALL ON TABLES FROM dp_writer;
ALTER DEFAULT PRIVILEGES FOR ROLE dp_owner REVOKE GRANT OPTION FOR USAGE ON SEQUENCES FROM dp_reader;
SELECT d.defaclobjtype, d.defaclacl FROM pg_default_acl d ORDER BY 1;
ALTER DEFAULT PRIVILEGES FOR ROLE dp_owner REVOKE USAGE ON SEQUENCES FROM dp_reader;
ALTER DEFAULT PRIVILEGES FOR ROLE dp_owner GRANT EXECUTE ON FUNCTIONS TO PUBLIC;
ALTER DEFAULT PRIVILEGES FOR ROLE dp_owner REVOKE ALL ON SCHEMAS FROM dp_reader;
SELECT count(*) FROM pg_default_acl;
DROP VIEW dp_v;
DROP TABLE dp_t, dp_mine;
DROP FUNCTION dp_f();
REVOKE CREATE ON SCHEMA public FROM dp_owner;
DROP ROLE dp_owner;
DROP ROLE dp_reader;
DROP ROLE dp_writer;
