//! Real threads, blocking locks: transfers between random accounts in
//! random lock order (so deadlocks happen and are detected), some inside
//! savepoints that are rolled back. Seeded per thread; the interleaving is
//! the OS's, so this complements the deterministic model test with real
//! waits. Checks: every account equals its start plus the committed,
//! not-rolled-back deltas; no locks remain.

mod common;

use std::collections::BTreeMap;
use std::sync::Mutex;

use common::*;
use nestor_storage::StorageError;
use nestor_txn::{Isolation, TxnError};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const ACCOUNTS: i64 = 6;
const THREADS: u64 = 4;
const TRANSFERS: usize = 150;

#[test]
fn concurrent_transfers_with_deadlocks_and_savepoints_conserve_money() {
    let db = Db::new();
    let rows: Vec<(i64, i64)> = (1..=ACCOUNTS).map(|i| (i, 1_000)).collect();
    db.seed(&rows);
    let expected = Mutex::new(rows.iter().copied().collect::<BTreeMap<i64, i64>>());
    let deadlocks = Mutex::new(0u64);
    std::thread::scope(|sc| {
        for th in 0..THREADS {
            let (db, expected, deadlocks) = (&db, &expected, &deadlocks);
            sc.spawn(move || {
                let mut rng = StdRng::seed_from_u64(th);
                let s = db.session(th as u32 + 1);
                let ctl = ctl_ms(5);
                let mut done = 0;
                while done < TRANSFERS {
                    let from = rng.gen_range(1..=ACCOUNTS);
                    let to = 1 + (from + rng.gen_range(0..ACCOUNTS - 1)) % ACCOUNTS;
                    let amount = rng.gen_range(1..50);
                    let in_savepoint = rng.gen_bool(0.3);
                    let undo_it = in_savepoint && rng.gen_bool(0.5);
                    let mut t = s.begin(Isolation::ReadCommitted);
                    if in_savepoint {
                        t.savepoint("x").unwrap();
                    }
                    let r = update_with(db, &mut t, from, &ctl, |v| v - amount)
                        .and_then(|a| Ok((a, update_with(db, &mut t, to, &ctl, |v| v + amount)?)));
                    match r {
                        Ok(n) => {
                            assert_eq!(n, (1, 1), "each UPDATE finds its row");
                            if undo_it {
                                t.rollback_to("x").unwrap();
                            }
                            let mut e = expected.lock().unwrap();
                            t.commit();
                            if !undo_it {
                                *e.get_mut(&from).unwrap() -= amount;
                                *e.get_mut(&to).unwrap() += amount;
                            }
                            done += 1;
                        }
                        Err(StorageError::Txn(TxnError::Deadlock { .. })) => {
                            *deadlocks.lock().unwrap() += 1;
                            t.rollback();
                        }
                        Err(e) => panic!("thread {th}: {e:?}"),
                    }
                }
            });
        }
    });
    let got: BTreeMap<i64, i64> = db.committed().into_iter().collect();
    assert_eq!(got, *expected.lock().unwrap());
    assert_eq!(got.values().sum::<i64>(), 1_000 * ACCOUNTS);
    assert!(db.mgr.locks.is_empty());
    eprintln!(
        "deadlocks detected and retried: {}",
        deadlocks.lock().unwrap()
    );
}
