//! Declarative partitioning: a partitioned table's key and a partition's
//! bound, as the catalog keeps them, and the few pure questions asked of
//! them (does a key fall inside a bound, do two bounds overlap, how does
//! PostgreSQL print them).
//!
//! A partitioned table (`CREATE TABLE p (...) PARTITION BY RANGE (a)`) is
//! an ordinary [`crate::TableDef`] with a [`PartitionKey`]: its storage
//! stays empty, rows live in its partitions. A partition is a table whose
//! `inherits` is its one parent and which has a [`PartitionBound`], so
//! everything table inheritance does (the parent reads as an Append of its
//! members, UPDATE/DELETE/TRUNCATE go down the tree, pg_inherits) applies
//! unchanged; what partitioning adds is routing (INSERT and COPY into the
//! parent put each row into the one leaf whose bound holds its key) and
//! the partition constraint (a row written into a partition must be
//! inside its bound). Routing and pruning are planned in
//! `nestor_plan::select::partition`; the DDL is `nestor_exec::ddl::partition`.
//!
//! ```text
//!   p  PARTITION BY RANGE (a)      key: Range, columns [0]
//!   p1 FOR VALUES FROM (1) TO (10)    Range { from: [V(1)], to: [V(10)] }
//!   p2 FOR VALUES FROM (10) TO (MAXVALUE)
//!   key (5)  -> p1      key (10) -> p2      key (NULL) -> none (default)
//! ```
//!
//! Range keys compare as PostgreSQL's partition_rbound_datum_cmp: column
//! by column, MINVALUE below and MAXVALUE above every value; the lower
//! bound is inclusive, the upper exclusive. Hash partitions use
//! PostgreSQL's own hash functions ([`nestor_types::hash_fns`], lookup3) with
//! its partition seed, so a row lands in the same partition as on
//! PostgreSQL; only integer, text-like and boolean keys can be hashed.
//! A hash key element may name a user operator class
//! ([`PartitionKey::opclasses`], [`crate::opclass`]): its values are
//! hashed by the class's support function, which only the executor can
//! call, so such keys are hashed through [`row_hash_by`] (routing and
//! partition constraints in `nestor_plan::select::partition`), never by
//! [`PartitionBound::contains`]. Left out: user btree operator classes
//! and collations other than the bytewise ones.

use std::cmp::Ordering;

use nestor_types::datatype::DataType;
use nestor_types::{EvalCtx, Value};

/// PARTITION BY's strategy (pg_partitioned_table.partstrat).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartStrategy {
    Range,
    List,
    Hash,
}

impl PartStrategy {
    /// The pg_partitioned_table.partstrat letter.
    pub fn letter(self) -> char {
        match self {
            PartStrategy::Range => 'r',
            PartStrategy::List => 'l',
            PartStrategy::Hash => 'h',
        }
    }

    pub fn from_letter(c: u8) -> Option<PartStrategy> {
        match c {
            b'r' => Some(PartStrategy::Range),
            b'l' => Some(PartStrategy::List),
            b'h' => Some(PartStrategy::Hash),
            _ => None,
        }
    }

    pub fn keyword(self) -> &'static str {
        match self {
            PartStrategy::Range => "RANGE",
            PartStrategy::List => "LIST",
            PartStrategy::Hash => "HASH",
        }
    }
}

/// One element of a partition key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyPart {
    /// A column (its position in the table's columns).
    Column(usize),
    /// An expression over the table's row (`(a + 1)`, `lower(b)`).
    Expr(KeyExpr),
}

/// A key expression as the catalog keeps it: SQL text in the deparser's
/// form (bound against the row of whichever table of the tree is being
/// routed or checked: partitions have their parent's column names), its
/// type, and the columns it reads (a column a key reads may not be
/// dropped or retyped).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyExpr {
    pub sql: String,
    pub ty: DataType,
    pub columns: Vec<usize>,
}

/// A partitioned table's key: its strategy, its elements and, per
/// element, the collation named by an explicit COLLATE (None: the type's
/// own; Nestor compares strings bytewise, so only "C"-like collations
/// are accepted).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionKey {
    pub strategy: PartStrategy,
    pub parts: Vec<KeyPart>,
    pub collations: Vec<Option<String>>,
    /// Per element, the user operator class named (its OID; None: the
    /// type's default class). Only hash keys take one
    /// ([`crate::opclass`]).
    pub opclasses: Vec<Option<u32>>,
}

impl PartitionKey {
    /// A key of plain columns with their default collations.
    pub fn of_columns(strategy: PartStrategy, columns: Vec<usize>) -> PartitionKey {
        let collations = vec![None; columns.len()];
        let opclasses = vec![None; columns.len()];
        PartitionKey {
            strategy,
            parts: columns.into_iter().map(KeyPart::Column).collect(),
            collations,
            opclasses,
        }
    }

    /// Whether every element is a plain column (the common case: keys
    /// are then read straight from the row).
    pub fn is_plain(&self) -> bool {
        self.parts.iter().all(|p| matches!(p, KeyPart::Column(_)))
    }

    /// Whether some element names a user operator class.
    pub fn has_user_opclass(&self) -> bool {
        self.opclasses.iter().any(Option::is_some)
    }

    /// Whether column `c` is a key column or read by a key expression.
    pub fn uses_column(&self, c: usize) -> bool {
        self.parts.iter().any(|p| match p {
            KeyPart::Column(k) => *k == c,
            KeyPart::Expr(e) => e.columns.contains(&c),
        })
    }

    /// The type of element `i` over `columns`.
    pub fn part_type(&self, i: usize, columns: &[crate::Column]) -> DataType {
        match &self.parts[i] {
            KeyPart::Column(c) => columns[*c].ty,
            KeyPart::Expr(e) => e.ty,
        }
    }
}

/// One value of a range bound.
#[derive(Clone, Debug, PartialEq)]
pub enum RangeDatum {
    MinValue,
    Value(Value),
    MaxValue,
}

/// A partition's bound (pg_class.relpartbound).
#[derive(Clone, Debug, PartialEq)]
pub enum PartitionBound {
    Default,
    /// The values (NULL for a partition that takes NULL keys).
    List(Vec<Value>),
    Range {
        from: Vec<RangeDatum>,
        to: Vec<RangeDatum>,
    },
    Hash {
        modulus: u32,
        remainder: u32,
    },
}

fn cmp_value(a: &Value, b: &Value) -> Ordering {
    match nestor_types::ops::compare(a, b) {
        Ok(Some(o)) => o,
        _ => a.cmp(b),
    }
}

/// A key against a range bound (PostgreSQL's partition_rbound_datum_cmp):
/// Less when the key sorts before the bound.
pub fn cmp_key_bound(key: &[Value], bound: &[RangeDatum]) -> Ordering {
    for (k, b) in key.iter().zip(bound) {
        match b {
            RangeDatum::MinValue => return Ordering::Greater,
            RangeDatum::MaxValue => return Ordering::Less,
            RangeDatum::Value(v) => match cmp_value(k, v) {
                Ordering::Equal => {}
                o => return o,
            },
        }
    }
    Ordering::Equal
}

/// Two range bounds (`a` lower or upper, `b` likewise) as PostgreSQL's
/// partition_rbound_cmp orders them: by datums, MINVALUE/MAXVALUE ending
/// the comparison; equal datums put an upper bound before a lower one.
/// Also returns the 1-based column where they first differed.
pub fn cmp_bounds(
    a: &[RangeDatum],
    a_lower: bool,
    b: &[RangeDatum],
    b_lower: bool,
) -> (Ordering, usize) {
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let o = match (x, y) {
            (RangeDatum::MinValue, RangeDatum::MinValue)
            | (RangeDatum::MaxValue, RangeDatum::MaxValue) => {
                // Both infinite the same way: the rest does not matter.
                return (lower_order(a_lower, b_lower), i + 1);
            }
            (RangeDatum::MinValue, _) | (_, RangeDatum::MaxValue) => Ordering::Less,
            (RangeDatum::MaxValue, _) | (_, RangeDatum::MinValue) => Ordering::Greater,
            (RangeDatum::Value(v), RangeDatum::Value(w)) => cmp_value(v, w),
        };
        if o != Ordering::Equal {
            return (o, i + 1);
        }
    }
    (lower_order(a_lower, b_lower), a.len())
}

fn lower_order(a_lower: bool, b_lower: bool) -> Ordering {
    match (a_lower, b_lower) {
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => Ordering::Equal,
    }
}

/// PostgreSQL's HASH_PARTITION_SEED.
const HASH_PARTITION_SEED: u64 = 0x7A5B_2236_7996_DCFD;

/// The extended hash of one key value as PostgreSQL's default hash
/// operator class computes it ([`nestor_types::hash_fns`]); None for a
/// type Nestor cannot hash alike.
pub fn hash_value(v: &Value) -> Option<u64> {
    nestor_types::hash_fns::hash_value_extended(v, v.data_type(), HASH_PARTITION_SEED)
}

/// PostgreSQL's hash_combine64.
fn hash_combine64(a: u64, b: u64) -> u64 {
    a ^ b
        .wrapping_add(0x49a0_f4dd_15e5_a8e3)
        .wrapping_add(a << 54)
        .wrapping_add(a >> 7)
}

/// The row hash of a key (compute_partition_hash_value; NULLs are
/// skipped); None if some value's type cannot be hashed.
pub fn row_hash(key: &[Value]) -> Option<u64> {
    let mut h = 0u64;
    for v in key {
        if !v.is_null() {
            h = hash_combine64(h, hash_value(v)?);
        }
    }
    Some(h)
}

/// The row hash of a key with each non-NULL value hashed by `hash`
/// (given its element's position): compute_partition_hash_value with
/// the operator classes' functions; None if some value cannot be hashed.
pub fn row_hash_by<E>(
    key: &[Value],
    mut hash: impl FnMut(usize, &Value) -> Result<Option<u64>, E>,
) -> Result<Option<u64>, E> {
    let mut h = 0u64;
    for (i, v) in key.iter().enumerate() {
        if !v.is_null() {
            match hash(i, v)? {
                Some(x) => h = hash_combine64(h, x),
                None => return Ok(None),
            }
        }
    }
    Ok(Some(h))
}

/// Whether a key type can be hashed as PostgreSQL does.
pub fn hashable(ty: nestor_types::datatype::DataType) -> bool {
    use nestor_types::datatype::DataType as T;
    matches!(
        ty,
        T::Int2
            | T::Int4
            | T::Int8
            | T::Text
            | T::Varchar(_)
            | T::Name
            | T::Bool
            | T::Date
            | T::Bytea
            | T::Uuid
            | T::Timestamp(_)
            | T::TimestampTz(_)
            | T::Time(_)
            | T::TimeTz(_)
    )
}

impl PartitionBound {
    /// Whether a (non-default) bound holds `key` under strategy `s`.
    /// A default bound holds nothing by itself (routing falls back to it).
    pub fn contains(&self, key: &[Value]) -> bool {
        match self {
            PartitionBound::Default => false,
            PartitionBound::List(vals) => {
                let k = &key[0];
                vals.iter().any(|v| {
                    if k.is_null() {
                        v.is_null()
                    } else {
                        !v.is_null() && cmp_value(k, v) == Ordering::Equal
                    }
                })
            }
            PartitionBound::Range { from, to } => {
                if key.iter().any(|v| v.is_null()) {
                    return false;
                }
                cmp_key_bound(key, from) != Ordering::Less
                    && cmp_key_bound(key, to) == Ordering::Less
            }
            PartitionBound::Hash { .. } => row_hash(key).is_some_and(|h| self.holds_hash(h)),
        }
    }

    /// Whether a hash bound holds a key of row hash `h` (false for any
    /// other bound).
    pub fn holds_hash(&self, h: u64) -> bool {
        match self {
            PartitionBound::Hash { modulus, remainder } => {
                h % u64::from(*modulus) == u64::from(*remainder)
            }
            _ => false,
        }
    }

    /// Whether two bounds of the same table overlap (neither a default).
    pub fn overlaps(&self, other: &PartitionBound) -> bool {
        match (self, other) {
            (PartitionBound::List(a), PartitionBound::List(b)) => a.iter().any(|x| {
                b.iter().any(|y| {
                    (x.is_null() && y.is_null())
                        || (!x.is_null() && !y.is_null() && cmp_value(x, y) == Ordering::Equal)
                })
            }),
            (
                PartitionBound::Range { from: f1, to: t1 },
                PartitionBound::Range { from: f2, to: t2 },
            ) => {
                cmp_bounds(f1, true, t2, false).0 == Ordering::Less
                    && cmp_bounds(f2, true, t1, false).0 == Ordering::Less
            }
            (
                PartitionBound::Hash {
                    modulus: m1,
                    remainder: r1,
                },
                PartitionBound::Hash {
                    modulus: m2,
                    remainder: r2,
                },
            ) => {
                let (small, big) = if m1 <= m2 {
                    ((m1, r1), (m2, r2))
                } else {
                    ((m2, r2), (m1, r1))
                };
                big.1 % small.0 == *small.1
            }
            _ => false,
        }
    }

    /// PostgreSQL's text (`pg_get_expr(relpartbound, oid)`).
    pub fn to_sql(&self, ec: &EvalCtx) -> String {
        match self {
            PartitionBound::Default => "DEFAULT".into(),
            PartitionBound::List(vals) => {
                let v: Vec<String> = vals.iter().map(|v| literal(v, ec)).collect();
                format!("FOR VALUES IN ({})", v.join(", "))
            }
            PartitionBound::Range { from, to } => format!(
                "FOR VALUES FROM {} TO {}",
                range_text(from, ec),
                range_text(to, ec)
            ),
            PartitionBound::Hash { modulus, remainder } => {
                format!("FOR VALUES WITH (modulus {modulus}, remainder {remainder})")
            }
        }
    }
}

/// The order PostgreSQL keeps a table's partitions in (its
/// PartitionBoundInfo order: scans and `\d+` follow it): range partitions
/// by lower bound, list partitions by their least value (one holding only
/// NULL after them), hash partitions by modulus and remainder, the
/// default last.
pub fn bound_order(a: &PartitionBound, b: &PartitionBound) -> Ordering {
    use PartitionBound as B;
    match (a, b) {
        (B::Default, B::Default) => Ordering::Equal,
        (B::Default, _) => Ordering::Greater,
        (_, B::Default) => Ordering::Less,
        (B::Range { from: x, .. }, B::Range { from: y, .. }) => cmp_bounds(x, true, y, true).0,
        (B::List(x), B::List(y)) => {
            let least = |l: &[Value]| -> Option<Value> {
                l.iter()
                    .filter(|v| !v.is_null())
                    .min_by(|p, q| cmp_value(p, q))
                    .cloned()
            };
            match (least(x), least(y)) {
                (Some(p), Some(q)) => cmp_value(&p, &q),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            }
        }
        (
            B::Hash {
                modulus: m1,
                remainder: r1,
            },
            B::Hash {
                modulus: m2,
                remainder: r2,
            },
        ) => (m1, r1).cmp(&(m2, r2)),
        _ => Ordering::Equal,
    }
}

/// A range bound's datums as PostgreSQL prints them: `(1, MAXVALUE)`.
pub fn range_text(b: &[RangeDatum], ec: &EvalCtx) -> String {
    let v: Vec<String> = b
        .iter()
        .map(|d| match d {
            RangeDatum::MinValue => "MINVALUE".into(),
            RangeDatum::MaxValue => "MAXVALUE".into(),
            RangeDatum::Value(v) => literal(v, ec),
        })
        .collect();
    format!("({})", v.join(", "))
}

/// A constant as ruleutils' get_const_expr prints it without its type:
/// non-negative int4 and numeric with a point bare, booleans as words,
/// everything else quoted.
pub fn literal(v: &Value, ec: &EvalCtx) -> String {
    match v {
        Value::Null => "NULL".into(),
        Value::Bool(b) => (if *b { "true" } else { "false" }).to_string(),
        Value::Int4(i) if *i >= 0 => i.to_string(),
        Value::Numeric(_) => {
            let s = v.to_text(ec);
            if s.starts_with(|c: char| c.is_ascii_digit()) && s.contains(['e', 'E', '.']) {
                s
            } else {
                quote(&s)
            }
        }
        _ => quote(&v.to_text(ec)),
    }
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_match_postgresql() {
        // Where PostgreSQL 15 puts these keys among 4 (int) and 3 (text)
        // hash partitions (satisfies_hash_partition agrees).
        let rem = |v: Value, m: u64| row_hash(&[v]).unwrap() % m;
        let ints: Vec<u64> = (1..=12).map(|i| rem(Value::Int4(i), 4)).collect();
        assert_eq!(ints, [0, 2, 1, 3, 1, 3, 3, 1, 1, 3, 1, 0]);
        let text = |s: &str| rem(Value::Text(s.into()), 3);
        assert_eq!(text("apple"), 2);
        assert_eq!(text("banana"), 0);
        assert_eq!(text("a much longer text value here"), 0);
        assert_eq!(text("abcdefghijkl"), 1);
        assert_eq!(text("abcdefghijklm"), 1);
        assert_eq!(text(""), 2);
        // NULL keys hash to 0.
        assert_eq!(row_hash(&[Value::Null]), Some(0));
    }

    #[test]
    fn hashes_by_an_operator_class_function() {
        // insert.sql's part_test_int4_ops hashes a value as value + seed:
        // PostgreSQL puts 12 and 16 in remainder 0 of 4, 11 in 3.
        let seed = 0x7A5B_2236_7996_DCFD_u64;
        let by_class = |key: &[Value]| {
            row_hash_by(key, |_, v| match v {
                Value::Int4(i) => Ok::<_, ()>(Some((i64::from(*i) as u64).wrapping_add(seed))),
                _ => Ok(hash_value(v)),
            })
            .unwrap()
            .unwrap()
        };
        let hash4 = PartitionBound::Hash {
            modulus: 4,
            remainder: 0,
        };
        assert!(hash4.holds_hash(by_class(&[Value::Int4(12)])));
        assert!(hash4.holds_hash(by_class(&[Value::Int4(16)])));
        assert_eq!(by_class(&[Value::Int4(11)]) % 4, 3);
        // NULLs are skipped; a value without a hash makes none.
        assert_eq!(by_class(&[Value::Null, Value::Null]), 0);
        let none = row_hash_by(&[Value::Int4(1)], |_, _| Ok::<_, ()>(None));
        assert_eq!(none, Ok(None));
        assert!(!PartitionBound::Default.holds_hash(0));
    }

    #[test]
    fn range_bounds() {
        let b = PartitionBound::Range {
            from: vec![RangeDatum::Value(Value::Int4(1))],
            to: vec![RangeDatum::Value(Value::Int4(10))],
        };
        assert!(b.contains(&[Value::Int4(1)]));
        assert!(b.contains(&[Value::Int4(9)]));
        assert!(!b.contains(&[Value::Int4(10)]));
        assert!(!b.contains(&[Value::Null]));
        let c = PartitionBound::Range {
            from: vec![RangeDatum::Value(Value::Int4(10))],
            to: vec![RangeDatum::MaxValue],
        };
        assert!(!b.overlaps(&c));
        let d = PartitionBound::Range {
            from: vec![RangeDatum::Value(Value::Int4(5))],
            to: vec![RangeDatum::Value(Value::Int4(15))],
        };
        assert!(b.overlaps(&d) && c.overlaps(&d));
    }
}
