//! jsonb operators and the functions behind them, under PostgreSQL's
//! names: `->` (jsonb_object_field, jsonb_array_element), `->>` (their
//! `_text` forms), `#>` / `#>>` (jsonb_extract_path[_text]), `@>` / `<@`
//! (jsonb_contains, jsonb_contained), `?` / `?|` / `?&` (jsonb_exists,
//! jsonb_exists_any, jsonb_exists_all), plus jsonb_typeof,
//! jsonb_array_length, jsonb_pretty (the functions that change a value are
//! [`crate::jsonb_edit`]'s).
//!
//! A jsonb value is kept as its canonical text ([`crate::json`]); each
//! operator parses it into the tree, walks it, and prints what it returns
//! in the same canonical form:
//!
//! ```text
//!   '{"a": [1, "two"]}' -> 'a'      = [1, "two"]         (jsonb)
//!   '{"a": [1, "two"]}' #>> '{a,1}' = two                (text)
//!   '{"a": [1, 2], "b": 3}' @> '{"a": [2]}'  = true      (containment)
//! ```
//!
//! Containment follows PostgreSQL: objects contain objects whose every key
//! they have with a contained value; arrays contain arrays whose every
//! element some element of theirs contains (order and duplicates do not
//! matter), and a top-level array contains a scalar it has as an element.
//! A missing key, an index out of range or a step into a scalar yields
//! NULL, as in PostgreSQL.

use std::sync::Arc;

use nestor_common::DbError;

use crate::datatype::DataType;
use crate::functions::{Imp, Resolved};
use crate::json::{parse, write_json, Json};
use crate::value::Value;

/// Every function of this module.
pub(crate) const NAMES: &[&str] = &[
    "jsonb_object_field",
    "jsonb_object_field_text",
    "jsonb_array_element",
    "jsonb_array_element_text",
    "jsonb_extract_path",
    "jsonb_extract_path_text",
    "jsonb_contains",
    "jsonb_contained",
    "jsonb_exists",
    "jsonb_exists_any",
    "jsonb_exists_all",
    "jsonb_typeof",
    "jsonb_array_length",
    "jsonb_pretty",
];

/// The function an operator on jsonb stands for, given the right operand's
/// type (`->` takes a key or an index).
pub fn operator_function(op: &str, right_is_integer: bool) -> Option<&'static str> {
    Some(match (op, right_is_integer) {
        ("->", false) => "jsonb_object_field",
        ("->", true) => "jsonb_array_element",
        ("->>", false) => "jsonb_object_field_text",
        ("->>", true) => "jsonb_array_element_text",
        ("#>", _) => "jsonb_extract_path",
        ("#>>", _) => "jsonb_extract_path_text",
        ("@>", _) => "jsonb_contains",
        ("<@", _) => "jsonb_contained",
        ("?", _) => "jsonb_exists",
        ("?|", _) => "jsonb_exists_any",
        ("?&", _) => "jsonb_exists_all",
        _ => return None,
    })
}

fn text_array() -> DataType {
    DataType::Text.array_of().expect("text[]")
}

/// `name(args)` if it is one of this module's functions: the argument
/// types it takes and what it returns.
pub(crate) fn resolve(name: &str, args: &[DataType]) -> Option<Result<Resolved, DbError>> {
    if !NAMES.contains(&name) {
        return None;
    }
    let j = DataType::Jsonb;
    let (imp, params, ret): (Imp, Vec<DataType>, DataType) = match (name, args.len()) {
        ("jsonb_object_field", 2) => (object_field, vec![j, DataType::Text], j),
        ("jsonb_object_field_text", 2) => {
            (object_field_text, vec![j, DataType::Text], DataType::Text)
        }
        ("jsonb_array_element", 2) => (array_element, vec![j, DataType::Int4], j),
        ("jsonb_array_element_text", 2) => {
            (array_element_text, vec![j, DataType::Int4], DataType::Text)
        }
        // The VARIADIC text[] path spelled out: one text argument a step.
        ("jsonb_extract_path" | "jsonb_extract_path_text", n)
            if n >= 2
                && args[1..]
                    .iter()
                    .all(|t| t.is_string() || *t == DataType::Unknown) =>
        {
            let mut params = vec![DataType::Text; n];
            params[0] = j;
            if name == "jsonb_extract_path" {
                (extract_path, params, j)
            } else {
                (extract_path_text, params, DataType::Text)
            }
        }
        ("jsonb_extract_path", 2) => (extract_path, vec![j, text_array()], j),
        ("jsonb_extract_path_text", 2) => {
            (extract_path_text, vec![j, text_array()], DataType::Text)
        }
        ("jsonb_contains", 2) => (contains, vec![j, j], DataType::Bool),
        ("jsonb_contained", 2) => (contained, vec![j, j], DataType::Bool),
        ("jsonb_exists", 2) => (exists, vec![j, DataType::Text], DataType::Bool),
        ("jsonb_exists_any", 2) => (exists_any, vec![j, text_array()], DataType::Bool),
        ("jsonb_exists_all", 2) => (exists_all, vec![j, text_array()], DataType::Bool),
        ("jsonb_typeof", 1) => (type_of, vec![j], DataType::Text),
        ("jsonb_array_length", 1) => (array_length, vec![j], DataType::Int4),
        ("jsonb_pretty", 1) => (pretty, vec![j], DataType::Text),
        _ => return Some(Err(crate::functions::no_function(name, args))),
    };
    Some(Ok(Resolved::listed(NAMES, name, imp, params, ret, false)))
}

// ----- argument access ---------------------------------------------------------

fn doc(v: &Value) -> Result<Option<Json>, DbError> {
    match v {
        Value::Null => Ok(None),
        Value::Jsonb(s) | Value::Text(s) => parse(s).map(Some),
        other => Err(DbError::internal(format!("jsonb operand {other:?}"))),
    }
}

fn text_arg(v: &Value) -> Option<&str> {
    match v {
        Value::Text(s) => Some(s),
        _ => None,
    }
}

fn int_arg(v: &Value) -> Option<i64> {
    v.as_i64()
}

/// The elements of a text[] argument (NULL elements as None).
fn text_items(v: &Value) -> Option<Vec<Option<&str>>> {
    match v {
        Value::Array(a) => Some(a.items.iter().map(text_arg).collect()),
        _ => None,
    }
}

/// A path: one text[] argument, or the text arguments themselves.
fn path_args(rest: &[Value]) -> Option<Vec<Option<&str>>> {
    match rest {
        [one @ Value::Array(_)] => text_items(one),
        [Value::Null] => None,
        many => Some(many.iter().map(text_arg).collect()),
    }
}

fn jsonb(v: &Json) -> Value {
    let mut out = String::new();
    write_json(&mut out, v);
    Value::Jsonb(Arc::from(out))
}

/// `->>`'s text of a value: a string unquoted, null as SQL NULL, the
/// rest as jsonb text.
fn as_text(v: &Json) -> Value {
    match v {
        Json::Null => Value::Null,
        Json::Str(s) => Value::Text(Arc::from(s.as_str())),
        other => {
            let mut out = String::new();
            write_json(&mut out, other);
            Value::Text(Arc::from(out))
        }
    }
}

// ----- navigation ---------------------------------------------------------------

fn field<'a>(v: &'a Json, key: &str) -> Option<&'a Json> {
    match v {
        Json::Obj(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
        _ => None,
    }
}

/// Element `i` of an array (negative: from the end). A scalar answers as
/// a one-element array, as in PostgreSQL (`'"s"'::jsonb -> 0` is `"s"`).
fn element(v: &Json, i: i64) -> Option<&Json> {
    match v {
        Json::Arr(items) => {
            let n = items.len() as i64;
            let i = if i < 0 { n + i } else { i };
            (0..n).contains(&i).then(|| &items[i as usize])
        }
        Json::Obj(_) => None,
        scalar => (i == 0 || i == -1).then_some(scalar),
    }
}

/// One step of a path: a key into an object, an integer into an array.
fn step<'a>(v: &'a Json, key: &str) -> Option<&'a Json> {
    match v {
        Json::Obj(_) => field(v, key),
        Json::Arr(_) => key.trim().parse::<i64>().ok().and_then(|i| element(v, i)),
        _ => None,
    }
}

fn path<'a>(v: &'a Json, keys: &[Option<&str>]) -> Option<&'a Json> {
    keys.iter()
        .try_fold(v, |cur, k| k.and_then(|k| step(cur, k)))
}

fn object_field(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let (Some(d), Some(k)) = (doc(&a[0])?, text_arg(&a[1])) else {
        return Ok(Value::Null);
    };
    Ok(field(&d, k).map_or(Value::Null, jsonb))
}

fn object_field_text(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let (Some(d), Some(k)) = (doc(&a[0])?, text_arg(&a[1])) else {
        return Ok(Value::Null);
    };
    Ok(field(&d, k).map_or(Value::Null, as_text))
}

fn array_element(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let (Some(d), Some(i)) = (doc(&a[0])?, int_arg(&a[1])) else {
        return Ok(Value::Null);
    };
    Ok(element(&d, i).map_or(Value::Null, jsonb))
}

fn array_element_text(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let (Some(d), Some(i)) = (doc(&a[0])?, int_arg(&a[1])) else {
        return Ok(Value::Null);
    };
    Ok(element(&d, i).map_or(Value::Null, as_text))
}

fn extract_path(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let (Some(d), Some(keys)) = (doc(&a[0])?, path_args(&a[1..])) else {
        return Ok(Value::Null);
    };
    Ok(path(&d, &keys).map_or(Value::Null, jsonb))
}

fn extract_path_text(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let (Some(d), Some(keys)) = (doc(&a[0])?, path_args(&a[1..])) else {
        return Ok(Value::Null);
    };
    Ok(path(&d, &keys).map_or(Value::Null, as_text))
}

// ----- containment and existence -----------------------------------------------

fn scalar_eq(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Null, Json::Null) => true,
        (Json::Bool(x), Json::Bool(y)) => x == y,
        (Json::Num(x), Json::Num(y)) => x.cmp(y).is_eq(),
        (Json::Str(x), Json::Str(y)) => x == y,
        _ => false,
    }
}

/// Whether `a` contains `b` (`a @> b`); `top` allows a top-level array to
/// contain a scalar.
fn contains_json(a: &Json, b: &Json, top: bool) -> bool {
    match (a, b) {
        (Json::Obj(af), Json::Obj(bf)) => bf.iter().all(|(k, bv)| {
            af.iter()
                .any(|(ak, av)| ak == k && contains_json(av, bv, false))
        }),
        (Json::Arr(ai), Json::Arr(bi)) => bi.iter().all(|bv| {
            ai.iter().any(|av| match bv {
                Json::Arr(_) | Json::Obj(_) => contains_json(av, bv, false),
                _ => scalar_eq(av, bv),
            })
        }),
        (Json::Arr(ai), scalar) if top && !matches!(scalar, Json::Obj(_)) => {
            ai.iter().any(|av| scalar_eq(av, scalar))
        }
        (Json::Arr(_) | Json::Obj(_), _) | (_, Json::Arr(_) | Json::Obj(_)) => false,
        (x, y) => scalar_eq(x, y),
    }
}

fn contains(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let (Some(x), Some(y)) = (doc(&a[0])?, doc(&a[1])?) else {
        return Ok(Value::Null);
    };
    Ok(Value::Bool(contains_json(&x, &y, true)))
}

fn contained(a: &[Value], ctx: &crate::EvalCtx) -> Result<Value, DbError> {
    contains(&[a[1].clone(), a[0].clone()], ctx)
}

/// `?`: a key of an object, a string element of an array, or the string
/// itself.
fn has_key(v: &Json, key: &str) -> bool {
    match v {
        Json::Obj(fields) => fields.iter().any(|(k, _)| k == key),
        Json::Arr(items) => items.iter().any(|i| matches!(i, Json::Str(s) if s == key)),
        Json::Str(s) => s == key,
        _ => false,
    }
}

fn exists(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let (Some(d), Some(k)) = (doc(&a[0])?, text_arg(&a[1])) else {
        return Ok(Value::Null);
    };
    Ok(Value::Bool(has_key(&d, k)))
}

fn exists_any(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let (Some(d), Some(keys)) = (doc(&a[0])?, text_items(&a[1])) else {
        return Ok(Value::Null);
    };
    Ok(Value::Bool(keys.iter().flatten().any(|k| has_key(&d, k))))
}

fn exists_all(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let (Some(d), Some(keys)) = (doc(&a[0])?, text_items(&a[1])) else {
        return Ok(Value::Null);
    };
    Ok(Value::Bool(keys.iter().flatten().all(|k| has_key(&d, k))))
}

fn type_of(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let Some(d) = doc(&a[0])? else {
        return Ok(Value::Null);
    };
    Ok(Value::Text(Arc::from(d.type_name())))
}

/// jsonb_pretty's text of `v` at nesting `level`: each member on a line
/// of its own, indented four spaces a level, an empty container's
/// closing bracket on the next line (PostgreSQL's JsonbToCStringIndent).
fn write_pretty(out: &mut String, v: &Json, level: usize) {
    let members =
        |out: &mut String, n: usize, close: char, each: &mut dyn FnMut(&mut String, usize)| {
            for i in 0..n {
                if i > 0 {
                    out.push(',');
                }
                out.push('\n');
                out.push_str(&"    ".repeat(level + 1));
                each(out, i);
            }
            out.push('\n');
            out.push_str(&"    ".repeat(level));
            out.push(close);
        };
    match v {
        Json::Obj(fields) => {
            out.push('{');
            members(out, fields.len(), '}', &mut |out, i| {
                crate::json::write_json_string(out, &fields[i].0);
                out.push_str(": ");
                write_pretty(out, &fields[i].1, level + 1);
            });
        }
        Json::Arr(items) => {
            out.push('[');
            members(out, items.len(), ']', &mut |out, i| {
                write_pretty(out, &items[i], level + 1)
            });
        }
        scalar => write_json(out, scalar),
    }
}

fn pretty(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let Some(d) = doc(&a[0])? else {
        return Ok(Value::Null);
    };
    let mut out = String::new();
    write_pretty(&mut out, &d, 0);
    Ok(Value::Text(Arc::from(out)))
}

fn array_length(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    match doc(&a[0])? {
        None => Ok(Value::Null),
        Some(Json::Arr(items)) => Ok(Value::Int4(items.len() as i32)),
        Some(Json::Obj(_)) => Err(DbError::new(
            nestor_common::SqlState::InvalidParameterValue,
            "cannot get array length of a non-array",
        )),
        Some(_) => Err(DbError::new(
            nestor_common::SqlState::InvalidParameterValue,
            "cannot get array length of a scalar",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(s: &str) -> Value {
        Value::Jsonb(Arc::from(crate::json::normalize_jsonb(s).unwrap()))
    }

    fn t(s: &str) -> Value {
        Value::Text(Arc::from(s))
    }

    fn ctx() -> crate::EvalCtx {
        crate::EvalCtx::new(Default::default(), 0)
    }

    #[test]
    fn navigation_returns_what_postgresql_returns() {
        let d = j(r#"{"a": [1, "two", {"b": null}], "c": "x"}"#);
        let c = ctx();
        assert_eq!(
            object_field(&[d.clone(), t("a")], &c).unwrap(),
            j(r#"[1, "two", {"b": null}]"#)
        );
        assert_eq!(object_field_text(&[d.clone(), t("c")], &c).unwrap(), t("x"));
        assert_eq!(
            object_field(&[d.clone(), t("zz")], &c).unwrap(),
            Value::Null
        );
        let arr = object_field(&[d.clone(), t("a")], &c).unwrap();
        assert_eq!(
            array_element(&[arr.clone(), Value::Int4(-2)], &c).unwrap(),
            j(r#""two""#)
        );
        assert_eq!(
            array_element(&[arr.clone(), Value::Int4(3)], &c).unwrap(),
            Value::Null
        );
        assert_eq!(
            array_element_text(&[arr, Value::Int4(0)], &c).unwrap(),
            t("1")
        );
    }

    #[test]
    fn containment_follows_postgresql() {
        let c = ctx();
        let yes = |a: &str, b: &str| contains(&[j(a), j(b)], &c).unwrap() == Value::Bool(true);
        assert!(yes(r#"{"a": [1, 2], "b": 3}"#, r#"{"a": [2]}"#));
        assert!(yes("[1, 2, [3, 4]]", "[[4], 1, 1]"));
        assert!(yes(r#"["x", 1]"#, r#""x""#));
        assert!(!yes(r#"{"a": {"b": 1}}"#, r#"{"b": 1}"#));
        assert!(!yes("[[1, 2]]", "[1]"));
        assert!(yes("1.0", "1"));
    }
}
