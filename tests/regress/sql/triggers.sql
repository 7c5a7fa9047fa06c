-- Triggers
CREATE TABLE items (id int PRIMARY KEY, name text, price numeric, updated int DEFAULT 0);
CREATE TABLE audit (op text, item int, old_price numeric, new_price numeric);
CREATE FUNCTION items_before() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE NOTICE '% % % % (%)', TG_WHEN, TG_LEVEL, TG_OP, TG_NAME, TG_TABLE_NAME;
  IF TG_OP = 'DELETE' THEN
    IF OLD.name = 'keep' THEN RETURN NULL; END IF;
    RETURN OLD;
  END IF;
  IF NEW.price < 0 THEN RETURN NULL; END IF;
  NEW.name := upper(NEW.name);
  IF TG_OP = 'UPDATE' THEN NEW.updated := OLD.updated + 1; END IF;
  RETURN NEW;
END $$;
CREATE FUNCTION items_audit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO audit VALUES (TG_OP, NEW.id, NULL, NEW.price);
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO audit VALUES (TG_OP, NEW.id, OLD.price, NEW.price);
  ELSE
    INSERT INTO audit VALUES (TG_OP, OLD.id, OLD.price, NULL);
  END IF;
  RETURN NULL;
END $$;
CREATE FUNCTION items_stmt() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE NOTICE 'statement % %: % rows in items, % in audit', TG_WHEN, TG_OP, (SELECT count(*) FROM items), (SELECT count(*) FROM audit);
  RETURN NULL;
END $$;
CREATE TRIGGER b_items BEFORE INSERT OR UPDATE OR DELETE ON items FOR EACH ROW EXECUTE FUNCTION items_before();
CREATE TRIGGER a_audit AFTER INSERT OR UPDATE OR DELETE ON items FOR EACH ROW EXECUTE FUNCTION items_audit();
CREATE TRIGGER s_before BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON items FOR EACH STATEMENT EXECUTE FUNCTION items_stmt();
CREATE TRIGGER s_after AFTER INSERT OR UPDATE OR DELETE ON items EXECUTE PROCEDURE items_stmt();
INSERT INTO items (id, name, price) VALUES (1, 'apple', 1.5), (2, 'pear', -1), (3, 'keep', 3);
SELECT * FROM items ORDER BY id;
SELECT * FROM audit;
UPDATE items SET price = price * 2 RETURNING *;
DELETE FROM items;
SELECT * FROM items ORDER BY id;
SELECT op, item, old_price, new_price FROM audit;
-- WHEN and UPDATE OF
CREATE TABLE acct (id int PRIMARY KEY, balance int, note text);
CREATE FUNCTION acct_log() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE NOTICE '%: % -> %', TG_NAME, OLD.balance, NEW.balance;
  RETURN NEW;
END $$;
CREATE TRIGGER big_change AFTER UPDATE ON acct FOR EACH ROW WHEN (abs(NEW.balance - OLD.balance) > 100) EXECUTE FUNCTION acct_log();
CREATE TRIGGER bal_only BEFORE UPDATE OF balance ON acct FOR EACH ROW EXECUTE FUNCTION acct_log();
INSERT INTO acct VALUES (1, 100, 'a'), (2, 500, 'b');
UPDATE acct SET balance = balance + 50;
UPDATE acct SET balance = balance + 500 WHERE id = 2;
UPDATE acct SET note = 'x';
-- Errors
CREATE TRIGGER b_items BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION items_before();
CREATE TRIGGER t1 BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION nosuch();
CREATE FUNCTION not_trig() RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE TRIGGER t2 BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION not_trig();
CREATE TRIGGER t3 BEFORE INSERT ON nosuch FOR EACH ROW EXECUTE FUNCTION items_before();
CREATE TRIGGER t4 INSTEAD OF INSERT ON items FOR EACH ROW EXECUTE FUNCTION items_before();
CREATE TRIGGER t5 BEFORE TRUNCATE ON items FOR EACH ROW EXECUTE FUNCTION items_before();
CREATE TRIGGER t6 BEFORE INSERT ON items FOR EACH ROW WHEN (OLD.id > 0) EXECUTE FUNCTION items_before();
CREATE TRIGGER t7 BEFORE DELETE ON items FOR EACH ROW WHEN (NEW.id > 0) EXECUTE FUNCTION items_before();
CREATE TRIGGER t8 BEFORE INSERT ON items WHEN (NEW.id > 0) EXECUTE FUNCTION items_before();
CREATE TRIGGER t9 BEFORE UPDATE OF nosuch ON items FOR EACH ROW EXECUTE FUNCTION items_before();
SELECT items_before();
CREATE FUNCTION no_ret() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN END $$;
CREATE TRIGGER t10 BEFORE INSERT ON acct FOR EACH ROW EXECUTE FUNCTION no_ret();
INSERT INTO acct VALUES (3, 1, 'c');
DROP TRIGGER t10 ON acct;
CREATE FUNCTION bad_ret() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$;
CREATE TRIGGER t11 BEFORE INSERT ON acct FOR EACH ROW EXECUTE FUNCTION bad_ret();
INSERT INTO acct VALUES (3, 1, 'c');
DROP TRIGGER t11 ON acct;
DROP TRIGGER nosuch ON acct;
DROP TRIGGER IF EXISTS nosuch ON acct;
DROP TRIGGER IF EXISTS nosuch ON nosuchtable;
TRUNCATE items;
-- A BEFORE trigger that changes its own row
CREATE FUNCTION self_touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE acct SET note = 'touched' WHERE id = OLD.id; RETURN NEW; END $$;
CREATE TRIGGER self BEFORE UPDATE OF balance ON acct FOR EACH ROW EXECUTE FUNCTION self_touch();
UPDATE acct SET balance = 0 WHERE id = 1;
DROP TRIGGER self ON acct;
-- Trigger dropped with its table; OR REPLACE
CREATE OR REPLACE TRIGGER bal_only AFTER UPDATE ON acct FOR EACH ROW EXECUTE FUNCTION acct_log();
UPDATE acct SET note = 'y' WHERE id = 1;
DROP TABLE acct;
CREATE TABLE acct (id int);
INSERT INTO acct VALUES (1);
DROP TABLE items, audit, acct;
DROP FUNCTION items_before, items_audit, items_stmt, acct_log, not_trig, no_ret, bad_ret, self_touch;
-- An error in a trigger undoes the row's write; an exception block around
-- the statement catches it and the block's work is undone
CREATE TABLE guarded (id int PRIMARY KEY, v int);
CREATE FUNCTION guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.v > 10 THEN RAISE EXCEPTION 'v too large: %', NEW.v USING ERRCODE = 'check_violation'; END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER guard BEFORE INSERT OR UPDATE ON guarded FOR EACH ROW EXECUTE FUNCTION guard();
INSERT INTO guarded VALUES (1, 5);
INSERT INTO guarded VALUES (2, 50);
DO $$
BEGIN
  INSERT INTO guarded VALUES (3, 3);
  BEGIN
    INSERT INTO guarded VALUES (4, 4);
    UPDATE guarded SET v = v * 10;
  EXCEPTION WHEN check_violation THEN
    RAISE NOTICE 'caught: %', SQLERRM;
  END;
END $$;
SELECT * FROM guarded ORDER BY id;
-- Triggers fire for writes inside functions, and recursively
CREATE TABLE counter (n int);
INSERT INTO counter VALUES (0);
CREATE FUNCTION bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE counter SET n = n + 1;
  RETURN NULL;
END $$;
CREATE TRIGGER bump AFTER INSERT ON guarded FOR EACH ROW EXECUTE FUNCTION bump();
CREATE FUNCTION add_guarded(i int) RETURNS void LANGUAGE sql AS 'INSERT INTO guarded VALUES (i, 1)';
SELECT add_guarded(10), add_guarded(11);
SELECT n FROM counter;
DROP TABLE guarded, counter;
DROP FUNCTION guard, bump, add_guarded;
