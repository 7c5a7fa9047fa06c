-- Row-level security: ALTER TABLE ... ENABLE / FORCE ROW LEVEL SECURITY,
-- CREATE / ALTER / DROP POLICY, the catalogs (pg_policy, pg_policies,
-- pg_class.relrowsecurity, psql's \d), and enforcement: default deny,
-- permissive policies ORed, restrictive ANDed, USING filtering reads,
-- UPDATE and DELETE, WITH CHECK (or USING) checking new rows, the
-- owner, FORCE, BYPASSRLS, row_security = off, views, COPY.
\set VERBOSITY verbose
CREATE ROLE regress_rls_alice;
CREATE ROLE regress_rls_bob;
CREATE ROLE regress_rls_group;
CREATE ROLE regress_rls_bypass BYPASSRLS;
GRANT regress_rls_group TO regress_rls_bob;
CREATE ROLE regress_rls_owner;

CREATE TABLE rls_doc (id int PRIMARY KEY, author text, level int, body text);
ALTER TABLE rls_doc OWNER TO regress_rls_owner;
INSERT INTO rls_doc VALUES
  (1, 'regress_rls_alice', 1, 'alice one'),
  (2, 'regress_rls_alice', 3, 'alice secret'),
  (3, 'regress_rls_bob', 1, 'bob one'),
  (4, 'regress_rls_bob', 2, 'bob two'),
  (5, 'nobody', 1, 'orphan');
GRANT ALL ON rls_doc TO PUBLIC;

-- no policies yet and RLS off: everything visible
SET ROLE regress_rls_alice;
SELECT count(*) FROM rls_doc;
RESET ROLE;

-- enabled without policies: default deny (not for the owner)
ALTER TABLE rls_doc ENABLE ROW LEVEL SECURITY;
SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class WHERE relname = 'rls_doc';
SELECT tablename, rowsecurity FROM pg_tables WHERE tablename = 'rls_doc';
SET ROLE regress_rls_alice;
SELECT * FROM rls_doc;
UPDATE rls_doc SET level = 0;
DELETE FROM rls_doc;
INSERT INTO rls_doc VALUES (10, 'regress_rls_alice', 1, 'new');
RESET ROLE;
SET ROLE regress_rls_owner;
SELECT count(*) FROM rls_doc;
RESET ROLE;

-- policies
CREATE POLICY p_author ON rls_doc USING (author = current_user);
CREATE POLICY p_public ON rls_doc FOR SELECT USING (level = 1);
CREATE POLICY p_level ON rls_doc AS RESTRICTIVE USING (level < 3);
CREATE POLICY p_group ON rls_doc FOR UPDATE TO regress_rls_group
  USING (level = 2) WITH CHECK (level <= 2);
CREATE POLICY p_ins ON rls_doc FOR INSERT TO regress_rls_alice, regress_rls_bob
  WITH CHECK (body <> 'forbidden');
SELECT polname, polcmd, polpermissive, polroles = '{0}' AS public, pg_get_expr(polqual, polrelid) AS qual,
       pg_get_expr(polwithcheck, polrelid) AS check
  FROM pg_policy WHERE polrelid = 'rls_doc'::regclass ORDER BY polname;
SELECT * FROM pg_policies WHERE tablename = 'rls_doc' ORDER BY policyname;
\d rls_doc

-- errors
CREATE POLICY p_author ON rls_doc USING (true);
CREATE POLICY p_bad ON rls_doc FOR SELECT WITH CHECK (true);
CREATE POLICY p_bad ON rls_doc FOR DELETE WITH CHECK (true);
CREATE POLICY p_bad ON rls_doc FOR INSERT USING (true);
CREATE POLICY p_bad ON rls_doc USING (nosuch = 1);
CREATE POLICY p_bad ON rls_doc USING (count(*) > 0);
CREATE POLICY p_bad ON rls_doc TO regress_rls_nosuch USING (true);
CREATE POLICY p_bad ON rls_nosuch USING (true);
CREATE POLICY p_bad ON rls_doc TO regress_rls_alice, PUBLIC USING (false);
DROP POLICY p_bad ON rls_doc;
ALTER POLICY p_nosuch ON rls_doc USING (true);
ALTER POLICY p_public ON rls_doc WITH CHECK (true);
ALTER POLICY p_ins ON rls_doc USING (true);
ALTER POLICY p_author ON rls_doc RENAME TO p_level;
SET ROLE regress_rls_alice;
CREATE POLICY p_mine ON rls_doc USING (true);
DROP POLICY p_author ON rls_doc;
RESET ROLE;

-- reads: (p_author OR p_public) AND p_level, per role
SET ROLE regress_rls_alice;
SELECT * FROM rls_doc ORDER BY id;
SELECT count(*) FROM rls_doc WHERE body LIKE '%secret%';
SET ROLE regress_rls_bob;
SELECT * FROM rls_doc ORDER BY id;
-- a join and a subquery see the filtered rows too
SELECT d.id, o.id FROM rls_doc d JOIN rls_doc o ON o.id = d.id + 1 ORDER BY 1;
SELECT id FROM rls_doc WHERE id IN (SELECT id FROM rls_doc WHERE level = 2);
RESET ROLE;

-- UPDATE: the UPDATE policies' USING (and the SELECT ones' when it reads
-- the rows), new rows checked with WITH CHECK, else USING
SET ROLE regress_rls_bob;
UPDATE rls_doc SET body = body || ' (edited)' RETURNING id, body;
UPDATE rls_doc SET level = 2 WHERE id = 3 RETURNING id, level;
UPDATE rls_doc SET level = 3 WHERE id = 4;
UPDATE rls_doc SET author = 'regress_rls_alice' WHERE id = 3;
UPDATE rls_doc SET level = level WHERE id = 1;
SET ROLE regress_rls_alice;
UPDATE rls_doc SET level = 5 WHERE id = 1;
UPDATE rls_doc SET body = 'x' WHERE id = 2;
RESET ROLE;
SELECT * FROM rls_doc ORDER BY id;

-- DELETE: the DELETE (ALL) policies, and SELECT's when it reads
SET ROLE regress_rls_alice;
DELETE FROM rls_doc WHERE id = 3;
DELETE FROM rls_doc WHERE id = 1 RETURNING id;
RESET ROLE;
SELECT id FROM rls_doc ORDER BY id;

-- INSERT: WITH CHECK of INSERT and ALL policies (ALL's USING standing in)
SET ROLE regress_rls_alice;
INSERT INTO rls_doc VALUES (6, 'regress_rls_alice', 1, 'fine');
INSERT INTO rls_doc VALUES (7, 'regress_rls_alice', 1, 'forbidden');
INSERT INTO rls_doc VALUES (8, 'regress_rls_bob', 1, 'not mine');
INSERT INTO rls_doc VALUES (9, 'regress_rls_alice', 4, 'too high');
-- RETURNING needs the row to pass the SELECT policies too
INSERT INTO rls_doc VALUES (10, 'regress_rls_alice', 2, 'returned') RETURNING id;
SET ROLE regress_rls_group;
INSERT INTO rls_doc VALUES (11, 'regress_rls_group', 1, 'group');
RESET ROLE;
SELECT id, author FROM rls_doc ORDER BY id;

-- the owner bypasses the policies, unless FORCE
SET ROLE regress_rls_owner;
SELECT count(*) FROM rls_doc;
RESET ROLE;
ALTER TABLE rls_doc FORCE ROW LEVEL SECURITY;
SELECT relrowsecurity, relforcerowsecurity FROM pg_class WHERE relname = 'rls_doc';
SET ROLE regress_rls_owner;
SELECT count(*) FROM rls_doc;
SET row_security = off;
SELECT count(*) FROM rls_doc;
RESET row_security;
RESET ROLE;
ALTER TABLE rls_doc NO FORCE ROW LEVEL SECURITY;
SET ROLE regress_rls_owner;
SET row_security = off;
SELECT count(*) FROM rls_doc;
RESET row_security;
RESET ROLE;

-- superusers and BYPASSRLS roles are not subject to them
SELECT count(*) FROM rls_doc;
SET ROLE regress_rls_bypass;
SELECT count(*) FROM rls_doc;
SET row_security = off;
SELECT count(*) FROM rls_doc;
RESET row_security;
RESET ROLE;

-- row_security_active
SELECT row_security_active('rls_doc');
SET ROLE regress_rls_alice;
SELECT row_security_active('rls_doc');
RESET ROLE;

-- row_security = off: a query the policies would affect fails
SET ROLE regress_rls_alice;
SET row_security = off;
SELECT * FROM rls_doc;
RESET row_security;
SELECT count(*) FROM rls_doc;
RESET ROLE;

-- prepared statements follow the role
PREPARE q AS SELECT count(*) FROM rls_doc;
EXECUTE q;
SET ROLE regress_rls_bob;
EXECUTE q;
RESET ROLE;
EXECUTE q;
DEALLOCATE q;

-- a view reads its tables as its owner
CREATE VIEW rls_doc_v AS SELECT id, author FROM rls_doc;
ALTER VIEW rls_doc_v OWNER TO regress_rls_alice;
GRANT SELECT ON rls_doc_v TO PUBLIC;
SELECT * FROM rls_doc_v ORDER BY id;
SET ROLE regress_rls_bob;
SELECT * FROM rls_doc_v ORDER BY id;
RESET ROLE;
DROP VIEW rls_doc_v;

-- a policy with a subquery, and one reaching its own table
CREATE TABLE rls_acl (who text, lvl int);
INSERT INTO rls_acl VALUES ('regress_rls_bob', 3);
GRANT SELECT ON rls_acl TO PUBLIC;
CREATE POLICY p_acl ON rls_doc FOR SELECT
  USING (EXISTS (SELECT 1 FROM rls_acl WHERE who = current_user AND lvl >= rls_doc.level));
SET ROLE regress_rls_bob;
SELECT id, level FROM rls_doc ORDER BY id;
RESET ROLE;
ALTER TABLE rls_acl ENABLE ROW LEVEL SECURITY;
CREATE POLICY p_loop ON rls_acl USING (EXISTS (SELECT 1 FROM rls_doc));
SET ROLE regress_rls_bob;
SELECT id FROM rls_doc ORDER BY id;
RESET ROLE;
DROP POLICY p_loop ON rls_acl;
ALTER TABLE rls_acl DISABLE ROW LEVEL SECURITY;
DROP POLICY p_acl ON rls_doc;

-- ALTER POLICY: roles, USING, WITH CHECK, RENAME
ALTER POLICY p_public ON rls_doc TO regress_rls_alice USING (level <= 2);
ALTER POLICY p_group ON rls_doc WITH CHECK (level < 2);
ALTER POLICY p_author ON rls_doc RENAME TO p_writer;
SELECT policyname, roles, cmd, qual, with_check FROM pg_policies
 WHERE tablename = 'rls_doc' ORDER BY policyname;
SET ROLE regress_rls_bob;
SELECT id FROM rls_doc ORDER BY id;
UPDATE rls_doc SET level = 2 WHERE id = 4;
RESET ROLE;

-- INSERT ... ON CONFLICT: the proposed row passes the INSERT checks, the
-- existing one the UPDATE policies' USING, the updated one their WITH CHECK
CREATE TABLE oc (k int PRIMARY KEY, v int, who text);
GRANT ALL ON oc TO regress_rls_alice;
INSERT INTO oc VALUES (1, 1, 'regress_rls_alice'), (2, 50, 'regress_rls_alice'), (3, 1, 'other');
ALTER TABLE oc ENABLE ROW LEVEL SECURITY;
CREATE POLICY p_sel ON oc FOR SELECT USING (true);
CREATE POLICY p_ins ON oc FOR INSERT WITH CHECK (v < 100);
CREATE POLICY p_upd ON oc FOR UPDATE USING (who = current_user) WITH CHECK (v < 10);
SET ROLE regress_rls_alice;
INSERT INTO oc VALUES (4, 5, 'x') ON CONFLICT (k) DO UPDATE SET v = excluded.v RETURNING *;
INSERT INTO oc VALUES (1, 5, 'x') ON CONFLICT (k) DO UPDATE SET v = excluded.v RETURNING *;
INSERT INTO oc VALUES (1, 50, 'x') ON CONFLICT (k) DO UPDATE SET v = excluded.v RETURNING *;
INSERT INTO oc VALUES (1, 500, 'x') ON CONFLICT (k) DO UPDATE SET v = 2 RETURNING *;
INSERT INTO oc VALUES (3, 5, 'x') ON CONFLICT (k) DO UPDATE SET v = excluded.v RETURNING *;
INSERT INTO oc VALUES (3, 5, 'x') ON CONFLICT (k) DO UPDATE SET v = excluded.v WHERE oc.v > 100 RETURNING *;
INSERT INTO oc VALUES (3, 5, 'x') ON CONFLICT (k) DO NOTHING;
RESET ROLE;
SELECT * FROM oc ORDER BY k;
DROP TABLE oc;

-- MERGE: the target read through the SELECT policies, its rows checked
-- against the UPDATE / DELETE policies' USING, new rows against WITH CHECK
CREATE TABLE mg (k int PRIMARY KEY, v int, who text);
GRANT ALL ON mg TO regress_rls_alice;
INSERT INTO mg VALUES (1, 1, 'regress_rls_alice'), (2, 50, 'regress_rls_alice'), (3, 1, 'other'), (4, 7, 'hidden');
ALTER TABLE mg ENABLE ROW LEVEL SECURITY;
CREATE POLICY p_sel ON mg FOR SELECT USING (who <> 'hidden');
CREATE POLICY p_ins ON mg FOR INSERT WITH CHECK (v < 100);
CREATE POLICY p_upd ON mg FOR UPDATE USING (who = current_user) WITH CHECK (v < 10);
CREATE POLICY p_del ON mg FOR DELETE USING (v = 50);
SET ROLE regress_rls_alice;
MERGE INTO mg USING (VALUES (1, 5)) s(k, v) ON mg.k = s.k WHEN MATCHED THEN UPDATE SET v = s.v;
MERGE INTO mg USING (VALUES (1, 50)) s(k, v) ON mg.k = s.k WHEN MATCHED THEN UPDATE SET v = s.v;
MERGE INTO mg USING (VALUES (3, 5)) s(k, v) ON mg.k = s.k WHEN MATCHED THEN UPDATE SET v = s.v;
MERGE INTO mg USING (VALUES (3, 5)) s(k, v) ON mg.k = s.k WHEN MATCHED THEN DELETE;
MERGE INTO mg USING (VALUES (2, 5)) s(k, v) ON mg.k = s.k WHEN MATCHED THEN DELETE;
MERGE INTO mg USING (VALUES (4, 5)) s(k, v) ON mg.k = s.k WHEN MATCHED THEN UPDATE SET v = 1 WHEN NOT MATCHED THEN INSERT VALUES (s.k + 100, s.v, 'new');
MERGE INTO mg USING (VALUES (9, 500)) s(k, v) ON mg.k = s.k WHEN NOT MATCHED THEN INSERT VALUES (s.k, s.v, 'new');
MERGE INTO mg USING (VALUES (9, 5)) s(k, v) ON mg.k = s.k WHEN NOT MATCHED THEN INSERT VALUES (s.k, s.v, 'new');
RESET ROLE;
SELECT * FROM mg ORDER BY k;
DROP TABLE mg;

-- partitions: read and written through the parent, its policies apply
-- (the partition's own when it is named)
CREATE TABLE pt (k int, v int, who text) PARTITION BY RANGE (k);
CREATE TABLE pt1 PARTITION OF pt FOR VALUES FROM (0) TO (10);
CREATE TABLE pt2 PARTITION OF pt FOR VALUES FROM (10) TO (20);
GRANT ALL ON pt, pt1, pt2 TO regress_rls_alice;
INSERT INTO pt VALUES (1, 1, 'regress_rls_alice'), (11, 2, 'other'), (2, 3, 'other');
ALTER TABLE pt ENABLE ROW LEVEL SECURITY;
CREATE POLICY p_pt ON pt USING (who = current_user) WITH CHECK (v < 10);
ALTER TABLE pt1 ENABLE ROW LEVEL SECURITY;
CREATE POLICY p_pt1 ON pt1 USING (v > 100);
SET ROLE regress_rls_alice;
SELECT * FROM pt ORDER BY k;
SELECT * FROM pt1 ORDER BY k;
INSERT INTO pt VALUES (3, 5, 'x') RETURNING *;
INSERT INTO pt VALUES (4, 50, 'x');
INSERT INTO pt1 VALUES (5, 500, 'x');
INSERT INTO pt1 VALUES (5, 5, 'x');
UPDATE pt SET v = v + 1 RETURNING *;
DELETE FROM pt WHERE k = 3;
RESET ROLE;
SELECT * FROM pt ORDER BY k;
DROP TABLE pt;

-- foreign key actions see the rows the policies hide
CREATE TABLE rls_parent (a int PRIMARY KEY);
CREATE TABLE rls_child (a int REFERENCES rls_parent ON DELETE CASCADE ON UPDATE CASCADE);
INSERT INTO rls_parent VALUES (10), (20);
INSERT INTO rls_child VALUES (10), (20);
CREATE POLICY p_none ON rls_child USING (false);
ALTER TABLE rls_child ENABLE ROW LEVEL SECURITY;
ALTER TABLE rls_child FORCE ROW LEVEL SECURITY;
ALTER TABLE rls_child OWNER TO regress_rls_alice;
ALTER TABLE rls_parent OWNER TO regress_rls_alice;
SET ROLE regress_rls_alice;
TABLE rls_child;
UPDATE rls_parent SET a = a + 5 WHERE a = 10;
DELETE FROM rls_parent WHERE a = 20;
RESET ROLE;
TABLE rls_child;
DROP TABLE rls_child, rls_parent;

-- SELECT ... FOR UPDATE / SHARE: the UPDATE policies too
CREATE TABLE fu (k int, v int);
GRANT ALL ON fu TO regress_rls_alice;
INSERT INTO fu VALUES (1, 1), (2, 2), (3, 3);
ALTER TABLE fu ENABLE ROW LEVEL SECURITY;
CREATE POLICY p_sel ON fu FOR SELECT USING (k < 3);
CREATE POLICY p_upd ON fu FOR UPDATE USING (k > 1);
SET ROLE regress_rls_alice;
SELECT * FROM fu ORDER BY k;
SELECT * FROM fu ORDER BY k FOR UPDATE;
SELECT * FROM fu ORDER BY k FOR SHARE;
RESET ROLE;
DROP TABLE fu;

-- columns the policies read: RENAME follows, DROP needs CASCADE
CREATE TABLE rls_dc (a int, b int);
CREATE POLICY pd ON rls_dc USING (b > 0);
CREATE POLICY pe ON rls_dc USING (true) WITH CHECK (b < 5);
CREATE POLICY pf ON rls_dc USING (a > 0);
ALTER TABLE rls_dc RENAME COLUMN a TO z;
SELECT polname, pg_get_expr(polqual, polrelid) FROM pg_policy WHERE polrelid = 'rls_dc'::regclass ORDER BY 1;
ALTER TABLE rls_dc DROP COLUMN b;
ALTER TABLE rls_dc DROP COLUMN b CASCADE;
ALTER TABLE rls_dc DROP COLUMN z CASCADE;
SELECT polname FROM pg_policy WHERE polrelid = 'rls_dc'::regclass;
DROP TABLE rls_dc;

-- COPY: TO applies the SELECT policies, FROM is refused
CREATE TABLE rls_copy (k int, who text);
INSERT INTO rls_copy VALUES (1, 'regress_rls_alice'), (2, 'regress_rls_bob'), (3, 'regress_rls_bob');
GRANT ALL ON rls_copy TO PUBLIC;
ALTER TABLE rls_copy ENABLE ROW LEVEL SECURITY;
CREATE POLICY p_copy ON rls_copy USING (who = current_user);
SET ROLE regress_rls_bob;
COPY rls_copy TO STDOUT;
COPY rls_copy (k) TO STDOUT;
COPY rls_copy (k) FROM STDIN;
RESET ROLE;
COPY rls_copy TO STDOUT;
DROP TABLE rls_copy;

-- DROP POLICY IF EXISTS, DISABLE, and DROP TABLE takes its policies
DROP POLICY IF EXISTS p_nosuch ON rls_doc;
DROP POLICY IF EXISTS p_x ON rls_nosuch;
DROP POLICY p_nosuch ON rls_doc;
DROP POLICY p_writer ON rls_doc CASCADE;
DROP POLICY p_public ON rls_doc RESTRICT;
ALTER TABLE rls_doc DISABLE ROW LEVEL SECURITY;
SET ROLE regress_rls_alice;
SELECT count(*) FROM rls_doc;
RESET ROLE;
SELECT count(*) FROM pg_policy WHERE polrelid = 'rls_doc'::regclass;
-- a role a policy names cannot be dropped
DROP ROLE regress_rls_group;
DROP TABLE rls_doc;
SELECT count(*) FROM pg_policies;

-- clean up
DROP TABLE rls_acl;
DROP ROLE regress_rls_alice;
DROP ROLE regress_rls_bob;
DROP ROLE regress_rls_group;
DROP ROLE regress_rls_bypass;
DROP ROLE regress_rls_owner;
