//! The statistical aggregates var_pop, var_samp (variance), stddev_pop and
//! stddev_samp (stddev), computed as PostgreSQL computes them, so results
//! agree to the last digit.
//!
//! Two accumulators, chosen by the argument's type:
//!
//! - integers and numeric: [`NumericMoments`], exact sums of x and x² as
//!   numeric (PostgreSQL's accum_sum), finished by numeric_stddev_internal:
//!
//!   ```text
//!   var = (N·Σx² − (Σx)²) / (N·(N−1))    (or N·N for the population form)
//!   ```
//!
//!   the numerator at twice Σx's scale, the quotient at division's scale
//!   (select_div_scale), the square root rounded to that same scale; a
//!   numerator ≤ 0 (only by rounding) gives 0. NaN or an infinity among
//!   the inputs gives NaN.
//! - float4 and float8: [`FloatMoments`], Youngs and Cramer's updates of
//!   (N, Σx, Sxx) in float8 (float8_accum), with 22003 when finite inputs
//!   overflow and NaN once an input is infinite or NaN.
//!
//! Either way the result is NULL without rows, and for the sample forms
//! with a single row. The float state is also PostgreSQL's transition
//! array `{N, Sx, Sxx}` for float8_accum and float8_combine, called from
//! SQL (`crate::regr`).

use nestor_common::{DbError, SqlState};

use crate::numeric::Numeric;

/// Which of the four aggregates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MomentAgg {
    VarPop,
    VarSamp,
    StddevPop,
    StddevSamp,
}

impl MomentAgg {
    /// The aggregate a function name calls, if any.
    pub fn by_name(name: &str) -> Option<MomentAgg> {
        Some(match name {
            "var_pop" => MomentAgg::VarPop,
            "var_samp" | "variance" => MomentAgg::VarSamp,
            "stddev_pop" => MomentAgg::StddevPop,
            "stddev_samp" | "stddev" => MomentAgg::StddevSamp,
            _ => return None,
        })
    }

    fn sample(self) -> bool {
        matches!(self, MomentAgg::VarSamp | MomentAgg::StddevSamp)
    }

    fn stddev(self) -> bool {
        matches!(self, MomentAgg::StddevPop | MomentAgg::StddevSamp)
    }

    /// No result (NULL) for `n` rows.
    fn undefined(self, n: i64) -> bool {
        n == 0 || (self.sample() && n <= 1)
    }
}

/// Exact sums for integer and numeric arguments.
#[derive(Clone, Debug)]
pub struct NumericMoments {
    /// Finite inputs.
    n: i64,
    sum: Numeric,
    sum_sq: Numeric,
    /// NaN and infinite inputs.
    special: i64,
}

impl Default for NumericMoments {
    fn default() -> NumericMoments {
        NumericMoments {
            n: 0,
            sum: Numeric::zero(),
            sum_sq: Numeric::zero(),
            special: 0,
        }
    }
}

impl NumericMoments {
    pub fn add(&mut self, x: &Numeric) -> Result<(), DbError> {
        if !x.is_finite() {
            self.special += 1;
            return Ok(());
        }
        self.n += 1;
        self.sum = self.sum.add(x)?;
        self.sum_sq = self.sum_sq.add(&x.mul(x)?)?;
        Ok(())
    }

    pub fn finish(&self, agg: MomentAgg) -> Result<Option<Numeric>, DbError> {
        if agg.undefined(self.n + self.special) {
            return Ok(None);
        }
        if self.special > 0 {
            return Ok(Some(Numeric::nan()));
        }
        let n = Numeric::from_i64(self.n);
        let numerator = n.mul(&self.sum_sq)?.sub(&self.sum.mul(&self.sum)?)?;
        if numerator.signum() <= 0 {
            return Ok(Some(Numeric::zero()));
        }
        let other = if agg.sample() { self.n - 1 } else { self.n };
        let denominator = n.mul(&Numeric::from_i64(other))?;
        let var = numerator.div(&denominator)?;
        if !agg.stddev() {
            return Ok(Some(var));
        }
        var.sqrt_at(var.scale()).map(Some)
    }
}

/// Youngs-Cramer sums for float arguments.
#[derive(Clone, Copy, Debug, Default)]
pub struct FloatMoments {
    n: f64,
    sum: f64,
    sxx: f64,
}

impl FloatMoments {
    pub fn add(&mut self, x: f64) -> Result<(), DbError> {
        let before = self.n;
        self.n += 1.0;
        let sum_before = self.sum;
        self.sum += x;
        if before > 0.0 {
            let t = x * self.n - self.sum;
            self.sxx += t * t / (self.n * before);
            if self.sum.is_infinite() || self.sxx.is_infinite() {
                if !sum_before.is_infinite() && !x.is_infinite() {
                    return Err(DbError::new(
                        SqlState::NumericValueOutOfRange,
                        "value out of range: overflow",
                    ));
                }
                self.sxx = f64::NAN;
            }
        } else if !x.is_finite() {
            self.sxx = f64::NAN;
        }
        Ok(())
    }

    /// float8_combine: the sums of both sets of values.
    pub fn combine(&self, o: &FloatMoments) -> Result<FloatMoments, DbError> {
        if self.n == 0.0 {
            return Ok(*o);
        }
        if o.n == 0.0 {
            return Ok(*self);
        }
        let n = self.n + o.n;
        let d = self.sum / self.n - o.sum / o.n;
        let sxx = self.sxx + o.sxx + self.n * o.n * d * d / n;
        if sxx.is_infinite() && !self.sxx.is_infinite() && !o.sxx.is_infinite() {
            return Err(crate::ops::float_overflow());
        }
        Ok(FloatMoments {
            n,
            sum: crate::regr::float_add(self.sum, o.sum)?,
            sxx,
        })
    }

    /// The state as PostgreSQL's array `{N, Sx, Sxx}`.
    pub fn to_value(&self) -> crate::Value {
        crate::regr::float8_array(&[self.n, self.sum, self.sxx])
    }

    /// A state given as a float8 array (`func` names the function for
    /// the error about any other shape).
    pub fn from_value(v: &crate::Value, func: &str) -> Result<FloatMoments, DbError> {
        let [n, sum, sxx] = crate::regr::float8_items::<3>(v, func)?;
        Ok(FloatMoments { n, sum, sxx })
    }

    pub fn finish(&self, agg: MomentAgg) -> Option<f64> {
        if agg.undefined(self.n as i64) {
            return None;
        }
        let var = self.sxx / if agg.sample() { self.n - 1.0 } else { self.n };
        Some(if agg.stddev() { var.sqrt() } else { var })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numeric(agg: MomentAgg, xs: &[&str]) -> Option<String> {
        let mut m = NumericMoments::default();
        for x in xs {
            m.add(&Numeric::parse(x).unwrap()).unwrap();
        }
        m.finish(agg).unwrap().map(|v| v.to_string())
    }

    #[test]
    fn numeric_results_have_postgres_digits() {
        // SELECT var_pop(x), var_samp(x), stddev_pop(x), stddev_samp(x)
        //   FROM (VALUES (1), (2), (4)) v(x);  -- PostgreSQL 15
        let xs = ["1", "2", "4"];
        assert_eq!(
            numeric(MomentAgg::VarPop, &xs).unwrap(),
            "1.5555555555555556"
        );
        assert_eq!(
            numeric(MomentAgg::VarSamp, &xs).unwrap(),
            "2.3333333333333333"
        );
        assert_eq!(
            numeric(MomentAgg::StddevPop, &xs).unwrap(),
            "1.2472191289246471"
        );
        assert_eq!(
            numeric(MomentAgg::StddevSamp, &xs).unwrap(),
            "1.5275252316519467"
        );
        let xs = ["1.50", "2.25", "3.125"];
        assert_eq!(
            numeric(MomentAgg::VarSamp, &xs).unwrap(),
            "0.66145833333333333333"
        );
        assert_eq!(
            numeric(MomentAgg::StddevSamp, &xs).unwrap(),
            "0.81330088733096395985"
        );
        assert_eq!(numeric(MomentAgg::VarSamp, &["7"]), None);
        assert_eq!(numeric(MomentAgg::VarPop, &["7"]).unwrap(), "0");
        assert_eq!(numeric(MomentAgg::VarPop, &[]), None);
        assert_eq!(numeric(MomentAgg::VarPop, &["1", "NaN"]).unwrap(), "NaN");
    }

    #[test]
    fn float_results_follow_youngs_cramer() {
        let mut m = FloatMoments::default();
        for x in [1.0, 2.0, 4.0] {
            m.add(x).unwrap();
        }
        assert_eq!(m.finish(MomentAgg::VarSamp), Some(7.0 / 3.0));
        let mut big = FloatMoments::default();
        big.add(1e308).unwrap();
        assert_eq!(
            big.add(1e308).unwrap_err().code,
            SqlState::NumericValueOutOfRange
        );
        let mut inf = FloatMoments::default();
        inf.add(f64::INFINITY).unwrap();
        inf.add(1.0).unwrap();
        assert!(inf.finish(MomentAgg::VarPop).unwrap().is_nan());
    }
}
