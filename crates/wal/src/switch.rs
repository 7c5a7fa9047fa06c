//! The commit log a server's transaction manager is built with: until
//! recovery has finished it logs nothing (replayed work is already in the
//! WAL); then it forwards to the [`Wal`]. An in-memory database never sets
//! one and so never writes anything.

use std::sync::Arc;

use nestor_common::{Csn, Xid};
use nestor_txn::{CommitLog, RedoBuffer};
use parking_lot::RwLock;

use crate::Wal;

#[derive(Default)]
pub struct SwitchLog {
    wal: RwLock<Option<Arc<Wal>>>,
}

impl SwitchLog {
    pub fn set(&self, wal: Arc<Wal>) {
        *self.wal.write() = Some(wal);
    }

    pub fn wal(&self) -> Option<Arc<Wal>> {
        self.wal.read().clone()
    }
}

impl CommitLog for SwitchLog {
    fn redo_buffer(&self, xid: Xid) -> Box<dyn RedoBuffer> {
        match self.wal() {
            Some(w) => w.redo_buffer(xid),
            None => nestor_txn::NoLog.redo_buffer(xid),
        }
    }

    fn append(&self, xid: Xid, csn: Csn, redo: Box<dyn RedoBuffer>) {
        if let Some(w) = self.wal() {
            w.append(xid, csn, redo);
        }
    }

    fn wait_durable(&self, csn: Csn) {
        if let Some(w) = self.wal() {
            w.wait_durable(csn);
        }
    }
}
