-- INSERT ... ON CONFLICT through automatically updatable views.
\set VERBOSITY verbose
CREATE TABLE ut (id int PRIMARY KEY, k text UNIQUE, v int, w int);
CREATE UNIQUE INDEX ut_lower_k ON ut (lower(k)) WHERE v > 0;
CREATE VIEW uv AS SELECT id AS vid, k AS vk, v + 0 AS vcalc, v, w FROM ut
  WHERE w > 0 WITH CHECK OPTION;
INSERT INTO uv (vid, vk, v, w) VALUES (1, 'a', 10, 1);
-- DO NOTHING, with and without a conflict target.
INSERT INTO uv (vid, vk, v, w) VALUES (1, 'b', 20, 1) ON CONFLICT DO NOTHING;
INSERT INTO uv (vid, vk, v, w) VALUES (1, 'b', 20, 1) ON CONFLICT (vid) DO NOTHING RETURNING *;
INSERT INTO uv (vid, vk, v, w) VALUES (2, 'a', 20, 1) ON CONFLICT (vk) DO NOTHING RETURNING *;
INSERT INTO uv (vid, vk, v, w) VALUES (3, 'c', 30, 1), (3, 'd', 31, 1)
  ON CONFLICT (vid) DO NOTHING RETURNING *;
-- An expression and a partial index's predicate, over the view's columns.
INSERT INTO uv (vid, vk, v, w) VALUES (4, 'C', 5, 1)
  ON CONFLICT (lower(vk)) WHERE v > 0 DO NOTHING RETURNING *;
-- Conflict targets that name no unique index, or no view column.
INSERT INTO uv (vid, vk, v, w) VALUES (1, 'b', 20, 1) ON CONFLICT (vcalc) DO NOTHING;
INSERT INTO uv (vid, vk, v, w) VALUES (1, 'b', 20, 1) ON CONFLICT (v) DO NOTHING;
INSERT INTO uv (vid, vk, v, w) VALUES (1, 'b', 20, 1) ON CONFLICT (vid, vk) DO NOTHING;
-- ON CONSTRAINT looks on the view, which has no constraints.
INSERT INTO uv (vid, vk, v, w) VALUES (1, 'b', 20, 1) ON CONFLICT ON CONSTRAINT ut_pkey DO NOTHING;
-- DO UPDATE: EXCLUDED and the existing row by the view's names.
INSERT INTO uv (vid, vk, v, w) VALUES (1, 'b', 20, 1)
  ON CONFLICT (vid) DO UPDATE SET v = excluded.v, vk = uv.vk || excluded.vk RETURNING *;
INSERT INTO uv AS t (vid, vk, v, w) VALUES (1, 'x', 7, 1)
  ON CONFLICT (vid) DO UPDATE SET v = excluded.vcalc + t.vcalc RETURNING vid, vk, v;
INSERT INTO uv (vid, vk, v, w) VALUES (1, 'b', 20, 1) ON CONFLICT DO UPDATE SET v = 1;
INSERT INTO uv (vid, vk, v, w) VALUES (1, 'b', 20, 1) ON CONFLICT (vid) DO UPDATE SET vcalc = 1;
INSERT INTO uv (vid, vk, v, w) VALUES (1, 'b', 20, 1) ON CONFLICT (vid) DO UPDATE SET nosuch = 1;
-- DO UPDATE ... WHERE.
INSERT INTO uv (vid, vk, v, w) VALUES (1, 'b', 20, 1)
  ON CONFLICT (vid) DO UPDATE SET w = excluded.w + 1 WHERE uv.v > 100 RETURNING *;
INSERT INTO uv (vid, vk, v, w) VALUES (1, 'b', 20, 1)
  ON CONFLICT (vid) DO UPDATE SET w = excluded.w + 1 WHERE uv.v < 100 AND excluded.vcalc = 20
  RETURNING *;
-- The check option, on the inserted and on the updated row.
INSERT INTO uv (vid, vk, v, w) VALUES (1, 'b', 20, 1) ON CONFLICT (vid) DO UPDATE SET w = -1;
INSERT INTO uv (vid, vk, v, w) VALUES (5, 'e', 20, -1) ON CONFLICT (vid) DO NOTHING;
INSERT INTO uv (vid, vk, v, w) VALUES (5, 'e', 20, -1) ON CONFLICT (vid) DO UPDATE SET w = 1;
-- The existing row need not be visible through the view.
UPDATE ut SET w = -5 WHERE id = 1;
INSERT INTO uv (vid, vk, v, w) VALUES (1, 'q', 20, 1) ON CONFLICT (vid) DO UPDATE SET v = 77;
INSERT INTO uv (vid, vk, v, w) VALUES (1, 'q', 20, 1)
  ON CONFLICT (vid) DO UPDATE SET w = 3 RETURNING *;
-- The same row twice in one command.
INSERT INTO uv (vid, vk, v, w) VALUES (9, 'z', 1, 1), (9, 'zz', 1, 1)
  ON CONFLICT (vid) DO UPDATE SET v = 5;
-- Nested views.
CREATE VIEW uv2 AS SELECT vid AS id2, vk, v FROM uv;
INSERT INTO uv2 VALUES (1, 'n', 1) ON CONFLICT (id2) DO UPDATE SET v = excluded.v + uv2.v RETURNING *;
INSERT INTO uv2 VALUES (1, 'n', 1) ON CONFLICT (vk) DO NOTHING RETURNING *;
INSERT INTO uv2 VALUES (6, 'n', 1) ON CONFLICT (id2) DO UPDATE SET v = 0;
-- View column defaults apply to the proposed row.
CREATE VIEW uv3 AS SELECT id, k, v, w FROM ut;
ALTER VIEW uv3 ALTER COLUMN w SET DEFAULT 42;
INSERT INTO uv3 (id, k) VALUES (1, 'dup') ON CONFLICT (id) DO UPDATE SET w = excluded.w RETURNING *;
INSERT INTO uv3 (id, k) VALUES (7, 'seven') ON CONFLICT (id) DO UPDATE SET w = excluded.w RETURNING *;
-- Upsert as PostgREST sends it.
WITH pgrst_body AS (SELECT '[{"id": 7, "k": "seven", "v": 70}, {"id": 8, "k": "eight", "v": 80}]'::json AS body)
INSERT INTO uv3 (id, k, v)
SELECT id, k, v FROM json_to_recordset((SELECT body FROM pgrst_body)) AS _ (id int, k text, v int)
ON CONFLICT (id) DO UPDATE SET k = excluded.k, v = excluded.v
RETURNING id, k, v, w;
-- The view's row type, as PostgREST reads the request body with it.
SELECT null::uv3, pg_typeof(null::uv3), (ROW(1, 'a', 2, 3)::uv3).k;
WITH pgrst_source AS (
  INSERT INTO "public"."uv3" ("id", "k", "v")
  SELECT "pgrst_body"."id", "pgrst_body"."k", "pgrst_body"."v"
  FROM (SELECT '[{"id": 8, "k": "acht", "v": 88}, {"id": 10, "k": "ten"}]'::json AS json_data) pgrst_payload,
  LATERAL (SELECT "id", "k", "v" FROM json_populate_recordset(null::"public"."uv3", pgrst_payload.json_data)) pgrst_body
  ON CONFLICT ("id") DO UPDATE SET "id" = EXCLUDED."id", "k" = EXCLUDED."k", "v" = EXCLUDED."v"
  RETURNING "public"."uv3".*
)
SELECT '' AS total_result_set, pg_catalog.count(_postgrest_t) AS page_total,
  coalesce(json_agg(_postgrest_t), '[]') AS body
FROM (SELECT "uv3".* FROM "pgrst_source" AS "uv3") _postgrest_t;
SELECT * FROM ut ORDER BY id;
-- A view that is not updatable.
CREATE VIEW uv4 AS SELECT DISTINCT id FROM ut;
INSERT INTO uv4 VALUES (1) ON CONFLICT DO NOTHING;
DROP TABLE ut CASCADE;
-- Privileges: DO UPDATE reads the view's columns it names (and the
-- table's columns the view shows, as the view's owner) and updates those
-- it sets.
CREATE ROLE regress_vu_owner;
CREATE ROLE regress_vu_user;
GRANT CREATE ON SCHEMA public TO regress_vu_owner, regress_vu_user;
SET SESSION AUTHORIZATION regress_vu_owner;
CREATE TABLE pt (a int UNIQUE, b text, c float);
INSERT INTO pt VALUES (1, 'xxx', 1.0);
CREATE VIEW pv AS SELECT b AS bb, c AS cc, a AS aa FROM pt;
GRANT SELECT (aa, bb) ON pv TO regress_vu_user;
GRANT INSERT ON pv TO regress_vu_user;
GRANT UPDATE (bb) ON pv TO regress_vu_user;
SET SESSION AUTHORIZATION regress_vu_user;
INSERT INTO pv VALUES ('yyy', 2.0, 1) ON CONFLICT (aa) DO UPDATE SET bb = excluded.cc;
INSERT INTO pv VALUES ('yyy', 2.0, 1) ON CONFLICT (aa) DO UPDATE SET bb = pv.cc;
INSERT INTO pv VALUES ('zzz', 2.0, 1) ON CONFLICT (aa) DO UPDATE SET cc = 3.0;
INSERT INTO pv VALUES ('yyy', 2.0, 1) ON CONFLICT (aa) DO UPDATE SET bb = excluded.bb;
INSERT INTO pv VALUES ('zzz', 2.0, 1) ON CONFLICT (aa) DO UPDATE SET bb = pv.bb || 'xxx';
INSERT INTO pv VALUES ('zzz', 2.0, 1) ON CONFLICT (aa) DO UPDATE SET bb = 'r' RETURNING *;
RESET SESSION AUTHORIZATION;
SELECT * FROM pt;
SET SESSION AUTHORIZATION regress_vu_owner;
GRANT SELECT (a, b), INSERT (a, b), UPDATE (a, b) ON pt TO regress_vu_user;
SET SESSION AUTHORIZATION regress_vu_user;
CREATE VIEW pv2 AS SELECT b AS bb, c AS cc, a AS aa FROM pt;
INSERT INTO pv2 (aa, bb) VALUES (1, 'xxx') ON CONFLICT (aa) DO UPDATE SET bb = excluded.bb;
CREATE VIEW pv3 AS SELECT b AS bb, a AS aa FROM pt;
INSERT INTO pv3 (aa, bb) VALUES (1, 'xxx') ON CONFLICT (aa) DO UPDATE SET bb = excluded.bb;
RESET SESSION AUTHORIZATION;
SELECT * FROM pt;
DROP TABLE pt CASCADE;
REVOKE CREATE ON SCHEMA public FROM regress_vu_owner, regress_vu_user;
DROP ROLE regress_vu_owner;
DROP ROLE regress_vu_user;
