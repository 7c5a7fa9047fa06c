//! Real threads, blocking locks: transfers between random accounts in
//! random lock order, some inside savepoints that are rolled back, then
//! transfers whose lock order is crossed on purpose so that every round is
//! a deadlock the detector must break. Seeded per thread; the interleaving is
//! the OS's, so this complements the deterministic model test with real
//! waits. Checks: every crossed round produced exactly one deadlock victim;
//! every account equals its start plus the committed, not-rolled-back
//! deltas; no locks remain.

mod common;

use std::collections::BTreeMap;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use common::*;
use nestor_storage::StorageError;
use nestor_txn::{Isolation, TxnError, WaitCtl};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const ACCOUNTS: i64 = 6;
const THREADS: u64 = 4;
const TRANSFERS: usize = 150;
/// Crossed rounds per pair of threads in the second phase.
const CROSSED_ROUNDS: u64 = 20;

#[test]
fn concurrent_transfers_with_deadlocks_and_savepoints_conserve_money() {
    let db = Db::new();
    let rows: Vec<(i64, i64)> = (1..=ACCOUNTS).map(|i| (i, 1_000)).collect();
    db.seed(&rows);
    let expected = Mutex::new(rows.iter().copied().collect::<BTreeMap<i64, i64>>());
    // Waits are bounded (far above deadlock_timeout), so a cycle the
    // detector missed costs a retry instead of hanging the test.
    let ctl = WaitCtl {
        lock_timeout: Some(Duration::from_secs(2)),
        ..ctl_ms(5)
    };
    let random = Mutex::new((0u64, 0u64)); // (deadlocks, lock timeouts)
    std::thread::scope(|sc| {
        for th in 0..THREADS {
            let (db, expected, random, ctl) = (&db, &expected, &random, &ctl);
            sc.spawn(move || {
                let mut rng = StdRng::seed_from_u64(th);
                let s = db.session(th as u32 + 1);
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
                    let r = update_with(db, &mut t, from, ctl, |v| v - amount)
                        .and_then(|a| Ok((a, update_with(db, &mut t, to, ctl, |v| v + amount)?)));
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
                            random.lock().unwrap().0 += 1;
                            t.rollback();
                        }
                        Err(StorageError::Txn(TxnError::LockTimeout)) => {
                            random.lock().unwrap().1 += 1;
                            t.rollback();
                        }
                        Err(e) => panic!("thread {th}: {e:?}"),
                    }
                }
            });
        }
    });
    let (random_deadlocks, random_timeouts) = *random.lock().unwrap();
    assert!(db.mgr.locks.is_empty());

    // Crossed phase: threads 2p and 2p+1 transfer between accounts a = 2p+1
    // and b = 2p+2 in opposite directions. Each takes the row lock of its
    // source (the first UPDATE), both meet, then each updates its
    // destination: a wait-for cycle in every round, so the detector must fail
    // exactly one of the two with 40P01; the other gets the row once the
    // victim rolls back, and commits. After both are resolved the victim
    // retries alone. A lock timeout far above deadlock_timeout turns a cycle
    // nobody broke into a counted failure instead of a hang.
    let crossed = Mutex::new((0u64, 0u64)); // (deadlocks, lock timeouts)
    std::thread::scope(|sc| {
        for pair in 0..THREADS / 2 {
            let meet = std::sync::Arc::new(Meet::default());
            for side in 0..2u64 {
                let (db, expected, crossed, ctl, meet) =
                    (&db, &expected, &crossed, &ctl, meet.clone());
                sc.spawn(move || {
                    let (a, b) = (2 * pair as i64 + 1, 2 * pair as i64 + 2);
                    let (from, to) = if side == 0 { (a, b) } else { (b, a) };
                    let s = db.session(100 + (2 * pair + side) as u32);
                    let transfer =
                        |t: &mut nestor_txn::Transaction, amount: i64, order: [i64; 2]| {
                            for id in order {
                                let delta = if id == from { -amount } else { amount };
                                update_with(db, t, id, ctl, |v| v + delta)?;
                            }
                            Ok::<_, StorageError>(())
                        };
                    for round in 0..CROSSED_ROUNDS {
                        let amount = 1 + (round as i64 + side as i64) % 7;
                        meet.wait("round start");
                        let mut t = s.begin(Isolation::ReadCommitted);
                        let n = update_with(db, &mut t, from, ctl, |v| v - amount);
                        assert_eq!(n.unwrap(), 1, "uncontended source row");
                        meet.wait("both hold their source row");
                        let victim = match update_with(db, &mut t, to, ctl, |v| v + amount) {
                            Ok(n) => {
                                assert_eq!(n, 1);
                                let mut e = expected.lock().unwrap();
                                t.commit();
                                *e.get_mut(&from).unwrap() -= amount;
                                *e.get_mut(&to).unwrap() += amount;
                                false
                            }
                            Err(StorageError::Txn(TxnError::Deadlock { .. })) => {
                                crossed.lock().unwrap().0 += 1;
                                t.rollback();
                                true
                            }
                            Err(StorageError::Txn(TxnError::LockTimeout)) => {
                                crossed.lock().unwrap().1 += 1;
                                t.rollback();
                                true
                            }
                            Err(e) => panic!("pair {pair} round {round}: {e:?}"),
                        };
                        meet.wait("round resolved");
                        if victim {
                            // Alone now (the other side committed or also
                            // gave up): ascending order, which cannot cycle.
                            let mut t = s.begin(Isolation::ReadCommitted);
                            transfer(&mut t, amount, [from.min(to), from.max(to)]).unwrap_or_else(
                                |e| panic!("retry, pair {pair} round {round}: {e:?}"),
                            );
                            let mut e = expected.lock().unwrap();
                            t.commit();
                            *e.get_mut(&from).unwrap() -= amount;
                            *e.get_mut(&to).unwrap() += amount;
                        }
                    }
                });
            }
        }
    });
    let (crossed_deadlocks, timeouts) = *crossed.lock().unwrap();
    eprintln!(
        "random phase: {random_deadlocks} deadlocks, {random_timeouts} lock timeouts; \
         crossed phase: {crossed_deadlocks} deadlocks in {} rounds, {timeouts} lock timeouts",
        CROSSED_ROUNDS * (THREADS / 2)
    );
    assert_eq!(
        (crossed_deadlocks, timeouts),
        (CROSSED_ROUNDS * (THREADS / 2), 0),
        "every crossed round is a deadlock that must be detected (one victim), not timed out"
    );
    let got: BTreeMap<i64, i64> = db.committed().into_iter().collect();
    assert_eq!(got, *expected.lock().unwrap());
    assert_eq!(got.values().sum::<i64>(), 1_000 * ACCOUNTS);
    assert!(db.mgr.locks.is_empty());
}

/// A two-thread rendezvous that panics instead of waiting forever, so a
/// partner that panicked fails the test rather than hanging it.
#[derive(Default)]
struct Meet {
    state: Mutex<(u64, u32)>, // (generation, arrived)
    cv: Condvar,
}

impl Meet {
    fn wait(&self, what: &str) {
        let mut g = self.state.lock().unwrap();
        let generation = g.0;
        g.1 += 1;
        if g.1 == 2 {
            *g = (generation + 1, 0);
            self.cv.notify_all();
            return;
        }
        let (_g, res) = self
            .cv
            .wait_timeout_while(g, Duration::from_secs(30), |g| g.0 == generation)
            .unwrap();
        assert!(
            !res.timed_out(),
            "the other thread never reached \"{what}\""
        );
    }
}
