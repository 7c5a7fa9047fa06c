-- COPY FROM ... WHERE, COPY into a table with triggers, redundant COPY options
CREATE TABLE cw (a int, b text, c int DEFAULT 7);
COPY cw (a, b) FROM stdin WHERE a > 2;
1	one
2	two
3	three
4	\N
\.
SELECT * FROM cw ORDER BY a;
-- the WHERE sees defaults
COPY cw (a, b) FROM stdin WHERE c = 7 AND b IS NOT NULL;
5	five
6	\N
\.
SELECT * FROM cw ORDER BY a;
COPY cw FROM stdin WHERE nosuch > 1;
COPY cw FROM stdin WHERE a = max(cw.c);
COPY cw FROM stdin WHERE a IN (SELECT 1 FROM cw);
COPY cw FROM stdin WHERE a IN (generate_series(1,5));
COPY cw FROM stdin WHERE a = row_number() over(partition by b);
COPY cw TO stdout WHERE a = 1;
-- each option at most once
COPY cw FROM stdin (freeze off, freeze on);
COPY cw FROM stdin (delimiter ',', delimiter ',');
COPY cw FROM stdin (null ' ', null ' ');
COPY cw FROM stdin (header off, header on);
COPY cw FROM stdin (quote ':', quote ':');
COPY cw FROM stdin (escape ':', escape ':');
COPY cw FROM stdin (encoding 'utf8', encoding 'utf8');
-- triggers fire as for INSERT
CREATE TABLE ct (id int, v text);
CREATE FUNCTION ct_before() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.v = 'skip' THEN RETURN NULL; END IF;
  NEW.v := upper(NEW.v);
  RETURN NEW;
END $$;
CREATE FUNCTION ct_after() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE NOTICE 'after row: % %', NEW.id, NEW.v;
  RETURN NULL;
END $$;
CREATE FUNCTION ct_stmt() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE NOTICE '% statement: % rows now', TG_WHEN, (SELECT count(*) FROM ct);
  RETURN NULL;
END $$;
CREATE TRIGGER ct_b BEFORE INSERT ON ct FOR EACH ROW EXECUTE FUNCTION ct_before();
CREATE TRIGGER ct_a AFTER INSERT ON ct FOR EACH ROW EXECUTE FUNCTION ct_after();
CREATE TRIGGER ct_sb BEFORE INSERT ON ct FOR EACH STATEMENT EXECUTE FUNCTION ct_stmt();
CREATE TRIGGER ct_sa AFTER INSERT ON ct FOR EACH STATEMENT EXECUTE FUNCTION ct_stmt();
COPY ct FROM stdin WHERE id < 4;
1	a
2	skip
3	c
4	d
\.
SELECT * FROM ct ORDER BY id;
COPY ct FROM stdin (FORMAT csv);
10,x
11,skip
\.
SELECT * FROM ct ORDER BY id;
-- a column named twice
COPY cw (a, b, a) FROM stdin;
-- a backslash escapes the delimiter in text format
CREATE TABLE cd (b text, c text, d text);
COPY cd FROM stdin delimiter ',' null 'x';
x,\,,\\\,
a\,b,x,\x41
\.
SELECT * FROM cd;
-- FORCE_QUOTE, FORCE_NOT_NULL, FORCE_NULL (CSV)
CREATE TABLE cf (a int, b text, c text);
COPY cf FROM stdin (FORMAT csv, FORCE_NOT_NULL (b), FORCE_NULL (c));
1,,""
2,"",x
\.
SELECT a, b IS NULL AS b_null, c IS NULL AS c_null, c FROM cf ORDER BY a;
COPY cf TO stdout (FORMAT csv, FORCE_QUOTE (b, c));
COPY cf TO stdout (FORMAT csv, FORCE_QUOTE *);
COPY cf (a, b) TO stdout (FORMAT csv, FORCE_QUOTE (c));
COPY cf TO stdout (FORMAT csv, FORCE_QUOTE (nosuch));
COPY (SELECT 1 AS a) TO stdout (FORMAT csv, FORCE_QUOTE (nosuch));
COPY (SELECT 1 AS a, 2 AS b) TO stdout (FORMAT csv, FORCE_QUOTE (b));
COPY cf FROM stdin (FORMAT csv, FORCE_QUOTE (b));
COPY cf TO stdout (FORMAT csv, FORCE_NULL (b));
COPY cf FROM stdin (FORCE_NOT_NULL (b));
COPY cf FROM stdin (FORMAT csv, FORCE_NOT_NULL *);
COPY cf FROM stdin (force_quote (a), force_quote *);
