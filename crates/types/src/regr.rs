//! The SQL:2003 binary aggregates (regr_count, regr_sxx, regr_syy,
//! regr_sxy, regr_avgx, regr_avgy, regr_r2, regr_slope, regr_intercept,
//! covar_pop, covar_samp, corr) and the float8 transition functions
//! PostgreSQL lets SQL call directly (float8_accum, float8_regr_accum,
//! float8_combine, float8_regr_combine), computed as PostgreSQL 15's
//! float.c computes them so results agree to the last bit.
//!
//! Each aggregate takes `(Y, X)` — the dependent variable first — as
//! float8, skips rows where either is NULL, and keeps Youngs and Cramer's
//! running sums in float8:
//!
//! ```text
//!   N, Sx, Sxx = Σ(x − Sx/N)², Sy, Syy = Σ(y − Sy/N)², Sxy = Σ(x − Sx/N)(y − Sy/N)
//! ```
//!
//! updated per row without the cancellation of the naive Σx² − (Σx)²/N:
//! with `t = x·N − Sx` (after adding x), `Sxx += t² / (N·(N−1))`, and the
//! same for y and the cross product. Finite inputs whose sums overflow
//! give 22003 "value out of range: overflow"; once an input is infinite
//! or NaN the affected sums become NaN (an infinite Sx stays infinite).
//!
//! As SQL values the states are PostgreSQL's transition arrays:
//! `{N, Sx, Sxx}` for one variable ([`FloatMoments`], also var_pop and
//! friends over floats) and `{N, Sx, Sxx, Sy, Syy, Sxy}` for two. The
//! `*_combine` functions merge two states (Chan, Golub and LeVeque's
//! pairwise update), as a parallel aggregate's partial results would be.

use nestor_common::{DbError, SqlState};

use crate::array::Array;
use crate::context::EvalCtx;
use crate::datatype::DataType;
use crate::functions::{no_function, passes_as, Imp, Resolved};
use crate::moments::FloatMoments;
use crate::ops::float_overflow;
use crate::value::Value;

/// Which binary aggregate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegrAgg {
    Count,
    Sxx,
    Syy,
    Sxy,
    AvgX,
    AvgY,
    R2,
    Slope,
    Intercept,
    CovarPop,
    CovarSamp,
    Corr,
}

impl RegrAgg {
    /// The aggregate a function name calls, if any.
    pub fn by_name(name: &str) -> Option<RegrAgg> {
        Some(match name {
            "regr_count" => RegrAgg::Count,
            "regr_sxx" => RegrAgg::Sxx,
            "regr_syy" => RegrAgg::Syy,
            "regr_sxy" => RegrAgg::Sxy,
            "regr_avgx" => RegrAgg::AvgX,
            "regr_avgy" => RegrAgg::AvgY,
            "regr_r2" => RegrAgg::R2,
            "regr_slope" => RegrAgg::Slope,
            "regr_intercept" => RegrAgg::Intercept,
            "covar_pop" => RegrAgg::CovarPop,
            "covar_samp" => RegrAgg::CovarSamp,
            "corr" => RegrAgg::Corr,
            _ => return None,
        })
    }

    /// The function's name.
    pub fn name(self) -> &'static str {
        match self {
            RegrAgg::Count => "regr_count",
            RegrAgg::Sxx => "regr_sxx",
            RegrAgg::Syy => "regr_syy",
            RegrAgg::Sxy => "regr_sxy",
            RegrAgg::AvgX => "regr_avgx",
            RegrAgg::AvgY => "regr_avgy",
            RegrAgg::R2 => "regr_r2",
            RegrAgg::Slope => "regr_slope",
            RegrAgg::Intercept => "regr_intercept",
            RegrAgg::CovarPop => "covar_pop",
            RegrAgg::CovarSamp => "covar_samp",
            RegrAgg::Corr => "corr",
        }
    }

    /// regr_count is a bigint, the others double precision.
    pub fn result_type(self) -> DataType {
        match self {
            RegrAgg::Count => DataType::Int8,
            _ => DataType::Float8,
        }
    }
}

/// The running sums of `(Y, X)` pairs (see the module header).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RegrMoments {
    n: f64,
    sx: f64,
    sxx: f64,
    sy: f64,
    syy: f64,
    sxy: f64,
}

impl RegrMoments {
    /// float8_regr_accum: one more pair, `y` first.
    pub fn add(&mut self, y: f64, x: f64) -> Result<(), DbError> {
        let before = *self;
        self.n += 1.0;
        self.sx += x;
        self.sy += y;
        if before.n > 0.0 {
            let tx = x * self.n - self.sx;
            let ty = y * self.n - self.sy;
            let scale = 1.0 / (self.n * before.n);
            self.sxx += tx * tx * scale;
            self.syy += ty * ty * scale;
            self.sxy += tx * ty * scale;
            self.after_overflow(&before, x, y)?;
        } else {
            // A first infinite or NaN input leaves its sums NaN at once.
            if !x.is_finite() {
                self.sxx = f64::NAN;
                self.sxy = f64::NAN;
            }
            if !y.is_finite() {
                self.syy = f64::NAN;
                self.sxy = f64::NAN;
            }
        }
        Ok(())
    }

    /// An infinite sum after adding `(y, x)` to `before`: an overflow
    /// error when the inputs that fed it were finite, else NaN.
    fn after_overflow(&mut self, before: &RegrMoments, x: f64, y: f64) -> Result<(), DbError> {
        let inf = f64::is_infinite;
        if !(inf(self.sx) || inf(self.sxx) || inf(self.sy) || inf(self.syy) || inf(self.sxy)) {
            return Ok(());
        }
        let x_finite = !inf(before.sx) && !inf(x);
        let y_finite = !inf(before.sy) && !inf(y);
        if ((inf(self.sx) || inf(self.sxx)) && x_finite)
            || ((inf(self.sy) || inf(self.syy)) && y_finite)
            || (inf(self.sxy) && x_finite && y_finite)
        {
            return Err(float_overflow());
        }
        for s in [&mut self.sxx, &mut self.syy, &mut self.sxy] {
            if inf(*s) {
                *s = f64::NAN;
            }
        }
        Ok(())
    }

    /// float8_regr_combine: the sums of both sets of pairs.
    pub fn combine(&self, o: &RegrMoments) -> Result<RegrMoments, DbError> {
        if self.n == 0.0 {
            return Ok(*o);
        }
        if o.n == 0.0 {
            return Ok(*self);
        }
        let n = self.n + o.n;
        let dx = self.sx / self.n - o.sx / o.n;
        let dy = self.sy / self.n - o.sy / o.n;
        let weight = self.n * o.n;
        let merged = |a: f64, b: f64, d: f64| -> Result<f64, DbError> {
            let s = a + b + weight * d / n;
            if s.is_infinite() && !a.is_infinite() && !b.is_infinite() {
                return Err(float_overflow());
            }
            Ok(s)
        };
        Ok(RegrMoments {
            n,
            sx: float_add(self.sx, o.sx)?,
            sxx: merged(self.sxx, o.sxx, dx * dx)?,
            sy: float_add(self.sy, o.sy)?,
            syy: merged(self.syy, o.syy, dy * dy)?,
            sxy: merged(self.sxy, o.sxy, dx * dy)?,
        })
    }

    /// The number of pairs (regr_count).
    pub fn count(&self) -> i64 {
        self.n as i64
    }

    /// The aggregate's result; None (NULL) without enough pairs or where
    /// PostgreSQL's final function gives NULL (a vertical line for the
    /// slope, a horizontal or vertical one for corr).
    pub fn finish(&self, agg: RegrAgg) -> Option<f64> {
        let RegrMoments {
            n,
            sx,
            sxx,
            sy,
            syy,
            sxy,
        } = *self;
        if n < 1.0 || (agg == RegrAgg::CovarSamp && n < 2.0) {
            return None;
        }
        Some(match agg {
            RegrAgg::Count => n,
            RegrAgg::Sxx => sxx,
            RegrAgg::Syy => syy,
            RegrAgg::Sxy => sxy,
            RegrAgg::AvgX => sx / n,
            RegrAgg::AvgY => sy / n,
            RegrAgg::CovarPop => sxy / n,
            RegrAgg::CovarSamp => sxy / (n - 1.0),
            RegrAgg::Corr if sxx == 0.0 || syy == 0.0 => return None,
            RegrAgg::Corr => sxy / (sxx * syy).sqrt(),
            RegrAgg::R2 | RegrAgg::Slope | RegrAgg::Intercept if sxx == 0.0 => return None,
            // A horizontal line fits exactly.
            RegrAgg::R2 if syy == 0.0 => 1.0,
            RegrAgg::R2 => (sxy * sxy) / (sxx * syy),
            RegrAgg::Slope => sxy / sxx,
            RegrAgg::Intercept => (sy - sx * sxy / sxx) / n,
        })
    }

    /// The state as PostgreSQL's array `{N, Sx, Sxx, Sy, Syy, Sxy}`.
    pub fn to_value(&self) -> Value {
        float8_array(&[self.n, self.sx, self.sxx, self.sy, self.syy, self.sxy])
    }

    /// A state given as a float8 array (`func` names the function for
    /// the error about any other shape).
    pub fn from_value(v: &Value, func: &str) -> Result<RegrMoments, DbError> {
        let [n, sx, sxx, sy, syy, sxy] = float8_items::<6>(v, func)?;
        Ok(RegrMoments {
            n,
            sx,
            sxx,
            sy,
            syy,
            sxy,
        })
    }
}

/// float8_pl: a sum that is infinite only because an addend is.
pub(crate) fn float_add(a: f64, b: f64) -> Result<f64, DbError> {
    let s = a + b;
    if s.is_infinite() && !a.is_infinite() && !b.is_infinite() {
        return Err(float_overflow());
    }
    Ok(s)
}

/// A one-dimensional float8 array of `items` (lower bound 1).
pub(crate) fn float8_array(items: &[f64]) -> Value {
    let items = items.iter().map(|x| Value::Float8(*x)).collect();
    Array::from_items(DataType::Float8, items).value()
}

/// check_float8_array: the `N` elements of a one-dimensional float8
/// array without NULLs (any lower bound), else XX000 as PostgreSQL's.
pub(crate) fn float8_items<const N: usize>(v: &Value, func: &str) -> Result<[f64; N], DbError> {
    let bad = || {
        DbError::new(
            SqlState::InternalError,
            format!("{func}: expected {N}-element float8 array"),
        )
    };
    let Value::Array(a) = v else {
        return Err(bad());
    };
    if a.dims.len() != 1 || a.items.len() != N {
        return Err(bad());
    }
    let mut out = [0.0; N];
    for (slot, item) in out.iter_mut().zip(&a.items) {
        *slot = match item {
            Value::Float8(x) => *x,
            Value::Float4(x) => *x as f64,
            _ => return Err(bad()),
        };
    }
    Ok(out)
}

/// The transition functions callable from SQL.
pub(crate) const NAMES: &[&str] = &[
    "float8_accum",
    "float8_regr_accum",
    "float8_combine",
    "float8_regr_combine",
];

pub(crate) fn resolve(name: &str, args: &[DataType]) -> Option<Result<Resolved, DbError>> {
    if !NAMES.contains(&name) {
        return None;
    }
    let f8 = DataType::Float8;
    let arr = DataType::Array(&DataType::Float8);
    let want: &[DataType] = match name {
        "float8_accum" => &[arr, f8],
        "float8_regr_accum" => &[arr, f8, f8],
        _ => &[arr, arr],
    };
    let fits = args.len() == want.len() && args.iter().zip(want).all(|(a, w)| passes_as(*a, *w));
    if !fits {
        return Some(Err(no_function(name, args)));
    }
    let imp: Imp = match name {
        "float8_accum" => float8_accum,
        "float8_regr_accum" => float8_regr_accum,
        "float8_combine" => float8_combine,
        _ => float8_regr_combine,
    };
    Some(Ok(Resolved::listed(
        NAMES,
        name,
        imp,
        want.to_vec(),
        arr,
        false,
    )))
}

fn float8_arg(v: &Value) -> f64 {
    match v {
        Value::Float8(x) => *x,
        Value::Float4(x) => *x as f64,
        _ => f64::NAN,
    }
}

fn float8_accum(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if a.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let mut m = FloatMoments::from_value(&a[0], "float8_accum")?;
    m.add(float8_arg(&a[1]))?;
    Ok(m.to_value())
}

fn float8_regr_accum(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if a.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let mut m = RegrMoments::from_value(&a[0], "float8_regr_accum")?;
    m.add(float8_arg(&a[1]), float8_arg(&a[2]))?;
    Ok(m.to_value())
}

fn float8_combine(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if a.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let x = FloatMoments::from_value(&a[0], "float8_combine")?;
    let y = FloatMoments::from_value(&a[1], "float8_combine")?;
    Ok(x.combine(&y)?.to_value())
}

fn float8_regr_combine(a: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    if a.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    let x = RegrMoments::from_value(&a[0], "float8_regr_combine")?;
    let y = RegrMoments::from_value(&a[1], "float8_regr_combine")?;
    Ok(x.combine(&y)?.to_value())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sums(pairs: &[(f64, f64)]) -> Result<RegrMoments, DbError> {
        let mut m = RegrMoments::default();
        for (y, x) in pairs {
            m.add(*y, *x)?;
        }
        Ok(m)
    }

    #[test]
    fn results_match_postgres() {
        // SELECT corr(y,x), regr_r2(y,x), regr_slope(y,x),
        //   regr_intercept(y,x), covar_samp(y,x) FROM (VALUES (1.1,5.3),
        //   (2.7,6.1), (3.3,17.2), (4.9,-2.5)) v(x,y);  -- PostgreSQL 15
        let m = sums(&[(5.3, 1.1), (6.1, 2.7), (17.2, 3.3), (-2.5, 4.9)]).unwrap();
        assert_eq!(m.finish(RegrAgg::Corr), Some(-0.3008670504918898));
        assert_eq!(m.finish(RegrAgg::R2), Some(0.09052098207168935));
        assert_eq!(m.finish(RegrAgg::Slope), Some(-1.5527027027027034));
        assert_eq!(m.finish(RegrAgg::Intercept), Some(11.183108108108108));
        assert_eq!(m.finish(RegrAgg::CovarSamp), Some(-3.830000000000002));
        assert_eq!(m.finish(RegrAgg::Count), Some(4.0));
    }

    #[test]
    fn lines_and_small_sets() {
        let flat = sums(&[(5.0, 1.0), (5.0, 2.0), (5.0, 3.0)]).unwrap();
        assert_eq!(flat.finish(RegrAgg::Corr), None);
        assert_eq!(flat.finish(RegrAgg::R2), Some(1.0));
        assert_eq!(flat.finish(RegrAgg::Slope), Some(0.0));
        let vertical = sums(&[(5.0, 1.0), (6.0, 1.0)]).unwrap();
        assert_eq!(vertical.finish(RegrAgg::Slope), None);
        let one = sums(&[(3.0, 4.0)]).unwrap();
        assert_eq!(one.finish(RegrAgg::CovarPop), Some(0.0));
        assert_eq!(one.finish(RegrAgg::CovarSamp), None);
        assert_eq!(RegrMoments::default().finish(RegrAgg::Sxx), None);
    }

    #[test]
    fn infinities_and_overflow() {
        // float8_regr_accum('{0,0,0,0,0,0}', 'inf', 1) = {1,1,0,Infinity,NaN,NaN}
        let m = sums(&[(f64::INFINITY, 1.0)]).unwrap();
        assert_eq!((m.n, m.sx, m.sxx, m.sy), (1.0, 1.0, 0.0, f64::INFINITY));
        assert!(m.syy.is_nan() && m.sxy.is_nan());
        let err = sums(&[(1.0, 1e308), (1.0, 1e308)]).unwrap_err();
        assert_eq!(err.code, SqlState::NumericValueOutOfRange);
    }

    #[test]
    fn combine_matches_postgres() {
        // float8_regr_combine('{1,2,0,3,0,0}', '{2,2,1,3,1,-1}')
        //   = {3,4,1.6666666666666665,6,2.5,0}
        let a = RegrMoments::from_value(&float8_array(&[1., 2., 0., 3., 0., 0.]), "f").unwrap();
        let b = RegrMoments::from_value(&float8_array(&[2., 2., 1., 3., 1., -1.]), "f").unwrap();
        let c = a.combine(&b).unwrap();
        assert_eq!(c.sxx, 1.6666666666666665);
        assert_eq!((c.n, c.sx, c.sy, c.syy, c.sxy), (3.0, 4.0, 6.0, 2.5, 0.0));
        let short = float8_array(&[1., 2.]);
        let err = RegrMoments::from_value(&short, "float8_regr_combine").unwrap_err();
        assert_eq!(err.code, SqlState::InternalError);
    }
}
