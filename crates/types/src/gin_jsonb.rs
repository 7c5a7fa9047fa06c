//! GIN keys of a jsonb document: what a GIN index over jsonb stores for a
//! row, and what a query (`@>`, `?`, `?|`, `?&`) asks it for.
//!
//! PostgreSQL has two operator classes (jsonb_gin.c), mirrored here:
//!
//! - `jsonb_ops` (the default): one key per object key, per array element
//!   and per scalar value, each with a kind tag so that the key `"a"` and
//!   the string value `"a"` differ. A string that is an object key, an
//!   array element or the whole document is a *key* (so `?` finds it);
//!   a string that is an object's value is a *string*. Numbers, booleans
//!   and nulls have their own tags, numbers in numeric's canonical sort
//!   form (`1.0` and `1` are one key, as they are equal in jsonb).
//! - `jsonb_path_ops`: one key per leaf scalar, a hash of the object keys
//!   on its path (array steps are transparent, as containment treats
//!   them) and the value. It answers `@>` only, with fewer, more
//!   selective keys.
//!
//! Jsonpath queries (`@?`, `@@`) get the keys every matching document
//! must have ([`jsonpath_keys`]), a small part of PostgreSQL's
//! extract_jsonp_query: the object keys a path steps through (jsonb_ops),
//! and for `path == literal` the literal's key (jsonb_ops, not for
//! strings: in lax mode `$.a == "x"` also matches `["x"]`, whose "x" is a
//! key) or the hashed path and literal (jsonb_path_ops, arrays being
//! transparent there as in lax mode). Only what a true result requires is
//! taken: AND's sides, comparisons' paths; OR, NOT, variables and what
//! follows an item method contribute nothing.
//!
//! Keys are lossy (long strings are hashed, paths are hashed) but never
//! miss: a document that satisfies a query has every key the query's
//! extraction requires. The executor therefore always rechecks the
//! operator on the row. A query may have no keys at all (`@> '{}'`,
//! `?& '{}'`): the caller then scans without the index.

use crate::json::{parse, Json};
use crate::value::Value;
use nestor_common::DbError;

const TAG_KEY: u8 = b'K';
const TAG_STR: u8 = b'S';
const TAG_NUM: u8 = b'N';
const TAG_BOOL: u8 = b'B';
const TAG_NULL: u8 = b'Z';
/// A key or string longer than [`LONG`] bytes, hashed (its kind byte
/// follows the tag).
const TAG_HASHED: u8 = b'H';
/// A jsonb_path_ops leaf: a hash of its path and value.
const TAG_PATH: u8 = b'P';

/// Strings longer than this are stored as a hash (PostgreSQL truncates
/// and hashes long keys too), so that no key is unbounded.
const LONG: usize = 120;

/// Which of the two jsonb operator classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonbClass {
    Ops,
    PathOps,
}

/// The parsed document of a jsonb value (None for NULL).
fn doc(v: &Value) -> Result<Option<Json>, DbError> {
    match v {
        Value::Null => Ok(None),
        Value::Jsonb(s) | Value::Text(s) => parse(s).map(Some),
        other => Err(DbError::internal(format!("jsonb GIN key of {other:?}"))),
    }
}

/// The keys a row's jsonb value gets (empty for NULL), sorted and
/// distinct.
pub fn row_keys(class: JsonbClass, v: &Value) -> Result<Vec<Vec<u8>>, DbError> {
    let Some(d) = doc(v)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    match class {
        JsonbClass::Ops => ops_keys(&d, true, &mut out),
        JsonbClass::PathOps => path_keys(&d, Fnv::new(), &mut out),
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// The keys a row must all have to contain `query` (`col @> query`):
/// the row extraction of the query document itself. Empty when the
/// query has none (`{}`, `[]`): the index cannot narrow it. None for a
/// NULL query (no row matches).
pub fn contains_keys(class: JsonbClass, query: &Value) -> Result<Option<Vec<Vec<u8>>>, DbError> {
    if query.is_null() {
        return Ok(None);
    }
    row_keys(class, query).map(Some)
}

/// The key `?` looks up: a string that is an object key, an array
/// element or the whole document (jsonb_ops only).
pub fn exists_key(key: &str) -> Vec<u8> {
    string_key(TAG_KEY, key)
}

fn string_key(tag: u8, s: &str) -> Vec<u8> {
    if s.len() <= LONG {
        let mut k = Vec::with_capacity(s.len() + 1);
        k.push(tag);
        k.extend_from_slice(s.as_bytes());
        return k;
    }
    let mut h = Fnv::new();
    h.bytes(s.as_bytes());
    let mut k = vec![TAG_HASHED, tag];
    k.extend_from_slice(&h.0.to_be_bytes());
    k
}

fn scalar_key(v: &Json, string_tag: u8) -> Option<Vec<u8>> {
    Some(match v {
        Json::Null => vec![TAG_NULL],
        Json::Bool(b) => vec![TAG_BOOL, *b as u8],
        Json::Num(n) => {
            let mut k = vec![TAG_NUM];
            n.encode_sort_key(&mut k);
            k
        }
        Json::Str(s) => string_key(string_tag, s),
        Json::Arr(_) | Json::Obj(_) => return None,
    })
}

/// jsonb_ops. Each pending value carries whether it is an array element
/// or the whole document (a string there is a key, as `?` sees it). An
/// explicit stack, not recursion: a document may nest JSON_NESTING_MAX
/// deep, and keys are also taken where no session stack check runs
/// (recovery, replicas).
fn ops_keys(doc: &Json, top: bool, out: &mut Vec<Vec<u8>>) {
    let mut pending: Vec<(&Json, bool)> = vec![(doc, top)];
    while let Some((v, elem)) = pending.pop() {
        match v {
            Json::Arr(items) => pending.extend(items.iter().map(|i| (i, true))),
            Json::Obj(fields) => {
                for (k, fv) in fields {
                    out.push(string_key(TAG_KEY, k));
                    pending.push((fv, false));
                }
            }
            scalar => {
                let tag = if elem { TAG_KEY } else { TAG_STR };
                out.extend(scalar_key(scalar, tag));
            }
        }
    }
}

/// jsonb_path_ops: one hashed key per leaf scalar, over the object keys
/// leading to it (an explicit stack, as [`ops_keys`]).
fn path_keys(doc: &Json, root: Fnv, out: &mut Vec<Vec<u8>>) {
    let mut pending: Vec<(&Json, Fnv)> = vec![(doc, root)];
    while let Some((v, path)) = pending.pop() {
        match v {
            Json::Arr(items) => pending.extend(items.iter().map(|i| (i, path))),
            Json::Obj(fields) => {
                for (k, fv) in fields {
                    let mut p = path;
                    p.bytes(&(k.len() as u64).to_be_bytes());
                    p.bytes(k.as_bytes());
                    pending.push((fv, p));
                }
            }
            scalar => out.extend(leaf_key(path, scalar)),
        }
    }
}

/// The keys every document matching a jsonpath query must have (`@?`
/// when `is_match` is false, `@@` when true); empty when nothing is
/// required (every row is a candidate). Unparsable text has none (the
/// recheck reports its error, as the operator would).
pub fn jsonpath_keys(class: JsonbClass, path: &str, is_match: bool) -> Vec<Vec<u8>> {
    use crate::jsonpath::parse::{parse, Expr};
    let Ok(p) = parse(path) else {
        return Vec::new();
    };
    let mut req = Required {
        class,
        out: Vec::new(),
    };
    match (&p.expr, is_match) {
        (Expr::Path(..), false) => {
            req.chain(&p.expr, None);
        }
        (e, true) if e.is_predicate() => req.predicate(e, None),
        _ => {}
    }
    let mut out = req.out;
    out.sort_unstable();
    out.dedup();
    out
}

/// What a jsonpath query requires of a document, collected into `out`.
struct Required {
    class: JsonbClass,
    out: Vec<Vec<u8>>,
}

impl Required {
    /// Keys a true predicate requires; `base` is the path (object keys)
    /// of `@` when known.
    fn predicate(&mut self, e: &crate::jsonpath::parse::Expr, base: Option<&[String]>) {
        use crate::jsonpath::parse::{BinOp, Expr};
        match e {
            Expr::Binary(BinOp::And, l, r) => {
                self.predicate(l, base);
                self.predicate(r, base);
            }
            Expr::Binary(BinOp::Eq, l, r) => {
                let (lp, rp) = (self.chain(l, base), self.chain(r, base));
                for (path, other) in [(lp, r), (rp, l)] {
                    if let (Some(path), Some(lit)) = (path, literal(other)) {
                        self.equal(&path, lit);
                    }
                }
            }
            Expr::Binary(
                BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::StartsWith,
                l,
                r,
            ) => {
                self.chain(l, base);
                self.chain(r, base);
            }
            Expr::Exists(x) | Expr::LikeRegex { expr: x, .. } => {
                self.chain(x, base);
            }
            _ => {}
        }
    }

    /// A path expression's required keys (jsonb_ops: every object key it
    /// steps through before an item method) and its filters'. Returns its
    /// object-key path when it has no wildcard or method (arrays and
    /// subscripts are transparent), for `path == literal`.
    fn chain(
        &mut self,
        e: &crate::jsonpath::parse::Expr,
        base: Option<&[String]>,
    ) -> Option<Vec<String>> {
        use crate::jsonpath::parse::{Expr, Primary, Step};
        let Expr::Path(primary, steps) = e else {
            return None;
        };
        let mut path: Option<Vec<String>> = match primary {
            Primary::Root => Some(Vec::new()),
            Primary::Current => base.map(<[String]>::to_vec),
            _ => return None,
        };
        for step in steps {
            match step {
                Step::Key(k) => {
                    if self.class == JsonbClass::Ops {
                        self.out.push(exists_key(k));
                    }
                    if let Some(p) = path.as_mut() {
                        p.push(k.clone());
                    }
                }
                Step::AnyArray | Step::Index(_) => {}
                Step::Filter(f) => {
                    let here = path.clone();
                    self.predicate(f, here.as_deref());
                }
                Step::AnyKey | Step::Any { .. } => path = None,
                // An item method's result is no item of the document: what
                // follows names nothing the document must have.
                Step::Method(_) => return None,
            }
        }
        path
    }

    /// `path == literal`: the literal's key (jsonb_ops, not a string) or
    /// the path-and-value hash (jsonb_path_ops).
    fn equal(&mut self, path: &[String], lit: &Json) {
        match self.class {
            JsonbClass::Ops => {
                if !matches!(lit, Json::Str(_)) {
                    self.out.extend(scalar_key(lit, TAG_STR));
                }
            }
            JsonbClass::PathOps => {
                let mut h = Fnv::new();
                for k in path {
                    h.bytes(&(k.len() as u64).to_be_bytes());
                    h.bytes(k.as_bytes());
                }
                self.out.extend(leaf_key(h, lit));
            }
        }
    }
}

/// A scalar literal operand (`1`, `"x"`, `true`, `null`).
fn literal(e: &crate::jsonpath::parse::Expr) -> Option<&Json> {
    use crate::jsonpath::parse::{Expr, Primary};
    match e {
        Expr::Path(Primary::Literal(j), steps) if steps.is_empty() => Some(j),
        _ => None,
    }
}

/// A jsonb_path_ops key: the hash of a leaf's path and its value.
fn leaf_key(path: Fnv, scalar: &Json) -> Option<Vec<u8>> {
    let leaf = scalar_key(scalar, TAG_STR)?;
    let mut h = path;
    h.bytes(&[0xFF]);
    h.bytes(&leaf);
    let mut k = vec![TAG_PATH];
    k.extend_from_slice(&h.0.to_be_bytes());
    Some(k)
}

/// FNV-1a, 64 bits: stable across processes (index entries are rebuilt
/// at recovery, but a stable hash keeps keys reproducible).
#[derive(Clone, Copy)]
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn bytes(&mut self, b: &[u8]) {
        for &c in b {
            self.0 ^= c as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn j(s: &str) -> Value {
        Value::Jsonb(Arc::from(s))
    }

    fn has_all(row: &[Vec<u8>], q: &[Vec<u8>]) -> bool {
        q.iter().all(|k| row.contains(k))
    }

    #[test]
    fn key_and_string_value_differ() {
        let a = row_keys(JsonbClass::Ops, &j(r#"{"a": "b"}"#)).unwrap();
        assert!(a.contains(&exists_key("a")));
        assert!(!a.contains(&exists_key("b")));
        let arr = row_keys(JsonbClass::Ops, &j(r#"["b"]"#)).unwrap();
        assert!(arr.contains(&exists_key("b")));
    }

    #[test]
    fn containment_keys_are_a_subset() {
        for class in [JsonbClass::Ops, JsonbClass::PathOps] {
            let row = row_keys(class, &j(r#"{"a": [1, 2.0, {"b": "x"}], "c": true}"#)).unwrap();
            for q in [r#"{"a": [2]}"#, r#"{"a": [{"b": "x"}]}"#, r#"{"c": true}"#] {
                let qk = contains_keys(class, &j(q)).unwrap().unwrap();
                assert!(!qk.is_empty());
                assert!(has_all(&row, &qk), "{q} {class:?}");
            }
            let miss = contains_keys(class, &j(r#"{"a": [3]}"#)).unwrap().unwrap();
            assert!(!has_all(&row, &miss));
        }
    }

    #[test]
    fn jsonpath_keys_are_a_subset_of_a_matching_row() {
        let doc = j(r#"{"a": [{"b": 1}, {"b": "x"}], "c": {"d": null}}"#);
        for class in [JsonbClass::Ops, JsonbClass::PathOps] {
            let row = row_keys(class, &doc).unwrap();
            for (path, is_match) in [
                ("$.a[*].b", false),
                ("$.a.b ? (@ == 1)", false),
                ("$ ? (@.c.d == null)", false),
                ("$.a.b == 1", true),
                ("$.a.b == \"x\" && exists($.c)", true),
                ("$.c.d == null", true),
                ("$.a.b.type() == \"number\"", true),
            ] {
                let q = jsonpath_keys(class, path, is_match);
                assert!(has_all(&row, &q), "{path} {class:?}");
            }
            let miss = jsonpath_keys(class, "$.a.b == 2", true);
            assert!(!miss.is_empty() && !has_all(&row, &miss), "{class:?}");
        }
        assert!(jsonpath_keys(JsonbClass::Ops, "$.a == 1 || $.z == 2", true).is_empty());
        assert!(jsonpath_keys(JsonbClass::Ops, "not a path (", true).is_empty());
    }

    #[test]
    fn long_strings_are_bounded() {
        let long = "x".repeat(5000);
        let k = exists_key(&long);
        assert!(k.len() < 20);
        assert_ne!(k, exists_key(&"y".repeat(5000)));
    }
}
