//! The SQL surface of the range types: pg_proc's functions on them (the
//! constructors named after the types, `lower`, `upper`, `isempty`,
//! `range_contains`, `range_union`, ...) and pg_operator's operators,
//! each the function PostgreSQL implements it with.
//!
//! The functions are polymorphic in PostgreSQL (`anyrange`,
//! `anyelement`); here each call resolves against the range type of its
//! range argument: an element argument must be of the subtype exactly,
//! as a polymorphic argument must (`numrange(1,2) @> 1` and
//! `int4range(1,5) @> 3::int8` are 42883 as in PostgreSQL), and an
//! unknown literal beside a range is a range of the same type (`r @>
//! '[2,3)'`, PostgreSQL's "same type as the other operand" rule). The
//! constructors are ordinary functions: their arguments convert by
//! implicit casts (`numrange(1, 2)`).
//! The functions, except the constructors, are strict.

use std::cmp::Ordering;

use nestor_common::{DbError, SqlState};

use super::{cmp_bound_values, cmp_bounds, make_range, Bound, Range, RangeKind};
use crate::cast::Coercion;
use crate::context::EvalCtx;
use crate::datatype::DataType;
use crate::functions::{Imp, Resolved, ScalarFn, Volatility};
use crate::value::Value;

/// What a parameter or result of a range function is, for the call's
/// range type.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    Range,
    Elem,
    Bool,
    Int4,
}

impl Shape {
    fn of(self, kind: RangeKind) -> DataType {
        match self {
            Shape::Range => DataType::Range(kind),
            Shape::Elem => kind.subtype(),
            Shape::Bool => DataType::Bool,
            Shape::Int4 => DataType::Int4,
        }
    }
}

use Shape::{Bool as B, Elem as E, Int4 as I, Range as R};

/// One function on ranges: pg_proc name, parameters, result, code.
struct Def {
    name: &'static str,
    args: &'static [Shape],
    ret: Shape,
    imp: Imp,
}

fn internal() -> DbError {
    DbError::new(
        SqlState::InternalError,
        "range function got a value that is not a range",
    )
}

fn rg(v: &Value) -> Result<&Range, DbError> {
    match v {
        Value::Range(r) => Ok(r),
        _ => Err(internal()),
    }
}

fn rg2(v: &[Value]) -> Result<(&Range, &Range), DbError> {
    Ok((rg(&v[0])?, rg(&v[1])?))
}

fn b(v: bool) -> Result<Value, DbError> {
    Ok(Value::Bool(v))
}

fn opt(v: &Option<Value>, empty: bool) -> Result<Value, DbError> {
    Ok(if empty {
        Value::Null
    } else {
        v.clone().unwrap_or(Value::Null)
    })
}

static DEFS: &[Def] = &[
    strict_def!("lower", [R], E, |v| {
        let r = rg(&v[0])?;
        opt(&r.lower, r.empty)
    }),
    strict_def!("upper", [R], E, |v| {
        let r = rg(&v[0])?;
        opt(&r.upper, r.empty)
    }),
    strict_def!("isempty", [R], B, |v| b(rg(&v[0])?.empty)),
    strict_def!("lower_inc", [R], B, |v| b(rg(&v[0])?.lower_inc)),
    strict_def!("upper_inc", [R], B, |v| b(rg(&v[0])?.upper_inc)),
    strict_def!("lower_inf", [R], B, |v| {
        let r = rg(&v[0])?;
        b(!r.empty && r.lower.is_none())
    }),
    strict_def!("upper_inf", [R], B, |v| {
        let r = rg(&v[0])?;
        b(!r.empty && r.upper.is_none())
    }),
    strict_def!("range_eq", [R, R], B, |v| cmp_is(v, |o| o.is_eq())),
    strict_def!("range_ne", [R, R], B, |v| cmp_is(v, |o| o.is_ne())),
    strict_def!("range_lt", [R, R], B, |v| cmp_is(v, |o| o.is_lt())),
    strict_def!("range_le", [R, R], B, |v| cmp_is(v, |o| o.is_le())),
    strict_def!("range_gt", [R, R], B, |v| cmp_is(v, |o| o.is_gt())),
    strict_def!("range_ge", [R, R], B, |v| cmp_is(v, |o| o.is_ge())),
    strict_def!("range_cmp", [R, R], I, |v| {
        let (x, y) = rg2(v)?;
        Ok(Value::Int4(x.cmp_range(y) as i32))
    }),
    strict_def!("range_contains", [R, R], B, |v| {
        let (x, y) = rg2(v)?;
        b(contains(x, y))
    }),
    strict_def!("range_contained_by", [R, R], B, |v| {
        let (x, y) = rg2(v)?;
        b(contains(y, x))
    }),
    strict_def!("range_contains_elem", [R, E], B, |v| b(contains_elem(
        rg(&v[0])?,
        &v[1]
    ))),
    strict_def!("elem_contained_by_range", [E, R], B, |v| b(contains_elem(
        rg(&v[1])?,
        &v[0]
    ))),
    strict_def!("range_overlaps", [R, R], B, |v| {
        let (x, y) = rg2(v)?;
        b(overlaps(x, y))
    }),
    strict_def!("range_before", [R, R], B, |v| {
        let (x, y) = rg2(v)?;
        b(!x.empty && !y.empty && cmp_bounds(&x.upper_bound(), &y.lower_bound()).is_lt())
    }),
    strict_def!("range_after", [R, R], B, |v| {
        let (x, y) = rg2(v)?;
        b(!x.empty && !y.empty && cmp_bounds(&x.lower_bound(), &y.upper_bound()).is_gt())
    }),
    strict_def!("range_overleft", [R, R], B, |v| {
        let (x, y) = rg2(v)?;
        b(!x.empty && !y.empty && cmp_bounds(&x.upper_bound(), &y.upper_bound()).is_le())
    }),
    strict_def!("range_overright", [R, R], B, |v| {
        let (x, y) = rg2(v)?;
        b(!x.empty && !y.empty && cmp_bounds(&x.lower_bound(), &y.lower_bound()).is_ge())
    }),
    strict_def!("range_adjacent", [R, R], B, |v| {
        let (x, y) = rg2(v)?;
        adjacent(x, y).map(Value::Bool)
    }),
    strict_def!("range_union", [R, R], R, |v| {
        let (x, y) = rg2(v)?;
        union(x, y, true)
    }),
    strict_def!("range_merge", [R, R], R, |v| {
        let (x, y) = rg2(v)?;
        union(x, y, false)
    }),
    strict_def!("range_intersect", [R, R], R, |v| {
        let (x, y) = rg2(v)?;
        intersect(x, y)
    }),
    strict_def!("range_minus", [R, R], R, |v| {
        let (x, y) = rg2(v)?;
        minus(x, y)
    }),
];

fn cmp_is(v: &[Value], f: fn(Ordering) -> bool) -> Result<Value, DbError> {
    let (x, y) = rg2(v)?;
    b(f(x.cmp_range(y)))
}

/// `range_contains_internal`.
pub fn contains(x: &Range, y: &Range) -> bool {
    if y.empty {
        return true;
    }
    !x.empty
        && cmp_bounds(&x.lower_bound(), &y.lower_bound()).is_le()
        && cmp_bounds(&x.upper_bound(), &y.upper_bound()).is_ge()
}

/// `range_contains_elem_internal`.
pub fn contains_elem(r: &Range, e: &Value) -> bool {
    if r.empty {
        return false;
    }
    if let Some(l) = &r.lower {
        match l.cmp(e) {
            Ordering::Greater => return false,
            Ordering::Equal if !r.lower_inc => return false,
            _ => {}
        }
    }
    if let Some(u) = &r.upper {
        match u.cmp(e) {
            Ordering::Less => return false,
            Ordering::Equal if !r.upper_inc => return false,
            _ => {}
        }
    }
    true
}

/// `range_overlaps_internal`.
fn overlaps(x: &Range, y: &Range) -> bool {
    if x.empty || y.empty {
        return false;
    }
    let (l1, u1, l2, u2) = (
        x.lower_bound(),
        x.upper_bound(),
        y.lower_bound(),
        y.upper_bound(),
    );
    (cmp_bounds(&l1, &l2).is_ge() && cmp_bounds(&l1, &u2).is_le())
        || (cmp_bounds(&l2, &l1).is_ge() && cmp_bounds(&l2, &u1).is_le())
}

/// `bounds_adjacent`: whether no point lies between upper bound `a` and
/// lower bound `b` (for a discrete type: whether the range between them
/// is empty).
fn bounds_adjacent(kind: RangeKind, a: Bound, b: Bound) -> Result<bool, DbError> {
    match cmp_bound_values(&a, &b) {
        Ordering::Less if kind.is_discrete() => {
            let between = make_range(
                kind,
                Bound::lower(a.val, !a.inc),
                Bound::upper(b.val, !b.inc),
                false,
            )?;
            Ok(between.empty)
        }
        Ordering::Less => Ok(false),
        Ordering::Equal => Ok(a.inc != b.inc),
        Ordering::Greater => Ok(false),
    }
}

/// `range_adjacent_internal`.
fn adjacent(x: &Range, y: &Range) -> Result<bool, DbError> {
    if x.empty || y.empty {
        return Ok(false);
    }
    Ok(bounds_adjacent(x.kind, x.upper_bound(), y.lower_bound())?
        || bounds_adjacent(x.kind, y.upper_bound(), x.lower_bound())?)
}

fn pick(a: Bound, b: Bound, want: Ordering) -> Bound {
    if cmp_bounds(&a, &b) == want {
        a
    } else {
        b
    }
}

/// `range_union_internal`: `strict` (the `+` operator) refuses ranges
/// with a gap between them; range_merge spans it.
fn union(x: &Range, y: &Range, strict: bool) -> Result<Value, DbError> {
    if x.empty {
        return Ok(Value::Range(y.clone().into()));
    }
    if y.empty {
        return Ok(Value::Range(x.clone().into()));
    }
    if strict && !overlaps(x, y) && !adjacent(x, y)? {
        return Err(DbError::new(
            SqlState::DataException,
            "result of range union would not be contiguous",
        ));
    }
    let lower = pick(x.lower_bound(), y.lower_bound(), Ordering::Less);
    let upper = pick(x.upper_bound(), y.upper_bound(), Ordering::Greater);
    make_range(x.kind, lower, upper, false).map(Range::value)
}

/// The intersection of two range values (range_intersect_agg's step).
pub fn intersect_values(x: &Value, y: &Value) -> Result<Value, DbError> {
    intersect(rg(x)?, rg(y)?)
}

/// `range_intersect_internal`.
fn intersect(x: &Range, y: &Range) -> Result<Value, DbError> {
    if x.empty || y.empty || !overlaps(x, y) {
        return Ok(Range::empty(x.kind).value());
    }
    let lower = pick(x.lower_bound(), y.lower_bound(), Ordering::Greater);
    let upper = pick(x.upper_bound(), y.upper_bound(), Ordering::Less);
    make_range(x.kind, lower, upper, false).map(Range::value)
}

/// `range_minus_internal`.
fn minus(x: &Range, y: &Range) -> Result<Value, DbError> {
    if x.empty || y.empty {
        return Ok(Value::Range(x.clone().into()));
    }
    let (l1, u1, l2, u2) = (
        x.lower_bound(),
        x.upper_bound(),
        y.lower_bound(),
        y.upper_bound(),
    );
    let l1l2 = cmp_bounds(&l1, &l2);
    let l1u2 = cmp_bounds(&l1, &u2);
    let u1l2 = cmp_bounds(&u1, &l2);
    let u1u2 = cmp_bounds(&u1, &u2);
    if l1l2.is_lt() && u1u2.is_gt() {
        return Err(DbError::new(
            SqlState::DataException,
            "result of range difference would not be contiguous",
        ));
    }
    if l1u2.is_gt() || u1l2.is_lt() {
        return Ok(Value::Range(x.clone().into()));
    }
    if l1l2.is_ge() && u1u2.is_le() {
        return Ok(Range::empty(x.kind).value());
    }
    if l1l2.is_le() && u1l2.is_ge() && u1u2.is_le() {
        let upper = Bound::upper(l2.val, !l2.inc);
        return make_range(x.kind, l1, upper, false).map(Range::value);
    }
    let lower = Bound::lower(u2.val, !u2.inc);
    make_range(x.kind, lower, u1, false).map(Range::value)
}

// ----- constructors ----------------------------------------------------------

/// `range_constructor2`/`3` for `RangeKind::ALL[K]`: NULL bounds are
/// infinite; the flags are `[]`, `[)`, `(]` or `()`.
fn construct<const K: usize>(v: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let kind = RangeKind::ALL[K];
    let (lower_inc, upper_inc) = match v.get(2) {
        None => (true, false),
        Some(Value::Null) => {
            return Err(DbError::new(
                SqlState::DataException,
                "range constructor flags argument must not be null",
            ))
        }
        Some(Value::Text(f)) => match f.as_ref() {
            "[]" => (true, true),
            "[)" => (true, false),
            "(]" => (false, true),
            "()" => (false, false),
            _ => {
                return Err(
                    DbError::new(SqlState::SyntaxError, "invalid range bound flags")
                        .with_hint("Valid values are \"[]\", \"[)\", \"(]\", and \"()\"."),
                )
            }
        },
        Some(_) => return Err(internal()),
    };
    let bound = |v: &Value| (!v.is_null()).then(|| v.clone());
    make_range(
        kind,
        Bound::lower(bound(&v[0]), lower_inc),
        Bound::upper(bound(&v[1]), upper_inc),
        false,
    )
    .map(Range::value)
}

const CONSTRUCTORS: [Imp; 6] = [
    construct::<0>,
    construct::<1>,
    construct::<2>,
    construct::<3>,
    construct::<4>,
    construct::<5>,
];

// ----- resolution ------------------------------------------------------------

/// pg_operator's rows on ranges: (operator, left, right, function).
static OPERATORS: &[(&str, Shape, Shape, &str)] = &[
    ("=", R, R, "range_eq"),
    ("<>", R, R, "range_ne"),
    ("<", R, R, "range_lt"),
    ("<=", R, R, "range_le"),
    (">", R, R, "range_gt"),
    (">=", R, R, "range_ge"),
    ("@>", R, R, "range_contains"),
    ("@>", R, E, "range_contains_elem"),
    ("<@", R, R, "range_contained_by"),
    ("<@", E, R, "elem_contained_by_range"),
    ("&&", R, R, "range_overlaps"),
    ("<<", R, R, "range_before"),
    (">>", R, R, "range_after"),
    ("&<", R, R, "range_overleft"),
    ("&>", R, R, "range_overright"),
    ("-|-", R, R, "range_adjacent"),
    ("+", R, R, "range_union"),
    ("*", R, R, "range_intersect"),
    ("-", R, R, "range_minus"),
];

/// The operator a range function implements, for EXPLAIN.
pub fn operator_of(fname: &str, nargs: usize) -> Option<&'static str> {
    OPERATORS
        .iter()
        .find(|o| o.3 == fname && nargs == 2)
        .map(|o| o.0)
}

/// Whether `arg` can be passed where the polymorphic `param` (anyrange,
/// anyelement) resolved to: it must be that type (an unknown literal
/// takes it), no implicit cast (`numrange(1,2) @> 1` is 42883).
fn fits_exactly(arg: DataType, param: DataType) -> bool {
    arg.without_typmod() == param.without_typmod() || arg == DataType::Unknown
}

/// Whether `arg` can be passed to a constructor's parameter `param`
/// (exactly, as an unknown literal, or by an implicit cast).
fn fits(arg: DataType, param: DataType) -> bool {
    arg == param
        || arg.without_typmod() == param.without_typmod()
        || arg == DataType::Unknown
        || crate::cast::coercion(arg, param) == Some(Coercion::Implicit)
}

fn resolved(name: &'static str, imp: Imp, args: Vec<DataType>, ret: DataType) -> Resolved {
    Resolved {
        func: ScalarFn {
            name,
            volatility: Volatility::Immutable,
            imp,
        },
        arg_types: args,
        ret,
    }
}

fn def_resolved(d: &'static Def, kind: RangeKind) -> Resolved {
    resolved(
        d.name,
        d.imp,
        d.args.iter().map(|s| s.of(kind)).collect(),
        d.ret.of(kind),
    )
}

/// Whether `name` is a function of this module.
pub fn is_function(name: &str) -> bool {
    RangeKind::from_name(name).is_some()
        || DEFS.iter().any(|d| d.name == name)
        || super::is_multirange_name(name)
        || matches!(name, "multirange" | "range_agg")
}

/// `name(args)` if it is one of these functions for these arguments;
/// None lets other modules answer (`lower('ABC')` is the string one).
pub fn resolve(name: &str, args: &[DataType]) -> Option<Result<Resolved, DbError>> {
    if super::is_multirange_name(name) || matches!(name, "multirange" | "range_agg") {
        return Some(Err(DbError::unsupported(format!(
            "{name} (multirange types)"
        ))));
    }
    if let Some(kind) = RangeKind::from_name(name) {
        return constructor(kind, args);
    }
    // An accessor of an unknown literal: PostgreSQL has it for anyrange
    // and anymultirange, and cannot choose (`lower` and `upper` are the
    // text functions' then).
    if let (
        "isempty" | "lower_inc" | "upper_inc" | "lower_inf" | "upper_inf",
        [DataType::Unknown],
    ) = (name, args)
    {
        return Some(Err(DbError::new(
            SqlState::AmbiguousFunction,
            format!("function {name}(unknown) is not unique"),
        )
        .with_hint(
            "Could not choose a best candidate function. You might need to add explicit type casts.",
        )));
    }
    let kind = args.iter().find_map(|t| match t {
        DataType::Range(k) => Some(*k),
        _ => None,
    })?;
    let d = DEFS.iter().find(|d| {
        d.name == name
            && d.args.len() == args.len()
            && d.args
                .iter()
                .zip(args)
                .all(|(s, a)| fits_exactly(*a, s.of(kind)))
    })?;
    Some(Ok(def_resolved(d, kind)))
}

fn constructor(kind: RangeKind, args: &[DataType]) -> Option<Result<Resolved, DbError>> {
    let sub = kind.subtype();
    let ok = match args {
        [a, b] => fits(*a, sub) && fits(*b, sub),
        [a, b, f] => fits(*a, sub) && fits(*b, sub) && fits(*f, DataType::Text),
        _ => false,
    };
    if !ok {
        return None;
    }
    let mut types = vec![sub, sub];
    if args.len() == 3 {
        types.push(DataType::Text);
    }
    Some(Ok(resolved(
        kind.name(),
        CONSTRUCTORS[kind as usize],
        types,
        DataType::Range(kind),
    )))
}

/// Whether `left op right` is a range operator's business: an operand is
/// a range.
pub fn is_range_operation(left: Option<DataType>, right: DataType) -> bool {
    matches!(right, DataType::Range(_)) || matches!(left, Some(DataType::Range(_)))
}

/// The range operator `left op right`: the function pg_operator names,
/// None when no range operator applies (the caller's 42883).
pub fn resolve_operator(op: &str, left: DataType, right: DataType) -> Option<Resolved> {
    let kind = match (left, right) {
        (DataType::Range(k), _) | (_, DataType::Range(k)) => k,
        _ => return None,
    };
    // An unknown literal beside a range is a range of its type.
    let shape = |t: DataType| match t {
        DataType::Range(k) if k == kind => Some(R),
        DataType::Range(_) => None,
        DataType::Unknown => Some(R),
        t if fits_exactly(t, kind.subtype()) => Some(E),
        _ => None,
    };
    let (ls, rs) = (shape(left)?, shape(right)?);
    let (_, _, _, fname) = OPERATORS
        .iter()
        .find(|o| o.0 == op && o.1 == ls && o.2 == rs)?;
    let d = DEFS.iter().find(|d| d.name == *fname)?;
    Some(def_resolved(d, kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> Value {
        super::super::parse(RangeKind::Num, s, &EvalCtx::default())
            .unwrap()
            .value()
    }

    fn call(name: &str, args: &[Value]) -> Result<String, String> {
        let types: Vec<DataType> = args
            .iter()
            .map(|_| DataType::Range(RangeKind::Num))
            .collect();
        let f = resolve(name, &types).unwrap().unwrap();
        f.func
            .call(args, &EvalCtx::default())
            .map(|v| v.to_text(&EvalCtx::default()))
            .map_err(|e| e.into_message())
    }

    #[test]
    fn set_operations_follow_postgres() {
        assert_eq!(
            call("range_union", &[r("[1,2)"), r("[2,3)")]).unwrap(),
            "[1,3)"
        );
        assert_eq!(
            call("range_union", &[r("[1,2)"), r("[2.5,3)")]).unwrap_err(),
            "result of range union would not be contiguous"
        );
        assert_eq!(
            call("range_merge", &[r("[1,2)"), r("[2.5,3)")]).unwrap(),
            "[1,3)"
        );
        assert_eq!(
            call("range_intersect", &[r("[1,2)"), r("[1.5,3)")]).unwrap(),
            "[1.5,2)"
        );
        assert_eq!(
            call("range_minus", &[r("[1.1,2.2)"), r("[2,3)")]).unwrap(),
            "[1.1,2)"
        );
        assert_eq!(
            call("range_minus", &[r("[1,5)"), r("[2,3)")]).unwrap_err(),
            "result of range difference would not be contiguous"
        );
        assert_eq!(
            call("range_adjacent", &[r("[2,3)"), r("[3,4)")]).unwrap(),
            "t"
        );
        assert_eq!(
            call("range_adjacent", &[r("[2,3]"), r("(3,4)")]).unwrap(),
            "t"
        );
        assert_eq!(
            call("range_adjacent", &[r("[2,3)"), r("[3.1,4)")]).unwrap(),
            "f"
        );
    }
}
