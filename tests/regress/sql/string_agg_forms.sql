-- string_agg over bytea (bytea result) and with a per-row delimiter; DISTINCT
-- aggregates read their input sorted and array_agg keeps one NULL.
select string_agg(x, ','::bytea) from (values ('a'::bytea),('b')) v(x);
select pg_typeof(string_agg(x, ','::bytea)) from (values ('a'::bytea),('b')) v(x);
select string_agg(x, y) from (values ('a','-'),('b','+'),('c','*')) v(x,y);
select string_agg(x, y) from (values ('a','-'),(null,'+'),('c',null),('d','/')) v(x,y);
select string_agg(x, ',') from (values ('a'::bytea),('b')) v(x);
select string_agg(x, y order by x desc) from (values ('a','-'),('b','+'),('c','*')) v(x,y);
select string_agg(x, y) over (order by x) from (values ('a','-'),('b','+'),('c','*')) v(x,y);
select string_agg(x, ',') over (order by x) from (values ('a'),('b')) v(x);
select string_agg(1, ',');
select string_agg('a', 'b');
select string_agg(x, ',' order by x) from (values ('b'),('a'),(null)) v(x);
select string_agg(distinct x, ',') from (values ('b'),('a'),('a')) v(x);
select string_agg(x, 1) from (values ('b')) v(x);
select string_agg(v, decode('ee', 'hex')) from (values ('\xff'::bytea),('\xaa')) t(v);
select string_agg(x::text, ', ') from generate_series(1,3) x;
select array_agg(distinct x) from (values ('b'),('a'),('a'),(null)) v(x);
select g, array_agg(distinct x), count(distinct x), sum(distinct y) from (values (1,'b',1.5::float8),(1,'a',1e20),(2,'c',-1e20),(1,'b',2)) v(g,x,y) group by g order by g;
select string_agg(distinct x, ',' order by x desc) from (values ('b'),('a'),('a')) v(x);
select json_agg(distinct x) from (values (1),(null),(null)) v(x);
