//! Test fixture: a store with one table `t (id int8 primary key, v int8)`
//! and helpers that act like one SQL statement each.

#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use nestor_common::{RelId, RowId, SessionId};
use nestor_storage::{Index, LockResult, Recheck, Store, Table, WriteResult};
use nestor_txn::{
    Isolation, LockMode, SnapshotSlot, Transaction, TxnError, TxnManager, WaitCtl, WaitPolicy,
};
use nestor_types::{Row, Value};

pub const T: RelId = RelId(16384);

pub struct Db {
    pub mgr: Arc<TxnManager>,
    pub store: Arc<Store>,
    pub table: Arc<Table>,
    pub pkey: Arc<Index>,
}

pub fn row(id: i64, v: i64) -> Row {
    Arc::from(vec![Value::Int8(id), Value::Int8(v)])
}

pub fn int(v: &Value) -> i64 {
    match v {
        Value::Int8(i) => *i,
        other => panic!("not int8: {other:?}"),
    }
}

pub fn ctl_ms(deadlock_ms: u64) -> WaitCtl<'static> {
    WaitCtl {
        deadlock_timeout: Duration::from_millis(deadlock_ms),
        ..WaitCtl::unbounded()
    }
}

impl Db {
    pub fn new() -> Db {
        Db::with_log(TxnManager::new())
    }

    pub fn with_log(mgr: Arc<TxnManager>) -> Db {
        let store = Store::new(mgr.clone());
        let table = store.create_table(T, "t");
        let pkey = Arc::new(Index::new(
            RelId(16385),
            "t_pkey",
            vec![0],
            vec!["id".into()],
            true,
            true,
        ));
        table.add_index(pkey.clone()).unwrap();
        Db {
            mgr,
            store,
            table,
            pkey,
        }
    }

    /// A new session: its own snapshot slot and id.
    pub fn session(&self, id: u32) -> Session<'_> {
        Session {
            db: self,
            slot: self.mgr.register_slot(),
            id: SessionId(id),
        }
    }

    /// Insert rows (id, v) and commit.
    pub fn seed(&self, rows: &[(i64, i64)]) {
        let s = self.session(999);
        let mut t = s.begin(Isolation::ReadCommitted);
        t.start_statement().unwrap();
        for &(id, v) in rows {
            self.table
                .insert(&mut t, &row(id, v), &WaitCtl::unbounded())
                .unwrap();
        }
        t.commit();
    }

    /// Latest committed state, sorted by id.
    pub fn committed(&self) -> Vec<(i64, i64)> {
        let s = self.session(998);
        let mut t = s.begin(Isolation::ReadCommitted);
        let snap = t.start_statement().unwrap();
        let mut out: Vec<(i64, i64)> = self
            .table
            .scan(&snap)
            .map(|tu| (int(&tu.data[0]), int(&tu.data[1])))
            .collect();
        out.sort();
        out
    }

    pub fn row_id(&self, id: i64) -> RowId {
        let s = self.session(997);
        let mut t = s.begin(Isolation::ReadCommitted);
        let snap = t.start_statement().unwrap();
        let k = [Value::Int8(id)];
        let found = self.table.index_scan(
            &self.pkey,
            std::ops::Bound::Included(&k[..]),
            std::ops::Bound::Included(&k[..]),
            &snap,
        );
        found.first().map(|t| t.row).unwrap_or_else(|| {
            // Fall back to any version's row (for rows invisible right now).
            self.pkey
                .range_row_ids(
                    std::ops::Bound::Included(&k[..]),
                    std::ops::Bound::Included(&k[..]),
                )
                .first()
                .copied()
                .expect("row id of key")
        })
    }
}

pub struct Session<'a> {
    pub db: &'a Db,
    pub slot: Arc<SnapshotSlot>,
    pub id: SessionId,
}

impl Session<'_> {
    pub fn begin(&self, iso: Isolation) -> Transaction {
        Transaction::begin(
            self.db.mgr.clone(),
            self.db.store.clone(),
            self.slot.clone(),
            self.id,
            iso,
        )
    }
}

/// SELECT v FROM t WHERE id = $1 as one statement.
pub fn read(db: &Db, t: &mut Transaction, id: i64) -> Option<i64> {
    let snap = t.start_statement().unwrap();
    get_in(db, &snap, id)
}

pub fn get_in(db: &Db, snap: &nestor_txn::Snapshot, id: i64) -> Option<i64> {
    let k = [Value::Int8(id)];
    db.table
        .index_scan(
            &db.pkey,
            std::ops::Bound::Included(&k[..]),
            std::ops::Bound::Included(&k[..]),
            snap,
        )
        .first()
        .map(|tu| int(&tu.data[1]))
}

/// SELECT count(*) FROM t WHERE v >= lo as one statement.
pub fn count_ge(db: &Db, t: &mut Transaction, lo: i64) -> usize {
    let snap = t.start_statement().unwrap();
    db.table
        .scan(&snap)
        .filter(|tu| int(&tu.data[1]) >= lo)
        .count()
}

/// UPDATE t SET v = f(v) WHERE id = $1, with READ COMMITTED re-check
/// (EvalPlanQual) of the newest version. Returns rows updated.
pub fn update_with(
    db: &Db,
    t: &mut Transaction,
    id: i64,
    ctl: &WaitCtl<'_>,
    f: impl Fn(i64) -> i64,
) -> Result<usize, nestor_storage::StorageError> {
    let snap = t.start_statement().unwrap();
    let k = [Value::Int8(id)];
    let hits = db.table.index_scan(
        &db.pkey,
        std::ops::Bound::Included(&k[..]),
        std::ops::Bound::Included(&k[..]),
        &snap,
    );
    let mut n = 0;
    for tu in hits {
        let mut cur: Row = tu.data.clone().into();
        let mut recheck = Recheck::Snapshot;
        loop {
            let new = row(id, f(int(&cur[1])));
            match db.table.update(t, tu.row, &new, &snap, ctl, recheck)? {
                WriteResult::Done => {
                    n += 1;
                    break;
                }
                WriteResult::Changed(newest) => {
                    cur = newest;
                    recheck = Recheck::Latest;
                }
                WriteResult::Gone | WriteResult::SelfModified | WriteResult::ModifiedLater => break,
            }
        }
    }
    Ok(n)
}

/// UPDATE t SET v = $2 WHERE id = $1.
pub fn set(
    db: &Db,
    t: &mut Transaction,
    id: i64,
    v: i64,
) -> Result<usize, nestor_storage::StorageError> {
    update_with(db, t, id, &WaitCtl::unbounded(), |_| v)
}

/// DELETE FROM t WHERE id = $1.
pub fn delete(
    db: &Db,
    t: &mut Transaction,
    id: i64,
) -> Result<usize, nestor_storage::StorageError> {
    let snap = t.start_statement().unwrap();
    let Some(tu) = db.table.get(db.row_id(id), &snap) else {
        return Ok(0);
    };
    match db
        .table
        .delete(t, tu.row, &snap, &WaitCtl::unbounded(), Recheck::Snapshot)?
    {
        WriteResult::Done => Ok(1),
        _ => Ok(0),
    }
}

/// INSERT INTO t VALUES ($1, $2).
pub fn insert(
    db: &Db,
    t: &mut Transaction,
    id: i64,
    v: i64,
) -> Result<RowId, nestor_storage::StorageError> {
    t.start_statement().unwrap();
    db.table.insert(t, &row(id, v), &WaitCtl::unbounded())
}

/// SELECT ... WHERE id = $1 FOR <mode> [NOWAIT | SKIP LOCKED].
pub fn lock(
    db: &Db,
    t: &mut Transaction,
    id: i64,
    mode: LockMode,
    policy: WaitPolicy,
    ctl: &WaitCtl<'_>,
) -> Result<LockResult, nestor_storage::StorageError> {
    let snap = t.start_statement().unwrap();
    let rid = db.row_id(id);
    db.table
        .lock_row(t, rid, mode, policy, &snap, ctl, Recheck::Snapshot)
}

pub fn is_txn_err(e: &nestor_storage::StorageError, want: fn(&TxnError) -> bool) -> bool {
    matches!(e, nestor_storage::StorageError::Txn(t) if want(t))
}

/// Block until some transaction waits on `key` (bounded: panics after 2 s).
pub fn wait_for_waiter(db: &Db, key: nestor_txn::LockKey) {
    for _ in 0..2000 {
        if db.mgr.locks.info(key).is_some_and(|i| i.waiters > 0) {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    panic!("nobody blocked on {key:?}");
}

/// SELECT ... FOR <mode>, waiting as long as it takes.
pub fn lock_wait(
    db: &Db,
    t: &mut Transaction,
    id: i64,
    mode: LockMode,
) -> Result<LockResult, nestor_storage::StorageError> {
    lock(db, t, id, mode, WaitPolicy::Block, &WaitCtl::unbounded())
}

/// SELECT ... FOR <mode> NOWAIT.
pub fn lock_nowait(
    db: &Db,
    t: &mut Transaction,
    id: i64,
    mode: LockMode,
) -> Result<LockResult, nestor_storage::StorageError> {
    lock(db, t, id, mode, WaitPolicy::NoWait, &WaitCtl::unbounded())
}
