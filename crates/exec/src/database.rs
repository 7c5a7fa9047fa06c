//! The shared state every statement runs against: transaction manager,
//! tables, catalog, the registry of sessions and the commit log. One
//! `Arc<Database>` is shared by all sessions; durability (recovery,
//! checkpoints) is layered on top by `nestor-durable`.

use std::sync::Arc;

use nestor_catalog::Catalog;
use nestor_common::{Csn, Lsn, Xid};
use nestor_storage::Store;
use nestor_txn::TxnManager;
use nestor_wal::SwitchLog;

use crate::registry::Registry;
use crate::replication::Replication;

pub struct Database {
    pub txn: Arc<TxnManager>,
    pub store: Arc<Store>,
    pub catalog: Catalog,
    pub sessions: Registry,
    /// The commit log: nothing until recovery has finished, then the WAL
    /// (never set for an in-memory database).
    pub log: Arc<SwitchLog>,
    /// Replica or primary, and what its walsenders / walreceiver report.
    pub replication: Arc<Replication>,
    /// pg_stat_statements (`crate::stat_statements`).
    pub stat_statements: crate::stat_statements::StatStatements,
    /// pg_stat_database and pg_stat_all_tables' counters (`crate::stats`).
    pub stats: crate::stats::DbStats,
    /// nestor_wait_sampling_* (`crate::wait_sampling`).
    pub wait_sampling: crate::wait_sampling::WaitSampling,
}

impl Database {
    /// An empty database whose commits go to `log`.
    pub fn new(max_connections: usize, log: Arc<SwitchLog>) -> Database {
        let txn = TxnManager::with_log(log.clone(), Xid(1), Csn::BOOTSTRAP);
        let store = Store::new(txn.clone());
        let catalog = Catalog::new();
        store.set_commit_hook(catalog.sequence_hook());
        // Recovery and replicas bind computed indexes through this.
        nestor_catalog::set_index_binder(|c, t, i| {
            nestor_plan::select::index_expr::install_keys(c, t, i).map_err(|e| e.into_message())
        });
        Database {
            txn,
            store,
            catalog,
            sessions: Registry::new(max_connections),
            log,
            replication: Replication::new(),
            stat_statements: Default::default(),
            stats: Default::default(),
            wait_sampling: Default::default(),
        }
    }

    /// An empty in-memory database (nothing is written anywhere).
    pub fn in_memory(max_connections: usize) -> Arc<Database> {
        Arc::new(Database::new(
            max_connections,
            Arc::new(SwitchLog::default()),
        ))
    }

    /// The WAL's next LSN (0 without a WAL).
    pub(crate) fn wal_lsn(&self) -> Lsn {
        self.log.wal().map_or(Lsn(0), |w| w.next_lsn())
    }
}
