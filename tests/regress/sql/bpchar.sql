-- character(n) / bpchar comparison: trailing blanks are insignificant
SELECT 'x'::char(3) = 'x  ', 'x'::char(3) = 'x'::char(1), 'x'::char(3) = 'x'::bpchar,
       'x  '::bpchar = 'x'::bpchar, 'x'::char(3) <> 'x '::char(2);
SELECT 'x'::char(3) < 'x '::char(3), 'a '::char(2) < 'a'::bpchar, 'a'::char(2) < 'b'::char(5),
       'a'::char(2) >= 'a  '::bpchar;
-- bpchar against text compares as text (the padding dropped first)
SELECT 'x'::char(3) = 'x'::text, 'x'::char(3) = 'x '::text;
SELECT 'a '::char(2) BETWEEN 'a' AND 'a', 'ab'::char(4) BETWEEN 'a'::char(1) AND 'ab '::bpchar;
SELECT 'x'::char(3) IS DISTINCT FROM 'x'::char(1), 'x'::char(3) IS NOT DISTINCT FROM 'x '::bpchar;
CREATE TABLE bpc (a char(3), b char(5));
INSERT INTO bpc VALUES ('x', 'x'), ('x  ', 'y'), ('y', 'x   '), (NULL, 'z');
SELECT * FROM bpc WHERE a = 'x' ORDER BY b;
SELECT * FROM bpc WHERE a = 'x    ' ORDER BY b;
SELECT * FROM bpc WHERE a = 'x'::char(1) ORDER BY b;
SELECT * FROM bpc WHERE a = 'abcdef' ORDER BY b;
SELECT * FROM bpc WHERE a IN ('x', 'zz') ORDER BY b;
SELECT * FROM bpc WHERE a IN ('x ', 'zzzzzz') ORDER BY b;
SELECT * FROM bpc WHERE a NOT IN ('x'::bpchar) ORDER BY b;
SELECT * FROM bpc WHERE b IN (SELECT a FROM bpc) ORDER BY a, b;
SELECT * FROM bpc WHERE b = ANY (SELECT a FROM bpc) ORDER BY a, b;
SELECT DISTINCT a FROM bpc ORDER BY a;
SELECT a, count(*) FROM bpc GROUP BY a ORDER BY a;
SELECT c1.a, c1.b, c2.a, c2.b FROM bpc c1 JOIN bpc c2 ON c1.a = c2.b ORDER BY 1, 2, 3, 4;
SELECT c1.a, c2.b FROM bpc c1 LEFT JOIN bpc c2 ON c1.a = c2.b ORDER BY 1, 2;
CREATE INDEX bpc_a ON bpc (a);
SELECT * FROM bpc WHERE a = 'x' ORDER BY b;
SELECT * FROM bpc WHERE a = 'y  ' ORDER BY b;
SELECT * FROM bpc WHERE a = 'x'::bpchar ORDER BY b;
SELECT * FROM bpc WHERE a > 'x' ORDER BY a, b;
PREPARE bp(bpchar) AS SELECT b FROM bpc WHERE a = $1 ORDER BY b;
EXECUTE bp('x');
EXECUTE bp('x   ');
PREPARE bp2 AS SELECT b FROM bpc WHERE a = $1 ORDER BY b;
EXECUTE bp2('y');
SELECT length('x  '::char(3)), 'x  '::char(3) || '|', octet_length('x'::char(3));
DROP TABLE bpc;
-- character columns of different lengths meet: USING, set operations,
-- VALUES (each value padded to the longest length, so equal values group)
CREATE TABLE bc1 (a char(2));
CREATE TABLE bc2 (a char(4), t text);
INSERT INTO bc1 VALUES ('a'), ('b');
INSERT INTO bc2 VALUES ('a', 'a'), ('c', 'c ');
SELECT * FROM bc1 JOIN bc2 USING (a);
SELECT * FROM bc1 NATURAL JOIN bc2;
SELECT count(*) FROM (SELECT a FROM bc1 UNION SELECT a FROM bc2) s;
SELECT count(*) FROM (SELECT a FROM bc1 INTERSECT SELECT a FROM bc2) s;
SELECT count(*) FROM (SELECT a FROM bc1 EXCEPT SELECT a FROM bc2) s;
SELECT count(DISTINCT x), count(*) FROM (VALUES ('a'::char(2)), ('a'::char(3))) v(x);
SELECT x = 'a', count(*) FROM (SELECT a FROM bc1 UNION ALL SELECT a FROM bc2) s(x) GROUP BY x ORDER BY 1, 2;
SELECT bc2.a = bc2.t, bc2.t = bc2.a::text FROM bc2 ORDER BY t;
DROP TABLE bc1, bc2;
-- LIKE and regular expressions read character(n) with its padding
SELECT 'a'::char(3) LIKE 'a  ', 'a'::char(3) LIKE 'a', 'a'::char(3) ~ 'a  $', 'ab'::char(4) ILIKE 'AB%', 'a'::char(3) NOT LIKE 'a_';
CREATE TEMP TABLE padded (c char(5));
INSERT INTO padded VALUES ('x'), ('xy'), (NULL);
SELECT c, c LIKE '%  %' AS two_blanks, c ~ ' $' AS ends_blank, c::text LIKE '%  %' AS as_text FROM padded ORDER BY c;
SELECT count(*) FROM padded WHERE c LIKE 'x%  ';
