//! Enum types (`CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')`): their
//! definitions and the process-wide registry values are read through.
//!
//! A value of an enum type is `Value::Enum(label OID)`, as PostgreSQL
//! stores the pg_enum row's OID. Printing it, parsing it and ordering it
//! need the type's labels, and those paths (`Value::to_text`, `Ord`, the
//! input functions) have no catalog at hand, so the catalog mirrors every
//! enum definition it installs, drops or rolls back into this registry
//! ([`install`], [`remove`]); the registry is what the value layer reads.
//!
//! ```text
//!   CREATE TYPE mood AS ENUM ('sad', 'happy')      type 16390, array 16389
//!     labels: 16391 'sad' 1.0, 16392 'happy' 2.0
//!   ALTER TYPE mood ADD VALUE 'ok' BEFORE 'happy'   16393 'ok' 1.5
//!   'ok'::mood < 'happy'::mood  ->  1.5 < 2.0  ->  true
//! ```
//!
//! Sort orders are float4 as in pg_enum.enumsortorder and are assigned by
//! PostgreSQL's rules ([`EnumDef::add_label`]): the first labels get 1..n,
//! a label added at the end the last + 1, one before the first the first
//! minus 1, one between two neighbours their midpoint; when float4 runs
//! out of room between two neighbours every label is renumbered 1..n
//! first.
//!
//! Index keys are byte strings compared with memcmp, written once, so the
//! order cannot come from a number that renumbering changes. Each label
//! also has a *rank*: a base-256 fraction (digits, no trailing zero byte)
//! that never changes. A new label's rank lies strictly between its
//! neighbours' ([`rank_between`]), which is always possible, so ranks
//! order exactly as sort orders do and never need renumbering; values
//! compare and index keys sort by rank.
//!
//! ```text
//!   'a' [1]  'c' [2]            ADD 'b' BEFORE 'c'  ->  'b' [1, 128]
//!   ADD 'z' BEFORE 'a'  ->  [0, 128]       ADD 'e' (at the end)  ->  [3]
//! ```
//!
//! A label added by ALTER TYPE ... ADD VALUE is *pending* until its
//! transaction commits ([`mark_pending`], [`clear_pending`]): reading it
//! (input, enum_last, enum_range) is 55P04, as PostgreSQL refuses a new
//! value before its commit (it could end up in an index of a type whose
//! label rolls back). Labels of CREATE TYPE are never pending.
//!
//! Left out: the registry is one per process (label and type OIDs are
//! unique in a server, so that is enough for the server; a type created in
//! an open transaction is visible by name to other sessions before its
//! commit, as the catalog views are).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use nestor_common::{DbError, SqlState};

use crate::datatype::DataType;
use crate::value::Value;

/// Longest label in bytes (NAMEDATALEN - 1).
pub const LABEL_BYTES_MAX: usize = 63;

/// One label of an enum type (a pg_enum row).
#[derive(Clone, Debug, PartialEq)]
pub struct EnumLabel {
    pub oid: u32,
    pub sort_order: f32,
    /// The fixed sort key (see the module doc).
    pub rank: Vec<u8>,
    pub label: String,
}

/// An enum type: its pg_type OIDs, name and labels in sort order.
#[derive(Clone, Debug, PartialEq)]
pub struct EnumDef {
    pub oid: u32,
    pub array_oid: u32,
    pub name: String,
    /// The owning role's OID (pg_type.typowner).
    pub owner: u32,
    /// Sorted by `sort_order` (ascending, distinct).
    pub labels: Vec<EnumLabel>,
}

/// The error for a label longer than [`LABEL_BYTES_MAX`] (42602).
pub fn check_label(label: &str) -> Result<(), DbError> {
    if label.len() > LABEL_BYTES_MAX {
        return Err(DbError::new(
            SqlState::InvalidName,
            format!("invalid enum label \"{label}\""),
        )
        .with_detail(format!("Labels must be {LABEL_BYTES_MAX} bytes or less.")));
    }
    Ok(())
}

/// Where ALTER TYPE ... ADD VALUE puts the new label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position<'a> {
    End,
    Before(&'a str),
    After(&'a str),
}

impl EnumDef {
    /// A new type with `labels` in order, sort orders 1..n, owned by the
    /// bootstrap superuser (OID 10) until the caller says otherwise.
    pub fn new(oid: u32, array_oid: u32, name: &str, labels: Vec<(u32, String)>) -> EnumDef {
        let mut rank: Vec<u8> = Vec::new();
        let labels = labels
            .into_iter()
            .enumerate()
            .map(|(i, (oid, label))| {
                rank = rank_after(&rank);
                EnumLabel {
                    oid,
                    sort_order: (i + 1) as f32,
                    rank: rank.clone(),
                    label,
                }
            })
            .collect();
        EnumDef {
            oid,
            array_oid,
            name: name.to_string(),
            owner: 10,
            labels,
        }
    }

    pub fn label(&self, name: &str) -> Option<&EnumLabel> {
        self.labels.iter().find(|l| l.label == name)
    }

    fn neighbour(&self, name: &str) -> Result<usize, DbError> {
        self.labels
            .iter()
            .position(|l| l.label == name)
            .ok_or_else(|| {
                DbError::new(
                    SqlState::InvalidParameterValue,
                    format!("\"{name}\" is not an existing enum label"),
                )
            })
    }

    /// PostgreSQL's AddEnumLabel sort order for a label at `pos`
    /// (renumbering first when float4 has no room left).
    pub fn add_label(&mut self, oid: u32, label: &str, pos: Position) -> Result<(), DbError> {
        check_label(label)?;
        let order = match self.new_sort_order(pos)? {
            Some(o) => o,
            None => {
                self.renumber();
                self.new_sort_order(pos)?.expect("room after renumbering")
            }
        };
        let rank = self.new_rank(pos)?;
        self.labels.push(EnumLabel {
            oid,
            sort_order: order,
            rank,
            label: label.to_string(),
        });
        self.labels
            .sort_by(|a, b| a.sort_order.total_cmp(&b.sort_order));
        Ok(())
    }

    /// The sort order for a label at `pos`, None if two neighbours have no
    /// float4 between them.
    fn new_sort_order(&self, pos: Position) -> Result<Option<f32>, DbError> {
        let n = self.labels.len();
        let (at, after) = match pos {
            Position::End => {
                return Ok(Some(self.labels.last().map_or(1.0, |l| l.sort_order + 1.0)))
            }
            Position::Before(name) => (self.neighbour(name)?, false),
            Position::After(name) => (self.neighbour(name)?, true),
        };
        let here = self.labels[at].sort_order;
        let other = if after { at + 1 } else { at.wrapping_sub(1) };
        if other >= n {
            return Ok(Some(if after { here + 1.0 } else { here - 1.0 }));
        }
        let there = self.labels[other].sort_order;
        let mid = (here + there) / 2.0;
        Ok((mid != here && mid != there).then_some(mid))
    }

    /// The rank for a label at `pos`.
    fn new_rank(&self, pos: Position) -> Result<Vec<u8>, DbError> {
        let rank = |i: usize| self.labels.get(i).map(|l| l.rank.as_slice());
        Ok(match pos {
            Position::End => rank_after(rank(self.labels.len().wrapping_sub(1)).unwrap_or(&[])),
            Position::Before(name) => {
                let at = self.neighbour(name)?;
                rank_between(rank(at.wrapping_sub(1)).unwrap_or(&[]), rank(at))
            }
            Position::After(name) => {
                let at = self.neighbour(name)?;
                match rank(at + 1) {
                    Some(next) => rank_between(&self.labels[at].rank, Some(next)),
                    None => rank_after(&self.labels[at].rank),
                }
            }
        })
    }

    /// PostgreSQL's RenumberEnumType: sort orders become 1..n.
    fn renumber(&mut self) {
        for (i, l) in self.labels.iter_mut().enumerate() {
            l.sort_order = (i + 1) as f32;
        }
    }

    /// ALTER TYPE ... RENAME VALUE.
    pub fn rename_label(&mut self, from: &str, to: &str) -> Result<(), DbError> {
        check_label(to)?;
        let at = self.neighbour(from)?;
        if self.label(to).is_some() {
            return Err(DbError::new(
                SqlState::DuplicateObject,
                format!("enum label \"{to}\" already exists"),
            ));
        }
        self.labels[at].label = to.to_string();
        Ok(())
    }
}

/// A rank above `r`, short: its first digit plus one, or (at 255) 255
/// followed by a rank above the rest.
pub fn rank_after(r: &[u8]) -> Vec<u8> {
    match r.first() {
        None => vec![1],
        Some(&d) if d < 255 => vec![d + 1],
        Some(_) => {
            let mut out = vec![255];
            out.extend(rank_after(&r[1..]));
            out
        }
    }
}

/// A rank strictly between `lo` and `hi` (None: above everything), for
/// `lo < hi`. Both are base-256 fractions without trailing zero digits;
/// so is the result.
pub fn rank_between(lo: &[u8], hi: Option<&[u8]>) -> Vec<u8> {
    assert!(hi.is_none_or(|h| lo < h), "rank_between: empty interval");
    let mut out = Vec::new();
    let mut hi = hi;
    let mut i = 0;
    loop {
        let a = u16::from(lo.get(i).copied().unwrap_or(0));
        let b = hi.map_or(256, |h| u16::from(h.get(i).copied().unwrap_or(0)));
        assert!(a <= b, "rank_between: bounds out of order");
        if b - a > 1 {
            out.push(((a + b) / 2) as u8);
            return out;
        }
        out.push(a as u8);
        if b > a {
            hi = None; // out now sorts below hi whatever follows
        }
        i += 1;
    }
}

/// What the value layer knows of one enum type.
struct Entry {
    def: Arc<EnumDef>,
    /// The database the type belongs to (its name resolves there only).
    database: u32,
    /// The type's name, leaked once per distinct name (DataType::name is
    /// `&'static str`; types are few).
    name: &'static str,
    array_name: &'static str,
}

/// What a label OID stands for: (its type's OID, its rank, its text).
type LabelEntry = (u32, Arc<[u8]>, Arc<str>);

#[derive(Default)]
struct Registry {
    types: HashMap<u32, Entry>,
    labels: HashMap<u32, LabelEntry>,
    names: HashMap<String, &'static str>,
    /// Labels added by ALTER TYPE ... ADD VALUE in a transaction that has
    /// not committed yet (PostgreSQL's uncommitted_enums).
    pending: std::collections::HashSet<u32>,
    elements: HashMap<u32, &'static DataType>,
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

impl Registry {
    fn leak_name(&mut self, name: &str) -> &'static str {
        if let Some(n) = self.names.get(name) {
            return n;
        }
        let n: &'static str = Box::leak(name.to_string().into_boxed_str());
        self.names.insert(name.to_string(), n);
        n
    }
}

/// Install (create or replace) a definition in the current thread's
/// database (see [`crate::database_scope`]).
pub fn install(def: Arc<EnumDef>) {
    install_in(crate::database_scope::current(), def)
}

/// Install (create or replace) a definition of database `database`.
pub fn install_in(database: u32, def: Arc<EnumDef>) {
    let mut r = write();
    let name = r.leak_name(&def.name);
    let array_name = r.leak_name(&format!("{}[]", def.name));
    for l in &def.labels {
        r.labels.insert(
            l.oid,
            (
                def.oid,
                Arc::from(l.rank.as_slice()),
                Arc::from(l.label.as_str()),
            ),
        );
    }
    r.elements
        .entry(def.oid)
        .or_insert_with(|| Box::leak(Box::new(DataType::Enum(def.oid))));
    r.types.insert(
        def.oid,
        Entry {
            def,
            database,
            name,
            array_name,
        },
    );
}

/// Forget a type (its labels stay known, so values still print).
pub fn remove(oid: u32) {
    write().types.remove(&oid);
}

/// The OID of the enum type `name` (`public.` allowed) of the current
/// thread's database.
pub fn by_name(name: &str) -> Option<u32> {
    let bare = name.strip_prefix("public.").unwrap_or(name);
    let db = crate::database_scope::current();
    read()
        .types
        .values()
        .find(|e| e.database == db && e.def.name == bare)
        .map(|e| e.def.oid)
}

/// The definition of the type `oid`.
pub fn lookup(oid: u32) -> Option<Arc<EnumDef>> {
    read().types.get(&oid).map(|e| e.def.clone())
}

/// The type's name (`?` for an unknown OID).
pub fn type_name(oid: u32) -> &'static str {
    read().types.get(&oid).map_or("???", |e| e.name)
}

/// The array type's name (`mood[]`).
pub fn array_name(oid: u32) -> &'static str {
    read().types.get(&oid).map_or("???", |e| e.array_name)
}

pub fn array_oid(oid: u32) -> u32 {
    read().types.get(&oid).map_or(0, |e| e.def.array_oid)
}

/// The type with pg_type OID `oid`: the enum or its array.
pub fn type_for_oid(oid: u32) -> Option<DataType> {
    let r = read();
    if r.types.contains_key(&oid) {
        return Some(DataType::Enum(oid));
    }
    r.types
        .values()
        .find(|e| e.def.array_oid == oid)
        .and_then(|e| r.elements.get(&e.def.oid))
        .map(|e| DataType::Array(e))
}

/// The interned `&'static DataType::Enum(oid)` (an array's element).
pub fn element(oid: u32) -> Option<&'static DataType> {
    read().elements.get(&oid).copied()
}

/// The label text of a label OID.
pub fn label_text(label: u32) -> Arc<str> {
    read()
        .labels
        .get(&label)
        .map_or_else(|| Arc::from(format!("{label}")), |l| l.2.clone())
}

/// The rank of a label OID (see the module doc; empty for an unknown
/// one).
pub fn rank(label: u32) -> Arc<[u8]> {
    read()
        .labels
        .get(&label)
        .map_or_else(|| Arc::from(&[][..]), |l| l.1.clone())
}

/// The type OID of a label OID.
pub fn label_type(label: u32) -> Option<u32> {
    read().labels.get(&label).map(|l| l.0)
}

/// The label `label` was added by a transaction still open.
pub fn mark_pending(label: u32) {
    write().pending.insert(label);
}

/// The labels of type `oid` are committed (or rolled back): no longer
/// pending.
pub fn clear_pending(labels: impl IntoIterator<Item = u32>) {
    let mut r = write();
    for l in labels {
        r.pending.remove(&l);
    }
}

/// 55P04 for a label whose ADD VALUE has not committed yet.
pub fn check_safe(label: u32) -> Result<(), DbError> {
    let r = read();
    if !r.pending.contains(&label) {
        return Ok(());
    }
    let (ty, _, text) = r
        .labels
        .get(&label)
        .cloned()
        .expect("pending labels are known");
    let name = r.types.get(&ty).map_or("???", |e| e.name);
    Err(DbError::new(
        SqlState::UnsafeNewEnumValueUsage,
        format!("unsafe use of new value \"{text}\" of enum type {name}"),
    )
    .with_hint("New enum values must be committed before they can be used."))
}

/// enum_in: the value of `input` in type `oid` (22P02 if no such label).
pub fn parse(oid: u32, input: &str) -> Result<Value, DbError> {
    let r = read();
    let Some(e) = r.types.get(&oid) else {
        return Err(DbError::new(
            SqlState::UndefinedObject,
            format!("type with OID {oid} does not exist"),
        ));
    };
    let found = e.def.label(input).map(|l| l.oid);
    drop(r);
    match found {
        Some(l) => {
            check_safe(l)?;
            Ok(Value::Enum(l))
        }
        None => Err(DbError::new(
            SqlState::InvalidTextRepresentation,
            format!(
                "invalid input value for enum {}: \"{}\"",
                type_name(oid),
                input
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(labels: &[&str]) -> EnumDef {
        EnumDef::new(
            1,
            2,
            "t",
            labels
                .iter()
                .enumerate()
                .map(|(i, l)| (10 + i as u32, l.to_string()))
                .collect(),
        )
    }

    fn orders(d: &EnumDef) -> Vec<(String, f32)> {
        d.labels
            .iter()
            .map(|l| (l.label.clone(), l.sort_order))
            .collect()
    }

    #[test]
    fn sort_orders_follow_postgres() {
        let mut d = def(&["a", "c"]);
        d.add_label(20, "b", Position::Before("c")).unwrap();
        d.add_label(21, "z", Position::Before("a")).unwrap();
        d.add_label(22, "e", Position::End).unwrap();
        d.add_label(23, "d", Position::After("e")).unwrap();
        assert_eq!(
            orders(&d),
            vec![
                ("z".into(), 0.0),
                ("a".into(), 1.0),
                ("b".into(), 1.5),
                ("c".into(), 2.0),
                ("e".into(), 3.0),
                ("d".into(), 4.0)
            ]
        );
        let e = d.add_label(24, "q", Position::After("nope")).unwrap_err();
        assert_eq!(e.message, "\"nope\" is not an existing enum label");
    }

    #[test]
    fn renumbers_when_float4_runs_out() {
        let mut d = def(&["a", "b"]);
        for i in 0..40 {
            d.add_label(100 + i, &format!("x{i}"), Position::Before("b"))
                .unwrap();
        }
        let order: Vec<f32> = d.labels.iter().map(|l| l.sort_order).collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
        assert_eq!(d.labels.last().unwrap().label, "b");
        assert_eq!(d.labels[1].label, "x0");
        let ranks: Vec<&[u8]> = d.labels.iter().map(|l| l.rank.as_slice()).collect();
        assert!(ranks.windows(2).all(|w| w[0] < w[1]), "{ranks:?}");
    }

    #[test]
    fn ranks_fit_between_anything() {
        assert_eq!(rank_between(&[1], Some(&[2])), vec![1, 128]);
        assert_eq!(rank_between(&[], Some(&[1])), vec![0, 128]);
        assert_eq!(rank_between(&[1, 255], Some(&[2])), vec![1, 255, 128]);
        assert_eq!(rank_after(&[255, 3]), vec![255, 4]);
        let (mut lo, hi) = (vec![1u8], vec![1u8, 1]);
        for _ in 0..100 {
            let m = rank_between(&lo, Some(&hi));
            assert!(lo < m && m < hi && m.last() != Some(&0), "{lo:?} {m:?}");
            lo = m;
        }
    }

    #[test]
    fn labels_are_checked() {
        let long = "x".repeat(64);
        let mut d = def(&["a"]);
        let e = d.add_label(5, &long, Position::End).unwrap_err();
        assert_eq!(e.code, SqlState::InvalidName);
        assert_eq!(
            d.rename_label("a", "a").unwrap_err().code,
            SqlState::DuplicateObject
        );
        d.rename_label("a", "b").unwrap();
        assert_eq!(d.labels[0].label, "b");
    }
}
