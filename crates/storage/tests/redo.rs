//! Redo generated at commit: final images only, nothing from a rolled-back
//! savepoint, and replaying it on an empty store reproduces the state.

mod common;

use std::sync::{Arc, Mutex};

use common::*;
use nestor_common::{Csn, Xid};
use nestor_storage::redo::{decode_ops, stored_values, RedoOp};
use nestor_txn::{CommitLog, Isolation, TxnManager};

#[derive(Default)]
struct CaptureLog(Mutex<Vec<Vec<u8>>>);

impl CommitLog for CaptureLog {
    fn append(&self, _xid: Xid, _csn: Csn, redo: Box<dyn nestor_txn::RedoBuffer>) {
        let bytes = *redo
            .into_any()
            .downcast::<Vec<u8>>()
            .expect("default buffer");
        self.0.lock().unwrap().push(bytes);
    }
    fn wait_durable(&self, _csn: Csn) {}
}

fn replay(into: &Db, payloads: &[Vec<u8>]) {
    for p in payloads {
        for op in decode_ops(p).unwrap() {
            match op {
                RedoOp::Put { row, stored, .. } => into.table.recover_put(row, stored),
                RedoOp::Delete { row, .. } => into.table.recover_delete(row),
                RedoOp::Ddl(_) => panic!("no DDL here"),
            }
        }
    }
    into.table.rebuild_indexes();
}

#[test]
fn redo_carries_final_images_and_skips_rolled_back_savepoints() {
    let log = Arc::new(CaptureLog::default());
    let db = Db::with_log(TxnManager::with_log(log.clone(), Xid(1), Csn::BOOTSTRAP));
    db.seed(&[(1, 0), (2, 0), (3, 0)]);
    let s = db.session(1);
    let mut t = s.begin(Isolation::ReadCommitted);
    for i in 1..=100 {
        set(&db, &mut t, 1, i).unwrap();
    }
    t.savepoint("a").unwrap();
    insert(&db, &mut t, 10, 10).unwrap();
    set(&db, &mut t, 2, 99).unwrap();
    t.rollback_to("a").unwrap();
    delete(&db, &mut t, 3).unwrap();
    insert(&db, &mut t, 11, 11).unwrap();
    t.commit();
    let payloads = log.0.lock().unwrap().clone();
    assert_eq!(payloads.len(), 2, "seed + one transaction");
    let ops = decode_ops(&payloads[1]).unwrap();
    assert_eq!(
        ops.len(),
        3,
        "row 1 once (of 100 updates), delete of 3, insert of 11: {ops:?}"
    );
    assert!(matches!(&ops[0], RedoOp::Put { stored, .. } if int(&stored_values(stored)[1]) == 100));
    assert!(matches!(&ops[1], RedoOp::Delete { .. }));
    let fresh = Db::new();
    replay(&fresh, &payloads);
    assert_eq!(fresh.committed(), db.committed());
    assert_eq!(fresh.committed(), vec![(1, 100), (2, 0), (11, 11)]);
    // The recovered store accepts new work with fresh row ids and a
    // working unique index.
    let s2 = fresh.session(2);
    let mut t2 = s2.begin(Isolation::ReadCommitted);
    assert!(
        insert(&fresh, &mut t2, 11, 0).is_err(),
        "23505 after recovery"
    );
    drop(t2);
    let mut t3 = s2.begin(Isolation::ReadCommitted);
    insert(&fresh, &mut t3, 12, 12).unwrap();
    t3.commit();
    assert_eq!(fresh.committed().len(), 4);
}
