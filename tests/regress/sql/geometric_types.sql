-- Geometric types: point, lseg, line, box, path, polygon, circle
-- (PostgreSQL 15's geo_ops.c): input and output syntax, errors, operators,
-- functions, casts, arrays and table columns.

-- Input forms and normalised output.
SELECT '(1,2)'::point, ' 1.5 , -2 '::point, '(1e300,-inf)'::point, '(NaN, 0)'::point;
SELECT '[(1,2),(3,4)]'::lseg, '(1,2),(3,4)'::lseg, '1,2,3,4'::lseg;
SELECT '{1,2,3}'::line, '[(0,0),(1,1)]'::line, '(0,1),(2,1)'::line, '((5,0),(5,3))'::line;
SELECT '(0,0),(1,1)'::box, '((3,4),(1,2))'::box, '1,2,0,0'::box;
SELECT '[(1,2),(3,4),(5,6)]'::path, '((1,2),(3,4))'::path, '1,2,3,4'::path, '(1,2),(3,4)'::path;
SELECT '((0,0),(0,1),(1,0))'::polygon, '0,0,1,1,2,0'::polygon, '(1,2)'::polygon;
SELECT '<(1,2),3>'::circle, '((1,2),3)'::circle, '1,2,3'::circle, '(1,2),3'::circle;
SELECT point '(0.1,0.2)', box '(0.1,0.2),(0.3,0.4)', circle '<(0,0),0.1>';

-- Bad input.
SELECT 'asdf'::point;
SELECT '(10.0 10.0)'::point;
SELECT '(10.0,10.0) x'::point;
SELECT '(1e500,1)'::point;
SELECT '[1,2,3,4)'::box;
SELECT '(1,2,3,4]'::box;
SELECT '[(1,2),(3,4)'::lseg;
SELECT '{0,0,1}'::line;
SELECT '{1,2}'::line;
SELECT '(1,1),(1,1)'::line;
SELECT '[]'::path;
SELECT '(1,2,3,4'::path;
SELECT '(1,2),(3,4),(5'::polygon;
SELECT '<(1,2),-1>'::circle;
SELECT '<(1,2),3'::circle;

-- Point operators.
SELECT p, p + '(1,1)', p - '(1,1)', p * '(0,1)', p / '(0,2)'
  FROM (VALUES (point '(1,2)'), ('(-3,4)'), ('(0,0)')) v(p);
SELECT point '(0,0)' <-> point '(3,4)' AS dist,
       point '(1,2)' << point '(2,2)' AS left_of,
       point '(1,2)' >> point '(2,2)' AS right_of,
       point '(1,2)' <^ point '(1,3)' AS below,
       point '(1,2)' >^ point '(1,3)' AS above,
       point '(1,2)' <<| point '(1,3)' AS strictly_below,
       point '(1,2)' |>> point '(1,3)' AS strictly_above,
       point '(1,2)' ?- point '(5,2)' AS horizontal,
       point '(1,2)' ?| point '(1,7)' AS vertical,
       point '(1,2)' ~= point '(1.0000001,2)' AS same,
       point '(1,2)' <> point '(1,3)' AS ne;
SELECT slope('(0,0)', '(2,1)'), slope('(0,0)', '(0,1)'), slope('(0,0)', '(1,0)');
SELECT point(1, 2), point(1.5::numeric, 2), point(box '(2,2),(0,0)'),
       point(circle '<(3,4),1>'), point(lseg '[(0,0),(2,4)]'),
       point(polygon '(0,0),(2,0),(2,2),(0,2)');
SELECT ('(1,2)'::point)[0] AS x, ('(1,2)'::point)[1] AS y, ('(1,2)'::point)[2] AS none;
SELECT point '(1,2)' / point '(0,0)';
SELECT point '(1e300,1e300)' * point '(1e300,1e300)';

-- Lines and segments.
SELECT lseg '[(0,0),(2,2)]' ?# lseg '[(0,2),(2,0)]' AS intersects,
       lseg '[(0,0),(2,2)]' # lseg '[(0,2),(2,0)]' AS crossing,
       lseg '[(0,0),(2,2)]' ?|| lseg '[(1,0),(3,2)]' AS parallel,
       lseg '[(0,0),(2,2)]' ?-| lseg '[(0,2),(2,0)]' AS perpendicular,
       ?- lseg '[(0,1),(5,1)]' AS horizontal,
       ?| lseg '[(1,0),(1,5)]' AS vertical,
       @-@ lseg '[(0,0),(3,4)]' AS length,
       @@ lseg '[(0,0),(3,4)]' AS center;
SELECT lseg '[(0,0),(3,4)]' = lseg '[(0,0),(3,4)]' AS eq,
       lseg '[(0,0),(3,4)]' < lseg '[(0,0),(6,8)]' AS shorter,
       lseg '[(0,0),(1,1)]' <-> lseg '[(2,0),(3,0)]' AS dist,
       lseg '[(0,0),(1,1)]' ## lseg '[(2,0),(3,0)]' AS closest;
SELECT line '{1,-1,0}' ?# line '{1,1,-2}' AS intersects,
       line '{1,-1,0}' # line '{1,1,-2}' AS crossing,
       line '{1,-1,0}' ?|| line '{1,-1,5}' AS parallel,
       line '{1,-1,0}' ?-| line '{1,1,0}' AS perpendicular,
       line '{1,-1,0}' <-> line '{1,-1,5}' AS dist,
       line '{1,-1,0}' = line '{2,-2,0}' AS eq,
       ?- line '{0,1,3}' AS horizontal, ?| line '{1,0,3}' AS vertical;
SELECT point '(1,0)' <-> line '{1,-1,0}' AS dist_pl,
       point '(1,0)' ## line '{1,-1,0}' AS close_pl,
       point '(1,1)' <@ line '{1,-1,0}' AS on_pl,
       point '(3,0)' <-> lseg '[(0,0),(1,1)]' AS dist_ps,
       point '(3,0)' ## lseg '[(0,0),(1,1)]' AS close_ps,
       point '(0.5,0.5)' <@ lseg '[(0,0),(1,1)]' AS on_ps,
       lseg '[(0,0),(1,1)]' <@ line '{1,-1,0}' AS on_sl,
       lseg '[(0,0),(1,1)]' ?# line '{1,1,-1}' AS inter_sl,
       lseg '[(3,0),(4,5)]' <-> line '{1,-1,0}' AS dist_sl,
       line '{1,-1,0}' ## lseg '[(3,0),(4,5)]' AS close_ls;
SELECT line(point '(0,0)', point '(1,2)'), lseg(point '(0,0)', point '(1,2)'),
       lseg(box '(2,2),(0,0)'), length(lseg '[(0,0),(3,4)]'),
       isparallel(lseg '[(0,0),(1,1)]', lseg '[(1,0),(2,1)]'),
       isperp(line '{1,-1,0}', line '{1,1,0}'),
       isvertical(point '(1,0)', point '(1,5)'), ishorizontal(lseg '[(0,1),(2,1)]');
SELECT line(point '(1,1)', point '(1,1)');
SELECT lseg '[(0,0),(1,1)]' # point '(1,1)';

-- Boxes.
SELECT b, area(b), width(b), height(b), center(b), @@ b AS center_op, diagonal(b)
  FROM (VALUES (box '(2,2),(0,0)'), ('(1,5),(-1,-5)'), ('(0,0),(0,0)')) v(b);
SELECT box '(2,2),(0,0)' && box '(3,3),(1,1)' AS overlap,
       box '(2,2),(0,0)' @> box '(1,1),(0.5,0.5)' AS contains,
       box '(1,1),(0.5,0.5)' <@ box '(2,2),(0,0)' AS contained,
       box '(2,2),(0,0)' << box '(5,5),(3,3)' AS left_of,
       box '(2,2),(0,0)' >> box '(5,5),(3,3)' AS right_of,
       box '(2,2),(0,0)' &< box '(5,5),(3,3)' AS overleft,
       box '(2,2),(0,0)' &> box '(5,5),(3,3)' AS overright,
       box '(2,2),(0,0)' <<| box '(5,5),(3,3)' AS below,
       box '(2,2),(0,0)' |>> box '(5,5),(3,3)' AS above,
       box '(2,2),(0,0)' &<| box '(5,5),(3,3)' AS overbelow,
       box '(2,2),(0,0)' |&> box '(5,5),(3,3)' AS overabove,
       box '(2,2),(0,0)' <^ box '(5,5),(2,2)' AS below_eq,
       box '(2,2),(0,0)' >^ box '(5,5),(2,2)' AS above_eq,
       box '(2,2),(0,0)' ~= box '(0,0),(2,2)' AS same,
       box '(2,2),(0,0)' ?# box '(3,3),(1,1)' AS box_overlap;
SELECT box '(2,2),(0,0)' = box '(4,1),(2,0)' AS eq_area,
       box '(2,2),(0,0)' < box '(3,3),(0,0)' AS lt_area,
       box '(2,2),(0,0)' >= box '(1,1),(0,0)' AS ge_area,
       box '(2,2),(0,0)' # box '(3,3),(1,1)' AS intersection,
       box '(2,2),(0,0)' # box '(5,5),(4,4)' AS no_intersection,
       bound_box(box '(2,2),(0,0)', box '(5,5),(4,4)') AS bound,
       box '(2,2),(0,0)' <-> box '(5,5),(3,3)' AS dist;
SELECT box '(2,2),(0,0)' + point '(1,1)', box '(2,2),(0,0)' - point '(1,1)',
       box '(2,2),(0,0)' * point '(2,0)', box '(2,2),(0,0)' / point '(2,0)';
SELECT box '(2,2),(0,0)' @> point '(1,1)' AS contains_pt,
       point '(3,3)' <@ box '(2,2),(0,0)' AS pt_inside,
       point '(3,3)' <-> box '(2,2),(0,0)' AS dist_pb,
       point '(3,3)' ## box '(2,2),(0,0)' AS close_pb,
       lseg '[(3,3),(4,4)]' <-> box '(2,2),(0,0)' AS dist_sb,
       lseg '[(1,1),(4,4)]' ?# box '(2,2),(0,0)' AS inter_sb,
       lseg '[(1,1),(1.5,1.5)]' <@ box '(2,2),(0,0)' AS on_sb,
       line '{1,-1,0}' ?# box '(2,2),(0,0)' AS inter_lb;
SELECT box(point '(1,2)', point '(3,0)'), box(point '(1,1)'),
       box(circle '<(0,0),2>'), box(polygon '(0,0),(2,3),(4,1)');
SELECT (box '(2,3),(0,1)')[0] AS high, (box '(2,3),(0,1)')[1] AS low;

-- Paths.
SELECT p, npoints(p), # p AS npoints_op, isclosed(p), isopen(p), length(p),
       @-@ p AS length_op, area(p), pclose(p), popen(p)
  FROM (VALUES (path '[(0,0),(3,4),(3,0)]'), ('((0,0),(3,4),(3,0))'), ('[(1,1)]')) v(p);
SELECT path '[(0,0),(1,1)]' + path '[(2,2),(3,3)]' AS concat,
       path '((0,0),(1,1))' + path '[(2,2),(3,3)]' AS closed_concat,
       path '[(0,0),(1,1)]' + point '(1,1)' AS translated,
       path '[(0,0),(1,1)]' * point '(0,1)' AS rotated,
       path '[(0,0),(1,1)]' / point '(2,0)' AS scaled;
SELECT path '[(0,0),(2,2)]' ?# path '[(0,2),(2,0)]' AS intersects,
       path '[(0,0),(2,0)]' <-> path '[(0,1),(2,1)]' AS dist,
       point '(1,1)' <-> path '[(0,0),(2,0)]' AS dist_ppath,
       point '(1,0)' <@ path '[(0,0),(2,0)]' AS on_open,
       path '((0,0),(2,0),(2,2),(0,2))' @> point '(1,1)' AS closed_contains,
       path '[(0,0),(1,1)]' = path '[(5,5),(6,6)]' AS same_npoints,
       path '[(0,0),(1,1)]' < path '[(5,5),(6,6),(7,7)]' AS fewer_points;
SELECT path(polygon '(0,0),(1,1),(2,0)'), polygon(path '((0,0),(1,1),(2,0))');
SELECT polygon(path '[(0,0),(1,1),(2,0)]');

-- Polygons.
SELECT p, npoints(p), # p AS npoints_op, @@ p AS center, box(p), circle(p)
  FROM (VALUES (polygon '(0,0),(0,2),(2,2),(2,0)'), ('(0,0),(1,3),(3,1)')) v(p);
SELECT polygon '(0,0),(0,4),(4,4),(4,0)' @> polygon '(1,1),(1,2),(2,2),(2,1)' AS contains,
       polygon '(1,1),(1,2),(2,2),(2,1)' <@ polygon '(0,0),(0,4),(4,4),(4,0)' AS contained,
       polygon '(0,0),(0,4),(4,4),(4,0)' && polygon '(3,3),(3,5),(5,5),(5,3)' AS overlap,
       polygon '(0,0),(0,4),(4,4),(4,0)' ~= polygon '(4,0),(0,0),(0,4),(4,4)' AS same,
       polygon '(0,0),(0,1),(1,1)' << polygon '(2,0),(2,1),(3,1)' AS left_of,
       polygon '(0,0),(0,1),(1,1)' &< polygon '(2,0),(2,1),(3,1)' AS overleft,
       polygon '(0,0),(0,1),(1,1)' <<| polygon '(0,2),(0,3),(1,3)' AS below,
       polygon '(0,0),(0,1),(1,1)' <-> polygon '(3,0),(3,1),(4,1)' AS dist;
SELECT point '(1,1)' <@ polygon '(0,0),(0,2),(2,2),(2,0)' AS inside,
       polygon '(0,0),(0,2),(2,2),(2,0)' @> point '(3,3)' AS contains_pt,
       point '(3,1)' <-> polygon '(0,0),(0,2),(2,2),(2,0)' AS dist_ppoly,
       circle '<(5,1),1>' <-> polygon '(0,0),(0,2),(2,2),(2,0)' AS dist_cpoly,
       polygon '(0,0),(0,2),(2,2),(2,0)' <-> circle '<(5,1),1>' AS dist_polyc;
SELECT polygon(box '(1,1),(0,0)'), polygon(4, circle '<(0,0),1>'), polygon(circle '<(0,0),1>');
SELECT polygon(1, circle '<(0,0),1>');
SELECT polygon(4, circle '<(0,0),0>');

-- Circles.
SELECT c, area(c), diameter(c), radius(c), center(c), @@ c AS center_op, box(c)
  FROM (VALUES (circle '<(0,0),1>'), ('<(1,2),0.5>'), ('<(3,3),0>')) v(c);
SELECT circle '<(0,0),2>' @> circle '<(1,0),0.5>' AS contains,
       circle '<(1,0),0.5>' <@ circle '<(0,0),2>' AS contained,
       circle '<(0,0),1>' && circle '<(1.5,0),1>' AS overlap,
       circle '<(0,0),1>' << circle '<(3,0),1>' AS left_of,
       circle '<(0,0),1>' &> circle '<(3,0),1>' AS overright,
       circle '<(0,0),1>' <<| circle '<(0,3),1>' AS below,
       circle '<(0,0),1>' |>> circle '<(0,3),1>' AS above,
       circle '<(0,0),1>' ~= circle '<(0,0),1.0000001>' AS same,
       circle '<(0,0),1>' = circle '<(5,5),1>' AS eq_area,
       circle '<(0,0),1>' < circle '<(5,5),2>' AS lt_area,
       circle '<(0,0),1>' <-> circle '<(5,0),1>' AS dist;
SELECT circle '<(1,1),2>' + point '(1,1)', circle '<(1,1),2>' - point '(1,1)',
       circle '<(1,1),2>' * point '(0,2)', circle '<(1,1),2>' / point '(0,2)';
SELECT circle '<(0,0),2>' @> point '(1,1)' AS contains_pt,
       point '(3,0)' <@ circle '<(0,0),2>' AS pt_inside,
       point '(3,0)' <-> circle '<(0,0),2>' AS dist_pc,
       circle '<(0,0),2>' <-> point '(3,0)' AS dist_cpoint;
SELECT circle(point '(1,2)', 3), circle(box '(2,2),(0,0)'), circle(polygon '(0,0),(0,2),(2,2),(2,0)');

-- Casts.
SELECT box '(2,2),(0,0)'::polygon, box '(2,2),(0,0)'::circle, box '(2,2),(0,0)'::point,
       box '(2,2),(0,0)'::lseg, point '(1,1)'::box, path '((0,0),(1,1),(1,0))'::polygon,
       polygon '(0,0),(1,1),(1,0)'::path, circle '<(0,0),1>'::box;
SELECT '(1,2)'::point::text, ('(' || 1 || ',' || 2 || ')')::point;
SELECT point '(1,1)'::circle;

-- Arrays.
SELECT ARRAY[point '(1,2)', point '(3,4)'], '{"(1,2)","(3,4)"}'::point[];
SELECT ARRAY[box '(1,1),(0,0)', box '(2,2),(1,1)'], '{(1,1),(0,0);(3,3),(2,2)}'::box[];
SELECT (ARRAY[circle '<(0,0),1>', NULL])[1], array_length(ARRAY[lseg '[(0,0),(1,1)]'], 1);

-- Table columns, NULLs, literals typed by the column.
CREATE TABLE geo_t (id int, p point, b box, pa path, pg polygon, c circle, l line, s lseg);
INSERT INTO geo_t VALUES
  (1, '(1,1)', '(2,2),(0,0)', '[(0,0),(1,1)]', '(0,0),(1,1),(1,0)', '<(0,0),1>', '{1,-1,0}', '[(0,0),(1,1)]'),
  (2, '(-3,4)', '(5,5),(3,3)', '((0,0),(4,0),(4,4))', '(3,3),(3,5),(5,5)', '<(4,4),2>', '{0,1,-2}', '[(3,3),(5,5)]'),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
INSERT INTO geo_t (id, p) SELECT 4, '(10,10)';
SELECT * FROM geo_t ORDER BY id;
SELECT id, p <-> point '(0,0)' AS dist FROM geo_t ORDER BY p <-> point '(0,0)', id;
SELECT id FROM geo_t WHERE b && box '(1,1),(0.5,0.5)' OR c @> p ORDER BY id;
SELECT id, area(b), npoints(pa), area(c), p[0] FROM geo_t ORDER BY id;
UPDATE geo_t SET p = p + point '(1,1)', c = circle(p, 3) WHERE id = 1;
SELECT id, p, c FROM geo_t WHERE id = 1;
SELECT count(*), count(p) FROM geo_t;

-- Raw subscripts: assignment keeps NULLs and does not re-normalise.
UPDATE geo_t SET p[0] = -1, b[1] = '(7,8)' WHERE id = 1 RETURNING id, p, b;
UPDATE geo_t SET p[1] = NULL WHERE id = 1 RETURNING id, p;
UPDATE geo_t SET p[0] = 5 WHERE id = 3 RETURNING id, p;
SELECT id, b FROM geo_t WHERE id = 1;
UPDATE geo_t SET p[2] = 1 WHERE id = 1;
SELECT p[0:1] FROM geo_t;

-- No B-tree ordering for the geometric types.
CREATE INDEX geo_t_p ON geo_t (p);
CREATE INDEX geo_t_b ON geo_t (b);
SELECT p FROM geo_t ORDER BY p;
SELECT b FROM geo_t ORDER BY b;
SELECT point '(1,2)' = point '(1,2)';
SELECT DISTINCT id, b FROM geo_t;
SELECT p FROM geo_t GROUP BY p;
SELECT b FROM geo_t UNION SELECT box '(1,1),(0,0)';
SELECT id, c FROM geo_t EXCEPT ALL SELECT 1, circle '<(0,0),1>';
SELECT p FROM geo_t WHERE id = 1 UNION ALL SELECT point '(0,0)';
SELECT count(*) FROM geo_t GROUP BY 1 + 1;
SELECT b, count(*) FROM geo_t GROUP BY 1;
CREATE TYPE geo_pair AS (a int, p point);
SELECT ROW(1, '(1,2)')::geo_pair < ROW(1, '(1,3)')::geo_pair;
SELECT ROW(1, '(1,2)')::geo_pair = ROW(1, '(1,3)')::geo_pair;
SELECT v FROM (VALUES (ROW(1, '(1,2)')::geo_pair)) t(v) ORDER BY v;
SELECT (v).p FROM (VALUES (ROW(1, '(1,2)')::geo_pair)) t(v);
DROP TYPE geo_pair;

-- Ambiguous and missing operators and functions.
SELECT point '(1,1)' <@ '(0,0),(2,2)';
SELECT area('(0,0),(1,1)');
SELECT point '(1,1)' # point '(2,2)';
SELECT lseg '[(0,0),(1,1)]' <-> circle '<(0,0),1>';

DROP TABLE geo_t;
