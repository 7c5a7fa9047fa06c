--
-- INSTEAD OF row triggers on views: which triggers a view (and a table)
-- may have, INSERT/UPDATE/DELETE through the trigger (NULL skips the
-- row, RETURNING shows the row the trigger returned), views that are not
-- automatically updatable, precedence of rules over triggers and of
-- triggers over auto-updatability, statement triggers on views, ON
-- CONFLICT and CHECK OPTION, pg_trigger and DROP.
--
\set QUIET off
\set VERBOSITY verbose

CREATE TABLE base (a int PRIMARY KEY, b text);
CREATE VIEW bv AS SELECT a, b FROM base;
CREATE VIEW agg AS SELECT count(*) AS n, max(b) AS mb FROM base;
CREATE FUNCTION note() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE NOTICE '% % % % on %', tg_name, tg_when, tg_level, tg_op, tg_table_name;
  IF tg_op = 'DELETE' THEN RETURN old; END IF;
  RETURN new;
END $$;

-- what may not be created
CREATE TRIGGER t1 INSTEAD OF INSERT ON base FOR EACH ROW EXECUTE FUNCTION note();
CREATE TRIGGER t1 INSTEAD OF INSERT ON bv FOR EACH STATEMENT EXECUTE FUNCTION note();
CREATE TRIGGER t1 INSTEAD OF INSERT ON bv FOR EACH ROW WHEN (new.a > 0) EXECUTE FUNCTION note();
CREATE TRIGGER t1 INSTEAD OF UPDATE OF a ON bv FOR EACH ROW EXECUTE FUNCTION note();
CREATE TRIGGER t1 BEFORE INSERT ON bv FOR EACH ROW EXECUTE FUNCTION note();
CREATE TRIGGER t1 AFTER DELETE ON bv FOR EACH ROW EXECUTE FUNCTION note();
CREATE TRIGGER t1 BEFORE TRUNCATE ON bv FOR EACH STATEMENT EXECUTE FUNCTION note();
CREATE TRIGGER t1 INSTEAD OF INSERT ON nosuch FOR EACH ROW EXECUTE FUNCTION note();
CREATE TRIGGER t1 AFTER UPDATE ON bv REFERENCING OLD TABLE AS o
  FOR EACH STATEMENT EXECUTE FUNCTION note();

-- a trigger that writes the base table itself
CREATE FUNCTION bv_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF tg_op = 'INSERT' THEN
    IF new.a < 0 THEN RETURN NULL; END IF;
    INSERT INTO base VALUES (new.a, new.b);
    new.b := new.b || '!';
    RETURN new;
  ELSIF tg_op = 'UPDATE' THEN
    IF old.a = 2 THEN RETURN NULL; END IF;
    UPDATE base SET a = new.a, b = new.b WHERE a = old.a;
    new.b := 'upd:' || new.b;
    RETURN new;
  ELSE
    IF old.a = 5 THEN RETURN NULL; END IF;
    DELETE FROM base WHERE a = old.a;
    old.b := 'changed';
    RETURN old;
  END IF;
END $$;
CREATE TRIGGER bv_io INSTEAD OF INSERT OR UPDATE OR DELETE ON bv
  FOR EACH ROW EXECUTE FUNCTION bv_write();
CREATE TRIGGER bv_io INSTEAD OF INSERT ON bv FOR EACH ROW EXECUTE FUNCTION note();

INSERT INTO bv VALUES (1, 'a'), (2, 'b'), (-1, 'skipped'), (3, 'c') RETURNING *;
INSERT INTO bv (a) VALUES (5) RETURNING a, b IS NULL AS null_b;
INSERT INTO bv SELECT 6, 'six';
INSERT INTO bv DEFAULT VALUES;
INSERT INTO bv VALUES (-2, 'none');
SELECT * FROM base ORDER BY a;
UPDATE bv SET b = b || 'x' WHERE a <> 1 RETURNING *;
UPDATE bv SET a = 10 WHERE a = 1;
UPDATE bv SET b = 'nothing' WHERE a > 100;
SELECT * FROM base ORDER BY a;
-- DELETE's RETURNING shows the row scanned, not the one returned
DELETE FROM bv WHERE a = 3 RETURNING *;
DELETE FROM bv WHERE a IN (5, 6);
SELECT * FROM base ORDER BY a;
-- a source that names a missing column or has too many values
INSERT INTO bv (c) VALUES (1);
INSERT INTO bv VALUES (1, 'x', 3);
UPDATE bv SET c = 1;

-- a view that is not automatically updatable becomes writable
INSERT INTO agg VALUES (1, 'x');
CREATE FUNCTION agg_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF tg_op = 'INSERT' THEN
    INSERT INTO base SELECT 1000 + g, new.mb FROM generate_series(1, new.n) g;
  ELSIF tg_op = 'UPDATE' THEN
    UPDATE base SET b = new.mb;
  ELSE
    DELETE FROM base;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER agg_ins INSTEAD OF INSERT ON agg FOR EACH ROW EXECUTE FUNCTION agg_write();
INSERT INTO agg VALUES (2, 'gen');
SELECT * FROM agg;
UPDATE agg SET mb = 'same';
CREATE TRIGGER agg_upd INSTEAD OF UPDATE ON agg FOR EACH ROW EXECUTE FUNCTION agg_write();
UPDATE agg SET mb = 'same';
SELECT * FROM base ORDER BY a;

-- statement triggers on a view fire around the INSTEAD OF ones
CREATE TRIGGER bv_before BEFORE INSERT OR UPDATE ON bv
  FOR EACH STATEMENT EXECUTE FUNCTION note();
CREATE TRIGGER bv_after AFTER INSERT ON bv
  FOR EACH STATEMENT EXECUTE FUNCTION note();
CREATE TRIGGER bv_trace INSTEAD OF INSERT ON bv FOR EACH ROW EXECUTE FUNCTION note();
INSERT INTO bv VALUES (20, 'traced'), (21, 'twice');
SELECT * FROM base WHERE a >= 20 ORDER BY a;

-- pg_trigger, pg_get_triggerdef, psql's \d
SELECT tgname, tgtype, tgenabled FROM pg_trigger
  WHERE tgrelid = 'bv'::regclass ORDER BY tgname;
SELECT pg_get_triggerdef(oid) FROM pg_trigger
  WHERE tgrelid = 'bv'::regclass ORDER BY tgname;
SELECT relhastriggers FROM pg_class WHERE relname IN ('bv', 'agg') ORDER BY relname;
SELECT table_name, is_updatable, is_insertable_into, is_trigger_updatable,
       is_trigger_deletable, is_trigger_insertable_into
  FROM information_schema.views WHERE table_name IN ('bv', 'agg') ORDER BY 1;
SELECT pg_relation_is_updatable('agg'::regclass, false) AS without_triggers,
       pg_relation_is_updatable('agg'::regclass, true) AS with_triggers;
\d bv

-- an INSTEAD rule wins over the trigger; a conditional one leaves the
-- other rows to it
DROP TRIGGER bv_trace ON bv;
DROP TRIGGER bv_before ON bv;
DROP TRIGGER bv_after ON bv;
CREATE RULE bv_rule AS ON INSERT TO bv DO INSTEAD INSERT INTO base VALUES (new.a + 100, new.b);
INSERT INTO bv VALUES (30, 'rule');
DROP RULE bv_rule ON bv;
CREATE RULE bv_rule AS ON INSERT TO bv WHERE new.a > 50
  DO INSTEAD INSERT INTO base VALUES (new.a + 100, new.b);
INSERT INTO bv VALUES (60, 'rule');
INSERT INTO bv VALUES (40, 'trigger');
DROP RULE bv_rule ON bv;
SELECT * FROM base WHERE a >= 30 ORDER BY a;

-- the trigger wins over auto-updatability; a view it does not cover
-- writes through as before
CREATE VIEW bv2 AS SELECT a, b FROM base WHERE a > 100;
CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE NOTICE 'refused %', tg_op; RETURN NULL; END $$;
CREATE TRIGGER bv2_del INSTEAD OF DELETE ON bv2 FOR EACH ROW EXECUTE FUNCTION refuse();
DELETE FROM bv2;
UPDATE bv2 SET b = b || '+';
SELECT * FROM bv2 ORDER BY a;

-- a view over a view with INSTEAD OF triggers writes through them; its
-- CHECK OPTION applies to the rows they return
CREATE TABLE nb (a int, b int);
CREATE VIEW nv1 AS SELECT a FROM nb WHERE a < b;
CREATE FUNCTION nv1_fn() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF tg_op = 'INSERT' THEN
    INSERT INTO nb VALUES (new.a, 10);
    RETURN new;
  ELSIF tg_op = 'UPDATE' THEN
    UPDATE nb SET a = new.a WHERE a = old.a;
    RETURN new;
  ELSE
    DELETE FROM nb WHERE a = old.a;
    RETURN old;
  END IF;
END $$;
CREATE TRIGGER nv1_trig INSTEAD OF INSERT OR UPDATE OR DELETE ON nv1
  FOR EACH ROW EXECUTE FUNCTION nv1_fn();
CREATE VIEW nv2 AS SELECT * FROM nv1 WHERE a > 0 WITH LOCAL CHECK OPTION;
INSERT INTO nv2 VALUES (-5);
INSERT INTO nv2 VALUES (5) RETURNING *;
INSERT INTO nv2 VALUES (50);
UPDATE nv2 SET a = a - 10;
UPDATE nv2 SET a = a + 1 WHERE a = 5 RETURNING a;
DELETE FROM nv2 WHERE a = 6;
SELECT * FROM nb ORDER BY a;

-- ON CONFLICT and CHECK OPTION
INSERT INTO bv VALUES (1, 'c') ON CONFLICT (a) DO UPDATE SET b = 'q';
INSERT INTO bv VALUES (1, 'c') ON CONFLICT (a) DO NOTHING;
INSERT INTO bv VALUES (70, 'c') ON CONFLICT DO NOTHING;
CREATE VIEW checked AS SELECT a, b FROM base WHERE a > 0 WITH CHECK OPTION;
CREATE TRIGGER checked_ins INSTEAD OF INSERT ON checked FOR EACH ROW EXECUTE FUNCTION note();
INSERT INTO checked VALUES (-5, 'not checked');
SELECT count(*) FROM base WHERE a = -5;

-- a trigger's writes roll back with its transaction
BEGIN;
INSERT INTO bv VALUES (80, 'rolled back');
ROLLBACK;
SELECT count(*) FROM base WHERE a = 80;

-- UPDATE ... FROM and DELETE ... USING: RETURNING reads the other items
CREATE TABLE names (a int, label text);
INSERT INTO names VALUES (10, 'ten'), (40, 'forty');
UPDATE bv SET b = n.label FROM names n WHERE bv.a = n.a AND n.a = 10
  RETURNING bv.a, bv.b, n.label;
DELETE FROM bv USING names n WHERE bv.a = n.a AND n.label = 'forty' RETURNING *;
SELECT * FROM base WHERE a IN (10, 40) ORDER BY a;

-- a function that a view's trigger runs
DROP FUNCTION agg_write();

-- CREATE TRIGGER rolls back; a prepared statement sees a trigger created
-- after it was prepared
BEGIN;
CREATE TRIGGER bv_tmp INSTEAD OF DELETE ON bv2 FOR EACH ROW EXECUTE FUNCTION note();
ROLLBACK;
SELECT count(*) FROM pg_trigger WHERE tgname = 'bv_tmp';
CREATE VIEW pv AS SELECT a, b FROM base WHERE a = 500;
PREPARE pv_ins(int) AS INSERT INTO pv VALUES ($1, 'prepared');
EXECUTE pv_ins(500);
CREATE TRIGGER pv_ins INSTEAD OF INSERT ON pv FOR EACH ROW EXECUTE FUNCTION note();
EXECUTE pv_ins(501);
SELECT * FROM base WHERE a >= 500 ORDER BY a;
DROP FUNCTION note();
DROP FUNCTION note() CASCADE;
EXECUTE pv_ins(502);
SELECT * FROM base WHERE a >= 500 ORDER BY a;

-- privileges: the statement's on the view; SELECT only when it reads it
CREATE TABLE pt (a int, b text);
INSERT INTO pt VALUES (1, 'x');
CREATE VIEW pv AS SELECT a, b FROM pt;
CREATE FUNCTION pf() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN IF tg_op = 'DELETE' THEN RETURN old; END IF; RETURN new; END $$;
CREATE TRIGGER pvt INSTEAD OF INSERT OR UPDATE OR DELETE ON pv FOR EACH ROW EXECUTE FUNCTION pf();
CREATE ROLE io_user;
GRANT UPDATE, DELETE, INSERT ON pv TO io_user;
SET ROLE io_user;
UPDATE pv SET b = 'y';
UPDATE pv SET b = b || 'y';
UPDATE pv SET b = 'y' WHERE a = 1;
DELETE FROM pv;
INSERT INTO pv VALUES (2, 'z');
INSERT INTO pv VALUES (2, 'z') RETURNING *;
RESET ROLE;
DROP VIEW pv; DROP TABLE pt; DROP FUNCTION pf(); DROP ROLE io_user;

-- DROP TRIGGER, DROP VIEW
DROP TRIGGER nosuch ON bv;
DROP TRIGGER IF EXISTS nosuch ON bv;
DROP TRIGGER bv_io ON bv;
INSERT INTO bv VALUES (90, 'auto-updatable again') RETURNING *;
DROP TRIGGER agg_ins ON agg;
INSERT INTO agg VALUES (1, 'x');
DROP VIEW agg;
SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'agg%';
