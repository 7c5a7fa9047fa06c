-- String functions (format, initcap, translate, starts_with, ascii, chr,
-- to_hex, overlay and the core set) and the json aggregates.
\set VERBOSITY verbose
SET TimeZone = 'UTC';
-- format
SELECT format('%s|%I|%L|%%|%1$s|%-6s|%6s|', 'a', 'B c', 'it''s', 'x');
SELECT format('%s, %s', 'a', NULL), format('%L %L', NULL, 'o''k'), format(NULL), format('abc'), format('%*s|%-*s|', 5, 'x', 5, 'y'), format('%1$s %1$I', 'Select');
SELECT format('%s', 1.50), format('%s', true), format('%L', 42), format('%s %s', date '2024-01-02', timestamptz '2024-01-02 03:04:05+00'), format('%I', 'ok_name'), format('%I', 'Mixed'), format('%I.%I', 'public', 'table');
SELECT format('%3$s %s', 'a', 'b', 'c', 'd'), format('%2$s %s', 'a', 'b', 'c'), format('%-3s|', 'abcdef'), format('%L', E'back\\slash'), format('%s', ARRAY[1, 2]);
SELECT format('INSERT INTO %I VALUES (%L, %L)', 'my table', 'O''Reilly', NULL);
SELECT format('%s %s', 'a');
SELECT format('%x', 1);
SELECT format('%', 1);
SELECT format('%I', NULL);
SELECT format('%0$s', 1);
SELECT format('%1$', 1);
-- initcap, translate, starts_with, ascii, chr, to_hex, overlay
SELECT initcap('hello wORLD-foo_bar 3x o''neil'), initcap(''), initcap(NULL), translate('12345', '143', 'ax'), translate('abc', '', 'x'), translate(NULL, 'a', 'b');
SELECT starts_with('alphabet', 'alph'), starts_with('alphabet', 'beta'), starts_with('x', ''), starts_with(NULL, 'a');
SELECT ascii('A'), ascii(''), ascii('é'), ascii(NULL), chr(65), chr(233), chr(8364), chr(NULL);
SELECT chr(0);
SELECT chr(-1);
SELECT chr(1114112);
SELECT to_hex(255), to_hex(-1), to_hex(-1::bigint), to_hex(0), to_hex(2147483647::bigint * 16), to_hex(NULL::int);
SELECT overlay('Txxxxas' placing 'hom' from 2 for 4), overlay('abc' placing 'X' from 2), overlay('abc' placing 'X' from 2 for -1), overlay('abc' placing 'XYZ' from 3 for 10), overlay('abc' placing 'Z' from 10);
SELECT overlay('abc' placing 'X' from 0);
SELECT pg_typeof(ascii('a')), pg_typeof(to_hex(1::bigint)), pg_typeof(starts_with('a', 'b')), pg_typeof(format('%s', 1));
-- the core set, for reference
SELECT concat('a', 1, NULL, true), concat_ws('-', 'a', NULL, 'b'), left('hello', -2), right('hello', -2), repeat('ab', 3), reverse('héllo'), lpad('hi', 5, 'xy'), rpad('hi', 5), split_part('a,b,c', ',', -1), strpos('hello', 'l'), position('l' in 'hello'), btrim('xxhixx', 'x'), ltrim('  hi'), rtrim('hi!!', '!'), md5('abc'), quote_ident('Foo');
SELECT left('abc', NULL), split_part('a,b', ',', 0);
-- json aggregates
CREATE TABLE jt (id int, k text, v numeric, tags text[]);
INSERT INTO jt VALUES (1, 'a', 1.50, ARRAY['x', 'y']), (2, 'b', NULL, NULL), (3, 'a', 3, ARRAY['z']);
SELECT jsonb_agg(v), json_agg(v), jsonb_agg(k ORDER BY id DESC), json_agg(k) FROM jt;
SELECT jsonb_object_agg(k, v), json_object_agg(k, v), jsonb_object_agg(id, k) FROM jt;
SELECT json_agg(tags), jsonb_agg(tags) FROM jt;
SELECT k, jsonb_agg(id ORDER BY id), json_object_agg(id, v) FROM jt GROUP BY k ORDER BY k;
SELECT jsonb_agg(x), json_agg(x), jsonb_object_agg(x, x), json_object_agg(x, x) FROM (VALUES (1)) t(x) WHERE false;
SELECT jsonb_agg(DISTINCT k) FROM jt;
SELECT jsonb_agg(x) FROM (VALUES ('a"b'::text), (NULL), ('{"q": 1}')) t(x);
SELECT jsonb_agg(x), json_agg(x) FROM (VALUES (date '2024-01-02'), (NULL)) t(x);
SELECT jsonb_agg(x) FROM (VALUES (timestamptz '2024-01-02 03:04:05+00')) t(x);
SELECT jsonb_agg(x), json_agg(x) FROM (VALUES ('{"a": 1}'::jsonb), ('[1, 2]')) t(x);
SELECT jsonb_agg(true), json_agg(1.50), jsonb_object_agg('dup', 1), jsonb_object_agg(k, id) FROM jt;
SELECT jsonb_object_agg(NULL::text, 1);
SELECT json_object_agg(k, v) FROM (VALUES (NULL::text, 1)) t(k, v);
