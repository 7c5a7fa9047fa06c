-- regexp_* flags: newline sensitivity (n/m/p/w/s), expanded (x), quoted (q)
SELECT regexp_like('a'||CHR(10)||'d', 'a.d', 'n');
SELECT regexp_like('a'||CHR(10)||'d', 'a.d', 's');
SELECT regexp_like('abc', ' a . c ', 'x');
SELECT regexp_matches('foo' || chr(10) || 'bar' || chr(10) || 'bequq' || chr(10) || 'baz', '^', 'mg');
SELECT regexp_matches('foo' || chr(10) || 'bar' || chr(10) || 'bequq' || chr(10) || 'baz', '$', 'mg');
select regexp_replace('a.b.c', '.', 'X', 'gq');
select regexp_replace('A.b.C', 'a.', 'X', 'qi');
select regexp_like('a b', 'a[ ]b', 'x');
select regexp_like('a b', 'a\ b', 'x');
select regexp_like('ab', 'a # comment
 b', 'x');
select regexp_like('a'||chr(10)||'b', '^b', 'w'), regexp_like('a'||chr(10)||'b', 'a.b', 'w');
select regexp_like('a'||chr(10)||'b', '^b', 'p'), regexp_like('a'||chr(10)||'b', 'a.b', 'p');
select regexp_count('a1b2', '[0-9]', 1, 'n');
select regexp_like('ab', 'ab', 'z');
