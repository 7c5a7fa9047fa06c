-- unistr(), U&'...' literals with UESCAPE, string_to_table().
\set VERBOSITY verbose
SELECT unistr('\0064at\+0000610');
SELECT unistr('d\u0061t\U000000610');
SELECT unistr('a\\b \0041\u00e9\U0001F600'), unistr(''), unistr(NULL);
SELECT unistr('\D83D\DE00 \uD83D\uDE00');
SELECT unistr('wrong: \db99');
SELECT unistr('wrong: \db99\0061');
SELECT unistr('wrong: \+00db99\+000061');
SELECT unistr('wrong: \+2FFFFF');
SELECT unistr('wrong: \udb99\u0061');
SELECT unistr('wrong: \U0000db99\U00000061');
SELECT unistr('wrong: \U002FFFFF');
SELECT unistr('wrong: \xyz');
SELECT unistr('wrong: \0000');
SELECT unistr('wrong: \dc00');
SELECT U&'d\0061t\+000061' AS "data", U&'d!0061t\+000061' UESCAPE '!' AS "escaped", U&'a\\b';
SELECT U&'wrong: \061';
SELECT U&'wrong: \+0061';
SELECT U&'wrong: +0061' UESCAPE +;
SELECT U&"d\0061t\+000061" FROM (SELECT 1 AS data) s;
-- the same escapes in E'...' strings
SELECT E'd\u0061t\U00000061' AS "data";
SELECT E'wrong: \u061';
SELECT E'wrong: \U0061';
-- string_to_table
SELECT string_to_table('1|2|3', '|');
SELECT * FROM string_to_table('1|2|3|', '|');
SELECT string_to_table('1||2|3||', '||');
SELECT string_to_table('1|2|3', '');
SELECT string_to_table('', '|');
SELECT string_to_table('1|2|3', NULL);
SELECT string_to_table(NULL, '|') IS NULL;
SELECT string_to_table('abc', '');
SELECT string_to_table('abc', '', 'abc');
SELECT string_to_table('abc', ',');
SELECT string_to_table('abc', ',', 'abc');
SELECT v, v IS NULL AS isnull FROM string_to_table('1,2,3,4,,6', ',', '') AS g(v);
SELECT string_to_table('1,2,3,4,*,6', ',', '*');
SELECT * FROM string_to_table('a,b,c', ',') WITH ORDINALITY AS t(s, n);
SELECT x, string_to_table(x, ' ') FROM (VALUES ('a b'), ('c')) v(x) ORDER BY 1;
SELECT count(*) FROM string_to_table(repeat('x,', 1000), ',');
SELECT string_to_table(1, 2);
SELECT string_to_table('a');
