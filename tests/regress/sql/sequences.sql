--
-- serial / bigserial columns and nextval / currval / setval.
--
\set QUIET off
CREATE TABLE s1 (id serial PRIMARY KEY, v text);
SELECT currval('s1_id_seq');
INSERT INTO s1 (v) VALUES ('a'), ('b') RETURNING id, v;
SELECT currval('s1_id_seq');
SELECT nextval('s1_id_seq');
INSERT INTO s1 (v) VALUES ('c') RETURNING id;
SELECT currval('s1_id_seq'), currval('public.s1_id_seq');
-- an explicit value does not advance the sequence
INSERT INTO s1 VALUES (5, 'explicit');
INSERT INTO s1 (v) VALUES ('collides');
INSERT INTO s1 (v) VALUES ('next') RETURNING id;
-- setval
SELECT setval('s1_id_seq', 100);
SELECT currval('s1_id_seq');
INSERT INTO s1 (v) VALUES ('after setval') RETURNING id;
SELECT setval('s1_id_seq', 200, false);
SELECT nextval('s1_id_seq');
SELECT setval('s1_id_seq', 300, true);
SELECT nextval('s1_id_seq');
SELECT setval('s1_id_seq', 0);
-- sequences are not transactional
BEGIN;
SELECT nextval('s1_id_seq');
ROLLBACK;
SELECT nextval('s1_id_seq');
BEGIN;
INSERT INTO s1 (v) VALUES ('rolled back') RETURNING id;
ROLLBACK;
INSERT INTO s1 (v) VALUES ('gap before me') RETURNING id;
BEGIN;
SAVEPOINT sp;
SELECT nextval('s1_id_seq');
ROLLBACK TO sp;
SELECT currval('s1_id_seq');
COMMIT;
SELECT id, v FROM s1 ORDER BY id;
-- bigserial
CREATE TABLE s2 (id bigserial PRIMARY KEY, v text);
SELECT currval('s2_id_seq');
INSERT INTO s2 (v) VALUES ('x') RETURNING id;
SELECT setval('s2_id_seq', 9000000000);
INSERT INTO s2 (v) VALUES ('big') RETURNING id;
SELECT * FROM s2 ORDER BY id;
-- a serial in a non-key column, two serials in one table
CREATE TABLE s3 (a serial, b serial, c text);
INSERT INTO s3 (c) VALUES ('one'), ('two');
SELECT nextval('s3_b_seq');
INSERT INTO s3 (c) VALUES ('three');
SELECT * FROM s3 ORDER BY a;
-- serial columns are NOT NULL
INSERT INTO s3 (a, c) VALUES (NULL, 'null a');
-- unknown sequences
SELECT nextval('no_such_seq');
SELECT currval('no_such_seq');
SELECT setval('no_such_seq', 1);
-- the serial's sequence is dropped with its table
DROP TABLE s1;
SELECT nextval('s1_id_seq');
DROP TABLE s2, s3;
