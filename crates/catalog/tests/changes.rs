//! Catalog changes: undo on rollback, redo at commit, and replay of that
//! redo (and of a checkpoint image) into an empty catalog reproducing the
//! committed schema.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use nestor_catalog::{Catalog, CatalogRecord, Change, Check, Column, IndexDef, Persistence};
use nestor_catalog::{Sequence, TableDef};
use nestor_common::{Csn, SessionId, Xid};
use nestor_storage::redo::{decode_ops, RedoOp};
use nestor_storage::{Index, Store};
use nestor_txn::{CommitLog, Isolation, RedoBuffer, Transaction, TxnManager};
use nestor_types::datatype::DataType;
use nestor_types::Value;
use parking_lot::Mutex;

/// A commit log that keeps every committed transaction's redo bytes.
#[derive(Default)]
struct Captured(Mutex<Vec<Vec<u8>>>);

impl CommitLog for Captured {
    fn append(&self, _: Xid, _: Csn, redo: Box<dyn RedoBuffer>) {
        let bytes = redo.into_any().downcast::<Vec<u8>>().expect("Vec redo");
        self.0.lock().push(*bytes);
    }
    fn wait_durable(&self, _: Csn) {}
}

struct Db {
    log: Arc<Captured>,
    mgr: Arc<TxnManager>,
    store: Arc<Store>,
    catalog: Catalog,
}

impl Db {
    fn new() -> Db {
        let log = Arc::new(Captured::default());
        let mgr = TxnManager::with_log(log.clone(), Xid(1), Csn::BOOTSTRAP);
        let store = Store::new(mgr.clone());
        let catalog = Catalog::new().for_session(SessionId(1));
        store.set_commit_hook(catalog.sequence_hook());
        Db {
            log,
            mgr,
            store,
            catalog,
        }
    }

    fn begin(&self) -> Transaction {
        Transaction::begin(
            self.mgr.clone(),
            self.store.clone(),
            self.mgr.register_slot(),
            SessionId(1),
            Isolation::ReadCommitted,
        )
    }

    fn apply(&self, txn: &mut Transaction, change: Change) {
        self.catalog.apply(txn, &self.store, change).unwrap();
    }

    /// The catalog records of every committed transaction, in order.
    fn logged_records(&self) -> Vec<CatalogRecord> {
        let mut out = Vec::new();
        for bytes in self.log.0.lock().iter() {
            for op in decode_ops(bytes).unwrap() {
                if let RedoOp::Ddl(d) = op {
                    out.push(CatalogRecord::decode(&d).unwrap());
                }
            }
        }
        out
    }
}

fn table(db: &Db, name: &str, persistence: Persistence) -> TableDef {
    let oid = db.catalog.alloc_oid();
    let storage = db.store.create_table(db.catalog.alloc_oid(), name);
    let idx_oid = db.catalog.alloc_oid();
    let index = Arc::new(Index::new(
        idx_oid,
        &format!("{name}_pkey"),
        vec![0],
        vec!["id".into()],
        true,
        true,
    ));
    storage.add_index(index.clone()).unwrap();
    TableDef {
        namespace: nestor_catalog::PUBLIC_NAMESPACE_OID,
        oid,
        name: name.into(),
        columns: vec![
            Column {
                name: "id".into(),
                ty: DataType::Int4,
                domain: None,
                not_null: true,
                default: Some(format!("nextval('{name}_id_seq'::regclass)")),
                generated: false,
                missing: Value::Null,
                dropped: false,
                storage: None,
                compression: 0,
            },
            Column {
                name: "v".into(),
                ty: DataType::Text,
                domain: None,
                not_null: false,
                default: None,
                generated: false,
                missing: Value::Null,
                dropped: false,
                storage: None,
                compression: 0,
            },
        ],
        checks: vec![Check {
            name: format!("{name}_id_check"),
            expr: "id > 0".into(),
        }],
        indexes: vec![IndexDef {
            oid: idx_oid,
            name: format!("{name}_pkey"),
            columns: vec![0],
            unique: true,
            primary: true,
            constraint: true,
            exprs: None,
            method: nestor_catalog::AccessMethod::Btree,
            keyopts: Vec::new(),
            index,
        }],
        persistence,
        base_width: 2,
        owned_sequences: vec![format!("{name}_id_seq")],
        on_commit: nestor_catalog::OnCommit::PreserveRows,
        triggers: Vec::new(),
        rules: Vec::new(),
        row_security: Default::default(),
        foreign_keys: Vec::new(),
        identities: Vec::new(),
        matview: None,
        not_valid: Vec::new(),
        inherits: Vec::new(),
        partition_key: None,
        partition_bound: None,
        storage,
    }
}

fn sequence(db: &Db, name: &str, temporary: bool) -> Arc<Sequence> {
    Arc::new(Sequence {
        namespace: nestor_catalog::PUBLIC_NAMESPACE_OID,
        oid: db.catalog.alloc_oid(),
        name: name.into(),
        increment: 1,
        min: 1,
        max: i64::MAX,
        start: 1,
        cycle: false,
        type_oid: 20,
        cache: 1,
        state: Arc::new(Mutex::new((1, false))),
        owned_by: None,
        temporary,
        dirty: Arc::new(AtomicBool::new(true)),
    })
}

/// Names, column layouts, check texts, index oids and storage ids.
fn shape(c: &Catalog) -> Vec<String> {
    let mut out: Vec<String> = c
        .tables()
        .iter()
        .map(|t| {
            let cols: Vec<String> = t
                .columns
                .iter()
                .map(|c| {
                    format!(
                        "{}:{}:{:?}:{}:{:?}:{}",
                        c.name, c.ty, c.default, c.dropped, c.storage, c.compression
                    )
                })
                .collect();
            let idx: Vec<String> = t
                .indexes
                .iter()
                .map(|i| format!("{}@{}", i.name, i.oid))
                .collect();
            format!(
                "{}#{} storage {} {:?} {cols:?} {:?} {idx:?}",
                t.name, t.oid, t.storage.id, t.persistence, t.checks
            )
        })
        .collect();
    out.extend(c.sequences().iter().map(|s| {
        let (last, called) = *s.state.lock();
        format!("seq {}#{} {last} {called}", s.name, s.oid)
    }));
    out
}

#[test]
fn rollback_undoes_and_logs_nothing() {
    let db = Db::new();
    let mut txn = db.begin();
    let def = Arc::new(table(&db, "t", Persistence::Permanent));
    let storage = def.storage.id;
    db.apply(
        &mut txn,
        Change::PutTable {
            def,
            old_storage: None,
        },
    );
    assert!(db.catalog.table("t").is_some());
    assert_eq!(
        db.catalog.gate().tokens(),
        1,
        "the DDL transaction holds the gate"
    );
    txn.rollback();
    assert!(db.catalog.table("t").is_none());
    assert!(
        db.store.table(storage).is_none(),
        "storage it created is gone"
    );
    assert_eq!(db.catalog.gate().tokens(), 0);
    assert!(db.logged_records().is_empty());
}

#[test]
fn committed_changes_replay_into_the_same_catalog() {
    let db = Db::new();
    let mut txn = db.begin();
    db.apply(
        &mut txn,
        Change::PutSequence(sequence(&db, "t_id_seq", false)),
    );
    db.apply(
        &mut txn,
        Change::PutTable {
            def: Arc::new(table(&db, "t", Persistence::Permanent)),
            old_storage: None,
        },
    );
    db.apply(
        &mut txn,
        Change::PutTable {
            def: Arc::new(table(&db, "gone", Persistence::Unlogged)),
            old_storage: None,
        },
    );
    txn.commit();
    // TRUNCATE-like storage swap, a drop, a TEMP table and a nextval.
    let mut txn = db.begin();
    let old = db.catalog.table("t").unwrap();
    let mut new = table(&db, "t", Persistence::Permanent);
    new.oid = old.oid;
    new.columns[1].dropped = true;
    // ALTER COLUMN SET STORAGE / SET COMPRESSION.
    new.columns[0].storage = Some(b'm');
    new.columns[0].compression = b'l';
    db.apply(
        &mut txn,
        Change::PutTable {
            def: Arc::new(new),
            old_storage: Some(old.storage.clone()),
        },
    );
    db.apply(&mut txn, Change::DropTable("gone".into()));
    db.apply(
        &mut txn,
        Change::PutTable {
            def: Arc::new(table(&db, "tmp", Persistence::Temporary)),
            old_storage: None,
        },
    );
    db.apply(
        &mut txn,
        Change::PutSequence(sequence(&db, "tmp_id_seq", true)),
    );
    db.catalog.sequence("t_id_seq").unwrap().next().unwrap();
    db.catalog.sequence("t_id_seq").unwrap().next().unwrap();
    txn.commit();
    assert!(
        db.store.table(old.storage.id).is_none(),
        "old storage freed at commit"
    );

    let mut want = shape(&db.catalog);
    want.retain(|s| !s.contains("tmp"));
    let records = db.logged_records();
    assert!(
        !records.iter().any(|r| format!("{r:?}").contains("tmp")),
        "TEMP objects are never logged"
    );

    let replayed = Db::new();
    for rec in records {
        replayed.catalog.replay(rec, &replayed.store).unwrap();
    }
    assert_eq!(
        shape(&replayed.catalog),
        want,
        "replay of the WAL's records"
    );
    assert!(replayed.catalog.next_oid() > db.catalog.table("t").unwrap().indexes[0].oid.0);

    let from_image = Db::new();
    for rec in db.catalog.image() {
        from_image.catalog.replay(rec, &from_image.store).unwrap();
    }
    assert_eq!(
        shape(&from_image.catalog),
        want,
        "replay of a checkpoint image"
    );
    let t = from_image.catalog.table("t").unwrap();
    assert_eq!(t.storage.indexes().len(), 1, "index attached to storage");
}

#[test]
fn temp_tables_belong_to_their_session() {
    let db = Db::new();
    let other = db.catalog.for_session(SessionId(2));
    let mut txn = db.begin();
    let mut tmp = table(&db, "t", Persistence::Temporary);
    tmp.on_commit = nestor_catalog::OnCommit::DeleteRows;
    let tmp_storage = tmp.storage.id;
    db.apply(
        &mut txn,
        Change::PutTable {
            def: Arc::new(tmp),
            old_storage: None,
        },
    );
    let mut dropped = table(&db, "d", Persistence::Temporary);
    dropped.on_commit = nestor_catalog::OnCommit::Drop;
    let dropped_storage = dropped.storage.id;
    db.apply(
        &mut txn,
        Change::PutTable {
            def: Arc::new(dropped),
            old_storage: None,
        },
    );
    txn.commit();
    assert!(other.table("t").is_none(), "another session's TEMP table");
    assert!(!other.name_taken_in("t", false), "public name still free");
    // The other session's permanent t is shadowed for session 1 only.
    let mut txn2 = Transaction::begin(
        db.mgr.clone(),
        db.store.clone(),
        db.mgr.register_slot(),
        SessionId(2),
        Isolation::ReadCommitted,
    );
    other
        .apply(
            &mut txn2,
            &db.store,
            Change::PutTable {
                def: Arc::new(table(&db, "t", Persistence::Permanent)),
                old_storage: None,
            },
        )
        .unwrap();
    txn2.commit();
    assert_eq!(
        db.catalog.table("t").unwrap().persistence,
        Persistence::Temporary
    );
    assert_eq!(
        other.table("t").unwrap().persistence,
        Persistence::Permanent
    );
    // ON COMMIT: DROP is done, DELETE ROWS leaves an empty table alone.
    db.catalog.after_commit(&db.store);
    assert!(db.catalog.table("d").is_none());
    assert!(db.store.table(dropped_storage).is_none());
    assert_eq!(db.catalog.table("t").unwrap().storage.id, tmp_storage);
    // Session end frees the TEMP storage; public stays.
    db.catalog.drop_temp_objects(&db.store);
    assert!(db.store.table(tmp_storage).is_none());
    assert_eq!(
        db.catalog.table("t").unwrap().persistence,
        Persistence::Permanent
    );
}

#[test]
fn schemas_hold_their_own_names_and_replay() {
    let db = Db::new();
    let mut txn = db.begin();
    let app = nestor_catalog::SchemaDef {
        oid: db.catalog.alloc_oid(),
        name: "app".into(),
    };
    let app_oid = app.oid.0;
    db.apply(&mut txn, Change::PutSchema(Arc::new(app)));
    let public_t = table(&db, "t", Persistence::Permanent);
    let mut app_t = table(&db, "t", Persistence::Permanent);
    app_t.namespace = app_oid;
    let (public_oid, app_t_oid) = (public_t.oid, app_t.oid);
    for def in [public_t, app_t] {
        let change = Change::PutTable {
            def: Arc::new(def),
            old_storage: None,
        };
        db.apply(&mut txn, change);
    }
    // A relation whose own name starts with a schema's and a dot could
    // not be told from that schema's: refused.
    let dotted = table(&db, "app.x", Persistence::Permanent);
    let change = Change::PutTable {
        def: Arc::new(dotted),
        old_storage: None,
    };
    let e = db.catalog.apply(&mut txn, &db.store, change).unwrap_err();
    assert_eq!(e.code.code(), "0A000", "{e:?}");
    txn.commit();

    let c = &db.catalog;
    assert_eq!(c.table("t").unwrap().oid, public_oid);
    assert_eq!(c.table("app.t").unwrap().oid, app_t_oid);
    assert_eq!(c.table("public.t").unwrap().oid, public_oid);
    assert!(c.table("nosuch.t").is_none());
    c.set_search_path(["app", "public"].into_iter(), "alice");
    assert_eq!(c.table("t").unwrap().oid, app_t_oid, "the path's first");
    assert!(c.plan_scope().is_some(), "plans follow this session's path");
    assert_eq!(c.creation_namespace("").unwrap(), app_oid);
    c.set_search_path(["$user"].into_iter(), "nobody");
    assert!(c.table("t").is_none(), "no schema on the path");
    assert!(c.creation_namespace("").is_err());

    // The logged records rebuild both tables in their schemas.
    let fresh = Db::new();
    for rec in db.logged_records() {
        fresh.catalog.replay(rec, &fresh.store).unwrap();
    }
    assert_eq!(fresh.catalog.table("app.t").unwrap().oid, app_t_oid);
    assert_eq!(fresh.catalog.table("t").unwrap().oid, public_oid);
    assert_eq!(fresh.catalog.table("app.t").unwrap().namespace, app_oid);

    // Dropping the schema (after its table) and rolling back restores
    // both; the image of the catalog carries the schema.
    let mut txn = db.begin();
    db.apply(&mut txn, Change::DropTable("app.t".into()));
    db.apply(&mut txn, Change::DropSchema(app_oid));
    assert!(db.catalog.schema("app").is_none());
    txn.rollback();
    assert_eq!(db.catalog.table("app.t").unwrap().oid, app_t_oid);
    let image = db.catalog.image();
    assert!(image
        .iter()
        .any(|r| matches!(r, CatalogRecord::PutSchema(s) if s.name == "app")));
}

/// A transaction's uncommitted relation DDL is invisible to other
/// sessions (catalog claims): a dropped or renamed-away name still
/// resolves for them, a created one does not, listings show the committed
/// catalog; another transaction's change to a claimed name is refused;
/// commit and rollback release the claims and bump the version.
#[test]
fn claims_hide_uncommitted_relation_changes_from_other_sessions() {
    let db = Db::new();
    let other = db.catalog.for_session(SessionId(2));
    let begin_other = || {
        Transaction::begin(
            db.mgr.clone(),
            db.store.clone(),
            db.mgr.register_slot(),
            SessionId(2),
            Isolation::ReadCommitted,
        )
    };
    let put = |def: TableDef| Change::PutTable {
        def: Arc::new(def),
        old_storage: None,
    };
    let names = |c: &Catalog| {
        let mut v: Vec<String> = c.tables().iter().map(|t| t.name.clone()).collect();
        v.sort();
        v.join(",")
    };
    let mut txn = db.begin();
    db.apply(&mut txn, put(table(&db, "t", Persistence::Permanent)));
    txn.commit();
    let t_oid = db.catalog.table("t").unwrap().oid;

    // A drops t and creates n.
    let mut a = db.begin();
    db.apply(&mut a, Change::DropTable("t".into()));
    db.apply(&mut a, put(table(&db, "n", Persistence::Permanent)));
    assert!(db.catalog.table("t").is_none(), "the dropper's own view");
    assert_eq!(names(&db.catalog), "n");
    assert_eq!(other.table("t").map(|t| t.oid), Some(t_oid));
    assert!(other.relation("t_pkey").is_some(), "its index too");
    assert_eq!(other.table_by_oid(t_oid).map(|t| t.oid), Some(t_oid));
    assert!(other.table("n").is_none());
    assert!(!other.name_taken_in("n", false));
    assert!(other.name_taken_in("t", false));
    assert_eq!(names(&other), "t");
    assert_eq!(other.claim_holder("n"), Some(a.xid()), "n: wait for A");
    assert_eq!(other.claim_holder("t"), None, "t: simply taken");
    // Another transaction may not change a claimed name.
    let mut b = begin_other();
    let err = other
        .apply(
            &mut b,
            &db.store,
            put(table(&db, "n", Persistence::Permanent)),
        )
        .unwrap_err();
    assert_eq!(err.sqlstate(), "40001", "{err:?}");
    b.rollback();

    let before = db.catalog.version();
    a.rollback();
    assert!(db.catalog.version() > before);
    assert_eq!(names(&db.catalog), "t");
    assert_eq!(names(&other), "t");
    assert_eq!(other.claim_holder("n"), None);

    // A renames t to u and commits.
    let mut a = db.begin();
    let u = TableDef {
        name: "u".into(),
        ..(*db.catalog.table("t").unwrap()).clone()
    };
    db.apply(
        &mut a,
        Change::RenameTable {
            from: "t".into(),
            def: Arc::new(u),
        },
    );
    assert!(other.table("t").is_some() && other.table("u").is_none());
    assert_eq!(names(&other), "t");
    let before = db.catalog.version();
    a.commit();
    assert!(db.catalog.version() > before, "others re-plan");
    assert!(other.table("t").is_none());
    assert_eq!(other.table("u").map(|t| t.oid), Some(t_oid));
    assert_eq!(names(&other), "u");
}

/// A function replaced or created by a transaction that has not committed
/// is not seen by other sessions; commit and rollback release the name.
#[test]
fn claims_hide_uncommitted_function_changes() {
    use nestor_catalog::{FunctionDef, Language, Returns, Volatility};
    let db = Db::new();
    let other = db.catalog.for_session(SessionId(2));
    let f = |body: &str, oid: u32| {
        Arc::new(FunctionDef {
            oid: nestor_common::RelId(oid),
            name: "f".into(),
            procedure: false,
            args: Vec::new(),
            returns: Returns::Scalar(DataType::Int4),
            retset: false,
            language: Language::Sql,
            body: body.into(),
            volatility: Volatility::Volatile,
            strict: false,
            compiled: std::sync::OnceLock::new(),
            declared: None,
            result_domain: None,
            aggregate: None,
        })
    };
    let mut txn = db.begin();
    db.apply(&mut txn, Change::PutFunction(f("select 1", 90001)));
    txn.commit();
    let mut a = db.begin();
    db.apply(&mut a, Change::PutFunction(f("select 2", 90001)));
    assert_eq!(db.catalog.functions("f")[0].body, "select 2");
    assert_eq!(
        other.functions("f")[0].body,
        "select 1",
        "the committed body"
    );
    assert_eq!(
        other
            .function_by_oid(nestor_common::RelId(90001))
            .map(|f| f.body.clone()),
        Some("select 1".to_string())
    );
    let mut b = Transaction::begin(
        db.mgr.clone(),
        db.store.clone(),
        db.mgr.register_slot(),
        SessionId(2),
        Isolation::ReadCommitted,
    );
    let err = other
        .apply(
            &mut b,
            &db.store,
            Change::DropFunction(f("select 1", 90001)),
        )
        .unwrap_err();
    assert_eq!(err.sqlstate(), "40001");
    b.rollback();
    a.rollback();
    assert_eq!(other.functions("f")[0].body, "select 1");
    let mut a = db.begin();
    db.apply(&mut a, Change::DropFunction(f("select 1", 90001)));
    assert_eq!(other.all_functions().len(), 1, "still there for others");
    a.commit();
    assert!(other.functions("f").is_empty());
}
