//! CREATE [OR REPLACE] TRIGGER and DROP TRIGGER.
//!
//! A trigger is stored in its relation's definition (TableDef::triggers
//! or ViewDef::triggers, kept in name order, the order they fire in), so
//! creating one is a PutTable or PutView change logged like any other; it
//! goes when its relation goes. The checks are PostgreSQL's: the function
//! returns trigger, TRUNCATE triggers are statement-level, a WHEN
//! condition references NEW and OLD only where the event has them, and it
//! must plan (it is planned again at each statement that fires it,
//! crate::triggers). A view takes INSTEAD OF triggers (row-level, no WHEN,
//! no column list) and statement-level BEFORE/AFTER ones; a table takes no
//! INSTEAD OF triggers.

use std::cell::Cell;
use std::sync::Arc;

use nestor_catalog::{Relation, Returns, TableDef, TriggerDef, TriggerTiming, ViewDef};
use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_parser::NodeEnum;
use nestor_plan::bind::{self, node};
use nestor_types::datatype::DataType;

use crate::context::StatementCtx;
use crate::tag::CommandTag;

// PostgreSQL's pg_trigger.tgtype bits, as the grammar sets them.
const TYPE_BEFORE: i32 = 1 << 1;
const TYPE_INSERT: i32 = 1 << 2;
const TYPE_DELETE: i32 = 1 << 3;
const TYPE_UPDATE: i32 = 1 << 4;
const TYPE_TRUNCATE: i32 = 1 << 5;
const TYPE_INSTEAD: i32 = 1 << 6;

fn invalid(msg: impl Into<String>) -> DbError {
    DbError::new(SqlState::InvalidObjectDefinition, msg)
}

/// The relation a trigger is on.
enum TrigRel {
    Table(Arc<TableDef>),
    View(Arc<ViewDef>),
}

impl TrigRel {
    fn of(ctx: &StatementCtx, name: &str) -> Option<TrigRel> {
        match ctx.catalog.relation(name)? {
            Relation::Table(t) => Some(TrigRel::Table(t)),
            Relation::View(v) => Some(TrigRel::View(v)),
            _ => None,
        }
    }

    fn triggers(&self) -> &[TriggerDef] {
        match self {
            TrigRel::Table(t) => &t.triggers,
            TrigRel::View(v) => &v.triggers,
        }
    }

    /// Its columns (a table's live ones) with their types.
    fn columns(&self) -> Vec<(String, DataType)> {
        match self {
            TrigRel::Table(t) => t
                .live_columns()
                .map(|(_, c)| (c.name.clone(), c.ty))
                .collect(),
            TrigRel::View(v) => v.columns.clone(),
        }
    }

    /// Store it with its triggers changed by `f`.
    fn put(
        &self,
        ctx: &mut StatementCtx,
        f: impl FnOnce(&mut Vec<TriggerDef>),
    ) -> Result<(), DbError> {
        match self {
            TrigRel::Table(t) => {
                let mut new = (**t).clone();
                f(&mut new.triggers);
                super::put_table(ctx, new)
            }
            TrigRel::View(v) => {
                let mut new = (**v).clone();
                f(&mut new.triggers);
                super::put_view(ctx, new)
            }
        }
    }
}

fn wrong_type(msg: String, detail: &str) -> DbError {
    DbError::new(SqlState::WrongObjectType, msg).with_detail(detail.to_string())
}

/// PostgreSQL's refusals by relation kind and trigger type, in its order.
fn check_kind(rel: &TrigRel, name: &str, ct: &pb::CreateTrigStmt) -> Result<(), DbError> {
    let instead = ct.timing & TYPE_INSTEAD != 0;
    match rel {
        TrigRel::Table(_) if instead => {
            return Err(wrong_type(
                format!("\"{name}\" is a table"),
                "Tables cannot have INSTEAD OF triggers.",
            ))
        }
        TrigRel::Table(t) if ct.row && t.partition_key.is_some() => {
            return Err(DbError::unsupported(
                "row-level triggers on partitioned tables",
            ))
        }
        TrigRel::View(_) if !instead && ct.row => {
            return Err(wrong_type(
                format!("\"{name}\" is a view"),
                "Views cannot have row-level BEFORE or AFTER triggers.",
            ))
        }
        TrigRel::View(_) if ct.events & TYPE_TRUNCATE != 0 => {
            return Err(wrong_type(
                format!("\"{name}\" is a view"),
                "Views cannot have TRUNCATE triggers.",
            ))
        }
        _ => {}
    }
    if ct.row && ct.events & TYPE_TRUNCATE != 0 {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "TRUNCATE FOR EACH ROW triggers are not supported",
        ));
    }
    if instead {
        let refuse = |msg: &str| Err(DbError::new(SqlState::FeatureNotSupported, msg));
        if !ct.row {
            return refuse("INSTEAD OF triggers must be FOR EACH ROW");
        }
        if ct.when_clause.is_some() {
            return refuse("INSTEAD OF triggers cannot have WHEN conditions");
        }
        if !ct.columns.is_empty() {
            return refuse("INSTEAD OF triggers cannot have column lists");
        }
    }
    Ok(())
}

/// CREATE [OR REPLACE] TRIGGER.
pub fn create_trigger(
    ctx: &mut StatementCtx,
    ctx_text: &str,
    ct: &pb::CreateTrigStmt,
) -> Result<CommandTag, DbError> {
    if ct.isconstraint {
        return Err(DbError::unsupported("CREATE CONSTRAINT TRIGGER"));
    }
    let rv = ct
        .relation
        .as_ref()
        .ok_or_else(|| DbError::internal("CREATE TRIGGER without a table"))?;
    let table_name = bind::relname(rv)?;
    let rel = TrigRel::of(ctx, &table_name).ok_or_else(|| super::undefined_table(&table_name))?;
    check_kind(&rel, &table_name, ct)?;
    if !ct.transition_rels.is_empty() {
        if let TrigRel::View(_) = rel {
            return Err(wrong_type(
                format!("\"{table_name}\" is a view"),
                "Triggers on views cannot have transition tables.",
            ));
        }
        return Err(DbError::unsupported("transition tables (REFERENCING)"));
    }
    let cols = rel.columns();
    // The function: by name, no arguments, returning trigger.
    let fname = bind::names(&ct.funcname)
        .last()
        .cloned()
        .unwrap_or_default();
    let function = ctx
        .catalog
        .functions(&fname)
        .into_iter()
        .find(|f| !f.procedure && f.input_types().is_empty())
        .ok_or_else(|| {
            DbError::new(
                SqlState::UndefinedFunction,
                format!("function {fname}() does not exist"),
            )
        })?;
    if function.returns != Returns::Trigger {
        return Err(invalid(format!(
            "function {fname} must return type trigger"
        )));
    }
    let mut events = 0u8;
    for (bit, ev) in [
        (TYPE_INSERT, nestor_catalog::TRIGGER_INSERT),
        (TYPE_DELETE, nestor_catalog::TRIGGER_DELETE),
        (TYPE_UPDATE, nestor_catalog::TRIGGER_UPDATE),
        (TYPE_TRUNCATE, nestor_catalog::TRIGGER_TRUNCATE),
    ] {
        if ct.events & bit != 0 {
            events |= ev;
        }
    }
    let mut columns = Vec::new();
    for c in &ct.columns {
        let NodeEnum::String(s) = node(c)? else {
            continue;
        };
        if !cols.iter().any(|(n, _)| *n == s.sval) {
            return Err(DbError::new(
                SqlState::UndefinedColumn,
                format!(
                    "column \"{}\" of relation \"{table_name}\" does not exist",
                    s.sval
                ),
            ));
        }
        columns.push(s.sval.clone());
    }
    let when = match &ct.when_clause {
        Some(w) => {
            if let TrigRel::Table(t) = &rel {
                if ct.row && ct.timing & TYPE_BEFORE != 0 {
                    super::generated::refuse_in_when(ctx_text, t, w)?;
                }
            }
            let text = nestor_parser::deparse_expr(w)?;
            check_when(ctx, &cols, &text, ct.row, events).map_err(|e| {
                // Positioned at the reference, as PostgreSQL does.
                let rec = if e.message.contains("OLD") {
                    "old"
                } else {
                    "new"
                };
                match reference_location(w, rec) {
                    Some(loc) if e.code == SqlState::InvalidObjectDefinition => {
                        nestor_parser::ast::err_at(e, ctx_text, loc)
                    }
                    _ => e,
                }
            })?;
            Some(text)
        }
        None => None,
    };
    let mut args = Vec::with_capacity(ct.args.len());
    for a in &ct.args {
        match node(a)? {
            NodeEnum::String(s) => args.push(s.sval.clone()),
            NodeEnum::Integer(i) => args.push(i.ival.to_string()),
            NodeEnum::Float(f) => args.push(f.fval.clone()),
            _ => {
                return Err(DbError::unsupported(
                    "a trigger argument that is not a constant",
                ))
            }
        }
    }
    let existing = rel.triggers().iter().find(|t| t.name == ct.trigname);
    if existing.is_some() && !ct.replace {
        return Err(DbError::new(
            SqlState::DuplicateObject,
            format!(
                "trigger \"{}\" for relation \"{table_name}\" already exists",
                ct.trigname
            ),
        ));
    }
    let trigger = TriggerDef {
        oid: existing.map_or_else(|| ctx.catalog.alloc_oid(), |t| t.oid),
        name: ct.trigname.clone(),
        timing: if ct.timing & TYPE_INSTEAD != 0 {
            TriggerTiming::Instead
        } else if ct.timing & TYPE_BEFORE != 0 {
            TriggerTiming::Before
        } else {
            TriggerTiming::After
        },
        events,
        columns,
        row: ct.row,
        when,
        function: function.oid,
        args,
    };
    rel.put(ctx, |triggers| {
        triggers.retain(|t| t.name != trigger.name);
        triggers.push(trigger);
        triggers.sort_by(|a, b| a.name.cmp(&b.name));
    })?;
    Ok(CommandTag::Plain("CREATE TRIGGER"))
}

/// Where a condition first names `rec` (NEW or OLD).
fn reference_location(w: &pb::Node, rec: &str) -> Option<i32> {
    let n = w.node.as_ref()?;
    n.nodes().into_iter().find_map(|(r, ..)| match r {
        nestor_parser::NodeRef::ColumnRef(c) => {
            let first = c.fields.first().and_then(|f| match f.node.as_ref() {
                Some(NodeEnum::String(s)) => Some(s.sval.as_str()),
                _ => None,
            });
            (first == Some(rec)).then_some(c.location)
        }
        _ => None,
    })
}

/// Records which of NEW and OLD a condition names.
struct Uses<'c> {
    vars: crate::triggers::WhenVars<'c>,
    new: Cell<bool>,
    old: Cell<bool>,
}

impl bind::VarResolver for Uses<'_> {
    fn resolve(&self, parts: &[&str]) -> Result<Option<(usize, DataType)>, DbError> {
        let r = self.vars.resolve(parts)?;
        if r.is_some() {
            match parts.first() {
                Some(&"new") => self.new.set(true),
                Some(&"old") => self.old.set(true),
                _ => {}
            }
        }
        Ok(r)
    }
}

/// A WHEN condition plans over NEW and OLD, and names only what the
/// trigger's events have.
fn check_when(
    ctx: &StatementCtx,
    cols: &[(String, DataType)],
    text: &str,
    row: bool,
    events: u8,
) -> Result<(), DbError> {
    let uses = Uses {
        vars: crate::triggers::WhenVars { cols },
        new: Cell::new(false),
        old: Cell::new(false),
    };
    let sql = format!("SELECT ({text})::boolean");
    let stmts = nestor_parser::parse_sql(&sql)?;
    let [stmt] = stmts.as_slice() else {
        return Err(DbError::internal("trigger WHEN condition"));
    };
    let hints: Vec<u32> = cols.iter().chain(cols).map(|(_, t)| t.oid()).collect();
    nestor_plan::statement::plan_statement_with(
        ctx.catalog,
        ctx.eval,
        &sql,
        stmt,
        &hints,
        Some(&uses),
    )?;
    let (new, old) = (uses.new.get(), uses.old.get());
    if !row && (new || old) {
        return Err(invalid(
            "statement trigger's WHEN condition cannot reference column values",
        ));
    }
    if old && events & nestor_catalog::TRIGGER_INSERT != 0 {
        return Err(invalid(
            "INSERT trigger's WHEN condition cannot reference OLD values",
        ));
    }
    if new && events & nestor_catalog::TRIGGER_DELETE != 0 {
        return Err(invalid(
            "DELETE trigger's WHEN condition cannot reference NEW values",
        ));
    }
    Ok(())
}

/// DROP TRIGGER [IF EXISTS] name ON table.
pub fn drop_trigger(ctx: &mut StatementCtx, ds: &pb::DropStmt) -> Result<CommandTag, DbError> {
    for o in &ds.objects {
        let NodeEnum::List(l) = node(o)? else {
            continue;
        };
        let parts = bind::names(&l.items);
        let [.., table_name, name] = parts.as_slice() else {
            continue;
        };
        let Some(rel) = TrigRel::of(ctx, table_name) else {
            if ds.missing_ok {
                super::notice(
                    ctx,
                    format!("relation \"{table_name}\" does not exist, skipping"),
                );
                continue;
            }
            return Err(super::undefined_table(table_name));
        };
        if !rel.triggers().iter().any(|t| &t.name == name) {
            if ds.missing_ok {
                super::notice(
                    ctx,
                    format!(
                        "trigger \"{name}\" for relation \"{table_name}\" does not exist, skipping"
                    ),
                );
                continue;
            }
            return Err(DbError::new(
                SqlState::UndefinedObject,
                format!("trigger \"{name}\" for table \"{table_name}\" does not exist"),
            ));
        }
        rel.put(ctx, |triggers| triggers.retain(|t| &t.name != name))?;
    }
    Ok(CommandTag::Plain("DROP TRIGGER"))
}
