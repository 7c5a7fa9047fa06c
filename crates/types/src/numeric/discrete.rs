//! The numeric functions that are exact integer or scale arithmetic
//! rather than transcendental: `gcd`, `lcm`, `factorial`, `scale`,
//! `min_scale`, `trim_scale`, `width_bucket` and the steps of
//! `generate_series(numeric, numeric [, numeric])`, each as numeric.c
//! computes it (results, display scales, NaN and infinity rules,
//! messages and SQLSTATEs).

use std::cmp::Ordering;

use nestor_common::{DbError, SqlState};

use super::{big, overflow, Dec, Numeric, Repr};

/// numeric_fac refuses arguments above this before computing: the result
/// would pass the numeric format's 131072 digits.
const FACTORIAL_ARG_MAX: i64 = 32177;

fn invalid(msg: &str) -> DbError {
    DbError::new(SqlState::InvalidParameterValue, msg)
}

fn bucket_error(msg: &str) -> DbError {
    DbError::new(SqlState::InvalidArgumentForWidthBucketFunction, msg)
}

fn int_out_of_range() -> DbError {
    DbError::new(SqlState::NumericValueOutOfRange, "integer out of range")
}

impl Dec {
    /// The magnitudes of `self` and `other` at their common scale.
    fn mags_at_common_scale(&self, other: &Dec) -> (big::Mag, big::Mag, u32) {
        let s = self.scale.max(other.scale);
        (self.mag_at(s), other.mag_at(s), s)
    }

    /// Digits after the point that are not trailing zeros.
    fn min_scale(&self) -> u32 {
        if self.is_zero() {
            return 0;
        }
        let mut s = self.scale;
        while s > 0 {
            let (_, r) = big::divmod_pow10(&self.mag, self.scale - s + 1);
            if !r.is_empty() {
                break;
            }
            s -= 1;
        }
        s
    }
}

/// Euclid's algorithm on magnitudes.
fn gcd_mag(a: big::Mag, b: big::Mag) -> big::Mag {
    let (mut a, mut b) = if big::cmp(&a, &b) == Ordering::Less {
        (b, a)
    } else {
        (a, b)
    };
    while !b.is_empty() {
        let (_, r) = big::divmod(&a, &b);
        a = b;
        b = r;
    }
    a
}

impl Numeric {
    /// gcd(a, b): the largest positive number dividing both exactly, at
    /// the larger display scale; NaN when either is NaN or infinite.
    pub fn gcd(&self, other: &Numeric) -> Numeric {
        let (Some(a), Some(b)) = (self.dec(), other.dec()) else {
            return Numeric::nan();
        };
        let (x, y, s) = a.mags_at_common_scale(b);
        Numeric::from_dec(Dec::new(false, gcd_mag(x, y), s))
    }

    /// lcm(a, b): |a / gcd(a, b) * b|, 0 if either is 0; 22003 past the
    /// numeric format.
    pub fn lcm(&self, other: &Numeric) -> Result<Numeric, DbError> {
        let (Some(a), Some(b)) = (self.dec(), other.dec()) else {
            return Ok(Numeric::nan());
        };
        let (x, y, s) = a.mags_at_common_scale(b);
        if x.is_empty() || y.is_empty() {
            return Ok(Numeric::from_dec(Dec::zero(s)));
        }
        let g = gcd_mag(x.clone(), y.clone());
        let (q, _) = big::divmod(&x, &g);
        if big::decimal_len(&q) + big::decimal_len(&y) > super::MAX_INT_DIGITS + s + 2 {
            return Err(overflow());
        }
        Numeric::finite(Dec::new(false, big::mul(&q, &y), s))
    }

    /// factorial(n) (numeric_fac).
    pub fn factorial(n: i64) -> Result<Numeric, DbError> {
        if n < 0 {
            return Err(DbError::new(
                SqlState::NumericValueOutOfRange,
                "factorial of a negative number is undefined",
            ));
        }
        if n > FACTORIAL_ARG_MAX {
            return Err(overflow());
        }
        let mut mag = vec![1u32];
        for k in 2..=n {
            mag = big::mul_small(&mag, k as u32);
        }
        Numeric::finite(Dec::new(false, mag, 0))
    }

    /// scale(x): the display scale; None (NULL) for NaN and infinities.
    pub fn display_scale(&self) -> Option<i32> {
        self.dec().map(|d| d.scale as i32)
    }

    /// min_scale(x): the fewest digits after the point that represent x
    /// exactly; None (NULL) for NaN and infinities.
    pub fn min_scale(&self) -> Option<i32> {
        self.dec().map(|d| d.min_scale() as i32)
    }

    /// trim_scale(x): x without trailing fractional zeros.
    pub fn trim_scale(&self) -> Numeric {
        match self.dec() {
            Some(d) => Numeric::from_dec(d.round_to(d.min_scale() as i64, true)),
            None => self.clone(),
        }
    }

    /// width_bucket(operand, low, high, count) (width_bucket_numeric):
    /// the bucket of `count` equal-width buckets over [low, high) that
    /// holds the operand, 0 below and count + 1 above (reversed when low >
    /// high).
    pub fn width_bucket(
        operand: &Numeric,
        low: &Numeric,
        high: &Numeric,
        count: i32,
    ) -> Result<i32, DbError> {
        if count <= 0 {
            return Err(bucket_error("count must be greater than zero"));
        }
        if operand.is_nan() || low.is_nan() || high.is_nan() {
            return Err(bucket_error(
                "operand, lower bound, and upper bound cannot be NaN",
            ));
        }
        let (Some(lo), Some(hi)) = (low.dec(), high.dec()) else {
            return Err(bucket_error("lower and upper bounds must be finite"));
        };
        let above = || count.checked_add(1).ok_or_else(int_out_of_range);
        match low.cmp(high) {
            Ordering::Equal => Err(bucket_error("lower bound cannot equal upper bound")),
            Ordering::Less if operand < low => Ok(0),
            Ordering::Less if operand >= high => above(),
            Ordering::Greater if operand > low => Ok(0),
            Ordering::Greater if operand <= high => above(),
            order => {
                let op = operand.dec().ok_or_else(|| {
                    DbError::internal("an infinite operand lies outside the bounds")
                })?;
                let (num, den) = if order == Ordering::Less {
                    (op.add(&lo.neg()), hi.add(&lo.neg()))
                } else {
                    (lo.add(&op.neg()), lo.add(&hi.neg()))
                };
                let count = Dec::new(false, big::from_u128(count as u128), 0);
                let q = num.mul(&count).div(&den, 0, true);
                let bucket = big::to_u128(&q.mag).unwrap_or(u128::MAX).saturating_add(1);
                i32::try_from(bucket).map_err(|_| int_out_of_range())
            }
        }
    }

    /// generate_series(start, stop [, step]) over numeric
    /// (generate_series_step_numeric): start, start + step, ... while not
    /// past stop; the checks in PostgreSQL's order.
    pub fn series(
        start: &Numeric,
        stop: &Numeric,
        step: Option<&Numeric>,
    ) -> Result<NumericSeries, DbError> {
        for (v, what) in [(start, "start value"), (stop, "stop value")]
            .into_iter()
            .chain(step.map(|s| (s, "step size")))
        {
            match &*v.0 {
                Repr::NaN => return Err(invalid(&format!("{what} cannot be NaN"))),
                Repr::PosInf | Repr::NegInf => {
                    return Err(invalid(&format!("{what} cannot be infinity")))
                }
                Repr::Finite(_) => {}
            }
        }
        if step.is_some_and(Numeric::is_zero) {
            return Err(invalid("step size cannot equal zero"));
        }
        Ok(NumericSeries {
            cur: Some(start.clone()),
            stop: stop.clone(),
            step: step.cloned().unwrap_or_else(|| Numeric::from_i64(1)),
        })
    }
}

/// The values of a numeric generate_series ([`Numeric::series`]).
pub struct NumericSeries {
    cur: Option<Numeric>,
    stop: Numeric,
    step: Numeric,
}

impl Iterator for NumericSeries {
    type Item = Numeric;

    fn next(&mut self) -> Option<Numeric> {
        let cur = self.cur.take()?;
        let within = if self.step.signum() > 0 {
            cur <= self.stop
        } else {
            cur >= self.stop
        };
        if !within {
            return None;
        }
        // A step past the numeric format ends the series.
        self.cur = cur.add(&self.step).ok();
        Some(cur)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Numeric {
        Numeric::parse(s).unwrap()
    }

    #[test]
    fn gcd_and_lcm_keep_the_larger_scale() {
        assert_eq!(n("43312.5").gcd(&n("4637.5")).to_string(), "87.5");
        assert_eq!(n("4331.250").gcd(&n("-463.75000")).to_string(), "8.75000");
        assert_eq!(n("0").gcd(&n("0")).to_string(), "0");
        assert!(n("Infinity").gcd(&n("4")).is_nan());
        assert_eq!(
            n("42328.2").lcm(&n("1327.2")).unwrap().to_string(),
            "1185189.6"
        );
        assert_eq!(n("0").lcm(&n("5.00")).unwrap().to_string(), "0.00");
    }

    #[test]
    fn scales() {
        assert_eq!(n("1.2300").min_scale(), Some(2));
        assert_eq!(n("1.2300").display_scale(), Some(4));
        assert_eq!(n("1.2300").trim_scale().to_string(), "1.23");
        assert_eq!(n("100.000").trim_scale().to_string(), "100");
        assert_eq!(n("NaN").min_scale(), None);
    }

    #[test]
    fn series() {
        let v: Vec<String> = Numeric::series(&n("0.1"), &n("4.0"), Some(&n("1.3")))
            .unwrap()
            .map(|x| x.to_string())
            .collect();
        assert_eq!(v, ["0.1", "1.4", "2.7", "4.0"]);
        assert_eq!(Numeric::series(&n("3"), &n("1"), None).unwrap().count(), 0);
        assert!(Numeric::series(&n("1"), &n("NaN"), None).is_err());
        assert!(Numeric::series(&n("1"), &n("2"), Some(&n("0.0"))).is_err());
    }

    #[test]
    fn factorial_and_buckets() {
        assert_eq!(
            Numeric::factorial(20).unwrap().to_string(),
            "2432902008176640000"
        );
        assert_eq!(Numeric::factorial(0).unwrap().to_string(), "1");
        assert!(Numeric::factorial(-1).is_err());
        let wb = |o: &str, lo: &str, hi: &str, c| Numeric::width_bucket(&n(o), &n(lo), &n(hi), c);
        assert_eq!(wb("5.35", "0.024", "10.06", 5).unwrap(), 3);
        assert_eq!(wb("-1", "0", "10", 5).unwrap(), 0);
        assert_eq!(wb("10", "0", "10", 5).unwrap(), 6);
        assert_eq!(wb("7", "10", "0", 5).unwrap(), 2);
        assert!(wb("1", "1", "1", 5).is_err());
        assert!(wb("10", "0", "10", i32::MAX).is_err());
    }
}
