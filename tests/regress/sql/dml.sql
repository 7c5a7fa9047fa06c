--
-- DML: INSERT (multi-row, SELECT, DEFAULT, RETURNING, ON CONFLICT),
-- UPDATE (expressions, FROM, RETURNING), DELETE (USING, RETURNING).
--
\set QUIET off
CREATE TABLE items (
    id integer PRIMARY KEY,
    name text NOT NULL,
    qty integer NOT NULL DEFAULT 1,
    price numeric(10,2)
);
INSERT INTO items VALUES (1, 'apple', 3, 1.50);
INSERT INTO items (id, name, qty, price) VALUES
    (2, 'pear', 5, 2.25),
    (3, 'plum', DEFAULT, NULL),
    (4, 'fig', 7, 0.5);
INSERT INTO items (name, id) VALUES ('kiwi', 5);
INSERT INTO items (id, name) VALUES (6, 'lime') RETURNING *;
INSERT INTO items VALUES (7, 'date', 2, 9.999) RETURNING id, name AS fruit, qty * 2 AS double_qty, price;
INSERT INTO items (id, name) SELECT id + 100, upper(name) FROM items WHERE qty > 4 RETURNING id, name;
INSERT INTO items (id, name) SELECT 200, 'nothing' WHERE false;
INSERT INTO items DEFAULT VALUES;
INSERT INTO items (id) VALUES (8);
INSERT INTO items VALUES (9, 'too', 1, 1, 'many');
INSERT INTO items (id, name) VALUES (9);
INSERT INTO items (id, no_such_column) VALUES (9, 1);
INSERT INTO items VALUES ('ten', 'x');
SELECT * FROM items ORDER BY id;
-- ON CONFLICT
CREATE TABLE kv (k text PRIMARY KEY, v integer, note text);
INSERT INTO kv VALUES ('a', 1), ('b', 2);
INSERT INTO kv VALUES ('a', 10) ON CONFLICT DO NOTHING;
INSERT INTO kv VALUES ('a', 10), ('c', 3) ON CONFLICT (k) DO NOTHING RETURNING *;
INSERT INTO kv VALUES ('a', 10), ('d', 4) ON CONFLICT (k) DO UPDATE SET v = kv.v + EXCLUDED.v RETURNING *;
INSERT INTO kv AS t VALUES ('b', 20, 'new') ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v, note = t.note || '+' || EXCLUDED.note RETURNING *;
INSERT INTO kv VALUES ('b', 30) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v WHERE kv.v > 100 RETURNING *;
INSERT INTO kv VALUES ('c', 30) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v WHERE kv.v < 100 RETURNING k, v;
INSERT INTO kv VALUES ('e', 1) ON CONFLICT DO NOTHING;
INSERT INTO kv VALUES ('f', 1) ON CONFLICT (v) DO NOTHING;
SELECT * FROM kv ORDER BY k;
-- UPDATE
UPDATE items SET qty = qty + 1 WHERE name LIKE 'p%' RETURNING id, name, qty;
UPDATE items SET price = price * 2 WHERE price IS NOT NULL;
UPDATE items SET qty = 0 WHERE false;
UPDATE items SET name = name || '!', qty = qty * 10 WHERE id = 1 RETURNING *;
UPDATE items SET qty = DEFAULT WHERE id = 1 RETURNING qty;
UPDATE items SET name = 'apple', qty = 2 WHERE id = 1;
UPDATE items SET qty = NULL WHERE id = 1;
UPDATE items SET no_such_column = 1;
UPDATE items SET qty = 'x';
SELECT * FROM items ORDER BY id;
-- UPDATE ... FROM
CREATE TABLE restock (name text, extra integer);
INSERT INTO restock VALUES ('apple', 10), ('fig', 20), ('nothing', 30);
UPDATE items i SET qty = i.qty + r.extra FROM restock r WHERE r.name = i.name RETURNING i.id, i.name, i.qty, r.extra;
UPDATE items SET price = 0 FROM restock WHERE restock.name = items.name AND restock.extra > 15;
SELECT * FROM items ORDER BY id;
-- DELETE
DELETE FROM items WHERE qty > 20 RETURNING *;
DELETE FROM items WHERE false;
DELETE FROM items i USING restock r WHERE i.name = r.name RETURNING i.id, i.name, r.extra;
DELETE FROM items WHERE id > 100;
SELECT * FROM items ORDER BY id;
DELETE FROM items;
SELECT count(*) FROM items;
-- updating a primary key
INSERT INTO kv VALUES ('z', 26);
UPDATE kv SET k = 'a' WHERE k = 'z';
UPDATE kv SET k = 'y' WHERE k = 'z' RETURNING k, v;
SELECT * FROM kv ORDER BY k;
-- a row updated twice in one transaction, then deleted
BEGIN;
UPDATE kv SET v = v + 1 WHERE k = 'a';
UPDATE kv SET v = v + 1 WHERE k = 'a';
SELECT v FROM kv WHERE k = 'a';
DELETE FROM kv WHERE k = 'a' RETURNING *;
INSERT INTO kv VALUES ('a', 0) RETURNING *;
COMMIT;
SELECT * FROM kv ORDER BY k;
-- duplicates within one command: DO NOTHING keeps the first, DO UPDATE fails
INSERT INTO kv VALUES ('p', 1), ('p', 2) ON CONFLICT DO NOTHING RETURNING *;
INSERT INTO kv VALUES ('q', 1), ('q', 2) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v;
SELECT count(*) FROM kv WHERE k = 'q';
DROP TABLE items, kv, restock;
