-- Full text search: ts_headline, ts_lexize, the text search catalogs
-- and the types' catalog entries.
\set VERBOSITY verbose
-- ts_headline: the best passage, the query's words marked.
SELECT ts_headline('english', 'The quick brown fox jumps over the lazy dog and the cat sat on the mat while the rat ate fat cheese',
                   to_tsquery('english', 'fox & dog'));
SELECT ts_headline('english', 'The quick brown fox jumps over the lazy dog and the cat sat on the mat while the rat ate fat cheese',
                   to_tsquery('english', 'cat | rat'), 'MaxWords=6, MinWords=3');
SELECT ts_headline('english', 'The quick brown fox jumps over the lazy dog and the cat sat on the mat while the rat ate fat cheese',
                   to_tsquery('english', 'fox | cat | cheese'),
                   'MaxFragments=2, MaxWords=5, MinWords=2, StartSel=[, StopSel=], FragmentDelimiter=" ~ "');
SELECT ts_headline('english', 'The quick brown fox jumps over the lazy dog',
                   to_tsquery('english', 'fox <-> jump'), 'HighlightAll=true, StartSel="<<", StopSel=">>"');
SELECT ts_headline('english', '<p>Search <b>fox</b> terms</p> about the fox-dog and http://fox.com/dog',
                   to_tsquery('english', 'fox'));
SELECT ts_headline('english', 'no match in this text at all', to_tsquery('english', 'zebra'), 'MinWords=2, MaxWords=4');
SELECT ts_headline('The Fat Rats', 'rat'::tsquery), ts_headline('The Fat Rats', 'rat'::tsquery, 'StartSel=*, StopSel=*');
SELECT ts_headline('english', 'a b', 'a'::tsquery, 'MinWords=5, MaxWords=5');
SELECT ts_headline('english', 'a b', 'a'::tsquery, 'MinWords=0');
SELECT ts_headline('english', 'a b', 'a'::tsquery, 'Nonesuch=1');
SELECT ts_headline('english', 'a b', 'a'::tsquery, 'MaxWords');
SELECT ts_headline('english', 'a b', 'a'::tsquery, 'MaxWords=x');
-- JSON documents: each string value gets its headline.
SELECT ts_headline('{"a": "aaa bbb", "b": {"c": "ccc ddd fff"}, "d": ["ggg hhh", "iii jjj"]}'::jsonb,
                   to_tsquery('bbb & ddd & hhh'));
SELECT ts_headline('english', '{"a": "aaa bbb", "b": {"c": "ccc ddd fff"}, "d": ["ggg hhh", 5, true]}'::json,
                   to_tsquery('english', 'bbb & ddd & hhh'), 'StartSel = <, StopSel = >');
SELECT ts_headline('null'::jsonb, to_tsquery('aaa')), ts_headline('[]'::json, to_tsquery('aaa'));
-- ts_lexize and regdictionary.
SELECT ts_lexize('english_stem', 'Stars'), ts_lexize('english_stem', 'the'), ts_lexize('simple', 'The');
SELECT 'simple'::regdictionary, 'pg_catalog.english_stem'::regdictionary, 3765::regdictionary;
SELECT ts_lexize('nodict', 'x');
SELECT to_tsvector('nocfg', 'x');
-- The catalogs.
SELECT cfgname, cfgnamespace::regnamespace, cfgparser FROM pg_ts_config
  WHERE cfgname IN ('simple', 'english') ORDER BY oid;
SELECT prsname FROM pg_ts_parser;
SELECT dictname, dictinitoption FROM pg_ts_dict
  WHERE dictname IN ('simple', 'english_stem') ORDER BY oid;
SELECT c.cfgname, m.maptokentype, d.dictname
  FROM pg_ts_config_map m JOIN pg_ts_config c ON c.oid = m.mapcfg JOIN pg_ts_dict d ON d.oid = m.mapdict
  WHERE m.maptokentype IN (1, 2, 3, 19) AND c.cfgname IN ('simple', 'english') ORDER BY 1, 2;
SELECT typname, typlen, typcategory, typinput, typoutput, typreceive, typsend, typarray::regtype
  FROM pg_type WHERE typname IN ('tsvector', 'tsquery', 'regconfig', 'regdictionary') ORDER BY oid;
SELECT proname, prorettype::regtype FROM pg_proc
  WHERE proname IN ('tsvectorin', 'tsvectorsend', 'tsqueryout', 'tsqueryrecv') ORDER BY oid;
-- Columns of these types survive a restart of the values' byte form.
CREATE TABLE tsdocs (id int, v tsvector, q tsquery, c regconfig);
INSERT INTO tsdocs VALUES (1, 'a:1A b:2,3 c', 'a <-> !b | c:*', 'english'),
                          (2, '', '', 'simple'), (3, NULL, NULL, NULL);
SELECT id, v, q, c, v @@ q AS m FROM tsdocs ORDER BY id;
SELECT * FROM tsdocs WHERE v = 'c b:3,2 a:1A' ORDER BY id;
SELECT count(DISTINCT v), count(DISTINCT q) FROM tsdocs;
-- ts_rewrite: subtrees (or a subset of an & / | node's operands) replaced.
SELECT ts_rewrite('a & b'::tsquery, 'a'::tsquery, 'c'::tsquery),
       ts_rewrite('a & b & c'::tsquery, 'a & c'::tsquery, 'z'::tsquery),
       ts_rewrite('a | b | c | d'::tsquery, 'b | d'::tsquery, 'q <-> r'::tsquery);
SELECT ts_rewrite('supernovae & crab'::tsquery, 'supernovae'::tsquery, 'supernovae|sn'::tsquery),
       ts_rewrite('((a & b) | (c & d)) & e'::tsquery, 'c & d'::tsquery, 'w'::tsquery),
       ts_rewrite('!a & b'::tsquery, 'a'::tsquery, 'c'::tsquery);
SELECT ts_rewrite('a <-> b & c'::tsquery, 'a <-> b'::tsquery, 'x'::tsquery),
       ts_rewrite('a & b'::tsquery, 'x'::tsquery, 'y'::tsquery);
SELECT ts_rewrite('a'::tsquery, 'a'::tsquery, 'b'::tsquery) = 'b'::tsquery,
       ts_rewrite('a & b'::tsquery, 'a & b'::tsquery, 'c | d'::tsquery);
-- tsquery order is PostgreSQL's (the operands' legacy CRC first).
SELECT string_agg(q::text, ' ; ' ORDER BY q)
  FROM (VALUES ('a'::tsquery), ('b'), ('a & b'), ('b & a'), ('a | b'), ('!a'), ('xyz'), ('a <-> b'), ('a <2> b')) t(q);
