//! Running the data-modifying WITH items of a statement (planned by
//! `nestor_plan::with_modify`, whose essay has the design): each item runs
//! to completion, in order, before the main query, with the statement's
//! snapshot and command id unchanged; an item's RETURNING rows are kept
//! in the statement's cache of materialised results under the item's id,
//! where the main query's CteScans (and later items') read them.
//!
//! ```text
//!   WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d LIMIT 1
//!     1. Delete on t runs over all of t; its rows -> ev.cache[d]
//!     2. the SELECT reads one of them; t has lost every row
//! ```
//!
//! The rows are collected whole (checked against the server's memory
//! budget as they grow) and then charged to the statement's
//! `nestor.query_memory_max` as a materialised CTE. An error in an item
//! fails the statement, and the writes of the items before it are undone
//! with the statement's (its transaction's, or the enclosing savepoint's)
//! undo, as for any failing statement.

use std::sync::Arc;

use nestor_common::memory::Growth;
use nestor_common::DbError;
use nestor_plan::with_modify::{WriteCte, WriteStmt};
use nestor_types::Value;

use crate::context::{Ev, RowSink};
use crate::workmem::entry_bytes;

/// An item's RETURNING rows as they come.
struct Kept {
    rows: Vec<Vec<Value>>,
    bytes: usize,
    growth: Growth,
}

impl RowSink for Kept {
    fn row(&mut self, row: Vec<Value>) -> Result<(), DbError> {
        let bytes = entry_bytes(&row);
        self.growth.grow(bytes)?;
        self.bytes += bytes;
        self.rows.push(row);
        Ok(())
    }
}

/// Run the items in order; their RETURNING rows go to `ev.cache`.
pub(crate) fn run_writes(writes: &[WriteCte], ev: &mut Ev) -> Result<(), DbError> {
    for w in writes {
        let mut kept = Kept {
            rows: Vec::new(),
            bytes: 0,
            growth: Growth::new("RETURNING rows of a WITH query"),
        };
        match &w.stmt {
            WriteStmt::Insert(p) => crate::modify::exec_insert(p, ev, &mut kept)?,
            WriteStmt::Modify(p) => crate::members::exec_modify(p, ev, &mut kept)?,
            WriteStmt::Instead(p) => crate::modify::exec_instead(p, ev, &mut kept)?,
        };
        if w.returning {
            // Kept (and counted) until the statement ends, as a
            // materialised CTE's rows are.
            ev.mem.charge(kept.bytes, "materialized CTE or subquery")?;
            ev.cache.insert(w.id, Arc::new(kept.rows));
        }
    }
    Ok(())
}
