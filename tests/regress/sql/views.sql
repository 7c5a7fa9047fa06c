-- Views: CREATE [OR REPLACE] VIEW, column lists, views over views, DROP
-- with dependents, renames under views, catalog and information_schema.
\set VERBOSITY verbose
CREATE TABLE vt (id int PRIMARY KEY, name text, qty int);
INSERT INTO vt VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', NULL);
CREATE VIEW v1 AS SELECT id, name FROM vt WHERE qty IS NOT NULL;
SELECT * FROM v1 ORDER BY id;
CREATE VIEW v2 (ident, label) AS SELECT * FROM v1 WHERE id > 1;
SELECT * FROM v2;
SELECT v.label, t.qty FROM v2 v JOIN vt t ON t.id = v.ident;
CREATE VIEW vstar AS SELECT * FROM vt;
ALTER TABLE vt ADD COLUMN extra int DEFAULT 5;
SELECT * FROM vstar ORDER BY id;
CREATE VIEW v1 AS SELECT 1;
CREATE OR REPLACE VIEW v1 AS SELECT id FROM vt;
CREATE OR REPLACE VIEW v1 AS SELECT id, qty AS name FROM vt;
CREATE OR REPLACE VIEW v1 AS SELECT id, name, qty FROM vt;
SELECT * FROM v1 ORDER BY id;
CREATE VIEW v3 (a, b, c) AS SELECT 1, 2;
CREATE VIEW v4 AS SELECT 1 AS x, 2 AS x;
WITH v1 AS (SELECT 42 AS id) SELECT * FROM v2;
DROP TABLE vt;
DROP TABLE v1;
DROP VIEW vt;
DROP VIEW v1;
DROP VIEW nosuch;
DROP VIEW IF EXISTS nosuch;
ALTER TABLE vt RENAME COLUMN name TO title;
SELECT * FROM v2;
ALTER TABLE vt RENAME TO vt2;
SELECT * FROM v1 ORDER BY id;
CREATE VIEW vcount AS SELECT count(*) AS n FROM vt2;
BEGIN;
INSERT INTO vt2 VALUES (4, 'd', 40);
SELECT * FROM vcount;
ROLLBACK;
SELECT * FROM vcount;
CREATE VIEW vlit AS SELECT 'x' AS s, 1.5 AS n;
SELECT s, pg_typeof(s), n FROM vlit;
DROP VIEW v1 CASCADE;
DROP TABLE vt2 CASCADE;
SELECT viewname FROM pg_views WHERE schemaname = 'public' ORDER BY 1;
DROP VIEW vlit;
CREATE TABLE vb (id int, amount numeric(8,2));
CREATE VIEW vbv AS SELECT id, amount FROM vb;
SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1;
SELECT c.relname, c.relkind, a.attname, format_type(a.atttypid, a.atttypmod)
  FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
 WHERE c.relname = 'vbv' ORDER BY a.attnum;
SELECT count(*) FROM pg_rewrite WHERE ev_class = 'vbv'::regclass AND rulename = '_RETURN';
\dv
\d vbv
DROP TABLE vb CASCADE;
