-- Full text search: the tsvector, tsquery and regconfig types, the
-- simple and english configurations, matching and ranking.
\set VERBOSITY verbose
-- tsvector input and output: sorted, deduplicated, positions merged.
SELECT 'b a c a'::tsvector;
SELECT 'a:3,1,2 b:2A c:1b,1a d:5C,5D'::tsvector;
SELECT $$'a b' 'it''s' \'x\  'q\\z':1$$::tsvector;
SELECT ''::tsvector, '   '::tsvector;
SELECT 'a:20000'::tsvector;
SELECT 'a:0'::tsvector;
SELECT 'a:1x'::tsvector;
SELECT 'a:1AA'::tsvector;
SELECT $$'unterminated$$::tsvector;
SELECT 'a\'::tsvector;
SELECT 'a:'::tsvector;
SELECT length('a b:1,2 c'::tsvector), strip('a:1A b:2'::tsvector);
-- tsquery input and output: precedence, parentheses, weights, prefixes.
SELECT 'a & b | c'::tsquery, 'a | b & c'::tsquery, '!a & b'::tsquery;
SELECT '(a | b) & !(c <-> d)'::tsquery;
SELECT 'a <-> b <2> c'::tsquery, 'a <-> (b <-> c)'::tsquery, 'a <0> b'::tsquery;
SELECT 'a:* & b:AB & c:*Cd'::tsquery, $$'it''s' & 'a\\b'$$::tsquery;
SELECT '!!a'::tsquery, '!(!a)'::tsquery;
SELECT ''::tsquery;
SELECT 'a &'::tsquery;
SELECT 'a b'::tsquery;
SELECT '(a'::tsquery;
SELECT 'a)'::tsquery;
SELECT ':a'::tsquery;
SELECT 'a <16385> b'::tsquery;
SELECT 'a <16384> b'::tsquery;
SELECT numnode('a & (b | !c)'::tsquery), numnode(''::tsquery);
SELECT querytree('a & !b'::tsquery), querytree('!a'::tsquery), querytree('a | !b'::tsquery);
-- Comparison (btree order as PostgreSQL's).
SELECT 'a'::tsvector < 'b'::tsvector, 'a:1'::tsvector < 'a'::tsvector,
       'a b'::tsvector > 'c'::tsvector, 'a:1'::tsvector = 'a:1'::tsvector;
SELECT 'a & b'::tsquery < 'a | b'::tsquery, 'a'::tsquery = 'a:A'::tsquery,
       'a'::tsquery < 'a & b'::tsquery;
CREATE TABLE docs (id int PRIMARY KEY, body text, tsv tsvector, q tsquery);
INSERT INTO docs VALUES
  (1, 'The quick brown fox jumps over the lazy dog', NULL, 'fox & dog'),
  (2, 'A fat cat sat on a mat and ate a fat rat', NULL, 'fat <-> cat'),
  (3, 'Supernovae stars are exploding stars', NULL, 'star:*'),
  (4, 'PostgreSQL 15.2 was released on 2023-02-09, see https://www.postgresql.org/docs/', NULL, 'postgresql'),
  (5, '', NULL, NULL);
UPDATE docs SET tsv = to_tsvector('english', body);
SELECT id, tsv FROM docs ORDER BY id;
SELECT id FROM docs ORDER BY tsv, id;
SELECT id, q FROM docs ORDER BY q NULLS FIRST, id;
CREATE INDEX docs_tsv ON docs (tsv);
SELECT id FROM docs WHERE tsv = to_tsvector('english', 'stars are exploding supernovae stars');
SELECT d.id, e.id FROM docs d JOIN docs e ON d.tsv @@ e.q ORDER BY 1, 2;
SELECT id, tsv @@ 'fat & rat'::tsquery AS fatrat, tsv @@ to_tsquery('english', 'jumping') AS jump
  FROM docs ORDER BY id;
-- Arrays, casts, text.
SELECT ARRAY['a:1'::tsvector, 'b c'], ARRAY['a & b'::tsquery];
SELECT 'x y'::text::tsvector, 'a & b'::varchar::tsquery, 'a:1 b'::tsvector::text;
SELECT pg_typeof('a'::tsvector), pg_typeof('a'::tsquery), pg_typeof('simple'::regconfig);
-- regconfig.
SELECT 'english'::regconfig, 'pg_catalog.simple'::regconfig, 'English'::regconfig,
       3748::regconfig, 'english'::regconfig::oid;
SELECT 'french_fries'::regconfig;
SELECT get_current_ts_config();
SHOW default_text_search_config;
-- to_tsvector: stop words keep their positions, stems, numbers, hyphens.
SELECT to_tsvector('english', 'The Fat Rats ate the fattest rats');
SELECT to_tsvector('simple', 'The Fat Rats ate the fattest rats');
SELECT to_tsvector('english', 'self-referential co-op 2nd-hand e-mail');
SELECT to_tsvector('english', 'mail john.doe@example.com or visit http://example.com/a/b?c=1 now');
SELECT to_tsvector('english', 'version 8.4.22, -3.5e10 12 +7 1.5 /usr/local/bin foo.txt');
SELECT to_tsvector('english', '<b>bold</b> &amp; <script>hidden()</script> shown');
SELECT to_tsvector('english', 'Ünïcödé café naïve résumé κόσμος');
SELECT to_tsvector('english', 'running runs ran runner happily happiness caresses ponies generously');
SELECT to_tsvector('the quick brown foxes'), to_tsvector('simple'::regconfig, 'The A');
-- The to_tsquery family.
SELECT to_tsquery('english', 'The & Fat & Rats'), to_tsquery('english', 'fat:AB & rats:*');
SELECT to_tsquery('english', 'supernovae <-> stars'), to_tsquery('english', 'foo-bar');
SELECT to_tsquery('english', 'the');
SELECT to_tsquery('english', 'the & rats'), to_tsquery('english', '!the | rats');
SELECT to_tsquery('english', 'fat <-> the <-> rat'), to_tsquery('english', 'fat <2> the <3> rat');
SELECT to_tsquery('english', 'fat &');
SELECT plainto_tsquery('english', 'The Fat & Rats:C'), plainto_tsquery('english', '');
SELECT phraseto_tsquery('english', 'The fat rats ate the cheese'), phraseto_tsquery('simple', 'a b');
SELECT websearch_to_tsquery('english', '"fat rat" or cat -dog'),
       websearch_to_tsquery('english', 'signal -"segmentation fault"'),
       websearch_to_tsquery('english', 'or cat or'),
       websearch_to_tsquery('english', '(pg) & !sql -');
SELECT websearch_to_tsquery('english', '');
-- Matching: phrases, prefixes, weights, stripped vectors.
SELECT to_tsvector('english', 'a fat cat sat on a mat') @@ to_tsquery('english', 'cat & rat'),
       to_tsvector('english', 'a fat cat sat on a mat') @@ to_tsquery('english', 'cat & !rat'),
       to_tsvector('english', 'a fat cat sat on a mat') @@ to_tsquery('english', 'fat <-> cat'),
       to_tsvector('english', 'a fat cat sat on a mat') @@ to_tsquery('english', 'cat <-> fat'),
       to_tsvector('english', 'a fat cat sat on a mat') @@ to_tsquery('english', 'cat <2> on'),
       to_tsvector('english', 'a fat cat sat on a mat') @@ to_tsquery('english', 'cat <3> mat');
SELECT 'a:1 b:2 c:3'::tsvector @@ 'a <-> !c'::tsquery, 'a:1 b:2 c:3'::tsvector @@ 'a <-> !b'::tsquery,
       'a:1 b:2 c:3'::tsvector @@ '!a <-> b'::tsquery, 'a:1 b:2 c:3'::tsvector @@ '(a | c) <-> b'::tsquery,
       'a:1 b:2 c:3'::tsvector @@ 'a <-> (b & c)'::tsquery, 'a:1 b:2 c:3'::tsvector @@ 'a <-> (b | x) <-> c'::tsquery;
SELECT 'abc:1A abd:2 x:3'::tsvector @@ 'ab:*'::tsquery, 'abc:1A abd:2'::tsvector @@ 'ab:*B'::tsquery,
       'abc:1A abd:2'::tsvector @@ 'ab:*A'::tsquery, 'abc:1A x:2'::tsvector @@ 'ab:* <-> x'::tsquery;
SELECT 'a b'::tsvector @@ 'a:A'::tsquery, 'a b'::tsvector @@ 'a <-> b'::tsquery,
       'a b'::tsvector @@ 'a & !b'::tsquery, 'a'::tsvector @@ ''::tsquery;
SELECT 'a fat cat' @@ 'cats'::tsquery, 'a fat cat' @@ 'fat cats', 'cat'::tsquery @@ 'cat'::tsvector,
       'a:1'::tsvector @@@ 'a'::tsquery;
-- Operators and functions on the two types.
SELECT 'a:1 b:2'::tsvector || 'b:1 c:2'::tsvector, 'a b'::tsvector || 'c:1'::tsvector,
       'a:1'::tsvector || ''::tsvector;
SELECT 'a'::tsquery && 'b | c'::tsquery, 'a'::tsquery || 'b & c'::tsquery, !! 'a & b'::tsquery,
       'a'::tsquery <-> 'b'::tsquery, tsquery_phrase('a', 'b <-> c', 3),
       'a'::tsquery && ''::tsquery;
SELECT 'a & b'::tsquery @> 'b'::tsquery, 'a & b'::tsquery <@ 'b'::tsquery, 'b'::tsquery <@ 'a | b'::tsquery;
SELECT tsquery_phrase('a', 'b', -1);
SELECT setweight('a:1 b:2,3C c'::tsvector, 'A'), setweight('a:1 b:2,3C c'::tsvector, 'b', '{b,c,zz}');
SELECT setweight('a:1'::tsvector, 'x');
SELECT tsvector_to_array('b:1 a:2 c'::tsvector), array_to_tsvector('{c,a,b,a}');
SELECT array_to_tsvector('{a,NULL}');
SELECT array_to_tsvector('{a,""}');
SELECT ts_delete('a:1 b:2 c:3'::tsvector, 'b'), ts_delete('a:1 b:2 c:3'::tsvector, '{a,c,NULL,x}');
SELECT ts_filter('a:1A b:2B c:3 d:4A,5C'::tsvector, '{a,c}'), ts_filter('a:1A'::tsvector, '{a,NULL}');
SELECT * FROM unnest('cat:3A fat:2,4B rat'::tsvector);
SELECT unnest('b:1 a'::tsvector);
SELECT lexeme, positions[1] FROM unnest(to_tsvector('english', 'the fat cats')) u ORDER BY lexeme;
-- Ranking.
SELECT id, ts_rank(tsv, to_tsquery('english', 'stars')), ts_rank_cd(tsv, to_tsquery('english', 'stars'))
  FROM docs ORDER BY id;
SELECT ts_rank('a:1A b:3 c:7B'::tsvector, 'a & b'::tsquery),
       ts_rank('a:1A b:3 c:7B'::tsvector, 'a | c'::tsquery, 1),
       ts_rank('{0.5,0.5,0.5,1}', 'a:1A b:3 c:7B'::tsvector, 'a <-> b'::tsquery),
       ts_rank('{0.5,0.5,0.5,1}', 'a:1A b:3 c:7B'::tsvector, 'a & c'::tsquery, 32);
SELECT ts_rank_cd('a:1A b:3 c:7B a:9'::tsvector, 'a & b'::tsquery),
       ts_rank_cd('a:1A b:3 c:7B a:9'::tsvector, 'a & c'::tsquery, 2|4),
       ts_rank_cd('{0.1,0.2,0.4,1}', 'a:1A b:3 c:7B'::tsvector, 'a | c'::tsquery, 8|16);
SELECT ts_rank('{0.1,0.2}', 'a'::tsvector, 'a'::tsquery);
SELECT ts_rank('{0.1,0.2,1.5,1}', 'a'::tsvector, 'a'::tsquery);
SELECT ts_rank('{0.1,NULL,0.4,1}', 'a'::tsvector, 'a'::tsquery);
-- JSON documents.
SELECT to_tsvector('english', '{"a": "The Fat Rats", "b": ["cats", 1, true], "c": {"d": "dogs"}}'::jsonb);
SELECT to_tsvector('simple', '{"a": "x y", "b": "z"}'::json);
SELECT jsonb_to_tsvector('english', '{"a": "Fat Rats", "b": 123, "c": false}'::jsonb, '["string", "numeric"]'),
       jsonb_to_tsvector('simple', '{"key1": "v", "k2": 2.50}'::jsonb, '["key", "boolean"]'),
       jsonb_to_tsvector('simple', '{"a": "v", "b": 7}'::jsonb, '"all"');
SELECT json_to_tsvector('simple', '["a b", {"c": "d"}]'::json, '["string"]');
SELECT jsonb_to_tsvector('simple', '{"a": 1}'::jsonb, '["strings"]');
SELECT jsonb_to_tsvector('simple', '{"a": 1}'::jsonb, '[1]');
SELECT jsonb_to_tsvector('simple', '{"a": 1}'::jsonb, '{"a": 1}');
-- The session's configuration.
SET default_text_search_config = 'simple';
SHOW default_text_search_config;
SELECT to_tsvector('The Rats'), to_tsquery('The & Rats'), get_current_ts_config(), 'The Rats' @@ 'rats'::tsquery;
SET default_text_search_config = 'nonesuch';
RESET default_text_search_config;
SELECT to_tsvector('The Rats');
-- The parser, as ts_token_type, ts_parse and ts_debug show it.
SELECT * FROM ts_token_type('default') WHERE tokid IN (1, 6, 12, 23);
SELECT * FROM ts_parse('default', 'foo-bar 1.5e3 http://x.org/y');
SELECT alias, token, dictionaries, dictionary, lexemes FROM ts_debug('english', 'The 2 cats <i>ran</i>');
SELECT * FROM ts_token_type('nonesuch');
-- NULLs are NULL.
SELECT to_tsvector(NULL::text), to_tsquery('english', NULL), ts_rank(NULL, 'a'::tsquery),
       setweight(NULL, 'A'), NULL::tsvector @@ 'a'::tsquery;

-- @@ with ANY / ALL over an array of queries.
SELECT 'a b'::tsvector @@ ANY ('{a,x}'), 'a b'::tsvector @@ ALL ('{a,x}'), 'a b'::tsvector @@ ALL ('{a,b}'),
       'a b'::tsvector @@ ANY ('{}');
SELECT 'a b'::tsvector @@ ANY (ARRAY['x'::tsquery, NULL]), 'a b'::tsvector @@ ALL (ARRAY['a'::tsquery, NULL]),
       NULL::tsvector @@ ANY ('{a}');
SELECT id FROM docs WHERE tsv @@ ANY (ARRAY[to_tsquery('english', 'dogs'), to_tsquery('english', 'rats')]) ORDER BY id;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE tsv @@ ANY ('{wr,qh}');
SELECT 'a b'::tsvector || ANY ('{a}');
