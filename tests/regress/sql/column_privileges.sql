-- Column privileges: GRANT / REVOKE { SELECT | INSERT | UPDATE |
-- REFERENCES } (col, ...) stored as pg_attribute.attacl, the checks a
-- statement passes on them when the table privilege is missing (every
-- column it reads, inserts, updates), has_column_privilege and
-- has_any_column_privilege, \dp, and the roles' dependencies on them.
\set VERBOSITY verbose
CREATE ROLE regress_cp_alice;
CREATE ROLE regress_cp_bob;
CREATE ROLE regress_cp_group;
GRANT regress_cp_group TO regress_cp_bob;
CREATE TABLE cp_t (id int PRIMARY KEY, name text, secret text, n int);
INSERT INTO cp_t VALUES (1, 'one', 's1', 10), (2, 'two', 's2', 20);
CREATE TABLE cp_other (id int, extra int);
INSERT INTO cp_other VALUES (1, 100);

GRANT SELECT (id, name), INSERT (id, name), UPDATE (n) ON cp_t TO regress_cp_alice;
GRANT REFERENCES (id) ON cp_t TO regress_cp_alice;
GRANT SELECT (id, n) ON cp_t TO regress_cp_group;
GRANT ALL (secret) ON cp_t TO regress_cp_bob WITH GRANT OPTION;
SELECT attname, attacl FROM pg_attribute
 WHERE attrelid = 'cp_t'::regclass AND attnum > 0 ORDER BY attnum;
\dp cp_t

-- reads: every column named, in any clause
SET ROLE regress_cp_alice;
SELECT id, name FROM cp_t ORDER BY id;
SELECT name FROM cp_t WHERE id = 2;
SELECT count(*) FROM cp_t;
SELECT count(id) FROM cp_t;
SELECT * FROM cp_t;
SELECT cp_t FROM cp_t;
SELECT cp_t.* FROM cp_t;
SELECT id FROM cp_t WHERE secret = 's1';
SELECT id FROM cp_t ORDER BY n;
SELECT id, (SELECT max(n) FROM cp_t) FROM cp_t;
SELECT x.id FROM cp_t x JOIN cp_t y USING (id) ORDER BY 1;
SELECT 1 FROM cp_t NATURAL JOIN cp_other;
SELECT ctid FROM cp_t;
-- writes: INSERT and UPDATE on each column written
INSERT INTO cp_t (id, name) VALUES (3, 'three');
INSERT INTO cp_t (id, name, n) VALUES (4, 'four', 4);
INSERT INTO cp_t VALUES (5);
INSERT INTO cp_t VALUES (6, 'six', 'x');
INSERT INTO cp_t (id) VALUES (3) ON CONFLICT (id) DO NOTHING;
INSERT INTO cp_t (id) VALUES (3) ON CONFLICT (id) DO UPDATE SET n = 1;
INSERT INTO cp_t (id) VALUES (3) ON CONFLICT (id) DO UPDATE SET n = excluded.id;
INSERT INTO cp_t (id) VALUES (3) ON CONFLICT (id) DO UPDATE SET n = length(excluded.secret);
INSERT INTO cp_t (id) VALUES (3) ON CONFLICT ON CONSTRAINT cp_t_pkey DO NOTHING;
INSERT INTO cp_t (name) VALUES ('x') ON CONFLICT (name) DO NOTHING;
INSERT INTO cp_t (id) VALUES (7) RETURNING id, name;
INSERT INTO cp_t (id) VALUES (8) RETURNING secret;
UPDATE cp_t SET n = 5;
UPDATE cp_t SET n = 6 WHERE id = 1 RETURNING id, name;
UPDATE cp_t SET n = n + 1 WHERE id = 1;
UPDATE cp_t SET name = 'x';
UPDATE cp_t SET n = 7 WHERE secret = 's1';
DELETE FROM cp_t WHERE id = 1;
RESET ROLE;
SELECT * FROM cp_t ORDER BY id;

-- a member holds its group's column privileges
SET ROLE regress_cp_bob;
SELECT id, n FROM cp_t WHERE id = 1;
SELECT secret FROM cp_t WHERE id = 1;
SELECT id, secret FROM cp_t WHERE id = 1;
-- granting what it holds WITH GRANT OPTION
GRANT SELECT (secret) ON cp_t TO regress_cp_alice;
GRANT SELECT (name) ON cp_t TO regress_cp_alice;
RESET ROLE;
SELECT attname, attacl FROM pg_attribute
 WHERE attrelid = 'cp_t'::regclass AND attname = 'secret';

-- has_column_privilege and has_any_column_privilege
SELECT has_column_privilege('regress_cp_alice', 'cp_t', 'name', 'SELECT'),
       has_column_privilege('regress_cp_alice', 'cp_t', 'n', 'SELECT'),
       has_column_privilege('regress_cp_alice', 'cp_t', 'n', 'UPDATE'),
       has_column_privilege('regress_cp_alice', 'cp_t', 'id', 'REFERENCES'),
       has_column_privilege('regress_cp_alice', 'cp_t'::regclass, 2::int2, 'INSERT'),
       has_column_privilege('regress_cp_alice', 'cp_t', 99::int2, 'SELECT');
SELECT has_column_privilege('regress_cp_bob', 'cp_t', 'secret', 'SELECT WITH GRANT OPTION'),
       has_column_privilege('regress_cp_bob', 'cp_t', 'n', 'SELECT'),
       has_column_privilege('regress_cp_bob', 'cp_t', 'name', 'SELECT, UPDATE'),
       has_column_privilege('cp_t', 'secret', 'SELECT');
SELECT has_any_column_privilege('regress_cp_alice', 'cp_t', 'SELECT'),
       has_any_column_privilege('regress_cp_alice', 'cp_t', 'INSERT'),
       has_any_column_privilege('regress_cp_group', 'cp_t', 'UPDATE'),
       has_any_column_privilege('regress_cp_alice', 'cp_other', 'SELECT');
SELECT has_column_privilege('regress_cp_alice', 'cp_t', 'nosuch', 'SELECT');
SELECT has_column_privilege('regress_cp_alice', 'cp_t', 'id', 'DELETE');
SELECT has_any_column_privilege('regress_cp_alice', 'cp_t', 'TRUNCATE');
SELECT has_column_privilege('pg_class', 'relname', 'SELECT'),
       has_column_privilege('pg_class', 999::int2, 'SELECT');
SELECT has_column_privilege('pg_class', 'nosuch', 'SELECT');

-- COPY with and without a column list
CREATE TABLE cp_copy (a int, b int, c int);
INSERT INTO cp_copy VALUES (1, 2, 3);
GRANT SELECT (a, b), INSERT (a, b) ON cp_copy TO regress_cp_alice;
SET ROLE regress_cp_alice;
COPY cp_copy (a, b) TO stdout;
COPY cp_copy TO stdout;
COPY cp_copy (a, c) TO stdout;
COPY cp_copy (b, a) FROM stdin;
5	4
\.
COPY cp_copy FROM stdin;
COPY cp_copy (c) FROM stdin;
SELECT 1 FROM cp_copy;
SELECT count(*) FROM cp_other;
RESET ROLE;
SELECT * FROM cp_copy ORDER BY a;
DROP TABLE cp_copy;

-- views: the view's own columns, and the owner's rights on the table
CREATE VIEW cp_v AS SELECT id, name, secret FROM cp_t;
GRANT SELECT (id, name) ON cp_v TO regress_cp_alice;
SET ROLE regress_cp_alice;
SELECT id, name FROM cp_v WHERE id = 2;
SELECT secret FROM cp_v;
RESET ROLE;
\dp cp_v

-- invalid grants
GRANT SELECT (nosuch) ON cp_t TO regress_cp_alice;
GRANT DELETE (id) ON cp_t TO regress_cp_alice;
GRANT SELECT (id) ON FUNCTION now() TO regress_cp_alice;
ALTER DEFAULT PRIVILEGES GRANT SELECT (id) ON TABLES TO regress_cp_alice;

-- REVOKE: column by column, and the table privilege takes the columns'
REVOKE SELECT (name) ON cp_t FROM regress_cp_alice;
REVOKE SELECT (secret) ON cp_t FROM regress_cp_bob;
REVOKE SELECT (secret) ON cp_t FROM regress_cp_bob CASCADE;
REVOKE INSERT ON cp_t FROM regress_cp_alice;
REVOKE ALL (secret) ON cp_t FROM regress_cp_bob;
\dp cp_t

-- dropping: a role with column privileges, a column
DROP ROLE regress_cp_alice;
ALTER TABLE cp_t DROP COLUMN n;
SELECT has_column_privilege('cp_t', '........pg.dropped.4........', 'SELECT'),
       has_column_privilege('cp_t', 4::int2, 'SELECT');
DROP ROLE regress_cp_group;
\dp cp_t
REVOKE ALL ON cp_t FROM regress_cp_alice;
REVOKE ALL ON cp_v FROM regress_cp_alice;
DROP ROLE regress_cp_alice;

-- ownership moves the owner's column grants with it
GRANT UPDATE (name) ON cp_t TO regress_cp_bob;
ALTER TABLE cp_t OWNER TO regress_cp_bob;
SELECT attname, attacl FROM pg_attribute
 WHERE attrelid = 'cp_t'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum;

-- clean up
DROP VIEW cp_v;
DROP TABLE cp_t, cp_other;
DROP ROLE regress_cp_bob;
