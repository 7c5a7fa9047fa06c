//! json (not jsonb) operators and the functions behind them, under
//! PostgreSQL's names: `->` (json_object_field, json_array_element),
//! `->>` (their `_text` forms), `#>` / `#>>` (json_extract_path[_text]);
//! also json_typeof, json_array_length and json_strip_nulls (which, as
//! PostgreSQL's, re-emits the tokens it keeps without the white space
//! between them: `{"a":1,"c":[2,null]}`).
//!
//! A json value is the text it was written as (validated on input, never
//! normalized), and what these return is a piece of that text, as
//! PostgreSQL's json functions return it: the sub-value's own bytes with
//! the whitespace around it dropped, so `'{"a": [1,  2]}'::json -> 'a'` is
//! `[1,  2]` and `1e2` stays `1e2` (jsonb would print `[1, 2]` and `100`).
//! The `_text` forms give a string's contents unescaped and json `null` as
//! SQL NULL. Navigation is a scan over the text ([`Scan`]) that skips the
//! values it does not need; keys are compared unescaped, and of duplicate
//! keys the last one wins. Missing keys, indexes out of range (negative
//! ones count from the end), steps into scalars and NULL path elements
//! give NULL.
//!
//! ```text
//!   '{"a": {"b": [10, {"c" : "d"}]}}' #> '{a,b,1}'  = {"c" : "d"}   (json)
//!   '[1, [2,  3], "x\"y"]' ->> -1                  = x"y            (text)
//! ```

use std::sync::Arc;

use nestor_common::DbError;

use crate::datatype::DataType;
use crate::functions::{Imp, Resolved};
use crate::json::{parse, Json};
use crate::value::Value;

/// Every function of this module.
pub(crate) const NAMES: &[&str] = &[
    "json_object_field",
    "json_object_field_text",
    "json_array_element",
    "json_array_element_text",
    "json_extract_path",
    "json_extract_path_text",
    "json_strip_nulls",
    "json_array_length",
    "json_typeof",
];

/// The function an operator on json stands for, given the right operand's
/// type (`->` takes a key or an index).
pub fn operator_function(op: &str, right_is_integer: bool) -> Option<&'static str> {
    Some(match (op, right_is_integer) {
        ("->", false) => "json_object_field",
        ("->", true) => "json_array_element",
        ("->>", false) => "json_object_field_text",
        ("->>", true) => "json_array_element_text",
        ("#>", _) => "json_extract_path",
        ("#>>", _) => "json_extract_path_text",
        _ => return None,
    })
}

/// `name(args)` if it is one of this module's functions: the argument
/// types it takes and what it returns. The path functions take their
/// path as a text[] (the operators) or as separate text arguments
/// (`json_extract_path(j, 'a', 'b')`, PostgreSQL's VARIADIC form).
pub(crate) fn resolve(name: &str, args: &[DataType]) -> Option<Result<Resolved, DbError>> {
    if !NAMES.contains(&name) {
        return None;
    }
    let (j, t) = (DataType::Json, DataType::Text);
    let text_ish = |d: &DataType| d.is_string() || *d == DataType::Unknown;
    let (imp, params, ret): (Imp, Vec<DataType>, DataType) = match (name, args) {
        ("json_object_field", [_, _]) => (object_field, vec![j, t], j),
        ("json_object_field_text", [_, _]) => (object_field_text, vec![j, t], t),
        ("json_array_element", [_, _]) => (array_element, vec![j, DataType::Int4], j),
        ("json_array_element_text", [_, _]) => (array_element_text, vec![j, DataType::Int4], t),
        ("json_extract_path" | "json_extract_path_text", [_, rest @ ..])
            if !rest.is_empty() && rest.iter().all(text_ish) =>
        {
            let mut params = vec![j];
            params.extend(rest.iter().map(|_| t));
            if name == "json_extract_path" {
                (extract_path, params, j)
            } else {
                (extract_path_text, params, t)
            }
        }
        ("json_extract_path" | "json_extract_path_text", [_, _]) => {
            let path = DataType::Text.array_of().expect("text[]");
            if name == "json_extract_path" {
                (extract_path, vec![j, path], j)
            } else {
                (extract_path_text, vec![j, path], t)
            }
        }
        ("json_strip_nulls", [_]) => (strip_nulls, vec![j], j),
        ("json_array_length", [_]) => (array_length, vec![j], DataType::Int4),
        ("json_typeof", [_]) => (type_of, vec![j], t),
        _ => return Some(Err(crate::functions::no_function(name, args))),
    };
    Some(Ok(Resolved::listed(NAMES, name, imp, params, ret, false)))
}

// ----- the scanner ---------------------------------------------------------------

/// A cursor over json text already validated on input.
struct Scan<'a> {
    s: &'a str,
    i: usize,
}

impl<'a> Scan<'a> {
    fn new(s: &'a str) -> Scan<'a> {
        let mut sc = Scan { s, i: 0 };
        sc.ws();
        sc
    }

    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.i).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    /// Skips one byte if it is `b` (and the whitespace after it).
    fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.i += 1;
            self.ws();
            true
        } else {
            false
        }
    }

    /// A string at the cursor, quotes included.
    fn string(&mut self) -> &'a str {
        let start = self.i;
        self.i += 1;
        while let Some(c) = self.peek() {
            self.i += 1;
            match c {
                b'\\' => self.i += 1,
                b'"' => break,
                _ => {}
            }
        }
        &self.s[start..self.i.min(self.s.len())]
    }

    /// The value at the cursor, skipped; returns its text.
    fn value(&mut self) -> &'a str {
        let start = self.i;
        match self.peek() {
            Some(b'"') => {
                self.string();
            }
            Some(open @ (b'[' | b'{')) => {
                let close = if open == b'[' { b']' } else { b'}' };
                let mut depth = 0usize;
                while let Some(c) = self.peek() {
                    match c {
                        b'"' => {
                            self.string();
                            continue;
                        }
                        b'[' | b'{' => depth += 1,
                        b']' | b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                debug_assert_eq!(c, close);
                                self.i += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    self.i += 1;
                }
            }
            _ => {
                while let Some(c) = self.peek() {
                    if matches!(c, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r') {
                        break;
                    }
                    self.i += 1;
                }
            }
        }
        let v = &self.s[start..self.i];
        self.ws();
        v
    }
}

/// A string token's contents, unescaped.
fn unescape(token: &str) -> Option<String> {
    if !token.contains('\\') {
        return Some(token[1..token.len() - 1].to_string());
    }
    match parse(token) {
        Ok(Json::Str(s)) => Some(s),
        _ => None,
    }
}

/// The value of `key` in an object (the last of duplicates).
fn field<'a>(doc: &'a str, key: &str) -> Option<&'a str> {
    let mut sc = Scan::new(doc);
    if !sc.eat(b'{') {
        return None;
    }
    let mut found = None;
    while sc.peek() == Some(b'"') {
        let k = sc.string();
        sc.ws();
        sc.eat(b':');
        let v = sc.value();
        if unescape(k).is_some_and(|k| k == key) {
            found = Some(v);
        }
        if !sc.eat(b',') {
            break;
        }
    }
    found
}

/// Element `i` of an array (negative: from the end).
fn element(doc: &str, i: i64) -> Option<&str> {
    let mut sc = Scan::new(doc);
    if !sc.eat(b'[') {
        return None;
    }
    let mut items = Vec::new();
    while !matches!(sc.peek(), None | Some(b']')) {
        items.push(sc.value());
        if !sc.eat(b',') {
            break;
        }
    }
    let n = items.len() as i64;
    let i = if i < 0 { n + i } else { i };
    (0..n).contains(&i).then(|| items[i as usize])
}

/// An array subscript in a path: what strtol reads, whole.
fn path_index(key: &str) -> Option<i64> {
    key.trim_start().parse::<i64>().ok()
}

/// One step of a path: a key into an object, an integer into an array.
fn step<'a>(doc: &'a str, key: &str) -> Option<&'a str> {
    match Scan::new(doc).peek() {
        Some(b'{') => field(doc, key),
        Some(b'[') => path_index(key).and_then(|i| element(doc, i)),
        _ => None,
    }
}

// ----- the functions ----------------------------------------------------------------

fn doc(v: &Value) -> Option<&str> {
    match v {
        Value::Text(s) | Value::Jsonb(s) => Some(s),
        _ => None,
    }
}

fn json(v: Option<&str>) -> Value {
    v.map_or(Value::Null, |s| Value::Text(Arc::from(s.trim_end())))
}

/// `->>`'s text of a value: a string unescaped, null as SQL NULL, the
/// rest as written.
fn as_text(v: Option<&str>) -> Value {
    let Some(v) = v.map(str::trim_end) else {
        return Value::Null;
    };
    if v == "null" {
        return Value::Null;
    }
    if v.starts_with('"') {
        if let Some(s) = unescape(v) {
            return Value::Text(Arc::from(s));
        }
    }
    Value::Text(Arc::from(v))
}

fn key_arg(v: &Value) -> Option<&str> {
    match v {
        Value::Text(s) => Some(s),
        _ => None,
    }
}

fn get_field(a: &[Value]) -> Option<&str> {
    field(doc(&a[0])?, key_arg(&a[1])?)
}

fn get_element(a: &[Value]) -> Option<&str> {
    element(doc(&a[0])?, a[1].as_i64()?)
}

/// The path: one text[] argument, or the text arguments after the
/// document. A NULL element gives None.
fn get_path(a: &[Value]) -> Option<&str> {
    let mut cur = doc(&a[0])?.trim();
    let keys: Vec<&Value> = match &a[1..] {
        [Value::Array(arr)] => arr.items.iter().collect(),
        rest => rest.iter().collect(),
    };
    for k in keys {
        cur = step(cur, key_arg(k)?)?;
    }
    Some(cur)
}

fn object_field(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    Ok(json(get_field(a)))
}

fn object_field_text(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    Ok(as_text(get_field(a)))
}

fn array_element(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    Ok(json(get_element(a)))
}

fn array_element_text(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    Ok(as_text(get_element(a)))
}

fn extract_path(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    Ok(json(get_path(a)))
}

fn extract_path_text(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    Ok(as_text(get_path(a)))
}

// ----- json_array_elements, json_each over the text --------------------------------------

/// The elements of a json array as written (None if the document is not
/// an array).
pub(crate) fn raw_elements(d: &str) -> Option<Vec<&str>> {
    let mut sc = Scan::new(d);
    if !sc.eat(b'[') {
        return None;
    }
    let mut out = Vec::new();
    while sc.peek().is_some() && !sc.eat(b']') {
        out.push(sc.value().trim_end());
        sc.eat(b',');
    }
    Some(out)
}

/// The fields of a json object in their written order, duplicates kept:
/// the key unescaped and the value as written (None if the document is
/// not an object).
pub(crate) fn raw_fields(d: &str) -> Option<Vec<(String, &str)>> {
    let mut sc = Scan::new(d);
    if !sc.eat(b'{') {
        return None;
    }
    let mut out = Vec::new();
    while sc.peek().is_some() && !sc.eat(b'}') {
        let key = unescape(sc.string()).unwrap_or_default();
        sc.ws();
        sc.eat(b':');
        out.push((key, sc.value().trim_end()));
        sc.eat(b',');
    }
    Some(out)
}

/// A json value as written, as json or (`text`) as `->>` gives it.
pub(crate) fn raw_value(v: &str, text: bool) -> Value {
    if text {
        as_text(Some(v))
    } else {
        json(Some(v))
    }
}

// ----- json_typeof, json_array_length, json_strip_nulls -------------------------------

fn type_of(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let Some(d) = doc(&a[0]) else {
        return Ok(Value::Null);
    };
    let kind = match d.trim_start().as_bytes().first() {
        Some(b'{') => "object",
        Some(b'[') => "array",
        Some(b'"') => "string",
        Some(b't' | b'f') => "boolean",
        Some(b'n') => "null",
        _ => "number",
    };
    Ok(Value::Text(Arc::from(kind)))
}

fn array_length(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let Some(d) = doc(&a[0]) else {
        return Ok(Value::Null);
    };
    let mut sc = Scan::new(d);
    let not_array = |what: &str| {
        DbError::new(
            nestor_common::SqlState::InvalidParameterValue,
            format!("cannot get array length of a {what}"),
        )
    };
    match sc.peek() {
        Some(b'[') => {}
        Some(b'{') => return Err(not_array("non-array")),
        _ => return Err(not_array("scalar")),
    }
    sc.eat(b'[');
    let mut n: i32 = 0;
    while sc.peek().is_some() && !sc.eat(b']') {
        sc.value();
        n += 1;
        sc.eat(b',');
    }
    Ok(Value::Int4(n))
}

/// Writes the value at the cursor without its null fields; true if it
/// is the scalar `null`.
fn strip_value(sc: &mut Scan, out: &mut String) -> bool {
    match sc.peek() {
        Some(b'{') => {
            sc.eat(b'{');
            out.push('{');
            let mut first = true;
            while sc.peek().is_some() && !sc.eat(b'}') {
                let key = sc.string();
                sc.ws();
                sc.eat(b':');
                let mut v = String::new();
                if !strip_value(sc, &mut v) {
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    out.push_str(key);
                    out.push(':');
                    out.push_str(&v);
                }
                sc.eat(b',');
            }
            out.push('}');
            false
        }
        Some(b'[') => {
            sc.eat(b'[');
            out.push('[');
            let mut first = true;
            while sc.peek().is_some() && !sc.eat(b']') {
                if !first {
                    out.push(',');
                }
                first = false;
                strip_value(sc, out);
                sc.eat(b',');
            }
            out.push(']');
            false
        }
        _ => {
            let v = sc.value();
            out.push_str(v);
            v == "null"
        }
    }
}

fn strip_nulls(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let Some(d) = doc(&a[0]) else {
        return Ok(Value::Null);
    };
    let mut out = String::with_capacity(d.len());
    strip_value(&mut Scan::new(d), &mut out);
    Ok(Value::Text(Arc::from(out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn navigation_keeps_the_text_as_written() {
        let d = r#" {"a": {"b": [10, {"c" : "d\u00e9"}]}, "k\"ey": 5, "a2": 1e2, "x": 1, "x": 2} "#;
        assert_eq!(field(d, "a2"), Some("1e2"));
        assert_eq!(field(d, "k\"ey"), Some("5"));
        assert_eq!(field(d, "x"), Some("2"));
        assert_eq!(field(d, "zz"), None);
        let b = step(field(d, "a").unwrap(), "b").unwrap();
        assert_eq!(b, r#"[10, {"c" : "d\u00e9"}]"#);
        assert_eq!(element(b, -1), Some(r#"{"c" : "d\u00e9"}"#));
        assert_eq!(element(b, 2), None);
        assert_eq!(step(b, "x"), None);
        assert_eq!(
            as_text(field(element(b, 1).unwrap(), "c")),
            Value::Text(Arc::from("dé"))
        );
        assert_eq!(as_text(Some("null")), Value::Null);
        assert_eq!(element("[]", 0), None);
        assert_eq!(element(r#"["a,]", [1, "]"], 3]"#, 1), Some(r#"[1, "]"]"#));
        assert_eq!(step("\"s\"", "0"), None);
    }
}
