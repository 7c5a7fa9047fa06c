-- Object privileges: ownership, GRANT/REVOKE on tables, views, sequences,
-- functions and the public schema, checked as PostgreSQL 15 checks them
-- (SET ROLE / SET SESSION AUTHORIZATION switch the role), the catalog
-- columns that show them (relowner, relacl, \dp) and has_*_privilege.
\set VERBOSITY verbose
CREATE ROLE regress_alice LOGIN;
CREATE ROLE regress_bob LOGIN;
CREATE ROLE regress_readers;
GRANT regress_readers TO regress_bob;
CREATE TABLE accounts (id serial PRIMARY KEY, owner text, balance int);
INSERT INTO accounts (owner, balance) VALUES ('a', 10), ('b', 20);
CREATE VIEW rich AS SELECT owner FROM accounts WHERE balance > 15;
CREATE FUNCTION double_it(int) RETURNS int LANGUAGE sql AS 'SELECT $1 * 2';

-- nothing granted: a plain role may read nothing of postgres's
SET ROLE regress_alice;
SELECT current_user, session_user;
SELECT * FROM accounts;
INSERT INTO accounts (owner, balance) VALUES ('c', 1);
UPDATE accounts SET balance = 0;
DELETE FROM accounts;
SELECT * FROM rich;
SELECT nextval('accounts_id_seq');
SELECT double_it(2);
CREATE TABLE mine (a int);
TRUNCATE accounts;
DROP TABLE accounts;
ALTER TABLE accounts ADD COLUMN x int;
CREATE INDEX ON accounts (owner);
RESET ROLE;
SELECT current_user;

-- grants
GRANT SELECT ON accounts TO regress_alice;
GRANT INSERT, UPDATE ON TABLE accounts TO regress_readers WITH GRANT OPTION;
GRANT SELECT ON rich TO PUBLIC;
GRANT USAGE ON SEQUENCE accounts_id_seq TO regress_readers;
REVOKE EXECUTE ON FUNCTION double_it(int) FROM PUBLIC;
GRANT CREATE ON SCHEMA public TO regress_alice;
SELECT relname, relacl FROM pg_class
 WHERE relname IN ('accounts', 'rich', 'accounts_id_seq') ORDER BY 1;
SELECT proname, proacl FROM pg_proc WHERE proname = 'double_it';
SELECT nspname, nspacl FROM pg_namespace WHERE nspname = 'public';
\dp accounts

SET ROLE regress_alice;
SELECT * FROM accounts ORDER BY id;
SELECT * FROM rich;
UPDATE accounts SET balance = 1 WHERE id = 1;
SELECT double_it(2);
CREATE TABLE mine (a int);
INSERT INTO mine VALUES (1);
SELECT relname, pg_get_userbyid(relowner) FROM pg_class WHERE relname = 'mine';
GRANT SELECT ON mine TO regress_bob;
GRANT SELECT ON accounts TO regress_bob;
RESET ROLE;

SET ROLE regress_bob;
SELECT * FROM mine;
INSERT INTO accounts (owner, balance) VALUES ('bob', 5);
UPDATE accounts SET balance = balance + 1 WHERE owner = 'bob';
UPDATE accounts SET balance = 7;
GRANT INSERT ON accounts TO regress_alice;
GRANT DELETE ON accounts TO regress_alice;
DROP TABLE mine;
RESET ROLE;
SELECT relname, relacl FROM pg_class WHERE relname = 'accounts';

-- has_*_privilege
SELECT has_table_privilege('regress_alice', 'accounts', 'SELECT') AS a_sel,
       has_table_privilege('regress_alice', 'accounts', 'DELETE') AS a_del,
       has_table_privilege('regress_bob', 'accounts', 'INSERT WITH GRANT OPTION') AS b_ins_go,
       has_table_privilege('regress_bob', 'accounts', 'SELECT, DELETE') AS b_any,
       has_sequence_privilege('regress_bob', 'accounts_id_seq', 'USAGE') AS b_seq,
       has_function_privilege('regress_alice', 'double_it(int)', 'EXECUTE') AS a_fn,
       has_schema_privilege('regress_alice', 'public', 'CREATE') AS a_create,
       has_schema_privilege('regress_bob', 'public', 'CREATE') AS b_create,
       has_table_privilege('accounts', 'TRUNCATE') AS me_trunc;
SELECT has_table_privilege('regress_alice', 'accounts', 'FLY');
SELECT has_table_privilege('regress_alice', 'nosuch', 'SELECT');

-- revoke, dependent grants
REVOKE GRANT OPTION FOR INSERT ON accounts FROM regress_readers;
REVOKE GRANT OPTION FOR INSERT ON accounts FROM regress_readers CASCADE;
SELECT relacl FROM pg_class WHERE relname = 'accounts';
REVOKE ALL ON accounts FROM regress_readers;
SELECT relacl FROM pg_class WHERE relname = 'accounts';

-- ownership
ALTER TABLE accounts OWNER TO regress_alice;
SELECT relname, pg_get_userbyid(relowner), relacl FROM pg_class
 WHERE relname IN ('accounts', 'accounts_id_seq') ORDER BY 1;
SET ROLE regress_alice;
ALTER TABLE accounts ADD COLUMN note text;
ALTER TABLE accounts OWNER TO regress_bob;
RESET ROLE;
DROP ROLE regress_alice;
SET SESSION AUTHORIZATION regress_bob;
SELECT current_user, session_user;
SET ROLE regress_alice;
SET ROLE regress_readers;
SELECT current_user, session_user;
SET SESSION AUTHORIZATION regress_alice;
RESET SESSION AUTHORIZATION;
SELECT current_user, session_user;

-- invalid grants
GRANT EXECUTE ON accounts TO regress_bob;
GRANT SELECT ON nosuch TO regress_bob;
GRANT SELECT ON accounts TO nosuch;
GRANT SELECT ON SEQUENCE accounts TO regress_bob;
GRANT ALL ON SCHEMA nosuch TO regress_bob;

-- clean up
DROP VIEW rich;
DROP TABLE accounts;
DROP TABLE mine;
DROP FUNCTION double_it(int);
REVOKE CREATE ON SCHEMA public FROM regress_alice;
DROP ROLE regress_alice, regress_bob, regress_readers;
