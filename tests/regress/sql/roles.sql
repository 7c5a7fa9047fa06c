-- Roles: CREATE/ALTER/DROP ROLE, USER and GROUP, membership with GRANT and
-- REVOKE, what pg_roles, pg_authid, pg_user, pg_auth_members and psql's \du
-- show, regrole, and PostgreSQL's errors. (Logins are in tests/auth.rs.)
\set VERBOSITY verbose
CREATE ROLE readers;
CREATE USER app_user CONNECTION LIMIT 5 VALID UNTIL '2100-01-01 00:00:00+00' IN ROLE readers;
CREATE ROLE admin_role CREATEDB CREATEROLE NOINHERIT LOGIN;
CREATE GROUP staff USER app_user;
CREATE ROLE ops WITH SUPERUSER REPLICATION BYPASSRLS;
SELECT rolname, rolsuper, rolinherit, rolcreaterole, rolcreatedb, rolcanlogin,
       rolreplication, rolbypassrls, rolconnlimit, rolvaliduntil, rolpassword
  FROM pg_roles
 WHERE rolname IN ('readers', 'app_user', 'admin_role', 'staff', 'ops')
 ORDER BY rolname;
SELECT usename, usecreatedb, usesuper, valuntil FROM pg_user
 WHERE usename IN ('app_user', 'admin_role') ORDER BY 1;
SELECT r.rolname AS role, m.rolname AS member, m2.rolname AS grantor, a.admin_option
  FROM pg_auth_members a
  JOIN pg_roles r ON r.oid = a.roleid
  JOIN pg_roles m ON m.oid = a.member
  JOIN pg_roles m2 ON m2.oid = a.grantor
 WHERE r.rolname IN ('readers', 'staff') ORDER BY 1, 2;
\du app_user
\du staff
SELECT 'readers'::regrole, 'readers'::regrole::oid = (SELECT oid FROM pg_roles WHERE rolname = 'readers');
SELECT pg_get_userbyid((SELECT oid FROM pg_roles WHERE rolname = 'ops'));
SELECT 'nosuch'::regrole;

-- membership
GRANT readers TO admin_role WITH ADMIN OPTION;
GRANT readers TO admin_role;
GRANT staff TO readers;
GRANT readers TO staff;
GRANT readers TO readers;
REVOKE ADMIN OPTION FOR readers FROM admin_role;
SELECT admin_option FROM pg_auth_members
 WHERE roleid = 'readers'::regrole AND member = 'admin_role'::regrole;
REVOKE readers FROM admin_role;
REVOKE readers FROM admin_role;
GRANT nosuch TO staff;
GRANT readers TO nosuch;
GRANT pg_database_owner TO staff;
ALTER GROUP staff DROP USER app_user;
ALTER GROUP staff ADD USER app_user, admin_role;
SELECT m.rolname FROM pg_auth_members a JOIN pg_roles m ON m.oid = a.member
 WHERE a.roleid = 'staff'::regrole ORDER BY 1;

-- ALTER ROLE
ALTER ROLE app_user NOLOGIN CONNECTION LIMIT -1 VALID UNTIL 'infinity';
ALTER USER admin_role WITH INHERIT;
SELECT rolname, rolcanlogin, rolconnlimit, rolvaliduntil, rolinherit FROM pg_roles
 WHERE rolname IN ('app_user', 'admin_role') ORDER BY 1;
ALTER ROLE app_user RENAME TO app;
SELECT rolname FROM pg_roles WHERE rolname LIKE 'app%';
ALTER ROLE app RENAME TO readers;
ALTER ROLE app RENAME TO pg_app;
ALTER ROLE nosuch LOGIN;

-- errors
CREATE ROLE readers;
CREATE ROLE pg_mine;
CREATE ROLE bad CONNECTION LIMIT -2;
CREATE ROLE bad LOGIN NOLOGIN;
CREATE ROLE legacy SYSID 42;
CREATE ROLE nopw PASSWORD '';
SELECT rolpassword IS NULL AS no_password FROM pg_authid WHERE rolname = 'nopw';
CREATE ROLE withpw PASSWORD 'secret';
SELECT rolpassword LIKE 'SCRAM-SHA-256$4096:%' AS scram,
       (SELECT rolpassword FROM pg_roles WHERE rolname = 'withpw') AS masked
  FROM pg_authid WHERE rolname = 'withpw';
DROP ROLE nosuch;
DROP ROLE IF EXISTS nosuch, legacy;
DROP ROLE postgres;
DROP ROLE CURRENT_USER;

-- transactional: rolled back with the transaction or savepoint
BEGIN;
CREATE ROLE temp_role;
SAVEPOINT s;
DROP ROLE readers;
ROLLBACK TO s;
SELECT count(*) FROM pg_roles WHERE rolname IN ('temp_role', 'readers');
ROLLBACK;
SELECT count(*) FROM pg_roles WHERE rolname = 'temp_role';

-- dropping a role removes its memberships
DROP ROLE staff;
SELECT count(*) FROM pg_auth_members WHERE roleid NOT IN (SELECT oid FROM pg_roles)
    OR member NOT IN (SELECT oid FROM pg_roles);
DROP ROLE readers, app, admin_role, ops, nopw, withpw;
SELECT count(*) FROM pg_roles
 WHERE rolname IN ('readers', 'app', 'admin_role', 'ops', 'nopw', 'withpw', 'staff', 'legacy');

-- the current role's attributes count, not the session user's
CREATE ROLE regress_plain LOGIN;
SET ROLE regress_plain;
CREATE ROLE nope;
DROP ROLE regress_plain;
RESET ROLE;
DROP ROLE regress_plain;
