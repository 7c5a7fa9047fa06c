--
-- COPY FROM STDIN (text and CSV) and COPY TO STDOUT.
--
\set QUIET off
CREATE TABLE cp (id integer PRIMARY KEY, name text, amount numeric, flag boolean);
COPY cp FROM STDIN;
1	alice	10.5	t
2	bob	\N	f
3	tab\there	0	true
4	back\\slash	-1.25	\N
\.
SELECT * FROM cp ORDER BY id;
COPY cp (id, name) FROM STDIN WITH (FORMAT csv);
5,"quoted, comma"
6,
7,""
8,"say ""hi"""
\.
COPY cp FROM STDIN WITH (FORMAT csv, HEADER true);
id,name,amount,flag
9,header skipped,1,yes
\.
COPY cp (name, id) FROM STDIN WITH (FORMAT csv, DELIMITER ';', NULL 'NULL');
semi;10
NULL;11
\.
COPY cp FROM STDIN WITH CSV;
12,old syntax,2,f
\.
SELECT id, name, name IS NULL AS is_null, amount, flag FROM cp ORDER BY id;
-- errors: the whole COPY is rolled back
COPY cp FROM STDIN;
20	ok	1	t
x	bad id	1	t
\.
COPY cp FROM STDIN;
21
\.
COPY cp FROM STDIN;
22	a	1	t	extra
\.
COPY cp FROM STDIN;
1	duplicate	1	t
\.
-- which error comes first: extra data before any field is parsed, a bad
-- field before missing data, fields in column order
COPY cp FROM STDIN;
x	a	1	t	extra
\.
COPY cp FROM STDIN;
x	a
\.
COPY cp FROM STDIN;
23	a	zz
\.
COPY cp FROM STDIN;
23	a	1	maybe
\.
COPY no_such_table FROM STDIN;
COPY cp (no_such_column) FROM STDIN;
SELECT count(*) FROM cp WHERE id >= 20;
-- COPY inside a transaction block
BEGIN;
COPY cp (id, name) FROM STDIN;
30	in block
\.
SELECT name FROM cp WHERE id = 30;
ROLLBACK;
SELECT count(*) FROM cp WHERE id = 30;
-- COPY TO STDOUT
COPY cp TO STDOUT;
COPY cp (id, name) TO STDOUT WITH (FORMAT csv);
COPY (SELECT id, name, amount FROM cp WHERE id < 5 ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER);
COPY (SELECT id, flag FROM cp WHERE id <= 4 ORDER BY id DESC) TO STDOUT;
COPY (SELECT 1 AS a, NULL AS b, 'x,y' AS c, E'line\nbreak' AS d) TO STDOUT WITH (FORMAT csv);
COPY (SELECT 1 AS a, NULL AS b, E'tab\there' AS c, E'line\nbreak' AS d) TO STDOUT;
COPY (SELECT id FROM cp WHERE false) TO STDOUT;
COPY cp TO STDOUT WITH CSV HEADER;
DROP TABLE cp;
