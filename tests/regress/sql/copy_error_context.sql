-- COPY FROM's CONTEXT of an error writing a row: the line, quoted when
-- the error is found while the line is at hand (constraints, domains),
-- not for a unique violation; CSV records spanning lines are numbered
-- by their last line.
create domain cec_dnn as text not null;
create table cec (a cec_dnn, b int check (b > 0));
copy cec from stdin;
\N	1
\.
copy cec from stdin;
x	-1
\.
copy cec from stdin;
x	\N
y	0
\.
create table cec2 (a int primary key, b text check (b <> 'bad'));
copy cec2 from stdin with (format csv);
1,ok
2,"multi
line"
3,bad
\.
copy cec2 from stdin with (format csv);
1,"a
b
c"
2,"x
y"
\.
copy cec2 from stdin;
5	x
5	y
\.
copy cec2 from stdin;
6	1	2
\.
select count(*) from cec2;
drop table cec, cec2;
drop domain cec_dnn;
