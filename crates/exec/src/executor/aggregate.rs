//! Aggregation: GROUP BY with the aggregate functions, one hash group per
//! distinct key (groups come out in first-seen order while the table fits
//! in work_mem; past it, rows of new groups go to hash batches aggregated
//! afterwards, crate::spill::hash).
//!
//! The input rows are borrowed (`run_ref`: a sequential scan lends its one
//! buffer). Without GROUP BY no key is built per row. count and the
//! integer totals of sum/avg take a column or constant argument where it
//! is (`add_in_place`, no clone of the value); the other aggregates, and
//! any with DISTINCT or ORDER BY, get the value itself.
//!
//! With an aggregate that has DISTINCT or ORDER BY (ordered-set ones
//! included), which PostgreSQL cannot hash, the groups come out in key
//! order, as PostgreSQL's sorted aggregation gives them.
//!
//! GROUPING SETS read their input once into memory and aggregate it once
//! per set; each group's row is widened to all the group columns (NULL
//! where the set lacks one) followed by the set's mask. For `GROUP BY
//! ROLLUP (a)` over a = {1, 1, 2}, with count(*):
//!
//! ```text
//!   set (a): (1, mask 0, 2), (2, mask 0, 1)
//!   set ():  (NULL, mask 1, 3)
//! ```

use std::collections::{HashMap, HashSet};

use nestor_common::DbError;
use std::sync::Arc;

use nestor_plan::ir::{AggCall, AggFunc, AggOrder, AggSpec, Expr, Plan, UserAgg};
use nestor_plan::valops;
use nestor_types::array::Array;
use nestor_types::datatype::DataType;
use nestor_types::moments::{FloatMoments, MomentAgg, NumericMoments};
use nestor_types::regr::{RegrAgg, RegrMoments};
use nestor_types::Value;

use super::eval::{truthy, Eval};
use super::{distinct_key, ordered_set, run_ref, Emit, EmitRef, Row};
use crate::context::Ev;
use crate::spill::hash::{Batches, DEPTH_MAX};
use crate::workmem::{entry_bytes, ENTRY_OVERHEAD_BYTES};

/// Running state of one aggregate in one group.
#[derive(Clone)]
pub(super) enum Acc {
    Count(i64),
    Sum(Option<Value>, DataType),
    Avg(Option<Value>, i64),
    /// sum() of int2/int4 (result bigint): an i64 total, checked as
    /// PostgreSQL's int8 accumulator is (22003 when it overflows).
    IntSum(i64),
    /// sum() of int8 and avg() of any integer: an exact i128 total and the
    /// count (PostgreSQL's int128 accumulators), turned into numeric once
    /// at the end instead of a numeric addition per row.
    WideSum(i128, i64, AggFunc),
    MinMax(Option<Value>, bool),
    Bool(Option<bool>, bool),
    /// string_agg: the bytes so far, the constant delimiter (None: each
    /// row brings its own, the argument being the record `(value,
    /// delimiter)`), and whether the result is bytea (else text).
    Str(Option<Vec<u8>>, Option<Vec<u8>>, bool),
    /// array_agg: the values so far (NULLs included), their type, and
    /// whether they are arrays to stack (array_agg of arrays).
    Array(Vec<Value>, DataType, bool),
    /// json_agg / jsonb_agg / json(b)_object_agg: the json(b) values (or
    /// `[key, value]` pairs) so far, NULLs included.
    Json(Vec<Value>, AggFunc),
    /// var_pop and the others over integers and numeric.
    NumericMoments(NumericMoments, MomentAgg),
    /// var_pop and the others over float4 and float8.
    FloatMoments(FloatMoments, MomentAgg),
    /// regr_*, covar_* and corr over `(y, x)` records.
    Regr(RegrMoments, RegrAgg),
    /// An ordered-set aggregate (super::ordered_set): its direct
    /// arguments once the group's first row gave them, then its result
    /// (its keys wait in the group's ORDER BY buffer).
    OrderedSet(Option<Vec<Value>>, Value),
    /// bit_and / bit_or / bit_xor: the inputs so far folded with the
    /// operator (`&`, `|`, `#`); None before the first non-NULL one.
    Bitwise(Option<Value>, u8),
    /// A CREATE AGGREGATE aggregate: its state, run by its own steps
    /// ([`acc_step`], [`acc_done`]).
    User(Box<UserState>),
    /// range_intersect_agg: the intersection so far.
    RangeIntersect(Option<Value>),
}

/// The running state of a user aggregate: `empty` until a strict
/// transition function without INITCOND has taken the first non-NULL
/// input as the state (PostgreSQL's noTransValue).
#[derive(Clone)]
pub(super) struct UserState {
    agg: Option<Arc<UserAgg>>,
    state: Value,
    empty: bool,
}

pub(super) fn acc_new(c: &AggCall) -> Acc {
    match c.func {
        AggFunc::CountStar | AggFunc::Count => Acc::Count(0),
        AggFunc::Sum => Acc::Sum(None, c.ty),
        AggFunc::Avg => Acc::Avg(None, 0),
        AggFunc::Min => Acc::MinMax(None, false),
        AggFunc::Max => Acc::MinMax(None, true),
        AggFunc::BoolAnd => Acc::Bool(None, true),
        AggFunc::BoolOr => Acc::Bool(None, false),
        AggFunc::RangeIntersect => Acc::RangeIntersect(None),
        AggFunc::Bitwise(op) => Acc::Bitwise(None, op),
        AggFunc::StringAgg => {
            let d = c.delimiter.as_ref().map(|d| match d {
                Value::Bytea(b) => b.to_vec(),
                d => d.as_str().unwrap_or("").as_bytes().to_vec(),
            });
            Acc::Str(None, d, c.ty == DataType::Bytea)
        }
        AggFunc::ArrayAgg => Acc::Array(Vec::new(), c.ty.element().expect("an array type"), false),
        AggFunc::ArrayAggArrays => {
            Acc::Array(Vec::new(), c.ty.element().expect("an array type"), true)
        }
        f @ (AggFunc::JsonAgg { .. } | AggFunc::JsonObjectAgg { .. }) => Acc::Json(Vec::new(), f),
        AggFunc::Moment(m) if c.ty == DataType::Float8 => {
            Acc::FloatMoments(FloatMoments::default(), m)
        }
        AggFunc::Moment(m) => Acc::NumericMoments(NumericMoments::default(), m),
        AggFunc::Regr(r) => Acc::Regr(RegrMoments::default(), r),
        AggFunc::PercentileCont { .. }
        | AggFunc::PercentileDisc { .. }
        | AggFunc::Mode
        | AggFunc::Hypothetical(_) => Acc::OrderedSet(None, Value::Null),
        AggFunc::User => {
            let init = c
                .user
                .as_ref()
                .map_or(Value::Null, |u| u.steps.init.clone());
            Acc::User(Box::new(UserState {
                agg: c.user.clone(),
                empty: init.is_null(),
                state: init,
            }))
        }
    }
}

fn sum_type(v: &Value, result: DataType) -> DataType {
    match v {
        Value::Float4(_) | Value::Float8(_) | Value::Interval(_) | Value::Money(_) => result,
        _ if result == DataType::Int8 => DataType::Int8,
        _ => DataType::NUMERIC,
    }
}

pub(super) fn acc_add(acc: &mut Acc, v: Value, ec: &nestor_types::EvalCtx) -> Result<(), DbError> {
    if let Acc::Array(items, _, _) = acc {
        items.push(v);
        return Ok(());
    }
    if let Acc::Json(items, f) = acc {
        if matches!(f, AggFunc::JsonObjectAgg { .. }) {
            json_pair(&v, ec)?;
        }
        items.push(v);
        return Ok(());
    }
    if v.is_null() || matches!(acc, Acc::OrderedSet(..) | Acc::User(_)) {
        return Ok(());
    }
    if let Some(done) = int_add(acc, &v)? {
        return Ok(done);
    }
    match acc {
        Acc::Count(n) => *n += 1,
        Acc::IntSum(_) | Acc::WideSum(..) => unreachable!("int_add took it"),
        Acc::Sum(s, ty) => {
            let t = sum_type(&v, *ty);
            let v = valops::cast(v, t, true, ec)?;
            *s = Some(match s.take() {
                None => v,
                Some(x) => valops::arith(valops::Arith::Add, &x, &v, ec)?,
            });
        }
        Acc::Avg(s, n) => {
            let t = match v {
                Value::Float4(_) | Value::Float8(_) => DataType::Float8,
                Value::Interval(_) => DataType::Interval(None),
                _ => DataType::NUMERIC,
            };
            let v = valops::cast(v, t, true, ec)?;
            *s = Some(match s.take() {
                // PostgreSQL's float8_accum starts from 0: avg('-0') is 0.
                None => match v {
                    Value::Float8(x) => Value::Float8(0.0 + x),
                    v => v,
                },
                Some(x) => valops::arith(valops::Arith::Add, &x, &v, ec)?,
            });
            *n += 1;
        }
        Acc::MinMax(m, max) => {
            let better = match m {
                None => true,
                Some(cur) => {
                    let o = valops::compare(&v, cur, ec);
                    if *max {
                        o.is_gt()
                    } else {
                        o.is_lt()
                    }
                }
            };
            if better {
                *m = Some(v);
            }
        }
        Acc::RangeIntersect(r) => {
            *r = Some(match r.take() {
                None => v,
                Some(cur) => nestor_types::range::catalog::intersect_values(&cur, &v)?,
            });
        }
        Acc::Bool(b, and) => {
            let x = truthy(&v).unwrap_or(*and);
            *b = Some(match b {
                None => x,
                Some(y) => {
                    if *and {
                        *y && x
                    } else {
                        *y || x
                    }
                }
            });
        }
        Acc::Bitwise(x, op) => {
            *x = Some(match x.take() {
                None => v,
                Some(x) => bitwise_step(*op, &x, &v)?,
            });
        }
        Acc::Array(..) | Acc::Json(..) | Acc::OrderedSet(..) | Acc::User(_) => {
            unreachable!("handled above")
        }
        Acc::NumericMoments(m, _) => match valops::cast(v, DataType::NUMERIC, true, ec)? {
            Value::Numeric(x) => m.add(&x)?,
            other => unreachable!("a cast to numeric gave {other:?}"),
        },
        Acc::FloatMoments(m, _) => match valops::cast(v, DataType::Float8, true, ec)? {
            Value::Float8(x) => m.add(x)?,
            other => unreachable!("a cast to float8 gave {other:?}"),
        },
        // A pair with a NULL is skipped (the binder made both float8).
        Acc::Regr(m, _) => {
            let Value::Record(pair) = &v else {
                return Err(DbError::internal(format!("regression pair {v:?}")));
            };
            if let (Some(Value::Float8(y)), Some(Value::Float8(x))) = (pair.first(), pair.get(1)) {
                m.add(*y, *x)?;
            }
        }
        Acc::Str(s, delimiter, _) => {
            // string_agg_transfn: a NULL value adds nothing; the first
            // value's delimiter is dropped; a NULL delimiter is empty.
            let (value, row_delimiter) = match (&v, &delimiter) {
                (Value::Record(pair), None) => (&pair[0], pair.get(1)),
                _ => (&v, None),
            };
            let bytes = |x: &Value| -> Vec<u8> {
                match x {
                    Value::Bytea(b) => b.to_vec(),
                    Value::Null => Vec::new(),
                    x => valops::to_text(x, ec).unwrap_or_default().into_bytes(),
                }
            };
            if value.is_null() {
                return Ok(());
            }
            let t = bytes(value);
            match s {
                None => *s = Some(t),
                Some(cur) => {
                    match (delimiter, row_delimiter) {
                        (Some(d), _) => cur.extend_from_slice(d),
                        (None, Some(d)) => cur.extend_from_slice(&bytes(d)),
                        (None, None) => {}
                    }
                    cur.extend_from_slice(&t);
                }
            }
        }
    }
    Ok(())
}

/// One step of bit_and / bit_or / bit_xor (`op` is `&`, `|` or `#`): the
/// integer operator in the state's width, or the bit string one (22026
/// for bit strings of different lengths).
fn bitwise_step(op: u8, x: &Value, v: &Value) -> Result<Value, DbError> {
    if let (Value::Bits(a), Value::Bits(b)) = (x, v) {
        return Ok(nestor_types::bits::bitwise(op, a, b)?.value());
    }
    let (Some(a), Some(b)) = (x.as_i64(), v.as_i64()) else {
        return Err(DbError::internal(format!(
            "bitwise aggregate of {x:?} and {v:?}"
        )));
    };
    let r = match op {
        b'&' => a & b,
        b'|' => a | b,
        _ => a ^ b,
    };
    // Both operands have the state's type, so the result fits it.
    Ok(match x {
        Value::Int2(_) => Value::Int2(r as i16),
        Value::Int4(_) => Value::Int4(r as i32),
        _ => Value::Int8(r),
    })
}

/// Feed a borrowed value to the accumulators that need no copy of it:
/// count (its value's nullness) and the integer totals of sum/avg
/// ([`int_add`]). False when `acc` needs the value itself ([`acc_add`]).
/// The caller has ruled out DISTINCT and ORDER BY.
fn add_in_place(acc: &mut Acc, v: &Value) -> Result<bool, DbError> {
    match acc {
        Acc::Count(n) => {
            if !v.is_null() {
                *n += 1;
            }
            Ok(true)
        }
        Acc::Sum(..) | Acc::Avg(..) | Acc::IntSum(_) | Acc::WideSum(..) => {
            if v.is_null() {
                return Ok(true);
            }
            Ok(int_add(acc, v)?.is_some())
        }
        _ => Ok(false),
    }
}

/// The integer fast path of sum() and avg(): Some(()) when `v` went into
/// an integer total. A first integer value turns an empty Sum/Avg into
/// one; a value of another kind turns a total back into the generic form.
fn int_add(acc: &mut Acc, v: &Value) -> Result<Option<()>, DbError> {
    let i = match v {
        Value::Int2(x) => Some(*x as i64),
        Value::Int4(x) => Some(*x as i64),
        Value::Int8(x) => Some(*x),
        _ => None,
    };
    match (&mut *acc, i) {
        (Acc::IntSum(s), Some(i)) => {
            *s = s.checked_add(i).ok_or_else(bigint_out_of_range)?;
        }
        (Acc::WideSum(s, n, _), Some(i)) => {
            *s += i as i128;
            *n += 1;
        }
        (Acc::Sum(None, DataType::Int8), Some(i)) if !matches!(v, Value::Int8(_)) => {
            *acc = Acc::IntSum(i);
        }
        (Acc::Sum(None, _), Some(i)) => *acc = Acc::WideSum(i as i128, 1, AggFunc::Sum),
        (Acc::Avg(None, _), Some(i)) => *acc = Acc::WideSum(i as i128, 1, AggFunc::Avg),
        (Acc::IntSum(_) | Acc::WideSum(..), None) => {
            *acc = generic(acc.clone())?;
            return Ok(None);
        }
        _ => return Ok(None),
    }
    Ok(Some(()))
}

/// An integer total in Sum/Avg's generic form (numeric, or bigint for
/// IntSum).
fn generic(acc: Acc) -> Result<Acc, DbError> {
    Ok(match acc {
        Acc::IntSum(s) => Acc::Sum(Some(Value::Int8(s)), DataType::Int8),
        Acc::WideSum(s, n, f) => {
            use nestor_types::numeric::Numeric;
            let total = Value::Numeric(match i64::try_from(s) {
                Ok(small) => Numeric::from_i64(small),
                Err(_) => Numeric::parse(&s.to_string())?,
            });
            match f {
                AggFunc::Avg => Acc::Avg(Some(total), n),
                _ => Acc::Sum(Some(total), DataType::NUMERIC),
            }
        }
        other => other,
    })
}

fn bigint_out_of_range() -> DbError {
    DbError::new(
        nestor_common::SqlState::NumericValueOutOfRange,
        "bigint out of range",
    )
}

pub(super) fn acc_finish(acc: Acc, ec: &nestor_types::EvalCtx) -> Result<Value, DbError> {
    let acc = generic(acc)?;
    Ok(match acc {
        Acc::Count(n) => Value::Int8(n),
        Acc::IntSum(_) | Acc::WideSum(..) => unreachable!("made generic above"),
        Acc::Sum(s, _) => s.unwrap_or(Value::Null),
        Acc::Avg(None, _) => Value::Null,
        Acc::Avg(Some(s), n) => {
            let t = match s {
                Value::Float8(_) => DataType::Float8,
                // interval / bigint
                Value::Interval(_) => DataType::Int8,
                _ => DataType::NUMERIC,
            };
            let d = valops::cast(Value::Int8(n), t, true, ec)?;
            valops::arith(valops::Arith::Div, &s, &d, ec)?
        }
        Acc::MinMax(m, _) => m.unwrap_or(Value::Null),
        Acc::Bool(b, _) => b.map_or(Value::Null, Value::Bool),
        Acc::RangeIntersect(r) => r.unwrap_or(Value::Null),
        Acc::Bitwise(v, _) => v.unwrap_or(Value::Null),
        Acc::Str(None, ..) => Value::Null,
        Acc::Str(Some(b), _, true) => Value::Bytea(b.into()),
        Acc::Str(Some(b), _, false) => Value::Text(
            String::from_utf8(b)
                .expect("text values and delimiters are UTF-8")
                .into(),
        ),
        // No input rows: NULL, as PostgreSQL's array_agg.
        Acc::Array(items, _, _) if items.is_empty() => Value::Null,
        Acc::Array(items, elem, true) => Array::stack(elem, items)?.value(),
        Acc::Array(items, elem, false) => Array::from_items(elem, items).value(),
        Acc::Json(items, _) if items.is_empty() => Value::Null,
        Acc::Json(items, f) => json_finish(&items, f, ec)?,
        Acc::NumericMoments(m, agg) => m.finish(agg)?.map_or(Value::Null, Value::Numeric),
        Acc::FloatMoments(m, agg) => m.finish(agg).map_or(Value::Null, Value::Float8),
        Acc::Regr(m, RegrAgg::Count) => Value::Int8(m.count()),
        Acc::Regr(m, agg) => m.finish(agg).map_or(Value::Null, Value::Float8),
        Acc::OrderedSet(_, result) => result,
        Acc::User(u) => u.state,
    })
}

/// Feed a value to an accumulator: [`acc_add`], or a user aggregate's
/// transition function (which may run SQL, so it needs the executor).
pub(super) fn acc_step(acc: &mut Acc, v: Value, ev: &mut Ev) -> Result<(), DbError> {
    let Acc::User(u) = acc else {
        return acc_add(acc, v, &ev.ctx.eval);
    };
    let Some(agg) = u.agg.clone() else {
        return Err(DbError::internal("user aggregate without its steps"));
    };
    let steps = &agg.steps;
    // The step row: [state, value1, ..., valueN] (several arguments
    // arrive as the record of them; none as a placeholder, dropped).
    let mut row = Vec::with_capacity(steps.nargs + 1);
    row.push(Value::Null);
    match (steps.nargs, v) {
        (0, _) => {}
        (1, v) => row.push(v),
        (_, Value::Record(fields)) => row.extend(fields.iter().cloned()),
        (_, _) => return Err(DbError::internal("aggregate arguments are not a record")),
    }
    if steps.sfunc_strict {
        // PostgreSQL's strict transition: rows with a NULL input are
        // skipped, the first other row's first input becomes a missing
        // initial state, and a state the function made NULL stays NULL.
        if row[1..].iter().any(Value::is_null) {
            return Ok(());
        }
        if u.empty && steps.nargs > 0 {
            u.state = row.swap_remove(1);
            u.empty = false;
            return Ok(());
        }
        if u.state.is_null() {
            return Ok(());
        }
    }
    row[0] = std::mem::replace(&mut u.state, Value::Null);
    u.state = steps.sfunc.eval(&row, ev)?;
    u.empty = false;
    Ok(())
}

/// An accumulator's result: [`acc_finish`], or a user aggregate's final
/// function over its state (NULL for a strict one over a NULL state).
pub(super) fn acc_done(acc: Acc, ev: &mut Ev) -> Result<Value, DbError> {
    let Acc::User(u) = acc else {
        return acc_finish(acc, &ev.ctx.eval);
    };
    let Some(agg) = u.agg else {
        return Err(DbError::internal("user aggregate without its steps"));
    };
    match &agg.steps.finalfunc {
        None => Ok(u.state),
        Some(_) if agg.steps.final_strict && u.state.is_null() => Ok(Value::Null),
        Some(f) => {
            let mut row = vec![Value::Null; agg.steps.nargs + 1];
            row[0] = u.state;
            f.eval(&row, ev)
        }
    }
}

/// The key (as text) and value (as jsonb text) of an object aggregate's
/// `[key, value]` pair; 22023 for a NULL key, as PostgreSQL.
fn json_pair(v: &Value, ec: &nestor_types::EvalCtx) -> Result<(String, String), DbError> {
    use nestor_types::functions::call_scalar_ctx;
    let at = |f: &str| {
        call_scalar_ctx(f, &[v.clone(), Value::Int4(0)], ec)
            .unwrap_or(Ok(Value::Null))
            .map(|k| k.as_str().map(str::to_string))
    };
    let key = at("jsonb_array_element_text")?.ok_or_else(|| {
        DbError::new(
            nestor_common::SqlState::InvalidParameterValue,
            "field name must not be null",
        )
    })?;
    let value = call_scalar_ctx("jsonb_array_element", &[v.clone(), Value::Int4(1)], ec)
        .unwrap_or(Ok(Value::Null))?;
    let value = match value {
        Value::Jsonb(s) | Value::Text(s) => s.to_string(),
        _ => "null".to_string(),
    };
    Ok((key, value))
}

/// The aggregate's json(b) text: PostgreSQL's json_agg layout (`, `
/// between items, arrays on a line of their own) and json_object_agg's
/// `{ "k" : v, ... }`; jsonb results normalized (later duplicate keys
/// win).
fn json_finish(items: &[Value], f: AggFunc, ec: &nestor_types::EvalCtx) -> Result<Value, DbError> {
    let mut out = String::new();
    let item_text = |v: &Value| match v {
        Value::Null => "null".to_string(),
        Value::Jsonb(s) | Value::Text(s) => s.to_string(),
        other => valops::to_text(other, ec).unwrap_or_default(),
    };
    let binary = match f {
        AggFunc::JsonAgg { binary, structured } => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                    // NULL (to_json gives SQL NULL or json null) stays
                    // on the line.
                    let null = v.is_null() || v.as_str() == Some("null");
                    if structured && !binary && !null {
                        out.push_str("\n ");
                    }
                }
                out.push_str(&item_text(v));
            }
            out.push(']');
            binary
        }
        AggFunc::JsonObjectAgg { binary } => {
            out.push_str("{ ");
            for (i, v) in items.iter().enumerate() {
                let (k, val) = json_pair(v, ec)?;
                if i > 0 {
                    out.push_str(", ");
                }
                nestor_types::json::write_json_string(&mut out, &k);
                out.push_str(" : ");
                out.push_str(&val);
            }
            out.push_str(" }");
            binary
        }
        _ => false,
    };
    if out.len() > nestor_common::limits::VALUE_BYTES_MAX {
        return Err(DbError::new(
            nestor_common::SqlState::ProgramLimitExceeded,
            "requested length too large",
        ));
    }
    Ok(if binary {
        Value::Jsonb(nestor_types::json::normalize_jsonb(&out)?.into())
    } else {
        Value::Text(out.into())
    })
}

struct Group {
    accs: Vec<Acc>,
    seen: Vec<Option<HashSet<Value>>>,
    /// For aggregates with ORDER BY: the (sort keys, value) pairs, fed in
    /// order when the group is finished.
    ordered: Vec<Vec<(Vec<Value>, Value)>>,
}

/// Feed one value to aggregate `i` of a group (DISTINCT applied).
fn feed(g: &mut Group, i: usize, v: Value, ev: &mut Ev, held: &mut usize) -> Result<(), DbError> {
    if let Some(seen) = &mut g.seen[i] {
        // array_agg and json_agg keep one NULL (DISTINCT treats NULLs as
        // equal); the other aggregates skip NULLs anyway.
        let keeps_null = matches!(g.accs[i], Acc::Array(..) | Acc::Json(..));
        if (v.is_null() && !keeps_null) || seen.contains(&v) {
            return Ok(());
        }
        let bytes = ENTRY_OVERHEAD_BYTES + v.size_bytes();
        ev.mem.charge(bytes, "DISTINCT aggregate")?;
        *held += bytes;
        seen.insert(v.clone());
    }
    match (&g.accs[i], v.is_null()) {
        (Acc::Str(_, delimiter, _), false) => {
            let bytes = delimiter.as_ref().map_or(0, Vec::len) + v.size_bytes();
            ev.mem.charge(bytes, "string_agg")?;
            *held += bytes;
        }
        (Acc::Array(..), _) => {
            let bytes = v.size_bytes();
            ev.mem.charge(bytes, "array_agg")?;
            *held += bytes;
        }
        (Acc::Json(..), _) => {
            let bytes = v.size_bytes();
            ev.mem.charge(bytes, "json_agg")?;
            *held += bytes;
        }
        _ => {}
    }
    acc_step(&mut g.accs[i], v, ev)
}

/// Sort an aggregate's buffered rows by its ORDER BY keys.
fn sort_ordered(rows: &mut [(Vec<Value>, Value)], order: &[AggOrder], ec: &nestor_types::EvalCtx) {
    nestor_common::sort::pg_qsort(rows, |a, b| ordered_set::cmp_keys(&a.0, &b.0, order, ec));
}

/// One input row for ordered-set aggregate `i` of a group: its direct
/// arguments from the group's first row, then (FILTER passing) its keys
/// into the ORDER BY buffer, NULL values left out where the aggregate
/// ignores them.
fn ordered_set_row(
    g: &mut Group,
    (i, call): (usize, &AggCall),
    row: &[Value],
    ev: &mut Ev,
    held: &mut usize,
) -> Result<(), DbError> {
    if let Acc::OrderedSet(direct @ None, _) = &mut g.accs[i] {
        let mut values = Vec::with_capacity(call.direct.len());
        for d in &call.direct {
            values.push(d.eval(row, ev)?);
        }
        *direct = Some(values);
    }
    if let Some(f) = &call.filter {
        if !f.test(row, ev)? {
            return Ok(());
        }
    }
    let mut keys = Vec::with_capacity(call.order.len());
    for o in &call.order {
        keys.push(o.key.eval(row, ev)?);
    }
    if ordered_set::skips_nulls(call.func) && keys[0].is_null() {
        return Ok(());
    }
    let bytes = entry_bytes(&keys);
    ev.mem.charge(bytes, "ordered-set aggregate")?;
    *held += bytes;
    g.ordered[i].push((keys, Value::Null));
    Ok(())
}

/// Sort ordered-set aggregate `i`'s buffered keys and compute its result.
/// A group without rows (no GROUP BY over no rows, or the empty grouping
/// set) evaluates the direct arguments over a row of NULLs: they read
/// grouped columns only.
fn ordered_set_finish(
    g: &mut Group,
    (i, call): (usize, &AggCall),
    ev: &mut Ev,
) -> Result<(), DbError> {
    let mut rows = std::mem::take(&mut g.ordered[i]);
    sort_ordered(&mut rows, &call.order, &ev.ctx.eval);
    let direct = match &mut g.accs[i] {
        Acc::OrderedSet(direct, _) => direct.take(),
        _ => return Err(DbError::internal("ordered-set aggregate without its state")),
    };
    let direct = match direct {
        Some(d) => d,
        None => {
            let mut width = 0;
            for d in &call.direct {
                d.walk(&mut |x| {
                    if let Expr::Col(c) = x {
                        width = width.max(c + 1);
                    }
                });
            }
            let nulls = vec![Value::Null; width];
            let mut values = Vec::with_capacity(call.direct.len());
            for d in &call.direct {
                values.push(d.eval(&nulls, ev)?);
            }
            values
        }
    };
    let keys: Vec<Vec<Value>> = rows.into_iter().map(|(k, _)| k).collect();
    let result = ordered_set::finish(call, &direct, &keys, &ev.ctx.eval)?;
    g.accs[i] = Acc::OrderedSet(None, result);
    Ok(())
}

pub(super) fn run_aggregate(
    input: &Plan,
    group: &[Expr],
    aggs: &[AggSpec],
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    let r = aggregate(
        &mut |ev, f| run_ref(input, ev, param, f),
        (group, 0),
        aggs,
        ev,
        emit,
    );
    super::count_temp_files(ev);
    r
}

/// Where aggregation reads its rows: a function pushing them into a
/// callback by reference, as `run_ref` does (aggregation only reads them).
type Source<'s> = dyn FnMut(&mut Ev, &mut EmitRef) -> Result<bool, DbError> + 's;

/// `Plan::GroupingSets` (see the module header).
pub(super) fn run_grouping_sets(
    input: &Plan,
    (group, sets): (&[Expr], &[Vec<usize>]),
    aggs: &[AggSpec],
    ev: &mut Ev,
    param: &[Value],
    emit: &mut Emit,
) -> Result<bool, DbError> {
    let mut held = 0;
    let r = super::collect_charged(input, ev, param, "grouping sets input", &mut held).and_then(
        |rows| {
            for set in sets {
                if !aggregate_set(&rows, (group, set), aggs, ev, emit)? {
                    return Ok(false);
                }
            }
            Ok(true)
        },
    );
    ev.mem.release(held);
    r
}

/// One grouping set's groups, widened to all group columns and the mask.
fn aggregate_set(
    rows: &[Row],
    (group, set): (&[Expr], &[usize]),
    aggs: &[AggSpec],
    ev: &mut Ev,
    emit: &mut Emit,
) -> Result<bool, DbError> {
    let keys: Vec<Expr> = set.iter().map(|&i| group[i].clone()).collect();
    let mask = (0..group.len())
        .filter(|i| !set.contains(i))
        .fold(0i64, |m, i| m | (1 << i));
    let mut source = |ev: &mut Ev, f: &mut EmitRef| {
        let mut n = 0;
        for r in rows {
            super::poll(ev, &mut n)?;
            if !f(ev, r)? {
                return Ok(false);
            }
        }
        Ok(true)
    };
    aggregate(&mut source, (&keys, 0), aggs, ev, &mut |ev, row| {
        let mut out = vec![Value::Null; group.len()];
        let mut values = row.into_iter();
        for (&i, v) in set.iter().zip(values.by_ref()) {
            out[i] = v;
        }
        out.push(Value::Int8(mask));
        out.extend(values);
        emit(ev, out)
    })
}

/// Aggregate `source`'s rows by `group`; `depth` is the level of hash
/// batches they come from (crate::spill::hash: past work_mem, rows of new
/// groups go to batches aggregated afterwards at `depth` + 1).
fn aggregate(
    source: &mut Source,
    (group, depth): (&[Expr], u32),
    aggs: &[AggSpec],
    ev: &mut Ev,
    emit: &mut Emit,
) -> Result<bool, DbError> {
    let work_mem = ev.ctx.settings.work_mem_bytes;
    let mut batches: Option<Batches> = None;
    let mut groups: HashMap<Row, usize> = HashMap::new();
    let mut order: Vec<(Row, Group)> = Vec::new();
    let new_group = || Group {
        accs: aggs.iter().map(|a| acc_new(&a.call)).collect(),
        seen: aggs
            .iter()
            .map(|a| a.call.distinct.then(HashSet::new))
            .collect(),
        ordered: aggs.iter().map(|_| Vec::new()).collect(),
    };
    // A group costs its key twice (the map's and the output's) and its
    // accumulators; DISTINCT arguments and string_agg text grow it.
    let group_bytes = ENTRY_OVERHEAD_BYTES + aggs.len() * std::mem::size_of::<Acc>();
    let mut held = 0;
    // A row's group key, built in one buffer reused across rows (a new
    // group's map key and output row are its copies).
    let mut key: Row = Vec::with_capacity(group.len());
    let r = source(ev, &mut |ev, row| {
        // Without GROUP BY every row is in the one group: no key to build
        // or hash.
        let gi = if group.is_empty() && !order.is_empty() {
            0
        } else {
            key.clear();
            for g in group {
                key.push(g.eval(row, ev)?);
            }
            match groups.get(key.as_slice()) {
                Some(&i) => i,
                None if batches.is_some() || (held > work_mem && depth < DEPTH_MAX) => {
                    let b = batches.get_or_insert_with(|| Batches::new(depth, &ev.temp));
                    b.add(&key, row)?;
                    return Ok(true);
                }
                None => {
                    let bytes = 2 * entry_bytes(&key) + group_bytes;
                    ev.mem.charge(bytes, "hash aggregate (GROUP BY)")?;
                    held += bytes;
                    order.push((key.clone(), new_group()));
                    groups.insert(distinct_key(&key), order.len() - 1);
                    order.len() - 1
                }
            }
        };
        let g = &mut order[gi].1;
        for (i, a) in aggs.iter().enumerate() {
            if a.call.func.is_ordered_set() {
                ordered_set_row(g, (i, &a.call), row, ev, &mut held)?;
                continue;
            }
            if let Some(f) = &a.call.filter {
                if !f.test(row, ev)? {
                    continue;
                }
            }
            let plain = g.seen[i].is_none() && a.call.order.is_empty();
            if plain {
                // count, and sum/avg of integers, read a column or
                // constant argument where it is (no clone per row).
                let handled = match &a.call.arg {
                    None => add_in_place(&mut g.accs[i], &Value::Bool(true))?,
                    Some(Expr::Col(c)) => add_in_place(&mut g.accs[i], &row[*c])?,
                    Some(Expr::Const(v)) => add_in_place(&mut g.accs[i], v)?,
                    Some(_) => false,
                };
                if handled {
                    continue;
                }
            }
            let v = match &a.call.arg {
                None => Value::Bool(true),
                Some(e) => e.eval(row, ev)?,
            };
            if !a.call.order.is_empty() {
                let mut keys = Vec::with_capacity(a.call.order.len());
                for o in &a.call.order {
                    keys.push(o.key.eval(row, ev)?);
                }
                let bytes = entry_bytes(&keys) + v.size_bytes();
                ev.mem.charge(bytes, "aggregate ORDER BY")?;
                held += bytes;
                g.ordered[i].push((keys, v));
                continue;
            }
            feed(g, i, v, ev, &mut held)?;
        }
        Ok(true)
    });
    if let Err(e) = r {
        ev.mem.release(held);
        return Err(e);
    }
    if order.is_empty() && group.is_empty() {
        order.push((Vec::new(), new_group()));
    }
    for (_, g) in &mut order {
        for (i, a) in aggs.iter().enumerate() {
            if a.call.order.is_empty() {
                continue;
            }
            if a.call.func.is_ordered_set() {
                if let Err(e) = ordered_set_finish(g, (i, &a.call), ev) {
                    ev.mem.release(held);
                    return Err(e);
                }
                continue;
            }
            let mut rows = std::mem::take(&mut g.ordered[i]);
            sort_ordered(&mut rows, &a.call.order, &ev.ctx.eval);
            for (_, v) in rows {
                if let Err(e) = feed(g, i, v, ev, &mut held) {
                    ev.mem.release(held);
                    return Err(e);
                }
            }
        }
    }
    drop(groups);
    if sorts_groups(aggs) {
        sort_groups(&mut order, &ev.ctx.eval);
    }
    let r = emit_groups(order, ev, emit);
    ev.mem.release(held);
    if !r? {
        return Ok(false);
    }
    let Some(batches) = batches else {
        return Ok(true);
    };
    for mut f in batches.into_files()? {
        let mut source = |ev: &mut Ev, out: &mut EmitRef| {
            let mut n = 0;
            while let Some(row) = f.next()? {
                super::poll(ev, &mut n)?;
                if !out(ev, &row)? {
                    return Ok(false);
                }
            }
            Ok(true)
        };
        if !aggregate(&mut source, (group, depth + 1), aggs, ev, emit)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Whether PostgreSQL would aggregate by sorted groups: it cannot hash
/// aggregates with DISTINCT or ORDER BY (ordered-set ones included), so
/// its groups then come out in group-key order, which queries without
/// ORDER BY see.
fn sorts_groups(aggs: &[AggSpec]) -> bool {
    aggs.iter().any(AggSpec::sorts_input)
}

/// Groups in ascending key order, NULLs last (a sort's default).
fn sort_groups(order: &mut [(Row, Group)], ec: &nestor_types::EvalCtx) {
    order.sort_by(|(a, _), (b, _)| super::window::partition_cmp(a, b, ec));
}

fn emit_groups(order: Vec<(Row, Group)>, ev: &mut Ev, emit: &mut Emit) -> Result<bool, DbError> {
    for (key, g) in order {
        let mut row = key;
        for acc in g.accs {
            row.push(acc_done(acc, ev)?);
        }
        if !emit(ev, row)? {
            return Ok(false);
        }
    }
    Ok(true)
}
