//! The geometry of `geo_ops.c`, function by function under PostgreSQL's
//! names (`point_dt`, `lseg_closept_point`, `box_interpt_lseg`,
//! `point_inside`, ...), with the same order of operations so results
//! match to the last bit. A C `Point *result` out-parameter is an
//! `Option<&mut Point>` here; arithmetic that PostgreSQL checks returns
//! [`F`] (22003 / 22012 errors).

use nestor_common::DbError;

use super::{
    div, f8_eq, f8_gt, f8_lt, f8_max, f8_min, fp_eq, fp_ge, fp_gt, fp_le, fp_lt, fp_zero, hypot,
    mi, mul, pl, Circle, GeoBox, Line, Lseg, Path, Point, Polygon, F,
};

pub type B = Result<bool, DbError>;

fn set(r: &mut Option<&mut Point>, p: Point) {
    if let Some(r) = r.as_deref_mut() {
        *r = p;
    }
}

pub fn pt(x: f64, y: f64) -> Point {
    Point { x, y }
}

pub fn seg(a: Point, b: Point) -> Lseg {
    Lseg { p: [a, b] }
}

// ----- points

pub fn point_eq_point(a: &Point, b: &Point) -> bool {
    if a.x.is_nan() || a.y.is_nan() || b.x.is_nan() || b.y.is_nan() {
        return f8_eq(a.x, b.x) && f8_eq(a.y, b.y);
    }
    fp_eq(a.x, b.x) && fp_eq(a.y, b.y)
}

pub fn point_dt(a: &Point, b: &Point) -> F {
    hypot(mi(a.x, b.x)?, mi(a.y, b.y)?)
}

pub fn point_sl(a: &Point, b: &Point) -> F {
    if fp_eq(a.x, b.x) {
        return Ok(f64::INFINITY);
    }
    if fp_eq(a.y, b.y) {
        return Ok(0.0);
    }
    div(mi(a.y, b.y)?, mi(a.x, b.x)?)
}

pub fn point_invsl(a: &Point, b: &Point) -> F {
    if fp_eq(a.x, b.x) {
        return Ok(0.0);
    }
    if fp_eq(a.y, b.y) {
        return Ok(f64::INFINITY);
    }
    div(mi(a.x, b.x)?, mi(b.y, a.y)?)
}

pub fn point_add(a: &Point, b: &Point) -> Result<Point, DbError> {
    Ok(pt(pl(a.x, b.x)?, pl(a.y, b.y)?))
}

pub fn point_sub(a: &Point, b: &Point) -> Result<Point, DbError> {
    Ok(pt(mi(a.x, b.x)?, mi(a.y, b.y)?))
}

pub fn point_mul(a: &Point, b: &Point) -> Result<Point, DbError> {
    Ok(pt(
        mi(mul(a.x, b.x)?, mul(a.y, b.y)?)?,
        pl(mul(a.x, b.y)?, mul(a.y, b.x)?)?,
    ))
}

pub fn point_div(a: &Point, b: &Point) -> Result<Point, DbError> {
    let d = pl(mul(b.x, b.x)?, mul(b.y, b.y)?)?;
    Ok(pt(
        div(pl(mul(a.x, b.x)?, mul(a.y, b.y)?)?, d)?,
        div(mi(mul(a.y, b.x)?, mul(a.x, b.y)?)?, d)?,
    ))
}

// ----- lines

pub fn line_construct(p: &Point, m: f64) -> Result<Line, DbError> {
    Ok(if m.is_infinite() {
        Line {
            a: -1.0,
            b: 0.0,
            c: p.x,
        }
    } else if m == 0.0 {
        Line {
            a: 0.0,
            b: -1.0,
            c: p.y,
        }
    } else {
        let mut c = mi(p.y, mul(m, p.x)?)?;
        if c == 0.0 {
            c = 0.0;
        }
        Line { a: m, b: -1.0, c }
    })
}

pub fn line_sl(l: &Line) -> F {
    if fp_zero(l.a) {
        return Ok(0.0);
    }
    if fp_zero(l.b) {
        return Ok(f64::INFINITY);
    }
    div(l.a, -l.b)
}

pub fn line_invsl(l: &Line) -> F {
    if fp_zero(l.a) {
        return Ok(f64::INFINITY);
    }
    if fp_zero(l.b) {
        return Ok(0.0);
    }
    div(l.b, l.a)
}

pub fn line_interpt_line(mut r: Option<&mut Point>, l1: &Line, l2: &Line) -> B {
    let (mut x, mut y);
    if !fp_zero(l1.b) {
        if fp_eq(l2.a, mul(l1.a, div(l2.b, l1.b)?)?) {
            return Ok(false);
        }
        x = div(
            mi(mul(l1.b, l2.c)?, mul(l2.b, l1.c)?)?,
            mi(mul(l1.a, l2.b)?, mul(l2.a, l1.b)?)?,
        )?;
        y = div(-pl(mul(l1.a, x)?, l1.c)?, l1.b)?;
    } else if !fp_zero(l2.b) {
        if fp_eq(l1.a, mul(l2.a, div(l1.b, l2.b)?)?) {
            return Ok(false);
        }
        x = div(
            mi(mul(l2.b, l1.c)?, mul(l1.b, l2.c)?)?,
            mi(mul(l2.a, l1.b)?, mul(l1.a, l2.b)?)?,
        )?;
        y = div(-pl(mul(l2.a, x)?, l2.c)?, l2.b)?;
    } else {
        return Ok(false);
    }
    if x == 0.0 {
        x = 0.0;
    }
    if y == 0.0 {
        y = 0.0;
    }
    set(&mut r, pt(x, y));
    Ok(true)
}

pub fn line_eq(l1: &Line, l2: &Line) -> B {
    if [l1.a, l1.b, l1.c, l2.a, l2.b, l2.c]
        .iter()
        .any(|v| v.is_nan())
    {
        return Ok(f8_eq(l1.a, l2.a) && f8_eq(l1.b, l2.b) && f8_eq(l1.c, l2.c));
    }
    let ratio = if !fp_zero(l2.a) {
        div(l1.a, l2.a)?
    } else if !fp_zero(l2.b) {
        div(l1.b, l2.b)?
    } else if !fp_zero(l2.c) {
        div(l1.c, l2.c)?
    } else {
        1.0
    };
    Ok(fp_eq(l1.a, mul(ratio, l2.a)?)
        && fp_eq(l1.b, mul(ratio, l2.b)?)
        && fp_eq(l1.c, mul(ratio, l2.c)?))
}

pub fn line_perp(l1: &Line, l2: &Line) -> B {
    if fp_zero(l1.a) {
        return Ok(fp_zero(l2.b));
    }
    if fp_zero(l2.a) {
        return Ok(fp_zero(l1.b));
    }
    if fp_zero(l1.b) {
        return Ok(fp_zero(l2.a));
    }
    if fp_zero(l2.b) {
        return Ok(fp_zero(l1.a));
    }
    Ok(fp_eq(div(mul(l1.a, l2.a)?, mul(l1.b, l2.b)?)?, -1.0))
}

pub fn line_distance(l1: &Line, l2: &Line) -> F {
    if line_interpt_line(None, l1, l2)? {
        return Ok(0.0);
    }
    let ok = |v: f64| !fp_zero(v) && !v.is_nan();
    let ratio = if ok(l1.a) && ok(l2.a) {
        div(l1.a, l2.a)?
    } else if ok(l1.b) && ok(l2.b) {
        div(l1.b, l2.b)?
    } else {
        1.0
    };
    div(mi(l1.c, mul(ratio, l2.c)?)?.abs(), hypot(l1.a, l1.b)?)
}

pub fn line_contain_point(l: &Line, p: &Point) -> B {
    Ok(fp_zero(pl(pl(mul(l.a, p.x)?, mul(l.b, p.y)?)?, l.c)?))
}

pub fn line_closept_point(mut r: Option<&mut Point>, l: &Line, p: &Point) -> F {
    let tmp = line_construct(p, line_invsl(l)?)?;
    let mut closept = pt(0.0, 0.0);
    if !line_interpt_line(Some(&mut closept), &tmp, l)? {
        set(&mut r, *p);
        return Ok(f64::NAN);
    }
    set(&mut r, closept);
    point_dt(&closept, p)
}

// ----- line segments

pub fn lseg_sl(l: &Lseg) -> F {
    point_sl(&l.p[0], &l.p[1])
}

pub fn lseg_invsl(l: &Lseg) -> F {
    point_invsl(&l.p[0], &l.p[1])
}

pub fn lseg_contain_point(l: &Lseg, p: &Point) -> B {
    Ok(fp_eq(
        point_dt(p, &l.p[0])? + point_dt(p, &l.p[1])?,
        point_dt(&l.p[0], &l.p[1])?,
    ))
}

pub fn lseg_interpt_line(mut r: Option<&mut Point>, s: &Lseg, l: &Line) -> B {
    let tmp = line_construct(&s.p[0], lseg_sl(s)?)?;
    let mut interpt = pt(0.0, 0.0);
    if !line_interpt_line(Some(&mut interpt), &tmp, l)? {
        return Ok(false);
    }
    if !lseg_contain_point(s, &interpt)? {
        return Ok(false);
    }
    if point_eq_point(&s.p[0], &interpt) {
        set(&mut r, s.p[0]);
    } else if point_eq_point(&s.p[1], &interpt) {
        set(&mut r, s.p[1]);
    } else {
        set(&mut r, interpt);
    }
    Ok(true)
}

pub fn lseg_interpt_lseg(mut r: Option<&mut Point>, l1: &Lseg, l2: &Lseg) -> B {
    let tmp = line_construct(&l2.p[0], lseg_sl(l2)?)?;
    let mut interpt = pt(0.0, 0.0);
    if !lseg_interpt_line(Some(&mut interpt), l1, &tmp)? {
        return Ok(false);
    }
    if !lseg_contain_point(l2, &interpt)? {
        return Ok(false);
    }
    set(&mut r, interpt);
    Ok(true)
}

pub fn lseg_closept_line(mut r: Option<&mut Point>, s: &Lseg, l: &Line) -> F {
    if lseg_interpt_line(r.as_deref_mut(), s, l)? {
        return Ok(0.0);
    }
    let d1 = line_closept_point(None, l, &s.p[0])?;
    let d2 = line_closept_point(None, l, &s.p[1])?;
    if d1 < d2 {
        set(&mut r, s.p[0]);
        Ok(d1)
    } else {
        set(&mut r, s.p[1]);
        Ok(d2)
    }
}

pub fn lseg_closept_point(mut r: Option<&mut Point>, s: &Lseg, p: &Point) -> F {
    let tmp = line_construct(p, point_invsl(&s.p[0], &s.p[1])?)?;
    let mut closept = pt(0.0, 0.0);
    lseg_closept_line(Some(&mut closept), s, &tmp)?;
    set(&mut r, closept);
    point_dt(&closept, p)
}

pub fn lseg_closept_lseg(mut r: Option<&mut Point>, on: &Lseg, to: &Lseg) -> F {
    if lseg_interpt_lseg(r.as_deref_mut(), on, to)? {
        return Ok(0.0);
    }
    let mut dist = lseg_closept_point(r.as_deref_mut(), on, &to.p[0])?;
    let mut point = pt(0.0, 0.0);
    let d = lseg_closept_point(Some(&mut point), on, &to.p[1])?;
    if f8_lt(d, dist) {
        dist = d;
        set(&mut r, point);
    }
    let d = lseg_closept_point(None, to, &on.p[0])?;
    if f8_lt(d, dist) {
        dist = d;
        set(&mut r, on.p[0]);
    }
    let d = lseg_closept_point(None, to, &on.p[1])?;
    if f8_lt(d, dist) {
        dist = d;
        set(&mut r, on.p[1]);
    }
    Ok(dist)
}

pub fn lseg_center(s: &Lseg) -> Result<Point, DbError> {
    Ok(pt(
        div(pl(s.p[0].x, s.p[1].x)?, 2.0)?,
        div(pl(s.p[0].y, s.p[1].y)?, 2.0)?,
    ))
}

pub fn lseg_length(s: &Lseg) -> F {
    point_dt(&s.p[0], &s.p[1])
}

// ----- boxes

pub fn box_construct(a: &Point, b: &Point) -> GeoBox {
    let (hx, lx) = if f8_gt(a.x, b.x) {
        (a.x, b.x)
    } else {
        (b.x, a.x)
    };
    let (hy, ly) = if f8_gt(a.y, b.y) {
        (a.y, b.y)
    } else {
        (b.y, a.y)
    };
    GeoBox {
        high: pt(hx, hy),
        low: pt(lx, ly),
    }
}

pub fn box_ov(a: &GeoBox, b: &GeoBox) -> bool {
    fp_le(a.low.x, b.high.x)
        && fp_le(b.low.x, a.high.x)
        && fp_le(a.low.y, b.high.y)
        && fp_le(b.low.y, a.high.y)
}

pub fn box_contain_box(a: &GeoBox, b: &GeoBox) -> bool {
    fp_ge(a.high.x, b.high.x)
        && fp_le(a.low.x, b.low.x)
        && fp_ge(a.high.y, b.high.y)
        && fp_le(a.low.y, b.low.y)
}

pub fn box_wd(b: &GeoBox) -> F {
    mi(b.high.x, b.low.x)
}

pub fn box_ht(b: &GeoBox) -> F {
    mi(b.high.y, b.low.y)
}

pub fn box_ar(b: &GeoBox) -> F {
    mul(box_wd(b)?, box_ht(b)?)
}

pub fn box_cn(b: &GeoBox) -> Result<Point, DbError> {
    Ok(pt(
        div(pl(b.high.x, b.low.x)?, 2.0)?,
        div(pl(b.high.y, b.low.y)?, 2.0)?,
    ))
}

pub fn box_contain_point(b: &GeoBox, p: &Point) -> bool {
    b.high.x >= p.x && b.low.x <= p.x && b.high.y >= p.y && b.low.y <= p.y
}

pub fn box_contain_lseg(b: &GeoBox, s: &Lseg) -> bool {
    box_contain_point(b, &s.p[0]) && box_contain_point(b, &s.p[1])
}

pub fn box_same(a: &GeoBox, b: &GeoBox) -> bool {
    point_eq_point(&a.high, &b.high) && point_eq_point(&a.low, &b.low)
}

pub fn box_intersect(a: &GeoBox, b: &GeoBox) -> Option<GeoBox> {
    if !box_ov(a, b) {
        return None;
    }
    Some(GeoBox {
        high: pt(f8_min(a.high.x, b.high.x), f8_min(a.high.y, b.high.y)),
        low: pt(f8_max(a.low.x, b.low.x), f8_max(a.low.y, b.low.y)),
    })
}

pub fn boxes_bound_box(a: &GeoBox, b: &GeoBox) -> GeoBox {
    GeoBox {
        high: pt(f8_max(a.high.x, b.high.x), f8_max(a.high.y, b.high.y)),
        low: pt(f8_min(a.low.x, b.low.x), f8_min(a.low.y, b.low.y)),
    }
}

/// The box's four sides as PostgreSQL walks them in the closest-point
/// functions: low→(low.x,high.y), high→(low.x,high.y),
/// low→(high.x,low.y), high→(high.x,low.y).
fn box_sides(b: &GeoBox) -> [Lseg; 4] {
    let ul = pt(b.low.x, b.high.y);
    let lr = pt(b.high.x, b.low.y);
    [
        seg(b.low, ul),
        seg(b.high, ul),
        seg(b.low, lr),
        seg(b.high, lr),
    ]
}

pub fn box_closept_point(mut r: Option<&mut Point>, b: &GeoBox, p: &Point) -> F {
    if box_contain_point(b, p) {
        set(&mut r, *p);
        return Ok(0.0);
    }
    let sides = box_sides(b);
    let mut dist = lseg_closept_point(r.as_deref_mut(), &sides[0], p)?;
    for s in &sides[1..] {
        let mut closept = pt(0.0, 0.0);
        let d = lseg_closept_point(Some(&mut closept), s, p)?;
        if f8_lt(d, dist) {
            dist = d;
            set(&mut r, closept);
        }
    }
    Ok(dist)
}

pub fn box_interpt_lseg(r: Option<&mut Point>, b: &GeoBox, s: &Lseg) -> B {
    let lbox = GeoBox {
        low: pt(f8_min(s.p[0].x, s.p[1].x), f8_min(s.p[0].y, s.p[1].y)),
        high: pt(f8_max(s.p[0].x, s.p[1].x), f8_max(s.p[0].y, s.p[1].y)),
    };
    if !box_ov(&lbox, b) {
        return Ok(false);
    }
    if let Some(r) = r {
        let c = box_cn(b)?;
        lseg_closept_point(Some(r), s, &c)?;
    }
    if box_contain_point(b, &s.p[0]) || box_contain_point(b, &s.p[1]) {
        return Ok(true);
    }
    for side in box_sides(b) {
        if lseg_interpt_lseg(None, &side, s)? {
            return Ok(true);
        }
    }
    Ok(false)
}

pub fn box_closept_lseg(mut r: Option<&mut Point>, b: &GeoBox, s: &Lseg) -> F {
    if box_interpt_lseg(r.as_deref_mut(), b, s)? {
        return Ok(0.0);
    }
    let sides = box_sides(b);
    let mut dist = lseg_closept_lseg(r.as_deref_mut(), &sides[0], s)?;
    for side in &sides[1..] {
        let mut closept = pt(0.0, 0.0);
        let d = lseg_closept_lseg(Some(&mut closept), side, s)?;
        if f8_lt(d, dist) {
            dist = d;
            set(&mut r, closept);
        }
    }
    Ok(dist)
}

pub fn inter_lb(l: &Line, b: &GeoBox) -> B {
    let p1 = b.low;
    let p2 = pt(b.low.x, b.high.y);
    if lseg_interpt_line(None, &seg(p1, p2), l)? {
        return Ok(true);
    }
    let p1 = b.high;
    if lseg_interpt_line(None, &seg(p1, p2), l)? {
        return Ok(true);
    }
    let p2 = pt(b.high.x, b.low.y);
    if lseg_interpt_line(None, &seg(p1, p2), l)? {
        return Ok(true);
    }
    let p1 = b.low;
    lseg_interpt_line(None, &seg(p1, p2), l)
}

pub fn box_poly(b: &GeoBox) -> Polygon {
    Polygon {
        p: vec![b.low, pt(b.low.x, b.high.y), b.high, pt(b.high.x, b.low.y)],
        bbox: box_construct(&b.high, &b.low),
    }
}

pub fn box_circle(b: &GeoBox) -> Result<Circle, DbError> {
    let center = pt(
        div(pl(b.high.x, b.low.x)?, 2.0)?,
        div(pl(b.high.y, b.low.y)?, 2.0)?,
    );
    let radius = point_dt(&center, &b.high)?;
    Ok(Circle { center, radius })
}

// ----- paths

/// The segments of a path: consecutive points, and last→first when
/// closed (the C loops' `iprev`).
pub fn path_segments(p: &Path) -> Vec<Lseg> {
    let n = p.p.len();
    (0..n)
        .filter_map(|i| {
            if i > 0 {
                Some(seg(p.p[i - 1], p.p[i]))
            } else if p.closed {
                Some(seg(p.p[n - 1], p.p[0]))
            } else {
                None
            }
        })
        .collect()
}

fn points_bbox(ps: &[Point]) -> GeoBox {
    let mut b = GeoBox {
        high: ps[0],
        low: ps[0],
    };
    for p in &ps[1..] {
        b.high.x = f8_max(p.x, b.high.x);
        b.high.y = f8_max(p.y, b.high.y);
        b.low.x = f8_min(p.x, b.low.x);
        b.low.y = f8_min(p.y, b.low.y);
    }
    b
}

pub fn path_inter(a: &Path, b: &Path) -> B {
    if !box_ov(&points_bbox(&a.p), &points_bbox(&b.p)) {
        return Ok(false);
    }
    for s1 in path_segments(a) {
        for s2 in path_segments(b) {
            if lseg_interpt_lseg(None, &s1, &s2)? {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// The minimum of `f` over segment pairs (None: no pair).
fn min_over(pairs: impl Iterator<Item = F>) -> Result<Option<f64>, DbError> {
    let mut min: Option<f64> = None;
    for d in pairs {
        let d = d?;
        if min.is_none_or(|m| f8_lt(d, m)) {
            min = Some(d);
        }
    }
    Ok(min)
}

pub fn path_distance(a: &Path, b: &Path) -> Result<Option<f64>, DbError> {
    let sb = path_segments(b);
    let pairs: Vec<(Lseg, Lseg)> = path_segments(a)
        .into_iter()
        .flat_map(|s1| sb.iter().map(move |s2| (s1, *s2)))
        .collect();
    min_over(pairs.iter().map(|(s1, s2)| lseg_closept_lseg(None, s1, s2)))
}

pub fn path_length(p: &Path) -> F {
    let mut r = 0.0;
    for s in path_segments(p) {
        r = pl(r, lseg_length(&s)?)?;
    }
    Ok(r)
}

pub fn path_area(p: &Path) -> Result<Option<f64>, DbError> {
    if !p.closed {
        return Ok(None);
    }
    let n = p.p.len();
    let mut area = 0.0;
    for i in 0..n {
        let j = (i + 1) % n;
        area = pl(area, mul(p.p[i].x, p.p[j].y)?)?;
        area = mi(area, mul(p.p[i].y, p.p[j].x)?)?;
    }
    Ok(Some(div(area.abs(), 2.0)?))
}

pub fn dist_ppath(p: &Point, path: &Path) -> F {
    let d = min_over(
        path_segments(path)
            .iter()
            .map(|s| lseg_closept_point(None, s, p)),
    )?;
    Ok(d.unwrap_or(0.0))
}

pub fn on_ppath(p: &Point, path: &Path) -> B {
    if !path.closed {
        let n = path.p.len() - 1;
        let mut a = point_dt(p, &path.p[0])?;
        for i in 0..n {
            let b = point_dt(p, &path.p[i + 1])?;
            if fp_eq(pl(a, b)?, point_dt(&path.p[i], &path.p[i + 1])?) {
                return Ok(true);
            }
            a = b;
        }
        return Ok(false);
    }
    Ok(point_inside(p, &path.p)? != 0)
}

pub fn path_map(
    path: &Path,
    p: &Point,
    f: fn(&Point, &Point) -> Result<Point, DbError>,
) -> Result<Path, DbError> {
    Ok(Path {
        closed: path.closed,
        p: path.p.iter().map(|q| f(q, p)).collect::<Result<_, _>>()?,
    })
}

// ----- polygons

pub fn make_bound_box(ps: &[Point]) -> GeoBox {
    let Some(first) = ps.first() else {
        return GeoBox {
            high: pt(0.0, 0.0),
            low: pt(0.0, 0.0),
        };
    };
    let (mut x1, mut x2, mut y1, mut y2) = (first.x, first.x, first.y, first.y);
    for p in &ps[1..] {
        if f8_lt(p.x, x1) {
            x1 = p.x;
        }
        if f8_gt(p.x, x2) {
            x2 = p.x;
        }
        if f8_lt(p.y, y1) {
            y1 = p.y;
        }
        if f8_gt(p.y, y2) {
            y2 = p.y;
        }
    }
    GeoBox {
        high: pt(x2, y2),
        low: pt(x1, y1),
    }
}

const POINT_ON_POLYGON: i32 = i32::MAX;

/// 0 outside, 1 inside, 2 on the border.
pub fn point_inside(p: &Point, plist: &[Point]) -> Result<i32, DbError> {
    let x0 = mi(plist[0].x, p.x)?;
    let y0 = mi(plist[0].y, p.y)?;
    let (mut prev_x, mut prev_y) = (x0, y0);
    let mut total = 0;
    for q in &plist[1..] {
        let x = mi(q.x, p.x)?;
        let y = mi(q.y, p.y)?;
        let cross = lseg_crossing(x, y, prev_x, prev_y)?;
        if cross == POINT_ON_POLYGON {
            return Ok(2);
        }
        total += cross;
        prev_x = x;
        prev_y = y;
    }
    let cross = lseg_crossing(x0, y0, prev_x, prev_y)?;
    if cross == POINT_ON_POLYGON {
        return Ok(2);
    }
    total += cross;
    Ok(if total != 0 { 1 } else { 0 })
}

fn lseg_crossing(x: f64, y: f64, prev_x: f64, prev_y: f64) -> Result<i32, DbError> {
    if fp_zero(y) {
        if fp_zero(x) {
            return Ok(POINT_ON_POLYGON);
        } else if fp_gt(x, 0.0) {
            if fp_zero(prev_y) {
                return Ok(if fp_gt(prev_x, 0.0) {
                    0
                } else {
                    POINT_ON_POLYGON
                });
            }
            return Ok(if fp_lt(prev_y, 0.0) { 1 } else { -1 });
        } else {
            if fp_zero(prev_y) {
                return Ok(if fp_lt(prev_x, 0.0) {
                    0
                } else {
                    POINT_ON_POLYGON
                });
            }
            return Ok(0);
        }
    }
    let y_sign = if fp_gt(y, 0.0) { 1 } else { -1 };
    if fp_zero(prev_y) {
        return Ok(if fp_lt(prev_x, 0.0) { 0 } else { y_sign });
    }
    if (y_sign < 0 && fp_lt(prev_y, 0.0)) || (y_sign > 0 && fp_gt(prev_y, 0.0)) {
        return Ok(0);
    }
    if fp_ge(x, 0.0) && fp_gt(prev_x, 0.0) {
        return Ok(2 * y_sign);
    }
    if fp_lt(x, 0.0) && fp_le(prev_x, 0.0) {
        return Ok(0);
    }
    let z = mi(mul(mi(x, prev_x)?, y)?, mul(mi(y, prev_y)?, x)?)?;
    if fp_zero(z) {
        return Ok(POINT_ON_POLYGON);
    }
    if (y_sign < 0 && fp_lt(z, 0.0)) || (y_sign > 0 && fp_gt(z, 0.0)) {
        return Ok(0);
    }
    Ok(2 * y_sign)
}

pub fn plist_same(p1: &[Point], p2: &[Point]) -> bool {
    let n = p1.len();
    for i in 0..n {
        if !point_eq_point(&p2[i], &p1[0]) {
            continue;
        }
        // forward
        let mut ii = 1;
        let mut j = i + 1;
        while ii < n {
            if j >= n {
                j = 0;
            }
            if !point_eq_point(&p2[j], &p1[ii]) {
                break;
            }
            ii += 1;
            j += 1;
        }
        if ii == n {
            return true;
        }
        // backward
        let mut ii = 1;
        let mut j = i as i64 - 1;
        while ii < n {
            if j < 0 {
                j = n as i64 - 1;
            }
            if !point_eq_point(&p2[j as usize], &p1[ii]) {
                break;
            }
            ii += 1;
            j -= 1;
        }
        if ii == n {
            return true;
        }
    }
    false
}

pub fn poly_same(a: &Polygon, b: &Polygon) -> bool {
    a.p.len() == b.p.len() && plist_same(&a.p, &b.p)
}

pub fn poly_overlap(a: &Polygon, b: &Polygon) -> B {
    if !box_ov(&a.bbox, &b.bbox) {
        return Ok(false);
    }
    let mut sa0 = a.p[a.p.len() - 1];
    for pa in &a.p {
        let mut sb0 = b.p[b.p.len() - 1];
        for pb in &b.p {
            if lseg_interpt_lseg(None, &seg(sa0, *pa), &seg(sb0, *pb))? {
                return Ok(true);
            }
            sb0 = *pb;
        }
        sa0 = *pa;
    }
    Ok(point_inside(&a.p[0], &b.p)? != 0 || point_inside(&b.p[0], &a.p)? != 0)
}

fn touched_lseg_inside_poly(
    a: &Point,
    b: &Point,
    s: &Lseg,
    poly: &Polygon,
    start: usize,
    depth: usize,
) -> B {
    let t = seg(*a, *b);
    if point_eq_point(a, &s.p[0]) {
        if lseg_contain_point(&t, &s.p[1])? {
            return lseg_inside_poly(b, &s.p[1], poly, start, depth + 1);
        }
    } else if point_eq_point(a, &s.p[1]) {
        if lseg_contain_point(&t, &s.p[0])? {
            return lseg_inside_poly(b, &s.p[0], poly, start, depth + 1);
        }
    } else if lseg_contain_point(&t, &s.p[0])? {
        return lseg_inside_poly(b, &s.p[0], poly, start, depth + 1);
    } else if lseg_contain_point(&t, &s.p[1])? {
        return lseg_inside_poly(b, &s.p[1], poly, start, depth + 1);
    }
    Ok(true)
}

/// Deepest recursion of [`lseg_inside_poly`] (PostgreSQL checks the stack
/// depth there).
const LSEG_INSIDE_DEPTH_MAX: usize = 10_000;

fn lseg_inside_poly(a: &Point, b: &Point, poly: &Polygon, start: usize, depth: usize) -> B {
    if depth > LSEG_INSIDE_DEPTH_MAX {
        return Err(nestor_common::DbError::new(
            nestor_common::SqlState::StatementTooComplex,
            "stack depth limit exceeded",
        ));
    }
    let t = seg(*a, *b);
    let n = poly.p.len();
    let mut s = seg(
        poly.p[if start == 0 { n - 1 } else { start - 1 }],
        pt(0.0, 0.0),
    );
    let mut res = true;
    let mut intersection = false;
    let mut i = start;
    while i < n && res {
        s.p[1] = poly.p[i];
        let mut interpt = pt(0.0, 0.0);
        if lseg_contain_point(&s, &t.p[0])? {
            if lseg_contain_point(&s, &t.p[1])? {
                return Ok(true);
            }
            res = touched_lseg_inside_poly(&t.p[0], &t.p[1], &s, poly, i + 1, depth)?;
        } else if lseg_contain_point(&s, &t.p[1])? {
            res = touched_lseg_inside_poly(&t.p[1], &t.p[0], &s, poly, i + 1, depth)?;
        } else if lseg_interpt_lseg(Some(&mut interpt), &t, &s)? {
            intersection = true;
            res = lseg_inside_poly(&t.p[0], &interpt, poly, i + 1, depth + 1)?;
            if res {
                res = lseg_inside_poly(&t.p[1], &interpt, poly, i + 1, depth + 1)?;
            }
        }
        s.p[0] = s.p[1];
        i += 1;
    }
    if res && !intersection {
        let p = pt(
            div(pl(t.p[0].x, t.p[1].x)?, 2.0)?,
            div(pl(t.p[0].y, t.p[1].y)?, 2.0)?,
        );
        res = point_inside(&p, &poly.p)? != 0;
    }
    Ok(res)
}

pub fn poly_contain_poly(outer: &Polygon, inner: &Polygon) -> B {
    if !box_contain_box(&outer.bbox, &inner.bbox) {
        return Ok(false);
    }
    let mut s0 = inner.p[inner.p.len() - 1];
    for p in &inner.p {
        if !lseg_inside_poly(&s0, p, outer, 0, 0)? {
            return Ok(false);
        }
        s0 = *p;
    }
    Ok(true)
}

pub fn poly_distance(a: &Polygon, b: &Polygon) -> Result<Option<f64>, DbError> {
    if poly_overlap(a, b)? {
        return Ok(Some(0.0));
    }
    let closed = |p: &Polygon| Path {
        closed: true,
        p: p.p.clone(),
    };
    path_distance(&closed(a), &closed(b))
}

pub fn dist_ppoly(p: &Point, poly: &Polygon) -> F {
    if point_inside(p, &poly.p)? != 0 {
        return Ok(0.0);
    }
    let n = poly.p.len();
    let mut result = lseg_closept_point(None, &seg(poly.p[0], poly.p[n - 1]), p)?;
    for i in 0..n - 1 {
        let d = lseg_closept_point(None, &seg(poly.p[i], poly.p[i + 1]), p)?;
        if f8_lt(d, result) {
            result = d;
        }
    }
    Ok(result)
}

pub fn dist_cpoly(c: &Circle, poly: &Polygon) -> F {
    let r = mi(dist_ppoly(&c.center, poly)?, c.radius)?;
    Ok(if r < 0.0 { 0.0 } else { r })
}

pub fn poly_to_circle(poly: &Polygon) -> Result<Circle, DbError> {
    let n = poly.p.len() as f64;
    let mut center = pt(0.0, 0.0);
    for p in &poly.p {
        center = point_add(&center, p)?;
    }
    center.x = div(center.x, n)?;
    center.y = div(center.y, n)?;
    let mut radius = 0.0;
    for p in &poly.p {
        radius = pl(radius, point_dt(p, &center)?)?;
    }
    Ok(Circle {
        center,
        radius: div(radius, n)?,
    })
}

// ----- circles

pub fn circle_ar(c: &Circle) -> F {
    mul(mul(c.radius, c.radius)?, std::f64::consts::PI)
}

pub fn circle_same(a: &Circle, b: &Circle) -> bool {
    ((a.radius.is_nan() && b.radius.is_nan()) || fp_eq(a.radius, b.radius))
        && point_eq_point(&a.center, &b.center)
}

pub fn circle_distance(a: &Circle, b: &Circle) -> F {
    let r = mi(point_dt(&a.center, &b.center)?, pl(a.radius, b.radius)?)?;
    Ok(if r < 0.0 { 0.0 } else { r })
}

pub fn dist_pc(p: &Point, c: &Circle) -> F {
    let r = mi(point_dt(p, &c.center)?, c.radius)?;
    Ok(if r < 0.0 { 0.0 } else { r })
}

pub fn circle_contain_pt(c: &Circle, p: &Point) -> B {
    Ok(point_dt(&c.center, p)? <= c.radius)
}

pub fn circle_box(c: &Circle) -> Result<GeoBox, DbError> {
    let delta = div(c.radius, 2.0f64.sqrt())?;
    Ok(GeoBox {
        high: pt(pl(c.center.x, delta)?, pl(c.center.y, delta)?),
        low: pt(mi(c.center.x, delta)?, mi(c.center.y, delta)?),
    })
}

pub fn circle_poly(npts: i32, c: &Circle) -> Result<Polygon, DbError> {
    use nestor_common::SqlState;
    if fp_zero(c.radius) {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "cannot convert circle with radius zero to polygon",
        ));
    }
    if npts < 2 {
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            "must request at least 2 points",
        ));
    }
    if npts as i64 > crate::geometry::catalog::POLYGON_POINTS_MAX {
        return Err(DbError::new(
            SqlState::ProgramLimitExceeded,
            "too many points requested",
        ));
    }
    let step = div(2.0 * std::f64::consts::PI, npts as f64)?;
    let mut p = Vec::with_capacity(npts as usize);
    for i in 0..npts {
        let angle = mul(step, i as f64)?;
        p.push(pt(
            mi(c.center.x, mul(c.radius, angle.cos())?)?,
            pl(c.center.y, mul(c.radius, angle.sin())?)?,
        ));
    }
    Ok(Polygon::new(p))
}
