-- MERGE (PostgreSQL 15): matched and not-matched actions, conditions,
-- sources, command tags, errors, triggers, constraints, WITH.
CREATE TABLE target (tid int PRIMARY KEY, balance int NOT NULL DEFAULT 0, note text);
CREATE TABLE source (sid int, delta int, note text);
INSERT INTO target VALUES (1, 10, 'one'), (2, 20, 'two'), (3, 30, 'three');
INSERT INTO source VALUES (2, 5, 'two+'), (3, -30, 'gone'), (4, 40, 'four'), (5, 50, NULL);

-- All three actions; the first WHEN clause whose condition holds acts.
MERGE INTO target t
USING source s ON t.tid = s.sid
WHEN MATCHED AND t.balance + s.delta <= 0 THEN DELETE
WHEN MATCHED THEN UPDATE SET balance = t.balance + s.delta, note = s.note
WHEN NOT MATCHED AND s.note IS NOT NULL THEN INSERT VALUES (s.sid, s.delta, s.note)
WHEN NOT MATCHED THEN INSERT (tid) VALUES (s.sid);
SELECT * FROM target ORDER BY tid;

-- Only MATCHED clauses: an inner join; DO NOTHING counts nothing.
MERGE INTO target t USING source s ON t.tid = s.sid
WHEN MATCHED AND s.delta > 100 THEN DELETE
WHEN MATCHED THEN DO NOTHING;
MERGE INTO target USING source ON target.tid = source.sid
WHEN MATCHED THEN UPDATE SET note = target.note || '!';
SELECT * FROM target ORDER BY tid;

-- Sources: a subquery, VALUES, a join, a table function.
MERGE INTO target t
USING (SELECT sid, delta FROM source WHERE sid > 4) s ON t.tid = s.sid
WHEN MATCHED THEN UPDATE SET balance = 0;
MERGE INTO target t
USING (VALUES (1, 'v1'), (7, 'v7')) AS v(id, n) ON t.tid = v.id
WHEN MATCHED THEN UPDATE SET note = v.n
WHEN NOT MATCHED THEN INSERT (tid, note) VALUES (v.id, v.n);
MERGE INTO target t
USING source s JOIN (VALUES (2), (4)) AS k(id) ON s.sid = k.id ON t.tid = s.sid
WHEN MATCHED THEN UPDATE SET balance = balance + 1;
MERGE INTO target t
USING generate_series(8, 9) AS g(id) ON t.tid = g.id
WHEN NOT MATCHED THEN INSERT DEFAULT VALUES;
SELECT * FROM target ORDER BY tid;
TRUNCATE target;
MERGE INTO target t
USING generate_series(8, 9) AS g(id) ON t.tid = g.id
WHEN NOT MATCHED THEN INSERT (tid, note) VALUES (g.id, DEFAULT);
SELECT * FROM target ORDER BY tid;

-- A target row matched by two source rows.
INSERT INTO source VALUES (8, 1, 'again'), (8, 2, 'twice');
MERGE INTO target t USING source s ON t.tid = s.sid
WHEN MATCHED THEN UPDATE SET balance = s.delta;
MERGE INTO target t USING source s ON t.tid = s.sid
WHEN MATCHED THEN DELETE;
-- ... is fine when neither write happens.
MERGE INTO target t USING source s ON t.tid = s.sid
WHEN MATCHED AND s.delta > 100 THEN UPDATE SET balance = s.delta;
SELECT * FROM target ORDER BY tid;

-- Constraints apply as for INSERT and UPDATE.
MERGE INTO target t USING (VALUES (8, NULL::int)) v(id, b) ON t.tid = v.id
WHEN MATCHED THEN UPDATE SET balance = v.b;
MERGE INTO target t USING (VALUES (9)) v(id) ON t.tid = v.id + 100
WHEN NOT MATCHED THEN INSERT VALUES (v.id, 1);
ALTER TABLE target ADD CONSTRAINT balance_small CHECK (balance < 1000);
MERGE INTO target t USING (VALUES (8, 5000)) v(id, b) ON t.tid = v.id
WHEN MATCHED THEN UPDATE SET balance = v.b;
CREATE TABLE child (cid int PRIMARY KEY, tid int REFERENCES target);
INSERT INTO child VALUES (1, 8);
MERGE INTO target t USING (VALUES (8)) v(id) ON t.tid = v.id
WHEN MATCHED THEN DELETE;
MERGE INTO child c USING (VALUES (2, 77)) v(id, t) ON c.cid = v.id
WHEN NOT MATCHED THEN INSERT VALUES (v.id, v.t);
SELECT * FROM target ORDER BY tid;

-- Assignment casts and defaults.
CREATE TABLE typed (id int PRIMARY KEY, n numeric(5,1), t varchar(3), d date DEFAULT '2020-01-01');
MERGE INTO typed USING (VALUES (1, 2.25, 'abc')) v(a, b, c) ON typed.id = v.a
WHEN NOT MATCHED THEN INSERT (id, n, t) VALUES (v.a, v.b, v.c);
MERGE INTO typed USING (VALUES (1, '7.77')) v(a, b) ON typed.id = v.a
WHEN MATCHED THEN UPDATE SET n = v.b::numeric, d = DEFAULT;
SELECT * FROM typed;
MERGE INTO typed USING (VALUES (1, 'abcd')) v(a, c) ON typed.id = v.a
WHEN MATCHED THEN UPDATE SET t = v.c;

-- WITH before MERGE.
WITH w AS (SELECT 2 AS id, 'from cte' AS n)
MERGE INTO typed USING w ON typed.id = w.id
WHEN NOT MATCHED THEN INSERT (id, t) VALUES (w.id, 'cte');
SELECT * FROM typed ORDER BY id;

-- Errors.
CREATE VIEW target_v AS SELECT * FROM target;
MERGE INTO target_v v USING source s ON v.tid = s.sid WHEN MATCHED THEN DELETE;
WITH m AS (MERGE INTO target t USING source s ON t.tid = s.sid WHEN MATCHED THEN DELETE)
SELECT 1;
MERGE INTO target t USING source s ON t.tid = s.sid WHEN MATCHED THEN DELETE RETURNING *;
MERGE INTO target t USING source s ON t.tid = s.sid WHEN NOT MATCHED BY SOURCE THEN DELETE;
MERGE INTO target t USING source s ON t.tid = s.sid
WHEN NOT MATCHED THEN INSERT VALUES (t.tid, s.delta);
MERGE INTO target t USING source s ON t.tid = s.sid
WHEN NOT MATCHED AND t.balance > 0 THEN INSERT VALUES (s.sid, s.delta);
MERGE INTO target t USING source s ON t.tid = s.sid
WHEN MATCHED THEN DELETE
WHEN MATCHED THEN UPDATE SET balance = 0;
MERGE INTO target USING target ON target.tid = target.tid WHEN MATCHED THEN DELETE;
MERGE INTO target t USING source s ON t.tid = s.sid WHEN MATCHED THEN UPDATE SET nosuch = 1;
MERGE INTO target t USING source s ON t.tid = s.sid
WHEN NOT MATCHED THEN INSERT (tid) VALUES (s.sid, s.delta);
MERGE INTO target t USING source s ON t.tid = s.sid
WHEN NOT MATCHED THEN INSERT (tid, balance) VALUES (s.sid);
MERGE INTO target t USING source s ON t.tid = s.sid
WHEN MATCHED AND s.delta THEN DELETE;
MERGE INTO nosuch t USING source s ON t.tid = s.sid WHEN MATCHED THEN DELETE;
MERGE INTO target t USING nosuch s ON t.tid = s.sid WHEN MATCHED THEN DELETE;

-- Triggers fire as for the individual statements.
CREATE TABLE trg (id int PRIMARY KEY, v text);
INSERT INTO trg VALUES (1, 'a'), (2, 'b');
CREATE FUNCTION trg_note() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_LEVEL = 'ROW' THEN
    RAISE NOTICE '% % % % old=% new=%', TG_NAME, TG_WHEN, TG_LEVEL, TG_OP,
      CASE WHEN TG_OP <> 'INSERT' THEN OLD.v END, CASE WHEN TG_OP <> 'DELETE' THEN NEW.v END;
  ELSE
    RAISE NOTICE '% % % %', TG_NAME, TG_WHEN, TG_LEVEL, TG_OP;
  END IF;
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  IF TG_LEVEL = 'ROW' AND TG_WHEN = 'BEFORE' AND TG_OP = 'INSERT' AND NEW.v = 'skip' THEN
    RETURN NULL;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER bs_i BEFORE INSERT ON trg FOR EACH STATEMENT EXECUTE FUNCTION trg_note();
CREATE TRIGGER bs_u BEFORE UPDATE ON trg FOR EACH STATEMENT EXECUTE FUNCTION trg_note();
CREATE TRIGGER bs_d BEFORE DELETE ON trg FOR EACH STATEMENT EXECUTE FUNCTION trg_note();
CREATE TRIGGER as_i AFTER INSERT ON trg FOR EACH STATEMENT EXECUTE FUNCTION trg_note();
CREATE TRIGGER as_u AFTER UPDATE ON trg FOR EACH STATEMENT EXECUTE FUNCTION trg_note();
CREATE TRIGGER as_d AFTER DELETE ON trg FOR EACH STATEMENT EXECUTE FUNCTION trg_note();
CREATE TRIGGER br BEFORE INSERT OR UPDATE OR DELETE ON trg FOR EACH ROW EXECUTE FUNCTION trg_note();
CREATE TRIGGER ar AFTER INSERT OR UPDATE OR DELETE ON trg FOR EACH ROW EXECUTE FUNCTION trg_note();
MERGE INTO trg USING (VALUES (1, 'x')) v(id, v) ON trg.id = v.id
WHEN MATCHED THEN UPDATE SET v = v.v
WHEN NOT MATCHED THEN INSERT VALUES (v.id, v.v);
MERGE INTO trg USING (VALUES (2)) v(id) ON trg.id = v.id
WHEN MATCHED THEN DELETE;
MERGE INTO trg USING (VALUES (3, 'c')) v(id, v) ON trg.id = v.id
WHEN NOT MATCHED THEN INSERT VALUES (v.id, v.v);
MERGE INTO trg USING (VALUES (4, 'skip')) v(id, v) ON trg.id = v.id
WHEN NOT MATCHED THEN INSERT VALUES (v.id, v.v);
MERGE INTO trg USING (VALUES (1)) v(id) ON trg.id = v.id
WHEN MATCHED THEN DO NOTHING;
SELECT * FROM trg ORDER BY id;

-- Inside a transaction, rolled back with it; in a PL/pgSQL function.
BEGIN;
MERGE INTO typed USING (VALUES (5)) v(a) ON typed.id = v.a
WHEN NOT MATCHED THEN INSERT (id) VALUES (v.a);
SELECT count(*) FROM typed;
ROLLBACK;
SELECT count(*) FROM typed;
CREATE FUNCTION merge_in_fn(k int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE n int;
BEGIN
  MERGE INTO typed USING (VALUES (k)) v(a) ON typed.id = v.a
  WHEN MATCHED THEN UPDATE SET t = 'fn'
  WHEN NOT MATCHED THEN INSERT (id, t) VALUES (v.a, 'new');
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END $$;
SELECT merge_in_fn(1), merge_in_fn(6);
SELECT * FROM typed ORDER BY id;

-- A partition as the target: its constraint applies.
CREATE TABLE parted (a int, b text) PARTITION BY LIST (a);
CREATE TABLE parted_1 PARTITION OF parted FOR VALUES IN (1);
MERGE INTO parted_1 p USING (VALUES (1, 'x')) v(a, b) ON p.a = v.a
WHEN NOT MATCHED THEN INSERT VALUES (v.a, v.b);
MERGE INTO parted_1 p USING (VALUES (1, 'y')) v(a, b) ON p.a = v.a
WHEN MATCHED THEN UPDATE SET a = 2;
SELECT * FROM parted ORDER BY a;
