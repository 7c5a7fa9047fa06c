//! The SQL surface of the geometric types: pg_proc's functions for them
//! (by their SQL names: `area`, `point`, `box_contain`, `dist_pb`, ...),
//! pg_operator's operators (each the function PostgreSQL implements it
//! with) and pg_cast's casts.
//!
//! Resolution is PostgreSQL's, reduced to what these signatures need: an
//! argument matches a parameter of its own type; an unknown literal
//! matches any parameter (for an operator, first the other operand's
//! type, PostgreSQL's "assume the same type" rule); an integer or numeric
//! matches `float8` (and an integer `int4`) through the implicit casts.
//! Among several matches the one with the most exact matches wins; a tie
//! is PostgreSQL's 42725 "is not unique". Every function is strict.

use std::sync::Arc;

use nestor_common::{DbError, SqlState};

use super::algo::{self, pt, seg};
use super::{
    fp_eq, fp_ge, fp_gt, fp_le, fp_lt, fp_ne, fp_zero, mi, mul, pl, Circle, GeoBox, GeoKind,
    Geometry, Line, Lseg, Path, Point, Polygon,
};
use crate::context::EvalCtx;
use crate::datatype::DataType;
use crate::functions::{Imp, Resolved, ScalarFn, Volatility};
use crate::value::Value;

/// Most points a constructed polygon or path may have (PostgreSQL's
/// allocation limit, `too many points requested`).
pub const POLYGON_POINTS_MAX: i64 = (i32::MAX as i64 - 40) / 16;

const PT: DataType = DataType::Geo(GeoKind::Point);
const LS: DataType = DataType::Geo(GeoKind::Lseg);
const LN: DataType = DataType::Geo(GeoKind::Line);
const BX: DataType = DataType::Geo(GeoKind::Box);
const PA: DataType = DataType::Geo(GeoKind::Path);
const PG: DataType = DataType::Geo(GeoKind::Polygon);
const CI: DataType = DataType::Geo(GeoKind::Circle);
const F8: DataType = DataType::Float8;
const BO: DataType = DataType::Bool;
const I4: DataType = DataType::Int4;

/// One function: SQL name, parameter types, result type, implementation.
pub struct Def {
    pub name: &'static str,
    pub args: &'static [DataType],
    pub ret: DataType,
    imp: Imp,
}

fn internal(what: &str) -> DbError {
    DbError::new(
        SqlState::InternalError,
        format!("geometric function got a value that is not a {what}"),
    )
}

fn geo(v: &Value) -> Option<&Geometry> {
    match v {
        Value::Geo(g) => Some(g),
        _ => None,
    }
}

fn a_pt(v: &Value) -> Result<Point, DbError> {
    match geo(v) {
        Some(Geometry::Point(p)) => Ok(*p),
        _ => Err(internal("point")),
    }
}
fn a_ls(v: &Value) -> Result<Lseg, DbError> {
    match geo(v) {
        Some(Geometry::Lseg(p)) => Ok(*p),
        _ => Err(internal("lseg")),
    }
}
fn a_ln(v: &Value) -> Result<Line, DbError> {
    match geo(v) {
        Some(Geometry::Line(p)) => Ok(*p),
        _ => Err(internal("line")),
    }
}
fn a_bx(v: &Value) -> Result<GeoBox, DbError> {
    match geo(v) {
        Some(Geometry::Box(p)) => Ok(*p),
        _ => Err(internal("box")),
    }
}
fn a_pa(v: &Value) -> Result<&Path, DbError> {
    match geo(v) {
        Some(Geometry::Path(p)) => Ok(p),
        _ => Err(internal("path")),
    }
}
fn a_pg(v: &Value) -> Result<&Polygon, DbError> {
    match geo(v) {
        Some(Geometry::Polygon(p)) => Ok(p),
        _ => Err(internal("polygon")),
    }
}
fn a_ci(v: &Value) -> Result<Circle, DbError> {
    match geo(v) {
        Some(Geometry::Circle(p)) => Ok(*p),
        _ => Err(internal("circle")),
    }
}
fn a_f8(v: &Value) -> Result<f64, DbError> {
    v.as_f64().ok_or_else(|| internal("double precision"))
}

fn b(v: bool) -> Result<Value, DbError> {
    Ok(Value::Bool(v))
}
fn f(v: f64) -> Result<Value, DbError> {
    Ok(Value::Float8(v))
}
fn g(v: Geometry) -> Result<Value, DbError> {
    Ok(Value::Geo(Arc::new(v)))
}
fn gp(p: Point) -> Result<Value, DbError> {
    g(Geometry::Point(p))
}
fn gb(p: GeoBox) -> Result<Value, DbError> {
    g(Geometry::Box(p))
}
fn gc(p: Circle) -> Result<Value, DbError> {
    g(Geometry::Circle(p))
}
fn opt_f(v: Option<f64>) -> Result<Value, DbError> {
    Ok(v.map_or(Value::Null, Value::Float8))
}
/// A closest point, NULL when the distance is NaN (close_pl and friends).
fn closept(d: f64, p: Point) -> Result<Value, DbError> {
    if d.is_nan() {
        Ok(Value::Null)
    } else {
        gp(p)
    }
}

fn pt2(v: &[Value]) -> Result<(Point, Point), DbError> {
    Ok((a_pt(&v[0])?, a_pt(&v[1])?))
}
fn ls2(v: &[Value]) -> Result<(Lseg, Lseg), DbError> {
    Ok((a_ls(&v[0])?, a_ls(&v[1])?))
}
fn ln2(v: &[Value]) -> Result<(Line, Line), DbError> {
    Ok((a_ln(&v[0])?, a_ln(&v[1])?))
}
fn bx2(v: &[Value]) -> Result<(GeoBox, GeoBox), DbError> {
    Ok((a_bx(&v[0])?, a_bx(&v[1])?))
}
fn pg2(v: &[Value]) -> Result<(&Polygon, &Polygon), DbError> {
    Ok((a_pg(&v[0])?, a_pg(&v[1])?))
}
fn ci2(v: &[Value]) -> Result<(Circle, Circle), DbError> {
    Ok((a_ci(&v[0])?, a_ci(&v[1])?))
}
fn npts(v: &Value) -> Result<usize, DbError> {
    Ok(match geo(v) {
        Some(Geometry::Path(p)) => p.p.len(),
        Some(Geometry::Polygon(p)) => p.p.len(),
        _ => return Err(internal("path")),
    })
}

fn lseg_len_cmp(v: &[Value], cmp: fn(f64, f64) -> bool) -> Result<Value, DbError> {
    let (a, c) = ls2(v)?;
    b(cmp(algo::lseg_length(&a)?, algo::lseg_length(&c)?))
}
fn box_area_cmp(v: &[Value], cmp: fn(f64, f64) -> bool) -> Result<Value, DbError> {
    let (a, c) = bx2(v)?;
    b(cmp(algo::box_ar(&a)?, algo::box_ar(&c)?))
}
fn circle_area_cmp(v: &[Value], cmp: fn(f64, f64) -> bool) -> Result<Value, DbError> {
    let (a, c) = ci2(v)?;
    b(cmp(algo::circle_ar(&a)?, algo::circle_ar(&c)?))
}
fn box_map(
    v: &[Value],
    f: fn(&Point, &Point) -> Result<Point, DbError>,
    reorder: bool,
) -> Result<Value, DbError> {
    let (bx, p) = (a_bx(&v[0])?, a_pt(&v[1])?);
    let (h, l) = (f(&bx.high, &p)?, f(&bx.low, &p)?);
    gb(if reorder {
        algo::box_construct(&h, &l)
    } else {
        GeoBox { high: h, low: l }
    })
}
fn path_map(
    v: &[Value],
    f: fn(&Point, &Point) -> Result<Point, DbError>,
) -> Result<Value, DbError> {
    g(Geometry::Path(algo::path_map(
        a_pa(&v[0])?,
        &a_pt(&v[1])?,
        f,
    )?))
}
fn circle_map(
    v: &[Value],
    f: fn(&Point, &Point) -> Result<Point, DbError>,
    radius: fn(f64, f64) -> super::F,
) -> Result<Value, DbError> {
    let (c, p) = (a_ci(&v[0])?, a_pt(&v[1])?);
    gc(Circle {
        center: f(&c.center, &p)?,
        radius: radius(c.radius, super::hypot(p.x, p.y)?)?,
    })
}
fn keep_radius(r: f64, _: f64) -> super::F {
    Ok(r)
}
fn circle_polygon(n: i32, c: &Circle) -> Result<Value, DbError> {
    g(Geometry::Polygon(algo::circle_poly(n, c)?))
}

/// Every function, by SQL name (pg_proc's rows for these types).
pub static DEFS: &[Def] = &[
    // ----- point
    strict_def!("point", [F8, F8], PT, |v| gp(pt(
        a_f8(&v[0])?,
        a_f8(&v[1])?
    ))),
    strict_def!("point_above", [PT, PT], BO, |v| {
        let (p, q) = pt2(v)?;
        b(fp_gt(p.y, q.y))
    }),
    strict_def!("point_below", [PT, PT], BO, |v| {
        let (p, q) = pt2(v)?;
        b(fp_lt(p.y, q.y))
    }),
    strict_def!("point_left", [PT, PT], BO, |v| {
        let (p, q) = pt2(v)?;
        b(fp_lt(p.x, q.x))
    }),
    strict_def!("point_right", [PT, PT], BO, |v| {
        let (p, q) = pt2(v)?;
        b(fp_gt(p.x, q.x))
    }),
    strict_def!("point_vert", [PT, PT], BO, |v| {
        let (p, q) = pt2(v)?;
        b(fp_eq(p.x, q.x))
    }),
    strict_def!("isvertical", [PT, PT], BO, |v| {
        let (p, q) = pt2(v)?;
        b(fp_eq(p.x, q.x))
    }),
    strict_def!("point_horiz", [PT, PT], BO, |v| {
        let (p, q) = pt2(v)?;
        b(fp_eq(p.y, q.y))
    }),
    strict_def!("ishorizontal", [PT, PT], BO, |v| {
        let (p, q) = pt2(v)?;
        b(fp_eq(p.y, q.y))
    }),
    strict_def!("point_eq", [PT, PT], BO, |v| {
        let (p, q) = pt2(v)?;
        b(algo::point_eq_point(&p, &q))
    }),
    strict_def!("point_ne", [PT, PT], BO, |v| {
        let (p, q) = pt2(v)?;
        b(!algo::point_eq_point(&p, &q))
    }),
    strict_def!("point_distance", [PT, PT], F8, |v| {
        let (p, q) = pt2(v)?;
        f(algo::point_dt(&p, &q)?)
    }),
    strict_def!("slope", [PT, PT], F8, |v| {
        let (p, q) = pt2(v)?;
        f(algo::point_sl(&p, &q)?)
    }),
    strict_def!("point_add", [PT, PT], PT, |v| {
        let (p, q) = pt2(v)?;
        gp(algo::point_add(&p, &q)?)
    }),
    strict_def!("point_sub", [PT, PT], PT, |v| {
        let (p, q) = pt2(v)?;
        gp(algo::point_sub(&p, &q)?)
    }),
    strict_def!("point_mul", [PT, PT], PT, |v| {
        let (p, q) = pt2(v)?;
        gp(algo::point_mul(&p, &q)?)
    }),
    strict_def!("point_div", [PT, PT], PT, |v| {
        let (p, q) = pt2(v)?;
        gp(algo::point_div(&p, &q)?)
    }),
    strict_def!("lseg", [PT, PT], LS, |v| {
        let (p, q) = pt2(v)?;
        g(Geometry::Lseg(seg(p, q)))
    }),
    strict_def!("box", [PT, PT], BX, |v| {
        let (p, q) = pt2(v)?;
        gb(algo::box_construct(&p, &q))
    }),
    strict_def!("line", [PT, PT], LN, |v| {
        let (p, q) = pt2(v)?;
        if algo::point_eq_point(&p, &q) {
            return Err(DbError::new(
                SqlState::InvalidParameterValue,
                "invalid line specification: must be two distinct points",
            ));
        }
        g(Geometry::Line(algo::line_construct(
            &p,
            algo::point_sl(&p, &q)?,
        )?))
    }),
    strict_def!("box", [PT], BX, |v| {
        let p = a_pt(&v[0])?;
        gb(GeoBox { high: p, low: p })
    }),
    strict_def!("circle", [PT, F8], CI, |v| gc(Circle {
        center: a_pt(&v[0])?,
        radius: a_f8(&v[1])?
    })),
    strict_def!("on_pl", [PT, LN], BO, |v| b(algo::line_contain_point(
        &a_ln(&v[1])?,
        &a_pt(&v[0])?
    )?)),
    strict_def!("on_ps", [PT, LS], BO, |v| b(algo::lseg_contain_point(
        &a_ls(&v[1])?,
        &a_pt(&v[0])?
    )?)),
    strict_def!("on_pb", [PT, BX], BO, |v| b(algo::box_contain_point(
        &a_bx(&v[1])?,
        &a_pt(&v[0])?
    ))),
    strict_def!("box_contain_pt", [BX, PT], BO, |v| b(
        algo::box_contain_point(&a_bx(&v[0])?, &a_pt(&v[1])?)
    )),
    strict_def!("on_ppath", [PT, PA], BO, |v| b(algo::on_ppath(
        &a_pt(&v[0])?,
        a_pa(&v[1])?
    )?)),
    strict_def!("path_contain_pt", [PA, PT], BO, |v| b(algo::on_ppath(
        &a_pt(&v[1])?,
        a_pa(&v[0])?
    )?)),
    strict_def!("dist_pl", [PT, LN], F8, |v| f(algo::line_closept_point(
        None,
        &a_ln(&v[1])?,
        &a_pt(&v[0])?
    )?)),
    strict_def!("dist_lp", [LN, PT], F8, |v| f(algo::line_closept_point(
        None,
        &a_ln(&v[0])?,
        &a_pt(&v[1])?
    )?)),
    strict_def!("dist_ps", [PT, LS], F8, |v| f(algo::lseg_closept_point(
        None,
        &a_ls(&v[1])?,
        &a_pt(&v[0])?
    )?)),
    strict_def!("dist_sp", [LS, PT], F8, |v| f(algo::lseg_closept_point(
        None,
        &a_ls(&v[0])?,
        &a_pt(&v[1])?
    )?)),
    strict_def!("dist_pb", [PT, BX], F8, |v| f(algo::box_closept_point(
        None,
        &a_bx(&v[1])?,
        &a_pt(&v[0])?
    )?)),
    strict_def!("dist_bp", [BX, PT], F8, |v| f(algo::box_closept_point(
        None,
        &a_bx(&v[0])?,
        &a_pt(&v[1])?
    )?)),
    strict_def!("dist_ppath", [PT, PA], F8, |v| f(algo::dist_ppath(
        &a_pt(&v[0])?,
        a_pa(&v[1])?
    )?)),
    strict_def!("dist_pathp", [PA, PT], F8, |v| f(algo::dist_ppath(
        &a_pt(&v[1])?,
        a_pa(&v[0])?
    )?)),
    strict_def!("dist_ppoly", [PT, PG], F8, |v| f(algo::dist_ppoly(
        &a_pt(&v[0])?,
        a_pg(&v[1])?
    )?)),
    strict_def!("dist_polyp", [PG, PT], F8, |v| f(algo::dist_ppoly(
        &a_pt(&v[1])?,
        a_pg(&v[0])?
    )?)),
    strict_def!("dist_pc", [PT, CI], F8, |v| f(algo::dist_pc(
        &a_pt(&v[0])?,
        &a_ci(&v[1])?
    )?)),
    strict_def!("dist_cpoint", [CI, PT], F8, |v| f(algo::dist_pc(
        &a_pt(&v[1])?,
        &a_ci(&v[0])?
    )?)),
    strict_def!("close_pl", [PT, LN], PT, |v| {
        let mut r = pt(0.0, 0.0);
        let d = algo::line_closept_point(Some(&mut r), &a_ln(&v[1])?, &a_pt(&v[0])?)?;
        closept(d, r)
    }),
    strict_def!("close_ps", [PT, LS], PT, |v| {
        let mut r = pt(0.0, 0.0);
        let d = algo::lseg_closept_point(Some(&mut r), &a_ls(&v[1])?, &a_pt(&v[0])?)?;
        closept(d, r)
    }),
    strict_def!("close_pb", [PT, BX], PT, |v| {
        let mut r = pt(0.0, 0.0);
        let d = algo::box_closept_point(Some(&mut r), &a_bx(&v[1])?, &a_pt(&v[0])?)?;
        closept(d, r)
    }),
    strict_def!("pt_contained_poly", [PT, PG], BO, |v| b(
        algo::point_inside(&a_pt(&v[0])?, &a_pg(&v[1])?.p)? != 0
    )),
    strict_def!("poly_contain_pt", [PG, PT], BO, |v| b(algo::point_inside(
        &a_pt(&v[1])?,
        &a_pg(&v[0])?.p
    )? != 0)),
    strict_def!("pt_contained_circle", [PT, CI], BO, |v| b(
        algo::circle_contain_pt(&a_ci(&v[1])?, &a_pt(&v[0])?)?
    )),
    strict_def!("circle_contain_pt", [CI, PT], BO, |v| b(
        algo::circle_contain_pt(&a_ci(&v[0])?, &a_pt(&v[1])?)?
    )),
    // ----- lseg
    strict_def!("lseg_intersect", [LS, LS], BO, |v| {
        let (p, q) = ls2(v)?;
        b(algo::lseg_interpt_lseg(None, &p, &q)?)
    }),
    strict_def!("lseg_parallel", [LS, LS], BO, |v| {
        let (p, q) = ls2(v)?;
        b(fp_eq(algo::lseg_sl(&p)?, algo::lseg_sl(&q)?))
    }),
    strict_def!("isparallel", [LS, LS], BO, |v| {
        let (p, q) = ls2(v)?;
        b(fp_eq(algo::lseg_sl(&p)?, algo::lseg_sl(&q)?))
    }),
    strict_def!("lseg_perp", [LS, LS], BO, |v| {
        let (p, q) = ls2(v)?;
        b(fp_eq(algo::lseg_sl(&p)?, algo::lseg_invsl(&q)?))
    }),
    strict_def!("isperp", [LS, LS], BO, |v| {
        let (p, q) = ls2(v)?;
        b(fp_eq(algo::lseg_sl(&p)?, algo::lseg_invsl(&q)?))
    }),
    strict_def!("lseg_vertical", [LS], BO, |v| {
        let s = a_ls(&v[0])?;
        b(fp_eq(s.p[0].x, s.p[1].x))
    }),
    strict_def!("isvertical", [LS], BO, |v| {
        let s = a_ls(&v[0])?;
        b(fp_eq(s.p[0].x, s.p[1].x))
    }),
    strict_def!("lseg_horizontal", [LS], BO, |v| {
        let s = a_ls(&v[0])?;
        b(fp_eq(s.p[0].y, s.p[1].y))
    }),
    strict_def!("ishorizontal", [LS], BO, |v| {
        let s = a_ls(&v[0])?;
        b(fp_eq(s.p[0].y, s.p[1].y))
    }),
    strict_def!("lseg_eq", [LS, LS], BO, |v| {
        let (p, q) = ls2(v)?;
        b(algo::point_eq_point(&p.p[0], &q.p[0]) && algo::point_eq_point(&p.p[1], &q.p[1]))
    }),
    strict_def!("lseg_ne", [LS, LS], BO, |v| {
        let (p, q) = ls2(v)?;
        b(!algo::point_eq_point(&p.p[0], &q.p[0]) || !algo::point_eq_point(&p.p[1], &q.p[1]))
    }),
    strict_def!("lseg_lt", [LS, LS], BO, |v| lseg_len_cmp(v, fp_lt)),
    strict_def!("lseg_le", [LS, LS], BO, |v| lseg_len_cmp(v, fp_le)),
    strict_def!("lseg_gt", [LS, LS], BO, |v| lseg_len_cmp(v, fp_gt)),
    strict_def!("lseg_ge", [LS, LS], BO, |v| lseg_len_cmp(v, fp_ge)),
    strict_def!("lseg_distance", [LS, LS], F8, |v| {
        let (p, q) = ls2(v)?;
        f(algo::lseg_closept_lseg(None, &p, &q)?)
    }),
    strict_def!("lseg_center", [LS], PT, |v| gp(algo::lseg_center(&a_ls(
        &v[0]
    )?)?)),
    strict_def!("point", [LS], PT, |v| gp(algo::lseg_center(&a_ls(&v[0])?)?)),
    strict_def!("lseg_length", [LS], F8, |v| f(algo::lseg_length(&a_ls(
        &v[0]
    )?)?)),
    strict_def!("length", [LS], F8, |v| f(algo::lseg_length(&a_ls(&v[0])?)?)),
    strict_def!("lseg_interpt", [LS, LS], PT, |v| {
        let (p, q) = ls2(v)?;
        let mut r = pt(0.0, 0.0);
        if algo::lseg_interpt_lseg(Some(&mut r), &p, &q)? {
            gp(r)
        } else {
            Ok(Value::Null)
        }
    }),
    strict_def!("close_lseg", [LS, LS], PT, |v| {
        let (l1, l2) = ls2(v)?;
        if algo::lseg_sl(&l1)? == algo::lseg_sl(&l2)? {
            return Ok(Value::Null);
        }
        let mut r = pt(0.0, 0.0);
        let d = algo::lseg_closept_lseg(Some(&mut r), &l2, &l1)?;
        closept(d, r)
    }),
    strict_def!("close_sb", [LS, BX], PT, |v| {
        let mut r = pt(0.0, 0.0);
        let d = algo::box_closept_lseg(Some(&mut r), &a_bx(&v[1])?, &a_ls(&v[0])?)?;
        closept(d, r)
    }),
    strict_def!("close_ls", [LN, LS], PT, |v| {
        let (l, s) = (a_ln(&v[0])?, a_ls(&v[1])?);
        if algo::lseg_sl(&s)? == algo::line_sl(&l)? {
            return Ok(Value::Null);
        }
        let mut r = pt(0.0, 0.0);
        let d = algo::lseg_closept_line(Some(&mut r), &s, &l)?;
        closept(d, r)
    }),
    strict_def!("on_sl", [LS, LN], BO, |v| {
        let (s, l) = (a_ls(&v[0])?, a_ln(&v[1])?);
        b(algo::line_contain_point(&l, &s.p[0])? && algo::line_contain_point(&l, &s.p[1])?)
    }),
    strict_def!("on_sb", [LS, BX], BO, |v| b(algo::box_contain_lseg(
        &a_bx(&v[1])?,
        &a_ls(&v[0])?
    ))),
    strict_def!("inter_sl", [LS, LN], BO, |v| b(algo::lseg_interpt_line(
        None,
        &a_ls(&v[0])?,
        &a_ln(&v[1])?
    )?)),
    strict_def!("inter_sb", [LS, BX], BO, |v| b(algo::box_interpt_lseg(
        None,
        &a_bx(&v[1])?,
        &a_ls(&v[0])?
    )?)),
    strict_def!("dist_sl", [LS, LN], F8, |v| f(algo::lseg_closept_line(
        None,
        &a_ls(&v[0])?,
        &a_ln(&v[1])?
    )?)),
    strict_def!("dist_ls", [LN, LS], F8, |v| f(algo::lseg_closept_line(
        None,
        &a_ls(&v[1])?,
        &a_ln(&v[0])?
    )?)),
    strict_def!("dist_sb", [LS, BX], F8, |v| f(algo::box_closept_lseg(
        None,
        &a_bx(&v[1])?,
        &a_ls(&v[0])?
    )?)),
    strict_def!("dist_bs", [BX, LS], F8, |v| f(algo::box_closept_lseg(
        None,
        &a_bx(&v[0])?,
        &a_ls(&v[1])?
    )?)),
    // ----- line
    strict_def!("line_intersect", [LN, LN], BO, |v| {
        let (p, q) = ln2(v)?;
        b(algo::line_interpt_line(None, &p, &q)?)
    }),
    strict_def!("line_parallel", [LN, LN], BO, |v| {
        let (p, q) = ln2(v)?;
        b(!algo::line_interpt_line(None, &p, &q)?)
    }),
    strict_def!("isparallel", [LN, LN], BO, |v| {
        let (p, q) = ln2(v)?;
        b(!algo::line_interpt_line(None, &p, &q)?)
    }),
    strict_def!("line_perp", [LN, LN], BO, |v| {
        let (p, q) = ln2(v)?;
        b(algo::line_perp(&p, &q)?)
    }),
    strict_def!("isperp", [LN, LN], BO, |v| {
        let (p, q) = ln2(v)?;
        b(algo::line_perp(&p, &q)?)
    }),
    strict_def!("line_vertical", [LN], BO, |v| b(fp_zero(a_ln(&v[0])?.b))),
    strict_def!("isvertical", [LN], BO, |v| b(fp_zero(a_ln(&v[0])?.b))),
    strict_def!("line_horizontal", [LN], BO, |v| b(fp_zero(a_ln(&v[0])?.a))),
    strict_def!("ishorizontal", [LN], BO, |v| b(fp_zero(a_ln(&v[0])?.a))),
    strict_def!("line_eq", [LN, LN], BO, |v| {
        let (p, q) = ln2(v)?;
        b(algo::line_eq(&p, &q)?)
    }),
    strict_def!("line_distance", [LN, LN], F8, |v| {
        let (p, q) = ln2(v)?;
        f(algo::line_distance(&p, &q)?)
    }),
    strict_def!("line_interpt", [LN, LN], PT, |v| {
        let (p, q) = ln2(v)?;
        let mut r = pt(0.0, 0.0);
        if algo::line_interpt_line(Some(&mut r), &p, &q)? {
            gp(r)
        } else {
            Ok(Value::Null)
        }
    }),
    strict_def!("inter_lb", [LN, BX], BO, |v| b(algo::inter_lb(
        &a_ln(&v[0])?,
        &a_bx(&v[1])?
    )?)),
    // ----- box
    strict_def!("box_same", [BX, BX], BO, |v| {
        let (p, q) = bx2(v)?;
        b(algo::box_same(&p, &q))
    }),
    strict_def!("box_overlap", [BX, BX], BO, |v| {
        let (p, q) = bx2(v)?;
        b(algo::box_ov(&p, &q))
    }),
    strict_def!("box_left", [BX, BX], BO, |v| {
        let (p, q) = bx2(v)?;
        b(fp_lt(p.high.x, q.low.x))
    }),
    strict_def!("box_overleft", [BX, BX], BO, |v| {
        let (p, q) = bx2(v)?;
        b(fp_le(p.high.x, q.high.x))
    }),
    strict_def!("box_right", [BX, BX], BO, |v| {
        let (p, q) = bx2(v)?;
        b(fp_gt(p.low.x, q.high.x))
    }),
    strict_def!("box_overright", [BX, BX], BO, |v| {
        let (p, q) = bx2(v)?;
        b(fp_ge(p.low.x, q.low.x))
    }),
    strict_def!("box_below", [BX, BX], BO, |v| {
        let (p, q) = bx2(v)?;
        b(fp_lt(p.high.y, q.low.y))
    }),
    strict_def!("box_overbelow", [BX, BX], BO, |v| {
        let (p, q) = bx2(v)?;
        b(fp_le(p.high.y, q.high.y))
    }),
    strict_def!("box_above", [BX, BX], BO, |v| {
        let (p, q) = bx2(v)?;
        b(fp_gt(p.low.y, q.high.y))
    }),
    strict_def!("box_overabove", [BX, BX], BO, |v| {
        let (p, q) = bx2(v)?;
        b(fp_ge(p.low.y, q.low.y))
    }),
    strict_def!("box_contained", [BX, BX], BO, |v| {
        let (p, q) = bx2(v)?;
        b(algo::box_contain_box(&q, &p))
    }),
    strict_def!("box_contain", [BX, BX], BO, |v| {
        let (p, q) = bx2(v)?;
        b(algo::box_contain_box(&p, &q))
    }),
    strict_def!("box_below_eq", [BX, BX], BO, |v| {
        let (p, q) = bx2(v)?;
        b(fp_le(p.high.y, q.low.y))
    }),
    strict_def!("box_above_eq", [BX, BX], BO, |v| {
        let (p, q) = bx2(v)?;
        b(fp_ge(p.low.y, q.high.y))
    }),
    strict_def!("box_lt", [BX, BX], BO, |v| box_area_cmp(v, fp_lt)),
    strict_def!("box_le", [BX, BX], BO, |v| box_area_cmp(v, fp_le)),
    strict_def!("box_eq", [BX, BX], BO, |v| box_area_cmp(v, fp_eq)),
    strict_def!("box_gt", [BX, BX], BO, |v| box_area_cmp(v, fp_gt)),
    strict_def!("box_ge", [BX, BX], BO, |v| box_area_cmp(v, fp_ge)),
    strict_def!("area", [BX], F8, |v| f(algo::box_ar(&a_bx(&v[0])?)?)),
    strict_def!("width", [BX], F8, |v| f(algo::box_wd(&a_bx(&v[0])?)?)),
    strict_def!("height", [BX], F8, |v| f(algo::box_ht(&a_bx(&v[0])?)?)),
    strict_def!("box_distance", [BX, BX], F8, |v| {
        let (p, q) = bx2(v)?;
        f(algo::point_dt(&algo::box_cn(&p)?, &algo::box_cn(&q)?)?)
    }),
    strict_def!("box_center", [BX], PT, |v| gp(algo::box_cn(&a_bx(&v[0])?)?)),
    strict_def!("center", [BX], PT, |v| gp(algo::box_cn(&a_bx(&v[0])?)?)),
    strict_def!("point", [BX], PT, |v| gp(algo::box_cn(&a_bx(&v[0])?)?)),
    strict_def!("box_intersect", [BX, BX], BX, |v| {
        let (p, q) = bx2(v)?;
        algo::box_intersect(&p, &q).map_or(Ok(Value::Null), gb)
    }),
    strict_def!("bound_box", [BX, BX], BX, |v| {
        let (p, q) = bx2(v)?;
        gb(algo::boxes_bound_box(&p, &q))
    }),
    strict_def!("diagonal", [BX], LS, |v| {
        let x = a_bx(&v[0])?;
        g(Geometry::Lseg(seg(x.high, x.low)))
    }),
    strict_def!("lseg", [BX], LS, |v| {
        let x = a_bx(&v[0])?;
        g(Geometry::Lseg(seg(x.high, x.low)))
    }),
    strict_def!("box_add", [BX, PT], BX, |v| box_map(
        v,
        algo::point_add,
        false
    )),
    strict_def!("box_sub", [BX, PT], BX, |v| box_map(
        v,
        algo::point_sub,
        false
    )),
    strict_def!("box_mul", [BX, PT], BX, |v| box_map(
        v,
        algo::point_mul,
        true
    )),
    strict_def!("box_div", [BX, PT], BX, |v| box_map(
        v,
        algo::point_div,
        true
    )),
    strict_def!("polygon", [BX], PG, |v| g(Geometry::Polygon(
        algo::box_poly(&a_bx(&v[0])?)
    ))),
    strict_def!("circle", [BX], CI, |v| gc(algo::box_circle(&a_bx(&v[0])?)?)),
    // ----- path
    strict_def!(
        "path_n_lt",
        [PA, PA],
        BO,
        |v| b(npts(&v[0])? < npts(&v[1])?)
    ),
    strict_def!("path_n_le", [PA, PA], BO, |v| b(
        npts(&v[0])? <= npts(&v[1])?
    )),
    strict_def!("path_n_eq", [PA, PA], BO, |v| b(
        npts(&v[0])? == npts(&v[1])?
    )),
    strict_def!(
        "path_n_gt",
        [PA, PA],
        BO,
        |v| b(npts(&v[0])? > npts(&v[1])?)
    ),
    strict_def!("path_n_ge", [PA, PA], BO, |v| b(
        npts(&v[0])? >= npts(&v[1])?
    )),
    strict_def!("isclosed", [PA], BO, |v| b(a_pa(&v[0])?.closed)),
    strict_def!("isopen", [PA], BO, |v| b(!a_pa(&v[0])?.closed)),
    strict_def!("path_npoints", [PA], I4, |v| Ok(Value::Int4(
        npts(&v[0])? as i32
    ))),
    strict_def!("npoints", [PA], I4, |v| Ok(
        Value::Int4(npts(&v[0])? as i32)
    )),
    strict_def!("pclose", [PA], PA, |v| g(Geometry::Path(Path {
        closed: true,
        ..a_pa(&v[0])?.clone()
    }))),
    strict_def!("popen", [PA], PA, |v| g(Geometry::Path(Path {
        closed: false,
        ..a_pa(&v[0])?.clone()
    }))),
    strict_def!("path_inter", [PA, PA], BO, |v| b(algo::path_inter(
        a_pa(&v[0])?,
        a_pa(&v[1])?
    )?)),
    strict_def!("path_distance", [PA, PA], F8, |v| opt_f(
        algo::path_distance(a_pa(&v[0])?, a_pa(&v[1])?)?
    )),
    strict_def!("path_length", [PA], F8, |v| f(algo::path_length(a_pa(
        &v[0]
    )?)?)),
    strict_def!("length", [PA], F8, |v| f(algo::path_length(a_pa(&v[0])?)?)),
    strict_def!("area", [PA], F8, |v| opt_f(algo::path_area(a_pa(&v[0])?)?)),
    strict_def!("path_add", [PA, PA], PA, |v| {
        let (p, q) = (a_pa(&v[0])?, a_pa(&v[1])?);
        if p.closed || q.closed {
            return Ok(Value::Null);
        }
        g(Geometry::Path(Path {
            closed: false,
            p: p.p.iter().chain(&q.p).copied().collect(),
        }))
    }),
    strict_def!("path_add_pt", [PA, PT], PA, |v| path_map(
        v,
        algo::point_add
    )),
    strict_def!("path_sub_pt", [PA, PT], PA, |v| path_map(
        v,
        algo::point_sub
    )),
    strict_def!("path_mul_pt", [PA, PT], PA, |v| path_map(
        v,
        algo::point_mul
    )),
    strict_def!("path_div_pt", [PA, PT], PA, |v| path_map(
        v,
        algo::point_div
    )),
    strict_def!("polygon", [PA], PG, |v| {
        let p = a_pa(&v[0])?;
        if !p.closed {
            return Err(DbError::new(
                SqlState::InvalidParameterValue,
                "open path cannot be converted to polygon",
            ));
        }
        g(Geometry::Polygon(Polygon::new(p.p.clone())))
    }),
    // ----- polygon
    strict_def!("poly_left", [PG, PG], BO, |v| {
        let (p, q) = pg2(v)?;
        b(p.bbox.high.x < q.bbox.low.x)
    }),
    strict_def!("poly_overleft", [PG, PG], BO, |v| {
        let (p, q) = pg2(v)?;
        b(p.bbox.high.x <= q.bbox.high.x)
    }),
    strict_def!("poly_right", [PG, PG], BO, |v| {
        let (p, q) = pg2(v)?;
        b(p.bbox.low.x > q.bbox.high.x)
    }),
    strict_def!("poly_overright", [PG, PG], BO, |v| {
        let (p, q) = pg2(v)?;
        b(p.bbox.low.x >= q.bbox.low.x)
    }),
    strict_def!("poly_below", [PG, PG], BO, |v| {
        let (p, q) = pg2(v)?;
        b(p.bbox.high.y < q.bbox.low.y)
    }),
    strict_def!("poly_overbelow", [PG, PG], BO, |v| {
        let (p, q) = pg2(v)?;
        b(p.bbox.high.y <= q.bbox.high.y)
    }),
    strict_def!("poly_above", [PG, PG], BO, |v| {
        let (p, q) = pg2(v)?;
        b(p.bbox.low.y > q.bbox.high.y)
    }),
    strict_def!("poly_overabove", [PG, PG], BO, |v| {
        let (p, q) = pg2(v)?;
        b(p.bbox.low.y >= q.bbox.low.y)
    }),
    strict_def!("poly_same", [PG, PG], BO, |v| {
        let (p, q) = pg2(v)?;
        b(algo::poly_same(p, q))
    }),
    strict_def!("poly_overlap", [PG, PG], BO, |v| {
        let (p, q) = pg2(v)?;
        b(algo::poly_overlap(p, q)?)
    }),
    strict_def!("poly_contain", [PG, PG], BO, |v| {
        let (p, q) = pg2(v)?;
        b(algo::poly_contain_poly(p, q)?)
    }),
    strict_def!("poly_contained", [PG, PG], BO, |v| {
        let (p, q) = pg2(v)?;
        b(algo::poly_contain_poly(q, p)?)
    }),
    strict_def!("poly_distance", [PG, PG], F8, |v| {
        let (p, q) = pg2(v)?;
        opt_f(algo::poly_distance(p, q)?)
    }),
    strict_def!("poly_npoints", [PG], I4, |v| Ok(Value::Int4(
        npts(&v[0])? as i32
    ))),
    strict_def!("npoints", [PG], I4, |v| Ok(
        Value::Int4(npts(&v[0])? as i32)
    )),
    strict_def!("poly_center", [PG], PT, |v| gp(algo::poly_to_circle(
        a_pg(&v[0])?
    )?
    .center)),
    strict_def!("point", [PG], PT, |v| gp(algo::poly_to_circle(a_pg(
        &v[0]
    )?)?
    .center)),
    strict_def!("box", [PG], BX, |v| gb(a_pg(&v[0])?.bbox)),
    strict_def!("path", [PG], PA, |v| g(Geometry::Path(Path {
        closed: true,
        p: a_pg(&v[0])?.p.clone()
    }))),
    strict_def!("circle", [PG], CI, |v| gc(algo::poly_to_circle(a_pg(
        &v[0]
    )?)?)),
    strict_def!("dist_cpoly", [CI, PG], F8, |v| f(algo::dist_cpoly(
        &a_ci(&v[0])?,
        a_pg(&v[1])?
    )?)),
    strict_def!("dist_polyc", [PG, CI], F8, |v| f(algo::dist_cpoly(
        &a_ci(&v[1])?,
        a_pg(&v[0])?
    )?)),
    // ----- circle
    strict_def!("circle_same", [CI, CI], BO, |v| {
        let (p, q) = ci2(v)?;
        b(algo::circle_same(&p, &q))
    }),
    strict_def!("circle_overlap", [CI, CI], BO, |v| {
        let (p, q) = ci2(v)?;
        b(fp_le(
            algo::point_dt(&p.center, &q.center)?,
            pl(p.radius, q.radius)?,
        ))
    }),
    strict_def!("circle_overleft", [CI, CI], BO, |v| {
        let (p, q) = ci2(v)?;
        b(fp_le(pl(p.center.x, p.radius)?, pl(q.center.x, q.radius)?))
    }),
    strict_def!("circle_left", [CI, CI], BO, |v| {
        let (p, q) = ci2(v)?;
        b(fp_lt(pl(p.center.x, p.radius)?, mi(q.center.x, q.radius)?))
    }),
    strict_def!("circle_right", [CI, CI], BO, |v| {
        let (p, q) = ci2(v)?;
        b(fp_gt(mi(p.center.x, p.radius)?, pl(q.center.x, q.radius)?))
    }),
    strict_def!("circle_overright", [CI, CI], BO, |v| {
        let (p, q) = ci2(v)?;
        b(fp_ge(mi(p.center.x, p.radius)?, mi(q.center.x, q.radius)?))
    }),
    strict_def!("circle_contained", [CI, CI], BO, |v| {
        let (p, q) = ci2(v)?;
        b(fp_le(
            algo::point_dt(&p.center, &q.center)?,
            mi(q.radius, p.radius)?,
        ))
    }),
    strict_def!("circle_contain", [CI, CI], BO, |v| {
        let (p, q) = ci2(v)?;
        b(fp_le(
            algo::point_dt(&p.center, &q.center)?,
            mi(p.radius, q.radius)?,
        ))
    }),
    strict_def!("circle_below", [CI, CI], BO, |v| {
        let (p, q) = ci2(v)?;
        b(fp_lt(pl(p.center.y, p.radius)?, mi(q.center.y, q.radius)?))
    }),
    strict_def!("circle_above", [CI, CI], BO, |v| {
        let (p, q) = ci2(v)?;
        b(fp_gt(mi(p.center.y, p.radius)?, pl(q.center.y, q.radius)?))
    }),
    strict_def!("circle_overbelow", [CI, CI], BO, |v| {
        let (p, q) = ci2(v)?;
        b(fp_le(pl(p.center.y, p.radius)?, pl(q.center.y, q.radius)?))
    }),
    strict_def!("circle_overabove", [CI, CI], BO, |v| {
        let (p, q) = ci2(v)?;
        b(fp_ge(mi(p.center.y, p.radius)?, mi(q.center.y, q.radius)?))
    }),
    strict_def!("circle_eq", [CI, CI], BO, |v| circle_area_cmp(v, fp_eq)),
    strict_def!("circle_ne", [CI, CI], BO, |v| circle_area_cmp(v, fp_ne)),
    strict_def!("circle_lt", [CI, CI], BO, |v| circle_area_cmp(v, fp_lt)),
    strict_def!("circle_le", [CI, CI], BO, |v| circle_area_cmp(v, fp_le)),
    strict_def!("circle_gt", [CI, CI], BO, |v| circle_area_cmp(v, fp_gt)),
    strict_def!("circle_ge", [CI, CI], BO, |v| circle_area_cmp(v, fp_ge)),
    strict_def!("circle_add_pt", [CI, PT], CI, |v| circle_map(
        v,
        algo::point_add,
        keep_radius
    )),
    strict_def!("circle_sub_pt", [CI, PT], CI, |v| circle_map(
        v,
        algo::point_sub,
        keep_radius
    )),
    strict_def!("circle_mul_pt", [CI, PT], CI, |v| circle_map(
        v,
        algo::point_mul,
        mul
    )),
    strict_def!("circle_div_pt", [CI, PT], CI, |v| circle_map(
        v,
        algo::point_div,
        super::div
    )),
    strict_def!("area", [CI], F8, |v| f(algo::circle_ar(&a_ci(&v[0])?)?)),
    strict_def!("diameter", [CI], F8, |v| f(mul(a_ci(&v[0])?.radius, 2.0)?)),
    strict_def!("radius", [CI], F8, |v| f(a_ci(&v[0])?.radius)),
    strict_def!("circle_distance", [CI, CI], F8, |v| {
        let (p, q) = ci2(v)?;
        f(algo::circle_distance(&p, &q)?)
    }),
    strict_def!("circle_center", [CI], PT, |v| gp(a_ci(&v[0])?.center)),
    strict_def!("center", [CI], PT, |v| gp(a_ci(&v[0])?.center)),
    strict_def!("point", [CI], PT, |v| gp(a_ci(&v[0])?.center)),
    strict_def!("box", [CI], BX, |v| gb(algo::circle_box(&a_ci(&v[0])?)?)),
    strict_def!("polygon", [CI], PG, |v| circle_polygon(12, &a_ci(&v[0])?)),
    strict_def!("polygon", [I4, CI], PG, |v| {
        let n = v[0].as_i64().ok_or_else(|| internal("integer"))? as i32;
        circle_polygon(n, &a_ci(&v[1])?)
    }),
];

/// pg_operator's rows for the geometric types: (operator, left, right,
/// function). A prefix operator has left `None`.
pub static OPERATORS: &[(&str, Option<DataType>, DataType, &str)] = &[
    ("<<", Some(PG), PG, "poly_left"),
    ("&<", Some(PG), PG, "poly_overleft"),
    ("&>", Some(PG), PG, "poly_overright"),
    (">>", Some(PG), PG, "poly_right"),
    ("<@", Some(PG), PG, "poly_contained"),
    ("@>", Some(PG), PG, "poly_contain"),
    ("~=", Some(PG), PG, "poly_same"),
    ("&&", Some(PG), PG, "poly_overlap"),
    ("<<|", Some(PG), PG, "poly_below"),
    ("&<|", Some(PG), PG, "poly_overbelow"),
    ("|&>", Some(PG), PG, "poly_overabove"),
    ("|>>", Some(PG), PG, "poly_above"),
    ("<<", Some(BX), BX, "box_left"),
    ("&<", Some(BX), BX, "box_overleft"),
    ("&>", Some(BX), BX, "box_overright"),
    (">>", Some(BX), BX, "box_right"),
    ("<@", Some(BX), BX, "box_contained"),
    ("@>", Some(BX), BX, "box_contain"),
    ("~=", Some(BX), BX, "box_same"),
    ("&&", Some(BX), BX, "box_overlap"),
    (">=", Some(BX), BX, "box_ge"),
    (">", Some(BX), BX, "box_gt"),
    ("=", Some(BX), BX, "box_eq"),
    ("<", Some(BX), BX, "box_lt"),
    ("<=", Some(BX), BX, "box_le"),
    (">^", Some(BX), BX, "box_above_eq"),
    ("<^", Some(BX), BX, "box_below_eq"),
    ("?#", Some(BX), BX, "box_overlap"),
    ("#", Some(BX), BX, "box_intersect"),
    ("<<|", Some(BX), BX, "box_below"),
    ("&<|", Some(BX), BX, "box_overbelow"),
    ("|&>", Some(BX), BX, "box_overabove"),
    ("|>>", Some(BX), BX, "box_above"),
    ("+", Some(BX), PT, "box_add"),
    ("-", Some(BX), PT, "box_sub"),
    ("*", Some(BX), PT, "box_mul"),
    ("/", Some(BX), PT, "box_div"),
    ("@@", None, BX, "box_center"),
    (">^", Some(PT), PT, "point_above"),
    ("<<", Some(PT), PT, "point_left"),
    (">>", Some(PT), PT, "point_right"),
    ("<^", Some(PT), PT, "point_below"),
    ("|>>", Some(PT), PT, "point_above"),
    ("<<|", Some(PT), PT, "point_below"),
    ("~=", Some(PT), PT, "point_eq"),
    ("<>", Some(PT), PT, "point_ne"),
    ("?-", Some(PT), PT, "point_horiz"),
    ("?|", Some(PT), PT, "point_vert"),
    ("+", Some(PT), PT, "point_add"),
    ("-", Some(PT), PT, "point_sub"),
    ("*", Some(PT), PT, "point_mul"),
    ("/", Some(PT), PT, "point_div"),
    ("<@", Some(PT), BX, "on_pb"),
    ("@>", Some(BX), PT, "box_contain_pt"),
    ("<@", Some(PT), PA, "on_ppath"),
    ("@>", Some(PA), PT, "path_contain_pt"),
    ("<@", Some(PT), PG, "pt_contained_poly"),
    ("@>", Some(PG), PT, "poly_contain_pt"),
    ("<@", Some(PT), CI, "pt_contained_circle"),
    ("@>", Some(CI), PT, "circle_contain_pt"),
    ("<@", Some(PT), LN, "on_pl"),
    ("<@", Some(PT), LS, "on_ps"),
    ("<@", Some(LS), LN, "on_sl"),
    ("<@", Some(LS), BX, "on_sb"),
    ("<->", Some(PT), PT, "point_distance"),
    ("<->", Some(PT), LN, "dist_pl"),
    ("<->", Some(LN), PT, "dist_lp"),
    ("<->", Some(PT), LS, "dist_ps"),
    ("<->", Some(LS), PT, "dist_sp"),
    ("<->", Some(PT), BX, "dist_pb"),
    ("<->", Some(BX), PT, "dist_bp"),
    ("<->", Some(LS), LN, "dist_sl"),
    ("<->", Some(LN), LS, "dist_ls"),
    ("<->", Some(LS), BX, "dist_sb"),
    ("<->", Some(BX), LS, "dist_bs"),
    ("<->", Some(PT), PA, "dist_ppath"),
    ("<->", Some(PA), PT, "dist_pathp"),
    ("<->", Some(BX), BX, "box_distance"),
    ("<->", Some(PA), PA, "path_distance"),
    ("<->", Some(LN), LN, "line_distance"),
    ("<->", Some(LS), LS, "lseg_distance"),
    ("<->", Some(PG), PG, "poly_distance"),
    ("<->", Some(CI), CI, "circle_distance"),
    ("<->", Some(PT), CI, "dist_pc"),
    ("<->", Some(CI), PT, "dist_cpoint"),
    ("<->", Some(PT), PG, "dist_ppoly"),
    ("<->", Some(PG), PT, "dist_polyp"),
    ("<->", Some(CI), PG, "dist_cpoly"),
    ("<->", Some(PG), CI, "dist_polyc"),
    ("+", Some(PA), PA, "path_add"),
    ("+", Some(PA), PT, "path_add_pt"),
    ("-", Some(PA), PT, "path_sub_pt"),
    ("*", Some(PA), PT, "path_mul_pt"),
    ("/", Some(PA), PT, "path_div_pt"),
    ("=", Some(PA), PA, "path_n_eq"),
    ("<", Some(PA), PA, "path_n_lt"),
    (">", Some(PA), PA, "path_n_gt"),
    ("<=", Some(PA), PA, "path_n_le"),
    (">=", Some(PA), PA, "path_n_ge"),
    ("#", None, PA, "path_npoints"),
    ("?#", Some(PA), PA, "path_inter"),
    ("@-@", None, PA, "path_length"),
    ("@@", None, LS, "lseg_center"),
    ("@@", None, PG, "poly_center"),
    ("@@", None, CI, "circle_center"),
    ("#", None, PG, "poly_npoints"),
    ("=", Some(CI), CI, "circle_eq"),
    ("<>", Some(CI), CI, "circle_ne"),
    ("<", Some(CI), CI, "circle_lt"),
    (">", Some(CI), CI, "circle_gt"),
    ("<=", Some(CI), CI, "circle_le"),
    (">=", Some(CI), CI, "circle_ge"),
    ("<<", Some(CI), CI, "circle_left"),
    ("&<", Some(CI), CI, "circle_overleft"),
    ("&>", Some(CI), CI, "circle_overright"),
    (">>", Some(CI), CI, "circle_right"),
    ("<@", Some(CI), CI, "circle_contained"),
    ("@>", Some(CI), CI, "circle_contain"),
    ("~=", Some(CI), CI, "circle_same"),
    ("&&", Some(CI), CI, "circle_overlap"),
    ("|>>", Some(CI), CI, "circle_above"),
    ("<<|", Some(CI), CI, "circle_below"),
    ("&<|", Some(CI), CI, "circle_overbelow"),
    ("|&>", Some(CI), CI, "circle_overabove"),
    ("+", Some(CI), PT, "circle_add_pt"),
    ("-", Some(CI), PT, "circle_sub_pt"),
    ("*", Some(CI), PT, "circle_mul_pt"),
    ("/", Some(CI), PT, "circle_div_pt"),
    ("?#", Some(LS), LS, "lseg_intersect"),
    ("?||", Some(LS), LS, "lseg_parallel"),
    ("?-|", Some(LS), LS, "lseg_perp"),
    ("?-", None, LS, "lseg_horizontal"),
    ("?|", None, LS, "lseg_vertical"),
    ("=", Some(LS), LS, "lseg_eq"),
    ("<>", Some(LS), LS, "lseg_ne"),
    ("<", Some(LS), LS, "lseg_lt"),
    ("<=", Some(LS), LS, "lseg_le"),
    (">", Some(LS), LS, "lseg_gt"),
    (">=", Some(LS), LS, "lseg_ge"),
    ("@-@", None, LS, "lseg_length"),
    ("#", Some(LS), LS, "lseg_interpt"),
    ("?#", Some(LS), LN, "inter_sl"),
    ("?#", Some(LS), BX, "inter_sb"),
    ("?#", Some(LN), BX, "inter_lb"),
    ("##", Some(PT), LN, "close_pl"),
    ("##", Some(PT), LS, "close_ps"),
    ("##", Some(PT), BX, "close_pb"),
    ("##", Some(LS), BX, "close_sb"),
    ("##", Some(LN), LS, "close_ls"),
    ("##", Some(LS), LS, "close_lseg"),
    ("?#", Some(LN), LN, "line_intersect"),
    ("?||", Some(LN), LN, "line_parallel"),
    ("?-|", Some(LN), LN, "line_perp"),
    ("?-", None, LN, "line_horizontal"),
    ("?|", None, LN, "line_vertical"),
    ("=", Some(LN), LN, "line_eq"),
    ("#", Some(LN), LN, "line_interpt"),
];

/// The operator function `fname` implements with `nargs` operands (the
/// first one pg_operator lists), for EXPLAIN.
pub fn operator_of(fname: &str, nargs: usize) -> Option<&'static str> {
    OPERATORS
        .iter()
        .find(|o| o.3 == fname && o.1.is_some() == (nargs == 2))
        .map(|o| o.0)
}

fn is_geo(t: DataType) -> bool {
    matches!(t, DataType::Geo(_))
}

/// Whether `op` is one of the geometric operators (so that an operator
/// with unknown operands only, `'(1,2)' <-> '(3,4)'`, is resolved here).
pub fn is_geometric_operator(op: &str) -> bool {
    OPERATORS.iter().any(|o| o.0 == op)
        && !matches!(
            op,
            "+" | "-" | "*" | "/" | "=" | "<>" | "<" | "<=" | ">" | ">=" | "#"
        )
}

/// How well `arg` fits parameter `param`: 2 exact, 1 through an unknown
/// literal or an implicit numeric cast, None not at all.
fn fit(arg: DataType, param: DataType) -> Option<u8> {
    if arg == param || (arg.base() == param.base() && !is_geo(param)) {
        return Some(2);
    }
    match (arg, param) {
        (DataType::Unknown, _) => Some(1),
        (a, DataType::Float8) if a.is_numeric() => Some(1),
        (DataType::Int2, DataType::Int4) => Some(1),
        _ => None,
    }
}

fn def_named(name: &str) -> Option<&'static Def> {
    DEFS.iter().find(|d| d.name == name)
}

fn resolved(d: &'static Def) -> Resolved {
    Resolved {
        func: ScalarFn {
            name: d.name,
            volatility: Volatility::Immutable,
            imp: d.imp,
        },
        arg_types: d.args.to_vec(),
        ret: d.ret,
    }
}

fn not_unique(what: String) -> DbError {
    DbError::new(SqlState::AmbiguousFunction, what).with_hint(
        "Could not choose a best candidate function. You might need to add explicit type casts.",
    )
}

/// Whether `name` is a function of this module.
pub fn is_function(name: &str) -> bool {
    DEFS.iter().any(|d| d.name == name)
}

/// `name(args)` if it is one of these functions: Some(Err) for a
/// geometric function name whose overloads do not fit only when an
/// argument is geometric (otherwise None lets other modules answer).
pub fn resolve(name: &str, args: &[DataType]) -> Option<Result<Resolved, DbError>> {
    if !is_function(name) {
        return None;
    }
    // `length` is also the string functions': theirs unless an argument
    // is geometric.
    if name == "length" && !args.iter().any(|t| is_geo(*t)) {
        return None;
    }
    let mut best: Vec<(&'static Def, u32)> = Vec::new();
    for d in DEFS
        .iter()
        .filter(|d| d.name == name && d.args.len() == args.len())
    {
        let mut score = 0u32;
        let mut ok = true;
        for (a, p) in args.iter().zip(d.args) {
            match fit(*a, *p) {
                Some(s) => score += s as u32,
                None => ok = false,
            }
        }
        if ok {
            best.push((d, score));
        }
    }
    let top = best.iter().map(|b| b.1).max()?;
    let winners: Vec<_> = best.iter().filter(|b| b.1 == top).collect();
    if winners.len() > 1 {
        let list: Vec<&str> = args.iter().map(|t| t.name()).collect();
        return Some(Err(not_unique(format!(
            "function {name}({}) is not unique",
            list.join(", ")
        ))));
    }
    Some(Ok(resolved(winners[0].0)))
}

/// The geometric operator `left op right` (left None: prefix), resolved
/// as PostgreSQL does; None if no geometric operator could apply (the
/// caller reports 42883), Some(Err) when it is ambiguous.
pub fn resolve_operator(
    op: &str,
    left: Option<DataType>,
    right: DataType,
) -> Option<Result<Resolved, DbError>> {
    let cands: Vec<_> = OPERATORS
        .iter()
        .filter(|o| o.0 == op && o.1.is_some() == left.is_some())
        .collect();
    let exact = |l: Option<DataType>, r: DataType| {
        cands
            .iter()
            .find(|o| o.1 == l && o.2 == r)
            .and_then(|o| def_named(o.3))
    };
    if let Some(d) = exact(left, right) {
        return Some(Ok(resolved(d)));
    }
    // An unknown operand is first taken to be of the other one's type.
    match (left, right) {
        (Some(DataType::Unknown), r) if r != DataType::Unknown => {
            if let Some(d) = exact(Some(r), r) {
                return Some(Ok(resolved(d)));
            }
        }
        (Some(l), DataType::Unknown) if l != DataType::Unknown => {
            if let Some(d) = exact(Some(l), l) {
                return Some(Ok(resolved(d)));
            }
        }
        _ => {}
    }
    let fits: Vec<_> = cands
        .iter()
        .filter(|o| {
            left.is_none_or(|l| o.1.is_some_and(|ol| fit(l, ol).is_some()))
                && fit(right, o.2).is_some()
        })
        .collect();
    match fits.as_slice() {
        [] => None,
        [one] => def_named(one.3).map(|d| Ok(resolved(d))),
        _ => {
            let l = left.map_or(String::new(), |l| format!("{} ", l.name()));
            Some(Err(not_unique(format!(
                "operator is not unique: {l}{op} {}",
                right.name()
            ))
            .with_hint(
                "Could not choose a best candidate operator. You might need to add explicit type casts.",
            )))
        }
    }
}

/// pg_cast between geometric types: the function and whether the cast
/// is allowed in assignment (`a`) as well as explicitly (`e`).
pub fn cast_function(from: GeoKind, to: GeoKind) -> Option<(&'static str, bool)> {
    use GeoKind::*;
    Some(match (from, to) {
        (Point, Box) => ("box", true),
        (Lseg, Point) => ("point", false),
        (Path, Polygon) => ("polygon", true),
        (Box, Point) => ("point", false),
        (Box, Lseg) => ("lseg", false),
        (Box, Polygon) => ("polygon", true),
        (Box, Circle) => ("circle", false),
        (Polygon, Point) => ("point", false),
        (Polygon, Path) => ("path", true),
        (Polygon, Box) => ("box", false),
        (Polygon, Circle) => ("circle", false),
        (Circle, Point) => ("point", false),
        (Circle, Box) => ("box", false),
        (Circle, Polygon) => ("polygon", false),
        _ => return None,
    })
}

/// Applies the cast `from` → `to` to a (non-NULL) value.
pub fn cast(v: &Value, from: GeoKind, to: GeoKind) -> Result<Value, DbError> {
    let (name, _) = cast_function(from, to).ok_or_else(|| internal(to.name()))?;
    let d = DEFS
        .iter()
        .find(|d| d.name == name && d.args == [DataType::Geo(from)])
        .ok_or_else(|| internal(to.name()))?;
    (d.imp)(std::slice::from_ref(v), &EvalCtx::default())
}

/// `point[i]` / `lseg[i]` / `box[i]` / `line[i]`: the raw array
/// subscripting of the fixed-size geometric types (0-based; a point's
/// elements are float8, an lseg's and a box's are points). None: not
/// subscriptable.
pub fn subscript_element(kind: GeoKind) -> Option<DataType> {
    match kind {
        GeoKind::Point | GeoKind::Line => Some(F8),
        GeoKind::Lseg | GeoKind::Box => Some(PT),
        _ => None,
    }
}

/// The element `i` of a subscriptable geometric value (NULL out of
/// range, as PostgreSQL's raw subscripting gives).
pub fn subscript(v: &Value, i: i64) -> Value {
    let Some(g) = geo(v) else {
        return Value::Null;
    };
    let pick = |n: usize| usize::try_from(i).ok().filter(|&i| i < n);
    match g {
        Geometry::Point(p) => match pick(2) {
            Some(0) => Value::Float8(p.x),
            Some(_) => Value::Float8(p.y),
            None => Value::Null,
        },
        Geometry::Line(l) => pick(3).map_or(Value::Null, |i| Value::Float8([l.a, l.b, l.c][i])),
        Geometry::Lseg(s) => pick(2).map_or(Value::Null, |i| Geometry::Point(s.p[i]).value()),
        Geometry::Box(b) => {
            pick(2).map_or(Value::Null, |i| Geometry::Point([b.high, b.low][i]).value())
        }
        _ => Value::Null,
    }
}

/// `point[i] := v` and friends (PostgreSQL's raw fixed-length array
/// assignment): a NULL value leaves the value as it was, the subscript
/// must be within the type's elements (2202E otherwise), nothing is
/// re-normalised (a box keeps its corners where they were put).
pub fn subscript_assign(v: &Value, i: i64, item: &Value) -> Result<Value, DbError> {
    let Some(g) = geo(v) else {
        return Ok(Value::Null);
    };
    if item.is_null() {
        return Ok(v.clone());
    }
    let n = match g {
        Geometry::Point(_) | Geometry::Lseg(_) | Geometry::Box(_) => 2,
        Geometry::Line(_) => 3,
        _ => 0,
    };
    let i = usize::try_from(i).ok().filter(|&i| i < n).ok_or_else(|| {
        DbError::new(
            SqlState::ArraySubscriptError,
            "array subscript out of range",
        )
    })?;
    let mut f = g.floats();
    match g {
        Geometry::Point(_) | Geometry::Line(_) => f[i] = a_f8(item)?,
        _ => {
            let p = a_pt(item)?;
            f[2 * i] = p.x;
            f[2 * i + 1] = p.y;
        }
    }
    Geometry::from_floats(g.kind(), false, &f)
        .map(Geometry::value)
        .ok_or_else(|| internal(g.kind().name()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, args: &[(GeoKind, &str)]) -> Value {
        let types: Vec<DataType> = args.iter().map(|a| DataType::Geo(a.0)).collect();
        let vals: Vec<Value> = args
            .iter()
            .map(|(k, s)| super::super::parse(*k, s).unwrap().value())
            .collect();
        let r = resolve(name, &types).unwrap().unwrap();
        r.func.call(&vals, &EvalCtx::default()).unwrap()
    }

    #[test]
    fn functions_compute_as_postgresql() {
        let t = |v: Value| v.to_text(&EvalCtx::default());
        assert_eq!(t(call("area", &[(GeoKind::Box, "(2,2),(0,0)")])), "4");
        assert_eq!(
            t(call(
                "point_distance",
                &[(GeoKind::Point, "0,0"), (GeoKind::Point, "3,4")]
            )),
            "5"
        );
        assert_eq!(
            t(call("polygon", &[(GeoKind::Box, "(1,1),(0,0)")])),
            "((0,0),(0,1),(1,1),(1,0))"
        );
        assert_eq!(
            t(call(
                "pt_contained_poly",
                &[
                    (GeoKind::Point, "1,1"),
                    (GeoKind::Polygon, "(0,0),(0,2),(2,2),(2,0)")
                ]
            )),
            "t"
        );
    }

    #[test]
    fn operators_resolve_with_unknown_operands() {
        let r = resolve_operator("<->", Some(PT), DataType::Unknown)
            .unwrap()
            .unwrap();
        assert_eq!(r.func.name, "point_distance");
        let r = resolve_operator("<@", Some(PT), BX).unwrap().unwrap();
        assert_eq!(r.func.name, "on_pb");
        assert!(resolve_operator("<@", Some(PT), DataType::Unknown)
            .unwrap()
            .is_err());
        assert!(resolve_operator("#", Some(LS), PT).is_none());
    }
}
