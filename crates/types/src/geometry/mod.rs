//! # PostgreSQL's geometric types
//!
//! `point`, `lseg`, `line`, `box`, `path`, `polygon` and `circle`, ported
//! from PostgreSQL 15's `geo_ops.c` with its semantics kept exactly: the
//! same text syntax accepted and printed (`(1,2)`, `[(0,0),(1,1)]`, a box
//! normalised to `(high),(low)`, `<(1,2),3>`, `{A,B,C}`), the same binary
//! send/receive layouts, and the same *fuzzy* comparisons: two
//! coordinates within `EPSILON` (1e-6) of each other are equal to the
//! operators (`FPeq`, `FPlt`, ...), which is not transitive, so these
//! types have no B-tree ordering: no index, ORDER BY, DISTINCT, GROUP BY
//! or UNION on them (PostgreSQL's errors), and only `box`, `circle`, `lseg` and
//! `path` have `<`/`<=`/... operators, comparing areas, lengths or point
//! counts (`line` has `=` alone, `point` only `~=`).
//!
//! Arithmetic goes through the checked float helpers of PostgreSQL's
//! `float.h` ([`pl`], [`mi`], [`mul`], [`div`]): an overflow or underflow
//! is 22003 `value out of range: overflow|underflow`, a division by zero
//! 22012, where PostgreSQL raises them. Comparisons that must see NaN as
//! PostgreSQL's float8 does (NaN equal to NaN and above everything) use
//! [`f8_lt`] and friends.
//!
//! Layout: this module holds the value types ([`Geometry`] is what
//! `Value::Geo` carries; [`GeoKind`] what `DataType::Geo` names), the
//! fuzzy and checked float helpers and the text and binary I/O;
//! [`algo`] the geometry (distances, intersections, containment, closest
//! points — `geo_ops.c` function by function, under its names); [`catalog`]
//! the SQL surface: the operators (pg_operator's rows for these types,
//! each naming its pg_proc function), the functions by their SQL names
//! with overload resolution, and the casts PostgreSQL defines between
//! them. The binder asks [`catalog::resolve_operator`] for an operator
//! with a geometric operand and [`catalog::resolve`] for a function call;
//! both give an ordinary [`crate::functions::Resolved`] handle.

pub mod algo;
pub mod catalog;

use std::sync::Arc;

use nestor_common::{DbError, SqlState};

use crate::value::Value;

/// Which geometric type (pg_type OIDs in [`GeoKind::oid`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GeoKind {
    Point,
    Lseg,
    Line,
    Box,
    Path,
    Polygon,
    Circle,
}

impl GeoKind {
    pub const ALL: [GeoKind; 7] = [
        GeoKind::Point,
        GeoKind::Lseg,
        GeoKind::Line,
        GeoKind::Box,
        GeoKind::Path,
        GeoKind::Polygon,
        GeoKind::Circle,
    ];

    pub fn name(self) -> &'static str {
        match self {
            GeoKind::Point => "point",
            GeoKind::Lseg => "lseg",
            GeoKind::Line => "line",
            GeoKind::Box => "box",
            GeoKind::Path => "path",
            GeoKind::Polygon => "polygon",
            GeoKind::Circle => "circle",
        }
    }

    pub fn oid(self) -> u32 {
        match self {
            GeoKind::Point => 600,
            GeoKind::Lseg => 601,
            GeoKind::Path => 602,
            GeoKind::Box => 603,
            GeoKind::Polygon => 604,
            GeoKind::Line => 628,
            GeoKind::Circle => 718,
        }
    }

    /// pg_type.typlen: fixed sizes, -1 for the varlena path and polygon.
    pub fn typlen(self) -> i16 {
        match self {
            GeoKind::Point => 16,
            GeoKind::Lseg | GeoKind::Box => 32,
            GeoKind::Line | GeoKind::Circle => 24,
            GeoKind::Path | GeoKind::Polygon => -1,
        }
    }

    pub fn from_oid(oid: u32) -> Option<GeoKind> {
        GeoKind::ALL.into_iter().find(|k| k.oid() == oid)
    }

    pub fn from_name(name: &str) -> Option<GeoKind> {
        GeoKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lseg {
    pub p: [Point; 2],
}

/// `Ax + By + C = 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line {
    pub a: f64,
    pub b: f64,
    pub c: f64,
}

/// A box keeps its upper-right corner first, as PostgreSQL stores it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeoBox {
    pub high: Point,
    pub low: Point,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Path {
    pub closed: bool,
    pub p: Vec<Point>,
}

/// A polygon with its bounding box (computed on input, as PostgreSQL's
/// `make_bound_box`).
#[derive(Clone, Debug, PartialEq)]
pub struct Polygon {
    pub p: Vec<Point>,
    pub bbox: GeoBox,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Circle {
    pub center: Point,
    pub radius: f64,
}

/// One geometric value (`Value::Geo`).
#[derive(Clone, Debug, PartialEq)]
pub enum Geometry {
    Point(Point),
    Lseg(Lseg),
    Line(Line),
    Box(GeoBox),
    Path(Path),
    Polygon(Polygon),
    Circle(Circle),
}

impl Geometry {
    pub fn kind(&self) -> GeoKind {
        match self {
            Geometry::Point(_) => GeoKind::Point,
            Geometry::Lseg(_) => GeoKind::Lseg,
            Geometry::Line(_) => GeoKind::Line,
            Geometry::Box(_) => GeoKind::Box,
            Geometry::Path(_) => GeoKind::Path,
            Geometry::Polygon(_) => GeoKind::Polygon,
            Geometry::Circle(_) => GeoKind::Circle,
        }
    }

    pub fn value(self) -> Value {
        Value::Geo(Arc::new(self))
    }

    /// The coordinates in storage order (for the storage codecs, hashing
    /// and the total order of [`Value`]): a line is A, B, C; a circle the
    /// center then the radius; a box high then low.
    pub fn floats(&self) -> Vec<f64> {
        let pts = |ps: &[Point]| ps.iter().flat_map(|p| [p.x, p.y]).collect::<Vec<_>>();
        match self {
            Geometry::Point(p) => vec![p.x, p.y],
            Geometry::Lseg(l) => pts(&l.p),
            Geometry::Line(l) => vec![l.a, l.b, l.c],
            Geometry::Box(b) => pts(&[b.high, b.low]),
            Geometry::Path(p) => pts(&p.p),
            Geometry::Polygon(p) => pts(&p.p),
            Geometry::Circle(c) => vec![c.center.x, c.center.y, c.radius],
        }
    }

    /// Rebuilds a value of `kind` from [`Geometry::floats`] (and a path's
    /// closed flag); None if the count does not fit the kind.
    pub fn from_floats(kind: GeoKind, closed: bool, f: &[f64]) -> Option<Geometry> {
        let pts = |f: &[f64]| -> Vec<Point> {
            f.chunks_exact(2)
                .map(|c| Point { x: c[0], y: c[1] })
                .collect()
        };
        Some(match (kind, f.len()) {
            (GeoKind::Point, 2) => Geometry::Point(Point { x: f[0], y: f[1] }),
            (GeoKind::Lseg, 4) => {
                let p = pts(f);
                Geometry::Lseg(Lseg { p: [p[0], p[1]] })
            }
            (GeoKind::Line, 3) => Geometry::Line(Line {
                a: f[0],
                b: f[1],
                c: f[2],
            }),
            (GeoKind::Box, 4) => {
                let p = pts(f);
                Geometry::Box(GeoBox {
                    high: p[0],
                    low: p[1],
                })
            }
            (GeoKind::Path, n) if n >= 2 && n % 2 == 0 => {
                Geometry::Path(Path { closed, p: pts(f) })
            }
            (GeoKind::Polygon, n) if n >= 2 && n % 2 == 0 => {
                Geometry::Polygon(Polygon::new(pts(f)))
            }
            (GeoKind::Circle, 3) => Geometry::Circle(Circle {
                center: Point { x: f[0], y: f[1] },
                radius: f[2],
            }),
            _ => return None,
        })
    }

    /// A path's closed flag (false for the other kinds).
    pub fn closed(&self) -> bool {
        matches!(self, Geometry::Path(p) if p.closed)
    }
}

impl Polygon {
    /// A polygon of these (at least one) points, with its bounding box.
    pub fn new(p: Vec<Point>) -> Polygon {
        let bbox = algo::make_bound_box(&p);
        Polygon { p, bbox }
    }
}

// ---------------------------------------------------------------------------
// Fuzzy comparisons (geo_decls.h) and NaN-aware float8 ones (float.h).

pub const EPSILON: f64 = 1.0e-06;

pub fn fp_zero(a: f64) -> bool {
    a.abs() <= EPSILON
}
pub fn fp_eq(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= EPSILON
}
pub fn fp_ne(a: f64, b: f64) -> bool {
    a != b && (a - b).abs() > EPSILON
}
pub fn fp_lt(a: f64, b: f64) -> bool {
    a + EPSILON < b
}
pub fn fp_le(a: f64, b: f64) -> bool {
    a <= b + EPSILON
}
pub fn fp_gt(a: f64, b: f64) -> bool {
    a > b + EPSILON
}
pub fn fp_ge(a: f64, b: f64) -> bool {
    a + EPSILON >= b
}

pub fn f8_eq(a: f64, b: f64) -> bool {
    if a.is_nan() {
        b.is_nan()
    } else {
        !b.is_nan() && a == b
    }
}
pub fn f8_lt(a: f64, b: f64) -> bool {
    !a.is_nan() && (b.is_nan() || a < b)
}
pub fn f8_gt(a: f64, b: f64) -> bool {
    !b.is_nan() && (a.is_nan() || a > b)
}
pub fn f8_min(a: f64, b: f64) -> f64 {
    if f8_lt(a, b) {
        a
    } else {
        b
    }
}
pub fn f8_max(a: f64, b: f64) -> f64 {
    if f8_gt(a, b) {
        a
    } else {
        b
    }
}

/// Checked float8 arithmetic (float.h's float8_pl and friends).
pub type F = Result<f64, DbError>;

pub fn pl(a: f64, b: f64) -> F {
    let r = a + b;
    if r.is_infinite() && !a.is_infinite() && !b.is_infinite() {
        return Err(crate::ops::float_overflow());
    }
    Ok(r)
}
pub fn mi(a: f64, b: f64) -> F {
    let r = a - b;
    if r.is_infinite() && !a.is_infinite() && !b.is_infinite() {
        return Err(crate::ops::float_overflow());
    }
    Ok(r)
}
pub fn mul(a: f64, b: f64) -> F {
    let r = a * b;
    if r.is_infinite() && !a.is_infinite() && !b.is_infinite() {
        return Err(crate::ops::float_overflow());
    }
    if r == 0.0 && a != 0.0 && b != 0.0 {
        return Err(crate::ops::float_underflow());
    }
    Ok(r)
}
pub fn div(a: f64, b: f64) -> F {
    if b == 0.0 && !a.is_nan() {
        return Err(DbError::new(SqlState::DivisionByZero, "division by zero"));
    }
    let r = a / b;
    if r.is_infinite() && !a.is_infinite() {
        return Err(crate::ops::float_overflow());
    }
    if r == 0.0 && a != 0.0 && !b.is_infinite() {
        return Err(crate::ops::float_underflow());
    }
    Ok(r)
}

/// pg_hypot: sqrt(x² + y²) without needless overflow.
pub fn hypot(x: f64, y: f64) -> F {
    if x.is_infinite() || y.is_infinite() {
        return Ok(f64::INFINITY);
    }
    if x.is_nan() || y.is_nan() {
        return Ok(f64::NAN);
    }
    let (mut x, mut y) = (x.abs(), y.abs());
    if x < y {
        std::mem::swap(&mut x, &mut y);
    }
    if y == 0.0 {
        return Ok(x);
    }
    let yx = y / x;
    let r = x * (1.0 + yx * yx).sqrt();
    if r.is_infinite() {
        return Err(crate::ops::float_overflow());
    }
    if r == 0.0 {
        return Err(crate::ops::float_underflow());
    }
    Ok(r)
}

// ---------------------------------------------------------------------------
// Text input (geo_ops.c's pair_decode, path_decode and the *_in functions).

fn syntax(kind: &str, orig: &str) -> DbError {
    DbError::new(
        SqlState::InvalidTextRepresentation,
        format!("invalid input syntax for type {kind}: \"{orig}\""),
    )
}

/// A cursor over the input, as the C code's `char *`.
struct Scan<'a> {
    s: &'a [u8],
    pos: usize,
    kind: &'static str,
    orig: &'a str,
}

impl<'a> Scan<'a> {
    fn new(orig: &'a str, kind: &'static str) -> Scan<'a> {
        Scan {
            s: orig.as_bytes(),
            pos: 0,
            kind,
            orig,
        }
    }
    fn peek(&self) -> u8 {
        self.s.get(self.pos).copied().unwrap_or(0)
    }
    fn at(&self, i: usize) -> u8 {
        self.s.get(i).copied().unwrap_or(0)
    }
    fn skip_space(&mut self) {
        while self.peek().is_ascii_whitespace() {
            self.pos += 1;
        }
    }
    fn err(&self) -> DbError {
        syntax(self.kind, self.orig)
    }
    /// Consumes `c` or fails (`if (*s++ != c) error`: the cursor moves
    /// either way, which only matters for the error).
    fn expect(&mut self, c: u8) -> Result<(), DbError> {
        let got = self.peek();
        self.pos += 1;
        if got == c {
            Ok(())
        } else {
            Err(self.err())
        }
    }
    fn at_end(&self) -> bool {
        self.pos >= self.s.len()
    }

    /// float8in_internal with an end pointer: leading and trailing white
    /// space skipped, strtod's syntax (and NaN / Infinity spellings).
    fn float(&mut self) -> F {
        self.skip_space();
        if self.at_end() {
            return Err(self.err());
        }
        let start = self.pos;
        let end = strtod_end(self.s, start);
        let v = if end == start {
            let rest = &self.s[start..];
            let spelled = [
                ("nan", f64::NAN),
                ("infinity", f64::INFINITY),
                ("+infinity", f64::INFINITY),
                ("-infinity", f64::NEG_INFINITY),
                ("inf", f64::INFINITY),
                ("+inf", f64::INFINITY),
                ("-inf", f64::NEG_INFINITY),
            ];
            let hit = spelled.iter().find(|(w, _)| {
                rest.len() >= w.len() && rest[..w.len()].eq_ignore_ascii_case(w.as_bytes())
            });
            let Some((w, v)) = hit else {
                return Err(self.err());
            };
            self.pos = start + w.len();
            *v
        } else {
            let text = std::str::from_utf8(&self.s[start..end]).map_err(|_| self.err())?;
            let v: f64 = text.parse().map_err(|_| self.err())?;
            let nonzero = text
                .split(['e', 'E'])
                .next()
                .is_some_and(|m| m.bytes().any(|c| (b'1'..=b'9').contains(&c)));
            if v.is_infinite() || (v == 0.0 && nonzero) {
                return Err(DbError::new(
                    SqlState::NumericValueOutOfRange,
                    format!("\"{text}\" is out of range for type double precision"),
                ));
            }
            self.pos = end;
            v
        };
        self.skip_space();
        Ok(v)
    }

    /// pair_decode: `x,y` or `(x,y)`, leaving the cursor after it.
    fn pair(&mut self) -> Result<Point, DbError> {
        self.skip_space();
        let delim = self.peek() == b'(';
        if delim {
            self.pos += 1;
        }
        let x = self.float()?;
        self.expect(b',')?;
        let y = self.float()?;
        if delim {
            self.expect(b')')?;
            self.skip_space();
        }
        Ok(Point { x, y })
    }

    /// path_decode: `npts` pairs, optionally in `(...)` or (when
    /// `opentype`) `[...]`; returns the points and whether `[` opened it.
    fn path(&mut self, opentype: bool, npts: usize) -> Result<(Vec<Point>, bool), DbError> {
        let mut depth = 0;
        self.skip_space();
        let isopen = self.peek() == b'[';
        if isopen {
            if !opentype {
                return Err(self.err());
            }
            depth += 1;
            self.pos += 1;
        } else if self.peek() == b'(' {
            let mut cp = self.pos + 1;
            while self.at(cp).is_ascii_whitespace() {
                cp += 1;
            }
            let last_paren = self.s.iter().rposition(|&c| c == b'(');
            if self.at(cp) == b'(' || last_paren == Some(self.pos) {
                depth += 1;
                self.pos = cp;
            }
        }
        let mut pts = Vec::with_capacity(npts);
        for _ in 0..npts {
            pts.push(self.pair()?);
            if self.peek() == b',' {
                self.pos += 1;
            }
        }
        while depth > 0 {
            let c = self.peek();
            if c == b')' || (c == b']' && isopen && depth == 1) {
                depth -= 1;
                self.pos += 1;
                self.skip_space();
            } else {
                return Err(self.err());
            }
        }
        Ok((pts, isopen))
    }

    fn finish(&self) -> Result<(), DbError> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.err())
        }
    }
}

/// The end of the longest prefix of `s[start..]` strtod reads as a
/// decimal number (sign, digits, point, exponent); `start` if none.
fn strtod_end(s: &[u8], start: usize) -> usize {
    let mut i = start;
    if matches!(s.get(i), Some(b'+' | b'-')) {
        i += 1;
    }
    let mut digits = 0;
    while s.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
        digits += 1;
    }
    if s.get(i) == Some(&b'.') {
        i += 1;
        while s.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
            digits += 1;
        }
    }
    if digits == 0 {
        return start;
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(s.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let exp_start = j;
        while s.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        if j > exp_start {
            i = j;
        }
    }
    i
}

/// pair_count: the number of points the commas announce (-1: odd).
fn pair_count(s: &str) -> i64 {
    let n = s.bytes().filter(|&c| c == b',').count() as i64;
    if n % 2 == 1 {
        (n + 1) / 2
    } else {
        -1
    }
}

/// The type's input function.
pub fn parse(kind: GeoKind, input: &str) -> Result<Geometry, DbError> {
    let name = kind.name();
    Ok(match kind {
        GeoKind::Point => {
            let mut s = Scan::new(input, name);
            let p = s.pair()?;
            s.finish()?;
            Geometry::Point(p)
        }
        GeoKind::Lseg => {
            let mut s = Scan::new(input, name);
            let (p, _) = s.path(true, 2)?;
            s.finish()?;
            Geometry::Lseg(Lseg { p: [p[0], p[1]] })
        }
        GeoKind::Box => {
            let mut s = Scan::new(input, name);
            let (p, _) = s.path(false, 2)?;
            s.finish()?;
            Geometry::Box(normalize_box(p[0], p[1]))
        }
        GeoKind::Line => Geometry::Line(parse_line(input)?),
        GeoKind::Path => Geometry::Path(parse_path(input)?),
        GeoKind::Polygon => {
            let n = pair_count(input);
            if n <= 0 {
                return Err(syntax(name, input));
            }
            let mut s = Scan::new(input, name);
            let (p, _) = s.path(false, n as usize)?;
            s.finish()?;
            Geometry::Polygon(Polygon::new(p))
        }
        GeoKind::Circle => Geometry::Circle(parse_circle(input)?),
    })
}

/// box_in / box_recv: the corners swapped into high and low.
fn normalize_box(a: Point, b: Point) -> GeoBox {
    let mut bx = GeoBox { high: a, low: b };
    if f8_lt(bx.high.x, bx.low.x) {
        std::mem::swap(&mut bx.high.x, &mut bx.low.x);
    }
    if f8_lt(bx.high.y, bx.low.y) {
        std::mem::swap(&mut bx.high.y, &mut bx.low.y);
    }
    bx
}

fn parse_line(input: &str) -> Result<Line, DbError> {
    let mut s = Scan::new(input, "line");
    s.skip_space();
    if s.peek() == b'{' {
        s.pos += 1;
        let a = s.float()?;
        s.expect(b',')?;
        let b = s.float()?;
        s.expect(b',')?;
        let c = s.float()?;
        s.expect(b'}')?;
        s.skip_space();
        s.finish()?;
        if fp_zero(a) && fp_zero(b) {
            return Err(DbError::new(
                SqlState::InvalidTextRepresentation,
                "invalid line specification: A and B cannot both be zero",
            ));
        }
        return Ok(Line { a, b, c });
    }
    let (p, _) = s.path(true, 2)?;
    s.finish()?;
    if algo::point_eq_point(&p[0], &p[1]) {
        return Err(DbError::new(
            SqlState::InvalidTextRepresentation,
            "invalid line specification: must be two distinct points",
        ));
    }
    algo::line_construct(&p[0], algo::point_sl(&p[0], &p[1])?)
}

fn parse_path(input: &str) -> Result<Path, DbError> {
    let n = pair_count(input);
    if n <= 0 {
        return Err(syntax("path", input));
    }
    let mut s = Scan::new(input, "path");
    s.skip_space();
    let mut depth = 0;
    if s.peek() == b'(' && input.rfind('(') == Some(s.pos) {
        s.pos += 1;
        depth += 1;
    }
    let (p, isopen) = s.path(true, n as usize)?;
    if depth >= 1 {
        s.expect(b')')?;
        s.skip_space();
    }
    s.finish()?;
    Ok(Path { closed: !isopen, p })
}

fn parse_circle(input: &str) -> Result<Circle, DbError> {
    let mut s = Scan::new(input, "circle");
    s.skip_space();
    let mut depth = 0;
    if s.peek() == b'<' {
        depth += 1;
        s.pos += 1;
    } else if s.peek() == b'(' {
        let mut cp = s.pos + 1;
        while s.at(cp).is_ascii_whitespace() {
            cp += 1;
        }
        if s.at(cp) == b'(' {
            depth += 1;
            s.pos = cp;
        }
    }
    let center = s.pair()?;
    if s.peek() == b',' {
        s.pos += 1;
    }
    let radius = s.float()?;
    if radius < 0.0 {
        return Err(s.err());
    }
    while depth > 0 {
        let c = s.peek();
        if c == b')' || (c == b'>' && depth == 1) {
            depth -= 1;
            s.pos += 1;
            s.skip_space();
        } else {
            return Err(s.err());
        }
    }
    s.finish()?;
    Ok(Circle { center, radius })
}

// ---------------------------------------------------------------------------
// Text output (path_encode and the *_out functions).

/// float8out_internal under the session's extra_float_digits.
fn num(v: f64, extra_float_digits: i32) -> String {
    if extra_float_digits > 0 {
        crate::float::format_f64(v)
    } else {
        crate::float::format_digits(v, 15 + extra_float_digits)
    }
}

fn points_text(p: &[Point], efd: i32, out: &mut String) {
    for (i, pt) in p.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('(');
        out.push_str(&num(pt.x, efd));
        out.push(',');
        out.push_str(&num(pt.y, efd));
        out.push(')');
    }
}

impl Geometry {
    /// The type's output function.
    pub fn to_text(&self, efd: i32) -> String {
        let mut s = String::new();
        match self {
            Geometry::Point(p) => points_text(&[*p], efd, &mut s),
            Geometry::Lseg(l) => {
                s.push('[');
                points_text(&l.p, efd, &mut s);
                s.push(']');
            }
            Geometry::Line(l) => {
                s = format!("{{{},{},{}}}", num(l.a, efd), num(l.b, efd), num(l.c, efd));
            }
            Geometry::Box(b) => points_text(&[b.high, b.low], efd, &mut s),
            Geometry::Path(p) => {
                s.push(if p.closed { '(' } else { '[' });
                points_text(&p.p, efd, &mut s);
                s.push(if p.closed { ')' } else { ']' });
            }
            Geometry::Polygon(p) => {
                s.push('(');
                points_text(&p.p, efd, &mut s);
                s.push(')');
            }
            Geometry::Circle(c) => {
                s.push('<');
                points_text(&[c.center], efd, &mut s);
                s.push(',');
                s.push_str(&num(c.radius, efd));
                s.push('>');
            }
        }
        s
    }

    /// The type's send function.
    pub fn to_binary(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            Geometry::Path(p) => {
                out.push(p.closed as u8);
                out.extend_from_slice(&(p.p.len() as i32).to_be_bytes());
            }
            Geometry::Polygon(p) => out.extend_from_slice(&(p.p.len() as i32).to_be_bytes()),
            _ => {}
        }
        for f in self.floats() {
            out.extend_from_slice(&f.to_be_bytes());
        }
        out
    }
}

/// A value from the binary form as stored (rows, spill files): like
/// [`parse_binary`] but without its normalisation and checks, so a value
/// comes back exactly as it was written (a box assigned corner by corner
/// keeps its corners in place, as PostgreSQL stores it).
pub fn decode_stored(kind: GeoKind, buf: &[u8]) -> Result<Geometry, DbError> {
    parse_binary_raw(kind, buf)
}

fn binary_err(msg: &str) -> DbError {
    DbError::new(SqlState::InvalidBinaryRepresentation, msg)
}

/// The type's receive function.
pub fn parse_binary(kind: GeoKind, buf: &[u8]) -> Result<Geometry, DbError> {
    Ok(match parse_binary_raw(kind, buf)? {
        Geometry::Box(b) => Geometry::Box(normalize_box(b.high, b.low)),
        Geometry::Line(l) if fp_zero(l.a) && fp_zero(l.b) => {
            return Err(binary_err(
                "invalid line specification: A and B cannot both be zero",
            ))
        }
        Geometry::Circle(c) if c.radius < 0.0 => {
            return Err(binary_err("invalid radius in external \"circle\" value"))
        }
        g => g,
    })
}

/// The binary layout read as it is.
fn parse_binary_raw(kind: GeoKind, buf: &[u8]) -> Result<Geometry, DbError> {
    let short = || binary_err("insufficient data left in message");
    let mut rest = buf;
    let mut closed = false;
    let count = |rest: &mut &[u8], what: &str| -> Result<usize, DbError> {
        let b: [u8; 4] = rest
            .get(..4)
            .ok_or_else(short)?
            .try_into()
            .map_err(|_| short())?;
        *rest = &rest[4..];
        let n = i32::from_be_bytes(b);
        let max = (i32::MAX as usize - 24) / 16;
        if n <= 0 || n as usize >= max {
            return Err(binary_err(&format!(
                "invalid number of points in external \"{what}\" value"
            )));
        }
        Ok(n as usize)
    };
    let n = match kind {
        GeoKind::Point => 2,
        GeoKind::Lseg | GeoKind::Box => 4,
        GeoKind::Line | GeoKind::Circle => 3,
        GeoKind::Path => {
            closed = *rest.first().ok_or_else(short)? != 0;
            rest = &rest[1..];
            2 * count(&mut rest, "path")?
        }
        GeoKind::Polygon => 2 * count(&mut rest, "polygon")?,
    };
    if rest.len() < n * 8 {
        return Err(short());
    }
    if rest.len() > n * 8 {
        return Err(binary_err("incorrect binary data format"));
    }
    let f: Vec<f64> = rest
        .chunks_exact(8)
        .map(|c| f64::from_be_bytes(c.try_into().unwrap_or([0; 8])))
        .collect();
    Geometry::from_floats(kind, closed, &f).ok_or_else(short)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rt(kind: GeoKind, input: &str) -> String {
        parse(kind, input).unwrap().to_text(1)
    }

    #[test]
    fn text_round_trips_as_postgresql_prints() {
        assert_eq!(rt(GeoKind::Point, " ( 1 , 2.5 ) "), "(1,2.5)");
        assert_eq!(rt(GeoKind::Point, "1e300,-inf"), "(1e+300,-Infinity)");
        assert_eq!(rt(GeoKind::Box, "(0,0),(1,1)"), "(1,1),(0,0)");
        assert_eq!(rt(GeoKind::Box, "0,1,2,3"), "(2,3),(0,1)");
        assert_eq!(rt(GeoKind::Lseg, "(1,2),(3,4)"), "[(1,2),(3,4)]");
        assert_eq!(rt(GeoKind::Path, "[(1,2),(3,4)]"), "[(1,2),(3,4)]");
        assert_eq!(rt(GeoKind::Path, "(1,2),(3,4)"), "((1,2),(3,4))");
        assert_eq!(rt(GeoKind::Path, "1,2,3,4"), "((1,2),(3,4))");
        assert_eq!(rt(GeoKind::Polygon, "(0,0,1,1)"), "((0,0),(1,1))");
        assert_eq!(rt(GeoKind::Circle, "<(1,2),3>"), "<(1,2),3>");
        assert_eq!(rt(GeoKind::Circle, "((1,2),3)"), "<(1,2),3>");
        assert_eq!(rt(GeoKind::Circle, "1,2,3"), "<(1,2),3>");
        assert_eq!(rt(GeoKind::Line, "{1,2,3}"), "{1,2,3}");
        assert_eq!(rt(GeoKind::Line, "[(0,0),(1,1)]"), "{1,-1,0}");
    }

    #[test]
    fn bad_input_is_postgresqls_error() {
        let err = |k, s| parse(k, s).unwrap_err();
        let e = err(GeoKind::Point, "(10.0 10.0)");
        assert_eq!(e.code, SqlState::InvalidTextRepresentation);
        assert_eq!(
            e.message,
            "invalid input syntax for type point: \"(10.0 10.0)\""
        );
        assert_eq!(
            err(GeoKind::Point, "1e+500,1").message,
            "\"1e+500\" is out of range for type double precision"
        );
        assert!(parse(GeoKind::Box, "[1, 2, 3, 4)").is_err());
        assert!(parse(GeoKind::Path, "[]").is_err());
        assert!(parse(GeoKind::Circle, "<(1,2),-1>").is_err());
        assert_eq!(
            err(GeoKind::Line, "{0,0,1}").message,
            "invalid line specification: A and B cannot both be zero"
        );
    }

    #[test]
    fn binary_round_trips() {
        for (k, s) in [
            (GeoKind::Point, "(1,2)"),
            (GeoKind::Path, "[(1,2),(3,4)]"),
            (GeoKind::Polygon, "(1,2),(3,4),(5,6)"),
            (GeoKind::Circle, "<(1,2),3>"),
        ] {
            let g = parse(k, s).unwrap();
            assert_eq!(parse_binary(k, &g.to_binary()).unwrap(), g);
        }
    }
}
