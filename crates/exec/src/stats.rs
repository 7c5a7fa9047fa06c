//! Activity counters per database and per table: what pg_stat_database and
//! pg_stat_all_tables / pg_stat_user_tables show.
//!
//! What it counts. Per table: sequential scans and the rows they read,
//! index scans and the rows they fetched (counted per index, under the
//! index's OID, so that pg_stat_all_indexes has them at no extra cost;
//! a table's are the sums over its indexes), rows inserted, updated and
//! deleted (by any statement, trigger, foreign-key action or COPY, in
//! transactions that commit or roll back, as PostgreSQL counts them). Per
//! database: transactions committed and rolled back, deadlocks detected,
//! sessions established; its tuple counters are the tables' sums. For the
//! Prometheus endpoint (`nestor-server`'s `metrics` module), also the
//! savepoints transactions defined and rolled back to, a histogram of
//! savepoints per transaction and one of commit times, kept in the same
//! per-thread blocks as the transaction counts (no extra lock).
//!
//! Why this design. The row counters are bumped inside scans and writes,
//! the hottest code there is, by every session at once. Shared atomic
//! counters would bounce one cache line between the cores at every scan
//! (a first version flushed thread-local pending counts into shared
//! atomics at each ReadyForQuery: ~8 contended atomic operations per
//! pgbench transaction). Instead each thread writes to a *block* of its
//! own (a small map by table OID, plus the transaction counts) behind a
//! mutex nobody else takes except a reader of the views, so the lock is
//! uncontended and its cache line stays with the writing core; readers
//! sum the blocks. Counts are visible as soon as they are made, with no
//! flush (PostgreSQL's backends flush theirs at most once a second). A
//! thread that ends hands its block to the next new thread, counts and
//! all, so the blocks are as many as the threads that ever ran at once.
//!
//! Left out: block and I/O counters (tables live in memory), HOT updates
//! (there are no pages; `n_tup_hot_upd` is 0), vacuum/analyze counts other
//! than pruning passes (kept by the storage layer, `Table::prune_passes`),
//! and counts for the system catalog's relations (they are views computed
//! when read).

use std::cell::RefCell;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use nestor_common::hash::IdHashMap;
use parking_lot::Mutex;

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

/// The counts one thread made (at a time, one thread owns a block: its
/// lock is uncontended but for readers).
#[derive(Default)]
struct Counts {
    tables: IdHashMap<u32, TableCounts>,
    commits: u64,
    rollbacks: u64,
    /// Savepoints defined / rolled back to by transactions that ended.
    savepoints: u64,
    savepoint_rollbacks: u64,
    /// Savepoints defined per transaction (SAVEPOINTS_PER_XACT_BOUNDS).
    savepoints_per_xact: Histogram<SAVEPOINT_BUCKETS>,
    /// Time of a commit, in microseconds (COMMIT_MICROS_BOUNDS).
    commit_micros: Histogram<COMMIT_BUCKETS>,
}

/// Upper bounds (inclusive, as Prometheus' `le`) of the buckets of the
/// savepoints-per-transaction histogram; a last bucket holds the rest.
pub const SAVEPOINTS_PER_XACT_BOUNDS: [u64; 9] = [0, 1, 2, 5, 10, 20, 50, 64, 100];
const SAVEPOINT_BUCKETS: usize = SAVEPOINTS_PER_XACT_BOUNDS.len() + 1;

/// Upper bounds, in microseconds, of the commit-time histogram's buckets
/// (100 µs to 10 s); a last bucket holds the rest.
pub const COMMIT_MICROS_BOUNDS: [u64; 11] = [
    100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 100_000, 1_000_000, 10_000_000,
];
const COMMIT_BUCKETS: usize = COMMIT_MICROS_BOUNDS.len() + 1;

/// A histogram's counts: per bucket (not cumulative; the last is past the
/// last bound), the sum of the observed values and their number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Histogram<const N: usize> {
    pub buckets: [u64; N],
    pub sum: u64,
    pub count: u64,
}

impl<const N: usize> Default for Histogram<N> {
    fn default() -> Self {
        Histogram {
            buckets: [0; N],
            sum: 0,
            count: 0,
        }
    }
}

impl<const N: usize> Histogram<N> {
    /// Count `value` in the first bucket whose bound it does not pass.
    fn observe(&mut self, bounds: &[u64], value: u64) {
        let i = bounds.iter().position(|&b| value <= b).unwrap_or(N - 1);
        self.buckets[i] += 1;
        self.sum = self.sum.saturating_add(value);
        self.count += 1;
    }

    fn add(&mut self, other: &Self) {
        for (a, b) in self.buckets.iter_mut().zip(&other.buckets) {
            *a += b;
        }
        self.sum = self.sum.saturating_add(other.sum);
        self.count += other.count;
    }
}

/// How a transaction ended, for [`DbStats::count_xact`].
#[derive(Clone, Copy, Debug, Default)]
pub struct XactEnd {
    pub committed: bool,
    /// Savepoints it defined (PL/pgSQL exception blocks included) and
    /// ROLLBACK TO SAVEPOINTs it ran.
    pub savepoints: u64,
    pub savepoint_rollbacks: u64,
    /// How long its commit took (the commit record's way to the log and
    /// its flush), for a commit that was attempted.
    pub commit_micros: Option<u64>,
}

/// The transaction counters summed over the threads (see [`DbStats::xact_totals`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct XactTotals {
    pub commits: u64,
    pub rollbacks: u64,
    pub savepoints: u64,
    pub savepoint_rollbacks: u64,
    pub savepoints_per_xact: Histogram<SAVEPOINT_BUCKETS>,
    pub commit_micros: Histogram<COMMIT_BUCKETS>,
}

type Block = Mutex<Counts>;
type FreeList = Mutex<Vec<Arc<Block>>>;

/// The block the current thread writes to, for which database.
struct Local {
    db: u64,
    block: Arc<Block>,
    free: Weak<FreeList>,
}

impl Drop for Local {
    /// A thread that ends (or moves to another database) hands its block,
    /// counts and all, to the next thread that needs one.
    fn drop(&mut self) {
        if let Some(free) = self.free.upgrade() {
            free.lock().push(self.block.clone());
        }
    }
}

thread_local! {
    static LOCAL: RefCell<Option<Local>> = const { RefCell::new(None) };
}

static NEXT_DB: AtomicU64 = AtomicU64::new(1);

/// The database's counters.
pub struct DbStats {
    id: u64,
    /// Every block ever handed out (the totals are their sums).
    blocks: Mutex<Vec<Arc<Block>>>,
    /// Blocks of threads that ended, to be reused.
    free: Arc<FreeList>,
    pub deadlocks: AtomicU64,
    /// Errors with SQLSTATE 40001 (serialization_failure) reported to
    /// clients (not in pg_stat_database; the metrics endpoint's).
    pub serialization_failures: AtomicU64,
    pub sessions: AtomicU64,
    /// Temporary files removed and the bytes they held (crate::spill).
    pub temp_files: AtomicU64,
    pub temp_bytes: AtomicU64,
    /// When the counters were last reset (or made): microseconds since
    /// 2000-01-01.
    stats_reset_us: AtomicI64,
}

impl Default for DbStats {
    fn default() -> Self {
        DbStats {
            id: NEXT_DB.fetch_add(1, Ordering::Relaxed),
            blocks: Mutex::default(),
            free: Arc::default(),
            deadlocks: AtomicU64::new(0),
            serialization_failures: AtomicU64::new(0),
            sessions: AtomicU64::new(0),
            temp_files: AtomicU64::new(0),
            temp_bytes: AtomicU64::new(0),
            stats_reset_us: AtomicI64::new(nestor_types::context::system_now()),
        }
    }
}

impl DbStats {
    /// Run `f` on the current thread's block (taking one on first use).
    fn with_counts(&self, f: impl FnOnce(&mut Counts)) {
        LOCAL.with(|l| {
            let mut l = l.borrow_mut();
            if l.as_ref().is_none_or(|l| l.db != self.id) {
                let block = self.free.lock().pop().unwrap_or_else(|| {
                    let b = Arc::new(Block::default());
                    self.blocks.lock().push(b.clone());
                    b
                });
                *l = Some(Local {
                    db: self.id,
                    block,
                    free: Arc::downgrade(&self.free),
                });
            }
            if let Some(local) = l.as_ref() {
                f(&mut local.block.lock());
            }
        });
    }

    /// Add `n` to one of a table's counters.
    pub fn count(&self, table: u32, what: Counter, n: u64) {
        self.with_counts(|c| c.tables.entry(table).or_default()[what as usize] += n);
    }

    /// A scan that read `rows` rows: a sequential scan of the table `rel`,
    /// or (`index`) a scan of the index `rel`. An index scan is counted
    /// under the index alone; [`DbStats::table_and_indexes`] adds a table's
    /// indexes up, so the scan costs one map update either way.
    pub fn count_scan(&self, rel: u32, index: bool, rows: u64) {
        self.count_scans(rel, index, 1, rows);
    }

    /// [`DbStats::count_scan`] for `scans` scans at once (an IN list's
    /// lookups, one per distinct value, as PostgreSQL 15 counts them).
    pub fn count_scans(&self, rel: u32, index: bool, scans: u64, rows: u64) {
        self.with_counts(|c| {
            let t = c.tables.entry(rel).or_default();
            if index {
                t[Counter::IdxScan as usize] += scans;
                t[Counter::IdxTupFetch as usize] += rows;
            } else {
                t[Counter::SeqScan as usize] += scans;
                t[Counter::SeqTupRead as usize] += rows;
            }
        });
    }

    /// A transaction ended.
    pub fn count_xact(&self, end: XactEnd) {
        self.with_counts(|c| {
            if end.committed {
                c.commits += 1;
            } else {
                c.rollbacks += 1;
            }
            c.savepoints += end.savepoints;
            c.savepoint_rollbacks += end.savepoint_rollbacks;
            c.savepoints_per_xact
                .observe(&SAVEPOINTS_PER_XACT_BOUNDS, end.savepoints);
            if let Some(us) = end.commit_micros {
                c.commit_micros.observe(&COMMIT_MICROS_BOUNDS, us);
            }
        });
    }

    /// The transaction counters of every thread, summed.
    pub fn xact_totals(&self) -> XactTotals {
        let mut t = XactTotals::default();
        for b in self.blocks() {
            let b = b.lock();
            t.commits += b.commits;
            t.rollbacks += b.rollbacks;
            t.savepoints += b.savepoints;
            t.savepoint_rollbacks += b.savepoint_rollbacks;
            t.savepoints_per_xact.add(&b.savepoints_per_xact);
            t.commit_micros.add(&b.commit_micros);
        }
        t
    }

    fn blocks(&self) -> Vec<Arc<Block>> {
        self.blocks.lock().clone()
    }

    /// (committed, rolled back) transactions.
    pub fn xacts(&self) -> (u64, u64) {
        self.blocks().iter().fold((0, 0), |(c, r), b| {
            let b = b.lock();
            (c + b.commits, r + b.rollbacks)
        })
    }

    /// A relation's own totals (zeros for one never counted): a table's
    /// without its index scans, which [`DbStats::table_and_indexes`] adds.
    pub fn table(&self, table: u32) -> TableCounts {
        let mut sum = [0u64; COUNTERS];
        for b in self.blocks() {
            if let Some(t) = b.lock().tables.get(&table) {
                for (s, n) in sum.iter_mut().zip(t) {
                    *s += n;
                }
            }
        }
        sum
    }

    /// A table's totals, its index scans included, and each of its
    /// `indexes`' (whose only counters are IdxScan and IdxTupFetch): one
    /// pass over the blocks.
    pub fn table_and_indexes(
        &self,
        table: u32,
        indexes: &[u32],
    ) -> (TableCounts, Vec<TableCounts>) {
        let mut sum = [0u64; COUNTERS];
        let mut per_index = vec![[0u64; COUNTERS]; indexes.len()];
        let add = |to: &mut TableCounts, from: &TableCounts| {
            for (s, n) in to.iter_mut().zip(from) {
                *s += n;
            }
        };
        for b in self.blocks() {
            let b = b.lock();
            if let Some(t) = b.tables.get(&table) {
                add(&mut sum, t);
            }
            for (i, oid) in indexes.iter().enumerate() {
                if let Some(t) = b.tables.get(oid) {
                    add(&mut per_index[i], t);
                }
            }
        }
        for i in &per_index {
            add(&mut sum, i);
        }
        (sum, per_index)
    }

    /// The sums over the tables.
    pub fn sums(&self) -> TableCounts {
        let mut sum = [0u64; COUNTERS];
        for b in self.blocks() {
            for t in b.lock().tables.values() {
                for (s, n) in sum.iter_mut().zip(t) {
                    *s += n;
                }
            }
        }
        sum
    }

    /// pg_stat_reset(): every counter of the database back to zero.
    pub fn reset(&self) {
        for b in self.blocks() {
            *b.lock() = Counts::default();
        }
        self.deadlocks.store(0, Ordering::Relaxed);
        self.serialization_failures.store(0, Ordering::Relaxed);
        self.sessions.store(0, Ordering::Relaxed);
        self.temp_files.store(0, Ordering::Relaxed);
        self.temp_bytes.store(0, Ordering::Relaxed);
        self.stats_reset_us
            .store(nestor_types::context::system_now(), Ordering::Relaxed);
    }

    pub fn stats_reset_us(&self) -> i64 {
        self.stats_reset_us.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_of_every_thread_add_up() {
        let s = Arc::new(DbStats::default());
        s.count_scan(7, false, 10);
        // An index (OID 9) of table 7.
        s.count_scan(9, true, 1);
        s.count(7, Counter::Inserted, 2);
        let s2 = s.clone();
        std::thread::spawn(move || {
            s2.count(8, Counter::Deleted, 1);
            s2.count(7, Counter::Inserted, 1);
            s2.count_xact(XactEnd::default());
        })
        .join()
        .unwrap();
        s.count_xact(XactEnd {
            committed: true,
            savepoints: 5,
            ..XactEnd::default()
        });
        assert_eq!(s.xact_totals().savepoints_per_xact.buckets[3], 1);
        assert_eq!(s.table(7), [1, 10, 0, 0, 3, 0, 0]);
        let (t, i) = s.table_and_indexes(7, &[9, 10]);
        assert_eq!(t, [1, 10, 1, 1, 3, 0, 0]);
        assert_eq!(i, vec![[0, 0, 1, 1, 0, 0, 0], [0; COUNTERS]]);
        assert_eq!(s.sums(), [1, 10, 1, 1, 3, 0, 1]);
        assert_eq!(s.xacts(), (1, 1));
        // The ended thread's block is reused, counts kept.
        let s3 = s.clone();
        std::thread::spawn(move || s3.count(8, Counter::Deleted, 1))
            .join()
            .unwrap();
        assert_eq!(s.blocks().len(), 2);
        assert_eq!(s.table(8), [0, 0, 0, 0, 0, 0, 2]);
        s.reset();
        assert_eq!(s.sums(), [0; COUNTERS]);
        assert_eq!(s.xacts(), (0, 0));
    }
}
