\set lo random(1, 490000)
SELECT sum(q_addone(price)) FROM q_items WHERE id BETWEEN :lo AND :lo + 2000;
