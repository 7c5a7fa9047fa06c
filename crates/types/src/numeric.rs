//! PostgreSQL `numeric`: arbitrary-precision decimal arithmetic.
//!
//! A finite value is `(-1)^neg * mag / 10^scale` where `mag` is an unsigned
//! big integer (see the private `bigint` module) and `scale` is PostgreSQL's *display
//! scale* (`dscale`): the number of digits after the decimal point that the
//! value carries and prints, so `1.50` stays `1.50`. Besides finite values
//! there are `NaN`, `Infinity` and `-Infinity` as in PostgreSQL 15.
//!
//! We use our own type rather than `rust_decimal` (28 digits only) or
//! `bigdecimal` (different rounding and scale rules, extra dependency tree)
//! because PostgreSQL's observable behaviour is mostly about scales: the
//! result scale of `/` (`select_div_scale`), of `sqrt`, `power`, `ln`,
//! `log` and `exp`, of typmod coercion, and half-away-from-zero rounding.
//! Those rules are implemented here one-to-one from `numeric.c`. The
//! transcendental functions are computed in decimal, never through f64
//! (whose 17 digits would show): ln by square roots down to near 1 and
//! the atanh series, exp by halving and the Taylor series, each with
//! guard digits beyond the result scale; f64 only estimates a result's
//! weight to choose that scale, as numeric.c does. Limits are PostgreSQL's:
//! at most 131072 digits before the point and 16383 after; results beyond
//! that fail with `value overflows numeric format` (22003).
//!
//! Comparison is by value (`1.5 = 1.50`); NaN sorts above `Infinity`, as in
//! PostgreSQL. `Hash` is consistent with that equality.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use nestor_common::{DbError, SqlState};

use crate::bigint::{self as big, Mag};

mod discrete;
pub use discrete::NumericSeries;

/// Most digits before the decimal point (PostgreSQL: weight limit).
pub(crate) const MAX_INT_DIGITS: u32 = 131072;
/// Most digits after the decimal point (NUMERIC_DSCALE_MAX).
pub(crate) const MAX_SCALE: u32 = 16383;
/// Upper bound of a computed result's display scale.
pub(crate) const MAX_DISPLAY_SCALE: i64 = 1000;
/// NUMERIC_MIN_SIG_DIGITS.
const MIN_SIG_DIGITS: i64 = 16;

/// A finite decimal: `(-1)^neg * mag / 10^scale`. Zero is never negative.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Dec {
    neg: bool,
    mag: Mag,
    scale: u32,
}

#[derive(Clone, Debug)]
enum Repr {
    NaN,
    PosInf,
    NegInf,
    Finite(Dec),
}

/// A PostgreSQL numeric value. Cheap to clone (shared representation).
#[derive(Clone, Debug)]
pub struct Numeric(Arc<Repr>);

fn overflow() -> DbError {
    DbError::new(
        SqlState::NumericValueOutOfRange,
        "value overflows numeric format",
    )
}

fn div_zero() -> DbError {
    DbError::new(SqlState::DivisionByZero, "division by zero")
}

fn bad_syntax(input: &str) -> DbError {
    DbError::new(
        SqlState::InvalidTextRepresentation,
        format!("invalid input syntax for type numeric: \"{input}\""),
    )
}

impl Dec {
    fn new(neg: bool, mut mag: Mag, scale: u32) -> Dec {
        big::trim(&mut mag);
        let neg = neg && !mag.is_empty();
        let d = Dec { neg, mag, scale };
        debug_assert!(!d.neg || !d.is_zero(), "negative zero");
        debug_assert!(d.mag.last() != Some(&0), "untrimmed magnitude");
        d
    }

    fn zero(scale: u32) -> Dec {
        Dec::new(false, Vec::new(), scale)
    }

    fn is_zero(&self) -> bool {
        self.mag.is_empty()
    }

    /// Digits before the decimal point (0 for |x| < 1).
    fn int_digits(&self) -> u32 {
        big::decimal_len(&self.mag).saturating_sub(self.scale)
    }

    fn check(self) -> Result<Dec, DbError> {
        if self.scale > MAX_SCALE || self.int_digits() > MAX_INT_DIGITS {
            return Err(overflow());
        }
        Ok(self)
    }

    /// Magnitude rescaled to `scale` (which must be >= self.scale).
    fn mag_at(&self, scale: u32) -> Mag {
        big::mul_pow10(&self.mag, scale - self.scale)
    }

    /// Rounds (half away from zero) or truncates to `scale` digits; a
    /// negative scale rounds to tens, hundreds... Result scale is max(scale, 0).
    fn round_to(&self, scale: i64, truncate: bool) -> Dec {
        let target = scale.max(0) as u32;
        if scale >= self.scale as i64 {
            return Dec::new(self.neg, self.mag_at(target), target);
        }
        let drop = (self.scale as i64 - scale).min(u32::MAX as i64) as u32;
        let (mut q, r) = big::divmod_pow10(&self.mag, drop);
        if !truncate && !r.is_empty() {
            let twice = big::mul_small(&r, 2);
            if big::cmp(&twice, &big::pow10(drop)) != Ordering::Less {
                q = big::add(&q, &[1]);
            }
        }
        if scale < 0 {
            q = big::mul_pow10(&q, (-scale) as u32);
        }
        Dec::new(self.neg, q, target)
    }

    fn cmp_abs(&self, other: &Dec) -> Ordering {
        let s = self.scale.max(other.scale);
        big::cmp(&self.mag_at(s), &other.mag_at(s))
    }

    fn cmp_value(&self, other: &Dec) -> Ordering {
        match (self.neg, other.neg) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.cmp_abs(other),
            (true, true) => other.cmp_abs(self),
        }
    }

    fn add(&self, other: &Dec) -> Dec {
        let s = self.scale.max(other.scale);
        let (a, b) = (self.mag_at(s), other.mag_at(s));
        if self.neg == other.neg {
            return Dec::new(self.neg, big::add(&a, &b), s);
        }
        match big::cmp(&a, &b) {
            Ordering::Less => Dec::new(other.neg, big::sub(&b, &a), s),
            _ => Dec::new(self.neg, big::sub(&a, &b), s),
        }
    }

    fn neg(&self) -> Dec {
        Dec::new(!self.neg, self.mag.clone(), self.scale)
    }

    fn mul(&self, other: &Dec) -> Dec {
        Dec::new(
            self.neg != other.neg,
            big::mul(&self.mag, &other.mag),
            self.scale + other.scale,
        )
    }

    /// self / other rounded half away from zero to `rscale` digits.
    fn div(&self, other: &Dec, rscale: u32, truncate: bool) -> Dec {
        // q = self.mag * 10^(rscale + other.scale - self.scale) / other.mag
        let shift = rscale as i64 + other.scale as i64 - self.scale as i64;
        let (num, den) = if shift >= 0 {
            (big::mul_pow10(&self.mag, shift as u32), other.mag.clone())
        } else {
            (
                self.mag.clone(),
                big::mul_pow10(&other.mag, (-shift) as u32),
            )
        };
        let (mut q, r) = big::divmod(&num, &den);
        if !truncate && big::cmp(&big::mul_small(&r, 2), &den) != Ordering::Less {
            q = big::add(&q, &[1]);
        }
        Dec::new(self.neg != other.neg, q, rscale)
    }

    /// Base-10000 weight and first digit, as numeric.c sees them.
    fn nbase_weight(&self) -> (i64, i64) {
        if self.is_zero() {
            return (0, 0);
        }
        let digits = big::to_decimal(&self.mag);
        let p = digits.len() as i64 - 1 - self.scale as i64;
        let w = p.div_euclid(4);
        let lead = (p - 4 * w + 1) as usize;
        let taken = lead.min(digits.len());
        let first = digits[..taken].parse::<i64>().unwrap_or(0) * 10i64.pow((lead - taken) as u32);
        (w, first)
    }

    /// PostgreSQL's select_div_scale.
    fn div_scale(&self, other: &Dec) -> u32 {
        let (w1, f1) = self.nbase_weight();
        let (w2, f2) = other.nbase_weight();
        let mut qweight = w1 - w2;
        if f1 <= f2 {
            qweight -= 1;
        }
        let rscale = (MIN_SIG_DIGITS - qweight * 4)
            .max(self.scale as i64)
            .max(other.scale as i64)
            .clamp(0, MAX_DISPLAY_SCALE);
        rscale as u32
    }

    /// Approximate log10(|x|) for scale decisions; x must be non-zero.
    fn log10_approx(&self) -> f64 {
        let digits = big::to_decimal(&self.mag);
        let lead: f64 = digits[..digits.len().min(17)].parse().unwrap_or(1.0);
        let lead_len = digits.len().min(17) as f64;
        lead.log10() + (digits.len() as f64 - lead_len) - self.scale as f64
    }

    /// Rounds to at most `sig` significant digits (never below `min_scale`).
    fn round_sig(&self, sig: u32) -> Dec {
        let len = big::decimal_len(&self.mag);
        if len <= sig {
            return self.clone();
        }
        let keep = self.scale as i64 - (len - sig) as i64;
        self.round_to(keep.max(0), false)
    }

    fn to_f64(&self) -> f64 {
        self.to_string().parse().unwrap_or(f64::NAN)
    }

    fn is_integer(&self) -> bool {
        let (_, r) = big::divmod_pow10(&self.mag, self.scale);
        r.is_empty()
    }
}

impl fmt::Display for Dec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = big::to_decimal(&self.mag);
        if self.neg {
            f.write_str("-")?;
        }
        let scale = self.scale as usize;
        if scale == 0 {
            return f.write_str(&digits);
        }
        if digits.len() > scale {
            let (int, frac) = digits.split_at(digits.len() - scale);
            write!(f, "{int}.{frac}")
        } else {
            write!(f, "0.{}{digits}", "0".repeat(scale - digits.len()))
        }
    }
}

/// Parses the finite part of numeric input (already trimmed, no specials).
fn parse_finite(s: &str) -> Option<Result<Dec, DbError>> {
    let b = s.as_bytes();
    let mut i = 0;
    let neg = match b.first() {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let mut digits = Vec::new();
    let mut frac = 0i64;
    let mut seen_point = false;
    while i < b.len() {
        match b[i] {
            c @ b'0'..=b'9' => {
                if !(digits.is_empty() && c == b'0') || seen_point {
                    digits.push(c);
                }
                if seen_point {
                    frac += 1;
                }
            }
            b'.' if !seen_point => seen_point = true,
            _ => break,
        }
        i += 1;
    }
    let had_digit = b[..i].iter().any(u8::is_ascii_digit);
    if !had_digit {
        return None;
    }
    let mut exp = 0i64;
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        let eneg = match b.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            exp = (exp * 10 + (b[i] - b'0') as i64).min(1 << 40);
            i += 1;
        }
        if start == i {
            return None;
        }
        if eneg {
            exp = -exp;
        }
    }
    if i != b.len() {
        return None;
    }
    let scale = frac - exp;
    if scale > MAX_SCALE as i64 || scale < -(MAX_INT_DIGITS as i64) - 1 {
        return Some(Err(overflow()));
    }
    let mag = big::from_decimal(&digits);
    let dec = if scale < 0 {
        Dec::new(neg, big::mul_pow10(&mag, (-scale) as u32), 0)
    } else {
        Dec::new(neg, mag, scale as u32)
    };
    Some(dec.check())
}

impl Numeric {
    /// Bytes of its shared representation (for memory accounting).
    pub fn heap_bytes(&self) -> usize {
        let digits = match &*self.0 {
            Repr::Finite(d) => d.mag.capacity() * std::mem::size_of::<u32>(),
            _ => 0,
        };
        2 * std::mem::size_of::<usize>() + std::mem::size_of::<Repr>() + digits
    }

    fn from_repr(r: Repr) -> Numeric {
        Numeric(Arc::new(r))
    }

    pub(crate) fn from_dec(d: Dec) -> Numeric {
        Numeric::from_repr(Repr::Finite(d))
    }

    fn finite(d: Dec) -> Result<Numeric, DbError> {
        Ok(Numeric::from_dec(d.check()?))
    }

    pub fn nan() -> Numeric {
        Numeric::from_repr(Repr::NaN)
    }

    pub fn infinity(negative: bool) -> Numeric {
        Numeric::from_repr(if negative { Repr::NegInf } else { Repr::PosInf })
    }

    pub fn zero() -> Numeric {
        Numeric::from_dec(Dec::zero(0))
    }

    pub fn from_i64(v: i64) -> Numeric {
        Numeric::from_i128(v as i128)
    }

    pub(crate) fn from_i128(v: i128) -> Numeric {
        Numeric::from_dec(Dec::new(v < 0, big::from_u128(v.unsigned_abs()), 0))
    }

    /// Conversion from a float as PostgreSQL does it: print with `digits`
    /// significant digits (15 for float8, 6 for float4) and parse that.
    pub fn from_f64(v: f64, digits: usize) -> Numeric {
        if v.is_nan() {
            return Numeric::nan();
        }
        if v.is_infinite() {
            return Numeric::infinity(v < 0.0);
        }
        let text = format!("{:.*e}", digits.saturating_sub(1), v);
        let (mant, exp) = text.split_once('e').unwrap_or((&text, "0"));
        let mant = if mant.contains('.') {
            mant.trim_end_matches('0').trim_end_matches('.')
        } else {
            mant
        };
        match parse_finite(&format!("{mant}e{exp}")) {
            Some(Ok(d)) => Numeric::from_dec(d),
            _ => Numeric::nan(),
        }
    }

    /// PostgreSQL numeric input: leading/trailing whitespace, sign, digits,
    /// point, exponent; `NaN`, `Infinity`, `inf` (case-insensitive).
    pub fn parse(input: &str) -> Result<Numeric, DbError> {
        let s = input.trim_matches(|c: char| c.is_ascii_whitespace());
        let lower = s.to_ascii_lowercase();
        match lower.as_str() {
            "nan" => return Ok(Numeric::nan()),
            "infinity" | "+infinity" | "inf" | "+inf" => return Ok(Numeric::infinity(false)),
            "-infinity" | "-inf" => return Ok(Numeric::infinity(true)),
            _ => {}
        }
        match parse_finite(s) {
            Some(r) => r.map(Numeric::from_dec),
            None => Err(bad_syntax(input)),
        }
    }

    pub(crate) fn dec(&self) -> Option<&Dec> {
        match &*self.0 {
            Repr::Finite(d) => Some(d),
            _ => None,
        }
    }

    pub fn is_nan(&self) -> bool {
        matches!(&*self.0, Repr::NaN)
    }

    pub(crate) fn is_finite(&self) -> bool {
        self.dec().is_some()
    }

    pub(crate) fn is_zero(&self) -> bool {
        self.dec().is_some_and(Dec::is_zero)
    }

    /// -1, 0 or 1 (NaN gives 0).
    pub(crate) fn signum(&self) -> i32 {
        match &*self.0 {
            Repr::NaN => 0,
            Repr::PosInf => 1,
            Repr::NegInf => -1,
            Repr::Finite(d) if d.is_zero() => 0,
            Repr::Finite(d) => {
                if d.neg {
                    -1
                } else {
                    1
                }
            }
        }
    }

    /// Display scale (digits after the point); 0 for specials.
    pub fn scale(&self) -> u32 {
        self.dec().map_or(0, |d| d.scale)
    }

    pub fn to_f64(&self) -> f64 {
        match &*self.0 {
            Repr::NaN => f64::NAN,
            Repr::PosInf => f64::INFINITY,
            Repr::NegInf => f64::NEG_INFINITY,
            Repr::Finite(d) => d.to_f64(),
        }
    }

    /// Rounded half away from zero to an integer; None if NaN, infinite or
    /// outside i64.
    pub(crate) fn to_i64_rounded(&self) -> Option<i64> {
        let d = self.dec()?.round_to(0, false);
        if d.int_digits() > 20 {
            return None;
        }
        let m = big::to_u128(&d.mag)?;
        if d.neg {
            0i128.checked_sub_unsigned(m)?.try_into().ok()
        } else {
            m.try_into().ok()
        }
    }

    fn special_cmp_key(&self) -> i8 {
        match &*self.0 {
            Repr::NegInf => -1,
            Repr::Finite(_) => 0,
            Repr::PosInf => 1,
            Repr::NaN => 2,
        }
    }

    pub(crate) fn neg(&self) -> Numeric {
        match &*self.0 {
            Repr::NaN => Numeric::nan(),
            Repr::PosInf => Numeric::infinity(true),
            Repr::NegInf => Numeric::infinity(false),
            Repr::Finite(d) => Numeric::from_dec(d.neg()),
        }
    }

    pub fn abs(&self) -> Numeric {
        if self.signum() < 0 {
            self.neg()
        } else {
            self.clone()
        }
    }

    pub fn add(&self, other: &Numeric) -> Result<Numeric, DbError> {
        match (self.dec(), other.dec()) {
            (Some(a), Some(b)) => Numeric::finite(a.add(b)),
            _ if self.is_nan() || other.is_nan() => Ok(Numeric::nan()),
            (Some(_), None) => Ok(other.clone()),
            (None, Some(_)) => Ok(self.clone()),
            (None, None) if self.signum() == other.signum() => Ok(self.clone()),
            (None, None) => Ok(Numeric::nan()),
        }
    }

    pub fn sub(&self, other: &Numeric) -> Result<Numeric, DbError> {
        self.add(&other.neg())
    }

    pub(crate) fn mul(&self, other: &Numeric) -> Result<Numeric, DbError> {
        match (self.dec(), other.dec()) {
            (Some(a), Some(b)) => {
                if a.int_digits() + b.int_digits() > MAX_INT_DIGITS + 1 {
                    return Err(overflow());
                }
                let r = a.mul(b);
                if r.scale > MAX_SCALE {
                    // PostgreSQL caps the exact product at the maximum dscale.
                    return Numeric::finite(r.round_to(MAX_SCALE as i64, false));
                }
                Numeric::finite(r)
            }
            _ if self.is_nan() || other.is_nan() => Ok(Numeric::nan()),
            _ if self.is_zero() || other.is_zero() => Ok(Numeric::nan()),
            _ => Ok(Numeric::infinity(self.signum() * other.signum() < 0)),
        }
    }

    /// Division with PostgreSQL's result scale (select_div_scale).
    pub fn div(&self, other: &Numeric) -> Result<Numeric, DbError> {
        if self.is_nan() || other.is_nan() {
            return Ok(Numeric::nan());
        }
        if other.is_zero() {
            return Err(div_zero());
        }
        match (self.dec(), other.dec()) {
            (Some(a), Some(b)) => {
                if a.int_digits() as i64 - b.nbase_weight().0 * 4 > MAX_INT_DIGITS as i64 + 4 {
                    return Err(overflow());
                }
                Numeric::finite(a.div(b, a.div_scale(b), false))
            }
            (Some(_), None) => Ok(Numeric::zero()),
            (None, Some(_)) => Ok(Numeric::infinity(self.signum() * other.signum() < 0)),
            (None, None) => Ok(Numeric::nan()),
        }
    }

    /// Integer (truncating) division, as `div(a, b)`.
    pub(crate) fn div_trunc(&self, other: &Numeric) -> Result<Numeric, DbError> {
        if self.is_nan() || other.is_nan() {
            return Ok(Numeric::nan());
        }
        if other.is_zero() {
            return Err(div_zero());
        }
        match (self.dec(), other.dec()) {
            (Some(a), Some(b)) => Numeric::finite(a.div(b, 0, true)),
            (Some(_), None) => Ok(Numeric::zero()),
            (None, Some(_)) => Ok(Numeric::infinity(self.signum() * other.signum() < 0)),
            (None, None) => Ok(Numeric::nan()),
        }
    }

    /// Remainder with the sign of the dividend; scale max(s1, s2).
    pub(crate) fn rem(&self, other: &Numeric) -> Result<Numeric, DbError> {
        if self.is_nan() || other.is_nan() {
            return Ok(Numeric::nan());
        }
        if other.is_zero() {
            return Err(div_zero());
        }
        match (self.dec(), other.dec()) {
            (Some(a), Some(b)) => {
                let s = a.scale.max(b.scale);
                let (_, r) = big::divmod(&a.mag_at(s), &b.mag_at(s));
                Numeric::finite(Dec::new(a.neg, r, s))
            }
            (Some(_), None) => Ok(self.clone()),
            _ => Ok(Numeric::nan()),
        }
    }

    /// round(x, s): half away from zero; negative `s` rounds left of the point.
    pub fn round(&self, scale: i64) -> Result<Numeric, DbError> {
        self.round_impl(scale, false)
    }

    /// trunc(x, s).
    pub fn trunc(&self, scale: i64) -> Result<Numeric, DbError> {
        self.round_impl(scale, true)
    }

    fn round_impl(&self, scale: i64, truncate: bool) -> Result<Numeric, DbError> {
        match self.dec() {
            None => Ok(self.clone()),
            Some(d) => {
                // numeric_round's limits: any scale a value can have, and
                // one digit left of the largest.
                let scale = scale.clamp(-(MAX_INT_DIGITS as i64) - 1, i64::from(MAX_SCALE));
                Numeric::finite(d.round_to(scale, truncate))
            }
        }
    }

    pub fn floor(&self) -> Result<Numeric, DbError> {
        self.floor_ceil(true)
    }

    pub fn ceil(&self) -> Result<Numeric, DbError> {
        self.floor_ceil(false)
    }

    fn floor_ceil(&self, floor: bool) -> Result<Numeric, DbError> {
        let Some(d) = self.dec() else {
            return Ok(self.clone());
        };
        let t = d.round_to(0, true);
        let exact = t.cmp_value(d) == Ordering::Equal;
        let step = if exact || (floor != d.neg) {
            t
        } else if floor {
            t.add(&Dec::new(true, vec![1], 0))
        } else {
            t.add(&Dec::new(false, vec![1], 0))
        };
        Numeric::finite(step)
    }

    /// sqrt with PostgreSQL's result scale; negative input is 2201F.
    pub fn sqrt(&self) -> Result<Numeric, DbError> {
        if self.signum() < 0 {
            return Err(power_error("cannot take square root of a negative number"));
        }
        let Some(d) = self.dec() else {
            return Ok(self.clone());
        };
        let (w, _) = d.nbase_weight();
        let sweight = (w + 1) * 4 / 2 - 1;
        let rscale = (MIN_SIG_DIGITS - sweight)
            .max(d.scale as i64)
            .clamp(0, MAX_DISPLAY_SCALE) as u32;
        self.sqrt_at(rscale)
    }

    /// sqrt of a finite, non-negative value rounded to `rscale` digits
    /// (PostgreSQL's sqrt_var).
    pub(crate) fn sqrt_at(&self, rscale: u32) -> Result<Numeric, DbError> {
        let d = self.dec().expect("sqrt_at of a finite value");
        assert!(!d.neg || self.is_zero(), "sqrt_at of a negative value");
        // floor(sqrt(x) * 10^(rscale+1)), then round on the extra digit.
        let want = 2 * (rscale + 1);
        let m = if want >= d.scale {
            big::mul_pow10(&d.mag, want - d.scale)
        } else {
            big::divmod_pow10(&d.mag, d.scale - want).0
        };
        let root = big::isqrt(&m);
        Numeric::finite(Dec::new(false, root, rscale + 1).round_to(rscale as i64, false))
    }

    /// power(x, y) as numeric_power / power_var: integer exponents in
    /// exact decimal arithmetic (power_var_int's scale), others as
    /// exp(y * ln(x)) computed in decimal with guard digits, the result
    /// scale chosen from a low-precision estimate of the result's weight.
    pub fn power(&self, exp: &Numeric) -> Result<Numeric, DbError> {
        if self.is_nan() || exp.is_nan() {
            let one = self
                .dec()
                .is_some_and(|d| d.cmp_value(&Dec::new(false, vec![1], 0)).is_eq());
            return Ok(if one || exp.is_zero() {
                Numeric::from_i64(1)
            } else {
                Numeric::nan()
            });
        }
        if self.is_zero() && exp.signum() < 0 {
            return Err(power_error("zero raised to a negative power is undefined"));
        }
        let (Some(b), Some(e)) = (self.dec(), exp.dec()) else {
            // -Infinity ^ a finite non-integer is complex, as any negative
            // base's is.
            if self.signum() < 0 && exp.dec().is_some_and(|e| !e.is_integer()) {
                return Err(power_error(
                    "a negative number raised to a non-integer power yields a complex result",
                ));
            }
            let r = self.to_f64().powf(exp.to_f64());
            return Ok(Numeric::from_f64(r, 17));
        };
        if e.is_integer() {
            if let Some(n) = Numeric::from_dec(e.clone()).to_i64_rounded() {
                if let Ok(n) = i32::try_from(n) {
                    return power_int(b, n);
                }
            }
        }
        if b.is_zero() {
            return Numeric::finite(Dec::zero(MIN_SIG_DIGITS as u32));
        }
        if b.neg && !e.is_integer() {
            return Err(power_error(
                "a negative number raised to a non-integer power yields a complex result",
            ));
        }
        // An integer exponent too large for int: the sign is its parity.
        let odd = b.neg && {
            let (q, _) = big::divmod_pow10(&e.mag, e.scale);
            q.first().is_some_and(|d| d & 1 == 1)
        };
        let base = Dec::new(false, b.mag.clone(), b.scale);
        let ln_dweight = estimate_ln_dweight(&base);
        // ln(base) to about 8 significant digits gives the result's weight.
        let local = (8 - ln_dweight).max(0) as u32;
        let val = ln_at(&base, local)
            .mul(e)
            .round_to(local as i64, false)
            .to_f64();
        // exp_var's bound with power_var's fuzz factor (6000 * 1.0033).
        if val.abs() > 6020.0 {
            if val > 0.0 {
                return Err(overflow());
            }
            return Numeric::finite(Dec::zero(MAX_DISPLAY_SCALE as u32));
        }
        let val = val * LOG10_E;
        let rscale = (MIN_SIG_DIGITS - val as i64)
            .max(b.scale as i64)
            .max(e.scale as i64)
            .clamp(0, MAX_DISPLAY_SCALE);
        let sig = (rscale + val as i64).max(0);
        let local = (sig - ln_dweight + 8).max(0) as u32;
        let ln_num = ln_at(&base, local).mul(e).round_to(local as i64, false);
        let r = exp_var(&ln_num, rscale)?;
        Numeric::finite(if odd { r.neg() } else { r })
    }

    /// ln(x) (numeric_ln): the result scale gives at least 16 significant
    /// digits and is not below the argument's; 2201E for zero and negative
    /// arguments (-Infinity too), ln(Infinity) is Infinity.
    pub fn ln(&self) -> Result<Numeric, DbError> {
        match &*self.0 {
            Repr::NaN | Repr::PosInf => Ok(self.clone()),
            Repr::NegInf => Err(log_error(-1)),
            Repr::Finite(d) => {
                check_log_arg(d)?;
                let rscale = (MIN_SIG_DIGITS - estimate_ln_dweight(d))
                    .max(d.scale as i64)
                    .clamp(0, MAX_DISPLAY_SCALE);
                Numeric::finite(ln_rounded(d, rscale))
            }
        }
    }

    /// log(base, x) (numeric_log): ln(x) / ln(base), each computed with
    /// more significant digits than the quotient keeps; log(x) and
    /// log10(x) are log(10, x), as in PostgreSQL. Base 1 divides by zero.
    pub fn log(base: &Numeric, x: &Numeric) -> Result<Numeric, DbError> {
        let (Some(b), Some(n)) = (base.dec(), x.dec()) else {
            if base.is_nan() || x.is_nan() {
                return Ok(Numeric::nan());
            }
            let (sb, sx) = (base.signum(), x.signum());
            if sb < 0 || sx < 0 {
                return Err(log_error(-1));
            }
            if sb == 0 || sx == 0 {
                return Err(log_error(0));
            }
            return Ok(match (base.is_finite(), x.is_finite()) {
                (false, false) => Numeric::nan(),
                (false, true) => Numeric::zero(),
                _ => Numeric::infinity(false),
            });
        };
        check_log_arg(b)?;
        check_log_arg(n)?;
        let ln_base_dweight = estimate_ln_dweight(b);
        let ln_num_dweight = estimate_ln_dweight(n);
        let result_dweight = ln_num_dweight - ln_base_dweight;
        let rscale = (MIN_SIG_DIGITS - result_dweight)
            .max(b.scale as i64)
            .max(n.scale as i64)
            .clamp(0, MAX_DISPLAY_SCALE);
        let ln_base_rscale = (rscale + result_dweight - ln_base_dweight + 8).max(0);
        let ln_num_rscale = (rscale + result_dweight - ln_num_dweight + 8).max(0);
        let ln_base = ln_rounded(b, ln_base_rscale);
        let ln_num = ln_rounded(n, ln_num_rscale);
        if ln_base.is_zero() {
            return Err(div_zero());
        }
        Numeric::finite(ln_num.div(&ln_base, rscale as u32, false))
    }

    /// exp(x) (numeric_exp): the result scale gives at least 16
    /// significant digits; x >= 6000 overflows, x <= -6000 is zero.
    pub fn exp(&self) -> Result<Numeric, DbError> {
        let Some(d) = self.dec() else {
            return Ok(match &*self.0 {
                Repr::NegInf => Numeric::zero(),
                _ => self.clone(),
            });
        };
        let val = (d.to_f64() * LOG10_E).clamp(
            -2.0 * MAX_DISPLAY_SCALE as f64,
            2.0 * MAX_DISPLAY_SCALE as f64,
        );
        let rscale = (MIN_SIG_DIGITS - val as i64)
            .max(d.scale as i64)
            .clamp(0, MAX_DISPLAY_SCALE);
        Numeric::finite(exp_var(d, rscale)?)
    }
    /// Coerces to numeric(precision, scale) as a column typmod does.
    pub fn apply_typmod(&self, precision: u32, scale: i32) -> Result<Numeric, DbError> {
        let field_overflow = |detail: String| {
            DbError::new(SqlState::NumericValueOutOfRange, "numeric field overflow")
                .with_detail(detail)
        };
        match &*self.0 {
            Repr::NaN => Ok(self.clone()),
            Repr::PosInf | Repr::NegInf => Err(field_overflow(format!(
                "A field with precision {precision}, scale {scale} cannot hold an infinite value."
            ))),
            Repr::Finite(d) => {
                let r = d.round_to(scale as i64, false);
                let max_int = precision as i64 - scale as i64;
                let digits = big::decimal_len(&r.mag) as i64 - r.scale as i64;
                if !r.is_zero() && digits > max_int {
                    let limit = if max_int <= 0 && scale >= precision as i32 && max_int == 0 {
                        "1".to_string()
                    } else {
                        format!("10^{max_int}")
                    };
                    return Err(field_overflow(format!(
                        "A field with precision {precision}, scale {scale} must round to an absolute value less than {limit}."
                    )));
                }
                Numeric::finite(r)
            }
        }
    }

    /// PostgreSQL binary (send) format.
    pub fn to_binary(&self) -> Vec<u8> {
        let (sign, d) = match &*self.0 {
            Repr::NaN => (0xC000u16, None),
            Repr::PosInf => (0xD000, None),
            Repr::NegInf => (0xF000, None),
            Repr::Finite(d) => (if d.neg { 0x4000 } else { 0 }, Some(d)),
        };
        let (weight, groups, dscale) = match d {
            Some(d) => {
                let (w, g) = nbase_digits(d);
                (w, g, d.scale as u16)
            }
            None => (0, Vec::new(), 0),
        };
        let mut out = Vec::with_capacity(8 + 2 * groups.len());
        out.extend_from_slice(&(groups.len() as u16).to_be_bytes());
        out.extend_from_slice(&(weight as i16).to_be_bytes());
        out.extend_from_slice(&sign.to_be_bytes());
        out.extend_from_slice(&dscale.to_be_bytes());
        for g in groups {
            out.extend_from_slice(&g.to_be_bytes());
        }
        out
    }

    /// PostgreSQL binary (recv) format.
    pub(crate) fn from_binary(buf: &[u8]) -> Result<Numeric, DbError> {
        let bad = |m: &str| DbError::new(SqlState::InvalidBinaryRepresentation, m.to_string());
        if buf.len() < 8 {
            return Err(bad("insufficient data left in message"));
        }
        let word = |i: usize| u16::from_be_bytes([buf[i], buf[i + 1]]);
        let ndigits = word(0) as usize;
        let weight = word(2) as i16 as i64;
        let sign = word(4);
        let dscale = word(6) as u32;
        if buf.len() != 8 + 2 * ndigits {
            return Err(bad("insufficient data left in message"));
        }
        match sign {
            0xC000 => return Ok(Numeric::nan()),
            0xD000 => return Ok(Numeric::infinity(false)),
            0xF000 => return Ok(Numeric::infinity(true)),
            0 | 0x4000 => {}
            _ => return Err(bad("invalid sign in external \"numeric\" value")),
        }
        if dscale > MAX_SCALE {
            return Err(bad("invalid scale in external \"numeric\" value"));
        }
        let mut digits = Vec::with_capacity(ndigits * 4);
        for i in 0..ndigits {
            let g = word(8 + 2 * i);
            if g >= 10000 {
                return Err(bad("invalid digit in external \"numeric\" value"));
            }
            digits.extend_from_slice(format!("{g:04}").as_bytes());
        }
        let exp10 = 4 * (weight - ndigits as i64 + 1);
        let mag = big::from_decimal(&digits);
        let d = if exp10 >= 0 {
            if exp10 > MAX_INT_DIGITS as i64 + 8 {
                return Err(overflow());
            }
            Dec::new(sign != 0, big::mul_pow10(&mag, exp10 as u32), 0)
        } else {
            if -exp10 > MAX_SCALE as i64 + 8 {
                return Err(overflow());
            }
            Dec::new(sign != 0, mag, (-exp10) as u32)
        };
        Numeric::finite(d.round_to(dscale as i64, true))
    }

    /// Storage form (see `nestor-storage`'s row codec): a kind byte (0
    /// positive or zero, 1 negative, 2 NaN, 3 Infinity, 4 -Infinity), then
    /// for finite values the display scale (u16 LE) and the magnitude's
    /// base-10^9 limbs (u32 LE, least significant first). Exact: it keeps
    /// the scale, so `1.50` comes back as `1.50`.
    pub fn encode_storage(&self, out: &mut Vec<u8>) {
        match &*self.0 {
            Repr::NaN => out.push(2),
            Repr::PosInf => out.push(3),
            Repr::NegInf => out.push(4),
            Repr::Finite(d) => {
                out.push(d.neg as u8);
                debug_assert!(d.scale <= MAX_SCALE);
                out.extend_from_slice(&(d.scale as u16).to_le_bytes());
                for limb in &d.mag {
                    out.extend_from_slice(&limb.to_le_bytes());
                }
            }
        }
    }

    /// Bytes [`Numeric::encode_storage`] writes.
    pub fn storage_len(&self) -> usize {
        self.dec().map_or(1, |d| 3 + 4 * d.mag.len())
    }

    /// Inverse of [`Numeric::encode_storage`]; None if the bytes are not one.
    pub fn decode_storage(b: &[u8]) -> Option<Numeric> {
        let (&kind, rest) = b.split_first()?;
        match kind {
            2 if rest.is_empty() => Some(Numeric::nan()),
            3 if rest.is_empty() => Some(Numeric::infinity(false)),
            4 if rest.is_empty() => Some(Numeric::infinity(true)),
            0 | 1 if rest.len() >= 2 && (rest.len() - 2) % 4 == 0 => {
                let scale = u16::from_le_bytes([rest[0], rest[1]]) as u32;
                let mag: Mag = rest[2..]
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                if mag.last() == Some(&0) || mag.iter().any(|&l| l as u64 >= big::BASE) {
                    return None;
                }
                Some(Numeric::from_dec(Dec::new(kind == 1, mag, scale)))
            }
            _ => None,
        }
    }

    /// A sort key: byte order (memcmp) is numeric order, and values that
    /// compare equal (`1.5`, `1.50`) get the same bytes. A class byte
    /// (-Infinity 1, negative 2, zero 3, positive 4, Infinity 5, NaN 6),
    /// then for nonzero finite values the decimal exponent `e` of
    /// `0.d1d2… × 10^e` (i32, sign bit flipped, big-endian), the significant
    /// digits as ASCII without trailing zeros, and a 0x00 terminator; all of
    /// it after the class byte complemented for negative values, so a larger
    /// magnitude sorts first. Prefix-free: no key is a proper prefix of
    /// another.
    pub fn encode_sort_key(&self, out: &mut Vec<u8>) {
        let d = match &*self.0 {
            Repr::NegInf => return out.push(1),
            Repr::PosInf => return out.push(5),
            Repr::NaN => return out.push(6),
            Repr::Finite(d) if d.is_zero() => return out.push(3),
            Repr::Finite(d) => d,
        };
        out.push(if d.neg { 2 } else { 4 });
        let digits = big::to_decimal(&d.mag);
        let exp = digits.len() as i64 - d.scale as i64;
        let start = out.len();
        out.extend_from_slice(&((exp as i32 as u32) ^ 0x8000_0000).to_be_bytes());
        out.extend_from_slice(digits.trim_end_matches('0').as_bytes());
        out.push(0);
        if d.neg {
            for b in &mut out[start..] {
                *b = !*b;
            }
        }
    }

    fn normalized_text(&self) -> String {
        let s = self.to_string();
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    }
}

/// Base-10000 weight and digits with leading/trailing zero groups removed.
fn nbase_digits(d: &Dec) -> (i64, Vec<u16>) {
    if d.is_zero() {
        return (0, Vec::new());
    }
    let s = big::to_decimal(&d.mag);
    let scale = d.scale as usize;
    let (int, frac) = if s.len() > scale {
        (
            s[..s.len() - scale].to_string(),
            s[s.len() - scale..].to_string(),
        )
    } else {
        (
            String::new(),
            format!("{}{}", "0".repeat(scale - s.len()), s),
        )
    };
    let int_pad = (4 - int.len() % 4) % 4;
    let frac_pad = (4 - frac.len() % 4) % 4;
    let all = format!("{}{int}{frac}{}", "0".repeat(int_pad), "0".repeat(frac_pad));
    let mut groups: Vec<u16> = all
        .as_bytes()
        .chunks(4)
        .map(|c| c.iter().fold(0u16, |a, &x| a * 10 + (x - b'0') as u16))
        .collect();
    let mut weight = ((int.len() + int_pad) / 4) as i64 - 1;
    let lead = groups.iter().take_while(|&&g| g == 0).count();
    groups.drain(..lead);
    weight -= lead as i64;
    while groups.last() == Some(&0) {
        groups.pop();
    }
    (weight, groups)
}

/// base^n for an integer exponent, PostgreSQL 15's power_var_int scale.
fn power_int(base: &Dec, n: i32) -> Result<Numeric, DbError> {
    let rscale = MIN_SIG_DIGITS
        .max(base.scale as i64)
        .clamp(0, MAX_DISPLAY_SCALE);
    if n == 0 {
        return Numeric::finite(Dec::new(false, vec![1], 0).round_to(rscale, false));
    }
    if base.is_zero() {
        return Numeric::finite(Dec::zero(rscale as u32));
    }
    let log = base.log10_approx() * n as f64;
    if log > MAX_INT_DIGITS as f64 + 1.0 {
        return Err(overflow());
    }
    if log < -(rscale as f64) - 2.0 {
        return Numeric::finite(Dec::zero(rscale as u32));
    }
    let result_digits = log.abs().ceil() as i64;
    let sig = (rscale + result_digits + 12).clamp(20, 200_000) as u32;
    let mut acc = Dec::new(false, vec![1], 0);
    let mut sq = base.clone();
    let mut k = n.unsigned_abs();
    while k > 0 {
        if k & 1 == 1 {
            acc = acc.mul(&sq).round_sig(sig);
        }
        k >>= 1;
        if k > 0 {
            sq = sq.mul(&sq).round_sig(sig);
        }
    }
    let r = if n < 0 {
        Dec::new(false, vec![1], 0).div(&acc, rscale as u32, false)
    } else {
        acc.round_to(rscale, false)
    };
    Numeric::finite(r)
}

/// log10(e) and ln(10) with numeric.c's digits (not the closest f64): the
/// scale estimates truncate with `as i64`, so they must round as its do.
#[allow(clippy::approx_constant)]
const LOG10_E: f64 = 0.434294481903252;
#[allow(clippy::approx_constant)]
const LN_10: f64 = 2.302585092994046;
/// exp_var's bound on |x| (3 * NUMERIC_MAX_RESULT_SCALE).
const EXP_ARG_MAX: f64 = 6000.0;

fn log_error(sign: i32) -> DbError {
    DbError::new(
        SqlState::InvalidArgumentForLogarithm,
        if sign == 0 {
            "cannot take logarithm of zero"
        } else {
            "cannot take logarithm of a negative number"
        },
    )
}

fn power_error(message: &str) -> DbError {
    DbError::new(SqlState::InvalidArgumentForPowerFunction, message)
}

/// ln_var's argument check: zero and negative numbers are 2201E.
fn check_log_arg(d: &Dec) -> Result<(), DbError> {
    if d.is_zero() {
        return Err(log_error(0));
    }
    if d.neg {
        return Err(log_error(-1));
    }
    Ok(())
}

/// numeric.c's estimate_ln_dweight: the decimal weight of ln(x), from
/// ln(1 + y) ~ y near 1 and from the leading base-10000 digits elsewhere.
fn estimate_ln_dweight(d: &Dec) -> i64 {
    if d.neg || d.is_zero() {
        return 0;
    }
    let (lo, hi) = (Dec::new(false, vec![9], 1), Dec::new(false, vec![11], 1));
    if d.cmp_value(&lo) != Ordering::Less && d.cmp_value(&hi) != Ordering::Greater {
        let y = d.add(&one().neg());
        if y.is_zero() {
            return 0;
        }
        return big::decimal_len(&y.mag) as i64 - 1 - y.scale as i64;
    }
    let (weight, groups) = nbase_digits(d);
    let mut digits = groups[0] as f64;
    let mut dweight = weight * 4;
    if let Some(&next) = groups.get(1) {
        digits = digits * 10000.0 + next as f64;
        dweight -= 4;
    }
    let ln = digits.ln() + dweight as f64 * LN_10;
    ln.abs().log10() as i64
}

/// ln(x) rounded to `rscale` digits (x > 0), with guard digits.
fn ln_rounded(x: &Dec, rscale: i64) -> Dec {
    ln_at(x, rscale as u32 + 8).round_to(rscale, false)
}

/// exp_var: e^x rounded to `rscale` digits; 22003 for x >= 6000, zero
/// for x <= -6000.
fn exp_var(x: &Dec, rscale: i64) -> Result<Dec, DbError> {
    let val = x.to_f64();
    if val.abs() >= EXP_ARG_MAX {
        if val > 0.0 {
            return Err(overflow());
        }
        return Ok(Dec::zero(rscale as u32));
    }
    let dweight = (val * LOG10_E) as i64;
    let sig = (1 + dweight + rscale).max(0) as u32 + 8;
    Ok(exp_at(x, sig).round_to(rscale, false))
}

fn one() -> Dec {
    Dec::new(false, vec![1], 0)
}

/// sqrt(x) truncated at `scale` digits; x >= 0.
fn sqrt_at(x: &Dec, scale: u32) -> Dec {
    let want = 2 * scale;
    let m = if want >= x.scale {
        big::mul_pow10(&x.mag, want - x.scale)
    } else {
        big::divmod_pow10(&x.mag, x.scale - want).0
    };
    Dec::new(false, big::isqrt(&m), scale)
}

/// ln(x) for x > 0, accurate to about 10^-scale.
fn ln_at(x: &Dec, scale: u32) -> Dec {
    // x = m * 10^k with 1 <= m < 10, ln x = ln m + k ln 10.
    let k = big::decimal_len(&x.mag) as i64 - 1 - x.scale as i64;
    let m = Dec::new(false, x.mag.clone(), (k + x.scale as i64).max(0) as u32);
    let k_digits = (k.unsigned_abs().max(1) as f64).log10().ceil() as u32;
    let ln_m = ln_near_one(&m, scale + 2);
    if k == 0 {
        return ln_m.round_to(scale as i64, false);
    }
    let ten = Dec::new(false, vec![10], 0);
    let ln10 = ln_near_one(&ten, scale + k_digits + 2);
    let kk = Dec::new(k < 0, big::from_u128(k.unsigned_abs() as u128), 0);
    ln_m.add(&ln10.mul(&kk)).round_to(scale as i64, false)
}

/// ln(x) for moderate x (0.1 .. 100): square roots until x is near 1,
/// then the atanh series.
fn ln_near_one(x: &Dec, scale: u32) -> Dec {
    let ws = scale + 12;
    let lim = Dec::new(false, vec![1], 2);
    let mut v = x.clone();
    let mut doublings = 0u32;
    while v.add(&one().neg()).cmp_abs(&lim) == Ordering::Greater && doublings < 64 {
        v = sqrt_at(&v, ws);
        doublings += 1;
    }
    let z = v.add(&one().neg()).div(&v.add(&one()), ws, false);
    let z2 = z.mul(&z).round_to(ws as i64, false);
    let mut sum = z.clone();
    let mut term = z;
    let mut k = 1u32;
    loop {
        term = term.mul(&z2).round_to(ws as i64, false);
        if term.is_zero() {
            break;
        }
        let d = Dec::new(false, big::from_u128(2 * k as u128 + 1), 0);
        sum = sum.add(&term.div(&d, ws, false));
        k += 1;
    }
    let factor = Dec::new(false, big::from_u128(2u128 << doublings), 0);
    sum.mul(&factor).round_to(scale as i64, false)
}

/// exp(y) with about `sig` significant digits.
fn exp_at(y: &Dec, sig: u32) -> Dec {
    if y.neg {
        let pos = exp_at(&y.neg(), sig + 4);
        let digits = big::decimal_len(&pos.mag) as i64 - pos.scale as i64;
        let scale = (sig as i64 + digits.max(0) + 4) as u32;
        return one().div(&pos, scale, false);
    }
    let mut halvings = 0u32;
    let lim = Dec::new(false, vec![1], 2);
    let mut r = y.clone();
    let ws = sig + 16 + y.log10_approx().max(0.0) as u32 * 4;
    let two = Dec::new(false, vec![2], 0);
    while r.cmp_abs(&lim) == Ordering::Greater && halvings < 4000 {
        r = r.div(&two, ws, false);
        halvings += 1;
    }
    let ws = ws + halvings / 3;
    let mut sum = one().add(&r);
    let mut term = r.clone();
    let mut k = 2u32;
    loop {
        term = term
            .mul(&r)
            .div(&Dec::new(false, big::from_u128(k as u128), 0), ws, false);
        if term.is_zero() {
            break;
        }
        sum = sum.add(&term);
        k += 1;
    }
    for _ in 0..halvings {
        sum = sum.mul(&sum).round_sig(ws);
    }
    sum
}

impl fmt::Display for Numeric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.0 {
            Repr::NaN => f.write_str("NaN"),
            Repr::PosInf => f.write_str("Infinity"),
            Repr::NegInf => f.write_str("-Infinity"),
            Repr::Finite(d) => d.fmt(f),
        }
    }
}

impl Ord for Numeric {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self.dec(), other.dec()) {
            (Some(a), Some(b)) => a.cmp_value(b),
            _ => self.special_cmp_key().cmp(&other.special_cmp_key()),
        }
    }
}

impl PartialOrd for Numeric {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Numeric {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Numeric {}

impl Hash for Numeric {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.normalized_text().hash(state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Numeric {
        Numeric::parse(s).unwrap()
    }

    #[test]
    fn storage_form_round_trips_and_sort_keys_order_by_value() {
        let vals = [
            "-Infinity",
            "-1e30",
            "-123.45",
            "-123.4",
            "-1",
            "-0.001",
            "0",
            "0.00",
            "0.001",
            "0.0010",
            "1",
            "1.0",
            "1.5",
            "1.50",
            "9.99",
            "10",
            "123.4",
            "123.45",
            "1e30",
            "Infinity",
            "NaN",
        ];
        let nums: Vec<Numeric> = vals.iter().map(|s| n(s)).collect();
        for v in &nums {
            let mut b = Vec::new();
            v.encode_storage(&mut b);
            assert_eq!(b.len(), v.storage_len());
            let back = Numeric::decode_storage(&b).unwrap();
            assert_eq!(back.to_string(), v.to_string());
        }
        assert!(Numeric::decode_storage(&[0, 0, 0, 0, 0, 0, 0]).is_none());
        assert!(Numeric::decode_storage(&[9]).is_none());
        let key = |v: &Numeric| {
            let mut b = Vec::new();
            v.encode_sort_key(&mut b);
            b
        };
        for a in &nums {
            for b in &nums {
                assert_eq!(key(a).cmp(&key(b)), a.cmp(b), "{a} vs {b}");
            }
        }
    }

    #[test]
    fn parse_and_print_keep_scale() {
        for (i, o) in [
            (" 1.50 ", "1.50"),
            ("1.5e3", "1500"),
            (".5", "0.5"),
            ("5.", "5"),
            ("-0.00", "0.00"),
            ("1e-3", "0.001"),
            ("007", "7"),
            ("inf", "Infinity"),
            ("-Infinity", "-Infinity"),
            ("NaN", "NaN"),
        ] {
            assert_eq!(n(i).to_string(), o, "{i}");
        }
        for bad in ["", "abc", "1e", "-", ".", "1.2.3", "-nan", "1 2"] {
            let e = Numeric::parse(bad).unwrap_err();
            assert_eq!(e.code, SqlState::InvalidTextRepresentation, "{bad}");
        }
        for big in ["1e-20000", "1e200000", "1e2147483647"] {
            assert_eq!(
                Numeric::parse(big).unwrap_err().message,
                "value overflows numeric format"
            );
        }
    }

    #[test]
    fn division_scales_like_postgres() {
        let div = |a: &str, b: &str| n(a).div(&n(b)).unwrap().to_string();
        assert_eq!(div("1", "3"), "0.33333333333333333333");
        assert_eq!(div("10", "4"), "2.5000000000000000");
        assert_eq!(div("1.0", "3.00000"), "0.33333333333333333333");
        assert_eq!(div("123456789", "0.001"), "123456789000.00000000");
        assert_eq!(div("2", "3"), "0.66666666666666666667");
        assert_eq!(div("-2", "3"), "-0.66666666666666666667");
        assert_eq!(div("5", "Infinity"), "0");
        assert_eq!(
            n("1").div(&n("0")).unwrap_err().code,
            SqlState::DivisionByZero
        );
        assert_eq!(div("NaN", "0"), "NaN");
    }

    #[test]
    fn sqrt_and_power_scales() {
        let sqrt = |a: &str| n(a).sqrt().unwrap().to_string();
        assert_eq!(sqrt("2"), "1.414213562373095");
        assert_eq!(sqrt("100"), "10.000000000000000");
        assert_eq!(sqrt("0.0001"), "0.01000000000000000");
        assert_eq!(sqrt("2.000000000000000000000"), "1.414213562373095048802");
        let pow = |a: &str, b: &str| n(a).power(&n(b)).unwrap().to_string();
        assert_eq!(pow("2", "10"), "1024.0000000000000000");
        assert_eq!(pow("2.5", "2"), "6.2500000000000000");
        assert_eq!(pow("10", "20"), "100000000000000000000.0000000000000000");
        assert_eq!(pow("2", "-2"), "0.2500000000000000");
        assert_eq!(pow("1.1", "100"), "13780.6123398222701841");
        assert_eq!(pow("2", "0.5"), "1.4142135623730950");
        assert_eq!(pow("1.5", "0.5"), "1.2247448713915890");
        assert_eq!(pow("10", "2605.5").len(), 2608);
        assert!(n("10").power(&n("2610.5")).is_err());
        assert_eq!(pow("10", "-1000.5").len(), 1002);
        assert!(n("0").power(&n("-1")).is_err());
        assert!(n("-2").power(&n("0.5")).is_err());
        assert_eq!(
            n("10").power(&n("1000000")).unwrap_err().message,
            "value overflows numeric format"
        );
    }

    #[test]
    fn ln_log_exp_like_postgres() {
        let ln = |a: &str| n(a).ln().unwrap().to_string();
        assert_eq!(ln("10"), "2.3025850929940457");
        assert_eq!(ln("1.0"), "0.0000000000000000");
        assert_eq!(ln("1.05"), "0.048790164169432003");
        assert_eq!(ln("1e-10"), "-23.025850929940457");
        assert_eq!(ln("1.0000000001"), "0.00000000009999999999500000");
        assert_eq!(ln("0.9"), "-0.10536051565782630");
        assert_eq!(
            ln("2.000000000000000000000000000000"),
            "0.693147180559945309417232121458"
        );
        assert_eq!(ln("9.99999999999999999999e300"), "693.07811299120775");
        assert_eq!(
            n("0").ln().unwrap_err().code,
            SqlState::InvalidArgumentForLogarithm
        );
        let log = |b: &str, x: &str| Numeric::log(&n(b), &n(x)).unwrap().to_string();
        assert_eq!(log("10", "100"), "2.0000000000000000");
        assert_eq!(log("1.1", "2"), "7.272540897341719");
        assert_eq!(log("2", "1.0000000001"), "0.00000000014426950408168287");
        assert_eq!(
            Numeric::log(&n("1"), &n("10")).unwrap_err().code,
            SqlState::DivisionByZero
        );
        let exp = |a: &str| n(a).exp().unwrap().to_string();
        assert_eq!(exp("1.0"), "2.7182818284590452");
        assert_eq!(exp("10.5"), "36315.502674246638");
        assert_eq!(exp("100"), "26881171418161354484126255515800135873611119");
        assert_eq!(
            exp("-100"),
            "0.00000000000000000000000000000000000000000003720075976020836"
        );
        assert_eq!(exp("1e-20"), "1.00000000000000000001");
        assert!(n("6000").exp().is_err());
        let pow = |a: &str, b: &str| n(a).power(&n(b)).unwrap().to_string();
        assert_eq!(pow("2", "0.5"), "1.4142135623730950");
        assert_eq!(pow("100", "1.5"), "1000.0000000000000");
        assert_eq!(pow("2", "100.5"), "1792728671193156477399422023278.7");
        assert_eq!(pow("-1", "30000000000"), "1.0000000000000000");
        assert_eq!(pow("1.000001", "1000000"), "2.7182804693193769");
        assert_eq!(pow("-Infinity", "3"), "-Infinity");
        assert_eq!(pow("-Infinity", "-3"), "0");
        assert_eq!(pow("-2", "-Infinity"), "0");
        assert!(n("-Infinity").power(&n("4.5")).is_err());
    }

    #[test]
    fn rounding_and_typmod() {
        assert_eq!(n("1234.5678").round(-2).unwrap().to_string(), "1200");
        assert_eq!(n("-2.5").round(0).unwrap().to_string(), "-3");
        assert_eq!(n("-2.57").trunc(1).unwrap().to_string(), "-2.5");
        assert_eq!(n("-2.5").floor().unwrap().to_string(), "-3");
        assert_eq!(n("2.1").ceil().unwrap().to_string(), "3");
        assert_eq!(n("-2.1").ceil().unwrap().to_string(), "-2");
        assert_eq!(n("123.45").apply_typmod(5, -1).unwrap().to_string(), "120");
        assert_eq!(n("12345").apply_typmod(2, -3).unwrap().to_string(), "12000");
        let e = n("12345.678").apply_typmod(5, 2).unwrap_err();
        assert_eq!(e.message, "numeric field overflow");
        assert_eq!(
            e.detail.as_deref(),
            Some(
                "A field with precision 5, scale 2 must round to an absolute value less than 10^3."
            )
        );
        let e = n("1").apply_typmod(3, 3).unwrap_err();
        assert_eq!(
            e.detail.as_deref(),
            Some("A field with precision 3, scale 3 must round to an absolute value less than 1.")
        );
        assert_eq!(n("-7.5").rem(&n("2")).unwrap().to_string(), "-1.5");
        assert_eq!(n("2.5").to_i64_rounded(), Some(3));
        assert_eq!(n("-2.5").to_i64_rounded(), Some(-3));
        assert_eq!(n("9223372036854775808").to_i64_rounded(), None);
        assert_eq!(n("-9223372036854775808").to_i64_rounded(), Some(i64::MIN));
    }

    #[test]
    fn ordering_and_hash_ignore_scale() {
        use std::collections::hash_map::DefaultHasher;
        let h = |x: &Numeric| {
            let mut s = DefaultHasher::new();
            x.hash(&mut s);
            s.finish()
        };
        assert_eq!(n("1.50"), n("1.5"));
        assert_eq!(h(&n("1.50")), h(&n("1.5")));
        assert_eq!(h(&n("0.00")), h(&n("0")));
        assert!(n("NaN") > n("Infinity"));
        assert!(n("-Infinity") < n("-1e100"));
        assert!(n("-2") < n("-1.5"));
    }

    #[test]
    fn binary_format() {
        // 1234.5678 -> ndigits 2, weight 0, sign 0, dscale 4, [1234, 5678]
        assert_eq!(
            n("1234.5678").to_binary(),
            vec![0, 2, 0, 0, 0, 0, 0, 4, 0x04, 0xD2, 0x16, 0x2E]
        );
        for s in [
            "0",
            "0.00",
            "-0.001",
            "100000000",
            "1.50",
            "NaN",
            "-Infinity",
            "12345678901234567890.123",
        ] {
            let b = n(s).to_binary();
            assert_eq!(
                Numeric::from_binary(&b).unwrap().to_string(),
                n(s).to_string(),
                "{s}"
            );
        }
        assert!(Numeric::from_binary(&[0, 1, 0, 0, 0, 0, 0, 0]).is_err());
    }
}
