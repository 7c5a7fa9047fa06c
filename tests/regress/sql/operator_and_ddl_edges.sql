-- text_pattern_ops' operators compare byte-wise (bpchar ignoring
-- trailing blanks); unknown literals resolve to text.
SELECT 'abc' ~<~ 'abd' AS lt, 'abc' ~>=~ 'abc' AS ge, 'b'::text ~>~ 'a' AS gt,
       'a '::char(3) ~<=~ 'a'::char(2) AS le_bpchar, 'x'::varchar ~<~ 'y' AS lt_varchar;
SELECT count(*) FROM (VALUES ('WA'), ('YW'), ('YX'), ('ZZ')) v(f1) WHERE f1 ~<~ 'YX';
SELECT 1 ~<~ 2;
-- A CASE is named by its ELSE result when that has a name of its own.
SELECT CASE 'foo'::text WHEN 'foo' THEN ARRAY['a'] ELSE ARRAY['x'] END;
SELECT CASE WHEN true THEN 1 ELSE abs(2) END;
SELECT CASE WHEN true THEN 1 ELSE 2::int END;
SELECT CASE WHEN true THEN 1 END;
-- Multidimensional arrays: PostgreSQL's wording.
SELECT array_remove('{{1,2,2},{1,4,3}}', 2);
SELECT array_position('{{1,2},{3,4}}'::int[], 3);
-- Indexes on system columns.
CREATE TABLE sc (a int);
CREATE INDEX ON sc (ctid);
CREATE INDEX ON sc (tableoid);
CREATE INDEX ON sc (xmin);
CREATE INDEX ON sc (cmax);
CREATE INDEX ON sc (nosuch);
-- Set-returning functions in partition keys.
CREATE FUNCTION retset(a int) RETURNS SETOF int LANGUAGE sql AS 'SELECT 1';
CREATE TABLE p1 (a int) PARTITION BY RANGE (retset(a));
CREATE TABLE p1 (a int) PARTITION BY RANGE (generate_series(1, a));
DROP FUNCTION retset(int);
DROP TABLE sc;
