-- CREATE TABLE ... AS, SELECT ... INTO, CREATE TABLE (LIKE ...).
\set VERBOSITY verbose
CREATE TABLE base (id int PRIMARY KEY, name varchar(20), price numeric(8,2), tags text[]);
INSERT INTO base VALUES (1, 'a', 1.50, '{x}'), (2, 'b', 2.25, NULL), (3, 'c', NULL, '{y,z}');
CREATE TABLE c1 AS SELECT * FROM base WHERE id < 3;
\d c1
SELECT * FROM c1 ORDER BY id;
CREATE TABLE c2 (k, label) AS SELECT id, name || '!', price * 2 FROM base ORDER BY id;
\d c2
SELECT * FROM c2;
CREATE TABLE c3 AS SELECT 'lit' AS u, 1::numeric(5,1) AS n, NULL AS z, array[1] AS ar, now()::date > '2000-01-01' AS b;
\d c3
CREATE TABLE c4 AS SELECT * FROM base WITH NO DATA;
SELECT count(*) FROM c4;
CREATE TABLE IF NOT EXISTS c4 AS SELECT 1;
CREATE TABLE c4 AS SELECT 1;
CREATE TABLE c5 (a, b, c) AS SELECT 1, 2;
CREATE TABLE c6 AS SELECT nosuch FROM base;
SELECT id, name INTO c7 FROM base WHERE price > 2;
SELECT * FROM c7;
CREATE TEMP TABLE c8 AS SELECT count(*) AS n FROM base;
SELECT * FROM c8;
BEGIN;
CREATE TABLE c9 AS SELECT g FROM generate_series(1, 1000) g;
SELECT sum(g) FROM c9;
ROLLBACK;
SELECT * FROM c9;
CREATE TABLE c10 AS SELECT 1 AS a, 2 AS a;
CREATE TABLE c11 AS VALUES (1, 'one'), (2, 'two');
SELECT * FROM c11;
CREATE TABLE c12 AS WITH w AS (SELECT id FROM base) SELECT count(*) FROM w;
SELECT * FROM c12;
DROP TABLE base, c1, c2, c3, c4, c7, c8, c11, c12;
CREATE TABLE src (id serial PRIMARY KEY, a int NOT NULL CHECK (a > 0), b text DEFAULT 'x' UNIQUE, c numeric(10,2));
CREATE INDEX src_c_idx ON src (c);
CREATE TABLE l1 (LIKE src);
\d l1
CREATE TABLE l2 (LIKE src INCLUDING ALL);
\d l2
CREATE TABLE l3 (extra int, LIKE src INCLUDING DEFAULTS INCLUDING CONSTRAINTS, z bool);
\d l3
CREATE TABLE l4 (a int, LIKE src);
CREATE TABLE l5 (LIKE nosuch);
INSERT INTO l2 (a) VALUES (1) RETURNING *;
INSERT INTO l2 (a) VALUES (0);
DROP TABLE l1, l2, l3, src;
