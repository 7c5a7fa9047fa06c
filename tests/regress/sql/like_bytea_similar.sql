-- bytea LIKE compares bytes; a pattern ending in the escape character is
-- an error only when matching reaches it; SIMILAR TO's constant pattern is
-- translated at plan time; bytea_output = escape.
select 'abc'::bytea like '_b_'::bytea as t, 'abc'::bytea not like '_b_'::bytea as f;
select 'a\000b'::bytea like 'a\000%'::bytea as t, '\xff00'::bytea like '__'::bytea as t2;
select 'a_c'::bytea like 'a$__'::bytea escape '$'::bytea as t;
select 'abc'::bytea ilike 'a%';
select like_escape('a#_b'::bytea, '#'::bytea), bit_count('\x0f0f'::bytea);
select 'ab' like 'a\';
select 'a' like 'a\' as f, 'b' like 'a\' as f2, '' like '\' as f3;
select 'ab' like '%\';
select 'a' ilike 'A\' as f;
select 'ab' ilike 'A\';
select 'a' like 'a#' escape '#' as f;
select 'ab' like 'a#' escape '#';
select x like 'a\' from (values ('a'), ('ab')) v(x);
select 'abc' like any (array['x\', 'a%']);
create temp table sim (f1 text);
insert into sim values ('a_b'), ('axb'), ('a]b'), ('^');
explain (costs off) select * from sim where f1 similar to '_[_[:alpha:]_]_';
explain (costs off) select * from sim where f1 not similar to '[]%][^]%][^%]%';
explain (costs off) select * from sim where f1 similar to '[|a]%' escape '|';
explain (costs off) select * from sim where f1 similar to '^[^[:alnum:]^[^^][[^^]][\^][[\^]]\^]^';
select f1 from sim where f1 similar to '_[_[:alpha:]_]_' order by 1;
select f1 from sim where f1 similar to '[]a]%' order by 1;
select 'abcdefg' similar to '_bcd#%' escape '##' as error;
prepare sim_p(text) as select f1 from sim where f1 similar to $1 order by 1;
execute sim_p('a%');
set bytea_output to escape;
select E'\\xDeAdBeEf'::bytea, E'\\xDe00BeEf'::bytea, 'ab\\c'::bytea, ''::bytea;
select E'De\\123dBeEf'::bytea, '\xff'::bytea || 'x'::bytea;
select to_json('\x41ff'::bytea), array['\x00'::bytea];
show bytea_output;
reset bytea_output;
select E'\\xDeAdBeEf'::bytea;
set bytea_output to base64;
-- numeric NaN and infinity name the integer type they cannot become
select 'NaN'::numeric::int2;
select 'Infinity'::numeric::int8;
select '-Infinity'::numeric::int4;
select x::int2 from (values ('NaN'::numeric)) v(x);
-- a cast of a.* is named after a
select (a.*)::text, (select (a.*)::text) from (values (1)) a(x);
-- concat and concat_ws with VARIADIC: the array's elements are the arguments
select concat_ws(',', variadic array[1,2]), concat(variadic array['a','b']);
select concat(variadic null::int[]) is null, concat_ws(',', variadic null::int[]) is null;
select concat(variadic 10);
select concat_ws(',', variadic 10);
select concat(variadic '{a,b}');
select concat_ws('|', variadic array[[1,2],[3,null]]), concat_ws(',', variadic array[]::int[]);
select concat('x', variadic array[1]);
