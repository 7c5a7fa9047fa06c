-- Back references and lookaround (the backtracking engine), and
-- PostgreSQL's match walk for g: after a non-empty match, an empty one
-- may start where it ended.
select 'hello' ~ '(l)\1' as dbl, 'helo' ~ '(l)\1' as single, 'abab' ~ '^(ab)\1$' as whole;
select 'HELLO' ~* '(l)\1' as ci;
select 'password1' ~ '^(?=.*[0-9])(?=.*[a-z]).{8,}$' as strong,
       'password' ~ '^(?=.*[0-9])(?=.*[a-z]).{8,}$' as weak;
select 'foobaz' ~ 'foo(?!bar)' as neg_ahead, 'xbar' ~ '(?<=x)bar' as behind,
       'ybar' ~ '(?<!y)bar' as neg_behind;
select regexp_replace('foobarrbazz', e'(.)\\1', e'X\\&Y', 'g');
select regexp_replace('foobarrbazz', e'(.)\\1', e'X\\\\Y', 'g');
select regexp_replace('foobarrbazz', e'(.)\\1', e'X\\Y\\1Z\\');
select regexp_matches('abcabcabc', '(b)(c)(?=a)', 'g');
select regexp_count('aXbXXc', 'X'), regexp_instr('foo bar', '(?<=o )b'),
       regexp_substr('abcabc', '(b)(c)', 1, 2, 'i', 2);
select regexp_split_to_array('a11b22c', '(\d)\1');
create table rb (s text check (s !~ '(.)\1'));
insert into rb values ('abc');
insert into rb values ('abbc');
drop table rb;
-- the walk
select regexp_matches(chr(10) || '1' || chr(10) || '2' || chr(10), '.?$', 'mg');
select regexp_matches('aaa', 'a*', 'g');
select regexp_matches('abc', '', 'g');
select regexp_split_to_array('abc', ''), regexp_split_to_array('a1b22c', '\d+'),
       regexp_split_to_array('1a1', '1'), regexp_split_to_array('aaa', 'a*');
select regexp_replace('aaa', 'a*', '-', 'g'), regexp_replace('baaac', 'a*', '-', 'g');
select regexp_split_to_table('one  two', '\s*');
