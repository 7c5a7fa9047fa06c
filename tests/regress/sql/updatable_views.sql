-- Automatically updatable views: INSERT/UPDATE/DELETE through simple views,
-- read-only columns, nested views, check options, and the errors of views
-- that are not updatable.
CREATE TABLE base (id int PRIMARY KEY, name text NOT NULL, qty int DEFAULT 10, note text DEFAULT 'none');
INSERT INTO base VALUES (1, 'one', 1, 'a'), (2, 'two', 2, 'b'), (3, 'three', 3, 'c');
CREATE VIEW v AS SELECT id, name AS label, qty, qty * 2 AS double_qty FROM base WHERE qty < 100;

-- INSERT: base columns missing from the view get their defaults
INSERT INTO v (id, label) VALUES (4, 'four');
INSERT INTO v VALUES (5, 'five', 5) RETURNING *;
INSERT INTO v (label, id, qty) SELECT 'six', 6, 6 RETURNING id, label, double_qty;
SELECT * FROM base ORDER BY id;
SELECT * FROM v ORDER BY id;

-- UPDATE and DELETE add the view's condition
INSERT INTO base VALUES (7, 'hidden', 500, 'x');
UPDATE v SET qty = qty + 1 WHERE id >= 5 RETURNING *;
UPDATE v SET label = upper(label) WHERE double_qty = 2;
UPDATE v SET qty = 0 WHERE label = 'hidden';
DELETE FROM v WHERE id = 7;
DELETE FROM v WHERE id = 6 RETURNING label, double_qty;
SELECT * FROM base ORDER BY id;

-- read-only columns
\set VERBOSITY verbose
UPDATE v SET double_qty = 3 WHERE id = 1;
INSERT INTO v (id, label, double_qty) VALUES (8, 'eight', 16);
INSERT INTO v VALUES (8, 'eight', 8, 16);
UPDATE v SET nope = 1;
\set VERBOSITY default
INSERT INTO v VALUES (8, 'eight', 8);
SELECT * FROM v WHERE id = 8;

-- nested views
CREATE VIEW vv AS SELECT label, id, double_qty FROM v WHERE id > 1;
INSERT INTO vv (id, label) VALUES (9, 'nine') RETURNING *;
UPDATE vv SET label = label || '!' WHERE id IN (1, 2, 9) RETURNING *;
DELETE FROM vv WHERE label = 'nine!';
SELECT * FROM base ORDER BY id;

-- UPDATE ... FROM, DELETE ... USING and correlated subqueries
CREATE TABLE changes (id int, new_label text);
INSERT INTO changes VALUES (2, 'two (from)'), (3, 'three (from)'), (7, 'hidden (from)');
CREATE VIEW plain AS SELECT id, name FROM base WHERE qty < 100;
UPDATE plain SET name = c.new_label FROM changes c WHERE plain.id = c.id;
UPDATE v SET label = label || ' *' FROM changes WHERE v.id = changes.id AND v.double_qty > 4;
UPDATE plain SET name = name || ' (corr)' WHERE EXISTS (SELECT 1 FROM changes c WHERE c.id = plain.id + 1);
DELETE FROM plain USING changes WHERE plain.id = changes.id + 5;
SELECT * FROM base ORDER BY id;

-- transactions: writes through a view roll back like any other
BEGIN;
DELETE FROM v;
SELECT count(*) FROM base;
ROLLBACK;
SELECT count(*) FROM base;

-- check options
CREATE TABLE nums (n int, tag text);
CREATE VIEW pos AS SELECT n, tag FROM nums WHERE n > 0;
CREATE VIEW pos_small_local AS SELECT n, tag FROM pos WHERE n < 10 WITH LOCAL CHECK OPTION;
CREATE VIEW pos_small_cascaded AS SELECT n, tag FROM pos WHERE n < 10 WITH CASCADED CHECK OPTION;
CREATE VIEW pos_checked WITH (check_option = local) AS SELECT n, tag FROM nums WHERE n > 0;
INSERT INTO pos_small_local VALUES (5, 'ok');
INSERT INTO pos_small_local VALUES (-5, 'local passes: pos has no check option');
INSERT INTO pos_small_local VALUES (50, 'too big');
INSERT INTO pos_small_cascaded VALUES (6, 'ok');
INSERT INTO pos_small_cascaded VALUES (-6, 'cascaded checks pos too');
INSERT INTO pos_small_cascaded VALUES (60, 'too big');
UPDATE pos_small_local SET n = 20 WHERE n = 5;
UPDATE pos_small_cascaded SET n = -1 WHERE n = 6;
UPDATE pos_small_cascaded SET n = 7 WHERE n = 6 RETURNING *;
INSERT INTO pos_checked VALUES (0, 'zero');
INSERT INTO pos_checked VALUES (NULL, 'null fails the check');
INSERT INTO pos VALUES (0, 'no check option');
CREATE VIEW over_checked AS SELECT n, tag FROM pos_checked WHERE n < 100;
INSERT INTO over_checked VALUES (-3, 'the inner check option still applies');
INSERT INTO over_checked VALUES (300, 'the outer view has none');
SELECT * FROM nums ORDER BY n, tag;
CREATE VIEW bad_check AS SELECT n, count(*) AS c FROM nums GROUP BY n WITH CHECK OPTION;
CREATE VIEW bad_check AS SELECT n + 1 AS m FROM nums WITH LOCAL CHECK OPTION;
CREATE VIEW bad_option WITH (check_option = sideways) AS SELECT n FROM nums;
SELECT relname, reloptions FROM pg_class WHERE relname LIKE 'pos%' ORDER BY 1;
SELECT table_name, check_option, is_updatable, is_insertable_into FROM information_schema.views WHERE table_name LIKE 'pos%' ORDER BY 1;

-- views that are not automatically updatable
\set VERBOSITY verbose
CREATE VIEW grouped AS SELECT qty, count(*) AS c FROM base GROUP BY qty;
INSERT INTO grouped VALUES (1, 1);
UPDATE grouped SET qty = 2;
DELETE FROM grouped;
CREATE VIEW distinct_v AS SELECT DISTINCT qty FROM base;
DELETE FROM distinct_v;
CREATE VIEW agg_v AS SELECT max(qty) AS m FROM base;
UPDATE agg_v SET m = 1;
CREATE VIEW limited AS SELECT id FROM base LIMIT 2;
DELETE FROM limited;
CREATE VIEW unioned AS SELECT id FROM base UNION SELECT n FROM nums;
INSERT INTO unioned VALUES (1);
CREATE VIEW joined AS SELECT b.id, n.n FROM base b, nums n WHERE b.id = n.n;
DELETE FROM joined;
CREATE VIEW win AS SELECT id, row_number() OVER () AS r FROM base;
DELETE FROM win;
CREATE VIEW srf AS SELECT id, generate_series(1, 2) AS g FROM base;
DELETE FROM srf;
CREATE VIEW consts AS SELECT id + 1 AS x, 'k' AS y FROM base;
INSERT INTO consts VALUES (1, 'k');
DELETE FROM consts WHERE x = 2;
CREATE VIEW over_grouped AS SELECT qty FROM grouped;
INSERT INTO over_grouped VALUES (1);
\set VERBOSITY default
SELECT table_name, is_updatable, is_insertable_into FROM information_schema.views WHERE table_schema = 'public' ORDER BY 1;
SELECT table_name, column_name, is_updatable FROM information_schema.columns WHERE table_name IN ('v', 'vv', 'consts') ORDER BY 1, ordinal_position;
SELECT * FROM base ORDER BY id;

-- relation locks: the views and the table are held ROW EXCLUSIVE
BEGIN;
UPDATE vv SET label = 'locked' WHERE id = 2;
SELECT c.relname, l.mode FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
 WHERE l.pid = pg_backend_pid() AND l.locktype = 'relation' AND c.relname IN ('base', 'v', 'vv')
 ORDER BY 1, 2;
ROLLBACK;

-- triggers of the base table fire for writes through a view
CREATE FUNCTION base_note() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN NEW.note := 'via trigger'; RETURN NEW; END $$;
CREATE TRIGGER base_note BEFORE INSERT ON base FOR EACH ROW EXECUTE FUNCTION base_note();
INSERT INTO v VALUES (10, 'ten', 10);
SELECT id, note FROM base WHERE id = 10;

-- privileges: the user's on the view, the view owner's on the table
CREATE ROLE regress_uv_owner;
CREATE ROLE regress_uv_user;
CREATE TABLE secret (id int, val text);
GRANT SELECT, INSERT, UPDATE ON secret TO regress_uv_owner;
CREATE VIEW secret_v AS SELECT id, val FROM secret;
ALTER VIEW secret_v OWNER TO regress_uv_owner;
GRANT SELECT, INSERT ON secret_v TO regress_uv_user;
SET ROLE regress_uv_user;
INSERT INTO secret_v VALUES (1, 'x');
UPDATE secret_v SET val = 'y';
DELETE FROM secret;
RESET ROLE;
GRANT UPDATE, DELETE ON secret_v TO regress_uv_user;
SET ROLE regress_uv_user;
UPDATE secret_v SET val = 'y' RETURNING *;
DELETE FROM secret_v;
RESET ROLE;
SELECT * FROM secret;
DROP VIEW secret_v;
DROP TABLE secret;
DROP ROLE regress_uv_owner, regress_uv_user;
SELECT * FROM base ORDER BY id;
