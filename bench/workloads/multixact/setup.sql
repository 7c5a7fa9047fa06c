-- multixact: ten hot rows that every client locks and updates.
DROP TABLE IF EXISTS mx;
CREATE TABLE mx (
    id integer PRIMARY KEY,
    v  integer NOT NULL
);
INSERT INTO mx (id, v) SELECT i, 0 FROM generate_series(1, 10) AS i;
