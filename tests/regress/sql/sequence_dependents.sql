-- DROP SEQUENCE with column defaults that name it (2BP01, or CASCADE
-- drops the defaults); lastval() follows the sequence nextval last used.
CREATE SEQUENCE myseq2;
CREATE SEQUENCE myseq3;
CREATE TABLE t1 (
  f1 serial,
  f2 int DEFAULT nextval('myseq2'),
  f3 int DEFAULT nextval('myseq3'::text)
);
-- Both drops should fail, but with different error messages:
DROP SEQUENCE t1_f1_seq;
DROP SEQUENCE myseq2;
-- This however will work:
DROP SEQUENCE myseq3;
DROP TABLE t1;
-- Fails because no longer existent:
DROP SEQUENCE t1_f1_seq;
-- Now OK:
DROP SEQUENCE myseq2;
CREATE SEQUENCE s3;
CREATE TABLE t2 (a int DEFAULT nextval('s3'), b bigint DEFAULT currval('public.s3'::regclass) + 1);
DROP SEQUENCE s3;
DROP SEQUENCE s3 CASCADE;
\d t2
DROP TABLE t2;
CREATE SEQUENCE lv_seq;
SELECT lastval();
SELECT nextval('lv_seq');
SELECT lastval();
SELECT setval('lv_seq', 99);
SELECT lastval();
SELECT setval('lv_seq', 50, false);
SELECT lastval();
DISCARD SEQUENCES;
SELECT lastval();
CREATE SEQUENCE lv_seq2;
SELECT nextval('lv_seq2');
SELECT nextval('lv_seq');
SELECT lastval();
DROP SEQUENCE lv_seq;
SELECT lastval();
SELECT currval('lv_seq2');
DROP SEQUENCE lv_seq2;
