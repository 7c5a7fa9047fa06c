//! pg_stat_statements: execution statistics per (user, database, query).
//!
//! What it does. Every top-level statement the planner handles (SELECT,
//! INSERT, UPDATE, DELETE, MERGE, CALL, and the DDL that goes through
//! `prepare`) adds one call to the entry of (current role, database,
//! queryid) when it completes without error: its execution time (min, max,
//! mean and a running variance, as PostgreSQL keeps them with Welford's
//! method), the rows it returned or changed, and — a Nestor column — the
//! savepoints it defined (PL/pgSQL exception blocks, or SQL functions that
//! do). The view `pg_stat_statements` shows the entries with PostgreSQL
//! 15's columns; `pg_stat_statements_reset()` forgets them.
//!
//! Utility statements (BEGIN, COMMIT, SET, SHOW, SAVEPOINT, COPY, ...:
//! what the session runs itself) are tracked too, with
//! `pg_stat_statements.track_utility` on (PostgreSQL's default): the
//! session already times each one (log_min_duration_statement), and
//! records it under [`StatStatements::identify_utility`]'s identity, a hash
//! of the exact text as PostgreSQL 15 computes it for utility statements.
//!
//! Identity. A statement's queryid is libpg_query's fingerprint of its
//! text (the parse tree without constants, aliases and locations, hashed),
//! and its `query` is the text normalised as PostgreSQL does (constants
//! replaced by `$n`). Both are computed once per prepared statement: a
//! prepared statement (`Prepared`) keeps its [`QueryId`] after its first
//! execution, so `-M prepared` pays one atomic load per execution. A
//! simple-protocol statement is planned afresh each time, so its identity
//! comes from a shared cache keyed by the statement's text (a query served
//! from the parse cache is planned against its template's text, the same
//! at every execution) and by its *shape* (its text with the literals
//! masked, the parse cache's key): `… WHERE aid = 17` and `… WHERE aid =
//! 99` find one cached identity, however long the text.
//! Computing an identity parses the text three times more (fingerprint,
//! normalise and the relation names are separate libpg_query calls), which
//! is why it is cached.
//!
//! Why this design. The hot path is one statement's end: the entries live
//! in `SHARDS` mutex-protected maps keyed by the (role, database, queryid)
//! triple, hashed with the integer hasher; a statement locks only its
//! entry's shard for a few additions, so sessions running different
//! statements do not meet and sessions running the same one meet for
//! tens of nanoseconds (PostgreSQL takes a spinlock per entry the same
//! way). No per-session buffering: a counter that waits for a flush would
//! make a just-finished statement invisible to the next query, and the
//! shard lock is already cheap (measured in docs/observability.md).
//!
//! Limit. At most `STAT_STATEMENTS_MAX` entries (PostgreSQL's
//! `pg_stat_statements.max` default, 5000). A new entry past it drops the
//! twentieth of the entries with the fewest calls first, as PostgreSQL
//! drops the 5 % least used (it weighs usage by a decaying factor; calls
//! are what Nestor has). Sessions inserting concurrently while one evicts
//! may overshoot the limit by one entry each.
//!
//! Left out: planning statistics (`plans` and the `*_plan_time` columns
//! are 0, as PostgreSQL with `pg_stat_statements.track_planning = off`,
//! its default), block and WAL counters (0: the tables are in memory and
//! the WAL is written at commit, not per statement), JIT (0: none),
//! and persistence across restarts (PostgreSQL saves the entries at a
//! clean shutdown).
//!
//! Nested statements. With `pg_stat_statements.track = all` the
//! statements PL/pgSQL and SQL functions run (through
//! `statement::execute_nested`) count too, under entries with
//! `toplevel` false (part of the key, as in PostgreSQL); with `top`, the
//! default, that path costs one test of the setting. PL/pgSQL's simple
//! expressions (`x := x + 1`, evaluated without the executor) are not
//! statements and do not count, as in PostgreSQL.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::Arc;

use nestor_common::hash::{IdBuildHasher, IdHashMap};
use nestor_common::limits::{
    STAT_STATEMENTS_MAX, STAT_STATEMENT_TEXTS_MAX, STAT_STATEMENT_TEXT_BYTES_MAX,
};
use parking_lot::Mutex;

const SHARDS: usize = 32;

/// A statement's identity in pg_stat_statements.
#[derive(Debug)]
pub struct QueryId {
    /// The fingerprint, as PostgreSQL's signed bigint queryid.
    pub queryid: i64,
    /// The normalised text.
    pub query: Arc<str>,
    /// A utility statement's (PostgreSQL's sense: not SELECT, INSERT,
    /// UPDATE, DELETE or MERGE), tracked only with track_utility on.
    pub utility: bool,
}

impl QueryId {
    /// The identity of `text` (one statement's text), computed.
    fn compute(text: &str) -> QueryId {
        match nestor_parser::fingerprint_normalize(text) {
            Some((fp, normalized)) => QueryId {
                queryid: fp as i64,
                query: Arc::from(cut(&normalized)),
                utility: false,
            },
            // libpg_query parsed the whole string, so this is a fragment
            // it cannot take alone: keep the text, hash it.
            None => {
                let mut h = std::collections::hash_map::DefaultHasher::new();
                text.hash(&mut h);
                QueryId {
                    queryid: h.finish() as i64,
                    query: Arc::from(cut(text)),
                    utility: false,
                }
            }
        }
    }
}

impl QueryId {
    /// A utility statement's identity: its text, hashed (a fixed-key
    /// SipHash, so the same text has the same queryid across restarts).
    fn utility(text: &str) -> QueryId {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        "utility".hash(&mut h);
        text.hash(&mut h);
        QueryId {
            queryid: h.finish() as i64,
            query: Arc::from(cut(text)),
            utility: true,
        }
    }
}

/// `text` cut to `STAT_STATEMENT_TEXT_BYTES_MAX` bytes at a character
/// boundary.
fn cut(text: &str) -> &str {
    let mut end = text.len().min(STAT_STATEMENT_TEXT_BYTES_MAX);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The text of one statement of a query string (`stmt_location` and
/// `stmt_len` as libpg_query gives them: a length of 0 runs to the end).
pub fn statement_text(text: &str, location: i32, len: i32) -> &str {
    let start = usize::try_from(location).unwrap_or(0);
    let end = match usize::try_from(len) {
        Ok(0) | Err(_) => text.len(),
        Ok(n) => start.saturating_add(n).min(text.len()),
    };
    text.get(start..end).unwrap_or(text)
}

/// Which entry a call adds to.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Key {
    userid: u32,
    dbid: u32,
    queryid: i64,
    /// Run by the client (not from inside a function), as PostgreSQL keys
    /// its entries too.
    toplevel: bool,
}

/// One entry's counters (times in milliseconds).
#[derive(Clone, Debug)]
struct Counters {
    query: Arc<str>,
    calls: u64,
    total_ms: f64,
    min_ms: f64,
    max_ms: f64,
    mean_ms: f64,
    /// Sum of squared differences from the mean (Welford).
    sum_var: f64,
    rows: u64,
    savepoints: u64,
}

/// One completed execution.
#[derive(Clone, Copy, Debug)]
pub struct Call {
    pub userid: u32,
    pub dbid: u32,
    /// Sent by the client; false for a statement a function ran
    /// (`pg_stat_statements.track = all`).
    pub toplevel: bool,
    pub elapsed_ms: f64,
    pub rows: u64,
    pub savepoints: u64,
}

/// One row of the view.
#[derive(Clone, Debug)]
pub struct EntryRow {
    pub userid: u32,
    pub dbid: u32,
    pub toplevel: bool,
    pub queryid: i64,
    pub query: Arc<str>,
    pub calls: u64,
    pub total_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub mean_ms: f64,
    pub stddev_ms: f64,
    pub rows: u64,
    pub savepoints: u64,
}

/// Identities by statement text (one shard of the cache).
type TextIds = HashMap<Box<str>, Arc<QueryId>, IdBuildHasher>;

/// The statistics of every tracked statement (one per server).
pub struct StatStatements {
    shards: Box<[Mutex<IdHashMap<Key, Counters>>]>,
    len: AtomicUsize,
    max: usize,
    evicting: Mutex<()>,
    /// Identities of simple-protocol statement texts.
    texts: Box<[Mutex<TextIds>]>,
    /// Entries dropped to make room (pg_stat_statements_info.dealloc).
    dealloc: AtomicI64,
    /// When everything was last reset (or the store made), microseconds
    /// since 2000-01-01.
    stats_reset_us: AtomicI64,
}

impl Default for StatStatements {
    fn default() -> Self {
        StatStatements::with_max(STAT_STATEMENTS_MAX)
    }
}

impl StatStatements {
    /// A store holding at most about `max` entries.
    pub fn with_max(max: usize) -> StatStatements {
        StatStatements {
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            len: AtomicUsize::new(0),
            max: max.max(1),
            evicting: Mutex::new(()),
            texts: (0..SHARDS).map(|_| Mutex::default()).collect(),
            dealloc: AtomicI64::new(0),
            stats_reset_us: AtomicI64::new(nestor_types::context::system_now()),
        }
    }

    fn shard(&self, key: &Key) -> usize {
        (IdBuildHasher::default().hash_one(key) >> 59) as usize % SHARDS
    }

    /// The identity of a statement's text, cached by the text itself and
    /// by its shape (its literals masked, `nestor_parser::shape_of`). A
    /// simple query served from the parse cache is planned against its
    /// template's text, the same text at every execution, so the exact
    /// text is found first, at the cost of one integer-hasher pass over it;
    /// other texts that differ only in constants meet under their shape
    /// (one scan for literals), whatever their length, and only a new
    /// shape pays libpg_query's three parses.
    pub fn identify(&self, text: &str) -> Arc<QueryId> {
        let text = text.trim();
        if text.len() > STAT_STATEMENT_TEXT_BYTES_MAX {
            return Arc::new(QueryId::compute(text));
        }
        if let Some(id) = self.cached(text) {
            return id;
        }
        let shape = nestor_parser::shape_of(text);
        let id = match shape.as_deref().and_then(|k| self.cached(k)) {
            Some(id) => id,
            None => {
                let id = Arc::new(QueryId::compute(text));
                if let Some(k) = shape.as_deref() {
                    self.remember(k, &id);
                }
                id
            }
        };
        self.remember(text, &id);
        id
    }

    /// The identity of a utility statement's text, as PostgreSQL 15 gives
    /// one (`compute_utility_query_id`): a hash of the text itself, which
    /// is kept as written (no constants replaced: `SET work_mem = '4MB'`
    /// and `... = '8MB'` are two entries). Cached by the text.
    pub fn identify_utility(&self, text: &str) -> Arc<QueryId> {
        let text = text.trim();
        if text.len() > STAT_STATEMENT_TEXT_BYTES_MAX {
            return Arc::new(QueryId::utility(text));
        }
        if let Some(id) = self.cached(text) {
            return id;
        }
        let id = Arc::new(QueryId::utility(text));
        self.remember(text, &id);
        id
    }

    /// The shard of the identity cache for `key`. The integer hasher is
    /// not collision-resistant against chosen texts; a shard holds at most
    /// `STAT_STATEMENT_TEXTS_MAX / SHARDS` keys, which bounds what
    /// colliding texts can cost a lookup.
    fn texts_shard(&self, key: &str) -> &Mutex<TextIds> {
        let h = IdBuildHasher::default().hash_one(key);
        &self.texts[(h >> 59) as usize % SHARDS]
    }

    fn cached(&self, key: &str) -> Option<Arc<QueryId>> {
        self.texts_shard(key).lock().get(key).cloned()
    }

    fn remember(&self, key: &str, id: &Arc<QueryId>) {
        let mut map = self.texts_shard(key).lock();
        if map.len() >= STAT_STATEMENT_TEXTS_MAX / SHARDS {
            map.clear();
        }
        map.insert(Box::from(key), id.clone());
    }

    /// Add one completed execution of `id`.
    pub fn record(&self, id: &QueryId, call: Call) {
        let key = Key {
            userid: call.userid,
            dbid: call.dbid,
            queryid: id.queryid,
            toplevel: call.toplevel,
        };
        let shard = &self.shards[self.shard(&key)];
        {
            let mut map = shard.lock();
            if let Some(c) = map.get_mut(&key) {
                add(c, &call);
                return;
            }
        }
        if self.len.load(Ordering::Relaxed) >= self.max {
            self.evict();
        }
        let mut map = shard.lock();
        let c = map.entry(key).or_insert_with(|| {
            self.len.fetch_add(1, Ordering::Relaxed);
            Counters {
                query: id.query.clone(),
                calls: 0,
                total_ms: 0.0,
                min_ms: 0.0,
                max_ms: 0.0,
                mean_ms: 0.0,
                sum_var: 0.0,
                rows: 0,
                savepoints: 0,
            }
        });
        add(c, &call);
    }

    /// Drop the twentieth of the entries with the fewest calls (one
    /// session at a time; the others go on inserting).
    fn evict(&self) {
        let Some(_guard) = self.evicting.try_lock() else {
            return;
        };
        if self.len.load(Ordering::Relaxed) < self.max {
            return;
        }
        let mut all: Vec<(u64, Key)> = Vec::with_capacity(self.max + SHARDS);
        for shard in self.shards.iter() {
            all.extend(shard.lock().iter().map(|(k, c)| (c.calls, *k)));
        }
        let n = (self.max / 20).max(1).min(all.len());
        all.select_nth_unstable_by_key(n.saturating_sub(1), |(calls, _)| *calls);
        for (_, key) in &all[..n] {
            if self.shards[self.shard(key)].lock().remove(key).is_some() {
                self.len.fetch_sub(1, Ordering::Relaxed);
                self.dealloc.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// pg_stat_statements_reset(userid, dbid, queryid): forget the entries
    /// matching each non-zero argument (all of them with none).
    pub fn reset(&self, userid: u32, dbid: u32, queryid: i64) {
        for shard in self.shards.iter() {
            let mut map = shard.lock();
            let before = map.len();
            map.retain(|k, _| {
                !((userid == 0 || k.userid == userid)
                    && (dbid == 0 || k.dbid == dbid)
                    && (queryid == 0 || k.queryid == queryid))
            });
            self.len.fetch_sub(before - map.len(), Ordering::Relaxed);
        }
        if userid == 0 && dbid == 0 && queryid == 0 {
            self.dealloc.store(0, Ordering::Relaxed);
            self.stats_reset_us
                .store(nestor_types::context::system_now(), Ordering::Relaxed);
        }
    }

    /// Entries dropped to make room since the last full reset.
    pub fn dealloc(&self) -> i64 {
        self.dealloc.load(Ordering::Relaxed)
    }

    /// When everything was last reset (pg_stat_statements_info).
    pub fn stats_reset_us(&self) -> i64 {
        self.stats_reset_us.load(Ordering::Relaxed)
    }

    /// Every entry now.
    pub fn rows(&self) -> Vec<EntryRow> {
        let mut out = Vec::new();
        for shard in self.shards.iter() {
            out.extend(shard.lock().iter().map(|(k, c)| EntryRow {
                userid: k.userid,
                dbid: k.dbid,
                toplevel: k.toplevel,
                queryid: k.queryid,
                query: c.query.clone(),
                calls: c.calls,
                total_ms: c.total_ms,
                min_ms: c.min_ms,
                max_ms: c.max_ms,
                mean_ms: c.mean_ms,
                stddev_ms: if c.calls > 1 {
                    (c.sum_var / c.calls as f64).sqrt()
                } else {
                    0.0
                },
                rows: c.rows,
                savepoints: c.savepoints,
            }));
        }
        out
    }
}

/// Add a call to an entry (PostgreSQL's pgss_store arithmetic).
fn add(c: &mut Counters, call: &Call) {
    let t = call.elapsed_ms;
    c.calls += 1;
    c.total_ms += t;
    if c.calls == 1 {
        c.min_ms = t;
        c.max_ms = t;
        c.mean_ms = t;
    } else {
        let old_mean = c.mean_ms;
        c.mean_ms += (t - old_mean) / c.calls as f64;
        c.sum_var += (t - old_mean) * (t - c.mean_ms);
        c.min_ms = c.min_ms.min(t);
        c.max_ms = c.max_ms.max(t);
    }
    c.rows += call.rows;
    c.savepoints += call.savepoints;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(ms: f64) -> Call {
        Call {
            userid: 10,
            dbid: 5,
            toplevel: true,
            elapsed_ms: ms,
            rows: 1,
            savepoints: 0,
        }
    }

    #[test]
    fn texts_differing_in_constants_share_an_entry() {
        let s = StatStatements::default();
        let a = s.identify("SELECT abalance FROM t WHERE aid = 17");
        let b = s.identify("SELECT abalance FROM t WHERE aid = 99");
        assert_eq!(a.queryid, b.queryid);
        assert_eq!(&*a.query, "SELECT abalance FROM t WHERE aid = $1");
        for ms in [1.0, 2.0, 3.0, 4.0] {
            s.record(&a, call(ms));
        }
        let rows = s.rows();
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        assert_eq!((r.calls, r.rows), (4, 4));
        assert_eq!(
            (r.min_ms, r.max_ms, r.mean_ms, r.total_ms),
            (1.0, 4.0, 2.5, 10.0)
        );
        // Population standard deviation of 1..4.
        assert!((r.stddev_ms - 1.25f64.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn long_texts_are_cut_at_a_character_boundary() {
        let s = StatStatements::default();
        let long = format!("SELECT '{}'", "é".repeat(STAT_STATEMENT_TEXT_BYTES_MAX));
        let a = s.identify(&long);
        assert_eq!(&*a.query, "SELECT $1");
        let odd = format!(
            "SELECT 1 AS \"{}\"",
            "é".repeat(STAT_STATEMENT_TEXT_BYTES_MAX)
        );
        let b = s.identify(&odd);
        assert!(b.query.len() <= STAT_STATEMENT_TEXT_BYTES_MAX);
        assert!(b.query.len() > STAT_STATEMENT_TEXT_BYTES_MAX - 2);
        assert!(b.query.starts_with("SELECT $1 AS \"é"));
    }

    #[test]
    fn relations_named_alike_stay_apart() {
        // libpg_query's fingerprint alone drops runs of digits from
        // relation names; PostgreSQL tells the relations apart.
        let s = StatStatements::default();
        let a = s.identify("SELECT 1 FROM part_11");
        let b = s.identify("SELECT 1 FROM part_22");
        let c = s.identify("SELECT   1 FROM part_22");
        assert_ne!(a.queryid, b.queryid);
        assert_eq!(b.queryid, c.queryid);
    }

    #[test]
    fn past_the_limit_the_least_called_entries_go() {
        let s = StatStatements::with_max(40);
        let popular = s.identify("SELECT 1 FROM popular");
        for _ in 0..5 {
            s.record(&popular, call(1.0));
        }
        for i in 0..100 {
            let id = s.identify(&format!("SELECT 1 FROM t{i}"));
            s.record(&id, call(1.0));
        }
        let rows = s.rows();
        assert!(rows.len() <= 40, "{}", rows.len());
        assert!(rows.iter().any(|r| r.queryid == popular.queryid));
        assert!(s.dealloc() >= 60, "{} {}", s.dealloc(), rows.len());
        s.reset(0, 0, popular.queryid);
        assert!(s.rows().iter().all(|r| r.queryid != popular.queryid));
        s.reset(0, 0, 0);
        assert!(s.rows().is_empty());
        assert_eq!(s.dealloc(), 0);
    }
}
