//! DDL: CREATE/DROP/ALTER TABLE, CREATE/DROP INDEX, sequences, TRUNCATE,
//! VACUUM and ANALYZE.
//!
//! DDL is planned and executed in one step at execution time (its plan is
//! the parse tree). Each change builds new catalog definitions and applies
//! them through `Catalog::apply`, which records the undo in the
//! transaction, so ROLLBACK and ROLLBACK TO revert schema changes like
//! data changes. Generated names follow PostgreSQL (`t_pkey`, `t_a_key`,
//! `t_a_idx`, `t_a_check`, `t_id_seq`).

use std::sync::Arc;

use nestor_common::error::Severity;
use nestor_common::{DbError, SqlState};
use nestor_parser::pb::{self, Node};
use nestor_parser::NodeEnum;
use nestor_storage::Index;
use nestor_types::datatype::DataType;
use nestor_types::Value;
use parking_lot::Mutex;

use crate::context::StatementCtx;
use nestor_catalog::{Change, Check, Column, IndexDef, Persistence, Sequence, TableDef};
use nestor_plan::bind::{self, node, relname, AggCtx, Binder, Scope};
use nestor_plan::ir::Expr;

use crate::executor::eval::Eval;
use crate::tag::CommandTag;

fn notice(ctx: &mut StatementCtx, msg: String) {
    notice_code(ctx, SqlState::SuccessfulCompletion, msg);
}

fn notice_code(ctx: &mut StatementCtx, code: SqlState, msg: String) {
    ctx.notices
        .push(DbError::new(code, msg).with_severity(Severity::Notice));
}

fn exists_err(name: &str) -> DbError {
    DbError::new(
        SqlState::DuplicateTable,
        format!("relation \"{name}\" already exists"),
    )
}

fn undefined_table(name: &str) -> DbError {
    DbError::new(
        SqlState::UndefinedTable,
        format!("relation \"{name}\" does not exist"),
    )
}

/// A unique relation name from `base` (PostgreSQL appends digits).
fn fresh_name(ctx: &StatementCtx, base: &str, taken: &[String]) -> String {
    let base: String = base.chars().take(63).collect();
    let mut name = base.clone();
    let mut i = 1;
    while ctx.db.catalog.name_taken(&name) || taken.contains(&name) {
        name = format!("{base}{i}");
        i += 1;
    }
    name
}

fn binder<'e>(ctx: &'e StatementCtx, text: &'e str) -> Binder<'e> {
    let mut b = Binder::new(
        &ctx.db.catalog,
        ctx.eval,
        text,
        &[],
        nestor_plan::select::plan_query,
    );
    b.scopes.push(Scope::default());
    b.outer_refs.push(None);
    b
}

struct PendingIndex {
    name: Option<String>,
    cols: Vec<String>,
    unique: bool,
    primary: bool,
    /// From a PRIMARY KEY / UNIQUE constraint (not CREATE INDEX), at this
    /// location of the statement.
    constraint: Option<i32>,
}

struct PendingCheck {
    name: Option<String>,
    expr: Node,
    column: Option<String>,
}

/// CREATE TABLE.
pub fn create_table(
    ctx: &mut StatementCtx,
    text: &str,
    cs: &pb::CreateStmt,
) -> Result<CommandTag, DbError> {
    let rv = cs
        .relation
        .as_ref()
        .ok_or_else(|| DbError::internal("CREATE TABLE without name"))?;
    let name = relname(rv)?;
    if !cs.inh_relations.is_empty() || cs.partspec.is_some() || cs.partbound.is_some() {
        return Err(DbError::unsupported("table inheritance and partitioning"));
    }
    if cs.of_typename.is_some() {
        return Err(DbError::unsupported("CREATE TABLE OF type"));
    }
    if ctx.db.catalog.name_taken(&name) {
        if cs.if_not_exists {
            notice_code(
                ctx,
                SqlState::DuplicateTable,
                format!("relation \"{name}\" already exists, skipping"),
            );
            return Ok(CommandTag::Plain("CREATE TABLE"));
        }
        return Err(exists_err(&name));
    }
    let persistence = match rv.relpersistence.as_str() {
        "t" => Persistence::Temporary,
        "u" => Persistence::Unlogged,
        _ => Persistence::Permanent,
    };
    let mut columns: Vec<Column> = Vec::new();
    let mut indexes: Vec<PendingIndex> = Vec::new();
    let mut checks: Vec<PendingCheck> = Vec::new();
    let mut serials: Vec<(usize, DataType)> = Vec::new();
    let mut b = binder(ctx, text);
    for elt in &cs.table_elts {
        match node(elt)? {
            NodeEnum::ColumnDef(cd) => {
                if columns.iter().any(|c| c.name == cd.colname) {
                    return Err(DbError::new(
                        SqlState::DuplicateColumn,
                        format!("column \"{}\" specified more than once", cd.colname),
                    ));
                }
                let (col, serial, _) = column_def(&mut b, cd, &mut indexes, &mut checks)?;
                if let Some(t) = serial {
                    serials.push((columns.len(), t));
                }
                columns.push(col);
            }
            NodeEnum::Constraint(c) => table_constraint(c, &mut indexes, &mut checks)?,
            NodeEnum::TableLikeClause(_) => {
                return Err(DbError::unsupported("CREATE TABLE ... LIKE"))
            }
            other => {
                return Err(DbError::unsupported(format!(
                    "table element {}",
                    bind::node_kind(other)
                )))
            }
        }
    }
    let mut owned = Vec::new();
    let mut new_seqs = Vec::new();
    for (pos, ty) in serials {
        let seq_name = fresh_name(ctx, &format!("{}_{}_seq", name, columns[pos].name), &owned);
        let max = if ty == DataType::Int8 {
            i64::MAX
        } else if ty == DataType::Int2 {
            i16::MAX as i64
        } else {
            i32::MAX as i64
        };
        let seq = Arc::new(Sequence {
            oid: ctx.db.catalog.alloc_oid(),
            name: seq_name.clone(),
            increment: 1,
            min: 1,
            max,
            start: 1,
            cycle: false,
            state: Mutex::new((1, false)),
            owned_by: Some((name.clone(), columns[pos].name.clone())),
            temporary: persistence == Persistence::Temporary,
            dirty: std::sync::atomic::AtomicBool::new(true),
        });
        columns[pos].default = Some(format!("nextval('{seq_name}'::regclass)"));
        owned.push(seq_name);
        new_seqs.push(seq);
    }
    let oid = ctx.db.catalog.alloc_oid();
    let storage = ctx.db.store.create_table(ctx.db.catalog.alloc_oid(), &name);
    let mut def = TableDef {
        oid,
        name: name.clone(),
        columns,
        checks: Vec::new(),
        indexes: Vec::new(),
        persistence,
        base_width: 0,
        owned_sequences: owned,
        storage: storage.clone(),
    };
    def.base_width = def.columns.len();
    let built = (|| -> Result<(), DbError> {
        def.checks = bind_checks(ctx, text, &def, checks)?;
        for pi in indexes {
            let idx = make_index(ctx, &def, &pi)
                .map_err(|e| bind::err_at(e, text, pi.constraint.unwrap_or(-1)))?;
            if pi.primary {
                for &c in &idx.columns {
                    def.columns[c].not_null = true;
                }
            }
            def.storage
                .add_index(idx.index.clone())
                .map_err(|e| e.into_db(&|v| nestor_plan::valops::render(v, &ctx.eval)))?;
            def.indexes.push(idx);
        }
        Ok(())
    })();
    if let Err(e) = built {
        ctx.db.store.drop_table(storage.id);
        return Err(e);
    }
    for s in new_seqs {
        ctx.db
            .catalog
            .apply(ctx.txn, &ctx.db.store, Change::PutSequence(s))?;
    }
    ctx.db.catalog.apply(
        ctx.txn,
        &ctx.db.store,
        Change::PutTable {
            def: Arc::new(def),
            old_storage: None,
        },
    )?;
    Ok(CommandTag::Plain("CREATE TABLE"))
}

/// A column definition: the column, its serial type if it is one, and its
/// bound DEFAULT (for ADD COLUMN's value of existing rows).
type ColumnParts = (Column, Option<DataType>, Option<Expr>);

fn column_def(
    b: &mut Binder,
    cd: &pb::ColumnDef,
    indexes: &mut Vec<PendingIndex>,
    checks: &mut Vec<PendingCheck>,
) -> Result<ColumnParts, DbError> {
    let tn = cd
        .type_name
        .as_ref()
        .ok_or_else(|| DbError::internal("column without type"))?;
    let tname = bind::names(&tn.names).last().cloned().unwrap_or_default();
    let serial = match tname.as_str() {
        "serial" | "serial4" => Some(DataType::Int4),
        "bigserial" | "serial8" => Some(DataType::Int8),
        "smallserial" | "serial2" => Some(DataType::Int2),
        _ => None,
    };
    let ty = match serial {
        Some(t) => t,
        None => bind::type_from_name(tn).map_err(|e| bind::err_at(e, b.text, tn.location))?,
    };
    let mut col = Column {
        name: cd.colname.clone(),
        ty,
        not_null: serial.is_some() || cd.is_not_null,
        default: None,
        missing: Value::Null,
        dropped: false,
    };
    let mut bound_default = None;
    if let Some(d) = &cd.raw_default {
        bound_default = Some(set_default(b, &mut col, d)?);
    }
    for c in &cd.constraints {
        let NodeEnum::Constraint(con) = node(c)? else {
            continue;
        };
        match pb::ConstrType::try_from(con.contype).unwrap_or(pb::ConstrType::Undefined) {
            pb::ConstrType::ConstrNotnull => col.not_null = true,
            pb::ConstrType::ConstrNull => col.not_null = false,
            pb::ConstrType::ConstrDefault => {
                let d = con
                    .raw_expr
                    .as_deref()
                    .ok_or_else(|| DbError::internal("DEFAULT without expression"))?;
                bound_default = Some(set_default(b, &mut col, d)?);
            }
            pb::ConstrType::ConstrPrimary | pb::ConstrType::ConstrUnique => {
                indexes.push(PendingIndex {
                    name: (!con.conname.is_empty()).then(|| con.conname.clone()),
                    cols: vec![cd.colname.clone()],
                    unique: true,
                    primary: con.contype == pb::ConstrType::ConstrPrimary as i32,
                    constraint: Some(con.location),
                })
            }
            pb::ConstrType::ConstrCheck => checks.push(PendingCheck {
                name: (!con.conname.is_empty()).then(|| con.conname.clone()),
                expr: con
                    .raw_expr
                    .as_deref()
                    .cloned()
                    .ok_or_else(|| DbError::internal("CHECK without expression"))?,
                column: Some(cd.colname.clone()),
            }),
            pb::ConstrType::ConstrForeign => {
                return Err(DbError::unsupported("FOREIGN KEY constraints"))
            }
            pb::ConstrType::ConstrIdentity => return Err(DbError::unsupported("identity columns")),
            pb::ConstrType::ConstrGenerated => {
                return Err(DbError::unsupported("generated columns"))
            }
            _ => {}
        }
    }
    Ok((col, serial, bound_default))
}

/// Bind a DEFAULT expression (so errors surface now), store its SQL text in
/// the column, and return the bound expression.
fn set_default(b: &mut Binder, col: &mut Column, d: &Node) -> Result<Expr, DbError> {
    b.agg = AggCtx::NotAllowed("DEFAULT expressions");
    let (e, t) = b.bind(d).map_err(|e| {
        if e.code == SqlState::UndefinedColumn {
            DbError::new(
                SqlState::FeatureNotSupported,
                "cannot use column reference in DEFAULT expression",
            )
        } else {
            e
        }
    })?;
    if contains_subquery(&e) {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "cannot use subquery in DEFAULT expression",
        ));
    }
    let e = b.coerce_assign(e, t, col.ty)?;
    col.default = Some(nestor_parser::deparse_expr(d)?);
    Ok(e)
}

fn contains_subquery(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x, Expr::Sub(_)));
    found
}

fn table_constraint(
    c: &pb::Constraint,
    indexes: &mut Vec<PendingIndex>,
    checks: &mut Vec<PendingCheck>,
) -> Result<(), DbError> {
    match pb::ConstrType::try_from(c.contype).unwrap_or(pb::ConstrType::Undefined) {
        pb::ConstrType::ConstrPrimary | pb::ConstrType::ConstrUnique => {
            indexes.push(PendingIndex {
                name: (!c.conname.is_empty()).then(|| c.conname.clone()),
                cols: bind::names(&c.keys),
                unique: true,
                primary: c.contype == pb::ConstrType::ConstrPrimary as i32,
                constraint: Some(c.location),
            });
            Ok(())
        }
        pb::ConstrType::ConstrCheck => {
            checks.push(PendingCheck {
                name: (!c.conname.is_empty()).then(|| c.conname.clone()),
                expr: c
                    .raw_expr
                    .as_deref()
                    .cloned()
                    .ok_or_else(|| DbError::internal("CHECK without expression"))?,
                column: None,
            });
            Ok(())
        }
        pb::ConstrType::ConstrForeign => Err(DbError::unsupported("FOREIGN KEY constraints")),
        pb::ConstrType::ConstrExclusion => Err(DbError::unsupported("EXCLUDE constraints")),
        _ => Err(DbError::unsupported("this table constraint")),
    }
}

fn bind_checks(
    ctx: &StatementCtx,
    text: &str,
    def: &TableDef,
    pending: Vec<PendingCheck>,
) -> Result<Vec<Check>, DbError> {
    let mut out = def.checks.clone();
    for pc in pending {
        let mut b = Binder::new(
            &ctx.db.catalog,
            ctx.eval,
            text,
            &[],
            nestor_plan::select::plan_query,
        );
        let scope = nestor_plan::select::table_scope(&Arc::new(def.clone()), &def.name);
        b.scopes.push(scope);
        b.outer_refs.push(None);
        b.agg = AggCtx::NotAllowed("check constraints");
        let expr = b.bind_bool(&pc.expr, "CHECK")?;
        if contains_subquery(&expr) {
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                "cannot use subquery in check constraint",
            ));
        }
        let first_col = pc.column.clone().or_else(|| {
            expr.columns()
                .first()
                .and_then(|&c| def.columns.get(c))
                .map(|c| c.name.clone())
        });
        let name = pc.name.unwrap_or_else(|| match &first_col {
            Some(c) => format!("{}_{}_check", def.name, c),
            None => format!("{}_check", def.name),
        });
        out.push(Check {
            name,
            expr: nestor_parser::deparse_expr(&pc.expr)?,
        });
    }
    Ok(out)
}

fn make_index(ctx: &StatementCtx, def: &TableDef, pi: &PendingIndex) -> Result<IndexDef, DbError> {
    let mut cols = Vec::new();
    for c in &pi.cols {
        let pos = def.column_index(c).ok_or_else(|| {
            let what = if pi.constraint.is_some() {
                " named in key"
            } else {
                ""
            };
            DbError::new(
                SqlState::UndefinedColumn,
                format!("column \"{c}\"{what} does not exist"),
            )
        })?;
        cols.push(pos);
    }
    let taken: Vec<String> = def.indexes.iter().map(|i| i.name.clone()).collect();
    let name = match &pi.name {
        Some(n) => {
            if ctx.db.catalog.name_taken(n) || taken.contains(n) {
                return Err(exists_err(n));
            }
            n.clone()
        }
        None if pi.primary => fresh_name(ctx, &format!("{}_pkey", def.name), &taken),
        None => {
            let suffix = if pi.unique { "key" } else { "idx" };
            fresh_name(
                ctx,
                &format!("{}_{}_{}", def.name, pi.cols.join("_"), suffix),
                &taken,
            )
        }
    };
    if pi.primary && def.indexes.iter().any(|i| i.primary) {
        return Err(DbError::new(
            SqlState::InvalidTableDefinition,
            format!(
                "multiple primary keys for table \"{}\" are not allowed",
                def.name
            ),
        ));
    }
    let oid = ctx.db.catalog.alloc_oid();
    let names: Vec<String> = cols.iter().map(|&c| def.columns[c].name.clone()).collect();
    let index = Arc::new(Index::new(
        oid,
        &name,
        cols.clone(),
        names,
        pi.unique,
        pi.primary,
    ));
    Ok(IndexDef {
        oid,
        name,
        columns: cols,
        unique: pi.unique,
        primary: pi.primary,
        constraint: pi.primary || pi.unique,
        index,
    })
}

/// Attach a new index to a table (CREATE INDEX, ADD PRIMARY KEY/UNIQUE).
fn add_index(ctx: &mut StatementCtx, def: &Arc<TableDef>, pi: PendingIndex) -> Result<(), DbError> {
    let idx = make_index(ctx, def, &pi)?;
    let mut new = (**def).clone();
    if pi.primary {
        for &c in &idx.columns {
            if !new.columns[c].not_null {
                let snap = ctx.snapshot;
                if def
                    .storage
                    .scan(&snap)
                    .any(|t| t.data.get(c).is_none_or(Value::is_null))
                {
                    return Err(DbError::new(
                        SqlState::NotNullViolation,
                        format!(
                            "column \"{}\" of relation \"{}\" contains null values",
                            new.columns[c].name, def.name
                        ),
                    ));
                }
                new.columns[c].not_null = true;
            }
        }
    }
    if idx
        .columns
        .iter()
        .any(|&c| def.columns[c].missing != Value::Null || c >= min_stored_width(def))
    {
        return Err(DbError::unsupported(
            "an index on a column added by ALTER TABLE ADD COLUMN",
        ));
    }
    def.storage
        .add_index(idx.index.clone())
        .map_err(|e| match e {
            nestor_storage::StorageError::UniqueViolation { columns, key, .. } => DbError::new(
                SqlState::UniqueViolation,
                format!("could not create unique index \"{}\"", idx.name),
            )
            .with_detail(format!(
                "Key ({})=({}) is duplicated.",
                columns.join(", "),
                key.iter()
                    .map(|v| nestor_plan::valops::render(v, &ctx.eval))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            e => e.into_db(&|v| nestor_plan::valops::render(v, &ctx.eval)),
        })?;
    new.indexes.push(idx);
    ctx.db.catalog.apply(
        ctx.txn,
        &ctx.db.store,
        Change::PutTable {
            def: Arc::new(new),
            old_storage: None,
        },
    )
}

/// Columns every stored row has (columns added later are padded on read).
fn min_stored_width(def: &TableDef) -> usize {
    def.columns
        .iter()
        .position(|c| c.missing != Value::Null)
        .unwrap_or(def.columns.len())
        .min(def.base_width)
}

/// CREATE [UNIQUE] INDEX.
pub fn create_index(ctx: &mut StatementCtx, is: &pb::IndexStmt) -> Result<CommandTag, DbError> {
    let rv = is
        .relation
        .as_ref()
        .ok_or_else(|| DbError::internal("CREATE INDEX without table"))?;
    let tname = relname(rv)?;
    let def = ctx
        .db
        .catalog
        .table(&tname)
        .ok_or_else(|| undefined_table(&tname))?;
    if is.where_clause.is_some() {
        return Err(DbError::unsupported("partial indexes"));
    }
    if !is.access_method.is_empty() && is.access_method != "btree" {
        return Err(DbError::unsupported(format!(
            "access method \"{}\"",
            is.access_method
        )));
    }
    let mut cols = Vec::new();
    for p in &is.index_params {
        let NodeEnum::IndexElem(ie) = node(p)? else {
            continue;
        };
        if ie.name.is_empty() {
            return Err(DbError::unsupported("indexes on expressions"));
        }
        cols.push(ie.name.clone());
    }
    if !is.idxname.is_empty() && ctx.db.catalog.name_taken(&is.idxname) {
        if is.if_not_exists {
            notice_code(
                ctx,
                SqlState::DuplicateTable,
                format!("relation \"{}\" already exists, skipping", is.idxname),
            );
            return Ok(CommandTag::Plain("CREATE INDEX"));
        }
        return Err(exists_err(&is.idxname));
    }
    let pi = PendingIndex {
        name: (!is.idxname.is_empty()).then(|| is.idxname.clone()),
        cols,
        unique: is.unique || is.primary,
        primary: is.primary,
        constraint: None,
    };
    add_index(ctx, &def, pi)?;
    Ok(CommandTag::Plain("CREATE INDEX"))
}

/// DROP TABLE / INDEX / SEQUENCE.
pub fn drop(ctx: &mut StatementCtx, ds: &pb::DropStmt) -> Result<CommandTag, DbError> {
    let kind = pb::ObjectType::try_from(ds.remove_type).unwrap_or(pb::ObjectType::Undefined);
    let (tag, what) = match kind {
        pb::ObjectType::ObjectTable => ("DROP TABLE", "table"),
        pb::ObjectType::ObjectIndex => ("DROP INDEX", "index"),
        pb::ObjectType::ObjectSequence => ("DROP SEQUENCE", "sequence"),
        pb::ObjectType::ObjectView => return Err(DbError::unsupported("views")),
        _ => return Err(DbError::unsupported(format!("DROP of {kind:?}"))),
    };
    // Resolve all first (PostgreSQL drops all or nothing).
    let mut names = Vec::new();
    for o in &ds.objects {
        let parts = match node(o)? {
            NodeEnum::List(l) => bind::names(&l.items),
            NodeEnum::String(s) => vec![s.sval.clone()],
            _ => continue,
        };
        let Some(name) = parts.last().cloned() else {
            continue;
        };
        let exists = match kind {
            pb::ObjectType::ObjectTable => ctx.db.catalog.table(&name).is_some(),
            pb::ObjectType::ObjectIndex => matches!(
                ctx.db.catalog.relation(&name),
                Some(nestor_catalog::Relation::Index { .. })
            ),
            _ => ctx.db.catalog.sequence(&name).is_some(),
        };
        if !exists {
            if ds.missing_ok {
                notice(ctx, format!("{what} \"{name}\" does not exist, skipping"));
                continue;
            }
            if ctx.db.catalog.name_taken(&name) {
                return Err(DbError::new(
                    SqlState::WrongObjectType,
                    format!("\"{name}\" is not a {what}"),
                ));
            }
            let msg = format!("{what} \"{name}\" does not exist");
            return Err(DbError::new(
                if what == "index" || what == "sequence" || what == "table" {
                    SqlState::UndefinedTable
                } else {
                    SqlState::UndefinedObject
                },
                msg,
            ));
        }
        names.push(name);
    }
    for name in names {
        match kind {
            pb::ObjectType::ObjectTable => drop_table(ctx, &name)?,
            pb::ObjectType::ObjectIndex => drop_index(ctx, &name)?,
            _ => drop_sequence(ctx, &name)?,
        }
    }
    Ok(CommandTag::Plain(tag))
}

fn drop_table(ctx: &mut StatementCtx, name: &str) -> Result<(), DbError> {
    let def = ctx
        .db
        .catalog
        .table(name)
        .ok_or_else(|| undefined_table(name))?;
    ctx.db
        .catalog
        .apply(ctx.txn, &ctx.db.store, Change::DropTable(name.to_string()))?;
    for s in &def.owned_sequences {
        if ctx.db.catalog.sequence(s).is_some() {
            ctx.db
                .catalog
                .apply(ctx.txn, &ctx.db.store, Change::DropSequence(s.clone()))?;
        }
    }
    Ok(())
}

fn drop_index(ctx: &mut StatementCtx, name: &str) -> Result<(), DbError> {
    let Some(nestor_catalog::Relation::Index { table, .. }) = ctx.db.catalog.relation(name) else {
        return Err(undefined_table(name));
    };
    let idx = table
        .indexes
        .iter()
        .find(|i| i.name == name)
        .ok_or_else(|| undefined_table(name))?;
    if idx.constraint {
        return Err(DbError::new(
            SqlState::ObjectInUse,
            format!(
                "cannot drop index {name} because constraint {name} on table {} requires it",
                table.name
            ),
        )
        .with_hint(format!(
            "You can drop constraint {name} on table {} instead.",
            table.name
        )));
    }
    let mut new = (*table).clone();
    new.indexes.retain(|i| i.name != name);
    table.storage.drop_index(idx.oid);
    ctx.db.catalog.apply(
        ctx.txn,
        &ctx.db.store,
        Change::PutTable {
            def: Arc::new(new),
            old_storage: None,
        },
    )
}

fn drop_sequence(ctx: &mut StatementCtx, name: &str) -> Result<(), DbError> {
    ctx.db.catalog.apply(
        ctx.txn,
        &ctx.db.store,
        Change::DropSequence(name.to_string()),
    )
}

fn def_int(d: &pb::DefElem) -> Result<Option<i64>, DbError> {
    match d.arg.as_deref().and_then(|n| n.node.as_ref()) {
        None => Ok(None),
        Some(NodeEnum::Integer(i)) => Ok(Some(i.ival as i64)),
        Some(NodeEnum::Float(f)) => f.fval.parse().map(Some).map_err(|_| {
            DbError::new(
                SqlState::InvalidParameterValue,
                format!("invalid value for {}", d.defname),
            )
        }),
        Some(NodeEnum::Boolean(b)) => Ok(Some(b.boolval as i64)),
        Some(_) => Err(DbError::unsupported(format!(
            "sequence option {}",
            d.defname
        ))),
    }
}

/// CREATE SEQUENCE.
pub fn create_sequence(
    ctx: &mut StatementCtx,
    cs: &pb::CreateSeqStmt,
) -> Result<CommandTag, DbError> {
    let rv = cs
        .sequence
        .as_ref()
        .ok_or_else(|| DbError::internal("CREATE SEQUENCE without name"))?;
    let name = relname(rv)?;
    if ctx.db.catalog.name_taken(&name) {
        if cs.if_not_exists {
            notice_code(
                ctx,
                SqlState::DuplicateTable,
                format!("relation \"{name}\" already exists, skipping"),
            );
            return Ok(CommandTag::Plain("CREATE SEQUENCE"));
        }
        return Err(exists_err(&name));
    }
    let (mut inc, mut min, mut max, mut start, mut cycle) = (1i64, None, None, None, false);
    for o in &cs.options {
        let NodeEnum::DefElem(d) = node(o)? else {
            continue;
        };
        match d.defname.as_str() {
            "increment" => inc = def_int(d)?.unwrap_or(1),
            "minvalue" => min = def_int(d)?,
            "maxvalue" => max = def_int(d)?,
            "start" => start = def_int(d)?,
            "cycle" => cycle = def_int(d)?.unwrap_or(1) != 0,
            "cache" | "owned_by" | "as" => {}
            other => return Err(DbError::unsupported(format!("sequence option {other}"))),
        }
    }
    if inc == 0 {
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            "INCREMENT must not be zero",
        ));
    }
    let min = min.unwrap_or(if inc > 0 { 1 } else { i64::MIN });
    let max = max.unwrap_or(if inc > 0 { i64::MAX } else { -1 });
    let start = start.unwrap_or(if inc > 0 { min } else { max });
    let seq = Arc::new(Sequence {
        oid: ctx.db.catalog.alloc_oid(),
        name: name.clone(),
        increment: inc,
        min,
        max,
        start,
        cycle,
        state: Mutex::new((start, false)),
        owned_by: None,
        temporary: rv.relpersistence == "t",
        dirty: std::sync::atomic::AtomicBool::new(true),
    });
    ctx.db
        .catalog
        .apply(ctx.txn, &ctx.db.store, Change::PutSequence(seq))?;
    Ok(CommandTag::Plain("CREATE SEQUENCE"))
}

/// TRUNCATE: swap in fresh storage (freed old storage at commit).
pub fn truncate(ctx: &mut StatementCtx, ts: &pb::TruncateStmt) -> Result<CommandTag, DbError> {
    let mut defs = Vec::new();
    for r in &ts.relations {
        let NodeEnum::RangeVar(rv) = node(r)? else {
            continue;
        };
        let name = relname(rv)?;
        defs.push(
            ctx.db
                .catalog
                .table(&name)
                .ok_or_else(|| undefined_table(&name))?,
        );
    }
    for def in defs {
        let storage = ctx
            .db
            .store
            .create_table(ctx.db.catalog.alloc_oid(), &def.name);
        let mut new = (*def).clone();
        new.storage = storage.clone();
        for idx in &mut new.indexes {
            let i = &idx.index;
            idx.index = Arc::new(Index::new(
                i.id,
                &i.name,
                i.columns.clone(),
                i.column_names.clone(),
                i.unique,
                i.primary,
            ));
            storage
                .add_index(idx.index.clone())
                .map_err(|e| e.into_db(&|v| nestor_plan::valops::render(v, &ctx.eval)))?;
        }
        for c in &mut new.columns {
            c.missing = Value::Null;
        }
        new.base_width = new.columns.len();
        if ts.restart_seqs {
            for s in &def.owned_sequences {
                if let Some(seq) = ctx.db.catalog.sequence(s) {
                    *seq.state.lock() = (seq.start, false);
                    seq.dirty.store(true, std::sync::atomic::Ordering::Release);
                }
            }
        }
        ctx.db.catalog.apply(
            ctx.txn,
            &ctx.db.store,
            Change::PutTable {
                def: Arc::new(new),
                old_storage: Some(def.storage.clone()),
            },
        )?;
    }
    Ok(CommandTag::Plain("TRUNCATE TABLE"))
}

/// ALTER TABLE.
pub fn alter_table(
    ctx: &mut StatementCtx,
    text: &str,
    at: &pb::AlterTableStmt,
) -> Result<CommandTag, DbError> {
    let rv = at
        .relation
        .as_ref()
        .ok_or_else(|| DbError::internal("ALTER TABLE without name"))?;
    let name = relname(rv)?;
    if at.objtype != pb::ObjectType::ObjectTable as i32 {
        return Err(DbError::unsupported("ALTER of this object type"));
    }
    let Some(_) = ctx.db.catalog.table(&name) else {
        if at.missing_ok {
            notice(ctx, format!("relation \"{name}\" does not exist, skipping"));
            return Ok(CommandTag::Plain("ALTER TABLE"));
        }
        return Err(undefined_table(&name));
    };
    for c in &at.cmds {
        let NodeEnum::AlterTableCmd(cmd) = node(c)? else {
            continue;
        };
        let def = ctx
            .db
            .catalog
            .table(&name)
            .ok_or_else(|| undefined_table(&name))?;
        alter_cmd(ctx, text, &def, cmd)?;
    }
    Ok(CommandTag::Plain("ALTER TABLE"))
}

fn alter_cmd(
    ctx: &mut StatementCtx,
    text: &str,
    def: &Arc<TableDef>,
    cmd: &pb::AlterTableCmd,
) -> Result<(), DbError> {
    use pb::AlterTableType as A;
    let sub = A::try_from(cmd.subtype).unwrap_or(A::Undefined);
    let put = |ctx: &mut StatementCtx, new: TableDef| {
        ctx.db.catalog.apply(
            ctx.txn,
            &ctx.db.store,
            Change::PutTable {
                def: Arc::new(new),
                old_storage: None,
            },
        )
    };
    match sub {
        A::AtAddColumn => {
            let Some(NodeEnum::ColumnDef(cd)) = cmd.def.as_deref().and_then(|n| n.node.as_ref())
            else {
                return Err(DbError::internal("ADD COLUMN without definition"));
            };
            if def.column_index(&cd.colname).is_some() {
                if cmd.missing_ok {
                    notice(
                        ctx,
                        format!(
                            "column \"{}\" of relation \"{}\" already exists, skipping",
                            cd.colname, def.name
                        ),
                    );
                    return Ok(());
                }
                return Err(DbError::new(
                    SqlState::DuplicateColumn,
                    format!(
                        "column \"{}\" of relation \"{}\" already exists",
                        cd.colname, def.name
                    ),
                ));
            }
            let mut b = binder(ctx, text);
            let mut idx = Vec::new();
            let mut checks = Vec::new();
            let (mut col, serial, bound_default) = column_def(&mut b, cd, &mut idx, &mut checks)?;
            if serial.is_some() {
                return Err(DbError::unsupported("ADD COLUMN of type serial"));
            }
            if !idx.is_empty() {
                return Err(DbError::unsupported(
                    "ADD COLUMN with PRIMARY KEY or UNIQUE",
                ));
            }
            let mut ev_missing = Value::Null;
            if let Some(d) = &bound_default {
                if !d.is_row_independent() {
                    return Err(DbError::unsupported("ADD COLUMN with a volatile default"));
                }
                let mut ev = crate::context::Ev::new(ctx, &[]);
                ev_missing =
                    nestor_plan::valops::cast(d.eval(&[], &mut ev)?, col.ty, false, &ev.ctx.eval)?;
            }
            if col.not_null
                && ev_missing.is_null()
                && def.storage.scan(&ctx.snapshot).next().is_some()
            {
                return Err(DbError::new(
                    SqlState::NotNullViolation,
                    format!(
                        "column \"{}\" of relation \"{}\" contains null values",
                        col.name, def.name
                    ),
                ));
            }
            col.missing = ev_missing;
            let mut new = (**def).clone();
            new.columns.push(col);
            new.checks = bind_checks(ctx, text, &new, checks)?;
            put(ctx, new)
        }
        A::AtDropColumn => {
            let Some(pos) = def.column_index(&cmd.name) else {
                if cmd.missing_ok {
                    notice(
                        ctx,
                        format!(
                            "column \"{}\" of relation \"{}\" does not exist, skipping",
                            cmd.name, def.name
                        ),
                    );
                    return Ok(());
                }
                return Err(DbError::new(
                    SqlState::UndefinedColumn,
                    format!(
                        "column \"{}\" of relation \"{}\" does not exist",
                        cmd.name, def.name
                    ),
                ));
            };
            let mut new = (**def).clone();
            new.columns[pos].dropped = true;
            new.columns[pos].not_null = false;
            new.columns[pos].default = None;
            let (gone, keep): (Vec<IndexDef>, Vec<IndexDef>) = new
                .indexes
                .drain(..)
                .partition(|i| i.columns.contains(&pos));
            new.indexes = keep;
            let bound = nestor_plan::modify::bind_checks(&ctx.db.catalog, ctx.eval, def)?;
            new.checks.retain(|c| {
                !bound
                    .iter()
                    .any(|b| b.name == c.name && b.expr.columns().contains(&pos))
            });
            for g in gone {
                def.storage.drop_index(g.oid);
            }
            put(ctx, new)
        }
        A::AtAddConstraint => {
            let Some(NodeEnum::Constraint(c)) = cmd.def.as_deref().and_then(|n| n.node.as_ref())
            else {
                return Err(DbError::internal("ADD CONSTRAINT without definition"));
            };
            let mut idx = Vec::new();
            let mut checks = Vec::new();
            table_constraint(c, &mut idx, &mut checks)?;
            for pi in idx {
                add_index(
                    ctx,
                    &ctx.db
                        .catalog
                        .table(&def.name)
                        .unwrap_or_else(|| def.clone()),
                    pi,
                )?;
            }
            if !checks.is_empty() {
                let cur = ctx
                    .db
                    .catalog
                    .table(&def.name)
                    .unwrap_or_else(|| def.clone());
                let mut new = (*cur).clone();
                new.checks = bind_checks(ctx, text, &new, checks)?;
                verify_checks(ctx, &new)?;
                put(ctx, new)?;
            }
            Ok(())
        }
        A::AtSetNotNull | A::AtDropNotNull => {
            let pos = def.column_index(&cmd.name).ok_or_else(|| {
                DbError::new(
                    SqlState::UndefinedColumn,
                    format!(
                        "column \"{}\" of relation \"{}\" does not exist",
                        cmd.name, def.name
                    ),
                )
            })?;
            let mut new = (**def).clone();
            new.columns[pos].not_null = sub == A::AtSetNotNull;
            put(ctx, new)
        }
        A::AtColumnDefault => {
            let pos = def.column_index(&cmd.name).ok_or_else(|| {
                DbError::new(
                    SqlState::UndefinedColumn,
                    format!(
                        "column \"{}\" of relation \"{}\" does not exist",
                        cmd.name, def.name
                    ),
                )
            })?;
            let mut new = (**def).clone();
            match cmd.def.as_deref() {
                Some(d) => {
                    let mut b = binder(ctx, text);
                    set_default(&mut b, &mut new.columns[pos], d)?;
                }
                None => new.columns[pos].default = None,
            }
            put(ctx, new)
        }
        A::AtSetRelOptions | A::AtResetRelOptions | A::AtSetLogged | A::AtSetUnLogged => Ok(()),
        other => Err(DbError::unsupported(format!("ALTER TABLE {other:?}"))),
    }
}

fn verify_checks(ctx: &mut StatementCtx, def: &TableDef) -> Result<(), DbError> {
    let checks =
        nestor_plan::modify::bind_checks(&ctx.db.catalog, ctx.eval, &Arc::new(def.clone()))?;
    let snap = ctx.snapshot;
    let rows: Vec<nestor_storage::Tuple> = def.storage.scan(&snap).collect();
    let mut ev = crate::context::Ev::new(ctx, &[]);
    for t in rows {
        let row = crate::executor::scan_row(&t, def);
        for ch in &checks {
            if crate::executor::eval::truthy(&ch.expr.eval(&row, &mut ev)?) == Some(false) {
                return Err(DbError::new(
                    SqlState::CheckViolation,
                    format!(
                        "check constraint \"{}\" of relation \"{}\" is violated by some row",
                        ch.name, def.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// VACUUM [ANALYZE] [tables] / ANALYZE.
pub fn vacuum(ctx: &mut StatementCtx, vs: &pb::VacuumStmt) -> Result<CommandTag, DbError> {
    if !vs.is_vacuumcmd {
        return Ok(CommandTag::Plain("ANALYZE"));
    }
    if ctx.in_block {
        return Err(DbError::new(
            SqlState::ActiveSqlTransaction,
            "VACUUM cannot run inside a transaction block",
        ));
    }
    let mut tables = Vec::new();
    for r in &vs.rels {
        let NodeEnum::VacuumRelation(vr) = node(r)? else {
            continue;
        };
        if let Some(rv) = &vr.relation {
            let name = relname(rv)?;
            tables.push(
                ctx.db
                    .catalog
                    .table(&name)
                    .ok_or_else(|| undefined_table(&name))?,
            );
        }
    }
    if tables.is_empty() {
        ctx.db.store.prune_all();
    } else {
        let horizon = ctx.db.txn.gc_horizon();
        for t in tables {
            t.storage.prune(horizon);
        }
    }
    Ok(CommandTag::Plain("VACUUM"))
}
