-- GROUP BY GROUPING SETS, ROLLUP and CUBE, and grouping().
\set VERBOSITY verbose
CREATE TABLE sales (region text, product text, qty int);
INSERT INTO sales VALUES ('n', 'x', 1), ('n', 'y', 2), ('s', 'x', 3), ('s', 'x', 4), ('s', NULL, 5);
SELECT region, product, sum(qty) FROM sales GROUP BY GROUPING SETS ((region), (product), ()) ORDER BY 1, 2, 3;
SELECT region, product, sum(qty), grouping(region, product) FROM sales GROUP BY ROLLUP (region, product) ORDER BY 4, 1, 2;
SELECT region, product, count(*), grouping(region) AS gr, grouping(product) AS gp FROM sales GROUP BY CUBE (region, product) ORDER BY gr, gp, 1, 2;
SELECT region, product, sum(qty) FROM sales GROUP BY region, ROLLUP (product) ORDER BY 1, 2;
SELECT region, sum(qty) FROM sales GROUP BY GROUPING SETS ((region), ()) HAVING sum(qty) > 3 ORDER BY 1;
SELECT sum(qty) FROM sales GROUP BY GROUPING SETS (());
SELECT region, sum(qty) FROM sales GROUP BY ROLLUP (region) ORDER BY grouping(region), region;
SELECT region, product, sum(qty) FROM sales GROUP BY GROUPING SETS ((region, product), (region), (region)) ORDER BY 1, 2, 3;
SELECT region, grouping(product) FROM sales GROUP BY region;
SELECT region FROM sales WHERE grouping(region) = 0 GROUP BY region;
SELECT region, product FROM sales GROUP BY ROLLUP (region);
SELECT region, product, sum(qty), grouping(product, region) FROM sales GROUP BY CUBE ((region, product)) ORDER BY 1, 2;
SELECT region, count(*), grouping(region) FROM sales GROUP BY region ORDER BY 1;
SELECT upper(region) AS r, sum(qty) FROM sales GROUP BY ROLLUP (upper(region)) ORDER BY 1;
SELECT region, sum(qty), rank() OVER (ORDER BY sum(qty) DESC) FROM sales GROUP BY ROLLUP (region) ORDER BY 1;
SELECT region, product, sum(qty) FROM sales GROUP BY GROUPING SETS (region, ROLLUP (product)) ORDER BY 1, 2, 3;
SELECT sum(qty) FROM sales WHERE false GROUP BY ROLLUP (region);
SELECT 1 AS one FROM sales GROUP BY ();
