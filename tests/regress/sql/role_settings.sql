-- ALTER ROLE / ALTER DATABASE ... SET: session defaults stored in the
-- catalog (pg_db_role_setting), applied when a session starts.
CREATE ROLE rs_app LOGIN;
CREATE ROLE rs_other LOGIN;
ALTER ROLE rs_app SET timezone TO 'UTC';
ALTER ROLE rs_app SET search_path = app, 'Mixed Case', public;
ALTER ROLE rs_app SET statement_timeout = '5s';
ALTER ROLE rs_app SET application_name TO 'rs app';
-- Set again: replaced in place.
ALTER ROLE rs_app SET statement_timeout = 7000;
ALTER ROLE rs_app IN DATABASE postgres SET lock_timeout = '2s';
ALTER DATABASE postgres SET extra_float_digits = 0;
SELECT r.rolname, s.setdatabase <> 0 AS in_db, s.setconfig
  FROM pg_db_role_setting s LEFT JOIN pg_roles r ON r.oid = s.setrole
  ORDER BY r.rolname NULLS FIRST, in_db;
SELECT rolname, rolconfig FROM pg_roles WHERE rolname LIKE 'rs\_%' ORDER BY 1;
SELECT usename, useconfig FROM pg_user WHERE usename LIKE 'rs\_%' ORDER BY 1;
-- Checked when set, as PostgreSQL does.
ALTER ROLE rs_app SET no_such_setting = 1;
ALTER ROLE rs_app SET statement_timeout = 'soon';
ALTER ROLE rs_app SET server_version = '9';
ALTER ROLE nobody_here SET timezone = 'UTC';
ALTER DATABASE nodb SET timezone = 'UTC';
ALTER ROLE rs_app IN DATABASE nodb SET timezone = 'UTC';
-- A new session as rs_app gets them; RESET goes back to them.
\c - rs_app
SHOW timezone;
SHOW search_path;
SHOW statement_timeout;
SHOW lock_timeout;
SHOW application_name;
SHOW extra_float_digits;
SET timezone = 'America/New_York';
RESET timezone;
SHOW timezone;
-- A role may change its own defaults, not another's.
ALTER ROLE rs_app SET idle_in_transaction_session_timeout = '1min';
ALTER ROLE rs_other SET timezone = 'UTC';
ALTER ROLE ALL SET timezone = 'UTC';
ALTER DATABASE postgres SET timezone = 'UTC';
\c - postgres
-- RESET one, RESET ALL, SET TO DEFAULT, and inside a rolled-back transaction.
ALTER ROLE rs_app RESET application_name;
ALTER ROLE rs_app SET idle_in_transaction_session_timeout TO DEFAULT;
BEGIN;
ALTER ROLE rs_app RESET ALL;
SELECT count(*) FROM pg_db_role_setting WHERE setrole = (SELECT oid FROM pg_roles WHERE rolname = 'rs_app') AND setdatabase = 0;
ROLLBACK;
SELECT setconfig FROM pg_db_role_setting
  WHERE setrole = (SELECT oid FROM pg_roles WHERE rolname = 'rs_app') AND setdatabase = 0;
ALTER ROLE rs_app RESET ALL;
SELECT count(*) FROM pg_db_role_setting
  WHERE setrole = (SELECT oid FROM pg_roles WHERE rolname = 'rs_app') AND setdatabase = 0;
-- SET FROM CURRENT stores the session's value.
SET lock_timeout = '3s';
ALTER ROLE rs_other SET lock_timeout FROM CURRENT;
SELECT setconfig FROM pg_db_role_setting
  WHERE setrole = (SELECT oid FROM pg_roles WHERE rolname = 'rs_other');
-- DROP ROLE takes its settings with it.
DROP ROLE rs_other;
SELECT count(*) FROM pg_db_role_setting s
  WHERE NOT EXISTS (SELECT 1 FROM pg_roles r WHERE r.oid = s.setrole) AND s.setrole <> 0;
ALTER ROLE rs_app IN DATABASE postgres RESET ALL;
ALTER DATABASE postgres RESET ALL;
SELECT count(*) FROM pg_db_role_setting;
DROP ROLE rs_app;
