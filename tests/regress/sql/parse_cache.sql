--
-- Statements that differ only in their literal constants. Nestor serves the
-- third and later ones of a shape from the parse tree of an earlier text
-- with the constants replaced (crates/parser/src/cache.rs): every result
-- and every error cursor must still be the text's own.
--
CREATE TABLE pc (id integer PRIMARY KEY, v text, n numeric(8,2));
INSERT INTO pc VALUES (1, 'one', 1.5);
INSERT INTO pc VALUES (2, 'it''s two', 22.25);
INSERT INTO pc VALUES (3, 'three', 333.125);
INSERT INTO pc VALUES (40000, '', -4);
SELECT * FROM pc ORDER BY id;
SELECT v FROM pc WHERE id = 1;
SELECT v FROM pc WHERE id = 2;
SELECT v FROM pc WHERE id = 3;
SELECT v FROM pc WHERE id = 40000;
SELECT v FROM pc WHERE id = 99999999999;
SELECT id, n * 2.5 FROM pc WHERE v = 'one' OR n > 1e2 ORDER BY id;
SELECT id, n * 3.75 FROM pc WHERE v = 'it''s two' OR n > 3e2 ORDER BY id;
SELECT id, n * 0.5 FROM pc WHERE v = '' OR n > 9e9 ORDER BY id;
SELECT id FROM pc WHERE id IN (1, 3) ORDER BY id LIMIT 1;
SELECT id FROM pc WHERE id IN (2, 40000) ORDER BY id LIMIT 2;
SELECT id FROM pc WHERE id IN (3, 1) ORDER BY id LIMIT 5;
SELECT -1, -22, 'x' || 'y', 'a''''b';
SELECT -3, -4, 'p' || 'q', 'c''d';
SELECT 'abc'::varchar(2), 'abcdef'::varchar(5), 12.345::numeric(4,1);
SELECT 'xyz'::varchar(1), 'uvwxyz'::varchar(3), 9.999::numeric(5,2);
SELECT 'klm'::varchar(3), 'nopqrs'::varchar(4), 1.05::numeric(3,1);
UPDATE pc SET v = 'uno', n = n + 1 WHERE id = 1;
UPDATE pc SET v = 'dos', n = n + 2 WHERE id = 2;
UPDATE pc SET v = 'tres', n = n + 3 WHERE id = 3;
SELECT * FROM pc ORDER BY id;
PREPARE sel(integer) AS SELECT v FROM pc WHERE id = $1;
EXECUTE sel(1);
EXECUTE sel(1 + 1);
EXECUTE sel(10 * 0 + 3);
EXECUTE sel(10 * 4000 + 0);
\set VERBOSITY verbose
-- Error cursors after literals of other lengths.
SELECT 1 + 1, nope FROM pc;
SELECT 22 + 333, nope FROM pc;
SELECT 123456 + 7, nope FROM pc;
SELECT 'a' + 1 FROM pc WHERE id = 1;
SELECT 'abc' + 22 FROM pc WHERE id = 1;
SELECT 'abcdef' + 333 FROM pc WHERE id = 1;
SELECT v FROM pc WHERE id = 'x';
SELECT v FROM pc WHERE id = 'xyz';
SELECT v FROM pc WHERE id = 'longer text';
INSERT INTO pc VALUES (5, 'five', 123456789);
INSERT INTO pc VALUES (6, 'six', 1234567890);
INSERT INTO pc VALUES (1, 'dup', 1);
INSERT INTO pc VALUES (2, 'duplicate', 2);
