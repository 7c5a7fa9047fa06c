//! Wait sampling, built in (what the pg_wait_sampling extension adds to
//! PostgreSQL): a background thread looks at every session every
//! `--wait-sampling-period-ms` (WAIT_SAMPLING_PERIOD_MS, 10 ms, by
//! default; `nestor_durable`'s sampler thread) and records what it is waiting on, so an
//! operator can see where time goes without tracing anything.
//!
//! ```text
//!   every 10 ms:  for each session: (pid, wait_event_type, wait_event)
//!                   active, in the lock table   -> (Lock, tuple | transactionid | relation | advisory)
//!                   active, pg_sleep and others -> their event (Timeout, PgSleep)
//!                   active, running             -> (NULL, NULL): on CPU
//!                   idle                        -> (Client, ClientRead)
//!                 profile[(pid, type, event)] += 1
//!                 history ring (bounded) gets (ts, pid, type, event)
//! ```
//!
//! The views: `nestor_wait_sampling_profile` (pid, event_type, event,
//! count; pg_wait_sampling_profile without queryid) and
//! `nestor_wait_sampling_history` (pid, ts, event_type, event: the last
//! `WAIT_SAMPLING_HISTORY_MAX` samples); `nestor_wait_sampling_reset_profile()`
//! clears the profile. The seeds' authors found SubtransSLRU this way;
//! Nestor has no SLRUs, so what shows is lock waits, client reads and CPU.
//!
//! Cost: one sample takes the registry's mutex, each session's activity
//! mutex for a few loads, and the lock table's mutex once (all waits in one
//! look), never per session; the SQL path only ever contends with that for
//! the time of a copy. Left out: queryid per sample, per-backend history
//! filters, the history size as a setting (a named constant).

use std::collections::{HashMap, VecDeque};

use nestor_common::limits::WAIT_SAMPLING_HISTORY_MAX;
use nestor_common::SessionId;
use parking_lot::Mutex;

use crate::registry::Registry;
pub use crate::registry::WaitEvent;

/// One sample in the history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistoryRow {
    /// Microseconds since 2000-01-01 UTC.
    pub ts_us: i64,
    pub pid: SessionId,
    pub event: WaitEvent,
}

#[derive(Default)]
pub struct WaitSampling {
    profile: Mutex<HashMap<(SessionId, WaitEvent), u64>>,
    history: Mutex<VecDeque<HistoryRow>>,
}

impl WaitSampling {
    /// Take one sample of every session now.
    pub fn sample(&self, sessions: &Registry, locks: &nestor_txn::LockTable, now_us: i64) {
        let samples = sessions.wait_samples(locks);
        if samples.is_empty() {
            return;
        }
        {
            let mut p = self.profile.lock();
            for &(pid, event) in &samples {
                *p.entry((pid, event)).or_default() += 1;
            }
        }
        let mut h = self.history.lock();
        for (pid, event) in samples {
            if h.len() == WAIT_SAMPLING_HISTORY_MAX {
                h.pop_front();
            }
            h.push_back(HistoryRow {
                ts_us: now_us,
                pid,
                event,
            });
        }
    }

    /// The profile: counts per (pid, event), by pid then event.
    pub fn profile(&self) -> Vec<(SessionId, WaitEvent, u64)> {
        let mut rows: Vec<_> = self
            .profile
            .lock()
            .iter()
            .map(|(&(pid, ev), &n)| (pid, ev, n))
            .collect();
        rows.sort_by_key(|&(pid, ev, _)| (pid.0, ev));
        rows
    }

    /// The history, oldest first.
    pub fn history(&self) -> Vec<HistoryRow> {
        self.history.lock().iter().copied().collect()
    }

    /// nestor_wait_sampling_reset_profile().
    pub fn reset_profile(&self) {
        self.profile.lock().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_keeps_the_newest_samples_only() {
        let w = WaitSampling::default();
        {
            let mut h = w.history.lock();
            for i in 0..WAIT_SAMPLING_HISTORY_MAX + 3 {
                if h.len() == WAIT_SAMPLING_HISTORY_MAX {
                    h.pop_front();
                }
                h.push_back(HistoryRow {
                    ts_us: i as i64,
                    pid: SessionId(1),
                    event: None,
                });
            }
        }
        let h = w.history();
        assert_eq!(h.len(), WAIT_SAMPLING_HISTORY_MAX);
        assert_eq!(h[0].ts_us, 3);
    }
}
