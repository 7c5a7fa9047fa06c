//! `json[b]_populate_record[set]` and `json[b]_to_record[set]`: a JSON
//! object's values as the fields of a composite (or column-list) type.
//!
//! Each field of the record type takes the object's value under its name
//! (PostgreSQL's jsonfuncs.c, `populate_record_field`):
//!
//! ```text
//!   CREATE TYPE jpop AS (a text, b int, c timestamp)
//!   json_populate_record(null::jpop, '{"a":"x","b":"2","z":1}')  ->  (x,2,)
//!   a key that is absent        the base record's field (NULL without one)
//!   JSON null                   NULL
//!   a string                    its text, through the field type's input
//!                               function (a json/jsonb field keeps it quoted)
//!   a number, true, false       its JSON text through the input function
//!   an object, into a composite field      populated the same way
//!   an array, into an array field          its elements (nested arrays are
//!                                          the dimensions)
//!   anything else               its JSON text through the input function
//! ```
//!
//! The `recordset` forms take an array of objects and give a row each.
//! Errors are PostgreSQL's (22023 `cannot call populate_composite on a
//! scalar`, `expected JSON array`, ...). A field of a domain is filled as
//! its base type; the binder checks the domains' constraints on the
//! record made (`nestor_plan::bind::domain`: 23502 `domain
//! js_int_not_null does not allow null values`, ...).
//!
//! A json document is read keeping each value's text as written (PostgreSQL
//! hands json fields the input's own text: `[100,200,false]`); a jsonb one
//! gives jsonb's canonical text (`[100, 200, false]`).

use std::sync::Arc;

use nestor_common::{DbError, SqlState};

use crate::array::{Array, Dim};
use crate::context::EvalCtx;
use crate::datatype::{DataType, RecordType};
use crate::json::{parse, write_json, Json};
use crate::value::Value;

fn invalid(msg: impl Into<String>) -> DbError {
    DbError::new(SqlState::InvalidParameterValue, msg.into())
}

/// A JSON value with the text a field of type json gets for it.
#[derive(Debug)]
pub(crate) struct JVal {
    kind: Kind,
    text: String,
}

#[derive(Debug)]
enum Kind {
    Null,
    Bool(bool),
    Num,
    Str(String),
    Arr(Vec<JVal>),
    Obj(Vec<(String, JVal)>),
}

fn from_jsonb(v: &Json) -> JVal {
    let mut text = String::new();
    write_json(&mut text, v);
    let kind = match v {
        Json::Null => Kind::Null,
        Json::Bool(b) => Kind::Bool(*b),
        Json::Num(_) => Kind::Num,
        Json::Str(s) => Kind::Str(s.clone()),
        Json::Arr(items) => Kind::Arr(items.iter().map(from_jsonb).collect()),
        Json::Obj(fields) => Kind::Obj(
            fields
                .iter()
                .map(|(k, v)| (k.clone(), from_jsonb(v)))
                .collect(),
        ),
    };
    JVal { kind, text }
}

/// The parsed document of a json (`Value::Text`, its text kept) or jsonb
/// value.
pub(crate) fn document(v: &Value) -> Result<JVal, DbError> {
    match v {
        Value::Jsonb(s) => Ok(from_jsonb(&parse(s)?)),
        Value::Text(s) => {
            // Checked the json way first (the errors are json_in's).
            crate::json::validate_json(s)?;
            let text: &str = s;
            let mut r = Raw {
                b: text.as_bytes(),
                s: text,
                i: 0,
            };
            r.value().ok_or_else(|| DbError::internal("json document"))
        }
        other => Err(DbError::internal(format!("JSON operand {other:?}"))),
    }
}

/// A reader of json text already known to be valid, keeping each
/// value's text.
struct Raw<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
}

impl Raw<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn value(&mut self) -> Option<JVal> {
        self.ws();
        let start = self.i;
        let kind = match *self.b.get(self.i)? {
            b'{' => {
                self.i += 1;
                let mut fields = Vec::new();
                loop {
                    self.ws();
                    match *self.b.get(self.i)? {
                        b'}' => {
                            self.i += 1;
                            break;
                        }
                        b',' => self.i += 1,
                        _ => {
                            let k = self.string()?;
                            self.ws();
                            self.i += 1; // ':'
                            fields.push((k, self.value()?));
                        }
                    }
                }
                Kind::Obj(fields)
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    self.ws();
                    match *self.b.get(self.i)? {
                        b']' => {
                            self.i += 1;
                            break;
                        }
                        b',' => self.i += 1,
                        _ => items.push(self.value()?),
                    }
                }
                Kind::Arr(items)
            }
            b'"' => Kind::Str(self.string()?),
            b't' => {
                self.i += 4;
                Kind::Bool(true)
            }
            b'f' => {
                self.i += 5;
                Kind::Bool(false)
            }
            b'n' => {
                self.i += 4;
                Kind::Null
            }
            _ => {
                while self.i < self.b.len()
                    && matches!(
                        self.b[self.i],
                        b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'
                    )
                {
                    self.i += 1;
                }
                Kind::Num
            }
        };
        let text = self.s.get(start..self.i)?.to_string();
        Some(JVal { kind, text })
    }

    /// A string token, de-escaped (the cursor on its opening quote).
    fn string(&mut self) -> Option<String> {
        let start = self.i;
        self.i += 1;
        while *self.b.get(self.i)? != b'"' {
            if self.b[self.i] == b'\\' {
                self.i += 1;
            }
            self.i += 1;
        }
        self.i += 1;
        match parse(self.s.get(start..self.i)?) {
            Ok(Json::Str(s)) => Some(s),
            _ => None,
        }
    }
}

/// One record from a JSON object: `base` (a record or NULL) gives the
/// fields the object does not name.
pub fn populate_record(
    rt: &RecordType,
    base: &Value,
    doc: &Value,
    ctx: &EvalCtx,
) -> Result<Value, DbError> {
    if doc.is_null() {
        return Ok(base.clone());
    }
    let j = document(doc)?;
    populate_composite(rt, base, &j, ctx)
}

/// The records of a JSON array of objects (`fname` names the function in
/// the errors).
pub fn populate_recordset(
    rt: &RecordType,
    base: &Value,
    doc: &Value,
    fname: &str,
    json: bool,
    ctx: &EvalCtx,
) -> Result<Vec<Value>, DbError> {
    if doc.is_null() {
        return Ok(Vec::new());
    }
    let items = match document(doc)?.kind {
        Kind::Arr(items) => items,
        Kind::Obj(_) if json => return Err(invalid(format!("cannot call {fname} on an object"))),
        _ if json => return Err(invalid(format!("cannot call {fname} on a scalar"))),
        _ => return Err(invalid(format!("cannot call {fname} on a non-array"))),
    };
    let mut out = Vec::with_capacity(items.len());
    for item in &items {
        if !matches!(item.kind, Kind::Obj(_)) {
            return Err(invalid(format!(
                "argument of {fname} must be an array of objects"
            )));
        }
        out.push(populate_composite(rt, base, item, ctx)?);
    }
    Ok(out)
}

fn populate_composite(
    rt: &RecordType,
    base: &Value,
    j: &JVal,
    ctx: &EvalCtx,
) -> Result<Value, DbError> {
    let fields = match &j.kind {
        Kind::Obj(fields) => fields,
        Kind::Arr(_) => return Err(invalid("cannot call populate_composite on an array")),
        _ => return Err(invalid("cannot call populate_composite on a scalar")),
    };
    let defaults: Option<&[Value]> = match base {
        Value::Record(f) => Some(f),
        _ => None,
    };
    let mut out = Vec::with_capacity(rt.fields.len());
    for (i, (name, ty)) in rt.fields.iter().enumerate() {
        let default = defaults.and_then(|d| d.get(i)).unwrap_or(&Value::Null);
        let v = match fields.iter().rev().find(|(k, _)| k == name) {
            None => default.clone(),
            Some((_, v)) => populate_field(*ty, name, default, v, ctx)?,
        };
        out.push(v);
    }
    Ok(Value::Record(Arc::from(out)))
}

fn populate_field(
    ty: DataType,
    name: &str,
    default: &Value,
    v: &JVal,
    ctx: &EvalCtx,
) -> Result<Value, DbError> {
    match (&v.kind, ty) {
        (Kind::Null, _) => Ok(Value::Null),
        (Kind::Str(_), _) => populate_scalar(ty, v, ctx),
        (_, DataType::Record(rt)) => populate_composite(rt, default, v, ctx),
        (_, DataType::Array(e)) => populate_array(*e, name, v, ctx),
        _ => populate_scalar(ty, v, ctx),
    }
}

/// A scalar field: the value's text through the type's input function
/// (a json or jsonb field takes the JSON text, a string keeping its
/// quotes).
fn populate_scalar(ty: DataType, v: &JVal, ctx: &EvalCtx) -> Result<Value, DbError> {
    let text = match (&v.kind, ty) {
        (_, DataType::Json | DataType::Jsonb) => v.text.as_str(),
        (Kind::Str(s), _) => s.as_str(),
        (Kind::Bool(b), _) => {
            if *b {
                "true"
            } else {
                "false"
            }
        }
        _ => v.text.as_str(),
    };
    let value = crate::text::parse_text(ty.base(), text, ctx)?;
    crate::cast::apply_typmod(value, ty, false)
}

fn expected_array(name: &str, at: &[usize]) -> DbError {
    let hint = if at.is_empty() {
        format!("See the value of key \"{name}\".")
    } else {
        let idx: String = at.iter().map(|i| format!("[{i}]")).collect();
        format!("See the array element {idx} of key \"{name}\".")
    };
    invalid("expected JSON array").with_hint(hint)
}

fn malformed_array() -> DbError {
    invalid("malformed JSON array")
        .with_detail("Multidimensional arrays must have sub-arrays with matching dimensions.")
}

/// An array field from a JSON array: its dimensions are the nesting of
/// the first elements, and every sub-array must match them.
fn populate_array(elem: DataType, name: &str, v: &JVal, ctx: &EvalCtx) -> Result<Value, DbError> {
    if !matches!(v.kind, Kind::Arr(_)) {
        return Err(expected_array(name, &[]));
    }
    let mut dims: Vec<usize> = Vec::new();
    let mut probe = v;
    while let Kind::Arr(items) = &probe.kind {
        dims.push(items.len());
        match items.first() {
            Some(first) if matches!(first.kind, Kind::Arr(_)) => probe = first,
            _ => break,
        }
    }
    let mut items = Vec::new();
    let mut at = Vec::new();
    collect(elem, v, &dims, name, &mut at, &mut items, ctx)?;
    if dims.contains(&0) {
        return Ok(Array::new(elem, Vec::new(), Vec::new())?.value());
    }
    let dims = dims
        .into_iter()
        .map(|len| Dim {
            len: len as i32,
            lower: 1,
        })
        .collect();
    Ok(Array::new(elem, dims, items)?.value())
}

fn collect(
    elem: DataType,
    v: &JVal,
    dims: &[usize],
    name: &str,
    at: &mut Vec<usize>,
    out: &mut Vec<Value>,
    ctx: &EvalCtx,
) -> Result<(), DbError> {
    let level = at.len();
    match &v.kind {
        Kind::Arr(items) if level < dims.len() => {
            if items.len() != dims[level] {
                return Err(malformed_array());
            }
            for (i, item) in items.iter().enumerate() {
                at.push(i);
                collect(elem, item, dims, name, at, out, ctx)?;
                at.pop();
            }
            Ok(())
        }
        _ if level < dims.len() => Err(expected_array(name, at)),
        Kind::Arr(_) if !matches!(elem, DataType::Json | DataType::Jsonb) => Err(malformed_array()),
        _ => {
            out.push(populate_field(elem, name, &Value::Null, v, ctx)?);
            Ok(())
        }
    }
}
