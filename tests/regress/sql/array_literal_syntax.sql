-- Array literal syntax: where PostgreSQL's ArrayCount refuses text mixed
-- with quotes, empty sub-arrays and stray characters, and what it accepts.
select '{{1,2},3}'::text[];
select '{{1,2},\{2,3}}'::text[];
select '{{},{}}'::text[];
select '{{1},{}}'::text[];
select '{{"1 2" x},{3}}'::text[];
select '{a"b"}'::text[];
select '{"a"b}'::text[];
select '{"a" \b}'::text[];
select '{"a" , b}'::text[];
select '{{1},{2} x}'::text[];
select '{1,{2}}'::text[];
select '{ {1} , {2} }'::text[];
select '{"a b" }'::text[];
select '{ab c , "d"}'::text[];
select '{"",""}'::text[];
select '{{1},{2}{3}}'::text[];
select '{a b}'::text[];
select '{NULL,"NULL"}'::text[];
select '{{1,2},{3}}'::text[];
