//! Declarative partitioning DDL: `CREATE TABLE ... PARTITION BY`,
//! `CREATE TABLE ... PARTITION OF ... FOR VALUES`, `ALTER TABLE ... ATTACH
//! / DETACH PARTITION`, and the rules a partitioned table's unique indexes
//! follow.
//!
//! A partition is built on table inheritance (`inherit.rs`): its one
//! parent is in `TableDef::inherits` and it has the parent's columns,
//! NOT NULL markings and CHECK constraints; what it adds is its bound
//! (`TableDef::partition_bound`), checked here against its siblings as
//! PostgreSQL's transformPartitionBound and check_new_partition_bound do,
//! with their messages and cursors:
//!
//! ```text
//!   CREATE TABLE p (a int) PARTITION BY RANGE (a);
//!   CREATE TABLE p1 PARTITION OF p FOR VALUES FROM (1) TO (10);
//!   CREATE TABLE p2 PARTITION OF p FOR VALUES FROM (5) TO (20);
//!   ERROR:  partition "p2" would overlap partition "p1"    (42P17,
//!           cursor at the 5)
//! ```
//!
//! The parent's indexes are created on each new partition (and CREATE
//! INDEX on a partitioned table goes down to its partitions); a unique
//! index or PRIMARY KEY must cover the partition key, so uniqueness in
//! each partition is uniqueness in the table (and none is allowed when
//! the key has expressions, as in PostgreSQL).
//!
//! A key element may be an expression (`PARTITION BY RANGE ((a + 1))`):
//! it is bound over the new table's row to check it as PostgreSQL's
//! ComputePartitionAttrs does (no aggregates, window functions,
//! subqueries, system columns, mutable functions or constants) and kept
//! as SQL text with its type and the columns it reads; those columns may
//! then not be dropped or retyped. A bound value is cast to the
//! element's type. A hash key element may name a user hash operator
//! class (`ddl/opclass.rs`): its OID is kept in the key and its support
//! function 2 hashes the element. Left out (0A000): built-in operator
//! classes other than the type's default, user btree classes,
//! collations other than the bytewise ones, DETACH
//! CONCURRENTLY / FINALIZE, ATTACH of a table whose columns differ from
//! its parent's.

use std::sync::Arc;

use nestor_catalog::opclass::AccessMethod;
use nestor_catalog::partition::{
    cmp_bounds, range_text, KeyExpr, KeyPart, PartStrategy, PartitionBound, PartitionKey,
    RangeDatum,
};
use nestor_catalog::TableDef;
use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_parser::NodeEnum;
use nestor_plan::bind::{self, expr_location, node, AggCtx, WinCtx};
use nestor_plan::ir::Expr;
use nestor_plan::select::partition::{bind_key, KeyCol, PartCheck};
use nestor_types::datatype::DataType;
use nestor_types::Value;

use crate::context::{Ev, StatementCtx};
use crate::executor::eval::Eval;

use super::{binder, PendingIndex};

/// PARTITION BY with INHERITS (42P17, before anything else is looked at).
pub(super) fn check_spec(cs: &pb::CreateStmt) -> Result<(), DbError> {
    if cs.partspec.is_some() && !cs.inh_relations.is_empty() && cs.partbound.is_none() {
        return Err(DbError::new(
            SqlState::InvalidObjectDefinition,
            "cannot create partitioned table as inheritance child",
        ));
    }
    Ok(())
}

/// The key of `PARTITION BY` over the new table `def` (None without
/// one), checked as PostgreSQL's ComputePartitionAttrs checks it.
pub(super) fn key_of(
    ctx: &StatementCtx,
    text: &str,
    cs: &pb::CreateStmt,
    def: &TableDef,
) -> Result<Option<PartitionKey>, DbError> {
    let Some(spec) = &cs.partspec else {
        return Ok(None);
    };
    let strategy = match pb::PartitionStrategy::try_from(spec.strategy) {
        Ok(pb::PartitionStrategy::Range) => PartStrategy::Range,
        Ok(pb::PartitionStrategy::List) => PartStrategy::List,
        Ok(pb::PartitionStrategy::Hash) => PartStrategy::Hash,
        _ => return Err(DbError::internal("partition strategy")),
    };
    if strategy == PartStrategy::List && spec.part_params.len() > 1 {
        return Err(DbError::new(
            SqlState::InvalidObjectDefinition,
            "cannot use \"list\" partition strategy with more than one column",
        ));
    }
    let mut parts = Vec::new();
    let mut collations = Vec::new();
    let mut opclasses = Vec::new();
    for (n, p) in spec.part_params.iter().enumerate() {
        let NodeEnum::PartitionElem(pe) = node(p)? else {
            return Err(DbError::internal("partition key element"));
        };
        // `((a))` is the column `a`, as PostgreSQL takes a plain Var.
        let name = if pe.name.is_empty() {
            pe.expr.as_deref().and_then(plain_column)
        } else {
            Some(pe.name.clone())
        };
        let whole_row = name.as_deref().is_some_and(|n| {
            def.column_index(n).is_none() && def.name.rsplit('.').next() == Some(n)
        });
        if let Some(g) = def
            .columns
            .iter()
            .find(|c| whole_row && c.generated && !c.dropped)
        {
            // The whole row: it holds the generated columns.
            return Err(generated_in_key(text, &g.name, pe.location));
        }
        let part = match name {
            Some(name) => KeyPart::Column(key_column(text, def, &name, pe.location)?),
            None => {
                let expr = pe
                    .expr
                    .as_deref()
                    .ok_or_else(|| DbError::internal("partition key element without a key"))?;
                KeyPart::Expr(key_expr(ctx, text, def, expr, n + 1)?)
            }
        };
        let read = match &part {
            KeyPart::Column(c) => std::slice::from_ref(c),
            KeyPart::Expr(e) => e.columns.as_slice(),
        };
        if let Some(&g) = read.iter().find(|&&c| def.columns[c].generated) {
            return Err(generated_in_key(text, &def.columns[g].name, pe.location));
        }
        let ty = match &part {
            KeyPart::Column(c) => def.columns[*c].ty,
            KeyPart::Expr(e) => e.ty,
        };
        collations.push(key_collation(&pe.collation, ty)?);
        let opclass = key_opclass(ctx, &pe.opclass, ty, strategy)?;
        opclasses.push(opclass);
        if opclass.is_some() {
            // Hashed by the class's support function.
            parts.push(part);
            continue;
        }
        // json and the geometric types have no btree operator class in
        // PostgreSQL (no ordering) and no hash one.
        let unordered = matches!(ty, DataType::Json | DataType::Geo(_));
        if unordered && strategy != PartStrategy::Hash {
            return Err(DbError::new(
                SqlState::UndefinedObject,
                format!(
                    "data type {} has no default operator class for access method \"btree\"",
                    ty.name()
                ),
            )
            .with_hint("You must specify a btree operator class or define a default btree operator class for the data type."));
        }
        // money and the bit strings have no hash operator class in
        // PostgreSQL either.
        if strategy == PartStrategy::Hash
            && (unordered || ty == DataType::Money || nestor_types::bits::is_bits(ty))
        {
            return Err(DbError::new(
                SqlState::UndefinedObject,
                format!(
                    "data type {} has no default operator class for access method \"hash\"",
                    ty.name()
                ),
            )
            .with_hint("You must specify a hash operator class or define a default hash operator class for the data type."));
        }
        if strategy == PartStrategy::Hash && !nestor_catalog::partition::hashable(ty) {
            return Err(DbError::unsupported(format!(
                "hash partitioning on type {ty}"
            )));
        }
        parts.push(part);
    }
    Ok(Some(PartitionKey {
        strategy,
        parts,
        collations,
        opclasses,
    }))
}

/// A key element naming a column: its position.
/// A partition key may not read a stored generated column (42P17).
fn generated_in_key(text: &str, col: &str, location: i32) -> DbError {
    bind::err_at(
        DbError::new(
            SqlState::InvalidObjectDefinition,
            "cannot use generated column in partition key",
        )
        .with_detail(format!("Column \"{col}\" is a generated column.")),
        text,
        location,
    )
}

fn key_column(text: &str, def: &TableDef, name: &str, location: i32) -> Result<usize, DbError> {
    if matches!(
        name,
        "ctid" | "xmin" | "xmax" | "cmin" | "cmax" | "tableoid"
    ) {
        return Err(bind::err_at(
            DbError::new(
                SqlState::InvalidObjectDefinition,
                format!("cannot use system column \"{name}\" in partition key"),
            ),
            text,
            location,
        ));
    }
    def.columns
        .iter()
        .position(|c| !c.dropped && c.name == name)
        .ok_or_else(|| {
            bind::err_at(
                DbError::new(
                    SqlState::UndefinedColumn,
                    format!("column \"{name}\" named in partition key does not exist"),
                ),
                text,
                location,
            )
        })
}

/// A key expression (element `n`, 1-based): bound over the new table's
/// row to check it (no aggregates, window functions, subqueries, system
/// columns or mutable functions; not a constant; not of a pseudo-type)
/// and kept as the deparser's text.
fn key_expr(
    ctx: &StatementCtx,
    text: &str,
    def: &TableDef,
    expr: &pb::Node,
    n: usize,
) -> Result<KeyExpr, DbError> {
    let table = Arc::new(def.clone());
    let mut b = nestor_plan::select::row_binder(ctx.catalog, ctx.eval, text, &table);
    b.agg = AggCtx::NotAllowed("partition key expressions");
    b.window = WinCtx::NotAllowed(
        "window functions are not allowed in partition key expressions",
        SqlState::WindowingError,
    );
    // PostgreSQL reports a key expression's errors without a cursor.
    let (e, ty) = b.bind(expr).map_err(|mut e| {
        e.position = None;
        e.unpositioned = true;
        e
    })?;
    let bad = |msg: &str| DbError::new(SqlState::InvalidObjectDefinition, msg.to_string());
    let mut sub = false;
    e.walk(&mut |x| sub |= matches!(x, Expr::Sub(_)));
    if sub {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "cannot use subquery in partition key expression",
        ));
    }
    if matches!(ty, DataType::Unknown | DataType::Record(_) | DataType::Void) {
        let name = if matches!(ty, DataType::Record(_)) {
            "record".to_string()
        } else {
            ty.to_string()
        };
        return Err(DbError::new(
            SqlState::InvalidTableDefinition,
            format!("partition key column {n} has pseudo-type {name}"),
        ));
    }
    let mut columns = e.columns();
    if columns.iter().any(|&c| c >= def.columns.len()) {
        return Err(bad(
            "partition key expressions cannot contain system column references",
        ));
    }
    if !nestor_plan::select::partition::is_immutable(&e) {
        return Err(bad(
            "functions in partition key expression must be marked IMMUTABLE",
        ));
    }
    if columns.is_empty() {
        return Err(bad("cannot use constant expression as partition key"));
    }
    columns.sort_unstable();
    columns.dedup();
    Ok(KeyExpr {
        sql: nestor_parser::deparse_expr(expr)?,
        ty,
        columns,
    })
}

/// A key element's COLLATE (None: the type's own). Nestor compares
/// strings bytewise, so only the collations that mean that are taken.
fn key_collation(names: &[pb::Node], ty: DataType) -> Result<Option<String>, DbError> {
    if names.is_empty() {
        return Ok(None);
    }
    let parts = bind::names(names);
    bind::check_collation(&parts, ty)?;
    let name = parts.last().cloned().unwrap_or_default();
    Ok((name != "default").then_some(name))
}

/// The default operator class of a key type (what a key element may
/// name: Nestor compares and hashes each type one way).
pub(super) fn default_opclass(ty: DataType) -> Option<&'static str> {
    use DataType as T;
    Some(match ty.base() {
        T::Bool => "bool_ops",
        T::Bytea => "bytea_ops",
        T::Name => "name_ops",
        T::Int2 => "int2_ops",
        T::Int4 => "int4_ops",
        T::Int8 => "int8_ops",
        T::Oid => "oid_ops",
        T::Float4 => "float4_ops",
        T::Float8 => "float8_ops",
        T::Char(_) => "bpchar_ops",
        T::Date => "date_ops",
        T::Timestamp(_) => "timestamp_ops",
        T::TimestampTz(_) => "timestamptz_ops",
        T::Interval(_) => "interval_ops",
        T::Time(_) => "time_ops",
        T::TimeTz(_) => "timetz_ops",
        T::Money => "money_ops",
        T::Numeric(_) => "numeric_ops",
        T::Uuid => "uuid_ops",
        T::Jsonb => "jsonb_ops",
        T::Text | T::Varchar(_) => "text_ops",
        _ => return None,
    })
}

/// A key element's operator class: None for the type's default one, a
/// user hash class's OID (a user btree class or a built-in other one is
/// 0A000, an unknown name 42704 as in PostgreSQL). Without a name, a
/// type with no built-in hash class takes a user DEFAULT one.
fn key_opclass(
    ctx: &StatementCtx,
    names: &[pb::Node],
    ty: DataType,
    strategy: PartStrategy,
) -> Result<Option<u32>, DbError> {
    let am = if strategy == PartStrategy::Hash {
        AccessMethod::Hash
    } else {
        AccessMethod::Btree
    };
    if names.is_empty() {
        if am == AccessMethod::Hash && !nestor_catalog::partition::hashable(ty) {
            let user = ctx
                .catalog
                .opclasses()
                .into_iter()
                .find(|c| c.am == am && c.default && c.intype == ty.oid());
            return Ok(user.map(|c| c.oid));
        }
        return Ok(None);
    }
    let parts = bind::names(names);
    let name = parts.last().cloned().unwrap_or_default();
    if default_opclass(ty) == Some(name.as_str())
        || (name == "varchar_ops" && matches!(ty.base(), DataType::Varchar(_)))
    {
        return Ok(None);
    }
    let user = match parts.as_slice() {
        [_] => ctx.catalog.opclass(am, &name),
        [s, _] if s == "public" => ctx.catalog.opclass(am, &name),
        _ => None,
    };
    if let Some(c) = user {
        // The class's type must be the key's (or binary-coercible to it).
        let accepts = c.intype == ty.oid()
            || (c.intype == DataType::Text.oid() && ty.is_string() && ty.base() != DataType::Name);
        if !accepts {
            return Err(DbError::new(
                SqlState::DatatypeMismatch,
                format!(
                    "operator class \"{}\" does not accept data type {ty}",
                    c.name
                ),
            ));
        }
        if am == AccessMethod::Btree {
            return Err(DbError::unsupported(format!(
                "user-defined btree operator class \"{}\" in a partition key",
                c.name
            )));
        }
        return Ok(Some(c.oid));
    }
    const BUILTIN: &[&str] = &[
        "bool_ops",
        "bytea_ops",
        "name_ops",
        "int2_ops",
        "int4_ops",
        "int8_ops",
        "oid_ops",
        "float4_ops",
        "float8_ops",
        "bpchar_ops",
        "date_ops",
        "timestamp_ops",
        "timestamptz_ops",
        "interval_ops",
        "time_ops",
        "numeric_ops",
        "uuid_ops",
        "jsonb_ops",
        "text_ops",
        "varchar_ops",
        "text_pattern_ops",
        "varchar_pattern_ops",
        "bpchar_pattern_ops",
        "array_ops",
        "record_ops",
        "enum_ops",
    ];
    if BUILTIN.contains(&name.as_str()) {
        return Err(DbError::unsupported(format!(
            "operator class \"{name}\" in a partition key"
        )));
    }
    Err(DbError::new(
        SqlState::UndefinedObject,
        format!(
            "operator class \"{}\" does not exist for access method \"{}\"",
            parts.join("."),
            am.name()
        ),
    ))
}

/// A one-name column reference.
fn plain_column(n: &pb::Node) -> Option<String> {
    let NodeEnum::ColumnRef(cr) = n.node.as_ref()? else {
        return None;
    };
    let [f] = cr.fields.as_slice() else {
        return None;
    };
    match f.node.as_ref()? {
        NodeEnum::String(s) => Some(s.sval.clone()),
        _ => None,
    }
}

/// PostgreSQL's rule for unique indexes of a partitioned table: each
/// must include every key column (0A000 naming the first it lacks).
pub(super) fn check_unique(
    table: &str,
    key: &PartitionKey,
    columns: &[nestor_catalog::Column],
    pi: &PendingIndex,
) -> Result<(), DbError> {
    if !pi.unique {
        return Ok(());
    }
    let what = if pi.primary { "PRIMARY KEY" } else { "UNIQUE" };
    if !key.is_plain() {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            format!("unsupported {what} constraint with partition key definition"),
        )
        .with_detail(format!(
            "{what} constraints cannot be used when partition keys include expressions."
        )));
    }
    for k in &key.parts {
        let KeyPart::Column(k) = k else { continue };
        let name = &columns[*k].name;
        if !pi.cols.contains(name) {
            let detail = format!(
                "{what} constraint on table \"{table}\" lacks column \"{name}\" which is part of the partition key."
            );
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                "unique constraint on partitioned table must include all partitioning columns",
            )
            .with_detail(detail));
        }
    }
    Ok(())
}

/// The partitioned table a PARTITION OF names (42P17 when it is not
/// partitioned).
pub(super) fn parent_of(parents: &[Arc<TableDef>]) -> Result<Arc<TableDef>, DbError> {
    let p = parents
        .first()
        .ok_or_else(|| DbError::internal("PARTITION OF without a parent"))?;
    if p.partition_key.is_none() {
        return Err(DbError::new(
            SqlState::InvalidObjectDefinition,
            format!("\"{}\" is not partitioned", p.name),
        ));
    }
    Ok(p.clone())
}

/// INHERITS of a partitioned table or a partition (42809).
pub(super) fn refuse_partitioned_parents(parents: &[Arc<TableDef>]) -> Result<(), DbError> {
    for p in parents {
        let what = if p.partition_key.is_some() {
            "partitioned table"
        } else if p.partition_bound.is_some() {
            "partition"
        } else {
            continue;
        };
        return Err(DbError::new(
            SqlState::WrongObjectType,
            format!("cannot inherit from {what} \"{}\"", p.name),
        ));
    }
    Ok(())
}

/// The parent's plain indexes to create on a new partition (named by the
/// partition, as PostgreSQL names them); its computed ones follow once
/// the partition exists (`part_index::inherit`).
pub(super) fn inherited_indexes(parent: &TableDef) -> Vec<PendingIndex> {
    parent
        .indexes
        .iter()
        .filter(|i| i.exprs.is_none())
        .map(|i| PendingIndex {
            name: None,
            cols: i
                .columns
                .iter()
                .map(|&c| parent.columns[c].name.clone())
                .collect(),
            unique: i.unique,
            primary: i.primary,
            constraint: i.constraint.then_some(-1),
            nulls_not_distinct: i.index.nulls_not_distinct,
            method: i.method,
            keyopts: i.keyopts.clone(),
        })
        .collect()
}

fn bound_strategy_err(text: &str, spec: &pb::PartitionBoundSpec, what: &str) -> DbError {
    bind::err_at(
        DbError::new(
            SqlState::InvalidTableDefinition,
            format!("invalid bound specification for a {what} partition"),
        ),
        text,
        spec.location,
    )
}

/// A bound value: the expression evaluated and cast to the key column's
/// type (transformPartitionBoundValue).
fn bound_value(
    ctx: &mut StatementCtx,
    text: &str,
    n: &pb::Node,
    col: &KeyType,
) -> Result<Value, DbError> {
    // transformPartitionBoundValue's EXPR_KIND_PARTITION_BOUND.
    super::refuse_columns_and_subqueries(
        text,
        n,
        ("partition bound expression", "partition bound"),
    )?;
    let mut b = binder(ctx, text);
    b.agg = AggCtx::NotAllowed("partition bound");
    b.window = WinCtx::NotAllowed(
        "window functions are not allowed in partition bound",
        SqlState::WindowingError,
    );
    let (e, t) = b.bind(n)?;
    let loc = node(n).map(expr_location).unwrap_or(-1);
    let e = b.coerce_assign(e, t, col.ty).map_err(|e| {
        if e.code != SqlState::DatatypeMismatch {
            return bind::err_at(e, text, loc);
        }
        bind::err_at(
            DbError::new(
                SqlState::DatatypeMismatch,
                format!(
                    "specified value cannot be cast to type {} for column \"{}\"",
                    col.ty, col.name
                ),
            ),
            text,
            loc,
        )
    })?;
    let mut ev = Ev::new(ctx, &[]);
    let v = e.eval(&[], &mut ev)?;
    nestor_plan::valops::cast(v, col.ty, false, &ev.ctx.eval)
}

/// What a bound value is cast to: the key element's type, and the name
/// errors give it (a column's name, an expression's text).
struct KeyType {
    ty: DataType,
    name: String,
}

/// The types of `parent`'s key elements.
fn key_types(parent: &TableDef, key: &PartitionKey) -> Vec<KeyType> {
    key.parts
        .iter()
        .enumerate()
        .map(|(i, p)| KeyType {
            ty: key.part_type(i, &parent.columns),
            name: match p {
                KeyPart::Column(c) => parent.columns[*c].name.clone(),
                KeyPart::Expr(e) => nestor_plan::select::partition::expr_text(&e.sql),
            },
        })
        .collect()
}

/// MINVALUE / MAXVALUE in a range bound (column references by those
/// names, as the grammar leaves them).
fn infinite(n: &pb::Node) -> Option<RangeDatum> {
    match plain_column(n)?.as_str() {
        "minvalue" => Some(RangeDatum::MinValue),
        "maxvalue" => Some(RangeDatum::MaxValue),
        _ => None,
    }
}

fn range_datums(
    ctx: &mut StatementCtx,
    text: &str,
    types: &[KeyType],
    list: &[pb::Node],
) -> Result<Vec<RangeDatum>, DbError> {
    let mut out = Vec::new();
    for (n, k) in list.iter().zip(types) {
        let d = match infinite(n) {
            Some(d) => d,
            None => {
                let v = bound_value(ctx, text, n, k)?;
                if v.is_null() {
                    return Err(DbError::new(
                        SqlState::InvalidObjectDefinition,
                        "cannot specify NULL in range bound",
                    ));
                }
                RangeDatum::Value(v)
            }
        };
        out.push(d);
    }
    // After MINVALUE or MAXVALUE only more of the same.
    let mut seen: Option<&RangeDatum> = None;
    for (d, n) in out.iter().zip(list) {
        match (seen, d) {
            (Some(s), d) if s != d => {
                let word = if *s == RangeDatum::MaxValue {
                    "MAXVALUE"
                } else {
                    "MINVALUE"
                };
                return Err(bind::err_at(
                    DbError::new(
                        SqlState::DatatypeMismatch,
                        format!("every bound following {word} must also be {word}"),
                    ),
                    text,
                    node(n).map(expr_location).unwrap_or(-1),
                ));
            }
            (None, RangeDatum::MinValue | RangeDatum::MaxValue) => seen = Some(d),
            _ => {}
        }
    }
    Ok(out)
}

/// FOR VALUES ... of a new partition of `parent`, as the catalog keeps
/// it (transformPartitionBound).
pub(super) fn transform_bound(
    ctx: &mut StatementCtx,
    text: &str,
    parent: &TableDef,
    spec: &pb::PartitionBoundSpec,
) -> Result<PartitionBound, DbError> {
    let key = parent
        .partition_key
        .as_ref()
        .ok_or_else(|| DbError::internal("bound of a table that is not partitioned"))?;
    if spec.is_default {
        if key.strategy == PartStrategy::Hash {
            return Err(DbError::new(
                SqlState::InvalidTableDefinition,
                "a hash-partitioned table may not have a default partition",
            ));
        }
        return Ok(PartitionBound::Default);
    }
    match key.strategy {
        PartStrategy::Hash => {
            if spec.strategy != "h" {
                return Err(bound_strategy_err(text, spec, "hash"));
            }
            if spec.modulus <= 0 {
                return Err(DbError::new(
                    SqlState::InvalidTableDefinition,
                    "modulus for hash partition must be an integer value greater than zero",
                ));
            }
            if spec.remainder >= spec.modulus {
                return Err(DbError::new(
                    SqlState::InvalidTableDefinition,
                    "remainder for hash partition must be less than modulus",
                ));
            }
            Ok(PartitionBound::Hash {
                modulus: spec.modulus as u32,
                remainder: spec.remainder.max(0) as u32,
            })
        }
        PartStrategy::List => {
            if spec.strategy != "l" {
                return Err(bound_strategy_err(text, spec, "list"));
            }
            let types = key_types(parent, key);
            let col = types
                .first()
                .ok_or_else(|| DbError::internal("a list key without an element"))?;
            let mut vals: Vec<Value> = Vec::new();
            for n in &spec.listdatums {
                let v = bound_value(ctx, text, n, col)?;
                if !vals.contains(&v) {
                    vals.push(v);
                }
            }
            Ok(PartitionBound::List(vals))
        }
        PartStrategy::Range => {
            if spec.strategy != "r" {
                return Err(bound_strategy_err(text, spec, "range"));
            }
            let n = key.parts.len();
            if spec.lowerdatums.len() != n {
                return Err(DbError::new(
                    SqlState::InvalidTableDefinition,
                    "FROM must specify exactly one value per partitioning column",
                ));
            }
            if spec.upperdatums.len() != n {
                return Err(DbError::new(
                    SqlState::InvalidTableDefinition,
                    "TO must specify exactly one value per partitioning column",
                ));
            }
            let types = key_types(parent, key);
            Ok(PartitionBound::Range {
                from: range_datums(ctx, text, &types, &spec.lowerdatums)?,
                to: range_datums(ctx, text, &types, &spec.upperdatums)?,
            })
        }
    }
}

fn datum_location(list: &[pb::Node], i: usize) -> i32 {
    list.get(i)
        .and_then(|n| node(n).ok())
        .map_or(-1, expr_location)
}

fn invalid_def(msg: String, text: &str, location: i32) -> DbError {
    bind::err_at(
        DbError::new(SqlState::InvalidObjectDefinition, msg),
        text,
        location,
    )
}

/// check_new_partition_bound: a second default, an empty range, a hash
/// modulus that does not divide or is not divided by its neighbours', and
/// overlap with an existing partition (`skip`: the table being attached
/// is not its own sibling).
pub(super) fn check_new_bound(
    ctx: &StatementCtx,
    text: &str,
    name: &str,
    parent: &TableDef,
    bound: &PartitionBound,
    spec: &pb::PartitionBoundSpec,
) -> Result<(), DbError> {
    let siblings = ctx.catalog.children(parent.oid);
    let with_bounds = siblings
        .iter()
        .filter_map(|s| s.partition_bound.as_ref().map(|b| (s, b)));
    if *bound == PartitionBound::Default {
        if let Some((d, _)) = with_bounds
            .clone()
            .find(|(_, b)| **b == PartitionBound::Default)
        {
            return Err(invalid_def(
                format!(
                    "partition \"{name}\" conflicts with existing default partition \"{}\"",
                    d.name
                ),
                text,
                spec.location,
            ));
        }
        return Ok(());
    }
    if let PartitionBound::Range { from, to } = bound {
        let (o, col) = cmp_bounds(from, true, to, false);
        if o != std::cmp::Ordering::Less {
            let ec = &ctx.eval;
            return Err(invalid_def(
                format!("empty range bound specified for partition \"{name}\""),
                text,
                datum_location(&spec.lowerdatums, col.saturating_sub(1)),
            )
            .with_detail(format!(
                "Specified lower bound {} is greater than or equal to upper bound {}.",
                range_text(from, ec),
                range_text(to, ec)
            )));
        }
    }
    if let PartitionBound::Hash { modulus, .. } = bound {
        check_moduli(name, *modulus, with_bounds.clone())?;
    }
    let others: Vec<(&Arc<TableDef>, &PartitionBound)> = with_bounds
        .filter(|(_, b)| **b != PartitionBound::Default)
        .collect();
    if let Some((s, loc)) = overlapping(bound, &others, spec) {
        return Err(invalid_def(
            format!(
                "partition \"{name}\" would overlap partition \"{}\"",
                s.name
            ),
            text,
            loc,
        ));
    }
    Ok(())
}

/// The existing partition a new bound overlaps, found the way PostgreSQL
/// finds it (its first list value held by another partition; the first
/// range in bound order; the owner of the first hash slot taken), and
/// where the error points.
fn overlapping<'a>(
    bound: &PartitionBound,
    others: &[(&'a Arc<TableDef>, &PartitionBound)],
    spec: &pb::PartitionBoundSpec,
) -> Option<(&'a Arc<TableDef>, i32)> {
    match bound {
        PartitionBound::List(vals) => vals.iter().enumerate().find_map(|(i, v)| {
            let one = PartitionBound::List(vec![v.clone()]);
            others
                .iter()
                .find(|(_, b)| one.overlaps(b))
                .map(|(s, _)| (*s, datum_location(&spec.listdatums, i)))
        }),
        PartitionBound::Hash { modulus, remainder } => {
            let greatest = others
                .iter()
                .filter_map(|(_, b)| match b {
                    PartitionBound::Hash { modulus, .. } => Some(*modulus),
                    _ => None,
                })
                .max()?;
            let mut slot = if *remainder >= greatest {
                remainder % greatest
            } else {
                *remainder
            };
            while slot < greatest {
                let owner = others.iter().find(|(_, b)| {
                    matches!(b, PartitionBound::Hash { modulus: m, remainder: r } if slot % m == *r)
                });
                if let Some((s, _)) = owner {
                    return Some((*s, spec.location));
                }
                slot += modulus;
            }
            None
        }
        _ => others
            .iter()
            .find(|(_, b)| bound.overlaps(b))
            .map(|(s, b)| (*s, overlap_location(bound, b, spec))),
    }
}

/// Where PostgreSQL points at a range overlap: the lower bound when it
/// falls inside the other range (its first datum when equal), else the
/// upper bound's datum that reaches into it.
fn overlap_location(
    new: &PartitionBound,
    old: &PartitionBound,
    spec: &pb::PartitionBoundSpec,
) -> i32 {
    let (PartitionBound::Range { from, .. }, PartitionBound::Range { from: of, to: ot }) =
        (new, old)
    else {
        return spec.location;
    };
    let inside = cmp_bounds(from, true, of, true).0 != std::cmp::Ordering::Less
        && cmp_bounds(from, true, ot, false).0 == std::cmp::Ordering::Less;
    if inside {
        // partition_range_bsearch's cmpval against the bound found: the
        // other range's lower bound.
        let (o, col) = cmp_bounds(of, true, from, true);
        let i = if o == std::cmp::Ordering::Equal {
            0
        } else {
            col.saturating_sub(1)
        };
        datum_location(&spec.lowerdatums, i)
    } else {
        let (_, col) = cmp_bounds(of, true, &range_upper(new), false);
        datum_location(&spec.upperdatums, col.saturating_sub(1))
    }
}

fn range_upper(b: &PartitionBound) -> Vec<RangeDatum> {
    match b {
        PartitionBound::Range { to, .. } => to.clone(),
        _ => Vec::new(),
    }
}

/// Every hash modulus must divide the next larger one.
fn check_moduli<'a>(
    name: &str,
    modulus: u32,
    siblings: impl Iterator<Item = (&'a Arc<TableDef>, &'a PartitionBound)>,
) -> Result<(), DbError> {
    let mut smaller: Option<(u32, &str)> = None;
    let mut larger: Option<(u32, &str)> = None;
    for (s, b) in siblings {
        let PartitionBound::Hash { modulus: m, .. } = b else {
            continue;
        };
        if *m <= modulus && smaller.is_none_or(|(x, _)| *m > x) {
            smaller = Some((*m, &s.name));
        }
        if *m > modulus && larger.is_none_or(|(x, _)| *m < x) {
            larger = Some((*m, &s.name));
        }
    }
    let err = |detail: String| {
        DbError::new(
            SqlState::InvalidObjectDefinition,
            "every hash partition modulus must be a factor of the next larger modulus",
        )
        .with_detail(detail)
    };
    if let Some((m, s)) = smaller {
        if !modulus.is_multiple_of(m) {
            return Err(err(format!(
                "The new modulus {modulus} is not divisible by {m}, the modulus of existing partition \"{s}\"."
            )));
        }
    }
    if let Some((m, s)) = larger {
        if !m.is_multiple_of(modulus) {
            return Err(err(format!(
                "The new modulus {modulus} is not a factor of {m}, the modulus of existing partition \"{s}\"."
            )));
        }
    }
    let _ = name;
    Ok(())
}

/// A new partition must not take rows the parent's default partition
/// already holds (23514).
pub(super) fn check_default_rows(
    ctx: &mut StatementCtx,
    parent: &TableDef,
    bound: &PartitionBound,
) -> Result<(), DbError> {
    if *bound == PartitionBound::Default || parent.partition_key.is_none() {
        return Ok(());
    }
    let Some(default) = ctx
        .catalog
        .children(parent.oid)
        .into_iter()
        .find(|c| c.partition_bound == Some(PartitionBound::Default))
    else {
        return Ok(());
    };
    for leaf in ctx.catalog.descendants(&default) {
        let Some(key) = bind_key(ctx.catalog, ctx.eval, parent, &leaf)? else {
            continue;
        };
        let rows: Vec<Vec<Value>> = leaf
            .storage
            .scan(&ctx.snapshot)
            .map(|t| pad(t.data.to_vec(), leaf.columns.len()))
            .collect();
        let mut ev = Ev::new(ctx, &[]);
        let mut taken = false;
        for row in &rows {
            let k = key
                .iter()
                .map(|k| match k {
                    KeyCol::Col(c) => Ok(row[*c].clone()),
                    KeyCol::Expr(e) => e.eval(row, &mut ev),
                })
                .collect::<Result<Vec<Value>, DbError>>()?;
            if bound.contains(&k) {
                taken = true;
                break;
            }
        }
        if taken {
            return Err(DbError::new(
                SqlState::CheckViolation,
                format!(
                    "updated partition constraint for default partition \"{}\" would be violated by some row",
                    default.name
                ),
            )
            .with_table(default.name.as_str()));
        }
    }
    Ok(())
}

/// ALTER TABLE parent ATTACH PARTITION t FOR VALUES ...: the table's new
/// definition (its rows checked against the bound).
pub(super) fn attach(
    ctx: &mut StatementCtx,
    text: &str,
    parent: &Arc<TableDef>,
    cmd: &pb::PartitionCmd,
) -> Result<TableDef, DbError> {
    let rv = cmd
        .name
        .as_ref()
        .ok_or_else(|| DbError::internal("ATTACH PARTITION without a table"))?;
    if parent.partition_key.is_none() {
        return Err(DbError::new(
            SqlState::WrongObjectType,
            format!("table \"{}\" is not partitioned", parent.name),
        ));
    }
    let name = nestor_plan::bind::relname(rv)?;
    let t = ctx
        .catalog
        .table(&name)
        .ok_or_else(|| super::undefined_table(&name))?;
    crate::relation_lock::lock(
        ctx,
        t.oid.0,
        nestor_txn::TableLockMode::AccessExclusive,
        nestor_txn::WaitPolicy::Block,
        &t.name,
    )?;
    if t.partition_bound.is_some() {
        return Err(DbError::new(
            SqlState::WrongObjectType,
            format!("\"{}\" is already a partition", t.name),
        ));
    }
    if !t.inherits.is_empty() {
        return Err(DbError::new(
            SqlState::WrongObjectType,
            "cannot attach inheritance child as partition",
        ));
    }
    if t.partition_key.is_none() && !ctx.catalog.children(t.oid).is_empty() {
        return Err(DbError::new(
            SqlState::WrongObjectType,
            "cannot attach inheritance parent as partition",
        ));
    }
    if t.oid == parent.oid
        || ctx
            .catalog
            .descendants(&t)
            .iter()
            .any(|d| d.oid == parent.oid)
    {
        return Err(
            DbError::new(SqlState::DuplicateTable, "circular inheritance not allowed").with_detail(
                format!("\"{}\" is already a child of \"{}\".", parent.name, t.name),
            ),
        );
    }
    same_columns(&t, parent)?;
    super::trigger::refuse_transition_rows(&t, "a partition", "on partitions")?;
    let spec = cmd
        .bound
        .as_ref()
        .ok_or_else(|| DbError::internal("ATTACH PARTITION without a bound"))?;
    let bound = transform_bound(ctx, text, parent, spec)?;
    check_new_bound(ctx, text, &t.name, parent, &bound, spec)?;
    check_default_rows(ctx, parent, &bound)?;
    let mut new = (*t).clone();
    new.inherits = vec![parent.oid];
    new.partition_bound = Some(bound);
    validate_rows(ctx, &new)?;
    Ok(new)
}

/// The columns of a table being attached: the parent's, by name and
/// type, and no others.
fn same_columns(t: &TableDef, parent: &TableDef) -> Result<(), DbError> {
    for (_, c) in t.live_columns() {
        if parent.column_index(&c.name).is_none() {
            return Err(DbError::new(
                SqlState::DatatypeMismatch,
                format!(
                    "table \"{}\" contains column \"{}\" not found in parent \"{}\"",
                    t.name, c.name, parent.name
                ),
            )
            .with_detail("The new partition may contain only the columns present in parent."));
        }
    }
    for (_, pc) in parent.live_columns() {
        let Some(i) = t.column_index(&pc.name) else {
            return Err(DbError::new(
                SqlState::DatatypeMismatch,
                format!("child table is missing column \"{}\"", pc.name),
            ));
        };
        if t.columns[i].ty != pc.ty || t.columns[i].domain != pc.domain {
            return Err(DbError::new(
                SqlState::DatatypeMismatch,
                format!(
                    "child table \"{}\" has different type for column \"{}\"",
                    t.name, pc.name
                ),
            ));
        }
        if pc.not_null && !t.columns[i].not_null {
            return Err(DbError::new(
                SqlState::DatatypeMismatch,
                format!(
                    "column \"{}\" in child table must be marked NOT NULL",
                    pc.name
                ),
            ));
        }
    }
    Ok(())
}

/// The rows of a table becoming a partition (and of its partitions) must
/// satisfy its partition constraint (23514 otherwise).
fn validate_rows(ctx: &mut StatementCtx, new: &TableDef) -> Result<(), DbError> {
    let tree = if new.partition_key.is_some() {
        ctx.catalog.descendants(&Arc::new(new.clone()))
    } else {
        vec![Arc::new(new.clone())]
    };
    for m in tree {
        // The member's rows against the new table's constraint, its key
        // columns found by name in the member.
        let Some(check) = check_of_new(ctx, new, &m)? else {
            continue;
        };
        let rows: Vec<Vec<Value>> = m
            .storage
            .scan(&ctx.snapshot)
            .map(|t| pad(t.data.to_vec(), m.columns.len()))
            .collect();
        let mut ev = Ev::new(ctx, &[]);
        let mut violated = false;
        for row in &rows {
            if !check.holds(row, &mut |e, r| e.eval(r, &mut ev))? {
                violated = true;
                break;
            }
        }
        if violated {
            return Err(DbError::new(
                SqlState::CheckViolation,
                format!(
                    "partition constraint of relation \"{}\" is violated by some row",
                    m.name
                ),
            )
            .with_table(m.name.as_str()));
        }
    }
    Ok(())
}

fn pad(mut row: Vec<Value>, n: usize) -> Vec<Value> {
    row.resize(n, Value::Null);
    row
}

/// The partition constraint `new` will have, over member `m`'s columns.
fn check_of_new(
    ctx: &StatementCtx,
    new: &TableDef,
    m: &TableDef,
) -> Result<Option<PartCheck>, DbError> {
    let mut probe = m.clone();
    probe.inherits = new.inherits.clone();
    probe.partition_bound = new.partition_bound.clone();
    probe.oid = new.oid;
    PartCheck::of(ctx.catalog, ctx.eval, &probe, None)
}

/// ALTER TABLE parent DETACH PARTITION t: the table's new definition (a
/// table of its own).
pub(super) fn detach(
    ctx: &mut StatementCtx,
    parent: &Arc<TableDef>,
    cmd: &pb::PartitionCmd,
) -> Result<TableDef, DbError> {
    let rv = cmd
        .name
        .as_ref()
        .ok_or_else(|| DbError::internal("DETACH PARTITION without a table"))?;
    let name = nestor_plan::bind::relname(rv)?;
    let t = ctx
        .catalog
        .table(&name)
        .ok_or_else(|| super::undefined_table(&name))?;
    if parent.partition_key.is_none() {
        return Err(DbError::new(
            SqlState::WrongObjectType,
            format!("table \"{}\" is not partitioned", parent.name),
        ));
    }
    if t.partition_bound.is_none() || t.inherits.first() != Some(&parent.oid) {
        return Err(DbError::new(
            SqlState::UndefinedTable,
            format!(
                "relation \"{}\" is not a partition of relation \"{}\"",
                t.name, parent.name
            ),
        ));
    }
    if cmd.concurrent {
        return Err(DbError::unsupported("DETACH PARTITION ... CONCURRENTLY"));
    }
    crate::relation_lock::lock(
        ctx,
        t.oid.0,
        nestor_txn::TableLockMode::AccessExclusive,
        nestor_txn::WaitPolicy::Block,
        &t.name,
    )?;
    let mut new = (*t).clone();
    new.inherits.clear();
    new.partition_bound = None;
    Ok(new)
}

/// What ALTER TABLE may not do to a partitioned table or a partition:
/// drop or retype a key column, change a partition's (or a partitioned
/// table's) inheritance, add a column to a partition alone.
pub(super) fn refuse_alter(def: &TableDef, cmd: &pb::AlterTableCmd) -> Result<(), DbError> {
    use pb::AlterTableType as A;
    let sub = A::try_from(cmd.subtype).unwrap_or(A::Undefined);
    let key_col = match (&def.partition_key, def.column_index(&cmd.name)) {
        (Some(k), Some(c)) => k.uses_column(c),
        _ => false,
    };
    let msg = match sub {
        A::AtDropColumn if key_col => format!(
            "cannot drop column \"{}\" because it is part of the partition key of relation \"{}\"",
            cmd.name, def.name
        ),
        A::AtAlterColumnType if key_col => format!(
            "cannot alter column \"{}\" because it is part of the partition key of relation \"{}\"",
            cmd.name, def.name
        ),
        A::AtAddInherit | A::AtDropInherit if def.partition_bound.is_some() => {
            return Err(DbError::new(
                SqlState::WrongObjectType,
                "cannot change inheritance of a partition",
            ))
        }
        A::AtAddInherit | A::AtDropInherit if def.partition_key.is_some() => {
            return Err(DbError::new(
                SqlState::WrongObjectType,
                "cannot change inheritance of partitioned table",
            ))
        }
        A::AtAddColumn if def.partition_bound.is_some() => {
            return Err(DbError::new(
                SqlState::WrongObjectType,
                "cannot add column to a partition",
            ))
        }
        A::AtDetachPartitionFinalize => {
            return Err(DbError::unsupported("DETACH PARTITION ... FINALIZE"))
        }
        A::AtAddConstraint => return check_added_unique(def, cmd),
        _ => return Ok(()),
    };
    Err(DbError::new(SqlState::InvalidTableDefinition, msg))
}

/// ATTACH / DETACH PARTITION (ALTER TABLE subcommands).
pub(super) fn attach_or_detach(
    ctx: &mut StatementCtx,
    text: &str,
    def: &Arc<TableDef>,
    cmd: &pb::AlterTableCmd,
) -> Result<(), DbError> {
    let Some(NodeEnum::PartitionCmd(pc)) = cmd.def.as_deref().and_then(|n| n.node.as_ref()) else {
        return Err(DbError::internal("partition command without its clause"));
    };
    if cmd.subtype != pb::AlterTableType::AtAttachPartition as i32 {
        let new = detach(ctx, def, pc)?;
        let oid = new.oid;
        super::put_table(ctx, new)?;
        return super::trigger::disown(ctx, oid);
    }
    let new = attach(ctx, text, def, pc)?;
    let oid = new.oid;
    super::put_table(ctx, new)?;
    super::trigger::adopt(ctx, def, oid)?;
    super::part_index::inherit(ctx, def, oid, false)
}

/// ALTER TABLE ... ADD PRIMARY KEY / UNIQUE on a partitioned table: the
/// key columns must be in it (`check_unique`).
fn check_added_unique(def: &TableDef, cmd: &pb::AlterTableCmd) -> Result<(), DbError> {
    let Some(key) = &def.partition_key else {
        return Ok(());
    };
    let Some(NodeEnum::Constraint(c)) = cmd.def.as_deref().and_then(|n| n.node.as_ref()) else {
        return Ok(());
    };
    let primary = c.contype == pb::ConstrType::ConstrPrimary as i32;
    if !primary && c.contype != pb::ConstrType::ConstrUnique as i32 {
        return Ok(());
    }
    if !c.indexname.is_empty() {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "ALTER TABLE / ADD CONSTRAINT USING INDEX is not supported on partitioned tables",
        ));
    }
    let pi = PendingIndex {
        name: None,
        cols: bind::names(&c.keys),
        unique: true,
        primary,
        constraint: Some(c.location),
        nulls_not_distinct: c.nulls_not_distinct,
        method: nestor_catalog::AccessMethod::Btree,
        keyopts: Vec::new(),
    };
    check_unique(&def.name, key, &def.columns, &pi)
}
