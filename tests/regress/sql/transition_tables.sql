-- Trigger transition tables: CREATE TRIGGER ... REFERENCING OLD TABLE AS x
-- NEW TABLE AS y, read by name in the trigger function's SQL.
\set VERBOSITY verbose
CREATE TABLE tt (a int PRIMARY KEY, b text);
CREATE FUNCTION show_tt() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  o text;
  n text;
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    SELECT string_agg(x::text, ' ' ORDER BY x.a) INTO o FROM old_rows x;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    SELECT string_agg(x::text, ' ' ORDER BY x.a) INTO n FROM new_rows x;
  END IF;
  RAISE NOTICE '% % % on %: old %, new %', TG_NAME, TG_LEVEL, TG_OP, TG_TABLE_NAME,
    coalesce(o, '-'), coalesce(n, '-');
  RETURN NULL;
END $$;

-- Refused
CREATE TRIGGER e BEFORE INSERT ON tt REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION show_tt();
CREATE TRIGGER e AFTER INSERT OR UPDATE ON tt REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION show_tt();
CREATE TRIGGER e AFTER UPDATE OF b ON tt REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION show_tt();
CREATE TRIGGER e AFTER DELETE ON tt REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION show_tt();
CREATE TRIGGER e AFTER INSERT ON tt REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION show_tt();
CREATE TRIGGER e AFTER UPDATE ON tt REFERENCING OLD TABLE AS a OLD TABLE AS b
  FOR EACH STATEMENT EXECUTE FUNCTION show_tt();
CREATE TRIGGER e AFTER UPDATE ON tt REFERENCING NEW TABLE AS a NEW TABLE AS b
  FOR EACH STATEMENT EXECUTE FUNCTION show_tt();
CREATE TRIGGER e AFTER UPDATE ON tt REFERENCING OLD TABLE AS same NEW TABLE AS same
  FOR EACH STATEMENT EXECUTE FUNCTION show_tt();
CREATE TRIGGER e AFTER TRUNCATE ON tt REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION show_tt();
CREATE TRIGGER e AFTER UPDATE ON tt REFERENCING OLD ROW AS r
  FOR EACH ROW EXECUTE FUNCTION show_tt();
CREATE VIEW ttv AS SELECT * FROM tt;
CREATE TRIGGER e INSTEAD OF INSERT ON ttv REFERENCING NEW TABLE AS new_rows
  FOR EACH ROW EXECUTE FUNCTION show_tt();
CREATE TRIGGER e AFTER INSERT ON ttv REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION show_tt();

-- Statement and row triggers on a plain table
CREATE TRIGGER tt_ins AFTER INSERT ON tt REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION show_tt();
CREATE TRIGGER tt_upd AFTER UPDATE ON tt REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH ROW EXECUTE FUNCTION show_tt();
CREATE TRIGGER tt_del AFTER DELETE ON tt REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION show_tt();
SELECT tgname, tgoldtable, tgnewtable, pg_get_triggerdef(oid)
  FROM pg_trigger WHERE tgrelid = 'tt'::regclass ORDER BY tgname;
\d tt
INSERT INTO tt VALUES (1, 'one'), (2, 'two'), (3, 'three');
INSERT INTO tt SELECT 4, 'four' WHERE false;
UPDATE tt SET b = b || '!' WHERE a < 3;
DELETE FROM tt WHERE a > 1;
-- ON CONFLICT: inserted rows to INSERT's, updated ones to UPDATE's
INSERT INTO tt VALUES (1, 'uno'), (5, 'five') ON CONFLICT (a) DO UPDATE SET b = excluded.b;
COPY tt FROM stdin;
6	six
7	seven
\.
-- MERGE
MERGE INTO tt USING (VALUES (1, 'x'), (8, 'eight')) v(a, b) ON tt.a = v.a
  WHEN MATCHED THEN UPDATE SET b = v.b
  WHEN NOT MATCHED THEN INSERT VALUES (v.a, v.b);
DROP TRIGGER tt_upd ON tt;

-- The names are relations of the trigger function's own SQL: EXECUTE sees
-- them, a function it calls does not; a CTE by the same name hides one,
-- and one hides a table by the same name.
CREATE TABLE new_rows (z int);
CREATE FUNCTION count_new() RETURNS bigint LANGUAGE sql AS 'SELECT count(*) FROM new_rows';
CREATE FUNCTION probe() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
BEGIN
  EXECUTE 'SELECT count(*) FROM new_rows' INTO n;
  RAISE NOTICE 'EXECUTE: %', n;
  RAISE NOTICE 'called function: %', count_new();
  WITH new_rows AS (SELECT 1 AS a) SELECT count(*) INTO n FROM new_rows;
  RAISE NOTICE 'CTE: %', n;
  RAISE NOTICE 'sum: %', (SELECT sum(a) FROM new_rows);
  RAISE NOTICE 'public.new_rows: %', (SELECT count(*) FROM public.new_rows);
  RETURN NULL;
END $$;
CREATE TRIGGER tt_probe AFTER INSERT ON tt REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION probe();
INSERT INTO tt VALUES (10, 'ten'), (11, 'eleven');
INSERT INTO tt VALUES (12, 'twelve');
DROP TRIGGER tt_probe ON tt;
DROP TABLE new_rows;

-- Partitioned table: the rows of all partitions, in its layout
CREATE TABLE pt (a int, b text) PARTITION BY LIST (a);
CREATE TABLE pt1 PARTITION OF pt FOR VALUES IN (1);
CREATE TABLE pt2 (b text, x int, a int);
ALTER TABLE pt2 DROP COLUMN x;
ALTER TABLE pt ATTACH PARTITION pt2 FOR VALUES IN (2);
CREATE TRIGGER pt_row AFTER INSERT ON pt REFERENCING NEW TABLE AS new_rows
  FOR EACH ROW EXECUTE FUNCTION show_tt();
CREATE TRIGGER pt1_row AFTER INSERT ON pt1 REFERENCING NEW TABLE AS new_rows
  FOR EACH ROW EXECUTE FUNCTION show_tt();
CREATE TRIGGER pt_ins AFTER INSERT ON pt REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION show_tt();
CREATE TRIGGER pt_upd AFTER UPDATE ON pt REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION show_tt();
CREATE TRIGGER pt_del AFTER DELETE ON pt REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION show_tt();
CREATE TRIGGER pt2_ins AFTER INSERT ON pt2 REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION show_tt();
INSERT INTO pt VALUES (1, 'a'), (2, 'b');
INSERT INTO pt2 VALUES ('c', 2);
-- rows moved between partitions are UPDATEs in the transition tables
UPDATE pt SET a = 3 - a;
UPDATE pt SET b = b || 'y' WHERE a = 1;
COPY pt FROM stdin;
1	d
\.
DELETE FROM pt;
CREATE TABLE pt3 (a int, b text);
CREATE TRIGGER pt3_row AFTER INSERT ON pt3 REFERENCING NEW TABLE AS new_rows
  FOR EACH ROW EXECUTE FUNCTION show_tt();
ALTER TABLE pt ATTACH PARTITION pt3 FOR VALUES IN (3);

-- Inheritance: the children's rows, in the parent's layout
CREATE TABLE par (a int, b text);
CREATE TABLE chi (c int) INHERITS (par);
CREATE TRIGGER par_upd AFTER UPDATE ON par REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH ROW EXECUTE FUNCTION show_tt();
CREATE TRIGGER par_del AFTER DELETE ON par REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION show_tt();
CREATE TRIGGER chi_row AFTER INSERT ON chi REFERENCING NEW TABLE AS new_rows
  FOR EACH ROW EXECUTE FUNCTION show_tt();
INSERT INTO par VALUES (1, 'p');
INSERT INTO chi VALUES (2, 'c', 20);
UPDATE par SET b = b || 'z';
DELETE FROM par;
CREATE TABLE chi2 (a int, b text);
CREATE TRIGGER chi2_row AFTER INSERT ON chi2 REFERENCING NEW TABLE AS new_rows
  FOR EACH ROW EXECUTE FUNCTION show_tt();
ALTER TABLE chi2 INHERIT par;
DROP TRIGGER chi2_row ON chi2;
ALTER TABLE chi2 INHERIT par;
\d par
-- information_schema.triggers shows the transition table names
SELECT trigger_name, event_manipulation, event_object_table, action_order,
       action_condition, action_statement, action_orientation, action_timing,
       action_reference_old_table, action_reference_new_table
  FROM information_schema.triggers
 WHERE event_object_table IN ('tt', 'pt', 'pt2', 'par')
 ORDER BY trigger_name COLLATE "C", 2;
