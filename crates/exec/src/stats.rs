//! Activity counters per database and per table: what pg_stat_database and
//! pg_stat_all_tables / pg_stat_user_tables show.
//!
//! What it counts. Per table: sequential scans and the rows they read,
//! index scans and the rows they fetched, rows inserted, updated and
//! deleted (by any statement, trigger, foreign-key action or COPY, in
//! transactions that commit or roll back, as PostgreSQL counts them). Per
//! database: transactions committed and rolled back, deadlocks detected,
//! sessions established; its tuple counters are the tables' sums.
//!
//! Why this design. The row counters are bumped inside scans and writes,
//! the hottest code there is. Like PostgreSQL's pgstat, a statement adds
//! to *pending* counters local to the thread running it (a small map by
//! table OID in a thread-local, no atomics, no locks), and the session
//! flushes them into the shared totals at each ReadyForQuery
//! ([`flush`]): per table a handful of relaxed atomic additions under a
//! read lock of the table map. A session's messages up to ReadyForQuery
//! run on one thread (`server/src/conn.rs`), so what a statement counted is
//! in the totals before its client hears the statement is done; should a
//! connection pause mid-batch and move threads, what it left pending is
//! flushed by the next ReadyForQuery on that thread (the totals do not
//! care which session adds). The transaction counters are relaxed atomics
//! bumped once per transaction end.
//!
//! Left out: block and I/O counters (tables live in memory), HOT updates
//! (there are no pages; `n_tup_hot_upd` is 0), vacuum/analyze counts other
//! than pruning passes (kept by the storage layer, `Table::prune_passes`),
//! per-index statistics (`pg_stat_all_indexes`), and counts for the system
//! catalog's relations (they are views computed when read).

use std::cell::RefCell;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;

use nestor_common::hash::IdHashMap;
use parking_lot::RwLock;

/// What one table's counters are (indexes into [`TableCounts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counter {
    SeqScan,
    SeqTupRead,
    IdxScan,
    IdxTupFetch,
    Inserted,
    Updated,
    Deleted,
}

const COUNTERS: usize = 7;

/// One table's counters, as numbers.
pub type TableCounts = [u64; COUNTERS];

thread_local! {
    /// Counts not yet flushed, by table OID.
    static PENDING: RefCell<IdHashMap<u32, TableCounts>> = RefCell::new(IdHashMap::default());
}

/// Add `n` to a table's pending counter (no lock, no atomic).
pub fn count(table: u32, what: Counter, n: u64) {
    PENDING.with(|p| {
        p.borrow_mut().entry(table).or_default()[what as usize] += n;
    });
}

/// A scan of `table` that read `rows` rows (`index`: by an index).
pub fn count_scan(table: u32, index: bool, rows: u64) {
    PENDING.with(|p| {
        let mut p = p.borrow_mut();
        let c = p.entry(table).or_default();
        if index {
            c[Counter::IdxScan as usize] += 1;
            c[Counter::IdxTupFetch as usize] += rows;
        } else {
            c[Counter::SeqScan as usize] += 1;
            c[Counter::SeqTupRead as usize] += rows;
        }
    });
}

/// One table's shared totals.
#[derive(Default, Debug)]
pub struct TableTotals {
    counts: [AtomicU64; COUNTERS],
}

impl TableTotals {
    pub fn get(&self) -> TableCounts {
        std::array::from_fn(|i| self.counts[i].load(Ordering::Relaxed))
    }
}

/// The database's totals.
pub struct DbStats {
    tables: RwLock<IdHashMap<u32, Arc<TableTotals>>>,
    pub xact_commit: AtomicU64,
    pub xact_rollback: AtomicU64,
    pub deadlocks: AtomicU64,
    pub sessions: AtomicU64,
    /// When the counters were last reset (or made): microseconds since
    /// 2000-01-01.
    stats_reset_us: AtomicI64,
}

impl Default for DbStats {
    fn default() -> Self {
        DbStats {
            tables: RwLock::default(),
            xact_commit: AtomicU64::new(0),
            xact_rollback: AtomicU64::new(0),
            deadlocks: AtomicU64::new(0),
            sessions: AtomicU64::new(0),
            stats_reset_us: AtomicI64::new(now_us()),
        }
    }
}

fn now_us() -> i64 {
    let unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64);
    unix - 946_684_800_000_000
}

impl DbStats {
    /// A transaction ended.
    pub fn count_xact(&self, committed: bool) {
        let c = if committed {
            &self.xact_commit
        } else {
            &self.xact_rollback
        };
        c.fetch_add(1, Ordering::Relaxed);
    }

    /// Move this thread's pending counts into the totals (cheap when there
    /// are none).
    pub fn flush(&self) {
        PENDING.with(|p| {
            let mut p = p.borrow_mut();
            if p.is_empty() {
                return;
            }
            for (table, counts) in p.drain() {
                let totals = self.tables.read().get(&table).cloned();
                let totals = match totals {
                    Some(t) => t,
                    None => self.tables.write().entry(table).or_default().clone(),
                };
                for (i, n) in counts.iter().enumerate() {
                    if *n != 0 {
                        totals.counts[i].fetch_add(*n, Ordering::Relaxed);
                    }
                }
            }
        });
    }

    /// A table's totals (zeros for one never counted).
    pub fn table(&self, table: u32) -> TableCounts {
        self.tables
            .read()
            .get(&table)
            .map_or([0; COUNTERS], |t| t.get())
    }

    /// The sums over the tables.
    pub fn sums(&self) -> TableCounts {
        let mut sum = [0u64; COUNTERS];
        for t in self.tables.read().values() {
            for (s, n) in sum.iter_mut().zip(t.get()) {
                *s += n;
            }
        }
        sum
    }

    /// pg_stat_reset(): every counter of the database back to zero.
    pub fn reset(&self) {
        self.tables.write().clear();
        for c in [
            &self.xact_commit,
            &self.xact_rollback,
            &self.deadlocks,
            &self.sessions,
        ] {
            c.store(0, Ordering::Relaxed);
        }
        self.stats_reset_us.store(now_us(), Ordering::Relaxed);
    }

    pub fn stats_reset_us(&self) -> i64 {
        self.stats_reset_us.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pending_counts_reach_the_totals_at_flush() {
        let s = DbStats::default();
        count_scan(7, false, 10);
        count_scan(7, true, 1);
        count(7, Counter::Inserted, 2);
        count(8, Counter::Deleted, 1);
        assert_eq!(s.table(7), [0; COUNTERS]);
        s.flush();
        assert_eq!(s.table(7), [1, 10, 1, 1, 2, 0, 0]);
        assert_eq!(s.sums(), [1, 10, 1, 1, 2, 0, 1]);
        s.flush();
        assert_eq!(s.table(7), [1, 10, 1, 1, 2, 0, 0]);
        s.count_xact(true);
        s.count_xact(false);
        s.reset();
        assert_eq!(s.sums(), [0; COUNTERS]);
        assert_eq!(s.xact_commit.load(Ordering::Relaxed), 0);
    }
}
