//! The final step of the ordered-set aggregates (PostgreSQL's
//! orderedsetaggs.c): `percentile_cont`, `percentile_disc`, `mode` and the
//! hypothetical-set `rank`, `dense_rank`, `percent_rank`, `cume_dist`.
//!
//! Aggregation buffers each group's WITHIN GROUP keys as it buffers the
//! rows of `array_agg(x ORDER BY y)` (charged to the query's memory
//! budget) and sorts them by the keys' ORDER BY; these functions read the
//! sorted keys with the direct arguments evaluated on the group's first
//! row. percentile_cont/percentile_disc/mode never see NULL inputs (they
//! are left out as rows arrive); the hypothetical-set aggregates count
//! them where their NULLS FIRST/LAST puts them.
//!
//! ```text
//!   percentile_cont(0.4) over 1..5:  position 0.4 * (5 - 1) = 1.6
//!                                    rows 1 and 2 (values 2, 3): 2 + 0.6 * (3 - 2) = 2.6
//!   percentile_disc(0.4) over 1..5:  row ceil(0.4 * 5) = 2 (1-based): 2
//!   rank(3) over {1,1,2,2,3,3,4}:    1 + rows sorting before 3 = 5
//! ```

use std::cmp::Ordering;

use nestor_common::{DbError, SqlState};
use nestor_plan::ir::{AggCall, AggFunc, AggOrder, HypotheticalRank};
use nestor_plan::valops;
use nestor_types::array::Array;
use nestor_types::datatype::DataType;
use nestor_types::{EvalCtx, Value};

/// Whether a NULL aggregated value is left out (all but the
/// hypothetical-set aggregates).
pub(super) fn skips_nulls(f: AggFunc) -> bool {
    !matches!(f, AggFunc::Hypothetical(_))
}

/// Compare two rows of sort keys by `order` (NULLS FIRST/LAST, DESC).
pub(super) fn cmp_keys(a: &[Value], b: &[Value], order: &[AggOrder], ec: &EvalCtx) -> Ordering {
    for (k, o) in order.iter().enumerate() {
        let (x, y) = (&a[k], &b[k]);
        let c = match (x.is_null(), y.is_null()) {
            (true, true) => Ordering::Equal,
            (true, false) if o.nulls_first => Ordering::Less,
            (true, false) => Ordering::Greater,
            (false, true) if o.nulls_first => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) if o.desc => valops::compare(y, x, ec),
            (false, false) => valops::compare(x, y, ec),
        };
        if c != Ordering::Equal {
            return c;
        }
    }
    Ordering::Equal
}

/// The aggregate's value over the group's sorted keys (`rows`, one
/// vector of WITHIN GROUP keys each) and its direct arguments.
pub(super) fn finish(
    call: &AggCall,
    direct: &[Value],
    rows: &[Vec<Value>],
    ec: &EvalCtx,
) -> Result<Value, DbError> {
    let first = direct.first().cloned().unwrap_or(Value::Null);
    match call.func {
        AggFunc::PercentileCont { array: false } | AggFunc::PercentileDisc { array: false } => {
            if first.is_null() {
                return Ok(Value::Null);
            }
            let p = fraction(&first)?;
            if rows.is_empty() {
                return Ok(Value::Null);
            }
            let cont = matches!(call.func, AggFunc::PercentileCont { .. });
            pick(rows, p, cont, ec)
        }
        AggFunc::PercentileCont { array: true } | AggFunc::PercentileDisc { array: true } => {
            if rows.is_empty() || first.is_null() {
                return Ok(Value::Null);
            }
            let Value::Array(ps) = first else {
                return Err(DbError::internal("percentile array is not an array"));
            };
            let elem = call.ty.element().unwrap_or(DataType::Float8);
            let cont = matches!(call.func, AggFunc::PercentileCont { .. });
            let fractions = ps
                .items
                .iter()
                .map(|p| (!p.is_null()).then(|| fraction(p)).transpose())
                .collect::<Result<Vec<_>, DbError>>()?;
            let mut items = Vec::with_capacity(fractions.len());
            for p in fractions {
                items.push(match p {
                    Some(p) => pick(rows, p, cont, ec)?,
                    None => Value::Null,
                });
            }
            if items.is_empty() {
                return Ok(Array::from_items(elem, items).value());
            }
            Ok(Array::new(elem, ps.dims.clone(), items)?.value())
        }
        AggFunc::Mode => Ok(mode(rows, ec)),
        AggFunc::Hypothetical(kind) => Ok(hypothetical(kind, direct, rows, &call.order, ec)),
        _ => Err(DbError::internal("not an ordered-set aggregate")),
    }
}

/// A percentile argument as a fraction in [0, 1] (22003 otherwise).
fn fraction(v: &Value) -> Result<f64, DbError> {
    let p = match v {
        Value::Float8(p) => *p,
        other => return Err(DbError::internal(format!("percentile {other:?}"))),
    };
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return Err(DbError::new(
            SqlState::NumericValueOutOfRange,
            format!("percentile value {} is not between 0 and 1", format_g(p)),
        ));
    }
    Ok(p)
}

/// The value at fraction `p` of the sorted non-empty `rows`:
/// interpolated between the two nearest rows (`cont`), or the first row
/// whose position reaches `p`.
fn pick(rows: &[Vec<Value>], p: f64, cont: bool, ec: &EvalCtx) -> Result<Value, DbError> {
    let n = rows.len();
    if !cont {
        let row = ((p * n as f64).ceil() as usize).clamp(1, n);
        return Ok(rows[row - 1][0].clone());
    }
    let pos = p * (n - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    let (a, b) = (&rows[lo.min(n - 1)][0], &rows[hi.min(n - 1)][0]);
    if lo == hi {
        return Ok(a.clone());
    }
    lerp(a, b, pos - lo as f64, ec)
}

/// `lo + t * (hi - lo)` for float8; `(hi - lo) * t + lo` for interval
/// (PostgreSQL's float8_lerp and interval_lerp).
fn lerp(lo: &Value, hi: &Value, t: f64, ec: &EvalCtx) -> Result<Value, DbError> {
    match (lo, hi) {
        (Value::Float8(a), Value::Float8(b)) => Ok(Value::Float8(a + t * (b - a))),
        _ => {
            use valops::Arith;
            let diff = valops::arith(Arith::Sub, hi, lo, ec)?;
            let scaled = valops::arith(Arith::Mul, &diff, &Value::Float8(t), ec)?;
            valops::arith(Arith::Add, &scaled, lo, ec)
        }
    }
}

/// The most frequent value; among equally frequent ones the first in
/// sort order (NULL without rows).
fn mode(rows: &[Vec<Value>], ec: &EvalCtx) -> Value {
    let mut best: Option<(&Value, usize)> = None;
    let mut run: Option<(&Value, usize)> = None;
    for r in rows {
        let v = &r[0];
        run = match run {
            Some((last, n)) if valops::compare(last, v, ec) == Ordering::Equal => {
                Some((last, n + 1))
            }
            _ => Some((v, 1)),
        };
        let (rv, rn) = run.expect("set above");
        if best.is_none_or(|(_, bn)| rn > bn) {
            best = Some((rv, rn));
        }
    }
    best.map_or(Value::Null, |(v, _)| v.clone())
}

/// The rank-like position of the hypothetical row `h` among `rows`
/// (sorted): it sorts before its peers for rank, dense_rank and
/// percent_rank, after them for cume_dist.
fn hypothetical(
    kind: HypotheticalRank,
    h: &[Value],
    rows: &[Vec<Value>],
    order: &[AggOrder],
    ec: &EvalCtx,
) -> Value {
    let n = rows.len() as i64;
    let before = rows
        .iter()
        .filter(|r| cmp_keys(r, h, order, ec) == Ordering::Less)
        .count() as i64;
    match kind {
        HypotheticalRank::Rank => Value::Int8(1 + before),
        HypotheticalRank::PercentRank if n == 0 => Value::Float8(0.0),
        HypotheticalRank::PercentRank => Value::Float8(before as f64 / n as f64),
        HypotheticalRank::CumeDist => {
            let peers = rows
                .iter()
                .filter(|r| cmp_keys(r, h, order, ec) == Ordering::Equal)
                .count() as i64;
            Value::Float8((1 + before + peers) as f64 / (n + 1) as f64)
        }
        HypotheticalRank::DenseRank => {
            let less: Vec<&Vec<Value>> = rows
                .iter()
                .filter(|r| cmp_keys(r, h, order, ec) == Ordering::Less)
                .collect();
            let distinct = less
                .iter()
                .enumerate()
                .filter(|(i, r)| *i == 0 || cmp_keys(less[*i - 1], r, order, ec) != Ordering::Equal)
                .count() as i64;
            Value::Int8(1 + distinct)
        }
    }
}

/// A float8 as C's `%g` prints it (six significant digits), which
/// PostgreSQL uses in the percentile message.
fn format_g(p: f64) -> String {
    if p.is_nan() {
        return "NaN".into();
    }
    if p.is_infinite() {
        return if p > 0.0 { "inf" } else { "-inf" }.into();
    }
    let sci = format!("{p:.5e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{}e{sign}{:02}", trim(mantissa), exp.abs());
    }
    trim(&format!("{:.*}", (5 - exp) as usize, p))
}

#[cfg(test)]
mod tests {
    use super::format_g;

    #[test]
    fn percent_g() {
        assert_eq!(format_g(1.5), "1.5");
        assert_eq!(format_g(-1e-7), "-1e-07");
        assert_eq!(format_g(-0.5), "-0.5");
        assert_eq!(format_g(2.0), "2");
        assert_eq!(format_g(1234567.0), "1.23457e+06");
        assert_eq!(format_g(f64::NAN), "NaN");
    }
}
