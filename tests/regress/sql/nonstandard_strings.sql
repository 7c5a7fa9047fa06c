-- standard_conforming_strings = off: plain literals take backslash escapes,
-- with escape_string_warning's warnings; U&'' literals are refused.
SET standard_conforming_strings TO off;
SELECT U&'d\0061t\+000061' AS U&"d\0061t\+000061";
SELECT 'tricky' AS U&"\" UESCAPE '!';
SELECT U&'wrong: +0061' UESCAPE '+';
RESET standard_conforming_strings;
set escape_string_warning = off;
set standard_conforming_strings = off;
show escape_string_warning;
show standard_conforming_strings;
set escape_string_warning = on;
set standard_conforming_strings = on;
select 'a\bcd' as f1, 'a\b''cd' as f2, 'a\b''''cd' as f3, 'abcd\'   as f4, 'ab\''cd' as f5, '\\' as f6;
set standard_conforming_strings = off;
select 'a\\bcd' as f1, 'a\\b\'cd' as f2, 'a\\b\'''cd' as f3, 'abcd\\'   as f4, 'ab\\\'cd' as f5, '\\\\' as f6;
set escape_string_warning = off;
select 'a\\bcd' as f1, 'a\\b\'cd' as f2, 'a\\b\'''cd' as f3, 'abcd\\'   as f4, 'ab\\\'cd' as f5, '\\\\' as f6;
select 'x\ty' || 1, 'a\nb', 'abc'
  'def\\', E'\\x', 'z\'' = 1;
select 'bad\000';
select 'é\x41\u00e9\U0001F600';
prepare p as select 'a\\b' || $1;
execute p('c\\d');
reset standard_conforming_strings;
select 'a\\b';
