//! What a server knows about replication, shared by the walsenders and the
//! walreceiver (crates/server) that write it and the functions and views
//! that show it: `pg_is_in_recovery()`, `pg_last_wal_receive_lsn()`,
//! `pg_last_wal_replay_lsn()`, `pg_last_xact_replay_timestamp()`,
//! `pg_stat_replication` (on a primary, one row per walsender) and
//! `pg_stat_wal_receiver` (on a replica). The protocol itself is in
//! docs/replication.md.
//!
//! It also holds what the primary keeps its WAL for: the position each
//! replica (by application_name) last confirmed, kept after it disconnects
//! so that a replica that restarts finds the log it needs; bounded by
//! `replica_wal_keep_bytes_max` ([`Replication::retain_from`]).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;

use nestor_common::{Lsn, SessionId};
use parking_lot::{Condvar, Mutex};

/// One walsender, as pg_stat_replication shows it.
#[derive(Clone, Debug, Default)]
pub struct SenderStatus {
    pub pid: u32,
    pub usename: String,
    pub application_name: String,
    pub client_addr: Option<String>,
    pub backend_start_us: i64,
    /// startup, backup, catchup or streaming.
    pub state: &'static str,
    pub sent_lsn: Lsn,
    pub write_lsn: Lsn,
    pub flush_lsn: Lsn,
    pub replay_lsn: Lsn,
    /// Microseconds from a commit being durable on the primary to the
    /// replica's report of writing / flushing / replaying it (the last
    /// measured; None before the first report).
    pub write_lag_us: Option<i64>,
    pub flush_lag_us: Option<i64>,
    pub replay_lag_us: Option<i64>,
    /// async, sync or potential (synchronous_standby_names).
    pub sync_state: &'static str,
    pub reply_time_us: Option<i64>,
}

/// The walreceiver, as pg_stat_wal_receiver shows it.
#[derive(Clone, Debug, Default)]
pub struct ReceiverStatus {
    pub pid: u32,
    /// streaming, or waiting (reconnecting after a failure).
    pub status: &'static str,
    pub receive_start_lsn: Lsn,
    pub written_lsn: Lsn,
    pub flushed_lsn: Lsn,
    pub received_tli: i32,
    pub last_msg_send_time_us: Option<i64>,
    pub last_msg_receipt_time_us: Option<i64>,
    pub latest_end_lsn: Lsn,
    pub latest_end_time_us: Option<i64>,
    pub slot_name: Option<String>,
    pub sender_host: String,
    pub sender_port: i32,
    pub conninfo: String,
    /// The last failure, while reconnecting (shown in the log as well).
    pub last_error: Option<String>,
}

/// Replication state of one server.
#[derive(Default)]
pub struct Replication {
    in_recovery: AtomicBool,
    shutting_down: AtomicBool,
    /// synchronous_standby_names is set (one load on the commit path).
    sync_enabled: AtomicBool,
    receive_lsn: AtomicU64,
    replay_lsn: AtomicU64,
    /// Microseconds since 2000-01-01 of the last replayed commit's arrival
    /// (0: none yet).
    replay_time_us: AtomicI64,
    receiver: Mutex<Option<ReceiverStatus>>,
    senders: Mutex<BTreeMap<u32, SenderStatus>>,
    /// Replica name -> the oldest WAL position it may still ask for.
    retained: Mutex<BTreeMap<String, Lsn>>,
    /// pg_promote(): asked, and done.
    promote: Mutex<PromoteState>,
    promoted: Condvar,
    /// Commits waiting for synchronous replicas ([`Replication::wait_for`]):
    /// woken whenever a replica reports progress or goes away.
    progress: Condvar,
    progress_lock: Mutex<()>,
    /// synchronous_standby_names, parsed.
    sync: parking_lot::RwLock<SyncStandbys>,
}

/// `synchronous_standby_names` (PostgreSQL's syntax): `FIRST n (a, b, …)`
/// (the first n connected in list order are synchronous, the rest
/// potential), `ANY n (…)` (quorum: any n of them), `a, b` (= FIRST 1),
/// `*` matching any name. Empty: no synchronous replication.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SyncStandbys {
    pub quorum: bool,
    pub num: usize,
    pub names: Vec<String>,
}

impl SyncStandbys {
    pub fn parse(text: &str) -> Result<SyncStandbys, String> {
        let t = text.trim();
        if t.is_empty() {
            return Ok(SyncStandbys::default());
        }
        let upper = t.to_ascii_uppercase();
        let (quorum, rest) = if let Some(r) = upper.strip_prefix("ANY ") {
            (true, &t[t.len() - r.len()..])
        } else if let Some(r) = upper.strip_prefix("FIRST ") {
            (false, &t[t.len() - r.len()..])
        } else {
            (false, t)
        };
        let (num, list) = match rest.trim().split_once('(') {
            Some((n, l)) if !n.trim().is_empty() => {
                let num: usize = n.trim().parse().map_err(|_| {
                    format!("invalid number of synchronous standbys \"{}\"", n.trim())
                })?;
                let l = l
                    .trim()
                    .strip_suffix(')')
                    .ok_or_else(|| "missing \")\" in synchronous_standby_names".to_string())?;
                (num, l.to_string())
            }
            _ if rest.contains('(') => {
                return Err(format!("syntax error in synchronous_standby_names \"{t}\""))
            }
            _ => (1, rest.to_string()),
        };
        let names: Vec<String> = list
            .split(',')
            .map(|n| n.trim().trim_matches('"').to_string())
            .filter(|n| !n.is_empty())
            .collect();
        if names.is_empty() || num == 0 {
            return Err(format!("invalid synchronous_standby_names \"{t}\""));
        }
        if num > names.len() {
            return Err(format!(
                "the number of synchronous standbys ({num}) must not be greater than the number of standby names ({})",
                names.len()
            ));
        }
        Ok(SyncStandbys { quorum, num, names })
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The list position a replica's name takes (None: not listed).
    fn priority(&self, name: &str) -> Option<usize> {
        self.names
            .iter()
            .position(|n| n == "*" || n.eq_ignore_ascii_case(name))
    }
}

/// How far a synchronous commit waits (synchronous_commit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncLevel {
    /// remote_write: the replica has written the commit.
    Write,
    /// on: the replica has flushed it.
    Flush,
    /// remote_apply: the replica has applied it (visible there).
    Apply,
}

impl SyncLevel {
    /// The level a synchronous_commit value asks of replicas (None: off,
    /// local).
    pub fn of(setting: &str) -> Option<SyncLevel> {
        match setting {
            "remote_write" => Some(SyncLevel::Write),
            "on" => Some(SyncLevel::Flush),
            "remote_apply" => Some(SyncLevel::Apply),
            _ => None,
        }
    }
}

/// How a wait for synchronous replicas ended, when not by their reports.
#[derive(Debug, PartialEq, Eq)]
pub enum SyncWaitEnd {
    Cancelled,
    ShuttingDown,
}

#[derive(Default, Clone, Copy, PartialEq, Eq)]
struct PromoteState {
    requested: bool,
    done: bool,
}

impl Replication {
    pub fn new() -> Arc<Replication> {
        Arc::new(Replication::default())
    }

    pub fn in_recovery(&self) -> bool {
        self.in_recovery.load(Ordering::SeqCst)
    }

    /// A replica, from start-up until promotion.
    pub fn set_in_recovery(&self, on: bool) {
        self.in_recovery.store(on, Ordering::SeqCst);
    }

    pub fn receive_lsn(&self) -> Option<Lsn> {
        match self.receive_lsn.load(Ordering::SeqCst) {
            0 => None,
            n => Some(Lsn(n)),
        }
    }

    pub fn set_receive_lsn(&self, lsn: Lsn) {
        self.receive_lsn.store(lsn.0, Ordering::SeqCst);
    }

    pub fn replay_lsn(&self) -> Option<Lsn> {
        match self.replay_lsn.load(Ordering::SeqCst) {
            0 => None,
            n => Some(Lsn(n)),
        }
    }

    pub fn set_replay_lsn(&self, lsn: Lsn) {
        self.replay_lsn.store(lsn.0, Ordering::SeqCst);
    }

    pub fn replay_time_us(&self) -> Option<i64> {
        match self.replay_time_us.load(Ordering::SeqCst) {
            0 => None,
            t => Some(t),
        }
    }

    pub fn set_replay_time_us(&self, t: i64) {
        self.replay_time_us.store(t, Ordering::SeqCst);
    }

    pub fn receiver(&self) -> Option<ReceiverStatus> {
        self.receiver.lock().clone()
    }

    pub fn update_receiver(&self, f: impl FnOnce(&mut ReceiverStatus)) {
        f(self.receiver.lock().get_or_insert_with(Default::default));
    }

    pub fn clear_receiver(&self) {
        *self.receiver.lock() = None;
    }

    pub fn senders(&self) -> Vec<SenderStatus> {
        self.senders.lock().values().cloned().collect()
    }

    pub fn sender_count(&self) -> usize {
        self.senders.lock().len()
    }

    /// Register a walsender if fewer than `max` run; false when full.
    pub fn add_sender(&self, s: SenderStatus, max: usize) -> bool {
        let mut senders = self.senders.lock();
        if senders.len() >= max {
            return false;
        }
        senders.insert(s.pid, s);
        true
    }

    pub fn update_sender(&self, pid: SessionId, f: impl FnOnce(&mut SenderStatus)) {
        {
            let mut senders = self.senders.lock();
            if let Some(s) = senders.get_mut(&pid.0) {
                f(s);
            }
            self.assign_sync_states(&mut senders);
        }
        let _g = self.progress_lock.lock();
        self.progress.notify_all();
    }

    pub fn set_sync_standbys(&self, s: SyncStandbys) {
        self.sync_enabled.store(!s.is_empty(), Ordering::SeqCst);
        *self.sync.write() = s;
        self.assign_sync_states(&mut self.senders.lock());
    }

    /// Whether commits may have to wait for replicas at all.
    pub fn sync_enabled(&self) -> bool {
        self.sync_enabled.load(Ordering::Relaxed)
    }

    pub fn sync_standbys(&self) -> SyncStandbys {
        self.sync.read().clone()
    }

    /// sync_state of every walsender: FIRST n: the n streaming replicas
    /// listed earliest are `sync`, other listed ones `potential`; ANY n:
    /// every listed one is `quorum`; unlisted ones are `async`.
    fn assign_sync_states(&self, senders: &mut BTreeMap<u32, SenderStatus>) {
        let sync = self.sync.read();
        let mut listed: Vec<(usize, u32)> = Vec::new();
        for s in senders.values_mut() {
            s.sync_state = "async";
            if s.state == "streaming" {
                if let Some(p) = sync.priority(&s.application_name) {
                    listed.push((p, s.pid));
                }
            }
        }
        listed.sort();
        for (i, (_, pid)) in listed.iter().enumerate() {
            let s = senders.get_mut(pid).expect("listed above");
            s.sync_state = if sync.quorum {
                "quorum"
            } else if i < sync.num {
                "sync"
            } else {
                "potential"
            };
        }
    }

    /// The position every required synchronous replica has reached at
    /// `level`: with FIRST n the least of the n chosen ones, with ANY n
    /// the n-th highest among the listed ones; None while fewer than n
    /// are connected.
    fn synced_lsn(&self, level: SyncLevel) -> Option<Lsn> {
        // Lock order: senders, then sync (assign_sync_states).
        let num = self.sync.read().num;
        let senders = self.senders.lock();
        let mut positions: Vec<Lsn> = senders
            .values()
            .filter(|s| matches!(s.sync_state, "sync" | "quorum"))
            .map(|s| match level {
                SyncLevel::Write => s.write_lsn,
                SyncLevel::Flush => s.flush_lsn,
                SyncLevel::Apply => s.replay_lsn,
            })
            .collect();
        if num == 0 || positions.len() < num {
            return None;
        }
        positions.sort_unstable_by(|a, b| b.cmp(a));
        Some(positions[num - 1])
    }

    /// A commit whose log ends at `lsn` waits until the synchronous
    /// replicas have it at `level` (PostgreSQL's SyncRepWaitForLSN).
    /// Returns at once when synchronous replication is off. The commit
    /// is already durable and visible here: a cancel or shutdown ends
    /// the wait (the caller warns, as PostgreSQL does), nothing undoes it.
    pub fn wait_for(
        &self,
        lsn: Lsn,
        level: SyncLevel,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<(), SyncWaitEnd> {
        if self.sync.read().is_empty() || self.in_recovery() {
            return Ok(());
        }
        let mut g = self.progress_lock.lock();
        loop {
            if self.synced_lsn(level).is_some_and(|at| at >= lsn) {
                return Ok(());
            }
            if cancelled() {
                return Err(SyncWaitEnd::Cancelled);
            }
            if self.shutting_down.load(Ordering::SeqCst) {
                return Err(SyncWaitEnd::ShuttingDown);
            }
            self.progress
                .wait_for(&mut g, std::time::Duration::from_millis(100));
        }
    }

    /// After a commit that wrote (its CSN known): wait for the synchronous
    /// replicas as `synchronous_commit` asks, with the log's durable end as
    /// the position (it covers the commit). A wait cut short returns
    /// PostgreSQL's WARNING; the commit stands either way.
    pub fn wait_after_commit(
        &self,
        log: &nestor_wal::SwitchLog,
        synchronous_commit: Option<&str>,
        cancelled: &dyn Fn() -> bool,
    ) -> Option<nestor_common::DbError> {
        if !self.sync_enabled() {
            return None;
        }
        let level = synchronous_commit.and_then(SyncLevel::of)?;
        let lsn = log.wal()?.durable_lsn();
        let end = self.wait_for(lsn, level, cancelled).err()?;
        let why = match end {
            SyncWaitEnd::Cancelled => "due to user request",
            SyncWaitEnd::ShuttingDown => "due to server shutdown",
        };
        Some(
            nestor_common::DbError::new(
                nestor_common::SqlState::Warning,
                format!("canceling wait for synchronous replication {why}"),
            )
            .with_detail(
                "The transaction has already committed locally, but might not have been replicated to the standby.",
            )
            .with_severity(nestor_common::error::Severity::Warning),
        )
    }

    /// Server shutdown: commits waiting for replicas stop waiting.
    pub fn shut_down(&self) {
        self.shutting_down.store(true, Ordering::SeqCst);
        let _g = self.progress_lock.lock();
        self.progress.notify_all();
    }

    pub fn remove_sender(&self, pid: SessionId) {
        {
            let mut senders = self.senders.lock();
            senders.remove(&pid.0);
            self.assign_sync_states(&mut senders);
        }
        let _g = self.progress_lock.lock();
        self.progress.notify_all();
    }

    /// Keep the WAL from `lsn` on for replica `name` (it may still ask
    /// for it: its base image's cut, or the position it confirmed).
    pub fn retain(&self, name: &str, lsn: Lsn) {
        self.retained.lock().insert(name.to_string(), lsn);
    }

    /// Where a checkpoint whose cut is `cut` may remove WAL up to: before
    /// every retained position, but never keeping more than
    /// `keep_bytes_max` before the log's end `end`. A replica whose
    /// position falls further behind loses it (it will have to copy a new
    /// base image, and says so) and is forgotten here.
    pub fn retain_from(&self, cut: Lsn, end: Lsn, keep_bytes_max: u64) -> Lsn {
        let floor = Lsn(end.0.saturating_sub(keep_bytes_max));
        let mut retained = self.retained.lock();
        retained.retain(|name, lsn| {
            let kept = *lsn >= floor;
            if !kept {
                nestor_common::log::log(&format!(
                    "replica \"{name}\" needs WAL from {} but is more than {keep_bytes_max} bytes behind; that WAL is no longer kept for it",
                    lsn.pg_text()
                ));
            }
            kept
        });
        retained.values().copied().fold(cut, Lsn::min)
    }

    /// pg_promote(): ask the walreceiver to stop and this server to become
    /// a primary; wait up to `wait_ms` (0: do not wait). True when promoted.
    pub fn request_promotion(&self, wait_ms: u64) -> bool {
        let mut p = self.promote.lock();
        p.requested = true;
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(wait_ms);
        while !p.done && wait_ms > 0 {
            if self.promoted.wait_until(&mut p, deadline).timed_out() {
                break;
            }
        }
        p.done
    }

    pub fn promotion_requested(&self) -> bool {
        self.promote.lock().requested
    }

    /// The replica is now a primary.
    pub fn promotion_done(&self) {
        self.set_in_recovery(false);
        let mut p = self.promote.lock();
        p.done = true;
        self.promoted.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synchronous_standby_names_parse_as_postgresql_reads_them() {
        let p = |t: &str| SyncStandbys::parse(t);
        assert_eq!(p("").unwrap(), SyncStandbys::default());
        assert_eq!(
            p("r1").unwrap(),
            SyncStandbys {
                quorum: false,
                num: 1,
                names: vec!["r1".into()]
            }
        );
        assert_eq!(
            p("FIRST 2 (a, b, c)").unwrap(),
            SyncStandbys {
                quorum: false,
                num: 2,
                names: vec!["a".into(), "b".into(), "c".into()]
            }
        );
        assert_eq!(
            p("any 1 (a, \"b\")").unwrap(),
            SyncStandbys {
                quorum: true,
                num: 1,
                names: vec!["a".into(), "b".into()]
            }
        );
        assert_eq!(p("2 (a, b)").unwrap().num, 2);
        assert!(p("FIRST 3 (a, b)").is_err());
        assert!(p("FIRST x (a)").is_err());
        assert!(p("FIRST 1 (a").is_err());
    }

    fn sender(pid: u32, name: &str, flush: u64) -> SenderStatus {
        SenderStatus {
            pid,
            application_name: name.into(),
            state: "streaming",
            flush_lsn: Lsn(flush),
            ..Default::default()
        }
    }

    #[test]
    fn commits_wait_for_the_chosen_replicas_only() {
        let r = Replication::default();
        r.set_sync_standbys(SyncStandbys::parse("FIRST 1 (b, a)").unwrap());
        assert!(r.add_sender(sender(1, "a", 500), 10));
        assert!(r.add_sender(sender(2, "b", 100), 10));
        assert!(r.add_sender(sender(3, "c", 900), 10));
        r.update_sender(SessionId(1), |_| {});
        let states: Vec<_> = r.senders().iter().map(|s| s.sync_state).collect();
        assert_eq!(states, ["potential", "sync", "async"]);
        // b (listed first) is the synchronous one: 100 is synced, 500 not.
        assert_eq!(r.wait_for(Lsn(100), SyncLevel::Flush, &|| false), Ok(()));
        assert_eq!(
            r.wait_for(Lsn(500), SyncLevel::Flush, &|| true),
            Err(SyncWaitEnd::Cancelled)
        );
        // b goes away: a takes over.
        r.remove_sender(SessionId(2));
        assert_eq!(r.wait_for(Lsn(500), SyncLevel::Flush, &|| false), Ok(()));
        // Quorum: any 2 of a, c: the second highest counts.
        r.set_sync_standbys(SyncStandbys::parse("ANY 2 (a, c)").unwrap());
        assert_eq!(r.synced_lsn(SyncLevel::Flush), Some(Lsn(500)));
        r.shut_down();
        assert_eq!(
            r.wait_for(Lsn(600), SyncLevel::Flush, &|| false),
            Err(SyncWaitEnd::ShuttingDown)
        );
    }

    #[test]
    fn wal_is_kept_for_replicas_up_to_the_limit() {
        let r = Replication::default();
        // No replica: a checkpoint removes up to its cut.
        assert_eq!(r.retain_from(Lsn(1000), Lsn(5000), 10_000), Lsn(1000));
        // A replica at 400 (connected or not) holds the WAL back ...
        r.retain("r1", Lsn(400));
        assert_eq!(r.retain_from(Lsn(1000), Lsn(5000), 10_000), Lsn(400));
        // ... until it is more than the limit behind the end: then it is
        // forgotten and the cut applies.
        assert_eq!(r.retain_from(Lsn(1000), Lsn(5000), 4_000), Lsn(1000));
        assert_eq!(r.retain_from(Lsn(1000), Lsn(5000), 10_000), Lsn(1000));
        // A position past the cut never moves the removal point forward.
        r.retain("r2", Lsn(3000));
        assert_eq!(r.retain_from(Lsn(1000), Lsn(5000), 10_000), Lsn(1000));
    }
}
