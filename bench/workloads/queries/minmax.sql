SELECT min(price), max(price), max(id) FROM q_items;
