//! json_object / jsonb_object: an object built from a text array of
//! alternating keys and values (one dimension, or two with two columns),
//! or from an array of keys and an array of values, with PostgreSQL's
//! checks (2202E for the array's shape, 22004 for a NULL key). A NULL
//! value is JSON null, the others are JSON strings.
//!
//! ```text
//!   json_object('{a,1,b,NULL}')        {"a" : "1", "b" : null}
//!   jsonb_object('{a,b}', '{1,2}')     {"a": "1", "b": "2"}
//! ```
//!
//! json's text is PostgreSQL's (`"k" : "v"` joined by `, `); jsonb's is
//! the canonical form of the same pairs (keys ordered, the last of
//! duplicate keys kept).

use std::sync::Arc;

use nestor_common::{DbError, SqlState};

use crate::array::Array;
use crate::datatype::DataType;
use crate::functions::{Imp, Resolved};
use crate::json::{normalize_object, write_json, write_json_string, Json};
use crate::value::Value;

/// A key and its value as the arrays hold them (NULL as None).
type Pair<'a> = (Option<&'a str>, Option<&'a str>);

/// Every function of this module.
pub(crate) const NAMES: &[&str] = &["json_object", "jsonb_object"];

pub(crate) fn resolve(name: &str, args: &[DataType]) -> Option<Result<Resolved, DbError>> {
    if !NAMES.contains(&name) {
        return None;
    }
    let ta = DataType::Text.array_of().expect("text[]");
    let ret = if name == "json_object" {
        DataType::Json
    } else {
        DataType::Jsonb
    };
    let imp: Imp = match (name, args.len()) {
        ("json_object", 1 | 2) => json_object,
        ("jsonb_object", 1 | 2) => jsonb_object,
        _ => return Some(Err(crate::functions::no_function(name, args))),
    };
    Some(Ok(Resolved::listed(
        NAMES,
        name,
        imp,
        vec![ta; args.len()],
        ret,
        false,
    )))
}

fn shape_error(msg: &str) -> DbError {
    DbError::new(SqlState::ArraySubscriptError, msg)
}

fn item(v: &Value) -> Option<&str> {
    match v {
        Value::Text(s) => Some(s),
        _ => None,
    }
}

/// The (key, value) pairs of the one-array form.
fn pairs_of(a: &Array) -> Result<Vec<Pair<'_>>, DbError> {
    match a.ndims() {
        0 => return Ok(Vec::new()),
        1 if !a.items.len().is_multiple_of(2) => {
            return Err(shape_error("array must have even number of elements"))
        }
        1 => {}
        2 if a.dims[1].len != 2 => return Err(shape_error("array must have two columns")),
        2 => {}
        _ => return Err(shape_error("wrong number of array subscripts")),
    }
    Ok(a.items
        .chunks(2)
        .map(|p| (item(&p[0]), item(&p[1])))
        .collect())
}

/// The (key, value) pairs of the two-array form.
fn pairs_of_two<'a>(keys: &'a Array, values: &'a Array) -> Result<Vec<Pair<'a>>, DbError> {
    if keys.ndims() > 1 || keys.ndims() != values.ndims() {
        return Err(shape_error("wrong number of array subscripts"));
    }
    if keys.items.len() != values.items.len() {
        return Err(shape_error("mismatched array dimensions"));
    }
    Ok(keys
        .items
        .iter()
        .zip(&values.items)
        .map(|(k, v)| (item(k), item(v)))
        .collect())
}

/// A key and its value (NULL as None).
type Field<'a> = (&'a str, Option<&'a str>);

/// The pairs of either form, or None for a NULL argument; a NULL key is
/// 22004.
fn pairs(a: &[Value]) -> Result<Option<Vec<Field<'_>>>, DbError> {
    let raw = match a {
        [Value::Array(x)] => pairs_of(x)?,
        [Value::Array(k), Value::Array(v)] => pairs_of_two(k, v)?,
        _ => return Ok(None),
    };
    let mut out = Vec::with_capacity(raw.len());
    for (k, v) in raw {
        let k = k.ok_or_else(|| {
            DbError::new(
                SqlState::NullValueNotAllowed,
                "null value not allowed for object key",
            )
        })?;
        out.push((k, v));
    }
    Ok(Some(out))
}

fn json_object(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let Some(pairs) = pairs(a)? else {
        return Ok(Value::Null);
    };
    let mut out = String::from("{");
    for (i, (k, v)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_json_string(&mut out, k);
        out.push_str(" : ");
        match v {
            Some(v) => write_json_string(&mut out, v),
            None => out.push_str("null"),
        }
    }
    out.push('}');
    Ok(Value::Text(Arc::from(out)))
}

fn jsonb_object(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let Some(pairs) = pairs(a)? else {
        return Ok(Value::Null);
    };
    let fields = pairs
        .into_iter()
        .map(|(k, v)| {
            (
                k.to_string(),
                v.map_or(Json::Null, |s| Json::Str(s.to_string())),
            )
        })
        .collect();
    let mut out = String::new();
    write_json(&mut out, &Json::Obj(normalize_object(fields)));
    Ok(Value::Jsonb(Arc::from(out)))
}
