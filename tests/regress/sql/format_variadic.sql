-- format(fmt, VARIADIC array)
select format('%s, %s', variadic array['Hello','World']);
select format('%s, %s', variadic array[1, 2]);
select format('%s, %s', variadic array[true, false]);
select format('%s, %s', variadic array[true, false]::text[]);
select format('%2$s, %1$s', variadic array['first', 'second']);
select format('%2$s, %1$s', variadic array[1, 2]);
select format('Hello', variadic NULL::int[]);
select format(string_agg('%s',','), variadic array_agg(i)) from generate_series(1,200) g(i);
select format(NULL, variadic array[1]);
select format('%s %s', variadic array[1, NULL]);
select format('%s', variadic 1);
select format('%s', variadic '{a,b}');
