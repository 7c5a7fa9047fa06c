//! Ordered indexes: a B-tree of (key, row id) entries.
//!
//! Keys are the values of the indexed columns, ordered by `Value`'s total
//! order (NULLs last). Several entries may share a key (old and new rows of a
//! unique key while the old one's deletion is not yet prunable); readers
//! resolve each entry against the row's visible version.

use std::collections::BTreeSet;
use std::ops::Bound;

use nestor_common::{RelId, RowId};
use nestor_types::Value;
use parking_lot::RwLock;

pub struct Index {
    pub id: RelId,
    pub name: String,
    /// Positions of the key columns in the table's rows.
    pub columns: Vec<usize>,
    /// Names of the key columns (for the 23505 DETAIL).
    pub column_names: Vec<String>,
    pub unique: bool,
    pub primary: bool,
    pub(crate) entries: RwLock<BTreeSet<(Vec<Value>, RowId)>>,
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
            name: name.to_string(),
            columns,
            column_names,
            unique,
            primary,
            entries: RwLock::new(BTreeSet::new()),
        }
    }

    /// The key of a row for this index.
    pub fn key_of(&self, row: &[Value]) -> Vec<Value> {
        self.columns.iter().map(|&c| row[c].clone()).collect()
    }

    /// Number of entries (including not yet pruned ones).
    pub fn len(&self) -> usize {
        self.entries.read().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Row ids of entries whose key prefix lies within the bounds (bounds
    /// may be shorter than the key: a prefix match), in key order.
    pub fn range_row_ids(
        &self,
        lo: Bound<&[Value]>,
        hi: Bound<&[Value]>,
    ) -> Vec<(Vec<Value>, RowId)> {
        let entries = self.entries.read();
        let mut out = Vec::new();
        visit_range(&entries, lo, hi, |key, row| out.push((key.to_vec(), row)));
        out
    }

    /// Whether `row` (a table row) has `key` in this index's columns,
    /// without building the row's key.
    pub(crate) fn key_matches(&self, row: &[Value], key: &[Value]) -> bool {
        debug_assert_eq!(key.len(), self.columns.len());
        self.columns.iter().zip(key).all(|(&c, k)| row[c] == *k)
    }
}

/// Call `f` on each entry whose key prefix lies within the bounds, in key
/// order, borrowing keys from the index (no copies).
pub(crate) fn visit_range(
    entries: &BTreeSet<(Vec<Value>, RowId)>,
    lo: Bound<&[Value]>,
    hi: Bound<&[Value]>,
    mut f: impl FnMut(&[Value], RowId),
) {
    let start: Bound<(Vec<Value>, RowId)> = match lo {
        Bound::Unbounded => Bound::Unbounded,
        Bound::Included(p) | Bound::Excluded(p) => Bound::Included((p.to_vec(), RowId(0))),
    };
    for (key, row) in entries.range((start, Bound::Unbounded)) {
        if let Bound::Excluded(p) = lo {
            if prefix_cmp(key, p).is_eq() {
                continue;
            }
        }
        let past = match hi {
            Bound::Unbounded => false,
            Bound::Included(p) => prefix_cmp(key, p).is_gt(),
            Bound::Excluded(p) => prefix_cmp(key, p).is_ge(),
        };
        if past {
            break;
        }
        f(key, *row);
    }
}

/// Compare a key with a (possibly shorter) prefix on the prefix's columns.
pub(crate) fn prefix_cmp(key: &[Value], prefix: &[Value]) -> std::cmp::Ordering {
    key[..prefix.len().min(key.len())].cmp(prefix)
}
