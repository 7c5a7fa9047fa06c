//! jsonb values changed: jsonb_set / jsonb_insert / jsonb_set_lax, the
//! deletions (`-` key, keys or index, `#-` path: jsonb_delete,
//! jsonb_delete_path), `||` (jsonb_concat), jsonb_strip_nulls, and the
//! new value of a jsonb
//! column assigned through subscripts (`SET j['a'][0] = v`).
//!
//! Everything that follows a path goes through one walker, a port of
//! PostgreSQL's setPath over the parsed tree, steered by its JB_PATH_*
//! flags ([`Op`]):
//!
//! ```text
//!   jsonb_set(t, p, v, false)   REPLACE           an existing key/element only
//!   jsonb_set(t, p, v, true)    CREATE            also a missing last step
//!   jsonb_insert(t, p, v, a)    INSERT_BEFORE/AFTER  beside an element, new key
//!   t #- p                      DELETE            the last step removed
//!   t[s1]...[sn] := v           CREATE | FILL_GAPS | CONSISTENT_POSITION
//! ```
//!
//! FILL_GAPS (subscript assignment) lets an index pass an array's end
//! (the gap filled with nulls), builds missing steps before the last one
//! (objects for keys, arrays for integers) and refuses a step into a
//! scalar (`cannot replace existing key`); CONSISTENT_POSITION refuses a
//! negative index before an array's start rather than prepending. Path
//! steps are text; a step into an array must read as an int4
//! (`strtoint`), else 22P02.

use std::sync::Arc;

use nestor_common::{DbError, SqlState};

use crate::datatype::DataType;
use crate::functions::{Imp, Resolved};
use crate::json::{normalize_object, parse, write_json, Json};
use crate::value::Value;

/// Every function of this module.
pub(crate) const NAMES: &[&str] = &[
    "jsonb_set",
    "jsonb_insert",
    "jsonb_set_lax",
    "jsonb_delete",
    "jsonb_delete_path",
    "jsonb_strip_nulls",
    "jsonb_concat",
];

/// The function a jsonb operator of this module stands for: `-` by the
/// right operand's type (a key, keys or an index), `#-` a path.
pub fn operator_function(op: &str, right: DataType) -> Option<&'static str> {
    match op {
        // int2 and int4 (an int8 does not coerce to int4 implicitly).
        "-" if matches!(right, DataType::Int2 | DataType::Int4)
            || right.is_string()
            || right == DataType::Unknown
            || right.element().is_some_and(|e| e.is_string()) =>
        {
            Some("jsonb_delete")
        }
        "#-" if right == DataType::Unknown || right.element().is_some_and(|e| e.is_string()) => {
            Some("jsonb_delete_path")
        }
        _ => None,
    }
}

fn text_array() -> DataType {
    DataType::Text.array_of().expect("text[]")
}

/// `name(args)` if it is one of this module's functions.
pub(crate) fn resolve(name: &str, args: &[DataType]) -> Option<Result<Resolved, DbError>> {
    if !NAMES.contains(&name) {
        return None;
    }
    let j = DataType::Jsonb;
    let t = DataType::Text;
    let (imp, params, ret): (Imp, Vec<DataType>, DataType) = match (name, args.len()) {
        ("jsonb_set", 3 | 4) => (
            jsonb_set,
            vec![j, text_array(), j, DataType::Bool][..args.len()].to_vec(),
            j,
        ),
        ("jsonb_insert", 3 | 4) => (
            jsonb_insert,
            vec![j, text_array(), j, DataType::Bool][..args.len()].to_vec(),
            j,
        ),
        ("jsonb_set_lax", 3..=5) => (
            set_lax,
            vec![j, text_array(), j, DataType::Bool, t][..args.len()].to_vec(),
            j,
        ),
        ("jsonb_delete", 2) if matches!(args[1], DataType::Int2 | DataType::Int4) => {
            (delete_index, vec![j, DataType::Int4], j)
        }
        ("jsonb_delete", 2) if args[1].is_array() => (delete_keys, vec![j, text_array()], j),
        // jsonb_delete(jsonb, VARIADIC text[]) spelled out: its keys.
        ("jsonb_delete", n) if n >= 2 => {
            let mut p = vec![t; n];
            p[0] = j;
            (delete_keys, p, j)
        }
        ("jsonb_delete_path", 2) => (delete_path, vec![j, text_array()], j),
        ("jsonb_strip_nulls", 1) => (strip_nulls, vec![j], j),
        ("jsonb_concat", 2) => (concat, vec![j, j], j),
        _ => return Some(Err(crate::functions::no_function(name, args))),
    };
    Some(Ok(Resolved::listed(NAMES, name, imp, params, ret, false)))
}

// ----- values ---------------------------------------------------------------------

fn doc(v: &Value) -> Result<Option<Json>, DbError> {
    match v {
        Value::Null => Ok(None),
        Value::Jsonb(s) | Value::Text(s) => parse(s).map(Some),
        other => Err(DbError::internal(format!("jsonb operand {other:?}"))),
    }
}

fn jsonb(v: &Json) -> Value {
    let mut out = String::new();
    write_json(&mut out, v);
    Value::Jsonb(Arc::from(out))
}

/// A text[] path or key list: its elements (NULL ones as None); 2202E
/// for more than one dimension, as PostgreSQL's deconstruct callers say.
fn text_items(v: &Value) -> Result<Option<Vec<Option<&str>>>, DbError> {
    let Value::Array(a) = v else {
        return Ok(None);
    };
    if a.ndims() > 1 {
        return Err(DbError::new(
            SqlState::ArraySubscriptError,
            "wrong number of array subscripts",
        ));
    }
    Ok(Some(
        a.items
            .iter()
            .map(|i| match i {
                Value::Text(s) => Some(&**s),
                _ => None,
            })
            .collect(),
    ))
}

fn bad_param(msg: &str) -> DbError {
    DbError::new(SqlState::InvalidParameterValue, msg)
}

fn is_empty(v: &Json) -> bool {
    match v {
        Json::Obj(f) => f.is_empty(),
        Json::Arr(i) => i.is_empty(),
        _ => false,
    }
}

fn is_scalar(v: &Json) -> bool {
    !matches!(v, Json::Obj(_) | Json::Arr(_))
}

// ----- the path walker (setPath) ------------------------------------------------------

/// PostgreSQL's JB_PATH_* flags.
#[derive(Clone, Copy)]
struct Op(u8);

impl Op {
    const REPLACE: Op = Op(1);
    const CREATE: Op = Op(2);
    const DELETE: Op = Op(4);
    const INSERT_BEFORE: Op = Op(8);
    const INSERT_AFTER: Op = Op(16);
    const FILL_GAPS: Op = Op(32);
    const CONSISTENT_POSITION: Op = Op(64);
    const CREATE_OR_INSERT: Op = Op(2 | 8 | 16);
    /// Subscript assignment's flags.
    const ASSIGN: Op = Op(2 | 32 | 64);

    fn has(self, o: Op) -> bool {
        self.0 & o.0 != 0
    }
}

/// A path: its steps (NULL ones as None) and the value set at its end.
struct Path<'a> {
    steps: &'a [Option<&'a str>],
    new: Option<&'a Json>,
    op: Op,
}

impl Path<'_> {
    fn last(&self) -> usize {
        self.steps.len() - 1
    }

    fn new_value(&self) -> Json {
        self.new.cloned().unwrap_or(Json::Null)
    }
}

/// C's strtoint over a path step: leading white space, an optional sign,
/// digits to the end, within int4.
fn strtoint(s: &str) -> Option<i32> {
    s.trim_start_matches([' ', '\t', '\n', '\r', '\u{b}', '\u{c}'])
        .parse::<i32>()
        .ok()
}

fn scalar_in_path() -> DbError {
    bad_param("cannot replace existing key")
        .with_detail("The path assumes key is a composite object, but it is a scalar value.")
}

/// setPath: the step at `level` applied to `v`.
fn set_path(v: &mut Json, p: &Path, level: usize) -> Result<(), DbError> {
    if p.steps[level].is_none() {
        return Err(DbError::new(
            SqlState::NullValueNotAllowed,
            format!("path element at position {} is null", level + 1),
        ));
    }
    match v {
        Json::Obj(fields) => set_path_object(fields, p, level),
        Json::Arr(items) => set_path_array(items, p, level),
        _ if p.op.has(Op::FILL_GAPS) => Err(scalar_in_path()),
        _ => Ok(()),
    }
}

fn set_path_object(
    fields: &mut Vec<(String, Json)>,
    p: &Path,
    level: usize,
) -> Result<(), DbError> {
    let key = p.steps[level].unwrap_or_default();
    let last = level == p.last();
    if let Some(i) = fields.iter().position(|(k, _)| k == key) {
        if !last {
            return set_path(&mut fields[i].1, p, level + 1);
        }
        if p.op.has(Op(Op::INSERT_BEFORE.0 | Op::INSERT_AFTER.0)) {
            return Err(bad_param("cannot replace existing key")
                .with_hint("Try using the function jsonb_set to replace key value."));
        }
        if p.op.has(Op::DELETE) {
            fields.remove(i);
        } else {
            fields[i].1 = p.new_value();
        }
        return Ok(());
    }
    let value = if last && p.op.has(Op::CREATE_OR_INSERT) {
        p.new_value()
    } else if !last && p.op.has(Op::FILL_GAPS) {
        chain(p, level)?
    } else {
        return Ok(());
    };
    fields.push((key.to_string(), value));
    *fields = normalize_object(std::mem::take(fields));
    Ok(())
}

/// The most elements an array may reach by assignment past its end:
/// PostgreSQL's JSONB_MAX_ELEMS (MaxAllocSize over its 32-byte
/// JsonbValue), or fewer if that many of Nestor's tree nodes would pass
/// the 1 GB a value may take, so `j[100000000] := 1` is refused rather
/// than allocating gigabytes.
const FILLED_ITEMS_MAX: usize = {
    let by_bytes = nestor_common::limits::VALUE_BYTES_MAX / std::mem::size_of::<Json>();
    if by_bytes < 33_554_431 {
        by_bytes
    } else {
        33_554_431
    }
};

/// `n` nulls appended to `items` (none for n <= 0), within
/// FILLED_ITEMS_MAX.
fn fill_nulls(items: &mut Vec<Json>, n: i64) -> Result<(), DbError> {
    let n = usize::try_from(n).unwrap_or(0);
    if items.len().saturating_add(n) >= FILLED_ITEMS_MAX {
        return Err(DbError::new(
            SqlState::ProgramLimitExceeded,
            format!(
                "number of jsonb array elements exceeds the maximum allowed ({FILLED_ITEMS_MAX})"
            ),
        ));
    }
    items.extend(std::iter::repeat_n(Json::Null, n));
    Ok(())
}

fn set_path_array(items: &mut Vec<Json>, p: &Path, level: usize) -> Result<(), DbError> {
    let step = p.steps[level].unwrap_or_default();
    let n = items.len() as i64;
    let last = level == p.last();
    let mut idx = i64::from(strtoint(step).ok_or_else(|| {
        DbError::new(
            SqlState::InvalidTextRepresentation,
            format!(
                "path element at position {} is not an integer: \"{step}\"",
                level + 1
            ),
        )
    })?);
    // Before the start: prepend (or refuse, keeping positions).
    let mut before_all = false;
    if idx < 0 {
        if -idx > n {
            if p.op.has(Op::CONSISTENT_POSITION) {
                return Err(bad_param(&format!(
                    "path element at position {} is out of range: {idx}",
                    level + 1
                )));
            }
            before_all = true;
        } else {
            idx += n;
        }
    }
    if !p.op.has(Op::FILL_GAPS) && idx > n {
        idx = n;
    }
    let creates = p.op.has(Op::CREATE_OR_INSERT);
    if (before_all || n == 0) && last && creates {
        let mut front: Vec<Json> = Vec::new();
        if p.op.has(Op::FILL_GAPS) && n == 0 && idx > 0 {
            fill_nulls(&mut front, idx)?;
        }
        front.push(p.new_value());
        items.splice(0..0, front);
        return Ok(());
    }
    if !before_all && (0..n).contains(&idx) {
        let i = idx as usize;
        if !last {
            return set_path(&mut items[i], p, level + 1);
        }
        let op = p.op;
        if op.has(Op::DELETE) {
            items.remove(i);
        } else if op.has(Op(Op::CREATE.0 | Op::REPLACE.0)) {
            items[i] = p.new_value();
        } else if op.has(Op::INSERT_BEFORE) {
            items.insert(i, p.new_value());
        } else if op.has(Op::INSERT_AFTER) {
            items.insert(i + 1, p.new_value());
        }
        return Ok(());
    }
    if creates && last {
        if p.op.has(Op::FILL_GAPS) && idx > n {
            fill_nulls(items, idx - n)?;
        }
        items.push(p.new_value());
    } else if p.op.has(Op::FILL_GAPS) && !last {
        if idx > 0 {
            fill_nulls(items, idx - n)?;
        }
        items.push(chain(p, level)?);
    }
    Ok(())
}

/// PostgreSQL's push_path: the missing steps after `level`, built as
/// objects (a key) or arrays (an integer, after that many nulls) around
/// the new value.
fn chain(p: &Path, level: usize) -> Result<Json, DbError> {
    let mut v = p.new_value();
    for step in p.steps[level + 1..].iter().rev() {
        let step = step.unwrap_or_default();
        v = match strtoint(step) {
            Some(i) => {
                let mut items = Vec::new();
                fill_nulls(&mut items, i64::from(i))?;
                items.push(v);
                Json::Arr(items)
            }
            None => Json::Obj(vec![(step.to_string(), v)]),
        };
    }
    Ok(v)
}

// ----- jsonb_set, jsonb_insert, jsonb_set_lax -------------------------------------------

/// jsonb_set(target, path, new_value [, create_if_missing]) and
/// jsonb_insert(target, path, new_value [, insert_after]): strict.
fn set_or_insert(a: &[Value], insert: bool) -> Result<Value, DbError> {
    if a.iter().any(|v| matches!(v, Value::Null)) {
        return Ok(Value::Null);
    }
    let flag = a.get(3).map_or(!insert, |v| matches!(v, Value::Bool(true)));
    let (Some(mut target), Some(steps), Some(new)) = (doc(&a[0])?, text_items(&a[1])?, doc(&a[2])?)
    else {
        return Ok(Value::Null);
    };
    if is_scalar(&target) {
        return Err(bad_param("cannot set path in scalar"));
    }
    if steps.is_empty() || (!insert && !flag && is_empty(&target)) {
        return Ok(a[0].clone());
    }
    let op = match (insert, flag) {
        (true, true) => Op::INSERT_AFTER,
        (true, false) => Op::INSERT_BEFORE,
        (false, true) => Op::CREATE,
        (false, false) => Op::REPLACE,
    };
    let p = Path {
        steps: &steps,
        new: Some(&new),
        op,
    };
    set_path(&mut target, &p, 0)?;
    Ok(jsonb(&target))
}

fn jsonb_set(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    set_or_insert(a, false)
}

fn jsonb_insert(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    set_or_insert(a, true)
}

fn treatment_error() -> DbError {
    bad_param("null_value_treatment must be \"delete_key\", \"return_target\", \"use_json_null\", or \"raise_exception\"")
}

/// jsonb_set_lax(target, path, new_value [, create_if_missing [,
/// null_value_treatment]]): jsonb_set, but an SQL NULL new value is
/// handled as the treatment says (default `use_json_null`).
fn set_lax(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let create = a.get(3).cloned().unwrap_or(Value::Bool(true));
    let treatment = a
        .get(4)
        .cloned()
        .unwrap_or_else(|| Value::Text(Arc::from("use_json_null")));
    if a[0].is_null() || a[1].is_null() || create.is_null() {
        return Ok(Value::Null);
    }
    let Value::Text(treatment) = treatment else {
        return Err(treatment_error());
    };
    let args = |new: Value| [a[0].clone(), a[1].clone(), new, create.clone()];
    if !a[2].is_null() {
        return set_or_insert(&args(a[2].clone()), false);
    }
    match &*treatment {
        "raise_exception" => Err(DbError::new(
            SqlState::NullValueNotAllowed,
            "JSON value must not be null",
        )
        .with_detail("Exception was raised because null_value_treatment is \"raise_exception\".")
        .with_hint("To avoid, either change the null_value_treatment argument or ensure that an SQL NULL is not passed.")),
        "use_json_null" => set_or_insert(&args(Value::Jsonb(Arc::from("null"))), false),
        "delete_key" => delete_path_of(&a[0], &a[1]),
        "return_target" => Ok(a[0].clone()),
        _ => Err(treatment_error()),
    }
}

// ----- deletion -------------------------------------------------------------------------

fn scalar_delete() -> DbError {
    bad_param("cannot delete from scalar")
}

/// `jsonb - text` / `jsonb - text[]` (jsonb_delete): the keys of an
/// object, or the string elements of an array, equal to one of the keys
/// (NULL keys match nothing).
fn delete_keys(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let keys: Vec<Option<&str>> = match &a[1..] {
        [Value::Null] => return Ok(Value::Null),
        [arr @ Value::Array(_)] => text_items(arr)?.unwrap_or_default(),
        many => many
            .iter()
            .map(|v| match v {
                Value::Text(s) => Some(&**s),
                _ => None,
            })
            .collect(),
    };
    let Some(mut d) = doc(&a[0])? else {
        return Ok(Value::Null);
    };
    if is_scalar(&d) {
        return Err(scalar_delete());
    }
    if is_empty(&d) || keys.is_empty() {
        return Ok(a[0].clone());
    }
    let gone = |s: &str| keys.iter().flatten().any(|k| *k == s);
    match &mut d {
        Json::Obj(fields) => fields.retain(|(k, _)| !gone(k)),
        Json::Arr(items) => items.retain(|i| !matches!(i, Json::Str(s) if gone(s))),
        _ => {}
    }
    Ok(jsonb(&d))
}

/// `jsonb - integer`: an array's element (negative from the end; out of
/// range removes nothing).
fn delete_index(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let (Some(mut d), Some(i)) = (doc(&a[0])?, a[1].as_i64()) else {
        return Ok(Value::Null);
    };
    let Json::Arr(items) = &mut d else {
        return Err(if is_scalar(&d) {
            scalar_delete()
        } else {
            bad_param("cannot delete from object using integer index")
        });
    };
    let n = items.len() as i64;
    let i = if i < 0 { n + i } else { i };
    if !(0..n).contains(&i) {
        return Ok(a[0].clone());
    }
    items.remove(i as usize);
    Ok(jsonb(&d))
}

fn delete_path_of(target: &Value, path: &Value) -> Result<Value, DbError> {
    let (Some(mut d), Some(steps)) = (doc(target)?, text_items(path)?) else {
        return Ok(Value::Null);
    };
    if is_scalar(&d) {
        return Err(bad_param("cannot delete path in scalar"));
    }
    if is_empty(&d) || steps.is_empty() {
        return Ok(target.clone());
    }
    let p = Path {
        steps: &steps,
        new: None,
        op: Op::DELETE,
    };
    set_path(&mut d, &p, 0)?;
    Ok(jsonb(&d))
}

/// `jsonb #- text[]` (jsonb_delete_path): the value at the path removed.
fn delete_path(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    delete_path_of(&a[0], &a[1])
}

// ----- jsonb_concat (`||`) ---------------------------------------------------------------

/// `jsonb || jsonb`: two objects merge (the right one's keys win); else
/// both sides are arrays, an object or a scalar counting as a
/// one-element array, and the result is their concatenation.
fn concat(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let (Some(x), Some(y)) = (doc(&a[0])?, doc(&a[1])?) else {
        return Ok(Value::Null);
    };
    let out = match (x, y) {
        (Json::Obj(mut l), Json::Obj(r)) => {
            l.extend(r);
            Json::Obj(normalize_object(l))
        }
        (x, y) => {
            let items = |v: Json| match v {
                Json::Arr(items) => items,
                other => vec![other],
            };
            let mut l = items(x);
            l.extend(items(y));
            Json::Arr(l)
        }
    };
    Ok(jsonb(&out))
}

// ----- jsonb_strip_nulls ------------------------------------------------------------------

/// Object fields whose value is null removed, at every depth (array
/// elements stay).
fn strip(v: &mut Json) {
    match v {
        Json::Obj(fields) => {
            fields.retain(|(_, v)| !matches!(v, Json::Null));
            fields.iter_mut().for_each(|(_, v)| strip(v));
        }
        Json::Arr(items) => items.iter_mut().for_each(strip),
        _ => {}
    }
}

fn strip_nulls(a: &[Value], _: &crate::EvalCtx) -> Result<Value, DbError> {
    let Some(mut d) = doc(&a[0])? else {
        return Ok(Value::Null);
    };
    strip(&mut d);
    Ok(jsonb(&d))
}

// ----- subscript assignment -----------------------------------------------------------------

/// The new value of a jsonb column after `col[s1]...[sn] := value`
/// (PostgreSQL's jsonb_subscript_assign and jsonb_set_element): a NULL
/// column is first `[]` when the first subscript is an integer
/// (`expect_array`), else `{}`; an SQL NULL value is JSON null; a NULL
/// subscript is 22004.
pub fn subscript_assign(
    base: &Value,
    value: &Value,
    subs: &[Value],
    expect_array: bool,
) -> Result<Value, DbError> {
    let mut steps = Vec::with_capacity(subs.len());
    for s in subs {
        match s {
            Value::Text(t) => steps.push(Some(&**t)),
            _ => {
                return Err(DbError::new(
                    SqlState::NullValueNotAllowed,
                    "jsonb subscript in assignment must not be null",
                ))
            }
        }
    }
    let mut target = match doc(base)? {
        Some(d) => d,
        None if expect_array => Json::Arr(Vec::new()),
        None => Json::Obj(Vec::new()),
    };
    let new = doc(value)?.unwrap_or(Json::Null);
    if steps.is_empty() {
        return Ok(jsonb(&new));
    }
    let p = Path {
        steps: &steps,
        new: Some(&new),
        op: Op::ASSIGN,
    };
    set_path(&mut target, &p, 0)?;
    Ok(jsonb(&target))
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

    fn assign(base: Value, v: &str, subs: &[&str], arr: bool) -> Result<Value, DbError> {
        let subs: Vec<Value> = subs.iter().map(|s| t(s)).collect();
        subscript_assign(&base, &j(v), &subs, arr)
    }

    #[test]
    fn assignment_fills_gaps_and_builds_paths() {
        assert_eq!(
            assign(j("[1, 2]"), "5", &["4"], true).unwrap(),
            j("[1, 2, null, null, 5]")
        );
        assert_eq!(
            assign(Value::Null, "1", &["a", "b", "2"], false).unwrap(),
            j(r#"{"a": {"b": [null, null, 1]}}"#)
        );
        assert_eq!(
            assign(Value::Null, "1", &["1"], true).unwrap(),
            j("[null, 1]")
        );
        assert_eq!(
            assign(j("[1, 2]"), "7", &["-1"], true).unwrap(),
            j("[1, 7]")
        );
        let e = assign(j("[1]"), "7", &["-3"], true).unwrap_err();
        assert_eq!(e.message, "path element at position 1 is out of range: -3");
        let e = assign(j(r#"{"a": 1}"#), "7", &["a", "b"], false).unwrap_err();
        assert_eq!(e.message, "cannot replace existing key");
    }

    #[test]
    fn deletion_follows_postgresql() {
        let c = crate::EvalCtx::new(Default::default(), 0);
        let arr = j(r#"["a", "b", "c"]"#);
        assert_eq!(
            delete_index(&[arr.clone(), Value::Int4(-1)], &c).unwrap(),
            j(r#"["a", "b"]"#)
        );
        assert_eq!(
            delete_index(&[arr.clone(), Value::Int4(-4)], &c).unwrap(),
            arr
        );
        assert_eq!(delete_keys(&[arr, t("b")], &c).unwrap(), j(r#"["a", "c"]"#));
        let e = delete_index(&[j("{}"), Value::Int4(1)], &c).unwrap_err();
        assert_eq!(e.message, "cannot delete from object using integer index");
        assert_eq!(
            delete_path(
                &[
                    j(r#"{"d": {"1": [2, 3]}}"#),
                    Value::Array(Arc::new(crate::array::Array::from_items(
                        DataType::Text,
                        vec![t("d"), t("1"), t("0")]
                    )))
                ],
                &c
            )
            .unwrap(),
            j(r#"{"d": {"1": [3]}}"#)
        );
    }
}
