//! Built-in functions on arrays (`array_to_string`, `array_length`,
//! `cardinality`, `array_append`, `string_to_array`, ...), resolved like
//! the rest of the library ([`crate::functions::resolve`]) but with
//! PostgreSQL's polymorphic signatures: an `anyarray` argument fixes the
//! element type an `anyelement` argument is coerced to, and the other way
//! round. An argument of unknown type cannot decide it (42804, as in
//! PostgreSQL: `array_length('{1}', 1)` needs a cast).
//!
//! Functions that change an array (append, prepend, cat, remove) take
//! one-dimensional arrays, and `array_cat` also arrays of equal rank; other
//! shapes give PostgreSQL's errors.

use std::sync::Arc;

use nestor_common::{DbError, SqlState};

use crate::array::{Array, Dim};
use crate::context::EvalCtx;
use crate::datatype::DataType;
use crate::functions::{Imp, Resolved, ScalarFn, Volatility};
use crate::value::Value;

/// Every function of this module.
pub(crate) const NAMES: &[&str] = &[
    "array_to_string",
    "array_upper",
    "array_lower",
    "array_length",
    "cardinality",
    "array_ndims",
    "array_dims",
    "array_position",
    "array_append",
    "array_prepend",
    "array_cat",
    "array_remove",
    "array_replace",
    "string_to_array",
    "arraycontains",
    "arraycontained",
    "arrayoverlap",
    "array_positions",
    "trim_array",
];

fn polymorphic_unknown() -> DbError {
    DbError::new(
        SqlState::DatatypeMismatch,
        "could not determine polymorphic type because input has type unknown",
    )
    .unpositioned()
}

/// `name(args)` if it is one of this module's functions (None otherwise).
pub(crate) fn resolve(name: &str, args: &[DataType]) -> Option<Result<Resolved, DbError>> {
    if !NAMES.contains(&name) {
        return None;
    }
    Some(resolve_known(name, args))
}

fn resolve_known(name: &str, args: &[DataType]) -> Result<Resolved, DbError> {
    use DataType as T;
    let nf = || crate::functions::no_function(name, args);
    // The array type an (anyarray, anyelement) pair resolves to.
    let array_from = |a: DataType, e: Option<DataType>| -> Result<DataType, DbError> {
        match (a, e) {
            (T::Array(_), _) => Ok(a),
            (T::Unknown, Some(e)) if e != T::Unknown => e.array_of().ok_or_else(nf),
            (T::Unknown, _) => Err(polymorphic_unknown()),
            _ => Err(nf()),
        }
    };
    let done = |imp: Imp, arg_types: Vec<DataType>, ret: DataType| {
        Ok(Resolved {
            func: ScalarFn {
                name: NAMES.iter().find(|n| **n == name).expect("listed"),
                volatility: Volatility::Immutable,
                imp,
            },
            arg_types,
            ret,
        })
    };
    let int_like = |t: DataType| t.is_integer() || t == T::Unknown;
    let text_like = |t: DataType| t.is_string();
    match (name, args) {
        ("array_to_string", [a, rest @ ..])
            if (1..=2).contains(&rest.len()) && rest.iter().all(|t| text_like(*t)) =>
        {
            let a = array_from(*a, None)?;
            let mut types = vec![a, T::Text];
            types.extend(rest.iter().skip(1).map(|_| T::Text));
            done(array_to_string, types, T::Text)
        }
        ("array_upper" | "array_lower" | "array_length", [a, d]) if int_like(*d) => {
            let a = array_from(*a, None)?;
            let imp: Imp = match name {
                "array_upper" => |v, _| bound(v, |a, d| a.upper(d)),
                "array_lower" => |v, _| bound(v, |a, d| a.lower(d)),
                _ => |v, _| bound(v, |a, d| a.dim(d).map(|x| x.len)),
            };
            done(imp, vec![a, T::Int4], T::Int4)
        }
        ("cardinality", [a]) => done(
            |v, _| strict1(v, |a| Value::Int4(a.items.len() as i32)),
            vec![array_from(*a, None)?],
            T::Int4,
        ),
        ("array_ndims", [a]) => done(
            |v, _| {
                strict1(v, |a| match a.ndims() {
                    0 => Value::Null,
                    n => Value::Int4(n as i32),
                })
            },
            vec![array_from(*a, None)?],
            T::Int4,
        ),
        ("array_dims", [a]) => done(
            |v, _| {
                strict1(v, |a| match a.ndims() {
                    0 => Value::Null,
                    _ => Value::Text(Arc::from(a.dims_text())),
                })
            },
            vec![array_from(*a, None)?],
            T::Text,
        ),
        ("array_position", [a, e, rest @ ..])
            if rest.len() <= 1 && rest.iter().all(|t| int_like(*t)) =>
        {
            let a = array_from(*a, Some(*e))?;
            let mut types = vec![a, a.element().expect("an array")];
            types.extend(rest.iter().map(|_| T::Int4));
            done(array_position, types, T::Int4)
        }
        ("array_positions", [a, e]) => {
            let a = array_from(*a, Some(*e))?;
            let ints = T::Int4.array_of().expect("int4[]");
            done(
                array_positions,
                vec![a, a.element().expect("an array")],
                ints,
            )
        }
        ("trim_array", [a, n]) if int_like(*n) => {
            let a = array_from(*a, None)?;
            done(trim_array, vec![a, T::Int4], a)
        }
        ("array_append" | "array_remove", [a, e]) => {
            let a = array_from(*a, Some(*e))?;
            let imp: Imp = if name == "array_append" {
                array_append
            } else {
                array_remove
            };
            done(imp, vec![a, a.element().expect("an array")], a)
        }
        ("array_replace", [a, search, with]) => {
            let e = match (search, with) {
                (T::Unknown, w) => *w,
                (s, _) => *s,
            };
            let a = array_from(*a, Some(e))?;
            let elem = a.element().expect("an array");
            done(array_replace, vec![a, elem, elem], a)
        }
        ("array_prepend", [e, a]) => {
            let a = array_from(*a, Some(*e))?;
            done(array_prepend, vec![a.element().expect("an array"), a], a)
        }
        ("array_cat", [a, b]) => {
            let t = match (a, b) {
                (T::Unknown, T::Unknown) => return Err(polymorphic_unknown()),
                (T::Array(_), T::Unknown) => *a,
                (T::Unknown, T::Array(_)) => *b,
                (T::Array(x), T::Array(y)) => crate::cast::common_supertype(**x, **y)
                    .and_then(DataType::array_of)
                    .ok_or_else(nf)?,
                _ => return Err(nf()),
            };
            done(array_cat, vec![t, t], t)
        }
        // The functions of `@>`, `<@` and `&&` (anyarray, anyarray): one
        // array type, an unknown side taking the other's.
        ("arraycontains" | "arraycontained" | "arrayoverlap", [a, b]) => {
            let t = match (a, b) {
                (T::Unknown, T::Unknown) => return Err(polymorphic_unknown()),
                (T::Array(_), T::Unknown) => *a,
                (T::Unknown, T::Array(_)) => *b,
                (T::Array(_), T::Array(_)) if a == b => *a,
                _ => return Err(nf()),
            };
            let imp: Imp = match name {
                "arraycontains" => {
                    |v, ctx| containment(v, ctx, |a, b, ctx| contain_compare(b, a, true, ctx))
                }
                "arraycontained" => {
                    |v, ctx| containment(v, ctx, |a, b, ctx| contain_compare(a, b, true, ctx))
                }
                _ => |v, ctx| containment(v, ctx, |a, b, ctx| contain_compare(a, b, false, ctx)),
            };
            done(imp, vec![t, t], T::Bool)
        }
        ("string_to_array", [_, _, rest @ ..])
            if rest.len() <= 1 && args.iter().all(|t| text_like(*t)) =>
        {
            let types = vec![T::Text; args.len()];
            done(string_to_array, types, T::Text.array_of().expect("text[]"))
        }
        _ => Err(nf()),
    }
}

fn the_array(v: &Value) -> Option<&Array> {
    match v {
        Value::Array(a) => Some(a),
        _ => None,
    }
}

fn strict1(v: &[Value], f: impl Fn(&Array) -> Value) -> Result<Value, DbError> {
    Ok(the_array(&v[0]).map_or(Value::Null, f))
}

fn bound(v: &[Value], f: fn(&Array, i64) -> Option<i32>) -> Result<Value, DbError> {
    let (Some(a), Some(d)) = (the_array(&v[0]), v[1].as_i64()) else {
        return Ok(Value::Null);
    };
    Ok(f(a, d).map_or(Value::Null, Value::Int4))
}

fn text_arg(v: &Value) -> Option<&str> {
    v.as_str()
}

fn array_to_string(v: &[Value], ctx: &EvalCtx) -> Result<Value, DbError> {
    let (Some(a), Some(sep)) = (the_array(&v[0]), text_arg(&v[1])) else {
        return Ok(Value::Null);
    };
    let null_text = v.get(2).and_then(text_arg);
    let mut out = String::new();
    let mut first = true;
    for item in &a.items {
        let piece = match item {
            Value::Null => match null_text {
                Some(t) => t.to_string(),
                None => continue,
            },
            v => v.to_text(ctx),
        };
        if !first {
            out.push_str(sep);
        }
        first = false;
        out.push_str(&piece);
        crate::functions::check_result_len(out.len())?;
    }
    Ok(Value::Text(Arc::from(out)))
}

/// `what` is the whole phrase before "multidimensional arrays", as
/// PostgreSQL words it ("searching for elements in").
fn one_dimensional(a: &Array, what: &str) -> Result<(), DbError> {
    if a.ndims() > 1 {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            format!("{what} multidimensional arrays is not supported"),
        ));
    }
    Ok(())
}

fn array_position(v: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let Some(a) = the_array(&v[0]) else {
        return Ok(Value::Null);
    };
    one_dimensional(a, "searching for elements in")?;
    let lower = a.dims.first().map_or(1, |d| d.lower);
    let start = match v.get(2) {
        None => 0,
        Some(Value::Null) => {
            return Err(DbError::new(
                SqlState::NullValueNotAllowed,
                "initial position must not be null",
            ))
        }
        Some(s) => (s.as_i64().unwrap_or(1) - i64::from(lower)).max(0) as usize,
    };
    let found = a
        .items
        .iter()
        .enumerate()
        .skip(start)
        .find(|(_, x)| **x == v[1] && x.is_null() == v[1].is_null());
    Ok(found.map_or(Value::Null, |(i, _)| Value::Int4(lower + i as i32)))
}

/// array_positions: every subscript holding the value (IS NOT DISTINCT
/// FROM), `{}` if none; NULL for a NULL array.
fn array_positions(v: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let Some(a) = the_array(&v[0]) else {
        return Ok(Value::Null);
    };
    one_dimensional(a, "searching for elements in")?;
    let lower = a.dims.first().map_or(1, |d| d.lower);
    let found = a
        .items
        .iter()
        .enumerate()
        .filter(|(_, x)| **x == v[1] && x.is_null() == v[1].is_null())
        .map(|(i, _)| Value::Int4(lower + i as i32))
        .collect();
    Ok(Array::from_items(DataType::Int4, found).value())
}

/// trim_array(a, n): without the last `n` elements of the first
/// dimension; the result's lower bounds are 1, as a slice's.
fn trim_array(v: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let (Some(a), Some(n)) = (the_array(&v[0]), v[1].as_i64()) else {
        return Ok(Value::Null);
    };
    let len = a.dims.first().map_or(0, |d| i64::from(d.len));
    if n < 0 || n > len {
        return Err(DbError::new(
            SqlState::ArraySubscriptError,
            format!("number of elements to trim must be between 0 and {len}"),
        ));
    }
    if n == len {
        return Ok(Array::from_items(a.elem, Vec::new()).value());
    }
    let per_row: usize = a.dims[1..].iter().map(|d| d.len as usize).product();
    let keep = (len - n) as usize;
    let mut dims: Vec<Dim> = a
        .dims
        .iter()
        .map(|d| Dim {
            len: d.len,
            lower: 1,
        })
        .collect();
    dims[0].len = keep as i32;
    let items = a.items[..keep * per_row].to_vec();
    Ok(Array::new(a.elem, dims, items)?.value())
}

/// Strict: NULL when either array is.
fn containment(
    v: &[Value],
    ctx: &EvalCtx,
    f: fn(&Array, &Array, &EvalCtx) -> Result<bool, DbError>,
) -> Result<Value, DbError> {
    match (the_array(&v[0]), the_array(&v[1])) {
        (Some(a), Some(b)) => Ok(Value::Bool(f(a, b, ctx)?)),
        _ => Ok(Value::Null),
    }
}

/// PostgreSQL's array_contain_compare: with `all`, whether every element
/// of `a` equals some element of `b` (a NULL element of `a` never does);
/// without, whether any does. NULL elements of `b` match nothing. The
/// arrays' shapes do not matter: elements compare as flat lists.
fn contain_compare(a: &Array, b: &Array, all: bool, ctx: &EvalCtx) -> Result<bool, DbError> {
    for x in &a.items {
        if x.is_null() {
            if all {
                return Ok(false);
            }
            continue;
        }
        let mut found = false;
        for y in &b.items {
            if crate::ops::compare_in(x, y, ctx, "=")? == Some(std::cmp::Ordering::Equal) {
                found = true;
                break;
            }
        }
        if found && !all {
            return Ok(true);
        }
        if !found && all {
            return Ok(false);
        }
    }
    Ok(all)
}

/// A one-dimensional array of `items` keeping `lower` (1 if empty).
fn with_items(elem: DataType, lower: i32, items: Vec<Value>) -> Result<Value, DbError> {
    if items.is_empty() {
        return Ok(Array::from_items(elem, items).value());
    }
    let dims = vec![Dim {
        len: items.len() as i32,
        lower,
    }];
    Ok(Array::new(elem, dims, items)?.value())
}

fn append_check(a: &Array) -> Result<(), DbError> {
    if a.ndims() > 1 {
        return Err(DbError::new(
            SqlState::DataException,
            "argument must be empty or one-dimensional array",
        ));
    }
    Ok(())
}

/// A one-element array of `e` for a NULL array argument. Without a value
/// the element type is not known at run time: `array_append(NULL, NULL)`
/// is NULL here (PostgreSQL: `{NULL}`).
fn singleton(e: &Value) -> Value {
    if e.is_null() {
        return Value::Null;
    }
    Array::from_items(e.data_type(), vec![e.clone()]).value()
}

fn array_append(v: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let Some(a) = the_array(&v[0]) else {
        return Ok(singleton(&v[1]));
    };
    append_check(a)?;
    let mut items = a.items.clone();
    items.push(v[1].clone());
    with_items(a.elem, a.dims.first().map_or(1, |d| d.lower), items)
}

fn array_prepend(v: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let Some(a) = the_array(&v[1]) else {
        return Ok(singleton(&v[0]));
    };
    append_check(a)?;
    let mut items = Vec::with_capacity(a.items.len() + 1);
    items.push(v[0].clone());
    items.extend(a.items.iter().cloned());
    with_items(a.elem, a.dims.first().map_or(1, |d| d.lower), items)
}

fn array_remove(v: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let Some(a) = the_array(&v[0]) else {
        return Ok(Value::Null);
    };
    one_dimensional(a, "removing elements from")?;
    let items: Vec<Value> = a
        .items
        .iter()
        .filter(|x| !(**x == v[1] && x.is_null() == v[1].is_null()))
        .cloned()
        .collect();
    with_items(a.elem, a.dims.first().map_or(1, |d| d.lower), items)
}

/// array_replace(anyarray, anyelement, anyelement): every element not
/// distinct from the second argument (NULLs too) becomes the third, in
/// any number of dimensions.
fn array_replace(v: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let Some(a) = the_array(&v[0]) else {
        return Ok(Value::Null);
    };
    let same = |x: &Value| *x == v[1] && x.is_null() == v[1].is_null();
    let mut out = a.clone();
    for x in out.items.iter_mut().filter(|x| same(x)) {
        *x = v[2].clone();
    }
    Ok(out.value())
}

fn array_cat(v: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    let (a, b) = match (the_array(&v[0]), the_array(&v[1])) {
        (None, None) => return Ok(Value::Null),
        (Some(_), None) => return Ok(v[0].clone()),
        (None, Some(_)) => return Ok(v[1].clone()),
        (Some(a), Some(b)) => (a, b),
    };
    if a.items.is_empty() {
        return Ok(v[1].clone());
    }
    if b.items.is_empty() {
        return Ok(v[0].clone());
    }
    let incompatible = || {
        DbError::new(
            SqlState::ArraySubscriptError,
            "cannot concatenate incompatible arrays",
        )
    };
    let mut items = a.items.clone();
    items.extend(b.items.iter().cloned());
    let mut dims = a.dims.clone();
    if a.ndims() == b.ndims() {
        if a.dims[1..]
            .iter()
            .zip(&b.dims[1..])
            .any(|(x, y)| x.len != y.len)
        {
            return Err(incompatible());
        }
        dims[0].len += b.dims[0].len;
    } else if a.ndims() == b.ndims() + 1
        && a.dims[1..]
            .iter()
            .map(|d| d.len)
            .eq(b.dims.iter().map(|d| d.len))
    {
        dims[0].len += 1;
    } else if b.ndims() == a.ndims() + 1
        && b.dims[1..]
            .iter()
            .map(|d| d.len)
            .eq(a.dims.iter().map(|d| d.len))
    {
        dims = b.dims.clone();
        dims[0].len += 1;
    } else {
        return Err(incompatible());
    }
    Ok(Array::new(a.elem, dims, items)?.value())
}

fn string_to_array(v: &[Value], _: &EvalCtx) -> Result<Value, DbError> {
    Ok(split_string(v))
}

/// string_to_array's array (string_to_table's rows): NULL for a NULL
/// string.
pub(crate) fn split_string(v: &[Value]) -> Value {
    let Some(s) = text_arg(&v[0]) else {
        return Value::Null;
    };
    let null_text = v.get(2).and_then(text_arg);
    let elem = |p: &str| -> Value {
        if Some(p) == null_text {
            Value::Null
        } else {
            Value::Text(Arc::from(p))
        }
    };
    let items: Vec<Value> = if s.is_empty() {
        Vec::new()
    } else {
        match text_arg(&v[1]) {
            None => s
                .chars()
                .map(|c| elem(c.encode_utf8(&mut [0; 4])))
                .collect(),
            Some("") => vec![elem(s)],
            Some(d) => s.split(d).map(elem).collect(),
        }
    };
    Array::from_items(DataType::Text, items).value()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::parse_array;
    use crate::datetime::TimeZone;

    fn ctx() -> EvalCtx {
        EvalCtx::new(TimeZone::UTC, 0)
    }

    fn call(name: &str, args: &[Value]) -> String {
        let types: Vec<DataType> = args
            .iter()
            .map(|v| match v {
                Value::Null => DataType::Unknown,
                v => v.data_type(),
            })
            .collect();
        let r = resolve(name, &types).unwrap().unwrap();
        let v = r.func.call(args, &ctx()).unwrap();
        if v.is_null() {
            "NULL".into()
        } else {
            v.to_text(&ctx())
        }
    }

    fn ints(s: &str) -> Value {
        parse_array(DataType::Int4, s, &ctx()).unwrap().value()
    }

    #[test]
    fn results_match_postgresql() {
        let t = Value::text;
        assert_eq!(
            call("array_to_string", &[ints("{1,NULL,3}"), t(",")]),
            "1,3"
        );
        assert_eq!(
            call("array_to_string", &[ints("{1,NULL,3}"), t(","), t("*")]),
            "1,*,3"
        );
        assert_eq!(
            call("array_upper", &[ints("[0:2]={1,2,3}"), Value::Int4(1)]),
            "2"
        );
        assert_eq!(call("array_lower", &[ints("{}"), Value::Int4(1)]), "NULL");
        assert_eq!(
            call("array_length", &[ints("{{1,2,3},{4,5,6}}"), Value::Int4(2)]),
            "3"
        );
        assert_eq!(call("cardinality", &[ints("{{1,2,3},{4,5,6}}")]), "6");
        assert_eq!(call("array_dims", &[ints("[0:1]={1,2}")]), "[0:1]");
        assert_eq!(
            call("array_position", &[ints("{5,NULL,7}"), Value::Int4(7)]),
            "3"
        );
        assert_eq!(
            call("array_append", &[ints("[0:0]={1}"), Value::Int4(2)]),
            "[0:1]={1,2}"
        );
        assert_eq!(
            call("array_prepend", &[Value::Int4(0), ints("{1}")]),
            "{0,1}"
        );
        assert_eq!(
            call("array_cat", &[ints("{1,2}"), ints("{{3,4}}")]),
            "{{1,2},{3,4}}"
        );
        assert_eq!(
            call("array_remove", &[ints("{1,2,1}"), Value::Int4(1)]),
            "{2}"
        );
        assert_eq!(
            call("string_to_array", &[t("a,b,,c"), t(","), t("")]),
            "{a,b,NULL,c}"
        );
        assert_eq!(call("string_to_array", &[t("abc"), Value::Null]), "{a,b,c}");
        let e = resolve("array_length", &[DataType::Unknown, DataType::Int4])
            .unwrap()
            .unwrap_err();
        assert_eq!(e.code, SqlState::DatatypeMismatch);
    }
}
