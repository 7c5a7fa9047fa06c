-- MERGE into partitioned tables and inheritance parents, UPDATE / DELETE
-- through a view of a partitioned table, partition constraints of rows
-- written into a partition directly.

CREATE TABLE pa_target (tid integer, balance float, val text)
	PARTITION BY LIST (tid);
CREATE TABLE part1 PARTITION OF pa_target FOR VALUES IN (1,4);
CREATE TABLE part2 PARTITION OF pa_target FOR VALUES IN (2,5,6);
CREATE TABLE part3 PARTITION OF pa_target FOR VALUES IN (3,8,9);
CREATE TABLE part4 PARTITION OF pa_target DEFAULT;
CREATE TABLE pa_source (sid integer, delta float);
INSERT INTO pa_source SELECT id, id * 10 FROM generate_series(1,14) AS id;
INSERT INTO pa_target SELECT id, id * 100, 'initial' FROM generate_series(1,14,2) AS id;

-- rows routed on INSERT, updated where they are
BEGIN;
MERGE INTO pa_target t
  USING pa_source s
  ON t.tid = s.sid
  WHEN MATCHED THEN
    UPDATE SET balance = balance + delta, val = val || ' updated by merge'
  WHEN NOT MATCHED THEN
    INSERT VALUES (sid, delta, 'inserted by merge');
SELECT tableoid::regclass, * FROM pa_target ORDER BY tid;
ROLLBACK;

-- a constant qual on the target
BEGIN;
MERGE INTO pa_target t
  USING pa_source s
  ON t.tid = s.sid AND tid = 1
  WHEN MATCHED THEN
    UPDATE SET balance = balance + delta, val = val || ' updated by merge'
  WHEN NOT MATCHED THEN
    INSERT VALUES (sid, delta, 'inserted by merge');
SELECT tableoid::regclass, * FROM pa_target ORDER BY tid, val;
ROLLBACK;

-- updating the partition key moves rows between partitions
BEGIN;
MERGE INTO pa_target t
  USING pa_source s
  ON t.tid = s.sid
  WHEN MATCHED AND tid = 13 THEN DELETE
  WHEN MATCHED THEN
    UPDATE SET tid = tid + 1, balance = balance + delta, val = val || ' updated by merge'
  WHEN NOT MATCHED AND sid < 5 THEN
    INSERT VALUES (sid, delta, 'inserted by merge');
SELECT tableoid::regclass, * FROM pa_target ORDER BY tid, val;
ROLLBACK;

-- DO NOTHING and a NOT MATCHED insert only
BEGIN;
TRUNCATE pa_target;
MERGE INTO pa_target t
  USING (VALUES (10, 100)) AS s(sid, delta)
  ON t.tid = s.sid
  WHEN NOT MATCHED THEN
    INSERT VALUES (1, 10, 'inserted by merge')
  WHEN MATCHED THEN
    DO NOTHING;
SELECT tableoid::regclass, * FROM pa_target ORDER BY tid, val;
ROLLBACK;

-- a matched row two source rows match
MERGE INTO pa_target t
  USING (VALUES (1), (1)) AS s(sid)
  ON t.tid = s.sid
  WHEN MATCHED THEN UPDATE SET balance = 0;

-- MERGE into one partition: its constraint applies
MERGE INTO part1 t
  USING (VALUES (1), (2)) AS s(sid)
  ON t.tid = s.sid
  WHEN NOT MATCHED THEN INSERT VALUES (sid, 0, 'direct');
MERGE INTO part1 t
  USING (VALUES (1)) AS s(sid)
  ON t.tid = s.sid
  WHEN MATCHED THEN UPDATE SET tid = 2;

DROP TABLE pa_target CASCADE;

-- partitions with columns in another order, dropped columns
CREATE TABLE pa_target (tid integer, balance float, val text)
	PARTITION BY LIST (tid);
CREATE TABLE part1 (tid integer, balance float, val text);
CREATE TABLE part2 (balance float, tid integer, val text);
CREATE TABLE part3 (tid integer, balance float, val text);
CREATE TABLE part4 (extraid text, tid integer, balance float, val text);
ALTER TABLE part4 DROP COLUMN extraid;
ALTER TABLE pa_target ATTACH PARTITION part1 FOR VALUES IN (1,4);
ALTER TABLE pa_target ATTACH PARTITION part2 FOR VALUES IN (2,5,6);
ALTER TABLE pa_target ATTACH PARTITION part3 FOR VALUES IN (3,8,9);
ALTER TABLE pa_target ATTACH PARTITION part4 DEFAULT;
INSERT INTO pa_target SELECT id, id * 100, 'initial' FROM generate_series(1,14,2) AS id;

BEGIN;
DO $$
DECLARE
  result integer;
BEGIN
MERGE INTO pa_target t
  USING pa_source s
  ON t.tid = s.sid
  WHEN MATCHED THEN
    UPDATE SET balance = balance + delta, val = val || ' updated by merge'
  WHEN NOT MATCHED THEN
    INSERT VALUES (sid, delta, 'inserted by merge');
GET DIAGNOSTICS result := ROW_COUNT;
RAISE NOTICE 'ROW_COUNT = %', result;
END;
$$;
SELECT tableoid::regclass, * FROM pa_target ORDER BY tid;
ROLLBACK;

BEGIN;
MERGE INTO pa_target t
  USING pa_source s
  ON t.tid = s.sid AND tid IN (1, 5)
  WHEN MATCHED AND tid % 5 = 0 THEN DELETE
  WHEN MATCHED THEN
    UPDATE SET balance = balance + delta, val = val || ' updated by merge'
  WHEN NOT MATCHED THEN
    INSERT VALUES (sid, delta, 'inserted by merge');
SELECT tableoid::regclass, * FROM pa_target ORDER BY tid;
ROLLBACK;

BEGIN;
MERGE INTO pa_target t
  USING pa_source s
  ON t.tid = s.sid
  WHEN MATCHED THEN
    UPDATE SET tid = tid + 1, balance = balance + delta, val = val || ' updated by merge'
  WHEN NOT MATCHED THEN
    INSERT VALUES (sid, delta, 'inserted by merge');
SELECT tableoid::regclass, * FROM pa_target ORDER BY tid;
ROLLBACK;

-- row triggers fire in the partitions, statement triggers on the target
CREATE TABLE trig_log (msg text);
CREATE FUNCTION log_trig() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO trig_log VALUES (format('%s %s %s %s on %s', TG_WHEN, TG_LEVEL, TG_OP,
    CASE WHEN TG_LEVEL = 'ROW' AND TG_OP <> 'DELETE' THEN NEW.tid::text
         WHEN TG_LEVEL = 'ROW' THEN OLD.tid::text ELSE '' END, TG_TABLE_NAME));
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  RETURN NEW;
END; $$;
BEGIN;
CREATE TRIGGER r_b BEFORE INSERT OR UPDATE OR DELETE ON pa_target
  FOR EACH ROW EXECUTE PROCEDURE log_trig();
CREATE TRIGGER r_a AFTER INSERT OR UPDATE OR DELETE ON pa_target
  FOR EACH ROW EXECUTE PROCEDURE log_trig();
CREATE TRIGGER s_b BEFORE INSERT OR UPDATE OR DELETE ON pa_target
  FOR EACH STATEMENT EXECUTE PROCEDURE log_trig();
CREATE TRIGGER s_a AFTER INSERT OR UPDATE OR DELETE ON pa_target
  FOR EACH STATEMENT EXECUTE PROCEDURE log_trig();
MERGE INTO pa_target t
  USING (VALUES (1), (2), (3), (5)) AS s(sid)
  ON t.tid = s.sid
  WHEN MATCHED AND tid = 1 THEN UPDATE SET tid = 4
  WHEN MATCHED AND tid = 3 THEN UPDATE SET tid = 6
  WHEN MATCHED THEN DELETE
  WHEN NOT MATCHED THEN INSERT VALUES (sid, 0, 'new');
SELECT * FROM trig_log;
SELECT tableoid::regclass, * FROM pa_target ORDER BY tid;
ROLLBACK;

-- a BEFORE DELETE row trigger returning NULL keeps a moving row
CREATE FUNCTION trig_fn() RETURNS trigger LANGUAGE plpgsql AS
  $$ BEGIN RETURN NULL; END; $$;
BEGIN;
CREATE TRIGGER del_trig BEFORE DELETE ON pa_target
  FOR EACH ROW EXECUTE PROCEDURE trig_fn();
MERGE INTO pa_target t
  USING pa_source s
  ON t.tid = s.sid
  WHEN MATCHED THEN
    UPDATE SET tid = tid + 1, balance = balance + delta, val = val || ' updated by merge'
  WHEN NOT MATCHED THEN
    INSERT VALUES (sid, delta, 'inserted by merge');
SELECT tableoid::regclass, * FROM pa_target ORDER BY tid;
ROLLBACK;

-- a BEFORE INSERT row trigger returning NULL drops new and moving rows
-- (neither counted)
BEGIN;
CREATE TRIGGER ins_trig BEFORE INSERT ON pa_target
  FOR EACH ROW EXECUTE PROCEDURE trig_fn();
DO $$
DECLARE
  result integer;
BEGIN
MERGE INTO pa_target t
  USING pa_source s
  ON t.tid = s.sid
  WHEN MATCHED THEN
    UPDATE SET tid = tid + 1, balance = balance + delta, val = val || ' updated by merge'
  WHEN NOT MATCHED THEN
    INSERT VALUES (sid, delta, 'inserted by merge');
GET DIAGNOSTICS result := ROW_COUNT;
RAISE NOTICE 'ROW_COUNT = %', result;
END;
$$;
SELECT tableoid::regclass, * FROM pa_target ORDER BY tid;
ROLLBACK;
BEGIN;
CREATE TRIGGER ins_trig BEFORE INSERT ON part3
  FOR EACH ROW EXECUTE PROCEDURE trig_fn();
WITH u AS (UPDATE pa_target SET tid = 8 WHERE tid IN (1, 9) RETURNING tid)
  SELECT count(*) FROM u;
SELECT tableoid::regclass, * FROM pa_target ORDER BY tid;
ROLLBACK;

-- row-level security
CREATE ROLE regress_merge_part_user;
GRANT ALL ON pa_target, pa_source TO regress_merge_part_user;
BEGIN;
ALTER TABLE pa_target ENABLE ROW LEVEL SECURITY;
CREATE POLICY pa_target_pol ON pa_target USING (tid != 0);
SET LOCAL ROLE regress_merge_part_user;
MERGE INTO pa_target t
  USING pa_source s
  ON t.tid = s.sid AND t.tid IN (1,2,3,4)
  WHEN MATCHED THEN
    UPDATE SET balance = -1;
SELECT * FROM pa_target WHERE balance < 0;
MERGE INTO pa_target t
  USING pa_source s
  ON t.tid = s.sid AND t.tid IN (1,2,3,4)
  WHEN MATCHED THEN
    UPDATE SET tid = tid - 1;
ROLLBACK;
REVOKE ALL ON pa_target, pa_source FROM regress_merge_part_user;
DROP ROLE regress_merge_part_user;

-- check constraints of a partition
BEGIN;
ALTER TABLE part3 ADD CONSTRAINT small CHECK (balance < 1000);
MERGE INTO pa_target t
  USING pa_source s
  ON t.tid = s.sid
  WHEN MATCHED AND tid = 3 THEN UPDATE SET balance = 5000;
ROLLBACK;

-- a partitioned table without partitions
CREATE TABLE pa_empty (tid integer) PARTITION BY LIST (tid);
MERGE INTO pa_empty t
  USING pa_source s
  ON t.tid = s.sid
  WHEN MATCHED THEN DELETE;
MERGE INTO pa_empty t
  USING pa_source s
  ON t.tid = s.sid
  WHEN NOT MATCHED THEN INSERT VALUES (s.sid);
DROP TABLE pa_empty;

DROP TABLE pa_source;
DROP TABLE pa_target CASCADE;

-- sub-partitioning
CREATE TABLE pa_target (logts timestamp, tid integer, balance float, val text)
	PARTITION BY RANGE (logts);
CREATE TABLE part_m01 PARTITION OF pa_target
	FOR VALUES FROM ('2017-01-01') TO ('2017-02-01')
	PARTITION BY LIST (tid);
CREATE TABLE part_m01_odd PARTITION OF part_m01 FOR VALUES IN (1,3,5,7,9);
CREATE TABLE part_m01_even PARTITION OF part_m01 FOR VALUES IN (2,4,6,8);
CREATE TABLE part_m02 PARTITION OF pa_target
	FOR VALUES FROM ('2017-02-01') TO ('2017-03-01')
	PARTITION BY LIST (tid);
CREATE TABLE part_m02_odd PARTITION OF part_m02 FOR VALUES IN (1,3,5,7,9);
CREATE TABLE part_m02_even PARTITION OF part_m02 FOR VALUES IN (2,4,6,8);
CREATE TABLE pa_source (sid integer, delta float);
INSERT INTO pa_source SELECT id, id * 10 FROM generate_series(1,14) AS id;
INSERT INTO pa_target SELECT '2017-01-31', id, id * 100, 'initial' FROM generate_series(1,9,3) AS id;
INSERT INTO pa_target SELECT '2017-02-28', id, id * 100, 'initial' FROM generate_series(2,9,3) AS id;

BEGIN;
MERGE INTO pa_target t
  USING (SELECT '2017-01-15' AS slogts, * FROM pa_source WHERE sid < 10) s
  ON t.tid = s.sid
  WHEN MATCHED THEN
    UPDATE SET balance = balance + delta, val = val || ' updated by merge'
  WHEN NOT MATCHED THEN
    INSERT VALUES (slogts::timestamp, sid, delta, 'inserted by merge');
SELECT tableoid::regclass, * FROM pa_target ORDER BY tid;
ROLLBACK;

-- no partition for a new row
MERGE INTO pa_target t
  USING (VALUES (3)) s(sid)
  ON t.tid = s.sid
  WHEN NOT MATCHED THEN
    INSERT VALUES ('2018-01-01', sid, 0, 'nowhere');

-- a row leaving the subtree MERGE names
MERGE INTO part_m01 t
  USING (VALUES (1)) s(sid)
  ON t.tid = s.sid
  WHEN MATCHED THEN UPDATE SET logts = '2017-02-10';

DROP TABLE pa_source;
DROP TABLE pa_target CASCADE;

-- an inheritance parent: its rows and its children's
CREATE TABLE inh_p (a int, b text);
CREATE TABLE inh_c (c int) INHERITS (inh_p);
CREATE TABLE inh_d (b text, x int, a int);
ALTER TABLE inh_d DROP COLUMN x;
ALTER TABLE inh_d INHERIT inh_p;
INSERT INTO inh_p VALUES (1, 'p');
INSERT INTO inh_c VALUES (2, 'c', 20), (4, 'c', 40);
INSERT INTO inh_d VALUES ('d', 3);
MERGE INTO inh_p t
  USING (VALUES (1), (2), (3), (4), (5)) s(x)
  ON t.a = s.x
  WHEN MATCHED AND a = 4 THEN DELETE
  WHEN MATCHED THEN UPDATE SET b = b || ' updated', a = a * 10
  WHEN NOT MATCHED THEN INSERT VALUES (x, 'new');
SELECT tableoid::regclass, * FROM inh_p ORDER BY a;
SELECT * FROM inh_c ORDER BY a;
-- ONLY: the parent's rows alone
MERGE INTO ONLY inh_p t
  USING (VALUES (10), (20)) s(x)
  ON t.a = s.x
  WHEN MATCHED THEN UPDATE SET b = 'only'
  WHEN NOT MATCHED THEN INSERT VALUES (x, 'only new');
SELECT tableoid::regclass, * FROM inh_p ORDER BY a, b;
DROP TABLE inh_p CASCADE;

-- UPDATE / DELETE through a view of a partitioned table
CREATE TABLE range_parted (a text, b bigint, c numeric, d int, e varchar)
  PARTITION BY RANGE (a, b);
CREATE TABLE part_b_20_b_30 (e varchar, c numeric, a text, b bigint, d int);
ALTER TABLE range_parted ATTACH PARTITION part_b_20_b_30 FOR VALUES FROM ('b', 20) TO ('b', 30);
CREATE TABLE part_b_10_b_20 (e varchar, c numeric, a text, b bigint, d int) PARTITION BY RANGE (c);
CREATE TABLE part_b_1_b_10 PARTITION OF range_parted FOR VALUES FROM ('b', 1) TO ('b', 10);
ALTER TABLE range_parted ATTACH PARTITION part_b_10_b_20 FOR VALUES FROM ('b', 10) TO ('b', 20);
CREATE TABLE part_a_10_a_20 PARTITION OF range_parted FOR VALUES FROM ('a', 10) TO ('a', 20);
CREATE TABLE part_a_1_a_10 PARTITION OF range_parted FOR VALUES FROM ('a', 1) TO ('a', 10);
CREATE TABLE part_c_1_100 (e varchar, d int, c numeric, b bigint, a text);
ALTER TABLE part_b_10_b_20 ATTACH PARTITION part_c_1_100 FOR VALUES FROM (1) TO (100);
CREATE TABLE part_c_100_200 (e varchar, c numeric, a text, b bigint, d int);
ALTER TABLE part_b_10_b_20 ATTACH PARTITION part_c_100_200 FOR VALUES FROM (100) TO (200);
INSERT INTO range_parted VALUES ('a', 1, 1, 1), ('a', 10, 200, 1), ('b', 12, 96, 1),
  ('b', 13, 97, 2), ('b', 15, 105, 16), ('b', 17, 105, 19);
CREATE TABLE mintab (c1 int);
INSERT INTO mintab VALUES (120);
CREATE VIEW upview AS SELECT * FROM range_parted WHERE (SELECT c > c1 FROM mintab) WITH CHECK OPTION;
BEGIN;
UPDATE range_parted SET c = 150 WHERE b = 1;
UPDATE upview SET c = 199 WHERE b = 1;
UPDATE upview SET c = 120 WHERE b = 1;
ROLLBACK;
BEGIN;
UPDATE range_parted SET c = 150 WHERE b = 1;
UPDATE upview SET a = 'b', b = 15, c = 120 WHERE b = 1;
ROLLBACK;
BEGIN;
UPDATE range_parted SET c = 150 WHERE b = 1;
UPDATE upview SET a = 'b', b = 15 WHERE b = 1 RETURNING *;
SELECT tableoid::regclass::text COLLATE "C" partname, * FROM range_parted ORDER BY 1, 2, 3, 4, 5, 6;
ROLLBACK;
CREATE VIEW plainview AS SELECT b, a, c + 1 AS c1, e FROM range_parted WHERE a = 'b';
UPDATE plainview SET e = 'x' || b WHERE c1 > 100 RETURNING *;
UPDATE plainview SET b = b + 1 WHERE b = 17;
DELETE FROM plainview WHERE b = 13 RETURNING b, a;
SELECT tableoid::regclass::text COLLATE "C" partname, * FROM range_parted ORDER BY 1, 2, 3, 4, 5, 6;
-- a row moved out of the view's subtree of a partition
CREATE VIEW subview AS SELECT * FROM part_b_10_b_20;
UPDATE subview SET b = 25 WHERE b = 12;
UPDATE subview SET c = 150 WHERE b = 12;
SELECT tableoid::regclass::text COLLATE "C" partname, * FROM range_parted ORDER BY 1, 2, 3, 4, 5, 6;
DROP VIEW upview, plainview, subview;
DROP TABLE range_parted, mintab;

-- rows written into a partition directly meet its constraint
CREATE TABLE mlp (a int, b int, c text) PARTITION BY LIST (a);
CREATE TABLE mlp1 PARTITION OF mlp FOR VALUES IN (1) PARTITION BY RANGE (b);
CREATE TABLE mlp1a PARTITION OF mlp1 FOR VALUES FROM (0) TO (10);
CREATE TABLE mlp2 PARTITION OF mlp FOR VALUES IN (2);
INSERT INTO mlp1a VALUES (2, 5);
INSERT INTO mlp1 (a, b) VALUES (2, 3);
INSERT INTO mlp1a VALUES (1, 50);
CREATE FUNCTION mlp_trig() RETURNS trigger LANGUAGE plpgsql AS
  $$ BEGIN NEW.a = 2; RETURN NEW; END; $$;
CREATE TRIGGER mlp_trig BEFORE INSERT ON mlp1a FOR EACH ROW EXECUTE PROCEDURE mlp_trig();
INSERT INTO mlp VALUES (1, 5, 'x');
INSERT INTO mlp1 VALUES (1, 5, 'x');
INSERT INTO mlp1a VALUES (1, 5, 'x');
SELECT tableoid::regclass, * FROM mlp;
DROP TABLE mlp;
DROP FUNCTION mlp_trig(), log_trig(), trig_fn();
DROP TABLE trig_log;

-- privileges are the named table's (its partitions' are not checked)
CREATE ROLE regress_merge_part_priv;
CREATE TABLE pp (a int, b text) PARTITION BY LIST (a);
CREATE TABLE pp1 PARTITION OF pp FOR VALUES IN (1, 2);
CREATE TABLE pp2 PARTITION OF pp FOR VALUES IN (3, 4);
INSERT INTO pp VALUES (1, 'one'), (3, 'three');
GRANT SELECT, INSERT, UPDATE ON pp TO regress_merge_part_priv;
SET ROLE regress_merge_part_priv;
MERGE INTO pp t USING (VALUES (1), (2)) s(x) ON t.a = s.x
  WHEN MATCHED THEN UPDATE SET a = 3
  WHEN NOT MATCHED THEN INSERT VALUES (x, 'n');
MERGE INTO pp t USING (VALUES (1), (3)) s(x) ON t.a = s.x
  WHEN MATCHED THEN DELETE;
MERGE INTO pp1 t USING (VALUES (1), (2)) s(x) ON t.a = s.x
  WHEN MATCHED THEN UPDATE SET b = 'x';
RESET ROLE;
SELECT tableoid::regclass, * FROM pp ORDER BY a, b;
DROP TABLE pp;
DROP ROLE regress_merge_part_priv;

-- transition tables: a row an UPDATE action moves is a deleted and an
-- inserted row to MERGE (an updated one to UPDATE)
CREATE TABLE pt (a int, b text) PARTITION BY LIST (a);
CREATE TABLE pt1 PARTITION OF pt FOR VALUES IN (1, 2);
CREATE TABLE pt2 (b text, a int);
ALTER TABLE pt ATTACH PARTITION pt2 FOR VALUES IN (3, 4);
INSERT INTO pt VALUES (1, 'one'), (3, 'three');
CREATE FUNCTION show_new() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record; BEGIN
  FOR r IN SELECT * FROM newt ORDER BY a LOOP RAISE NOTICE '% new %', TG_OP, r; END LOOP;
  RETURN NULL; END $$;
CREATE FUNCTION show_old() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE r record; BEGIN
  FOR r IN SELECT * FROM oldt ORDER BY a LOOP RAISE NOTICE '% old %', TG_OP, r; END LOOP;
  RETURN NULL; END $$;
CREATE TRIGGER tu AFTER UPDATE ON pt REFERENCING NEW TABLE AS newt
  FOR EACH STATEMENT EXECUTE FUNCTION show_new();
CREATE TRIGGER ti AFTER INSERT ON pt REFERENCING NEW TABLE AS newt
  FOR EACH STATEMENT EXECUTE FUNCTION show_new();
CREATE TRIGGER td AFTER DELETE ON pt REFERENCING OLD TABLE AS oldt
  FOR EACH STATEMENT EXECUTE FUNCTION show_old();
BEGIN;
MERGE INTO pt t USING (VALUES (1), (2), (3)) s(x) ON t.a = s.x
  WHEN MATCHED AND a = 1 THEN UPDATE SET a = 4, b = b || '!'
  WHEN MATCHED THEN DELETE
  WHEN NOT MATCHED THEN INSERT VALUES (x, 'new');
SELECT tableoid::regclass, * FROM pt ORDER BY a;
ROLLBACK;
UPDATE pt SET a = 4 WHERE a = 1;
MERGE INTO pt t USING (VALUES (4)) s(x) ON t.a = s.x
  WHEN MATCHED THEN UPDATE SET a = 2;
MERGE INTO pt t USING (VALUES (2)) s(x) ON t.a = s.x
  WHEN MATCHED THEN UPDATE SET a = 4
  WHEN NOT MATCHED THEN INSERT VALUES (1, 'x');
-- through a view
CREATE VIEW pv AS SELECT a, b FROM pt WHERE a > 1;
UPDATE pv SET a = a - 2 RETURNING *;
UPDATE pv SET a = a - 3 RETURNING *;
DELETE FROM pv RETURNING *;
SELECT tableoid::regclass, * FROM pt ORDER BY a;
DROP VIEW pv;
DROP TABLE pt;
DROP FUNCTION show_new(), show_old();
