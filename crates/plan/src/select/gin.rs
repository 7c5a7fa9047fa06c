//! GIN indexes in the SQL layer: a row's GIN keys for storage, which
//! conjuncts a GIN index answers, and the keys a query looks up.
//!
//! A GIN index is a computed, multi-key index (`nestor_storage::index`):
//! [`GinKeyFn`] maps a row to the set of its keys, each a bytea whose
//! first byte is the index key's position (so a multi-column GIN index
//! keeps its columns apart) and the rest the operator class's key
//! (`nestor_catalog::gin::GinClass`):
//!
//! - jsonb_ops / jsonb_path_ops: `nestor_types::gin_jsonb`.
//! - array_ops: one key per distinct non-NULL element (its sortable key
//!   form), a NULL-element marker when the array has a NULL, and an
//!   empty marker for an array with no elements, so that `<@` and
//!   `= '{}'` find empty arrays as PostgreSQL's GIN_SEARCH_MODE_INCLUDE_EMPTY
//!   does. A NULL array has no keys (no strict operator is true of it).
//!
//! The planner ([`index_match`]) takes the conjuncts `key OP value` (or
//! commuted) with `value` known before the scan, for the operators the
//! key's class supports. At run time each becomes a [`Search`]: rows
//! having all of some keys (`@>`, `?&`, `=`), any of them (`?|`, `&&`,
//! `<@`, the empty marker included), no row at all (`?| '{}'`, a NULL
//! value), or every row when the value has no keys (`@> '{}'`). The keys
//! are lossy, so the executor always rechecks the conjuncts on each row
//! (EXPLAIN's Recheck Cond), as PostgreSQL's bitmap heap scan does.
//!
//! Jsonpath's `@?` and `@@` are taken too, as PostgreSQL's jsonb classes
//! take them, with the keys a match requires (`gin_jsonb::jsonpath_keys`);
//! a path that requires none (`$.a == 1 || $.b == 2`) reads every row.
//!
//! - tsvector_ops: one key per lexeme; `@@` looks up any of the query's
//!   words (a query that can match without one, or with a prefix word,
//!   reads every row).
//!
//! New classes add a [`GinOp`], their operators to [`gin_op`], and their
//! extraction to [`class_keys`] and [`search`].

use std::sync::Arc;

use nestor_catalog::gin::GinClass;
use nestor_common::DbError;
use nestor_types::gin_jsonb::{self, JsonbClass};
use nestor_types::{EvalCtx, Value};

use crate::functions::Func;
use crate::ir::{Cmp, Expr, GinOp, GinQual};

const ELEM: u8 = b'E';
const LEXEME: u8 = b'L';
const NULL_ELEM: u8 = b'N';
const EMPTY: u8 = b'0';

/// A query's lookup in a GIN index.
#[derive(Debug, PartialEq, Eq)]
pub enum Search {
    /// Rows with an entry for every key.
    All(Vec<Vec<u8>>),
    /// Rows with an entry for some key.
    Any(Vec<Vec<u8>>),
    /// No row can match.
    Nothing,
    /// The value has no keys: every row is a candidate.
    Everything,
}

fn jsonb_class(class: GinClass) -> JsonbClass {
    if class == GinClass::JsonbPathOps {
        JsonbClass::PathOps
    } else {
        JsonbClass::Ops
    }
}

/// The keys of one index key's value (without the position byte).
pub fn class_keys(class: GinClass, v: &Value) -> Result<Vec<Vec<u8>>, DbError> {
    match class {
        GinClass::JsonbOps | GinClass::JsonbPathOps => gin_jsonb::row_keys(jsonb_class(class), v),
        GinClass::ArrayOps => Ok(array_keys(v)),
        GinClass::TsvectorOps => Ok(lexeme_keys(v)),
    }
}

/// tsvector_ops: one key per lexeme (positions and weights are the
/// recheck's).
fn lexeme_keys(v: &Value) -> Vec<Vec<u8>> {
    let Value::TsVector(t) = v else {
        return Vec::new();
    };
    t.lexemes().map(lexeme_key).collect()
}

fn lexeme_key(word: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(word.len() + 1);
    k.push(LEXEME);
    k.extend_from_slice(word.as_bytes());
    k
}

/// A tsquery's lookup: a row must hold one of its words (any of their
/// keys), unless the query can match a row holding none (`!a`) or has a
/// prefix word (`a:*`, which no exact key finds): then every row.
fn tsquery_search(value: &Value) -> Search {
    let Value::TsQuery(q) = value else {
        return Search::Everything;
    };
    match nestor_types::tsearch::ops::required_lexemes(q) {
        None => Search::Nothing,
        Some((_, true)) => Search::Everything,
        Some((words, false)) if words.iter().any(|(_, prefix)| *prefix) => Search::Everything,
        Some((words, false)) => {
            let mut keys: Vec<Vec<u8>> = words.iter().map(|(w, _)| lexeme_key(w)).collect();
            keys.sort_unstable();
            keys.dedup();
            Search::Any(keys)
        }
    }
}

fn elem_key(item: &Value) -> Vec<u8> {
    let mut k = vec![ELEM];
    k.extend(nestor_catalog::key_form(item));
    k
}

fn array_keys(v: &Value) -> Vec<Vec<u8>> {
    let Value::Array(a) = v else {
        return Vec::new();
    };
    if a.items.is_empty() {
        return vec![vec![EMPTY]];
    }
    let mut out: Vec<Vec<u8>> = Vec::with_capacity(a.items.len());
    for item in &a.items {
        if item.is_null() {
            out.push(vec![NULL_ELEM]);
        } else {
            out.push(elem_key(item));
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The non-NULL elements' keys of an array value.
fn elem_keys(v: &Value) -> Vec<Vec<u8>> {
    let Value::Array(a) = v else {
        return Vec::new();
    };
    let mut out: Vec<Vec<u8>> = a
        .items
        .iter()
        .filter(|i| !i.is_null())
        .map(elem_key)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The text elements of a text[] value (NULLs skipped).
fn text_items(v: &Value) -> Vec<String> {
    let Value::Array(a) = v else {
        return Vec::new();
    };
    a.items
        .iter()
        .filter_map(|i| match i {
            Value::Text(s) => Some(s.to_string()),
            _ => None,
        })
        .collect()
}

/// What a conjunct asks of index key `pos`, given its value.
pub fn search(q: &GinQual, value: &Value) -> Result<Search, DbError> {
    if value.is_null() {
        return Ok(Search::Nothing);
    }
    let s = match q.op {
        GinOp::Contains if q.class != GinClass::ArrayOps => {
            match gin_jsonb::contains_keys(jsonb_class(q.class), value)? {
                None => Search::Nothing,
                Some(k) if k.is_empty() => Search::Everything,
                Some(k) => Search::All(k),
            }
        }
        GinOp::Exists => match value {
            Value::Text(s) => Search::All(vec![gin_jsonb::exists_key(s)]),
            _ => Search::Everything,
        },
        GinOp::ExistsAny => {
            let keys: Vec<Vec<u8>> = text_items(value)
                .iter()
                .map(|s| gin_jsonb::exists_key(s))
                .collect();
            if keys.is_empty() {
                Search::Nothing
            } else {
                Search::Any(keys)
            }
        }
        GinOp::ExistsAll => {
            let keys: Vec<Vec<u8>> = text_items(value)
                .iter()
                .map(|s| gin_jsonb::exists_key(s))
                .collect();
            if keys.is_empty() {
                Search::Everything
            } else {
                Search::All(keys)
            }
        }
        GinOp::Contains => {
            let keys = elem_keys(value);
            if keys.is_empty() {
                Search::Everything
            } else {
                Search::All(keys)
            }
        }
        GinOp::Overlap => {
            let keys = elem_keys(value);
            if keys.is_empty() {
                Search::Nothing
            } else {
                Search::Any(keys)
            }
        }
        GinOp::ContainedBy => {
            let mut keys = elem_keys(value);
            keys.push(vec![EMPTY]);
            Search::Any(keys)
        }
        // The keys a match requires (`gin_jsonb::jsonpath_keys`); none
        // known: every row is a candidate, and the recheck decides.
        GinOp::PathExists | GinOp::PathMatch => {
            let Value::Text(text) = value else {
                return Ok(Search::Everything);
            };
            let keys =
                gin_jsonb::jsonpath_keys(jsonb_class(q.class), text, q.op == GinOp::PathMatch);
            if keys.is_empty() {
                Search::Everything
            } else {
                Search::All(keys)
            }
        }
        GinOp::TsMatch => tsquery_search(value),
        GinOp::ArrayEq => {
            let keys = array_keys(value);
            if keys.is_empty() {
                Search::Everything
            } else {
                Search::All(keys)
            }
        }
    };
    Ok(match s {
        Search::All(k) => Search::All(with_pos(q.key, k)),
        Search::Any(k) => Search::Any(with_pos(q.key, k)),
        other => other,
    })
}

fn with_pos(pos: usize, keys: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    let p = pos.min(255) as u8;
    keys.into_iter()
        .map(|k| {
            let mut out = Vec::with_capacity(k.len() + 1);
            out.push(p);
            out.extend(k);
            out
        })
        .collect()
}

/// The GIN operator a conjunct applies to `key`, with the other operand
/// (commuted forms turned round: `'{...}' <@ col` is `col @> '{...}'`).
fn gin_op<'e>(e: &'e Expr, key: &Expr) -> Option<(GinOp, &'e Expr)> {
    let (name, a, b) = match e {
        Expr::Func(Func::Library(f), args) if args.len() == 2 => (f.name, &args[0], &args[1]),
        Expr::Cmp(Cmp::Eq, a, b) => ("=", a.as_ref(), b.as_ref()),
        _ => return None,
    };
    let (op, value) = if a == key {
        let op = match name {
            "jsonb_contains" | "arraycontains" => GinOp::Contains,
            "jsonb_exists" => GinOp::Exists,
            "jsonb_exists_any" => GinOp::ExistsAny,
            "jsonb_exists_all" => GinOp::ExistsAll,
            "arraycontained" => GinOp::ContainedBy,
            "arrayoverlap" => GinOp::Overlap,
            "=" => GinOp::ArrayEq,
            "jsonb_path_exists_opr" => GinOp::PathExists,
            "jsonb_path_match_opr" => GinOp::PathMatch,
            "ts_match_vq" => GinOp::TsMatch,
            _ => return None,
        };
        (op, b)
    } else if b == key {
        let op = match name {
            "jsonb_contained" | "arraycontained" => GinOp::Contains,
            "arraycontains" => GinOp::ContainedBy,
            "arrayoverlap" => GinOp::Overlap,
            "=" => GinOp::ArrayEq,
            "ts_match_qv" => GinOp::TsMatch,
            _ => return None,
        };
        (op, a)
    } else {
        return None;
    };
    value.is_scan_constant().then_some((op, value))
}

/// Whether a class answers an operator.
fn supports(class: GinClass, op: GinOp) -> bool {
    match class {
        GinClass::JsonbOps => matches!(
            op,
            GinOp::Contains
                | GinOp::Exists
                | GinOp::ExistsAny
                | GinOp::ExistsAll
                | GinOp::PathExists
                | GinOp::PathMatch
        ),
        GinClass::JsonbPathOps => {
            matches!(op, GinOp::Contains | GinOp::PathExists | GinOp::PathMatch)
        }
        GinClass::ArrayOps => matches!(
            op,
            GinOp::Contains | GinOp::ContainedBy | GinOp::Overlap | GinOp::ArrayEq
        ),
        GinClass::TsvectorOps => op == GinOp::TsMatch,
    }
}

/// The conjuncts (by position) a GIN index with keys `keys` (expressions
/// over the table row) and classes `classes` answers, as quals.
pub fn index_match(keys: &[Expr], classes: &[GinClass], conj: &[Expr]) -> Vec<(usize, GinQual)> {
    let mut out = Vec::new();
    for (i, e) in conj.iter().enumerate() {
        for (pos, (key, class)) in keys.iter().zip(classes).enumerate() {
            let Some((op, value)) = gin_op(e, key) else {
                continue;
            };
            if !supports(*class, op) {
                continue;
            }
            out.push((
                i,
                GinQual {
                    key: pos,
                    class: *class,
                    op,
                    value: value.clone(),
                    conj: e.clone(),
                },
            ));
            break;
        }
    }
    out
}

/// A bound GIN index as storage's key function: each row's set of keys.
pub struct GinKeyFn {
    keys: Vec<Expr>,
    /// A partial index's predicate (a row outside it has no keys).
    predicate: Vec<Expr>,
    classes: Vec<GinClass>,
    names: Vec<String>,
    eval: EvalCtx,
}

impl GinKeyFn {
    pub fn new(
        (keys, predicate): (Vec<Expr>, Vec<Expr>),
        classes: Vec<GinClass>,
        names: Vec<String>,
    ) -> GinKeyFn {
        GinKeyFn {
            keys,
            predicate,
            classes,
            names,
            eval: EvalCtx::new(nestor_types::datetime::TimeZone::UTC, 0),
        }
    }
}

impl nestor_catalog::IndexKeys for GinKeyFn {
    fn names(&self) -> &[String] {
        &self.names
    }

    fn keys(&self, row: &[Value]) -> Result<Option<Vec<Value>>, DbError> {
        for p in &self.predicate {
            let t = super::index_expr::eval(p, row, &self.eval)?;
            if crate::valops::truthy(&t) != Some(true) {
                return Ok(None);
            }
        }
        let mut all: Vec<Vec<u8>> = Vec::new();
        for (pos, (k, class)) in self.keys.iter().zip(&self.classes).enumerate() {
            let v = super::index_expr::eval(k, row, &self.eval)?;
            all.extend(with_pos(pos, class_keys(*class, &v)?));
        }
        all.sort_unstable();
        all.dedup();
        Ok(Some(
            all.into_iter()
                .map(|k| Value::Bytea(Arc::from(k)))
                .collect(),
        ))
    }
}
