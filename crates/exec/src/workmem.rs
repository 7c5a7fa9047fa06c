//! A statement's working memory: what its sorts, hash tables (GROUP BY,
//! DISTINCT, INTERSECT/EXCEPT, DISTINCT aggregates, hash joins), string_agg results
//! and materialised CTEs and subqueries hold.
//!
//! Sorts, hash aggregates and hash joins spill to temporary files once
//! they hold more than work_mem, as PostgreSQL's do (crate::spill); the
//! rest (window functions, DISTINCT ON, INTERSECT/EXCEPT, aggregates'
//! DISTINCT and ORDER BY, string_agg, materialised results) stays in
//! memory, so one statement could otherwise take the whole process down.
//! Each operator charges what it buffers ([`QueryMemory::
//! charge`]: the values' sizes, `Value::size_bytes`, plus a fixed cost per
//! entry) and releases it when done (a spilling operator when it writes its
//! buffer out). Past `nestor.query_memory_max` (by
//! default a quarter of `--memory-limit`, far above work_mem: a query that
//! works on PostgreSQL must keep working here) or while the process is at
//! its memory limit (checked every QUERY_MEMORY_GLOBAL_CHECK_BYTES of
//! growth, so small statements never fail on it), the statement fails
//! with 53200 `out of memory`, the DETAIL naming the operation. The bytes
//! held are also published, in 64 kB steps, to the budget's "query
//! working memory" category.

use nestor_common::limits::{QUERY_MEMORY_GLOBAL_CHECK_BYTES, QUERY_MEMORY_PERCENT_DEFAULT};
use nestor_common::memory::{self, Category};
use nestor_common::{DbError, SqlState};
use nestor_types::Value;

/// Bytes an operator's entry costs besides its values (vector headers,
/// hash-table slots).
pub(crate) const ENTRY_OVERHEAD_BYTES: usize = 48;

/// Counters are brought up to date in steps of this much.
const PUBLISH_BYTES: usize = 64 << 10;

/// The bytes an entry of `values` costs in a sort, hash table or
/// materialised result.
pub(crate) fn entry_bytes(values: &[Value]) -> usize {
    ENTRY_OVERHEAD_BYTES + Value::row_bytes(values)
}

/// One statement's working memory (lives in its `Ev`).
pub struct QueryMemory {
    held: usize,
    max: usize,
    next_check: usize,
    published: usize,
}

/// The limit a statement runs with: `nestor.query_memory_max`, or
/// QUERY_MEMORY_PERCENT_DEFAULT of the server's memory limit.
pub(crate) fn limit_bytes(setting: Option<u64>) -> usize {
    let bytes = setting.unwrap_or_else(|| {
        let limit = memory::limit_bytes();
        if limit == u64::MAX {
            u64::MAX
        } else {
            limit / 100 * QUERY_MEMORY_PERCENT_DEFAULT
        }
    });
    usize::try_from(bytes).unwrap_or(usize::MAX)
}

impl QueryMemory {
    pub fn new(max: usize) -> QueryMemory {
        QueryMemory {
            held: 0,
            max,
            next_check: QUERY_MEMORY_GLOBAL_CHECK_BYTES,
            published: 0,
        }
    }

    /// Bytes held now.
    pub fn held(&self) -> usize {
        self.held
    }

    /// `what` (e.g. "sort") holds `bytes` more. Fails with 53200 past the
    /// statement's limit or while the server is at its memory limit; the
    /// bytes are not counted then.
    pub fn charge(&mut self, bytes: usize, what: &str) -> Result<(), DbError> {
        let held = self.held.saturating_add(bytes);
        if held > self.max {
            return Err(DbError::new(SqlState::OutOfMemory, "out of memory")
                .with_detail(format!(
                    "The statement's {what} would hold more than nestor.query_memory_max ({}).",
                    format_size(self.max)
                ))
                .with_hint(
                    "Raise nestor.query_memory_max (SET nestor.query_memory_max = '1GB'), or \
                     have the query hold fewer rows at once.",
                ));
        }
        if held >= self.next_check {
            self.next_check = held.saturating_add(QUERY_MEMORY_GLOBAL_CHECK_BYTES);
            memory::check_query(what, held)?;
        }
        self.held = held;
        self.publish();
        Ok(())
    }

    /// `bytes` charged earlier are freed.
    pub fn release(&mut self, bytes: usize) {
        self.held = self.held.saturating_sub(bytes);
        self.publish();
    }

    fn publish(&mut self) {
        if self.held.abs_diff(self.published) >= PUBLISH_BYTES {
            memory::add(
                Category::QueryWorkingMemory,
                self.held as i64 - self.published as i64,
            );
            self.published = self.held;
        }
    }
}

impl Drop for QueryMemory {
    fn drop(&mut self) {
        memory::add(Category::QueryWorkingMemory, -(self.published as i64));
    }
}

/// A size as PostgreSQL spells memory settings (the largest unit that
/// divides it; bytes below 1 kB).
fn format_size(bytes: usize) -> String {
    if bytes == usize::MAX {
        return "unlimited".into();
    }
    for (unit, shift) in [("TB", 40), ("GB", 30), ("MB", 20), ("kB", 10)] {
        if bytes >= 1 << shift && bytes.is_multiple_of(1 << shift) {
            return format!("{}{unit}", bytes >> shift);
        }
    }
    format!("{bytes} bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_past_the_limit_fail_with_53200_naming_the_operation() {
        let mut m = QueryMemory::new(1 << 20);
        m.charge(1000 << 10, "sort").unwrap();
        let e = m.charge(100 << 10, "sort").unwrap_err();
        assert_eq!(e.code, SqlState::OutOfMemory);
        assert_eq!(e.message, "out of memory");
        assert_eq!(
            e.detail.as_deref(),
            Some("The statement's sort would hold more than nestor.query_memory_max (1MB).")
        );
        assert_eq!(m.held(), 1000 << 10, "a refused charge is not counted");
        m.release(1000 << 10);
        m.charge(1 << 20, "DISTINCT").unwrap();
        assert_eq!(format_size(1536 << 10), "1536kB");
        assert_eq!(limit_bytes(Some(4096)), 4096);
    }
}
