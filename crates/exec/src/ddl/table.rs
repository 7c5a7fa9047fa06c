//! CREATE TABLE and CREATE INDEX: column definitions, serial sequences,
//! constraints (PRIMARY KEY, UNIQUE, CHECK, NOT NULL, DEFAULT) and indexes.

use std::sync::Arc;

use nestor_catalog::{
    AccessMethod, Change, Check, Column, IndexDef, OnCommit, Persistence, Sequence, TableDef,
};
use nestor_common::{DbError, RelId, SqlState};
use nestor_parser::pb::{self, Node};
use nestor_parser::NodeEnum;
use nestor_plan::bind::{self, node, relname, AggCtx, Binder};
use nestor_plan::ir::Expr;
use nestor_storage::Index;
use nestor_types::datatype::DataType;
use nestor_types::Value;
use parking_lot::Mutex;

use crate::context::StatementCtx;
use crate::tag::CommandTag;

use super::{
    binder, exists_err, fresh_name, skip_existing, undefined_table, PendingCheck, PendingIndex,
};

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
    if cs.of_typename.is_some() {
        return Err(DbError::unsupported("CREATE TABLE OF type"));
    }
    super::index_am::check_table_options(&cs.options)?;
    if cs.partspec.is_some() {
        refuse_no_inherit_partitioned(cs, &rv.relname)?;
    }
    let persistence = match rv.relpersistence.as_str() {
        "t" => Persistence::Temporary,
        "u" => Persistence::Unlogged,
        _ => Persistence::Permanent,
    };
    let temporary = persistence == Persistence::Temporary;
    let namespace =
        creation_namespace(ctx, rv, temporary).map_err(|e| bind::err_at(e, text, rv.location))?;
    // From here on the name finds the table's schema whatever the path.
    let name = ctx.catalog.qualify(namespace, &rv.relname);
    let on_commit = match pb::OnCommitAction::try_from(cs.oncommit) {
        Ok(pb::OnCommitAction::OncommitDeleteRows) => OnCommit::DeleteRows,
        Ok(pb::OnCommitAction::OncommitDrop) => OnCommit::Drop,
        Ok(pb::OnCommitAction::OncommitPreserveRows) => OnCommit::PreserveRows,
        _ => OnCommit::PreserveRows,
    };
    let explicit = !matches!(
        pb::OnCommitAction::try_from(cs.oncommit),
        Ok(pb::OnCommitAction::OncommitNoop | pb::OnCommitAction::Undefined) | Err(_)
    );
    if explicit && !temporary {
        return Err(DbError::new(
            SqlState::InvalidTableDefinition,
            "ON COMMIT can only be used on temporary tables",
        ));
    }
    if let Some(tag) = skip_existing(ctx, &name, cs.if_not_exists, "CREATE TABLE", temporary)? {
        return Ok(tag);
    }
    super::partition::check_spec(cs)?;
    // PARTITION OF's column options apply to the inherited columns, once
    // they are merged in.
    let (options, own);
    let cs = if cs.partbound.is_some() {
        (options, own) = split_column_options(cs)?;
        &own
    } else {
        options = Vec::new();
        cs
    };
    let mut elements = table_elements(ctx, text, cs)?;
    let parents = super::inherit::parents(ctx, cs, temporary)?;
    let part_parent = match cs.partbound {
        Some(_) => Some(super::partition::parent_of(&parents)?),
        None => {
            super::partition::refuse_partitioned_parents(&parents)?;
            None
        }
    };
    if !parents.is_empty() {
        inherit_elements(ctx, &parents, &rv.relname, &mut elements)?;
    }
    column_options(ctx, text, &options, &mut elements)?;
    let bound = match (&part_parent, &cs.partbound) {
        (Some(p), Some(spec)) => {
            let b = super::partition::transform_bound(ctx, text, p, spec)?;
            super::partition::check_new_bound(ctx, text, &rv.relname, p, &b, spec)?;
            super::partition::check_default_rows(ctx, p, &b)?;
            elements
                .indexes
                .extend(super::partition::inherited_indexes(p));
            Some(b)
        }
        _ => None,
    };
    if cs.partspec.is_some() && !elements.fks.is_empty() {
        return Err(DbError::unsupported("foreign keys on partitioned tables"));
    }
    let pending_indexes = match &cs.partspec {
        Some(_) => elements.indexes.clone(),
        None => Vec::new(),
    };
    let seqs = serial_sequences(ctx, &name, persistence, &mut elements)?;
    let generated = std::mem::take(&mut elements.generated);
    let fks = std::mem::take(&mut elements.fks);
    let bare = rv.relname.clone();
    let mut def = build_table(ctx, text, (namespace, bare), persistence, elements, &seqs)?;
    def.on_commit = on_commit;
    def.inherits = parents.iter().map(|p| p.oid).collect();
    // The key's expressions bind over the new table's row.
    let key = super::partition::key_of(ctx, text, cs, &def).and_then(|key| {
        if let Some(k) = &key {
            for pi in &pending_indexes {
                super::partition::check_unique(&rv.relname, k, &def.columns, pi)?;
            }
        }
        Ok(key)
    });
    def.partition_key = match key {
        Ok(k) => k,
        Err(e) => {
            ctx.db.store.drop_table(def.storage.id);
            return Err(e);
        }
    };
    def.partition_bound = bound;
    let mut taken = Vec::new();
    for p in &fks {
        let fk = super::foreign_key::resolve(ctx, &def, p, &taken);
        let fk = match fk {
            Ok(fk) => fk,
            Err(e) => {
                ctx.db.store.drop_table(def.storage.id);
                return Err(e);
            }
        };
        taken.push(fk.name.clone());
        def.foreign_keys.push(fk);
    }
    for s in seqs {
        ctx.catalog
            .apply(ctx.txn, &ctx.db.store, Change::PutSequence(s))?;
    }
    let oid = def.oid;
    super::put_table(ctx, def)?;
    // Checked once the table exists, so `tableoid = 't'::regclass`
    // finds it (the statement's failure undoes it).
    if let Some(def) = ctx.catalog.table(&name).filter(|_| !generated.is_empty()) {
        for (col, e) in &generated {
            if let Some(i) = def.column_index(col) {
                super::generated::check_expr(ctx, text, &def, i, e)?;
            }
        }
    }
    if let Some(p) = &part_parent {
        super::trigger::adopt(ctx, p, oid)?;
        super::part_index::inherit(ctx, p, oid, true)?;
    }
    Ok(CommandTag::Plain("CREATE TABLE"))
}

/// PARTITION OF's column options (`a WITH OPTIONS NOT NULL`) apart from
/// the statement's other elements.
fn split_column_options(
    cs: &pb::CreateStmt,
) -> Result<(Vec<pb::ColumnDef>, pb::CreateStmt), DbError> {
    let mut own = cs.clone();
    let mut options = Vec::new();
    own.table_elts.clear();
    for e in &cs.table_elts {
        match node(e)? {
            // One entry per column (PostgreSQL's MergeAttributes).
            NodeEnum::ColumnDef(cd)
                if options
                    .iter()
                    .any(|o: &pb::ColumnDef| o.colname == cd.colname) =>
            {
                return Err(DbError::new(
                    SqlState::DuplicateColumn,
                    format!("column \"{}\" specified more than once", cd.colname),
                ))
            }
            NodeEnum::ColumnDef(cd) => options.push((**cd).clone()),
            _ => own.table_elts.push(e.clone()),
        }
    }
    Ok((options, own))
}

/// Column options of PARTITION OF applied to the inherited columns: NOT
/// NULL, DEFAULT, CHECK, PRIMARY KEY and UNIQUE (others 0A000).
fn column_options(
    ctx: &StatementCtx,
    text: &str,
    options: &[pb::ColumnDef],
    el: &mut Elements,
) -> Result<(), DbError> {
    let mut b = binder(ctx, text);
    for cd in options {
        let i = el
            .columns
            .iter()
            .position(|c| !c.dropped && c.name == cd.colname)
            .ok_or_else(|| {
                DbError::new(
                    SqlState::UndefinedColumn,
                    format!("column \"{}\" does not exist", cd.colname),
                )
            })?;
        el.columns[i].not_null |= cd.is_not_null;
        if let Some(d) = &cd.raw_default {
            set_default(&mut b, &mut el.columns[i], d)?;
        }
        for c in &cd.constraints {
            let NodeEnum::Constraint(con) = node(c)? else {
                continue;
            };
            let name = (!con.conname.is_empty()).then(|| con.conname.clone());
            match pb::ConstrType::try_from(con.contype).unwrap_or(pb::ConstrType::Undefined) {
                pb::ConstrType::ConstrNotnull => el.columns[i].not_null = true,
                pb::ConstrType::ConstrDefault => {
                    let d = con
                        .raw_expr
                        .as_deref()
                        .ok_or_else(|| DbError::internal("DEFAULT without expression"))?;
                    set_default(&mut b, &mut el.columns[i], d)?;
                }
                pb::ConstrType::ConstrCheck => {
                    super::inherit::refuse_no_inherit(con)?;
                    el.checks.push(PendingCheck {
                        name,
                        expr: con
                            .raw_expr
                            .as_deref()
                            .cloned()
                            .ok_or_else(|| DbError::internal("CHECK without expression"))?,
                        column: Some(cd.colname.clone()),
                    });
                }
                pb::ConstrType::ConstrPrimary | pb::ConstrType::ConstrUnique => {
                    el.indexes.push(PendingIndex {
                        name,
                        cols: vec![cd.colname.clone()],
                        unique: true,
                        primary: con.contype == pb::ConstrType::ConstrPrimary as i32,
                        constraint: Some(con.location),
                        nulls_not_distinct: con.nulls_not_distinct,
                        method: AccessMethod::Btree,
                        keyopts: Vec::new(),
                    })
                }
                pb::ConstrType::ConstrGenerated => {
                    return Err(DbError::new(
                        SqlState::FeatureNotSupported,
                        "generated columns are not supported on partitions",
                    ))
                }
                _ => {
                    return Err(DbError::unsupported(
                        "this column option in CREATE TABLE ... PARTITION OF",
                    ))
                }
            }
        }
    }
    Ok(())
}

/// The parents' columns and CHECK constraints merged into a new table's
/// own (`inherit::merge_columns`), its serial and identity positions
/// moved with its columns.
fn inherit_elements(
    ctx: &mut StatementCtx,
    parents: &[Arc<TableDef>],
    table: &str,
    el: &mut Elements,
) -> Result<(), DbError> {
    let own = std::mem::take(&mut el.columns);
    let (columns, moved) = super::inherit::merge_columns(ctx, parents, own)?;
    el.columns = columns;
    for (pos, _) in &mut el.serials {
        *pos = moved[*pos];
    }
    for (pos, _) in &mut el.identities {
        *pos = moved[*pos];
        let c = &el.columns[*pos];
        if c.generated {
            return Err(DbError::new(
                SqlState::InvalidColumnDefinition,
                format!(
                    "column \"{}\" inherits from generated column but specifies identity",
                    c.name
                ),
            ));
        }
    }
    let own = std::mem::take(&mut el.checks);
    el.checks = super::inherit::merge_checks(ctx, parents, table, own)?;
    Ok(())
}

/// The schema a new relation named by `rv` goes to (3F000 if there is no
/// such schema; a TEMP one only in the session's, as in PostgreSQL).
pub(super) fn creation_namespace(
    ctx: &StatementCtx,
    rv: &pb::RangeVar,
    temporary: bool,
) -> Result<u32, DbError> {
    let schema = rv.schemaname.as_str();
    if temporary && !matches!(schema, "" | "pg_temp") {
        return Err(DbError::new(
            SqlState::InvalidTableDefinition,
            "cannot create temporary relation in non-temporary schema",
        ));
    }
    // A permanent one became TEMP (`statement::temp_schema`): this is
    // UNLOGGED.
    if !temporary && schema == "pg_temp" {
        return Err(unlogged_in_temp());
    }
    if temporary {
        return Ok(nestor_catalog::TEMP_NAMESPACE);
    }
    ctx.catalog.creation_namespace(schema)
}

fn unlogged_in_temp() -> DbError {
    DbError::new(
        SqlState::InvalidTableDefinition,
        "only temporary relations may be created in temporary schemas",
    )
}

/// The columns and constraints of a CREATE TABLE.
struct Elements {
    columns: Vec<Column>,
    indexes: Vec<PendingIndex>,
    checks: Vec<PendingCheck>,
    /// Serial columns: (position, integer type).
    serials: Vec<(usize, DataType)>,
    /// Identity columns: (position, options).
    identities: Vec<(usize, IdentitySpec)>,
    fks: Vec<super::foreign_key::PendingFk>,
    /// Generation expressions as written, by column name.
    generated: Vec<(String, Node)>,
}

fn table_elements(
    ctx: &StatementCtx,
    text: &str,
    cs: &pb::CreateStmt,
) -> Result<Elements, DbError> {
    let mut el = Elements {
        columns: Vec::new(),
        indexes: Vec::new(),
        checks: Vec::new(),
        serials: Vec::new(),
        identities: Vec::new(),
        fks: Vec::new(),
        generated: Vec::new(),
    };
    let mut b = binder(ctx, text);
    for elt in &cs.table_elts {
        match node(elt)? {
            NodeEnum::ColumnDef(cd) => {
                if el.columns.iter().any(|c| c.name == cd.colname) {
                    return Err(DbError::new(
                        SqlState::DuplicateColumn,
                        format!("column \"{}\" specified more than once", cd.colname),
                    ));
                }
                let table = cs.relation.as_ref().map_or("", |r| r.relname.as_str());
                let (col, serial, _, identity, generation) = column_def(
                    &mut b,
                    table,
                    cd,
                    &mut el.indexes,
                    &mut el.checks,
                    &mut el.fks,
                )?;
                if let Some(e) = generation {
                    el.generated.push((col.name.clone(), e));
                }
                if let Some(t) = serial {
                    el.serials.push((el.columns.len(), t));
                }
                if let Some(spec) = identity {
                    if serial.is_some() || col.default.is_some() {
                        let table = cs.relation.as_ref().map_or("", |r| r.relname.as_str());
                        return Err(bind::err_at(
                            DbError::new(
                                SqlState::SyntaxError,
                                format!(
                                    "both default and identity specified for column \"{}\" of table \"{table}\"",
                                    cd.colname
                                ),
                            ),
                            text,
                            spec.location,
                        ));
                    }
                    el.identities.push((el.columns.len(), spec));
                }
                el.columns.push(col);
            }
            NodeEnum::Constraint(c) => {
                table_constraint(c, &mut el.indexes, &mut el.checks, &mut el.fks)?
            }
            NodeEnum::TableLikeClause(like) => like_clause(ctx, text, like, &mut el)?,
            other => {
                return Err(DbError::unsupported(format!(
                    "table element {}",
                    bind::node_kind(other)
                )))
            }
        }
    }
    Ok(el)
}

// CREATE TABLE ... (LIKE source INCLUDING ...): PostgreSQL's
// CREATE_TABLE_LIKE_* option bits.
const LIKE_COMPRESSION: u32 = 1 << 1;
const LIKE_CONSTRAINTS: u32 = 1 << 2;
const LIKE_DEFAULTS: u32 = 1 << 3;
const LIKE_GENERATED: u32 = 1 << 4;
const LIKE_INDEXES: u32 = 1 << 6;
const LIKE_STORAGE: u32 = 1 << 8;

/// LIKE source: its columns with their types and NOT NULL; with INCLUDING
/// DEFAULTS their defaults (a serial column's default keeps naming the
/// source's sequence, as in PostgreSQL), with INCLUDING CONSTRAINTS its
/// CHECK constraints (same names), with INCLUDING INDEXES its indexes and
/// PRIMARY KEY / UNIQUE constraints (names chosen for the new table).
/// Identity, comments, storage and statistics have nothing to copy.
fn like_clause(
    ctx: &StatementCtx,
    text: &str,
    like: &pb::TableLikeClause,
    el: &mut Elements,
) -> Result<(), DbError> {
    let rv = like
        .relation
        .as_ref()
        .ok_or_else(|| DbError::internal("LIKE without a relation"))?;
    let name = relname(rv)?;
    let src = ctx
        .catalog
        .table(&name)
        .ok_or_else(|| bind::err_at(super::undefined_table(&name), text, rv.location))?;
    for c in src.columns.iter().filter(|c| !c.dropped) {
        if el.columns.iter().any(|x| x.name == c.name) {
            return Err(DbError::new(
                SqlState::DuplicateColumn,
                format!("column \"{}\" specified more than once", c.name),
            ));
        }
        el.columns.push(Column {
            name: c.name.clone(),
            ty: c.ty,
            domain: c.domain,
            not_null: c.not_null,
            default: (like.options
                & if c.generated {
                    LIKE_GENERATED
                } else {
                    LIKE_DEFAULTS
                }
                != 0)
                .then(|| c.default.clone())
                .flatten(),
            generated: c.generated && like.options & LIKE_GENERATED != 0,
            missing: Value::Null,
            dropped: false,
            storage: c.storage.filter(|_| like.options & LIKE_STORAGE != 0),
            compression: if like.options & LIKE_COMPRESSION != 0 {
                c.compression
            } else {
                0
            },
        });
    }
    if like.options & LIKE_CONSTRAINTS != 0 {
        for k in &src.checks {
            el.checks.push(PendingCheck {
                name: Some(k.name.clone()),
                expr: nestor_parser::parse_expr(&k.expr)?,
                column: None,
            });
        }
    }
    if like.options & LIKE_INDEXES != 0 {
        for i in &src.indexes {
            if i.exprs.is_some() {
                return Err(DbError::unsupported(
                    "LIKE ... INCLUDING INDEXES of a table with expression, partial or GIN indexes",
                ));
            }
            el.indexes.push(PendingIndex {
                name: None,
                cols: i
                    .columns
                    .iter()
                    .map(|&p| src.columns[p].name.clone())
                    .collect(),
                unique: i.unique,
                primary: i.primary,
                constraint: i.constraint.then_some(-1),
                nulls_not_distinct: i.index.nulls_not_distinct,
                method: i.method,
                keyopts: i.keyopts.clone(),
            });
        }
    }
    Ok(())
}

/// The sequences of serial columns (`t_id_seq`), owned by their columns,
/// which default to their nextval.
fn serial_sequences(
    ctx: &StatementCtx,
    table: &str,
    persistence: Persistence,
    el: &mut Elements,
) -> Result<Vec<Arc<Sequence>>, DbError> {
    let mut names = Vec::new();
    let mut seqs = Vec::new();
    for (pos, spec) in &el.identities {
        let col = &mut el.columns[*pos];
        let seq = identity_sequence(ctx, table, col, spec, persistence, &names)?;
        names.push(seq.name.clone());
        seqs.push(Arc::new(seq));
    }
    for &(pos, ty) in &el.serials {
        let col = &mut el.columns[pos];
        let temporary = persistence == Persistence::Temporary;
        let seq_name = fresh_name(ctx, &format!("{table}_{}_seq", col.name), &names, temporary);
        let max = match ty {
            DataType::Int8 => i64::MAX,
            DataType::Int2 => i16::MAX as i64,
            _ => i32::MAX as i64,
        };
        let namespace = namespace_of(ctx, table);
        let bare = ctx.catalog.unqualified(&seq_name).to_string();
        let shown = ctx.catalog.display_name(namespace, &bare);
        seqs.push(Arc::new(Sequence {
            oid: ctx.catalog.alloc_oid(),
            name: bare,
            namespace,
            increment: 1,
            min: 1,
            max,
            start: 1,
            cycle: false,
            type_oid: super::seq_params::oid_of(ty).unwrap_or(super::seq_params::INT8_OID),
            cache: 1,
            state: Arc::new(Mutex::new((1, false))),
            owned_by: Some((ctx.catalog.unqualified(table).to_string(), col.name.clone())),
            temporary: persistence == Persistence::Temporary,
            dirty: Arc::new(std::sync::atomic::AtomicBool::new(true)),
        }));
        col.default = Some(format!("nextval('{shown}'::regclass)"));
        names.push(seq_name);
    }
    Ok(seqs)
}

/// ADD COLUMN of a serial or identity column: its sequence, put in the
/// catalog and owned by the column, whose default becomes its nextval.
/// Returns the sequence's name (for the table's `owned_sequences`).
pub(super) fn added_column_sequence(
    ctx: &mut StatementCtx,
    def: &TableDef,
    col: &mut Column,
    serial: Option<DataType>,
    identity: Option<&IdentitySpec>,
) -> Result<String, DbError> {
    let mut el = Elements {
        columns: vec![col.clone()],
        indexes: Vec::new(),
        checks: Vec::new(),
        serials: serial.map(|t| vec![(0, t)]).unwrap_or_default(),
        identities: identity.map(|s| vec![(0, s.clone())]).unwrap_or_default(),
        fks: Vec::new(),
        generated: Vec::new(),
    };
    let mut seqs = serial_sequences(ctx, &def.name, def.persistence, &mut el)?;
    *col = el.columns.pop().expect("the added column");
    let seq = seqs
        .pop()
        .expect("a serial or identity column has a sequence");
    assert!(seqs.is_empty(), "one column has one sequence");
    let name = seq.name.clone();
    ctx.catalog.apply(
        ctx.txn,
        &ctx.db.store,
        nestor_catalog::Change::PutSequence(seq),
    )?;
    Ok(name)
}

/// GENERATED {ALWAYS | BY DEFAULT} AS IDENTITY [(sequence options)].
#[derive(Clone)]
pub(super) struct IdentitySpec {
    pub always: bool,
    pub options: Vec<Node>,
    /// Of the GENERATED clause, for errors.
    pub location: i32,
}

/// The sequence of identity column `col` of `table` (named by SEQUENCE
/// NAME or `<table>_<column>_seq`, bounded by the column's type), owned by
/// the column, which becomes NOT NULL and defaults to its nextval.
pub(super) fn identity_sequence(
    ctx: &StatementCtx,
    table: &str,
    col: &mut Column,
    spec: &IdentitySpec,
    persistence: Persistence,
    taken: &[String],
) -> Result<Sequence, DbError> {
    let Some(type_oid) = super::seq_params::oid_of(col.ty) else {
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            "identity column type must be smallint, integer, or bigint",
        ));
    };
    let temporary = persistence == Persistence::Temporary;
    let f = super::seq_params::init_params(&spec.options, None, type_oid, true)?;
    let mut name = None;
    for o in &spec.options {
        let NodeEnum::DefElem(d) = node(o)? else {
            continue;
        };
        if d.defname == "sequence_name" {
            if let Some(NodeEnum::List(l)) = d.arg.as_deref().map(node).transpose()? {
                name = bind::names(&l.items).last().cloned();
            }
        }
    }
    let seq_name = match name {
        Some(n) if ctx.catalog.name_taken_in(&n, temporary) => return Err(super::exists_err(&n)),
        Some(n) => n,
        None => fresh_name(ctx, &format!("{table}_{}_seq", col.name), taken, temporary),
    };
    let namespace = namespace_of(ctx, table);
    let bare = ctx.catalog.unqualified(&seq_name).to_string();
    col.not_null = true;
    col.default = Some(format!(
        "nextval('{}'::regclass)",
        ctx.catalog.display_name(namespace, &bare)
    ));
    Ok(f.sequence(
        ctx.catalog.alloc_oid(),
        bare,
        namespace,
        Some((ctx.catalog.unqualified(table).to_string(), col.name.clone())),
        temporary,
    ))
}

/// The schema OID of the relation the catalog knows as `name` (maybe
/// `schema.name`).
fn namespace_of(ctx: &StatementCtx, name: &str) -> u32 {
    match name.split_once('.') {
        Some(("pg_temp", _)) => nestor_catalog::TEMP_NAMESPACE,
        Some((schema, _)) => ctx
            .catalog
            .schema(schema)
            .map_or(nestor_catalog::PUBLIC_NAMESPACE_OID, |s| s.oid.0),
        None => nestor_catalog::PUBLIC_NAMESPACE_OID,
    }
}

/// The table definition with its storage, CHECKs and indexes built (the
/// storage is dropped again if anything fails).
fn build_table(
    ctx: &StatementCtx,
    text: &str,
    (namespace, name): (u32, String),
    persistence: Persistence,
    el: Elements,
    seqs: &[Arc<Sequence>],
) -> Result<TableDef, DbError> {
    let oid = ctx.catalog.alloc_oid();
    let storage = ctx.db.store.create_table(ctx.catalog.alloc_oid(), &name);
    let mut def = TableDef {
        oid,
        name,
        namespace,
        base_width: el.columns.len(),
        columns: el.columns,
        checks: Vec::new(),
        indexes: Vec::new(),
        persistence,
        owned_sequences: seqs.iter().map(|s| s.name.clone()).collect(),
        on_commit: OnCommit::PreserveRows,
        triggers: Vec::new(),
        rules: Vec::new(),
        row_security: Default::default(),
        foreign_keys: Vec::new(),
        identities: el
            .identities
            .iter()
            .map(|(pos, spec)| nestor_catalog::Identity {
                column: *pos,
                always: spec.always,
            })
            .collect(),
        matview: None,
        not_valid: Vec::new(),
        inherits: Vec::new(),
        partition_key: None,
        partition_bound: None,
        storage: storage.clone(),
    };
    let built = (|| -> Result<(), DbError> {
        def.checks = bind_checks(ctx, text, &def, el.checks)?;
        for pi in el.indexes {
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
    match built {
        Ok(()) => Ok(def),
        Err(e) => {
            ctx.db.store.drop_table(storage.id);
            Err(e)
        }
    }
}

/// A column definition: the column, its serial type if it is one, its
/// bound DEFAULT (for ADD COLUMN's value of existing rows), its identity,
/// and its generation expression as written (checked once the table's
/// columns are known: `super::generated::check_expr`).
type ColumnParts = (
    Column,
    Option<DataType>,
    Option<Expr>,
    Option<IdentitySpec>,
    Option<Node>,
);

pub(super) fn column_def(
    b: &mut Binder,
    table: &str,
    cd: &pb::ColumnDef,
    indexes: &mut Vec<PendingIndex>,
    checks: &mut Vec<PendingCheck>,
    fks: &mut Vec<super::foreign_key::PendingFk>,
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
        // A table's name is its row type (nestor_catalog's row_type).
        None => match bind::type_from_name(tn) {
            Ok(t) => t,
            Err(e) => {
                if let Some(p) = pseudo_type_named(tn) {
                    return Err(pseudo_column(&cd.colname, p));
                }
                b.table_row_type(e, tn)
                    .map_err(|e| bind::err_at(e, b.text, tn.location))?
            }
        },
    };
    if let Some(pseudo) = pseudo_type(ty) {
        return Err(pseudo_column(&cd.colname, pseudo));
    }
    let domain = serial
        .is_none()
        .then(|| bind::domain::domain_or_array(tn))
        .flatten()
        .map(|(d, array)| if array { d.array_oid } else { d.oid });
    let mut col = Column {
        name: cd.colname.clone(),
        ty,
        domain,
        not_null: serial.is_some() || cd.is_not_null,
        default: None,
        generated: false,
        missing: Value::Null,
        dropped: false,
        storage: None,
        compression: 0,
    };
    if !cd.compression.is_empty() {
        col.compression = super::column_storage::compression_for(&col, &cd.compression)?;
    }
    if !cd.storage_name.is_empty() {
        col.storage = super::column_storage::storage_for(&col, &cd.storage_name)?;
    }
    let mut bound_default = None;
    let mut identity = None;
    let mut generation = None;
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
                    nulls_not_distinct: con.nulls_not_distinct,
                    method: AccessMethod::Btree,
                    keyopts: Vec::new(),
                })
            }
            pb::ConstrType::ConstrCheck => checks.push(PendingCheck {
                name: {
                    super::inherit::refuse_no_inherit(con)?;
                    (!con.conname.is_empty()).then(|| con.conname.clone())
                },
                expr: con
                    .raw_expr
                    .as_deref()
                    .cloned()
                    .ok_or_else(|| DbError::internal("CHECK without expression"))?,
                column: Some(cd.colname.clone()),
            }),
            pb::ConstrType::ConstrForeign => fks.push(super::foreign_key::pending(
                con,
                Some(vec![cd.colname.clone()]),
            )?),
            // [NOT] DEFERRABLE / INITIALLY ... after a column's REFERENCES
            // come as constraints of their own (PostgreSQL's
            // transformConstraintAttrs applies them to the one before).
            pb::ConstrType::ConstrAttrDeferrable
            | pb::ConstrType::ConstrAttrNotDeferrable
            | pb::ConstrType::ConstrAttrDeferred
            | pb::ConstrType::ConstrAttrImmediate => {
                let kind =
                    pb::ConstrType::try_from(con.contype).unwrap_or(pb::ConstrType::Undefined);
                let Some(fk) = fks.last_mut() else {
                    return Err(bind::err_at(
                        DbError::new(SqlState::SyntaxError, "misplaced DEFERRABLE clause"),
                        b.text,
                        con.location,
                    ));
                };
                match kind {
                    pb::ConstrType::ConstrAttrDeferrable => fk.deferrable = true,
                    pb::ConstrType::ConstrAttrNotDeferrable => fk.deferrable = false,
                    pb::ConstrType::ConstrAttrDeferred => fk.deferred = true,
                    _ => fk.deferred = false,
                }
                if fk.deferred && !fk.deferrable && kind != pb::ConstrType::ConstrAttrDeferred {
                    return Err(bind::err_at(
                        DbError::new(
                            SqlState::SyntaxError,
                            "constraint declared INITIALLY DEFERRED must be DEFERRABLE",
                        ),
                        b.text,
                        con.location,
                    ));
                }
                if kind == pb::ConstrType::ConstrAttrDeferred {
                    // INITIALLY DEFERRED implies DEFERRABLE unless NOT
                    // DEFERRABLE follows (checked when it does).
                    fk.deferrable = true;
                }
            }
            pb::ConstrType::ConstrIdentity => {
                identity = Some(IdentitySpec {
                    always: con.generated_when == "a",
                    options: con.options.clone(),
                    location: con.location,
                });
            }
            pb::ConstrType::ConstrGenerated => {
                let e = super::generated::constraint(b.text, table, cd, con, generation.is_some())?;
                generation = Some(e);
            }
            _ => {}
        }
    }
    if let Some(e) = &generation {
        super::generated::refuse_default_or_identity(
            b.text,
            table,
            cd,
            col.default.is_some() || serial.is_some(),
            identity.is_some(),
        )?;
        col.default = Some(nestor_parser::deparse_expr(e)?);
        col.generated = true;
    }
    Ok((col, serial, bound_default, identity, generation))
}

/// Bind a DEFAULT expression (so errors surface now), store its SQL text in
/// the column, and return the bound expression.
pub(super) fn set_default(b: &mut Binder, col: &mut Column, d: &Node) -> Result<Expr, DbError> {
    super::refuse_columns_and_subqueries(
        b.text,
        d,
        (super::DEFAULT_EXPRESSION, super::DEFAULT_EXPRESSION),
    )?;
    b.agg = AggCtx::NotAllowed("DEFAULT expressions");
    let (e, t) = b.bind(d)?;
    let e = b.coerce_assign(e, t, col.ty)?;
    col.default = Some(nestor_parser::deparse_expr(d)?);
    Ok(e)
}

pub(super) fn table_constraint(
    c: &pb::Constraint,
    indexes: &mut Vec<PendingIndex>,
    checks: &mut Vec<PendingCheck>,
    fks: &mut Vec<super::foreign_key::PendingFk>,
) -> Result<(), DbError> {
    match pb::ConstrType::try_from(c.contype).unwrap_or(pb::ConstrType::Undefined) {
        pb::ConstrType::ConstrPrimary | pb::ConstrType::ConstrUnique => {
            if !c.indexname.is_empty() {
                // USING INDEX is ALTER TABLE's (alter.rs); CREATE TABLE's
                // grammar does not take it.
                return Err(DbError::unsupported(
                    "ALTER TABLE ... ADD CONSTRAINT ... USING INDEX here",
                ));
            }
            indexes.push(PendingIndex {
                name: (!c.conname.is_empty()).then(|| c.conname.clone()),
                cols: bind::names(&c.keys),
                unique: true,
                primary: c.contype == pb::ConstrType::ConstrPrimary as i32,
                constraint: Some(c.location),
                nulls_not_distinct: c.nulls_not_distinct,
                method: AccessMethod::Btree,
                keyopts: Vec::new(),
            });
            Ok(())
        }
        pb::ConstrType::ConstrCheck => {
            super::inherit::refuse_no_inherit(c)?;
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
        pb::ConstrType::ConstrForeign => {
            fks.push(super::foreign_key::pending(c, None)?);
            Ok(())
        }
        pb::ConstrType::ConstrExclusion => Err(DbError::unsupported("EXCLUDE constraints")),
        _ => Err(DbError::unsupported("this table constraint")),
    }
}

pub(super) fn bind_checks(
    ctx: &StatementCtx,
    text: &str,
    def: &TableDef,
    pending: Vec<PendingCheck>,
) -> Result<Vec<Check>, DbError> {
    let mut out = def.checks.clone();
    for pc in pending {
        let table = Arc::new(def.clone());
        let mut b = nestor_plan::select::row_binder(ctx.catalog, ctx.eval, text, &table);
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
    // An index lives in its table's schema (a TEMP table's in the
    // session's TEMP namespace).
    let q = |n: &str| ctx.catalog.qualify(def.namespace, n);
    let taken: Vec<String> = def.indexes.iter().map(|i| q(&i.name)).collect();
    let temporary = def.persistence == Persistence::Temporary;
    let name = match &pi.name {
        Some(n) => {
            if ctx.catalog.name_taken_in(&q(n), temporary) || taken.contains(&q(n)) {
                return Err(exists_err(n));
            }
            q(n)
        }
        None if pi.primary => fresh_name(ctx, &q(&format!("{}_pkey", def.name)), &taken, temporary),
        None => {
            // A UNIQUE constraint names its index `_key`; CREATE UNIQUE INDEX
            // without a name gets `_idx`, as in PostgreSQL.
            let suffix = if pi.unique && pi.constraint.is_some() {
                "key"
            } else {
                "idx"
            };
            fresh_name(
                ctx,
                &q(&format!("{}_{}_{}", def.name, pi.cols.join("_"), suffix)),
                &taken,
                temporary,
            )
        }
    };
    let name = ctx.catalog.unqualified(&name).to_string();
    if pi.primary && def.indexes.iter().any(|i| i.primary) {
        return Err(DbError::new(
            SqlState::InvalidTableDefinition,
            format!(
                "multiple primary keys for table \"{}\" are not allowed",
                def.name
            ),
        ));
    }
    let oid = ctx.catalog.alloc_oid();
    let names: Vec<String> = cols.iter().map(|&c| def.columns[c].name.clone()).collect();
    let index = Arc::new(
        Index::new(oid, &name, cols.clone(), names, pi.unique, pi.primary)
            .with_nulls_not_distinct(pi.nulls_not_distinct)
            .with_fill(def.index_fill())
            .with_order(
                &pi.keyopts
                    .iter()
                    .map(nestor_catalog::IndexKeyOpt::key_order)
                    .collect::<Vec<_>>(),
            ),
    );
    Ok(IndexDef {
        oid,
        name,
        columns: cols,
        unique: pi.unique,
        primary: pi.primary,
        constraint: pi.constraint.is_some(),
        exprs: None,
        method: pi.method,
        keyopts: pi.keyopts.clone(),
        index,
    })
}

/// Attach a new index to a table (CREATE INDEX, ADD PRIMARY KEY/UNIQUE).
pub(super) fn add_index(
    ctx: &mut StatementCtx,
    def: &Arc<TableDef>,
    pi: PendingIndex,
) -> Result<(), DbError> {
    let idx = make_index(ctx, def, &pi)?;
    attach_index(ctx, def, idx, pi.primary)
}

/// Attach a new index (made by [`make_index`] or a computed one) to its
/// table, filling it from the rows (23505 for a unique index the rows
/// violate).
fn attach_index(
    ctx: &mut StatementCtx,
    def: &Arc<TableDef>,
    idx: IndexDef,
    primary: bool,
) -> Result<(), DbError> {
    let mut new = (**def).clone();
    if primary {
        for &c in &idx.columns {
            if !new.columns[c].not_null {
                let snap = ctx.snapshot;
                if def
                    .storage
                    .scan(&snap)
                    .any(|t| t.data.get(c).unwrap_or(&def.columns[c].missing).is_null())
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
    super::put_table(ctx, new)
}

/// CREATE [UNIQUE] INDEX.
pub fn create_index(
    ctx: &mut StatementCtx,
    text: &str,
    is: &pb::IndexStmt,
) -> Result<CommandTag, DbError> {
    // CONCURRENTLY builds the index as a plain CREATE INDEX does (Nestor
    // blocks no writers for long), but refuses a transaction block as
    // PostgreSQL does.
    if is.concurrent {
        super::database::not_in_block(ctx, "CREATE INDEX CONCURRENTLY")?;
    }
    let rv = is
        .relation
        .as_ref()
        .ok_or_else(|| DbError::internal("CREATE INDEX without table"))?;
    let tname = relname(rv)?;
    let def = ctx
        .catalog
        .table(&tname)
        .ok_or_else(|| undefined_table(&tname))?;
    let method = super::index_am::resolve(&is.access_method)?;
    super::index_am::check_capabilities(method, is)?;
    let mut cols = Vec::new();
    let mut keyopts = Vec::new();
    let computed = super::index_expr::is_computed(is) || method == AccessMethod::Gin;
    for ie in super::index_am::elems(is)? {
        super::opclass::refuse_in_index(ctx, method, &ie.opclass)?;
        if def.column_index(&ie.name).is_none() {
            refuse_system_column(method, &ie.name)?;
        }
        if method == AccessMethod::Btree {
            check_btree_type(&def, &ie.name)?;
        }
        super::index_am::check_key(method, &def, ie)?;
        cols.push(ie.name.clone());
        // A computed index's keys are resolved as they are bound; a
        // missing column is make_index's 42703.
        if let Some(col) = def.columns.iter().find(|c| c.name == ie.name && !computed) {
            let opt = super::index_am::key_opt(method, ie, col.ty)?;
            super::index_am::check_unique_class(is, &opt, col.ty)?;
            keyopts.push(opt);
        }
    }
    if !computed {
        super::index_am::check_elem_options(is, &def)?;
    }
    super::index_am::check_options(method, is)?;
    if !is.idxname.is_empty() {
        let temporary = def.persistence == Persistence::Temporary;
        let tag = "CREATE INDEX";
        let qualified = ctx.catalog.qualify(def.namespace, &is.idxname);
        if let Some(tag) = skip_existing(ctx, &qualified, is.if_not_exists, tag, temporary)? {
            return Ok(tag);
        }
    }
    if super::index_expr::is_computed(is) || method == AccessMethod::Gin {
        create_computed(ctx, text, &def, is, method)?;
        return Ok(CommandTag::Plain("CREATE INDEX"));
    }
    let pi = PendingIndex {
        name: (!is.idxname.is_empty()).then(|| is.idxname.clone()),
        cols,
        unique: is.unique || is.primary,
        primary: is.primary,
        constraint: None,
        nulls_not_distinct: is.nulls_not_distinct,
        method,
        keyopts: super::index_am::normalized(keyopts),
    };
    add_index_cascading(ctx, &def, pi)?;
    Ok(CommandTag::Plain("CREATE INDEX"))
}

/// A computed index on `def` (and, on a partitioned table, on each of
/// its partitions: `part_index`).
pub(super) fn create_computed(
    ctx: &mut StatementCtx,
    text: &str,
    def: &Arc<TableDef>,
    is: &pb::IndexStmt,
    method: AccessMethod,
) -> Result<(), DbError> {
    let idx = super::index_expr::make(ctx, text, def, is, method)?;
    if let Some(k) = &def.partition_key {
        // The key columns must be among the index's plain columns.
        let cols = match &idx.exprs {
            None => idx.columns.clone(),
            Some(x) => x.key_columns().collect(),
        };
        let pi = PendingIndex {
            name: None,
            cols: cols.iter().map(|&c| def.columns[c].name.clone()).collect(),
            unique: idx.unique,
            primary: false,
            constraint: None,
            nulls_not_distinct: false,
            method,
            keyopts: Vec::new(),
        };
        super::partition::check_unique(&def.name, k, &def.columns, &pi)?;
    }
    nestor_plan::select::index_expr::install_keys(ctx.catalog, def, &idx)?;
    attach_index(ctx, def, idx.clone(), false)?;
    cascade_new(ctx, def.oid, &idx)
}

/// A plain index on `def` (and down its partitions, on a partitioned
/// table, whose unique indexes must cover the partition key).
pub(super) fn add_index_cascading(
    ctx: &mut StatementCtx,
    def: &Arc<TableDef>,
    pi: PendingIndex,
) -> Result<(), DbError> {
    if let Some(k) = &def.partition_key {
        super::partition::check_unique(&def.name, k, &def.columns, &pi)?;
    }
    let primary = pi.primary;
    let idx = make_index(ctx, def, &pi)?;
    attach_index(ctx, def, idx.clone(), primary)?;
    cascade_new(ctx, def.oid, &idx)
}

/// The partitions of a partitioned table get its new index `idx`.
fn cascade_new(ctx: &mut StatementCtx, oid: RelId, idx: &IndexDef) -> Result<(), DbError> {
    let def = ctx
        .catalog
        .table_by_oid(oid)
        .ok_or_else(|| DbError::internal("indexed table vanished"))?;
    if def.partition_key.is_none() {
        return Ok(());
    }
    super::part_index::cascade(ctx, &def, idx)
}

/// A partitioned table's CHECK constraints apply to its partitions: one
/// marked NO INHERIT is PostgreSQL's 42P16.
fn refuse_no_inherit_partitioned(cs: &pb::CreateStmt, name: &str) -> Result<(), DbError> {
    let no_inherit =
        |n: &pb::Node| matches!(node(n), Ok(NodeEnum::Constraint(c)) if c.is_no_inherit);
    let found = cs.table_elts.iter().any(|e| match node(e) {
        Ok(NodeEnum::ColumnDef(cd)) => cd.constraints.iter().any(no_inherit),
        Ok(NodeEnum::Constraint(c)) => c.is_no_inherit,
        _ => false,
    }) || cs.constraints.iter().any(no_inherit);
    if found {
        return Err(DbError::new(
            SqlState::InvalidTableDefinition,
            format!("cannot add NO INHERIT constraint to partitioned table \"{name}\""),
        ));
    }
    Ok(())
}

/// A key naming a system column fails as in PostgreSQL, which resolves
/// the column, then its operator class (xid and cid have none), then
/// refuses the system column.
fn refuse_system_column(method: AccessMethod, col: &str) -> Result<(), DbError> {
    use super::index_am::no_default_class;
    match col {
        "xmin" | "xmax" => Err(no_default_class("xid", method)),
        "cmin" | "cmax" => Err(no_default_class("cid", method)),
        "ctid" | "tableoid" => Err(DbError::unsupported("index creation on system columns")),
        _ => Ok(()),
    }
}

/// A B-tree needs an ordering: the geometric types have none (their
/// comparisons are fuzzy), so an index on such a column is PostgreSQL's
/// 42704.
fn check_btree_type(def: &TableDef, col: &str) -> Result<(), DbError> {
    let ty = def.columns.iter().find(|c| c.name == col).map(|c| c.ty);
    if let Some(t @ nestor_types::DataType::Geo(_)) = ty {
        return Err(super::index_am::no_default_class(
            t.name(),
            AccessMethod::Btree,
        ));
    }
    Ok(())
}

/// CREATE TABLE ... AS query and SELECT ... INTO: a table with the query's
/// result columns (named by the column list where one is given, typed as
/// the query's output with its type modifier; unknown literals become
/// text), filled by the query in the statement's snapshot unless WITH NO
/// DATA. Built from the general paths: the new table is created as CREATE
/// TABLE would create it, then filled as INSERT INTO ... query would be.
/// Tag `SELECT n` (`CREATE TABLE AS` for WITH NO DATA or a skipped IF NOT
/// EXISTS). Materialized views are 0A000.
pub fn create_table_as(
    ctx: &mut StatementCtx,
    text: &str,
    cta: &pb::CreateTableAsStmt,
) -> Result<CommandTag, DbError> {
    let matview = cta.objtype == pb::ObjectType::ObjectMatview as i32;
    let tag = if matview {
        "CREATE MATERIALIZED VIEW"
    } else {
        "CREATE TABLE AS"
    };
    let into = cta
        .into
        .as_ref()
        .ok_or_else(|| DbError::internal("CREATE TABLE AS without INTO"))?;
    let rv = into
        .rel
        .as_ref()
        .ok_or_else(|| DbError::internal("CREATE TABLE AS without a name"))?;
    if !matview {
        super::index_am::check_table_options(&into.options)?;
    }
    let name = relname(rv)?;
    let temporary = rv.relpersistence == "t";
    if rv.schemaname == "pg_temp" && !temporary {
        // As PostgreSQL, without the name's position.
        return Err(unlogged_in_temp());
    }
    if let Some(tag) = skip_existing(ctx, &name, cta.if_not_exists, tag, temporary)? {
        return Ok(tag);
    }
    let query = cta
        .query
        .clone()
        .ok_or_else(|| DbError::internal("CREATE TABLE AS without a query"))?;
    let select = pb::RawStmt {
        stmt: Some(query.clone()),
        stmt_location: 0,
        stmt_len: 0,
    };
    let columns = (crate::ROUTINES.describe)(ctx, text, &select)?;
    // A data-modifying WITH on the query becomes the INSERT's below (the
    // same items in scope, and at its top level).
    let mut query = query;
    let mut with_clause = None;
    if let Some(NodeEnum::SelectStmt(sel)) = query.node.as_mut() {
        if sel
            .with_clause
            .as_ref()
            .is_some_and(nestor_plan::with_modify::has_writes)
        {
            if matview {
                return Err(DbError::new(
                    SqlState::FeatureNotSupported,
                    "materialized views must not use data-modifying statements in WITH",
                ));
            }
            with_clause = sel.with_clause.take();
        }
    }
    let names = bind::names(&into.col_names);
    if names.len() > columns.len() {
        return Err(DbError::new(
            SqlState::SyntaxError,
            "too many column names were specified",
        ));
    }
    let mut defs = Vec::with_capacity(columns.len());
    for (i, c) in columns.iter().enumerate() {
        let ty = match DataType::from_oid_typmod(c.type_oid, c.type_modifier) {
            Some(DataType::Unknown) => DataType::Text,
            Some(t) => t,
            None => {
                return Err(DbError::unsupported(format!(
                    "CREATE TABLE AS column of type {}",
                    c.type_oid
                )))
            }
        };
        let col = names.get(i).unwrap_or(&c.name);
        defs.push(format!("{} {ty}", crate::pg_catalog::quote_ident(col)));
    }
    let create_sql = format!("CREATE TABLE t ({})", defs.join(", "));
    let mut parsed = nestor_parser::parse_sql(&create_sql)?;
    let Some(NodeEnum::CreateStmt(mut cs)) = parsed.pop().and_then(|s| s.stmt).and_then(|n| n.node)
    else {
        return Err(DbError::internal("CREATE TABLE AS: bad generated CREATE"));
    };
    cs.relation = Some(rv.clone());
    cs.oncommit = into.on_commit;
    create_table(ctx, &create_sql, &cs)?;
    if into.skip_data {
        if matview {
            super::matview::mark(ctx, &name, &query, false)?;
        }
        return Ok(CommandTag::Plain(tag));
    }
    let query_node = (*query).clone();
    let insert = pb::InsertStmt {
        relation: Some(rv.clone()),
        select_stmt: Some(query),
        with_clause,
        r#override: pb::OverridingKind::OverridingNotSet as i32,
        ..Default::default()
    };
    let insert = pb::RawStmt {
        stmt: Some(Box::new(pb::Node {
            node: Some(NodeEnum::InsertStmt(Box::new(insert))),
        })),
        stmt_location: 0,
        stmt_len: 0,
    };
    let done = match (crate::ROUTINES.run_raw)(ctx, text, &insert)? {
        CommandTag::Rows(_, n) => CommandTag::Rows(crate::tag::RowsCommand::Select, n),
        other => other,
    };
    if matview {
        super::matview::mark(ctx, &name, &query_node, true)?;
    }
    Ok(done)
}

fn contains_subquery(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x, Expr::Sub(_)));
    found
}

/// 42P16 for a column (or attribute, or view column) of a pseudo-type.
pub(super) fn pseudo_column(column: &str, pseudo: &str) -> DbError {
    DbError::new(
        SqlState::InvalidTableDefinition,
        format!("column \"{column}\" has pseudo-type {pseudo}"),
    )
}

/// The name of a pseudo-type no column can have (CheckAttributeType):
/// `record`, `unknown`, `void`, the polymorphic types.
pub(super) fn pseudo_type(ty: DataType) -> Option<&'static str> {
    match ty {
        DataType::Record(r) if r.oid == 0 => Some("record"),
        DataType::Unknown => Some("unknown"),
        DataType::Void => Some("void"),
        DataType::Poly(_) => Some(ty.name()),
        _ => None,
    }
}

/// PostgreSQL's pseudo-types that are names only here (function
/// signatures know them; a column never can have one).
const PSEUDO_TYPE_NAMES: [&str; 20] = [
    "any",
    "anyelement",
    "anyarray",
    "anynonarray",
    "anyenum",
    "anyrange",
    "anymultirange",
    "anycompatible",
    "anycompatiblearray",
    "anycompatiblenonarray",
    "anycompatiblerange",
    "anycompatiblemultirange",
    "void",
    "trigger",
    "event_trigger",
    "cstring",
    "internal",
    "language_handler",
    "fdw_handler",
    "index_am_handler",
];

/// The pseudo-type a column's type name names, if it is one.
pub(super) fn pseudo_type_named(tn: &nestor_parser::pb::TypeName) -> Option<&'static str> {
    let names = bind::names(&tn.names);
    let last = names.last()?;
    if names.len() > 2
        || (names.len() == 2 && names[0] != "pg_catalog")
        || !tn.array_bounds.is_empty()
    {
        return None;
    }
    PSEUDO_TYPE_NAMES.iter().copied().find(|p| p == last)
}
