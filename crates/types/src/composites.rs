//! Named composite types (`CREATE TYPE pair AS (a int, b text)`): their
//! definitions, the process-wide registry type names resolve through, and
//! `record_in`, the text input of a composite value.
//!
//! A value of a composite type is a [`Value::Record`], as an anonymous
//! record is; its [`DataType`] is a [`DataType::Record`] whose interned
//! [`RecordType`] carries the type's pg_type OID (`oid` 0 is the anonymous
//! `record`). So everything that already works on records — `(x).a`,
//! `(x).*`, `ROW(...)`, record_out, record_send, comparisons, storage —
//! works on composite values unchanged, and the OID is what tells the
//! wire, the catalog record of a column and the casts which type it is.
//!
//! As for enums and domains, type names resolve without a catalog
//! ([`DataType::from_sql_name`], [`DataType::from_oid_typmod`]), so the
//! catalog mirrors every composite it installs, drops or rolls back into
//! this registry ([`install_in`], [`remove`]):
//!
//! ```text
//!   CREATE TYPE pair AS (a int, b text)   registry: 16390 pair (a int4, b text)
//!   DataType::from_sql_name("pair")   ->  Record(RecordType { oid: 16390, .. })
//!   '(1,"x y")'::pair                 ->  record_in: [Int4(1), Text("x y")]
//!   SELECT '(1,"x y")'::pair          ->  (1,"x y")        (record_out)
//! ```
//!
//! A column keeps the shape it was created with (its `DataType` is
//! interned with the attributes of the time), so the DDL refuses to change
//! the attributes of a type a column or another type uses.
//!
//! An array of a composite type (`pair[]`) is a `DataType::Array` of its
//! record type (interned here, [`element`]), with the array type's OID.
//!
//! A table's row type is named by the binder, which has the catalog
//! ([`note_row_type`] keeps it here by OID, its OID the table's): casts
//! to it work; columns of it and arrays of it are 0A000.
//!
//! An attribute declared with a domain (`CREATE TYPE t AS (f posint)`)
//! has the domain's base type in the record type, and the domain's OID
//! beside it ([`CompositeDef::domains`]); the binder checks the domain's
//! constraints where a value becomes one of the type (a cast, a write of
//! a column of it, `json_populate_record`: `nestor_plan::bind::domain`).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use nestor_common::{DbError, SqlState};

use crate::context::EvalCtx;
use crate::datatype::{named_record_type, DataType, RecordType};
use crate::value::Value;

/// A composite type: its pg_type OIDs, its pg_class OID (relkind 'c'),
/// name, owner and attributes in order.
#[derive(Clone, Debug, PartialEq)]
pub struct CompositeDef {
    pub oid: u32,
    pub array_oid: u32,
    /// The pg_class row of the type (relkind 'c').
    pub relid: u32,
    pub name: String,
    /// The owning role's OID (pg_type.typowner).
    pub owner: u32,
    /// Attribute names and types (with typmods), in order.
    pub attrs: Vec<(String, DataType)>,
    /// The domain each attribute was declared with (the pg_type OID of
    /// the domain, or of its array type for `posint[]`), by position;
    /// shorter than `attrs` (empty) where none is. The attribute's type
    /// in `attrs` is then the domain's base type.
    pub domains: Vec<Option<u32>>,
}

impl CompositeDef {
    /// The interned record type of values of this type.
    pub fn record_type(&self) -> &'static RecordType {
        named_record_type(self.oid, self.attrs.clone())
    }

    pub fn data_type(&self) -> DataType {
        DataType::Record(self.record_type())
    }

    /// The domain attribute `i` was declared with, if any.
    pub fn attr_domain(&self, i: usize) -> Option<u32> {
        self.domains.get(i).copied().flatten()
    }
}

#[derive(Default)]
struct Registry {
    /// Each type with its name and its array type's name (leaked once per
    /// distinct name, as [`DataType::name`] returns `&'static str`).
    by_oid: HashMap<u32, (Arc<CompositeDef>, &'static str, &'static str)>,
    /// Array type OID -> type OID.
    arrays: HashMap<u32, u32>,
    /// The interned `&'static DataType::Record(rt)` of each record type,
    /// by the record type's address (arrays' elements).
    elements: HashMap<usize, &'static DataType>,
    /// (database, name) -> OID (see [`crate::database_scope`]).
    by_name: HashMap<(u32, String), u32>,
    database: HashMap<u32, u32>,
    names: HashMap<String, &'static str>,
}

impl Registry {
    fn leak(&mut self, name: &str) -> &'static str {
        if let Some(n) = self.names.get(name) {
            return n;
        }
        let n: &'static str = Box::leak(name.to_string().into_boxed_str());
        self.names.insert(name.to_string(), n);
        n
    }
}

fn registry() -> &'static RwLock<Registry> {
    static R: OnceLock<RwLock<Registry>> = OnceLock::new();
    R.get_or_init(Default::default)
}

fn read() -> std::sync::RwLockReadGuard<'static, Registry> {
    registry().read().unwrap_or_else(|e| e.into_inner())
}

fn write() -> std::sync::RwLockWriteGuard<'static, Registry> {
    registry().write().unwrap_or_else(|e| e.into_inner())
}

/// Install (create or replace, a rename included) a definition of
/// database `database`.
pub fn install_in(database: u32, def: Arc<CompositeDef>) {
    let mut r = write();
    if let Some(prev) = r.by_oid.get(&def.oid).map(|p| p.0.name.clone()) {
        let db = r.database.get(&def.oid).copied().unwrap_or(database);
        r.by_name.remove(&(db, prev));
    }
    let name = r.leak(&def.name);
    let array_name = r.leak(&format!("{}[]", def.name));
    r.by_name.insert((database, def.name.clone()), def.oid);
    r.database.insert(def.oid, database);
    r.arrays.insert(def.array_oid, def.oid);
    r.by_oid.insert(def.oid, (def, name, array_name));
}

/// Note a table's row type (by OID only: its name resolves through the
/// catalog, in the binder), so that its OID names it (`pg_typeof`,
/// `DataType::name`); replaced as the table's columns change.
pub fn note_row_type(def: CompositeDef) -> Arc<CompositeDef> {
    let def = Arc::new(def);
    let mut r = write();
    if r.by_oid.get(&def.oid).is_some_and(|e| *e.0 == *def) {
        return r.by_oid[&def.oid].0.clone();
    }
    let name = r.leak(&def.name);
    let array_name = r.leak(&format!("{}[]", def.name));
    r.by_oid.insert(def.oid, (def.clone(), name, array_name));
    def
}

/// Forget table `oid`'s row type (a composite type of that OID stays).
pub fn forget_row_type(oid: u32) {
    let mut r = write();
    if r.by_oid.get(&oid).is_some_and(|e| e.0.relid == oid) {
        r.by_oid.remove(&oid);
    }
}

/// Forget a composite type.
pub fn remove(oid: u32) {
    let mut r = write();
    if let Some((prev, _, _)) = r.by_oid.remove(&oid) {
        r.arrays.remove(&prev.array_oid);
        let db = r.database.remove(&oid).unwrap_or_default();
        r.by_name.remove(&(db, prev.name.clone()));
    }
}

/// The composite type named `name` in the current thread's database.
pub fn by_name(name: &str) -> Option<Arc<CompositeDef>> {
    let bare = name.strip_prefix("public.").unwrap_or(name);
    let r = read();
    r.by_name
        .get(&(crate::database_scope::current(), bare.to_string()))
        .and_then(|oid| r.by_oid.get(oid))
        .map(|e| e.0.clone())
}

/// The composite type of pg_type OID `oid`.
pub fn lookup(oid: u32) -> Option<Arc<CompositeDef>> {
    read().by_oid.get(&oid).map(|e| e.0.clone())
}

/// The type's name (`record` for an unknown OID).
pub fn type_name(oid: u32) -> &'static str {
    read().by_oid.get(&oid).map_or("record", |e| e.1)
}

/// The array type's name (`pair[]`).
pub fn array_name(oid: u32) -> &'static str {
    read().by_oid.get(&oid).map_or("record[]", |e| e.2)
}

/// The array type's OID.
pub fn array_oid(oid: u32) -> u32 {
    read().by_oid.get(&oid).map_or(0, |e| e.0.array_oid)
}

/// The interned `&'static DataType::Record(rt)`, an array's element.
pub fn element(rt: &'static RecordType) -> &'static DataType {
    let key = rt as *const RecordType as usize;
    if let Some(e) = read().elements.get(&key).copied() {
        return e;
    }
    let mut r = write();
    let e: &'static DataType = r
        .elements
        .entry(key)
        .or_insert_with(|| Box::leak(Box::new(DataType::Record(rt))));
    e
}

/// The type with pg_type OID `oid`: a composite type or its array.
pub fn type_for_oid(oid: u32) -> Option<DataType> {
    if let Some(c) = lookup(oid) {
        return Some(c.data_type());
    }
    let elem = read().arrays.get(&oid).copied()?;
    let c = lookup(elem)?;
    Some(DataType::Array(element(c.record_type())))
}

fn malformed(input: &str, detail: &str) -> DbError {
    DbError::new(
        SqlState::InvalidTextRepresentation,
        format!("malformed record literal: \"{input}\""),
    )
    .with_detail(detail)
}

/// record_in: `(1,"a b",)` into the fields of `rt`. A field is NULL when
/// nothing is between its separators; double quotes group (a doubled quote
/// inside them is one quote) and a backslash takes the next character as
/// it is; unquoted white space is kept. PostgreSQL's messages (22P02,
/// `malformed record literal`) with its DETAIL lines.
pub fn record_in(rt: &RecordType, input: &str, ctx: &EvalCtx) -> Result<Value, DbError> {
    if rt.oid == 0 {
        return Err(crate::binary::anonymous_record_input());
    }
    let chars: Vec<char> = input.chars().collect();
    let mut p = 0;
    while p < chars.len() && chars[p].is_ascii_whitespace() {
        p += 1;
    }
    if chars.get(p) != Some(&'(') {
        return Err(malformed(input, "Missing left parenthesis."));
    }
    p += 1;
    let mut out = Vec::with_capacity(rt.fields.len());
    for (i, (_, ty)) in rt.fields.iter().enumerate() {
        if i > 0 {
            if chars.get(p) == Some(&',') {
                p += 1;
            } else {
                return Err(malformed(input, "Too few columns."));
            }
        }
        if matches!(chars.get(p), Some(',') | Some(')')) {
            out.push(Value::Null);
            continue;
        }
        let text = field_text(&chars, &mut p)
            .ok_or_else(|| malformed(input, "Unexpected end of input."))?;
        out.push(crate::text::parse_text(*ty, &text, ctx)?);
    }
    if chars.get(p) != Some(&')') {
        return Err(malformed(input, "Too many columns."));
    }
    p += 1;
    if chars[p..].iter().any(|c| !c.is_ascii_whitespace()) {
        return Err(malformed(input, "Junk after right parenthesis."));
    }
    Ok(Value::Record(Arc::from(out)))
}

/// One field's de-quoted text from `chars[*p..]`, up to the `,` or `)`
/// outside quotes that ends it (None: the input ended first).
fn field_text(chars: &[char], p: &mut usize) -> Option<String> {
    let mut buf = String::new();
    let mut in_quote = false;
    loop {
        let c = *chars.get(*p)?;
        if !in_quote && (c == ',' || c == ')') {
            return Some(buf);
        }
        *p += 1;
        match c {
            '\\' => {
                buf.push(*chars.get(*p)?);
                *p += 1;
            }
            '"' if !in_quote => in_quote = true,
            '"' if chars.get(*p) == Some(&'"') => {
                buf.push('"');
                *p += 1;
            }
            '"' => in_quote = false,
            c => buf.push(c),
        }
    }
}

/// `n` bytes of `buf` from `*p` on (22P03 past its end).
fn take<'a>(buf: &'a [u8], p: &mut usize, n: usize) -> Result<&'a [u8], DbError> {
    let s = buf.get(*p..p.saturating_add(n)).ok_or_else(|| {
        DbError::new(
            SqlState::InvalidBinaryRepresentation,
            "insufficient data left in message",
        )
    })?;
    *p += n;
    Ok(s)
}

fn take_i32(buf: &[u8], p: &mut usize) -> Result<i32, DbError> {
    let b = take(buf, p, 4)?;
    Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// record_recv: the field count, then per field its type OID and its
/// length-prefixed binary form (-1 for NULL), checked against `rt`.
pub fn record_recv(rt: &RecordType, buf: &[u8]) -> Result<Value, DbError> {
    if rt.oid == 0 {
        return Err(crate::binary::anonymous_record_input());
    }
    let mut p = 0usize;
    let n = take_i32(buf, &mut p)?;
    if n != rt.fields.len() as i32 {
        return Err(DbError::new(
            SqlState::DatatypeMismatch,
            format!("wrong number of columns: {n}, expected {}", rt.fields.len()),
        ));
    }
    let mut out = Vec::with_capacity(rt.fields.len());
    for (i, (_, ty)) in rt.fields.iter().enumerate() {
        let oid = take_i32(buf, &mut p)? as u32;
        if oid != ty.oid() {
            return Err(DbError::new(
                SqlState::DatatypeMismatch,
                format!(
                    "binary data has type {oid} ({}) instead of expected {} in record column {}",
                    DataType::from_oid(oid).map_or("???", |t| t.name()),
                    ty.name(),
                    i + 1
                ),
            ));
        }
        let len = take_i32(buf, &mut p)?;
        if len < 0 {
            out.push(Value::Null);
            continue;
        }
        let data = take(buf, &mut p, len as usize)?;
        out.push(crate::binary::parse_binary(*ty, data)?);
    }
    if p != buf.len() {
        return Err(DbError::new(
            SqlState::InvalidBinaryRepresentation,
            "improper binary format in record column",
        ));
    }
    Ok(Value::Record(Arc::from(out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair() -> &'static RecordType {
        named_record_type(
            900_001,
            vec![("a".into(), DataType::Int4), ("b".into(), DataType::Text)],
        )
    }

    fn fields(v: Value) -> Vec<Value> {
        match v {
            Value::Record(f) => f.to_vec(),
            other => panic!("not a record: {other:?}"),
        }
    }

    #[test]
    fn record_in_reads_record_out() {
        let c = EvalCtx::utc_now();
        for (text, a, b) in [
            ("(1,a)", Some(1), Some("a")),
            ("(1,)", Some(1), None),
            ("(,\"\")", None, Some("")),
            (" (2,\"x \"\"y\"\" z\") ", Some(2), Some("x \"y\" z")),
            ("(3,a\\,b)", Some(3), Some("a,b")),
            ("(4, b )", Some(4), Some(" b ")),
        ] {
            let v = record_in(pair(), text, &c).unwrap_or_else(|e| panic!("{text}: {e:?}"));
            let want = vec![
                a.map_or(Value::Null, Value::Int4),
                b.map_or(Value::Null, Value::text),
            ];
            assert_eq!(fields(v.clone()), want, "{text}");
            // Printed and read back, it is the same record.
            let again = record_in(pair(), &v.to_text(&c), &c).unwrap();
            assert_eq!(fields(again), want, "{text}");
        }
    }

    #[test]
    fn record_in_errors_are_postgresqls() {
        let c = EvalCtx::utc_now();
        for (text, detail) in [
            ("1,a)", "Missing left parenthesis."),
            ("(1)", "Too few columns."),
            ("(1,a,b)", "Too many columns."),
            ("(1,a) x", "Junk after right parenthesis."),
            ("(1,\"a", "Unexpected end of input."),
            ("(1,a\\", "Unexpected end of input."),
        ] {
            let e = record_in(pair(), text, &c).unwrap_err();
            assert_eq!(e.code, SqlState::InvalidTextRepresentation, "{text}");
            assert_eq!(e.message, format!("malformed record literal: \"{text}\""));
            assert_eq!(e.detail.as_deref(), Some(detail), "{text}");
        }
        let anon = crate::datatype::record_type(vec![("a".into(), DataType::Int4)]);
        assert_eq!(
            record_in(anon, "(1)", &c).unwrap_err().code,
            SqlState::FeatureNotSupported
        );
    }

    #[test]
    fn record_recv_reads_record_send() {
        let v = Value::Record(Arc::from(vec![Value::Int4(7), Value::Null]));
        let bytes = v.to_binary_as(DataType::Record(pair()));
        assert_eq!(
            fields(record_recv(pair(), &bytes).unwrap()),
            vec![Value::Int4(7), Value::Null]
        );
        assert!(record_recv(pair(), &bytes[..bytes.len() - 1]).is_err());
        let three = named_record_type(
            900_002,
            vec![
                ("a".into(), DataType::Int4),
                ("b".into(), DataType::Text),
                ("c".into(), DataType::Int4),
            ],
        );
        assert_eq!(
            record_recv(three, &bytes).unwrap_err().code,
            SqlState::DatatypeMismatch
        );
    }
}
