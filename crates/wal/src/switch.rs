//! The commit log a server's transaction manager is built with: until
//! recovery has finished it logs nothing (replayed work is already in the
//! WAL); then it forwards to the [`Wal`]. An in-memory database never sets
//! one and so never writes anything.
//!
//! A replica sets its log in *apply-only* mode: the log holds the records
//! streamed from the primary (appended by the walreceiver with
//! [`Wal::append_raw`]), and the local commits that make them visible log
//! nothing, exactly like recovery's. Promotion switches it to normal mode:
//! from then on commits append after the last replicated record.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use nestor_common::{Csn, Xid};
use nestor_txn::{CommitLog, RedoBuffer};
use parking_lot::RwLock;

use crate::Wal;

#[derive(Default)]
pub struct SwitchLog {
    wal: RwLock<Option<Arc<Wal>>>,
    apply_only: AtomicBool,
}

impl SwitchLog {
    pub fn set(&self, wal: Arc<Wal>) {
        *self.wal.write() = Some(wal);
    }

    /// A replica's log: kept for streaming into, not for local commits.
    pub fn set_apply_only(&self, wal: Arc<Wal>) {
        self.apply_only.store(true, Ordering::SeqCst);
        self.set(wal);
    }

    /// Promotion: local commits are logged from now on.
    pub fn end_apply_only(&self) {
        self.apply_only.store(false, Ordering::SeqCst);
    }

    pub fn wal(&self) -> Option<Arc<Wal>> {
        self.wal.read().clone()
    }

    /// The log local commits go to (none on a replica).
    fn commit_wal(&self) -> Option<Arc<Wal>> {
        if self.apply_only.load(Ordering::SeqCst) {
            return None;
        }
        self.wal()
    }
}

impl CommitLog for SwitchLog {
    fn redo_buffer(&self, xid: Xid) -> Box<dyn RedoBuffer> {
        match self.commit_wal() {
            Some(w) => w.redo_buffer(xid),
            None => nestor_txn::NoLog.redo_buffer(xid),
        }
    }

    fn append(&self, xid: Xid, csn: Csn, redo: Box<dyn RedoBuffer>) {
        if let Some(w) = self.commit_wal() {
            w.append(xid, csn, redo);
        }
    }

    fn wait_durable(&self, csn: Csn) {
        if let Some(w) = self.commit_wal() {
            w.wait_durable(csn);
        }
    }
}
