SELECT find_or_create((nextval('keys') / 4)::int);
