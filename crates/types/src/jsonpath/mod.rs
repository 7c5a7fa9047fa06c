//! # The SQL/JSON path language (`jsonpath`)
//!
//! PostgreSQL 15's jsonpath type and the functions that run a path over a
//! jsonb document ("9.16.2. The SQL/JSON Path Language").
//!
//! ## What is built
//!
//! * The `jsonpath` type ([`crate::DataType::JsonPath`], OID 4072, array
//!   4073). Input is parsed into a tree ([`parse::parse`]) and the value
//!   kept is PostgreSQL's normalised text ([`normalize`]): keys quoted,
//!   operators spaced, nested operators parenthesised by priority, numbers
//!   through `numeric`. As jsonb keeps its canonical text, a jsonpath value
//!   is a `Value::Text` of its normalised form, re-parsed where it is run.
//! * Paths: `$`, `@` (in filters), `$name` variables (from `vars`),
//!   literals, `.key`, `."key"`, `.*`, `[n]`, `[n to m]`, `[last]`,
//!   `[last - 1]`, `[*]`, `.**` and `.**{n to m}`; filters `? (...)`
//!   with `== != <> < <= > >=`, `&& || !`, `exists (...)`, `like_regex`
//!   (flags `i s m x q`), `starts with`, `is unknown`; arithmetic
//!   `+ - * / %` and unary `+ -`; item methods `.type()`, `.size()`,
//!   `.double()`, `.abs()`, `.floor()`, `.ceiling()`, `.keyvalue()` (its
//!   `id`s are PostgreSQL's binary offsets, [`layout`]).
//! * Modes (`eval`): lax (default) unwraps arrays for accessors, filters
//!   and methods, wraps a non-array for `[...]`, and skips structural
//!   errors; strict raises them (`JSON object does not contain key "b"`,
//!   2203A, ...). Predicates use SQL/JSON's three-valued logic: comparing
//!   values of different types is unknown, never an error, and an error
//!   inside a filter makes it unknown.
//! * SQL functions (`jsonb_path_exists`, `jsonb_path_match`,
//!   `jsonb_path_query_array`, `jsonb_path_query_first`, each with the
//!   optional `vars` and `silent` arguments; `jsonb_path_exists_opr` and
//!   `jsonb_path_match_opr` behind `@?` and `@@`, silent as PostgreSQL's),
//!   and [`query_set_fn`]: the items of `jsonb_path_query` as a `jsonb[]`
//!   that the planner unnests, so the set-returning function works in a
//!   select list and in FROM as `unnest` does.
//!
//! ## A worked example
//!
//! ```text
//!   jsonb_path_query('{"a": [1, 5, "x"]}', '$.a[*] ? (@ > 2)')
//!   parse:  Path(Root, [Key("a"), AnyArray, Filter(Binary(Gt, Path(Current), 2))])
//!   text:   $."a"[*]?(@ > 2)
//!   eval:   $           -> {"a": [1, 5, "x"]}
//!           ."a"        -> [1, 5, "x"]
//!           [*]         -> 1, 5, "x"
//!           ?(@ > 2)    -> 1 > 2 false, 5 > 2 true, "x" > 2 unknown
//!   result: 5
//! ```
//!
//! ## Bounds
//!
//! Parsing counts nesting (parentheses, filters, operators, subscripts)
//! and refuses more than `JSONPATH_DEPTH_MAX` levels with 54001; the
//! evaluator's recursion follows that tree, accessor chains are loops, and
//! `.**` walks the document with an explicit stack. The documents
//! themselves are bounded by the jsonb parser (1000 levels).
//!
//! ## Left out
//!
//! `.datetime()` (with or without a template) is 0A000. The string
//! comparisons are by bytes (PostgreSQL uses the database collation; the
//! reference server's is C.UTF-8, where they agree). `jsonb_path_exists`
//! evaluates the whole path where PostgreSQL stops at the first item (a
//! later error is then raised here, not there). The `_tz` variants and
//! the SQL/JSON query functions of PostgreSQL 16 and later are not here.

pub(crate) mod eval;
pub(crate) mod layout;
pub(crate) mod parse;

use std::sync::Arc;

use nestor_common::{DbError, SqlState};

use crate::array::Array;
use crate::datatype::DataType;
use crate::functions::{Imp, Resolved, ScalarFn, Volatility};
use crate::json::{write_json, Json};
use crate::value::Value;

/// Every SQL function of this module.
pub(crate) const NAMES: &[&str] = &[
    "jsonb_path_exists",
    "jsonb_path_match",
    "jsonb_path_query_array",
    "jsonb_path_query_first",
    "jsonb_path_exists_opr",
    "jsonb_path_match_opr",
];

/// The functions whose arguments the binder reads itself (named notation,
/// defaults): [`NAMES`] but the operators' functions.
pub const NAMED_FUNCTIONS: &[&str] = &[
    "jsonb_path_exists",
    "jsonb_path_match",
    "jsonb_path_query_array",
    "jsonb_path_query_first",
];

/// The parameter names of the jsonb_path_* functions, for named notation
/// (`silent => true`).
pub const PARAM_NAMES: [&str; 4] = ["target", "path", "vars", "silent"];

/// jsonpath input: the normalised text.
pub fn normalize(input: &str) -> Result<String, DbError> {
    Ok(parse::parse(input)?.to_text())
}

/// `name(args)` if it is one of this module's functions.
pub(crate) fn resolve(name: &str, args: &[DataType]) -> Option<Result<Resolved, DbError>> {
    if !NAMES.contains(&name) {
        return None;
    }
    let j = DataType::Jsonb;
    let opr = name.ends_with("_opr");
    let ok_n = if opr {
        args.len() == 2
    } else {
        (2..=4).contains(&args.len())
    };
    if !ok_n {
        return Some(Err(crate::functions::no_function(name, args)));
    }
    let params: Vec<DataType> = [j, DataType::JsonPath, j, DataType::Bool][..args.len()].to_vec();
    let (imp, ret): (Imp, DataType) = match name {
        "jsonb_path_exists" => (exists, DataType::Bool),
        "jsonb_path_match" => (matches, DataType::Bool),
        "jsonb_path_query_array" => (query_array, j),
        "jsonb_path_query_first" => (query_first, j),
        "jsonb_path_exists_opr" => (exists_opr, DataType::Bool),
        _ => (match_opr, DataType::Bool),
    };
    Some(Ok(Resolved::listed(NAMES, name, imp, params, ret, false)))
}

/// The function behind `jsonb @? jsonpath` / `jsonb @@ jsonpath`.
pub fn operator_function(op: &str) -> Option<&'static str> {
    match op {
        "@?" => Some("jsonb_path_exists_opr"),
        "@@" => Some("jsonb_path_match_opr"),
        _ => None,
    }
}

/// jsonb_path_query(target, path [, vars, silent]): its items as a
/// `jsonb[]`, for the planner to unnest (not callable by name).
pub fn query_set_fn() -> ScalarFn {
    ScalarFn {
        name: "jsonb_path_query",
        volatility: Volatility::Immutable,
        imp: query_set,
    }
}

/// The arguments, parsed: None when one is NULL (the functions are strict).
struct Call {
    doc: Json,
    path: parse::JsonPath,
    vars: Option<Json>,
    silent: bool,
}

fn parse_json(v: &Value) -> Result<Json, DbError> {
    match v {
        Value::Jsonb(s) | Value::Text(s) => crate::json::parse(s),
        other => Err(DbError::internal(format!("jsonb operand {other:?}"))),
    }
}

fn call_args(a: &[Value], silent_default: bool) -> Result<Option<Call>, DbError> {
    if a.iter().any(Value::is_null) {
        return Ok(None);
    }
    let doc = parse_json(&a[0])?;
    let path = match &a[1] {
        Value::Text(s) => parse::parse(s)?,
        other => return Err(DbError::internal(format!("jsonpath operand {other:?}"))),
    };
    let vars = match a.get(2) {
        Some(v) => {
            let vars = parse_json(v)?;
            if !matches!(vars, Json::Obj(_)) {
                return Err(DbError::new(
                    SqlState::InvalidParameterValue,
                    "\"vars\" argument is not an object",
                )
                .with_detail(
                    "Jsonpath parameters should be encoded as key-value pairs of \"vars\" object.",
                ));
            }
            Some(vars)
        }
        None => None,
    };
    let silent = match a.get(3) {
        Some(Value::Bool(b)) => *b,
        _ => silent_default,
    };
    Ok(Some(Call {
        doc,
        path,
        vars,
        silent,
    }))
}

/// Runs the call: its items, or the error unless silent (then the items
/// found before it, and whether there was one).
fn run(c: &Call) -> Result<(Vec<Json>, bool), DbError> {
    let (items, e) = eval::execute(&c.path, &c.doc, c.vars.as_ref());
    match e {
        Some(e) if !c.silent || eval::is_hard(&e) => Err(e),
        Some(_) => Ok((items, true)),
        None => Ok((items, false)),
    }
}

fn jsonb(v: &Json) -> Value {
    let mut out = String::new();
    write_json(&mut out, v);
    Value::Jsonb(Arc::from(out))
}

fn exists_with(a: &[Value], silent: bool) -> Result<Value, DbError> {
    let Some(c) = call_args(a, silent)? else {
        return Ok(Value::Null);
    };
    match eval::exists(&c.path, &c.doc, c.vars.as_ref()) {
        Ok(found) => Ok(Value::Bool(found)),
        Err(e) if c.silent && !eval::is_hard(&e) => Ok(Value::Null),
        Err(e) => Err(e),
    }
}

fn match_with(a: &[Value], silent: bool) -> Result<Value, DbError> {
    let Some(c) = call_args(a, silent)? else {
        return Ok(Value::Null);
    };
    let (items, _) = run(&c)?;
    match items.as_slice() {
        [Json::Bool(b)] => return Ok(Value::Bool(*b)),
        [Json::Null] => return Ok(Value::Null),
        _ => {}
    }
    if c.silent {
        return Ok(Value::Null);
    }
    Err(DbError::new(
        SqlState::SingletonSqlJsonItemRequired,
        "single boolean result is expected",
    ))
}

fn exists(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    exists_with(a, false)
}

fn matches(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    match_with(a, false)
}

fn exists_opr(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    exists_with(a, true)
}

fn match_opr(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    match_with(a, true)
}

fn query_array(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let Some(c) = call_args(a, false)? else {
        return Ok(Value::Null);
    };
    let (items, _) = run(&c)?;
    Ok(jsonb(&Json::Arr(items)))
}

fn query_first(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let Some(c) = call_args(a, false)? else {
        return Ok(Value::Null);
    };
    let (items, _) = run(&c)?;
    Ok(items.first().map_or(Value::Null, jsonb))
}

fn query_set(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let Some(c) = call_args(a, false)? else {
        return Ok(Value::Null);
    };
    let (items, _) = run(&c)?;
    let values = items.iter().map(jsonb).collect();
    Ok(Value::Array(Arc::new(Array::from_items(
        DataType::Jsonb,
        values,
    ))))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// jsonb_path_query's items as text, or the error message.
    fn q(doc: &str, path: &str) -> String {
        q_vars(doc, path, None, false)
    }

    fn q_vars(doc: &str, path: &str, vars: Option<&str>, silent: bool) -> String {
        let mut args = vec![
            Value::Jsonb(Arc::from(doc)),
            Value::Text(Arc::from(normalize(path).unwrap().as_str())),
        ];
        args.push(Value::Jsonb(Arc::from(vars.unwrap_or("{}"))));
        args.push(Value::Bool(silent));
        let ctx = crate::EvalCtx::new(crate::datetime::TimeZone::UTC, 0);
        match query_set(&args, &ctx) {
            Ok(Value::Array(a)) => a
                .items
                .iter()
                .map(|v| v.to_text(&ctx))
                .collect::<Vec<_>>()
                .join(" | "),
            Ok(other) => format!("{other:?}"),
            Err(e) => format!("ERROR {}", e.message),
        }
    }

    #[test]
    fn accessors_lax_and_strict() {
        assert_eq!(q(r#"{"a": [1, 5, "x"]}"#, "$.a[*] ? (@ > 2)"), "5");
        assert_eq!(q(r#"{"a": 1}"#, "$.b"), "");
        assert_eq!(
            q(r#"{"a": 1}"#, "strict $.b"),
            "ERROR JSON object does not contain key \"b\""
        );
        assert_eq!(q(r#"[{"a": 1}, {"a": 2}]"#, "$.a"), "1 | 2");
        assert_eq!(
            q(r#"[{"a": 1}]"#, "strict $.a"),
            "ERROR jsonpath member accessor can only be applied to an object"
        );
        assert_eq!(q("[1, 2, 3, 4]", "$[1 to 2, last]"), "2 | 3 | 4");
        assert_eq!(q("[1, 2, 3, 4]", "$[last - 1]"), "3");
        assert_eq!(q("[1, 2]", "$[5]"), "");
        assert_eq!(
            q("[1, 2]", "strict $[5]"),
            "ERROR jsonpath array subscript is out of bounds"
        );
        assert_eq!(q("7", "$[0]"), "7");
        assert_eq!(
            q(r#"{"a": {"b": [1]}}"#, "$.**"),
            r#"{"a": {"b": [1]}} | {"b": [1]} | [1] | 1"#
        );
        assert_eq!(q(r#"{"a": {"b": [1]}}"#, "$.**{2}"), "[1]");
        assert_eq!(q(r#"{"a": 1, "b": [2]}"#, "$.*"), "1 | [2]");
    }

    #[test]
    fn filters_and_arithmetic() {
        assert_eq!(q("[1, \"a\", null, true]", "$[*] ? (@ == null)"), "null");
        assert_eq!(q("[1, \"a\", null]", "$[*] ? (@ != null)"), "1 | \"a\"");
        assert_eq!(q("[1, 2]", "$[*] ? ((@ > \"a\") is unknown)"), "1 | 2");
        assert_eq!(
            q("[\"abc\", \"xbc\"]", "$[*] ? (@ starts with \"a\")"),
            "\"abc\""
        );
        assert_eq!(
            q(
                "[\"abc\", \"ABD\"]",
                "$[*] ? (@ like_regex \"^ab\" flag \"i\")"
            ),
            "\"abc\" | \"ABD\""
        );
        assert_eq!(
            q(r#"[{"a": 1}, {"b": 2}]"#, "$[*] ? (exists (@.a))"),
            r#"{"a": 1}"#
        );
        assert_eq!(q(r#"{"a": 3}"#, "$.a + 2 * -1"), "1");
        assert_eq!(q(r#"{"a": 3}"#, "$.a / 0"), "ERROR division by zero");
        assert_eq!(q_vars(r#"{"a": 3}"#, "$.a / 0", None, true), "");
        assert_eq!(
            q("[1, 2]", "$ + 1"),
            "ERROR left operand of jsonpath operator + is not a single numeric value"
        );
        assert_eq!(q("[1, 2]", "$[*] ? (@ / 0 > 1)"), "");
        assert_eq!(q("1", "$ > 0"), "true");
        assert_eq!(q("1", "$ > \"a\""), "null");
        assert_eq!(
            q_vars("[1, 5]", "$[*] ? (@ > $m)", Some(r#"{"m": 2}"#), false),
            "5"
        );
        assert_eq!(
            q("[1]", "$x"),
            "ERROR could not find jsonpath variable \"x\""
        );
    }

    #[test]
    fn methods() {
        assert_eq!(
            q(r#"[1, "a", null, {}, [], true]"#, "$[*].type()"),
            r#""number" | "string" | "null" | "object" | "array" | "boolean""#
        );
        assert_eq!(q("[1, 2, 3]", "$.size()"), "3");
        assert_eq!(q("1", "$.size()"), "1");
        assert_eq!(
            q("1", "strict $.size()"),
            "ERROR jsonpath item method .size() can only be applied to an array"
        );
        assert_eq!(q("[-1.5, 2.5]", "$.abs()"), "1.5 | 2.5");
        assert_eq!(q("[-1.5, 2.5]", "$.floor()"), "-2 | 2");
        assert_eq!(q("[-1.5, 2.5]", "$.ceiling()"), "-1 | 3");
        assert_eq!(q("[\"1.50\", 2]", "$.double()"), "1.5 | 2");
        assert_eq!(
            q(r#"{"a": 1, "b": {"c": 2}}"#, "$.keyvalue()"),
            r#"{"id": 0, "key": "a", "value": 1} | {"id": 0, "key": "b", "value": {"c": 2}}"#
        );
        assert_eq!(
            q(r#"{"a": {"b": 1}}"#, "$.a.keyvalue()"),
            r#"{"id": 16, "key": "b", "value": 1}"#
        );
        assert_eq!(
            q("\"a\"", "$.abs()"),
            "ERROR jsonpath item method .abs() can only be applied to a numeric value"
        );
    }

    #[test]
    fn deep_documents_and_paths_are_bounded() {
        let doc = "[".repeat(900) + &"]".repeat(900);
        assert_eq!(q(&doc, "$.**{899}"), "[]");
        let path = "$".to_string() + &"[*]".repeat(10_000);
        assert_eq!(q("[[1]]", &path), "1");
        // A path whose work grows with a power of the document is cut off.
        let doc = crate::json::parse(&format!("{}1{}", "[".repeat(60), "]".repeat(60))).unwrap();
        let path = parse::parse(&("$".to_string() + &".**".repeat(8))).unwrap();
        let (_, e) = eval::execute_limited(&path, &doc, None, 100_000);
        assert!(e.unwrap().message.contains("JSONPATH_ITEMS_MAX"));
        let path = "$".to_string() + &" ? (@ == @)".repeat(200);
        assert_eq!(q("1", &path), "1");
        // As deep as the parser allows, evaluated on a test thread's stack.
        let n = nestor_common::limits::JSONPATH_DEPTH_MAX / 2 - 2;
        let path = format!("$ ? ({}@ == 1{})", "!(!(".repeat(n / 2), "))".repeat(n / 2));
        assert_eq!(q("1", &path), "1");
        let path = format!("{}1{}", "(1 + ".repeat(n), ")".repeat(n));
        assert_eq!(q("1", &path), (n + 1).to_string());
    }
}
