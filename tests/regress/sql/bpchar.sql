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
