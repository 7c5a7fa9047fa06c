\set g random(0, 990)
SELECT grp, count(*) FROM q_items WHERE id <= 20000 GROUP BY grp HAVING grp BETWEEN :g AND :g + 5;
