-- A function in FROM on the right of a LEFT JOIN (or of an INNER JOIN
-- with a real ON condition) that reads the join's left side, or the
-- FROM items before the join: run per left row, NULL-extended when no
-- row of it passes ON.
select * from (values (1), (5)) v(a) left join generate_series(v.a, 3) g on g > 1
  order by a, g;
select * from (values (1), (5)) v(a) join generate_series(v.a, 3) g on g > 1
  order by a, g;
select * from (values (1), (5)) v(a)
  left join generate_series(v.a, 3) with ordinality g(x, n) on n = 2
  order by a, x;
select * from (values (0)) w(z), (values (1), (5)) v(a)
  left join generate_series(v.a, w.z + 3) g on true
  order by a, g;
select * from (values (1), (2), (3)) v1(r1),
  lateral (select r1, * from (values (10), (20), (30)) v2(r2)
           left join generate_series(r1, 2 + r2 / 5) f(i) on ((r2 + i) < 100)
           offset 0) s1
  order by 1, 3, 4;
select * from (values (1), (2)) v1(r1)
  left join lateral (
    select * from generate_series(1, v1.r1) as gs1
    left join lateral (
      select * from generate_series(1, gs1) as gs2
      left join generate_series(1, gs2) as gs3 on true
    ) as ss1 on true
    full join generate_series(1, v1.r1) as gs4 on false
  ) as ss0 on true
  order by 1, 2, 3, 4, 5;
-- a RIGHT or FULL join's right side still may not see its left side
select * from (values (1)) v(a) right join generate_series(v.a, 3) g on true;
-- a scalar function in FROM reading an earlier FROM item (was a panic)
create table lfj_a (x int);
create table lfj_b (y int);
insert into lfj_a values (1), (2), (null);
insert into lfj_b values (1);
select * from lfj_a left join lfj_b on y = x, lateral abs(lfj_a.x) g order by x;
select * from lfj_a, lateral abs(lfj_a.x) g order by x;
select * from lfj_a join lfj_b on y = x, lateral abs(lfj_a.x) g;
select * from lfj_a, lateral upper(lfj_a.x::text || 'a') u order by x;
select * from lfj_a, lateral string_to_array(lfj_a.x::text || ',9', ',') a order by x;
select * from lfj_a left join lateral abs(lfj_a.x) g on g > 1 order by x;
select g, pg_typeof(g) from lfj_a, abs(lfj_a.x) g order by x;
drop table lfj_a, lfj_b;
