//! Transaction-core benchmarks (`cargo bench -p nestor-storage`). Prints a
//! table; asserts nothing about time (the machine is small and noisy: read
//! the shape — flat or not — rather than absolute numbers).
//!
//! 1. snapshot acquisition with 1, 100, 10,000 registered sessions;
//! 2. cost per savepoint (SAVEPOINT + one UPDATE) at nesting depth
//!    10, 100, 1,000, 10,000;
//! 3. visibility check of rows written by a transaction that used 0 vs
//!    1,000 savepoints;
//! 4. lock + savepoint + update of one row vs lock + update;
//! 5. XIDs consumed by a transaction with 1,000 writing savepoints.

use std::hint::black_box;
use std::ops::Bound;
use std::sync::Arc;
use std::time::Instant;

use nestor_common::{RelId, SessionId};
use nestor_storage::{Index, Recheck, Store, Table, WriteResult};
use nestor_txn::{
    Isolation, LockKey, LockMode, SnapshotSlot, Transaction, TxnManager, WaitCtl, WaitPolicy,
};
use nestor_types::{Row, Value};

struct Db {
    mgr: Arc<TxnManager>,
    store: Arc<Store>,
    table: Arc<Table>,
    pkey: Arc<Index>,
    slot: Arc<SnapshotSlot>,
}

fn row(id: i64, v: i64) -> Row {
    Arc::from(vec![Value::Int8(id), Value::Int8(v)])
}

impl Db {
    fn new(rows: i64) -> Db {
        let mgr = TxnManager::new();
        let store = Store::new(mgr.clone());
        let table = store.create_table(RelId(16384), "t");
        let pkey = Arc::new(Index::new(
            RelId(16385),
            "t_pkey",
            vec![0],
            vec!["id".into()],
            true,
            true,
        ));
        table.add_index(pkey.clone()).unwrap();
        let slot = mgr.register_slot();
        let db = Db {
            mgr,
            store,
            table,
            pkey,
            slot,
        };
        let mut t = db.begin();
        t.start_statement().unwrap();
        for i in 0..rows {
            db.table
                .insert(&mut t, &row(i, 0), &WaitCtl::unbounded())
                .unwrap();
        }
        t.commit();
        db
    }

    fn begin(&self) -> Transaction {
        Transaction::begin(
            self.mgr.clone(),
            self.store.clone(),
            self.slot.clone(),
            SessionId(1),
            Isolation::ReadCommitted,
        )
    }

    fn update(&self, t: &mut Transaction, id: i64, v: i64) {
        let snap = t.start_statement().unwrap();
        let k = [Value::Int8(id)];
        let hit = self.table.index_scan(
            &self.pkey,
            Bound::Included(&k[..]),
            Bound::Included(&k[..]),
            &snap,
        );
        let r = self
            .table
            .update(
                t,
                hit[0].row,
                &row(id, v),
                &snap,
                &WaitCtl::unbounded(),
                Recheck::Snapshot,
            )
            .unwrap();
        assert_eq!(r, WriteResult::Done);
    }

    fn read_all(&self, t: &mut Transaction) -> usize {
        let snap = t.start_statement().unwrap();
        self.table.scan(&snap).count()
    }
}

/// Nanoseconds per iteration of `f`, best of 5 runs of `iters`.
fn ns_per(iters: u64, mut f: impl FnMut()) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..5 {
        let start = Instant::now();
        for _ in 0..iters {
            f();
        }
        best = best.min(start.elapsed().as_nanos() as f64 / iters as f64);
    }
    best
}

fn header(title: &str, cols: &[&str]) {
    println!("\n{title}");
    println!("| {} |", cols.join(" | "));
    println!(
        "|{}|",
        cols.iter().map(|_| "---").collect::<Vec<_>>().join("|")
    );
}

fn snapshots() {
    header(
        "1. Snapshot acquisition",
        &["registered sessions", "ns per snapshot"],
    );
    for sessions in [1usize, 100, 10_000] {
        let db = Db::new(1);
        let slots: Vec<_> = (1..sessions).map(|_| db.mgr.register_slot()).collect();
        // Every other session holds a snapshot too.
        for s in &slots {
            db.mgr.take_horizon(s);
        }
        let ns = ns_per(1_000_000, || {
            black_box(db.mgr.take_horizon(&db.slot));
        });
        println!("| {sessions} | {ns:.1} |");
    }
}

fn savepoint_depth() {
    header(
        "2. Cost per savepoint (SAVEPOINT + UPDATE of one row) by nesting depth",
        &["depth", "ns per savepoint+update", "ns per bare SAVEPOINT"],
    );
    for depth in [10u64, 100, 1_000, 10_000] {
        let db = Db::new(100);
        let mut best = f64::MAX;
        let mut bare = f64::MAX;
        for _ in 0..3 {
            let mut t = db.begin();
            let start = Instant::now();
            for i in 0..depth {
                t.savepoint("a").unwrap();
                db.update(&mut t, (i % 100) as i64, i as i64);
            }
            best = best.min(start.elapsed().as_nanos() as f64 / depth as f64);
            t.rollback();
            let mut t = db.begin();
            let start = Instant::now();
            for _ in 0..depth {
                t.savepoint("a").unwrap();
            }
            bare = bare.min(start.elapsed().as_nanos() as f64 / depth as f64);
            t.rollback();
        }
        println!("| {depth} | {best:.0} | {bare:.1} |");
    }
}

fn visibility() {
    header(
        "3. Reading 1,000 rows written by one transaction",
        &[
            "savepoints used by the writer",
            "ns per row visibility check",
        ],
    );
    for savepoints in [0u64, 1_000] {
        let db = Db::new(1_000);
        let mut w = db.begin();
        for i in 0..1_000 {
            if savepoints > 0 {
                w.savepoint(&format!("s{i}")).unwrap();
            }
            db.update(&mut w, i, 1);
        }
        w.commit();
        let mut r = db.begin();
        let ns = ns_per(200, || {
            black_box(db.read_all(&mut r));
        }) / 1_000.0;
        println!("| {savepoints} | {ns:.1} |");
    }
}

fn lock_then_update() {
    header(
        "4. SELECT .. FOR UPDATE; [SAVEPOINT;] UPDATE; COMMIT of one row (seed 001)",
        &[
            "variant",
            "ns per transaction",
            "lock-table entries during update",
        ],
    );
    for with_savepoint in [false, true] {
        let db = Db::new(10);
        let rid = {
            let mut t = db.begin();
            let snap = t.start_statement().unwrap();
            db.table.scan(&snap).next().unwrap().row
        };
        let mut entries = 0;
        let ns = ns_per(20_000, || {
            let mut t = db.begin();
            t.start_statement().unwrap();
            t.lock(
                LockKey::Row(RelId(16384), rid),
                LockMode::Update,
                WaitPolicy::Block,
                &WaitCtl::unbounded(),
                &String::new,
            )
            .unwrap();
            if with_savepoint {
                t.savepoint("s").unwrap();
            }
            db.update(&mut t, 0, 1);
            entries = db.mgr.locks.len();
            t.commit();
        });
        let name = if with_savepoint {
            "lock + savepoint + update"
        } else {
            "lock + update"
        };
        println!("| {name} | {ns:.0} | {entries} |");
        db.store.prune_all();
    }
}

fn xids() {
    header("5. XIDs consumed", &["transaction", "XIDs"]);
    let db = Db::new(10);
    let before = db.mgr.stats().xids_assigned;
    let mut t = db.begin();
    for i in 0..1_000 {
        t.savepoint(&format!("s{i}")).unwrap();
        db.update(&mut t, i % 10, i);
    }
    t.commit();
    println!(
        "| 1,000 writing savepoints | {} |",
        db.mgr.stats().xids_assigned - before
    );
}

fn main() {
    // `cargo test --benches` runs this with --bench absent: do a quick pass.
    println!("Nestor transaction core benchmarks (release build; best of runs)");
    snapshots();
    savepoint_depth();
    visibility();
    lock_then_update();
    xids();
}
