//! Ordered indexes: a B-tree of byte-string keys, each the key columns'
//! values in sortable form followed by the row id (see [`crate::codec`]).
//!
//! Byte order is `Value`'s total order (NULLs last) for a column of the
//! default order (see "Key order" below for the others), so lookups are
//! memcmp descents and a bound that names only the first k key columns is a byte
//! prefix. Several entries may share key values (old and new rows of a
//! unique key while the old one's deletion is not yet prunable); readers
//! resolve each entry against the row's visible version.
//!
//! Key order: a key column declared DESC or NULLS FIRST (CREATE INDEX's
//! options) has its own sortable form ([`codec::put_key_ordered`]), so
//! the entries lie in the declared order and a forward walk is the
//! declared order, a backward walk its exact reverse. Every path makes
//! a column's key bytes through the index ([`Index::put_key`]); value
//! bounds are in a column's ascending value order, and a DESC column's
//! swap sides when they become byte bounds ([`ByteBounds::new`]).
//!
//! ```text
//!   (a DESC NULLS LAST): 3, 2, 1, NULL     bytes ~key(3) < ~key(1) < FF
//!   WHERE a > 1  ->  value bounds (1, ∞)  ->  byte bounds [start, ~key(1))
//! ```
//!
//! Scans walk the entries in key order ([`visit_range`]) or, for a
//! range scan read in batches (`Table::index_scan_batch_into`), either way
//! from a resume entry ([`visit_range_from`]).
//!
//! Plain indexes key on table columns (`columns`) and read them straight
//! from a version's stored bytes. Expression and partial indexes
//! (`CREATE INDEX ON t (lower(b)) WHERE a > 10`) are *computed*: their keys
//! come from an [`IndexKeys`] the SQL layer binds (storage evaluates no
//! SQL), which maps a table row to its key values, or to None when a
//! partial index's predicate does not hold for the row. Every path that
//! needs a key asks the [`Index`] for it, and a row outside the predicate
//! has the empty key: no entry is ever made for it, and comparing keys of
//! two versions (did an UPDATE change the key?) works unchanged. The plain
//! path stays as it was: one branch on `computed`, no allocation or
//! dynamic call added.
//!
//! ```text
//!   t_lower_idx (computed: lower(b) WHERE a > 10)
//!   row (11,'ABC') -> keys ['abc']  -> entry key('abc')+row
//!   row (5,'XYZ')  -> None          -> empty key: no entry
//! ```
//!
//! A GIN index is computed and *multi-key*: its key function returns a
//! row's set of GIN keys (each a bytea value, sorted and distinct), and
//! the "key bytes" of a row are their sortable forms concatenated. Every
//! path that compares two versions' keys (did an UPDATE change them?)
//! compares these blobs unchanged; the few that add, remove or match
//! entries split the blob ([`split_keys`]) and make one entry per key
//! (`multi`, one branch on the plain path). An empty set is no entry.
//!
//! ```text
//!   docs_body_idx (gin, jsonb_ops)
//!   row {"a": 1} -> keys [K"a", N1] -> entries K"a"+row, N1+row
//! ```
//!
//! The binding is installed after the index object is made
//! ([`Index::set_keys`]): at CREATE INDEX, and when the catalog installs
//! a table from a record (recovery, replicas), through the catalog's
//! binding hook. A computed index used before that has no keys (inserts
//! fail with XX000 rather than index a row wrongly).

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::ops::Bound;
use std::sync::{Arc, OnceLock};

use nestor_common::{DbError, RelId, RowId};
use nestor_types::Value;
use parking_lot::RwLock;

use crate::codec::{self, Key, KeyOrder};

/// How a computed (expression or partial) index gets a row's key.
pub trait IndexKeys: Send + Sync {
    /// The key values of `row` (a table row as written; a stored row may
    /// be shorter, missing only columns added after the index), or None
    /// when a partial index's predicate is not true for it. Errors are
    /// the expression's (a division by zero in the key fails the write).
    fn keys(&self, row: &[Value]) -> Result<Option<Vec<Value>>, DbError>;

    /// The keys as the 23505 DETAIL names them (`lower(b)`, `((a + 1))`).
    fn names(&self) -> &[String];
}

pub struct Index {
    pub id: RelId,
    /// The index's current name (for the 23505 message): the catalog
    /// keeps it in step with RENAME and ADD CONSTRAINT USING INDEX
    /// ([`Index::set_name`]).
    name: RwLock<String>,
    /// Positions of the key columns in the table's rows (empty for a
    /// computed index).
    pub columns: Vec<usize>,
    /// Names of the key columns, or the key expressions' text (for the
    /// 23505 DETAIL).
    pub column_names: Vec<String>,
    pub unique: bool,
    pub primary: bool,
    /// A unique index whose NULL keys conflict too (`NULLS NOT DISTINCT`,
    /// PostgreSQL 15): a key with a NULL is checked like any other.
    pub nulls_not_distinct: bool,
    pub(crate) entries: RwLock<BTreeSet<Key>>,
    /// Expression and partial indexes: the bound key function (set once,
    /// see the module header); None for a plain index.
    computed: Option<OnceLock<Arc<dyn IndexKeys>>>,
    /// The value of each table column (as of the index's creation) in a
    /// stored row written before that column was added (ALTER TABLE ADD
    /// COLUMN: NULL, or the ADD's DEFAULT); None when every column the
    /// index reads was there when the table's oldest row was written. A
    /// row shorter than this is padded before its key is taken
    /// ([`Index::full_row`]).
    fill: Option<Arc<[Value]>>,
    /// A GIN index: the key function returns a set of keys, one entry
    /// each (module header).
    multi: bool,
    /// How each key column sorts, when some column is not ASC NULLS
    /// LAST (None: every one is, the plain key form). See "Key order"
    /// in the module header.
    order: Option<Arc<[KeyOrder]>>,
}

impl Index {
    pub fn new(
        id: RelId,
        name: &str,
        columns: Vec<usize>,
        column_names: Vec<String>,
        unique: bool,
        primary: bool,
    ) -> Index {
        assert_eq!(columns.len(), column_names.len());
        assert!(!columns.is_empty(), "an index needs a key column");
        Index {
            id,
            name: RwLock::new(name.to_string()),
            columns,
            column_names,
            unique,
            primary,
            nulls_not_distinct: false,
            entries: RwLock::new(BTreeSet::new()),
            computed: None,
            fill: None,
            multi: false,
            order: None,
        }
    }

    /// A computed (expression or partial) index; `key_names` are its keys
    /// as the 23505 DETAIL names them (`lower(b)`). Its key function is
    /// installed with [`Index::set_keys`].
    pub fn computed(id: RelId, name: &str, key_names: Vec<String>, unique: bool) -> Index {
        assert!(!key_names.is_empty(), "an index needs a key column");
        Index {
            id,
            name: RwLock::new(name.to_string()),
            columns: Vec::new(),
            column_names: key_names,
            unique,
            primary: false,
            nulls_not_distinct: false,
            entries: RwLock::new(BTreeSet::new()),
            computed: Some(OnceLock::new()),
            fill: None,
            multi: false,
            order: None,
        }
    }

    /// The index's current name.
    pub fn name(&self) -> String {
        self.name.read().clone()
    }

    /// Follow a rename of the index in the catalog.
    pub fn set_name(&self, name: &str) {
        if *self.name.read() != name {
            *self.name.write() = name.to_string();
        }
    }

    /// The same index with NULLS NOT DISTINCT set (`on`) or not.
    pub fn with_nulls_not_distinct(mut self, on: bool) -> Index {
        self.nulls_not_distinct = on;
        self
    }

    /// The same index as a multi-key (GIN) one: its key function's
    /// values are each a key of their own (module header).
    pub fn with_multi(mut self, on: bool) -> Index {
        self.multi = on;
        self
    }

    /// The same index with its key columns sorting as `order` (one per
    /// key column; an empty or all-default list is the plain order).
    pub fn with_order(mut self, order: &[KeyOrder]) -> Index {
        self.order = order
            .iter()
            .any(|o| !o.is_default())
            .then(|| Arc::from(order));
        self
    }

    /// How key column `k` sorts.
    pub fn key_order(&self, k: usize) -> KeyOrder {
        self.order
            .as_ref()
            .and_then(|o| o.get(k).copied())
            .unwrap_or_default()
    }

    /// Append key column `k`'s value `v` in its sortable form.
    #[inline]
    fn put_key(&self, k: usize, v: &Value, out: &mut Vec<u8>) {
        match &self.order {
            None => codec::put_key_value(v, out),
            Some(o) => codec::put_key_ordered(v, o.get(k).copied().unwrap_or_default(), out),
        }
    }

    /// The byte bounds of value bounds on a key prefix (see
    /// [`ByteBounds::new`]), in this index's key order.
    pub(crate) fn byte_bounds(&self, lo: Bound<&[Value]>, hi: Bound<&[Value]>) -> ByteBounds {
        ByteBounds::new(self, lo, hi)
    }

    /// Whether each of a row's keys is an entry of its own (GIN).
    #[inline]
    pub fn is_multi(&self) -> bool {
        self.multi
    }

    /// Row ids of the entries whose key is exactly `key` (a GIN key),
    /// visible or not, in row id order.
    pub fn exact_row_ids(&self, key: &[u8]) -> Vec<RowId> {
        let mut enc = Vec::with_capacity(key.len() + 4);
        codec::put_key_value(&Value::Bytea(Arc::from(key)), &mut enc);
        let entries = self.entries.read();
        let mut out = Vec::new();
        visit_range(&entries, &ByteBounds::exact(&enc), |_, row| out.push(row));
        out
    }

    /// The index of a table some of whose stored rows predate columns
    /// added since: `fill[c]` is column c's value in a row stored before
    /// it existed (the catalog's `missing`), for every column of the table
    /// at the index's creation. Empty: no row is short.
    pub fn with_fill(mut self, fill: Vec<Value>) -> Index {
        self.fill = (!fill.is_empty()).then(|| Arc::from(fill));
        self
    }

    /// `row` with the columns it predates filled in (itself when it has
    /// them all: every row, unless columns were added after it was
    /// written).
    #[inline]
    fn full_row<'a>(&self, row: &'a [Value]) -> Cow<'a, [Value]> {
        match &self.fill {
            Some(fill) if row.len() < fill.len() => {
                let mut full = row.to_vec();
                full.extend_from_slice(&fill[row.len()..]);
                Cow::Owned(full)
            }
            _ => Cow::Borrowed(row),
        }
    }

    /// A new, empty index object like this one (TRUNCATE's fresh storage),
    /// sharing its key function.
    pub fn fresh_copy(&self) -> Index {
        Index {
            id: self.id,
            name: RwLock::new(self.name()),
            columns: self.columns.clone(),
            column_names: self.column_names.clone(),
            unique: self.unique,
            primary: self.primary,
            nulls_not_distinct: self.nulls_not_distinct,
            entries: RwLock::new(BTreeSet::new()),
            computed: self.computed.clone(),
            fill: self.fill.clone(),
            multi: self.multi,
            order: self.order.clone(),
        }
    }

    /// Whether keys are computed (an expression or partial index).
    #[inline]
    pub fn is_computed(&self) -> bool {
        self.computed.is_some()
    }

    /// Install a computed index's key function (the first one wins: a
    /// binding is a pure function of the index's definition).
    pub fn set_keys(&self, keys: Arc<dyn IndexKeys>) {
        if let Some(slot) = &self.computed {
            let _ = slot.set(keys);
        }
    }

    /// The key columns as a 23505 DETAIL names them.
    pub fn key_names(&self) -> Vec<String> {
        match self.computed.as_ref().and_then(|s| s.get()) {
            Some(k) => k.names().to_vec(),
            None => self.column_names.clone(),
        }
    }

    /// Whether a computed index has its key function (plain: true).
    pub fn has_keys(&self) -> bool {
        self.computed.as_ref().is_none_or(|s| s.get().is_some())
    }

    /// A computed index's key values for `row` (None: not covered).
    fn computed_keys(
        &self,
        slot: &OnceLock<Arc<dyn IndexKeys>>,
        row: &[Value],
    ) -> Result<Option<Vec<Value>>, DbError> {
        match slot.get() {
            Some(k) => k.keys(row),
            None => Err(DbError::internal(format!(
                "index \"{}\" has no bound key expressions",
                self.name()
            ))),
        }
    }

    /// The key of a row for this index (empty when a partial index does
    /// not cover the row).
    pub fn key_of(&self, row: &[Value]) -> Vec<Value> {
        let row = &*self.full_row(row);
        match &self.computed {
            None => self.columns.iter().map(|&c| row[c].clone()).collect(),
            Some(slot) => self
                .computed_keys(slot, row)
                .ok()
                .flatten()
                .unwrap_or_default(),
        }
    }

    /// The sortable form of a row's key values (no row id); empty when a
    /// partial index does not cover the row (or, for undo and pruning, when
    /// the key expression fails: such a row never got an entry).
    #[inline]
    pub(crate) fn key_bytes(&self, row: &[Value]) -> Vec<u8> {
        let row = &*self.full_row(row);
        if self.computed.is_none() {
            let mut out = Vec::with_capacity(16);
            for (k, &c) in self.columns.iter().enumerate() {
                self.put_key(k, &row[c], &mut out);
            }
            return out;
        }
        self.try_key_bytes(row).unwrap_or_default()
    }

    /// [`Index::key_bytes`] for a write: the key expression's error is the
    /// write's.
    pub(crate) fn try_key_bytes(&self, row: &[Value]) -> Result<Vec<u8>, DbError> {
        let row = &*self.full_row(row);
        let mut out = Vec::with_capacity(16);
        match &self.computed {
            None => {
                for (k, &c) in self.columns.iter().enumerate() {
                    self.put_key(k, &row[c], &mut out);
                }
            }
            Some(slot) => {
                for (k, v) in self
                    .computed_keys(slot, row)?
                    .unwrap_or_default()
                    .iter()
                    .enumerate()
                {
                    self.put_key(k, v, &mut out);
                }
            }
        }
        Ok(out)
    }

    /// Whether a row's key has a NULL that exempts it from the unique
    /// check (never under NULLS NOT DISTINCT).
    #[inline]
    pub(crate) fn key_has_null(&self, row: &[Value]) -> bool {
        if self.nulls_not_distinct {
            return false;
        }
        let row = &*self.full_row(row);
        match &self.computed {
            None => self.columns.iter().any(|&c| row[c].is_null()),
            Some(_) => self.null_exempt(&self.key_of(row)),
        }
    }

    /// Whether key values `key` are exempt from uniqueness: they hold a
    /// NULL and the index does not treat NULLs as equal (the rule
    /// key_has_null applies to rows, for a probe that has the key).
    pub fn null_exempt(&self, key: &[Value]) -> bool {
        !self.nulls_not_distinct && key.iter().any(Value::is_null)
    }

    /// Byte lengths of the first 1, 2, ... key values of `key_bytes(row)`:
    /// the prefixes an equality lookup on the first columns locks.
    pub(crate) fn key_prefix_ends(&self, row: &[Value]) -> Vec<usize> {
        let row = &*self.full_row(row);
        let mut out = Vec::with_capacity(16);
        let mut ends = Vec::with_capacity(self.columns.len());
        if self.computed.is_some() {
            for (k, v) in self.key_of(row).iter().enumerate() {
                self.put_key(k, v, &mut out);
                ends.push(out.len());
            }
            return ends;
        }
        for (k, &c) in self.columns.iter().enumerate() {
            self.put_key(k, &row[c], &mut out);
            ends.push(out.len());
        }
        ends
    }

    /// The sortable form of a stored row's key values (no row id; empty
    /// when not covered).
    #[inline]
    pub(crate) fn stored_key_bytes(&self, stored: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(16);
        self.put_stored_key(stored, &mut out);
        out
    }

    /// Append a stored row's key values to `out`: Some(whether one is
    /// NULL), or None (nothing appended) when a partial index does not
    /// cover the row.
    #[inline]
    pub(crate) fn put_stored_key(&self, stored: &[u8], out: &mut Vec<u8>) -> Option<bool> {
        match (&self.computed, &self.fill) {
            (None, None) if self.order.is_none() => {
                Some(codec::put_stored_key(stored, &self.columns, out))
            }
            (None, _) => Some(self.put_filled_key(stored, out)),
            (Some(slot), _) => self.put_computed_key(slot, stored, out),
        }
    }

    /// [`Index::put_stored_key`] of a computed index (kept out of line: the
    /// plain path inlines to the codec call).
    #[inline(never)]
    fn put_computed_key(
        &self,
        slot: &OnceLock<Arc<dyn IndexKeys>>,
        stored: &[u8],
        out: &mut Vec<u8>,
    ) -> Option<bool> {
        let row = codec::decode_row(stored);
        let keys = self
            .computed_keys(slot, &self.full_row(&row))
            .ok()
            .flatten()?;
        for (k, v) in keys.iter().enumerate() {
            self.put_key(k, v, out);
        }
        Some(keys.iter().any(Value::is_null))
    }

    /// [`Index::put_stored_key`] of a plain index over columns some stored
    /// rows predate, or with a key column not ASC NULLS LAST (out of
    /// line, as above).
    #[inline(never)]
    fn put_filled_key(&self, stored: &[u8], out: &mut Vec<u8>) -> bool {
        let row = codec::decode_row(stored);
        let row = self.full_row(&row);
        for (k, &c) in self.columns.iter().enumerate() {
            self.put_key(k, &row[c], out);
        }
        self.columns.iter().any(|&c| row[c].is_null())
    }

    /// Number of entries (including not yet pruned ones).
    pub fn len(&self) -> usize {
        self.entries.read().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row ids of every entry whose key prefix lies within the bounds
    /// (visible or not), in key order.
    pub fn range_row_ids(&self, lo: Bound<&[Value]>, hi: Bound<&[Value]>) -> Vec<RowId> {
        let entries = self.entries.read();
        let mut out = Vec::new();
        visit_range(&entries, &ByteBounds::new(self, lo, hi), |_, row| {
            out.push(row)
        });
        out
    }
}

/// The keys of a multi-key (GIN) index's key blob: each one's sortable
/// form (a bytea's: escaped bytes ending in `00 01`), in blob order.
pub(crate) fn split_keys(blob: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = blob;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        // Skip the class byte, then find the terminator `00 01` (a 00 in
        // the data is escaped as `00 FF`).
        let mut i = 1;
        while i + 1 < rest.len() && !(rest[i] == 0 && rest[i + 1] == 1) {
            i += if rest[i] == 0 { 2 } else { 1 };
        }
        let end = (i + 2).min(rest.len());
        let (one, tail) = rest.split_at(end);
        rest = tail;
        Some(one)
    })
}

/// Whether a multi-key blob holds the key `one` (a sortable form).
pub(crate) fn blob_has(blob: &[u8], one: &[u8]) -> bool {
    split_keys(blob).any(|k| k == one)
}

/// Full entry key: key values, then the row id.
pub(crate) fn entry(values: &[u8], row: RowId) -> Key {
    let mut k = Vec::with_capacity(values.len() + 10);
    k.extend_from_slice(values);
    codec::put_row_id(row, &mut k);
    Key::new(&k)
}

/// Value bounds (possibly key prefixes) as byte bounds on entries: a
/// bound on the first k columns covers every entry whose first k values
/// are those, whatever follows.
pub(crate) struct ByteBounds {
    lo: Bound<Vec<u8>>,
    hi: Bound<Vec<u8>>,
}

impl ByteBounds {
    /// The bounds are in the ascending value order of the column they
    /// bound (the last of the longer bound; the columns before it are an
    /// equality prefix): a DESC column's entries lie in the reverse
    /// order, so its bounds swap sides. Where its NULLs lie is the
    /// caller's to say (a bound at NULL, see `KeyOrder::null_high`).
    pub(crate) fn new(index: &Index, lo: Bound<&[Value]>, hi: Bound<&[Value]>) -> ByteBounds {
        let enc = |p: &[Value]| {
            let mut out = Vec::with_capacity(16);
            for (k, v) in p.iter().enumerate() {
                index.put_key(k, v, &mut out);
            }
            out
        };
        let len = |b: Bound<&[Value]>| match b {
            Bound::Included(p) | Bound::Excluded(p) => p.len(),
            Bound::Unbounded => 0,
        };
        let last = len(lo).max(len(hi));
        let (lo, hi) = if last > 0 && index.key_order(last - 1).desc {
            (hi, lo)
        } else {
            (lo, hi)
        };
        // An equality lookup (the same values on both sides) encodes them
        // once.
        if let (Bound::Included(l), Bound::Included(h)) = (lo, hi) {
            if std::ptr::eq(l, h) || l == h {
                let key = enc(l);
                let hi = before_successor(&key);
                return ByteBounds {
                    lo: Bound::Included(key),
                    hi,
                };
            }
        }
        let lo = match lo {
            Bound::Unbounded => Bound::Unbounded,
            Bound::Included(p) => Bound::Included(enc(p)),
            // From the first key past every entry starting with `p`; when
            // there is none (an empty prefix, or one of FF bytes: a DESC
            // NULLS LAST column's NULL), nothing lies past it.
            Bound::Excluded(p) => match codec::prefix_successor(&enc(p)) {
                Some(s) => Bound::Included(s),
                None => {
                    return ByteBounds {
                        lo: Bound::Excluded(Vec::new()),
                        hi: Bound::Excluded(Vec::new()),
                    }
                }
            },
        };
        let hi = match hi {
            Bound::Unbounded => Bound::Unbounded,
            Bound::Included(p) => before_successor(&enc(p)),
            Bound::Excluded(p) => Bound::Excluded(enc(p)),
        };
        ByteBounds { lo, hi }
    }

    /// The predicate lock a SERIALIZABLE scan of these bounds takes: an
    /// exact key prefix when the bounds are one (an equality lookup on the
    /// first columns), the whole index when unbounded, else the range.
    pub(crate) fn key_lock(&self) -> nestor_txn::KeyLock {
        use nestor_txn::KeyLock;
        match (&self.lo, &self.hi) {
            (Bound::Unbounded, Bound::Unbounded) => KeyLock::All,
            (Bound::Included(x), hi) if *hi == before_successor(x) => {
                KeyLock::Prefix(x.clone().into_boxed_slice())
            }
            (lo, hi) => {
                let boxed = |b: &Bound<Vec<u8>>| match b {
                    Bound::Unbounded => Bound::Unbounded,
                    Bound::Included(v) => Bound::Included(v.clone().into_boxed_slice()),
                    Bound::Excluded(v) => Bound::Excluded(v.clone().into_boxed_slice()),
                };
                KeyLock::Range(boxed(lo), boxed(hi))
            }
        }
    }

    /// All entries whose key values are exactly `values`.
    pub(crate) fn exact(values: &[u8]) -> ByteBounds {
        ByteBounds {
            lo: Bound::Included(values.to_vec()),
            hi: before_successor(values),
        }
    }
}

/// The upper bound that keeps every entry starting with `prefix`.
fn before_successor(prefix: &[u8]) -> Bound<Vec<u8>> {
    codec::prefix_successor(prefix).map_or(Bound::Unbounded, Bound::Excluded)
}

fn as_slice(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match b {
        Bound::Unbounded => Bound::Unbounded,
        Bound::Included(v) => Bound::Included(v.as_slice()),
        Bound::Excluded(v) => Bound::Excluded(v.as_slice()),
    }
}

/// Call `f` on each entry within the bounds, in key order, with the
/// entry's key values (borrowed from the index) and row id.
pub(crate) fn visit_range(
    entries: &BTreeSet<Key>,
    b: &ByteBounds,
    mut f: impl FnMut(&[u8], RowId),
) {
    let (lo, hi) = (as_slice(&b.lo), as_slice(&b.hi));
    if let (Bound::Included(l) | Bound::Excluded(l), Bound::Included(h) | Bound::Excluded(h)) =
        (lo, hi)
    {
        if l > h || (l == h && !matches!((lo, hi), (Bound::Included(_), Bound::Included(_)))) {
            return; // an empty range (BTreeSet::range would panic)
        }
    }
    // One descent to the first entry, then a walk that stops past `hi`:
    // BTreeSet::range((lo, hi)) descends twice, once per bound, which is
    // most of a point lookup's cost.
    for key in entries.range::<[u8], _>((lo, Bound::Unbounded)) {
        let bytes = key.as_bytes();
        let past = match hi {
            Bound::Unbounded => false,
            Bound::Included(h) => bytes > h,
            Bound::Excluded(h) => bytes >= h,
        };
        if past {
            break;
        }
        let (values, row) = codec::split_row_id(bytes);
        f(values, row);
    }
}

/// Call `f` on each entry within the bounds with the whole entry, its key
/// values and its row id, in key order or (`backward`) its reverse,
/// starting at the entry `from` (None: at the first); stops when `f`
/// returns false.
pub(crate) fn visit_range_from(
    entries: &BTreeSet<Key>,
    b: &ByteBounds,
    from: Option<&[u8]>,
    backward: bool,
    mut f: impl FnMut(&[u8], &[u8], RowId) -> bool,
) {
    let (mut lo, mut hi) = (as_slice(&b.lo), as_slice(&b.hi));
    if let Some(k) = from {
        if backward {
            hi = Bound::Included(k);
        } else {
            lo = Bound::Included(k);
        }
    }
    if let (Bound::Included(l) | Bound::Excluded(l), Bound::Included(h) | Bound::Excluded(h)) =
        (lo, hi)
    {
        if l > h || (l == h && !matches!((lo, hi), (Bound::Included(_), Bound::Included(_)))) {
            return; // an empty range (BTreeSet::range would panic)
        }
    }
    let mut each = |key: &Key| {
        let bytes = key.as_bytes();
        let (values, row) = codec::split_row_id(bytes);
        f(bytes, values, row)
    };
    if backward {
        for key in entries.range::<[u8], _>((lo, hi)).rev() {
            if !each(key) {
                return;
            }
        }
    } else {
        for key in entries.range::<[u8], _>((lo, hi)) {
            if !each(key) {
                return;
            }
        }
    }
}

#[cfg(test)]
mod multi_key_tests {
    use super::*;

    fn blob(keys: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for k in keys {
            codec::put_key_value(&Value::Bytea(Arc::from(*k)), &mut out);
        }
        out
    }

    #[test]
    fn a_blob_splits_into_its_keys_even_with_zero_bytes() {
        let keys: [&[u8]; 4] = [b"a", &[0, 1, 0, 0xFF], &[], &[1, 0]];
        let b = blob(&keys);
        let parts: Vec<&[u8]> = split_keys(&b).collect();
        assert_eq!(parts.len(), keys.len());
        for (part, k) in parts.iter().zip(keys) {
            assert_eq!(*part, blob(&[k]).as_slice());
            assert!(blob_has(&b, part));
        }
        assert!(!blob_has(&b, &blob(&[b"b"])));
        assert_eq!(split_keys(&[]).count(), 0);
    }
}

#[cfg(test)]
mod key_order_tests {
    use super::*;

    const ORDERS: [KeyOrder; 4] = [
        KeyOrder {
            desc: false,
            nulls_first: false,
        },
        KeyOrder {
            desc: false,
            nulls_first: true,
        },
        KeyOrder {
            desc: true,
            nulls_first: true,
        },
        KeyOrder {
            desc: true,
            nulls_first: false,
        },
    ];

    /// An index on one column sorting as `o`, holding `vals` (row id =
    /// position).
    fn index(o: KeyOrder, vals: &[Value]) -> Index {
        let idx =
            Index::new(RelId(1), "i", vec![0], vec!["a".into()], false, false).with_order(&[o]);
        for (i, v) in vals.iter().enumerate() {
            let key = idx.key_bytes(std::slice::from_ref(v));
            idx.entries.write().insert(entry(&key, RowId(i as u64)));
        }
        idx
    }

    fn values() -> Vec<Value> {
        vec![
            Value::Int4(2),
            Value::Null,
            Value::Int4(-5),
            Value::Text("b".into()),
            Value::Int4(300),
            Value::Text("a".into()),
        ]
    }

    fn order_of(idx: &Index, vals: &[Value]) -> Vec<Value> {
        idx.range_row_ids(Bound::Unbounded, Bound::Unbounded)
            .into_iter()
            .map(|r| vals[r.0 as usize].clone())
            .collect()
    }

    #[test]
    fn entries_lie_in_the_declared_order() {
        let vals = values();
        let mut asc: Vec<Value> = vals.iter().filter(|v| !v.is_null()).cloned().collect();
        asc.sort();
        for o in ORDERS {
            let mut want = asc.clone();
            if o.desc {
                want.reverse();
            }
            if o.nulls_first {
                want.insert(0, Value::Null);
            } else {
                want.push(Value::Null);
            }
            assert_eq!(order_of(&index(o, &vals), &vals), want, "{o:?}");
        }
    }

    #[test]
    fn value_bounds_select_the_same_rows_in_every_order() {
        let vals: Vec<Value> = (0..10)
            .map(|i| if i == 4 { Value::Null } else { Value::Int4(i) })
            .collect();
        let lo = [Value::Int4(2)];
        let hi = [Value::Int4(6)];
        for o in ORDERS {
            let idx = index(o, &vals);
            let mut got: Vec<Value> = idx
                .range_row_ids(Bound::Excluded(&lo), Bound::Included(&hi))
                .into_iter()
                .map(|r| vals[r.0 as usize].clone())
                .collect();
            let forward = got.clone();
            got.sort();
            assert_eq!(
                got,
                vec![Value::Int4(3), Value::Int4(5), Value::Int4(6)],
                "{o:?}"
            );
            // In index order: descending for DESC.
            assert_eq!(forward.first() == Some(&Value::Int4(6)), o.desc, "{o:?}");
            // Equality, NULL included.
            let null = [Value::Null];
            let eq = idx.range_row_ids(Bound::Included(&null), Bound::Included(&null));
            assert_eq!(eq, vec![RowId(4)], "{o:?}");
        }
    }

    #[test]
    fn past_a_desc_nulls_last_null_is_nothing() {
        let vals = vec![Value::Null, Value::Int4(1)];
        let idx = index(ORDERS[3], &vals);
        let null = [Value::Null];
        assert!(idx
            .range_row_ids(Bound::Unbounded, Bound::Excluded(&null))
            .is_empty());
        assert!(idx
            .range_row_ids(Bound::Excluded(&null), Bound::Unbounded)
            .contains(&RowId(1)));
    }
}
