--
-- Data-modifying statements in WITH (PostgreSQL 15 docs 7.8.4): INSERT,
-- UPDATE and DELETE ... RETURNING as WITH items, several of them, items
-- without RETURNING, WITH on top of INSERT/UPDATE/DELETE. Each item runs
-- exactly once to completion; the items and the main query share one
-- snapshot (RETURNING is the only way to see the changed rows); items are
-- allowed only at the top level; an error anywhere undoes them all.
--
\set QUIET off
\set VERBOSITY verbose
CREATE TABLE t (a int PRIMARY KEY, b text);
INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three'), (4, 'four');
CREATE TABLE archive (a int, b text);

-- the basic forms
WITH d AS (DELETE FROM t WHERE a > 2 RETURNING *) SELECT * FROM d ORDER BY a;
SELECT * FROM t ORDER BY a;
WITH moved AS (DELETE FROM t WHERE a = 1 RETURNING *) INSERT INTO archive SELECT * FROM moved;
SELECT * FROM archive ORDER BY a;
SELECT * FROM t ORDER BY a;
WITH i AS (INSERT INTO t VALUES (1, 'one'), (3, 'three') RETURNING a, upper(b) AS up) SELECT * FROM i ORDER BY a;
WITH u AS (UPDATE t SET b = b || '!' WHERE a <= 2 RETURNING a, b) SELECT * FROM u ORDER BY a;

-- every item runs to completion, read or not
WITH d AS (DELETE FROM t RETURNING *) SELECT 1 AS one;
SELECT count(*) FROM t;
INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three'), (4, 'four');
WITH d AS (DELETE FROM t RETURNING *) SELECT a FROM d ORDER BY a LIMIT 1;
SELECT count(*) FROM t;
INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three'), (4, 'four');
WITH d AS (DELETE FROM t WHERE a > 3 RETURNING *) SELECT * FROM d WHERE false;
WITH u AS (UPDATE t SET b = 'changed' WHERE a = 3 RETURNING *) SELECT 1 AS one FROM t WHERE a = 1;
SELECT * FROM t ORDER BY a;
UPDATE t SET b = 'three' WHERE a = 3;

-- one snapshot: the main query does not see the items' effects
WITH i AS (INSERT INTO t VALUES (10, 'ten')) SELECT count(*) FROM t;
SELECT count(*) FROM t;
WITH u AS (UPDATE t SET b = 'TEN' WHERE a = 10 RETURNING *)
SELECT t.b AS old, u.b AS new FROM t JOIN u USING (a);
WITH d AS (DELETE FROM t WHERE a = 10 RETURNING a)
SELECT a, (SELECT count(*) FROM t WHERE t.a = 10) AS still_seen FROM d;
WITH i AS (INSERT INTO t VALUES (11, 'eleven') RETURNING a)
SELECT i.a, t.a AS in_t FROM i LEFT JOIN t USING (a);
-- nor do the items see each other's
WITH i AS (INSERT INTO t VALUES (12, 'twelve') RETURNING a),
     u AS (UPDATE t SET b = 'seen' WHERE a = 12 RETURNING a)
SELECT (SELECT count(*) FROM i) AS inserted, (SELECT count(*) FROM u) AS updated;
SELECT * FROM t WHERE a >= 10 ORDER BY a;

-- several items, one without RETURNING, items reading earlier ones
WITH a1 AS (INSERT INTO t VALUES (20, 'x'), (21, 'y') RETURNING a),
     a2 AS (UPDATE t SET b = upper(b) WHERE a = 2 RETURNING a, b),
     a3 AS (INSERT INTO archive VALUES (99, 'none'))
SELECT (SELECT array_agg(a ORDER BY a) FROM a1) AS inserted, (SELECT b FROM a2) AS updated;
SELECT * FROM archive ORDER BY a;
WITH src AS (SELECT a FROM t WHERE a >= 20),
     d AS (DELETE FROM t WHERE a IN (SELECT a FROM src) RETURNING a, b),
     ins AS (INSERT INTO archive SELECT a, b FROM d RETURNING *)
SELECT * FROM ins ORDER BY a;
WITH d(k, v) AS (DELETE FROM t WHERE a = 11 RETURNING a, b) SELECT k, v FROM d;
-- a WITH item does not hide the table an INSERT/UPDATE/DELETE writes
WITH archive AS (SELECT 42 AS a, 'cte' AS b) INSERT INTO archive SELECT * FROM archive RETURNING *;
WITH archive AS (SELECT 42 AS k) DELETE FROM archive USING archive AS c WHERE archive.a = c.k RETURNING archive.*;
WITH i AS (INSERT INTO t VALUES (7, 'seven') RETURNING a) SELECT * FROM i, i AS j;
WITH d AS (DELETE FROM archive WHERE a = 99 RETURNING *) SELECT * FROM d UNION ALL SELECT 0, 'zero' ORDER BY 1;

-- WITH on top of INSERT, UPDATE and DELETE
WITH v(x) AS (VALUES (5), (6)) INSERT INTO t SELECT x, 'v' || x FROM v RETURNING *;
WITH r AS (SELECT 2 AS k) UPDATE t SET b = 'two again' FROM r WHERE t.a = r.k RETURNING t.*;
WITH r AS (DELETE FROM archive WHERE a = 1 RETURNING a) DELETE FROM t WHERE a IN (SELECT a + 5 FROM r) RETURNING *;
WITH d AS (DELETE FROM archive WHERE a = 3 RETURNING a)
UPDATE t SET b = 'from archive' WHERE a IN (SELECT a FROM d);
SELECT * FROM t ORDER BY a;
SELECT * FROM archive ORDER BY a;

-- the same row changed twice in one statement: which change wins is
-- unpredictable (PostgreSQL runs an item nobody reads after the main
-- statement, Nestor before it), so only the outcome's shape is shown: the
-- row is changed once, never duplicated or lost
\set QUIET on
WITH u AS (UPDATE t SET b = 'u1' WHERE a = 7 RETURNING a) UPDATE t SET b = 'u2' WHERE a = 7;
SELECT count(*) AS one_row, b IN ('u1', 'u2') AS one_change FROM t WHERE a = 7 GROUP BY b;
WITH u1 AS (UPDATE t SET b = 'x1' WHERE a = 7 RETURNING a),
     u2 AS (UPDATE t SET b = 'x2' WHERE a = 7 RETURNING a)
SELECT count(*) FROM t WHERE a = 7;
SELECT count(*) AS one_row, b IN ('x1', 'x2') AS one_change FROM t WHERE a = 7 GROUP BY b;
WITH u AS (UPDATE t SET b = 'u3' WHERE a = 7 RETURNING a) DELETE FROM t WHERE a = 7;
SELECT count(*) <= 1 AS at_most_one FROM t WHERE a = 7;
DELETE FROM t WHERE a = 7;
\set QUIET off
-- ... and the same key inserted twice fails
WITH i AS (INSERT INTO t VALUES (8, 'eight')) INSERT INTO t VALUES (8, 'again');
SELECT count(*) FROM t WHERE a = 8;

-- ON CONFLICT in an item
WITH u AS (INSERT INTO t VALUES (7, 'upserted'), (9, 'nine') ON CONFLICT (a) DO UPDATE SET b = excluded.b RETURNING *)
SELECT * FROM u ORDER BY a;
WITH n AS (INSERT INTO t VALUES (9, 'ignored') ON CONFLICT DO NOTHING RETURNING *) SELECT count(*) FROM n;

-- errors
WITH d AS (DELETE FROM t) SELECT * FROM d;
SELECT * FROM (WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d) s;
SELECT (WITH d AS (DELETE FROM t RETURNING *) SELECT count(*) FROM d);
WITH x AS (WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d) SELECT * FROM x;
(WITH d AS (DELETE FROM t RETURNING *) SELECT a FROM d) UNION SELECT 1;
WITH x AS (WITH d AS (DELETE FROM t RETURNING *) INSERT INTO archive SELECT * FROM d RETURNING *) SELECT * FROM x;
WITH RECURSIVE d AS (DELETE FROM t WHERE a IN (SELECT a FROM d) RETURNING *) SELECT * FROM d;
WITH RECURSIVE d AS (DELETE FROM t WHERE a = 1000 RETURNING *) SELECT * FROM d;
WITH d AS (DELETE FROM nosuch RETURNING *) SELECT * FROM d;
WITH d AS (DELETE FROM t RETURNING nosuch) SELECT * FROM d;
CREATE VIEW vw AS WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d;
CREATE MATERIALIZED VIEW mv AS WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d;
BEGIN;
DECLARE c CURSOR FOR WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d;
ROLLBACK;
SELECT count(*) FROM t;

-- an error anywhere undoes every item's writes
SELECT count(*) FROM t;
WITH d AS (DELETE FROM t RETURNING *) INSERT INTO archive SELECT a / 0, b FROM d;
SELECT count(*) FROM t;
WITH i AS (INSERT INTO archive VALUES (1000, 'x') RETURNING *) INSERT INTO t VALUES (2, 'dup');
SELECT count(*) FROM archive WHERE a = 1000;
WITH i AS (INSERT INTO archive VALUES (1001, 'x')), d AS (DELETE FROM t WHERE a = 2 RETURNING 1 / 0) SELECT 1;
SELECT count(*) FROM archive WHERE a = 1001;
SELECT count(*) FROM t WHERE a = 2;
BEGIN;
SAVEPOINT s;
WITH d AS (DELETE FROM t RETURNING *) SELECT 1 / 0 FROM d;
ROLLBACK TO s;
SELECT count(*) FROM t;
COMMIT;
BEGIN READ ONLY;
WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d;
ROLLBACK;
BEGIN READ ONLY;
WITH d AS (DELETE FROM t RETURNING *) INSERT INTO archive SELECT * FROM d;
ROLLBACK;

-- prepared statements with parameters inside the items
PREPARE mv(int) AS
  WITH d AS (DELETE FROM t WHERE a = $1 RETURNING *) INSERT INTO archive SELECT * FROM d RETURNING *;
EXECUTE mv(9);
EXECUTE mv(9);
PREPARE bump(text, int) AS
  WITH u AS (UPDATE t SET b = b || $1 WHERE a <= $2 RETURNING a, b) SELECT * FROM u ORDER BY a;
EXECUTE bump('+', 2);
EXECUTE bump('-', 5);
DEALLOCATE mv;
DEALLOCATE bump;

-- triggers fire for the items' writes
CREATE TABLE log (n serial, what text);
CREATE FUNCTION log_it() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO log (what) VALUES (TG_OP || ' ' || OLD.a);
    RETURN OLD;
  END IF;
  INSERT INTO log (what) VALUES (TG_OP || ' ' || NEW.a);
  RETURN NEW;
END $$;
CREATE FUNCTION shout() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.b := upper(NEW.b);
  RETURN NEW;
END $$;
CREATE TRIGGER t_log AFTER INSERT OR UPDATE OR DELETE ON t FOR EACH ROW EXECUTE FUNCTION log_it();
CREATE TRIGGER t_shout BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION shout();
WITH i AS (INSERT INTO t VALUES (30, 'thirty') RETURNING *) SELECT * FROM i;
WITH u AS (UPDATE t SET b = 'thirty one' WHERE a = 30 RETURNING *),
     d AS (DELETE FROM t WHERE a = 5 RETURNING *)
SELECT (SELECT b FROM u) AS u, (SELECT b FROM d) AS d;
SELECT what FROM log ORDER BY n;
DROP TRIGGER t_log ON t;
DROP TRIGGER t_shout ON t;

-- foreign keys are checked for the items' writes
CREATE TABLE parent (id int PRIMARY KEY);
CREATE TABLE child (pid int REFERENCES parent);
INSERT INTO parent VALUES (1);
WITH c AS (INSERT INTO child VALUES (2) RETURNING *) SELECT * FROM c;
WITH p AS (INSERT INTO parent VALUES (2)) INSERT INTO child VALUES (2);
WITH d AS (DELETE FROM parent WHERE id = 2 RETURNING *) SELECT * FROM d;
WITH d AS (DELETE FROM parent WHERE id = 1 RETURNING *) SELECT * FROM d;
SELECT * FROM parent ORDER BY id;
SELECT * FROM child;

-- in PL/pgSQL
CREATE FUNCTION move_all() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  WITH d AS (DELETE FROM t WHERE a > 20 RETURNING *),
       i AS (INSERT INTO archive SELECT * FROM d RETURNING 1)
  SELECT count(*) INTO n FROM i;
  RETURN n;
END $$;
SELECT move_all();
SELECT count(*) FROM t WHERE a > 20;
CREATE FUNCTION stable_delete() RETURNS bigint STABLE LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
  WITH d AS (DELETE FROM t RETURNING *) SELECT count(*) INTO n FROM d;
  RETURN n;
END $$;
SELECT stable_delete();
CREATE FUNCTION safe_move(k int) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  WITH d AS (DELETE FROM t WHERE a = k RETURNING *) INSERT INTO archive SELECT a, b || (1 / 0) FROM d;
  RETURN 'moved';
EXCEPTION WHEN division_by_zero THEN
  RETURN 'kept';
END $$;
SELECT safe_move(2);
DO $$ BEGIN WITH d AS (DELETE FROM t WHERE a = 1000 RETURNING *) SELECT * FROM d; END $$;
DO $$ BEGIN WITH d AS (DELETE FROM t WHERE a = 1000 RETURNING *) INSERT INTO archive SELECT * FROM d; END $$;
SELECT * FROM t WHERE a = 2;

-- CREATE TABLE AS, EXPLAIN
CREATE TABLE taken AS WITH d AS (DELETE FROM archive WHERE a > 20 RETURNING *) SELECT * FROM d;
SELECT * FROM taken ORDER BY a;
SELECT count(*) FROM archive WHERE a > 20;
EXPLAIN (COSTS OFF) WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d;
EXPLAIN (COSTS OFF) WITH d AS (DELETE FROM archive RETURNING *), i AS (UPDATE taken SET b = upper(b)) INSERT INTO t SELECT * FROM d;
SELECT count(*) FROM t;

-- WITH RECURSIVE: an item may name one written after it (which runs first)
WITH RECURSIVE t1 AS (INSERT INTO archive SELECT * FROM t2 RETURNING *),
     t2 AS (DELETE FROM t WHERE a = 1 RETURNING *)
SELECT (SELECT count(*) FROM t1) AS t1, (SELECT count(*) FROM t2) AS t2;
SELECT * FROM archive WHERE a = 1;
WITH RECURSIVE i AS (INSERT INTO archive SELECT n, 'r' || n FROM r RETURNING a),
     r(n) AS (SELECT 100 UNION ALL SELECT n + 1 FROM r WHERE n < 102)
SELECT * FROM i ORDER BY a;

DROP FUNCTION move_all();
DROP FUNCTION stable_delete();
DROP FUNCTION safe_move(int);
DROP TABLE child, parent, log, taken, archive, t;
DROP FUNCTION log_it();
DROP FUNCTION shout();
