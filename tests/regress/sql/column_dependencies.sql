-- Views depend on the table columns they read (PostgreSQL's pg_depend):
-- DROP COLUMN and ALTER COLUMN TYPE of one are refused, CASCADE drops the
-- views; DROP DOMAIN ... CASCADE drops the views reading the columns it
-- drops.
CREATE TABLE users (id int, seq int, moredrop int, extra text);
INSERT INTO users VALUES (1, 10, 100, 'x'), (2, 20, 200, 'y');
-- SELECT * is expanded when the view is made: a later column is no
-- dependency.
CREATE VIEW usersview AS SELECT * FROM users;
ALTER TABLE users ADD COLUMN later int;
ALTER TABLE users DROP COLUMN later;
ALTER TABLE users DROP COLUMN moredrop;
ALTER TABLE users ALTER COLUMN seq TYPE numeric;
SELECT * FROM usersview ORDER BY id;
-- Views over the view are listed and dropped with it.
CREATE VIEW overview AS SELECT id FROM usersview;
CREATE VIEW seqview AS SELECT seq FROM users WHERE id > 0;
ALTER TABLE users DROP COLUMN moredrop;
ALTER TABLE users DROP COLUMN seq;
ALTER TABLE users DROP COLUMN moredrop CASCADE;
SELECT relname FROM pg_class WHERE relname IN ('usersview', 'overview', 'seqview') ORDER BY 1;
SELECT * FROM users ORDER BY id;
-- A column no view reads goes; one seqview reads does not.
ALTER TABLE users DROP COLUMN extra;
ALTER TABLE users ALTER COLUMN id TYPE bigint;
ALTER TABLE users ALTER COLUMN seq TYPE numeric;
-- A column of the same name in another table the view reads is not the
-- one it depends on.
CREATE TABLE other (seq int, z int);
CREATE VIEW joined AS SELECT users.id, other.z FROM users, other;
ALTER TABLE other DROP COLUMN seq;
ALTER TABLE users ALTER COLUMN id TYPE int;
ALTER TABLE other DROP COLUMN z;
-- Renamed columns stay dependencies.
ALTER TABLE users RENAME COLUMN seq TO seq2;
ALTER TABLE users DROP COLUMN seq2;
BEGIN;
ALTER TABLE users DROP COLUMN seq2 CASCADE;
ROLLBACK;
SELECT * FROM seqview;
-- Counting rows reads no column; a whole-row reference depends on the
-- table, not its columns.
CREATE TABLE counted (a int, b int);
CREATE VIEW countview AS SELECT count(*) FROM counted;
ALTER TABLE counted DROP COLUMN a;
SELECT * FROM countview;
-- Several views on one column, in creation order.
CREATE TABLE t (a int, b int, c int);
CREATE VIEW v1 AS SELECT a, b FROM t;
CREATE VIEW v2 AS SELECT a FROM v1;
CREATE VIEW v3 AS SELECT c FROM t;
CREATE VIEW v4 AS SELECT t.b, x.b AS xb FROM t JOIN t AS x USING (a);
ALTER TABLE t DROP COLUMN b;
ALTER TABLE t DROP COLUMN a;
ALTER TABLE t DROP COLUMN c;
ALTER TABLE t DROP COLUMN b CASCADE;
ALTER TABLE t DROP COLUMN c CASCADE;
\d t
-- DROP DOMAIN: the columns of the domain, the views reading them and the
-- views over those.
CREATE DOMAIN intdom1 AS int;
CREATE TABLE ddtest1 (f1 intdom1, f2 int);
CREATE VIEW ddv AS SELECT f1, f2 FROM ddtest1;
CREATE VIEW ddv3 AS SELECT f2 FROM ddv;
CREATE VIEW ddv4 AS SELECT f2 FROM ddtest1;
DROP DOMAIN intdom1;
DROP DOMAIN intdom1 CASCADE;
\d ddtest1
SELECT relname FROM pg_class WHERE relname LIKE 'ddv%' ORDER BY 1;
SELECT * FROM ddv4;
-- Materialized views too, and the views over them.
CREATE TABLE mt (a int, b int, c int);
INSERT INTO mt VALUES (1, 2, 3);
CREATE MATERIALIZED VIEW mv AS SELECT a, b FROM mt;
CREATE VIEW mvv AS SELECT a FROM mv;
ALTER TABLE mt DROP COLUMN b;
ALTER TABLE mt DROP COLUMN c;
ALTER TABLE mt DROP COLUMN b CASCADE;
SELECT relname FROM pg_class WHERE relname IN ('mv', 'mvv');
SELECT * FROM mt;
-- A function returning the table's row type, called in FROM: the view
-- depends on the columns of the row type (here all of them, by *).
CREATE TABLE users2 (userid text, seq int, moredrop int);
INSERT INTO users2 VALUES ('id', 1, 11);
CREATE FUNCTION get_users2() RETURNS SETOF users2 LANGUAGE sql STABLE
  AS 'SELECT * FROM users2 ORDER BY userid';
CREATE VIEW users2view AS
  SELECT * FROM ROWS FROM (get_users2(), generate_series(10, 11)) WITH ORDINALITY;
CREATE VIEW users2plain AS SELECT * FROM get_users2();
SELECT * FROM users2view;
ALTER TABLE users2 DROP COLUMN moredrop;
ALTER TABLE users2 ALTER COLUMN seq TYPE numeric;
ALTER TABLE users2 DROP COLUMN moredrop CASCADE;
SELECT * FROM users2;
-- Functions taking or returning a domain go with it.
CREATE DOMAIN rdom AS int;
CREATE FUNCTION fret() RETURNS rdom LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION farg(int, rdom) RETURNS int LANGUAGE sql AS 'SELECT 1';
DROP DOMAIN rdom;
DROP DOMAIN rdom CASCADE;
SELECT proname FROM pg_proc WHERE proname IN ('fret', 'farg');
-- A column of another table holding a table's row type: its columns'
-- types stay.
CREATE TABLE at_tab1 (a int, b text);
CREATE TABLE at_tab2 (x int, y at_tab1);
INSERT INTO at_tab2 VALUES (1, ROW(1, '42'));
ALTER TABLE at_tab1 ALTER COLUMN b TYPE varchar;
ALTER TABLE at_tab1 ALTER COLUMN a TYPE int;
SELECT * FROM at_tab2;
DROP TABLE at_tab2;
ALTER TABLE at_tab1 ALTER COLUMN b TYPE varchar;
-- Foreign keys of other tables, triggers and rules reading the column.
CREATE TABLE parent (a int PRIMARY KEY, b int);
CREATE TABLE child (c int REFERENCES parent (a));
ALTER TABLE parent DROP COLUMN a;
ALTER TABLE parent DROP COLUMN a CASCADE;
\d child
INSERT INTO child VALUES (42);
CREATE TABLE selfref (id int PRIMARY KEY, up int REFERENCES selfref (id), z int);
ALTER TABLE selfref DROP COLUMN id;
ALTER TABLE selfref DROP COLUMN up;
ALTER TABLE selfref DROP COLUMN id;
CREATE TABLE tr (a int, b int, c int);
CREATE FUNCTION trf() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN new; END';
CREATE TRIGGER trg BEFORE UPDATE OF b ON tr FOR EACH ROW EXECUTE FUNCTION trf();
CREATE TRIGGER trg2 BEFORE UPDATE ON tr FOR EACH ROW WHEN (new.a > 0) EXECUTE FUNCTION trf();
CREATE TRIGGER trg3 BEFORE INSERT ON tr FOR EACH ROW EXECUTE FUNCTION trf();
ALTER TABLE tr DROP COLUMN b;
ALTER TABLE tr DROP COLUMN a;
ALTER TABLE tr DROP COLUMN c;
ALTER TABLE tr DROP COLUMN b CASCADE;
ALTER TABLE tr DROP COLUMN a CASCADE;
SELECT tgname FROM pg_trigger WHERE tgrelid = 'tr'::regclass ORDER BY 1;
CREATE TABLE rt (a int, b int);
CREATE TABLE rlog (a int);
CREATE RULE rr AS ON INSERT TO rt DO ALSO INSERT INTO rlog VALUES (new.b);
ALTER TABLE rt DROP COLUMN a;
ALTER TABLE rt DROP COLUMN b;
ALTER TABLE rt DROP COLUMN b CASCADE;
SELECT rulename FROM pg_rules WHERE tablename = 'rt';
-- Several kinds at once, in creation order.
CREATE TABLE mix (a int PRIMARY KEY, b int);
CREATE VIEW mixv AS SELECT a FROM mix;
CREATE TABLE mixchild (m int REFERENCES mix (a));
CREATE TRIGGER mixtrg BEFORE UPDATE OF a ON mix FOR EACH ROW EXECUTE FUNCTION trf();
ALTER TABLE mix DROP COLUMN a;
ALTER TABLE mix DROP COLUMN a CASCADE;
-- A view casting to a domain depends on it.
CREATE DOMAIN vdom AS int;
CREATE VIEW dv AS SELECT 1::vdom AS c;
CREATE VIEW dv2 AS SELECT c FROM dv;
DROP DOMAIN vdom;
SELECT * FROM dv2;
DROP DOMAIN vdom CASCADE;
SELECT relname FROM pg_class WHERE relname IN ('dv', 'dv2');
-- Through a function returning the row type, naming some columns: those.
CREATE TABLE tt14t (f1 text, f2 text, f3 text, f4 text);
INSERT INTO tt14t VALUES ('foo', 'bar', 'baz', '42');
CREATE FUNCTION tt14f() RETURNS SETOF tt14t LANGUAGE sql AS 'SELECT * FROM tt14t';
CREATE VIEW tt14v AS SELECT t.f1, t.f4 FROM tt14f() t;
ALTER TABLE tt14t DROP COLUMN f4;
ALTER TABLE tt14t ALTER COLUMN f1 TYPE varchar;
ALTER TABLE tt14t DROP COLUMN f3;
SELECT * FROM tt14v;
-- Another table's column of the row type keeps ADD COLUMN's 42P16 first.
CREATE TABLE recur1 (f1 int);
CREATE TABLE recur2 (f1 int, f2 recur1);
ALTER TABLE recur1 ADD COLUMN f2 recur2;
