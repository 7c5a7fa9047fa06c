-- Assignment to array elements and slices: UPDATE ... SET a[i] = v,
-- INSERT INTO t (a[i]), ON CONFLICT DO UPDATE, PL/pgSQL arr[i] := v,
-- and multi-dimensional slices in reads.
\set VERBOSITY verbose
CREATE TABLE aa (id int PRIMARY KEY, a int[], t text[], m int[]);
INSERT INTO aa VALUES (1, '{1,2,3}', '{a,b,c}', '{{1,2},{3,4}}');
UPDATE aa SET a[2] = 20 WHERE id = 1;
SELECT a FROM aa;
-- extending a one-dimensional array fills the gap with NULLs
UPDATE aa SET a[5] = 5;
SELECT a, array_dims(a) FROM aa;
UPDATE aa SET a[0] = 0, t[6] = 'f';
SELECT a, array_dims(a), t FROM aa;
UPDATE aa SET a[-2] = -2 RETURNING a, array_dims(a);
-- slices
UPDATE aa SET a[1:2] = '{7,8}' RETURNING a;
UPDATE aa SET a[:-1] = ARRAY[91, 92, 93] RETURNING a;
UPDATE aa SET a[4:] = '{40,50,60}' RETURNING a;
UPDATE aa SET a[7:8] = '{70,80,90}' RETURNING a, array_dims(a);
UPDATE aa SET a[12:13] = '{12,13}' RETURNING a, array_dims(a);
UPDATE aa SET a[1:2] = '{7}';
UPDATE aa SET a[2:1] = '{7}';
UPDATE aa SET a[1:2] = NULL RETURNING a;
-- several assignments to one column nest
UPDATE aa SET a[1] = 1, a[2] = a[1] + 100, a[3:4] = '{3,4}' RETURNING a;
-- multi-dimensional
UPDATE aa SET m[1][2] = 20 RETURNING m;
UPDATE aa SET m[2:2][1:2] = '{{30,40}}' RETURNING m;
UPDATE aa SET m[1:2][2] = ARRAY[[8],[9]] RETURNING m;
UPDATE aa SET m[2:2] = '{0,0}' RETURNING m;
UPDATE aa SET m[3][1] = 1;
UPDATE aa SET m[1][3] = 1;
UPDATE aa SET m[1] = 1;
UPDATE aa SET m[1:3][1] = '{1,2,3}';
UPDATE aa SET m[1:2][1:2][1:2] = '{1,2,3,4,5,6,7,8}';
SELECT m[1:2][2], m[2:], m[:1][:1], m[1:1], m[5:6], a[2:3], a[NULL:2], a[:NULL] FROM aa;
-- into NULL and empty arrays
INSERT INTO aa (id) VALUES (2);
UPDATE aa SET a[3] = 3, t[2:3] = '{x,y}', m[0][2] = 7 WHERE id = 2 RETURNING a, array_dims(a), t, array_dims(t), m, array_dims(m);
UPDATE aa SET a = '{}' WHERE id = 2;
UPDATE aa SET a[2:3] = '{5,6,7}' WHERE id = 2 RETURNING a, array_dims(a);
UPDATE aa SET a = '{}' WHERE id = 2;
UPDATE aa SET a[:3] = '{5,6,7}' WHERE id = 2;
UPDATE aa SET a[1:3] = '{5,6}' WHERE id = 2;
UPDATE aa SET a = NULL WHERE id = 2;
UPDATE aa SET a[1:2] = NULL WHERE id = 2 RETURNING a, a IS NULL;
UPDATE aa SET a = NULL WHERE id = 2;
UPDATE aa SET a[1] = NULL WHERE id = 2 RETURNING a;
-- errors
UPDATE aa SET a[NULL] = 1;
UPDATE aa SET a[1:NULL] = '{1}';
UPDATE aa SET a[1] = 'x';
UPDATE aa SET a[1] = now();
UPDATE aa SET a[1:2] = 5;
UPDATE aa SET a = '{1}', a[2] = 2;
UPDATE aa SET a[2] = 2, a = '{1}';
UPDATE aa SET a[1] = DEFAULT;
UPDATE aa SET id[1] = 1;
UPDATE aa SET a.x = 1;
UPDATE aa SET a['x'] = 1;
UPDATE aa SET a[1][2][3][4][5][6][7] = 1;
UPDATE aa SET nosuch[1] = 1;
UPDATE aa SET a[2147483647] = 1 WHERE id = 1;
SELECT id, a, t, m FROM aa ORDER BY id;
-- INSERT into elements and slices: the base is NULL
INSERT INTO aa (id, a[1], a[3]) VALUES (3, 1, 3);
INSERT INTO aa (id, a[2:3], m[1:1][1:2]) VALUES (4, '{2,3}', '{{1,2}}');
INSERT INTO aa (id, a[0], t[2]) SELECT 5, 42, 'two';
INSERT INTO aa (id, a[1]) VALUES (6, 10), (7, 11);
INSERT INTO aa (id, a, a[1]) VALUES (8, '{1}', 2);
INSERT INTO aa (id, a[1], a) VALUES (8, 2, '{1}');
INSERT INTO aa (id, a[1]) VALUES (8, DEFAULT);
INSERT INTO aa (id, a[1]) VALUES (8, now());
INSERT INTO aa (id, a[1:2]) VALUES (8, '{1}');
SELECT id, a, array_dims(a), t, m FROM aa WHERE id > 2 ORDER BY id;
-- ON CONFLICT DO UPDATE
INSERT INTO aa (id, a) VALUES (3, '{9}') ON CONFLICT (id) DO UPDATE SET a[2] = excluded.a[1], a[5] = 5 RETURNING a;
-- a column default is not the base of a subscripted INSERT
CREATE TABLE ad (id int, a int[] DEFAULT '{1,2,3}');
INSERT INTO ad (id, a[2]) VALUES (1, 20);
INSERT INTO ad (id) VALUES (2);
SELECT * FROM ad ORDER BY id;
-- other element types
CREATE TABLE at (v varchar(5)[], n numeric[], d date[]);
INSERT INTO at VALUES ('{a}', '{1.5}', '{2024-01-01}');
UPDATE at SET v[2] = 'bb', n[3] = 2.25, d[1] = '2024-02-29' RETURNING *;
-- PL/pgSQL
DO $$
DECLARE
  v int[];
  w text[] := '{a,b}';
  m int[] := '{{1,2},{3,4}}';
  i int := 2;
BEGIN
  v[3] := 3;
  RAISE NOTICE '%', v;
  v[1:2] := ARRAY[1, 2];
  RAISE NOTICE '%', v;
  w[4] := 'd';
  RAISE NOTICE '% %', w, array_dims(w);
  m[2][1] := 30;
  m[i - 1][i] := 20;
  RAISE NOTICE '%', m;
  FOR k IN 1..3 LOOP
    v[k] := v[k] * 10;
  END LOOP;
  RAISE NOTICE '%', v;
  v[0:1] := '{5,6}';
  RAISE NOTICE '% %', v, array_dims(v);
END $$;
DO $$ DECLARE v int[] := '{1}'; BEGIN v[NULL] := 1; END $$;
DO $$ DECLARE m int[] := '{{1,2},{3,4}}'; BEGIN m[3][1] := 1; END $$;
DO $$ DECLARE x int := 1; BEGIN x[1] := 1; END $$;
DROP TABLE aa, ad, at;
