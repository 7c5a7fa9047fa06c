-- pg_lsn: WAL positions 'X/Y', 8 bytes, ordered, with arithmetic in
-- numeric bytes.
\set VERBOSITY verbose
CREATE TABLE lsns (id int4, l pg_lsn);
INSERT INTO lsns VALUES (1, '0/0'), (2, 'FFFFFFFF/FFFFFFFF'), (3, '0/16AE7F8'),
  (4, '1/0'), (5, '16/B374D848'), (6, NULL);
INSERT INTO lsns VALUES (7, 'G/0');
INSERT INTO lsns VALUES (7, '-1/0');
INSERT INTO lsns VALUES (7, ' 0/12345678');
INSERT INTO lsns VALUES (7, 'ABCD/');
INSERT INTO lsns VALUES (7, '/ABCD');
INSERT INTO lsns VALUES (7, '123456789/0');
INSERT INTO lsns VALUES (7, '0/0 ');
SELECT '0/abcdef'::pg_lsn, 'a/B'::pg_lsn, '00000000/00000001'::pg_lsn;
SELECT * FROM lsns ORDER BY l;
SELECT * FROM lsns ORDER BY l DESC NULLS LAST;
SELECT min(l), max(l), count(l) FROM lsns;
SELECT id FROM lsns WHERE l > '0/16AE7F7' AND l < '10/0' ORDER BY id;
SELECT id FROM lsns WHERE l = '1/0'::pg_lsn;
SELECT id FROM lsns WHERE l BETWEEN '0/1' AND 'FFFFFFFF/0' ORDER BY id;
SELECT id FROM lsns WHERE l IN ('0/0', '1/0') ORDER BY id;
-- btree index
CREATE INDEX lsns_l ON lsns (l);
SELECT id FROM lsns WHERE l >= '1/0' ORDER BY l;
CREATE TABLE lsn_keys (l pg_lsn PRIMARY KEY);
INSERT INTO lsn_keys VALUES ('0/1'), ('0/2');
INSERT INTO lsn_keys VALUES ('0/1');
-- operators
SELECT '0/16AE7F8' = '0/16AE7F8'::pg_lsn, '0/16AE7F8'::pg_lsn != '0/16AE7F7',
       '0/16AE7F7' < '0/16AE7F8'::pg_lsn, '0/16AE7F8' > pg_lsn '0/16AE7F7',
       '0/1'::pg_lsn <= '0/1', '0/2'::pg_lsn >= '0/1';
SELECT '0/16AE7F7'::pg_lsn - '0/16AE7F8'::pg_lsn, '0/16AE7F8'::pg_lsn - '0/16AE7F7'::pg_lsn;
SELECT pg_typeof('1/0'::pg_lsn - '0/0'::pg_lsn);
SELECT '0/16AE7F7'::pg_lsn + 16::numeric, 16::numeric + '0/16AE7F7'::pg_lsn,
       '0/16AE7F7'::pg_lsn - 16::numeric;
SELECT '0/16AE7F7'::pg_lsn + 1.9, '0/16AE7F7'::pg_lsn - 0.5;
SELECT 'FFFFFFFF/FFFFFFFE'::pg_lsn + 1::numeric;
SELECT 'FFFFFFFF/FFFFFFFE'::pg_lsn + 2::numeric;
SELECT '0/1'::pg_lsn - 1::numeric;
SELECT '0/1'::pg_lsn - 2::numeric;
SELECT '0/0'::pg_lsn + ('FFFFFFFF/FFFFFFFF'::pg_lsn - '0/0'::pg_lsn);
SELECT '0/16AE7F7'::pg_lsn + 'NaN'::numeric;
SELECT '0/16AE7F7'::pg_lsn - 'NaN'::numeric;
SELECT l - '0/0' AS bytes FROM lsns WHERE id IN (3, 5) ORDER BY id;
-- pg_lsn(numeric) and casts
SELECT pg_lsn(23783416::numeric), pg_lsn(0::numeric), pg_lsn(18446744073709551615::numeric);
SELECT pg_lsn(-1::numeric);
SELECT pg_lsn(18446744073709551616::numeric);
SELECT pg_lsn('NaN'::numeric);
SELECT '1/2'::pg_lsn::text, '0/10'::text::pg_lsn, CAST('3/4' AS pg_lsn);
SELECT ARRAY['0/1', '1/0']::pg_lsn[];
SELECT DISTINCT (i || '/' || j)::pg_lsn f
  FROM generate_series(1, 3) i, generate_series(1, 2) j, generate_series(1, 2) k
  ORDER BY f;
-- catalog columns of type pg_lsn
SELECT pg_typeof(pg_current_wal_lsn());
SELECT pg_current_wal_lsn() > '0/0';
SELECT atttypid::regtype FROM pg_attribute
  WHERE attrelid = 'pg_subscription'::regclass AND attname = 'subskiplsn';
SELECT typname, typlen, typbyval, typalign FROM pg_type WHERE typname = 'pg_lsn';
