-- DEFAULT expressions: no column references nor subqueries (42P10 / 0A000 at
-- the first one), aggregates and set-returning functions refused.
CREATE TABLE default_expr_column (id int DEFAULT (id));
CREATE TABLE default_expr_column (id int DEFAULT (bar.id));
CREATE TABLE default_expr_agg_column (id int DEFAULT (avg(id)));
CREATE TABLE default_expr_non_column (a int DEFAULT (avg(non_existent)));
CREATE TABLE default_expr_agg (a int DEFAULT (avg(1)));
CREATE TABLE default_expr_agg (a int DEFAULT (select 1));
CREATE TABLE default_expr_agg (a int DEFAULT (generate_series(1,3)));
CREATE TABLE default_ok (a int DEFAULT 1 + 2, b text DEFAULT current_user);
CREATE TABLE p (a int) PARTITION BY LIST (a);
CREATE TABLE p1 PARTITION OF p FOR VALUES IN ((select 1) + a);
ALTER TABLE default_ok ALTER COLUMN a SET DEFAULT (b);
