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
//!
//! A row trigger on a partitioned table is PostgreSQL's: the table keeps
//! it (it never fires there, having no rows) and each partition gets a
//! clone (`TriggerDef::parent`, pg_trigger.tgparentid), recursively, so a
//! row fires the triggers of the leaf it is written to:
//!
//! ```text
//!   CREATE TRIGGER tb BEFORE INSERT ON pt FOR EACH ROW ...
//!     pt    tb              (the original)
//!     pt1   tb  parent pt.tb
//!     pt2   tb  parent pt.tb        (pt2 partitioned)
//!     pt21  tb  parent pt2.tb
//! ```
//!
//! A partition created or attached later takes clones of its parent's row
//! triggers ([`adopt`]); one detached loses them ([`disown`]). DROP and
//! ALTER TRIGGER ... RENAME on the original go down to its clones; on a
//! clone they are refused (2BP01, XX000 as in PostgreSQL).

use std::cell::Cell;
use std::sync::Arc;

use nestor_catalog::{
    Relation, Returns, TableDef, TriggerDef, TriggerEnabled, TriggerTiming, ViewDef,
};
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
        TrigRel::Table(t)
            if t.partition_key.is_some() && ct.row && !ct.transition_rels.is_empty() =>
        {
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                format!("\"{name}\" is a partitioned table"),
            )
            .with_detail(
                "ROW triggers with transition tables are not supported on partitioned tables.",
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

/// The REFERENCING clause's (OLD TABLE, NEW TABLE) names, with
/// PostgreSQL's checks in its order: AFTER triggers on tables only, not
/// ROW triggers on partitions or inheritance children, one event, no
/// column list, OLD for UPDATE/DELETE, NEW for INSERT/UPDATE, each once,
/// the names different.
fn transition_tables(
    rel: &TrigRel,
    name: &str,
    ct: &pb::CreateTrigStmt,
) -> Result<(Option<String>, Option<String>), DbError> {
    let unsupported = |msg: &str| Err(DbError::new(SqlState::FeatureNotSupported, msg));
    let (mut old, mut new) = (None, None);
    for t in &ct.transition_rels {
        let NodeEnum::TriggerTransition(t) = node(t)? else {
            continue;
        };
        if !t.is_table {
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                "ROW variable naming in the REFERENCING clause is not supported",
            )
            .with_hint("Use OLD TABLE or NEW TABLE for naming transition tables."));
        }
        let table = match rel {
            TrigRel::View(_) => {
                return Err(wrong_type(
                    format!("\"{name}\" is a view"),
                    "Triggers on views cannot have transition tables.",
                ))
            }
            TrigRel::Table(t) => t,
        };
        if ct.row && table.partition_parent().is_some() {
            return unsupported(
                "ROW triggers with transition tables are not supported on partitions",
            );
        }
        if ct.row && !table.inherits.is_empty() {
            return unsupported(
                "ROW triggers with transition tables are not supported on inheritance children",
            );
        }
        if ct.timing & (TYPE_BEFORE | TYPE_INSTEAD) != 0 {
            return Err(invalid(
                "transition table name can only be specified for an AFTER trigger",
            ));
        }
        if ct.events & TYPE_TRUNCATE != 0 {
            return unsupported("TRUNCATE triggers with transition tables are not supported");
        }
        let events = [TYPE_INSERT, TYPE_UPDATE, TYPE_DELETE]
            .iter()
            .filter(|&&b| ct.events & b != 0)
            .count();
        if events != 1 {
            return unsupported(
                "transition tables cannot be specified for triggers with more than one event",
            );
        }
        if !ct.columns.is_empty() {
            return unsupported(
                "transition tables cannot be specified for triggers with column lists",
            );
        }
        if t.is_new {
            if ct.events & (TYPE_INSERT | TYPE_UPDATE) == 0 {
                return Err(invalid(
                    "NEW TABLE can only be specified for an INSERT or UPDATE trigger",
                ));
            }
            if new.is_some() {
                return Err(invalid("NEW TABLE cannot be specified multiple times"));
            }
            new = Some(t.name.clone());
        } else {
            if ct.events & (TYPE_DELETE | TYPE_UPDATE) == 0 {
                return Err(invalid(
                    "OLD TABLE can only be specified for a DELETE or UPDATE trigger",
                ));
            }
            if old.is_some() {
                return Err(invalid("OLD TABLE cannot be specified multiple times"));
            }
            old = Some(t.name.clone());
        }
    }
    if old.is_some() && old == new {
        return Err(invalid(
            "OLD TABLE name and NEW TABLE name cannot be the same",
        ));
    }
    Ok((old, new))
}

/// A table about to become `what` (a partition, an inheritance child)
/// may have no ROW triggers with transition tables (0A000, PostgreSQL's
/// FindTriggerIncompatibleWithInheritance); `where_` ends the DETAIL.
pub(super) fn refuse_transition_rows(
    t: &TableDef,
    what: &str,
    where_: &str,
) -> Result<(), DbError> {
    match t.triggers.iter().find(|g| g.row && g.has_transition()) {
        Some(g) => Err(DbError::new(
            SqlState::FeatureNotSupported,
            format!(
                "trigger \"{}\" prevents table \"{}\" from becoming {what}",
                g.name, t.name
            ),
        )
        .with_detail(format!(
            "ROW triggers with transition tables are not supported {where_}."
        ))),
        None => Ok(()),
    }
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
    let (old_table, new_table) = transition_tables(&rel, &table_name, ct)?;
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
        return Err(duplicate(&ct.trigname, &table_name));
    }
    if existing.is_some_and(|t| t.parent.is_some()) {
        return Err(DbError::new(
            SqlState::DuplicateObject,
            format!(
                "trigger \"{}\" for relation \"{table_name}\" is an internal or a child trigger",
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
        parent: None,
        enabled: TriggerEnabled::Origin,
        old_table,
        new_table,
    };
    let down = match &rel {
        TrigRel::Table(t) if t.partition_key.is_some() && trigger.row => Some(t.oid),
        _ => None,
    };
    rel.put(ctx, |triggers| put_sorted(triggers, trigger.clone()))?;
    if let Some(oid) = down {
        clone_down(ctx, oid, &trigger, ct.replace)?;
    }
    Ok(CommandTag::Plain("CREATE TRIGGER"))
}

fn duplicate(trigger: &str, table: &str) -> DbError {
    DbError::new(
        SqlState::DuplicateObject,
        format!("trigger \"{trigger}\" for relation \"{table}\" already exists"),
    )
}

/// `t` into a relation's triggers (replacing one by its name), kept in
/// name order.
fn put_sorted(triggers: &mut Vec<TriggerDef>, t: TriggerDef) {
    triggers.retain(|x| x.name != t.name);
    triggers.push(t);
    triggers.sort_by(|a, b| a.name.cmp(&b.name));
}

/// Clones of row trigger `trigger` of partitioned table `parent` into its
/// partitions, and theirs into their partitions. `replace` (OR REPLACE):
/// a partition's trigger by the same name is replaced, else 42710.
fn clone_down(
    ctx: &mut StatementCtx,
    parent: nestor_common::RelId,
    trigger: &TriggerDef,
    replace: bool,
) -> Result<(), DbError> {
    for child in ctx.catalog.children(parent) {
        let existing = child.triggers.iter().find(|t| t.name == trigger.name);
        if existing.is_some() && !replace {
            return Err(duplicate(&trigger.name, &child.name));
        }
        let clone = TriggerDef {
            oid: existing.map_or_else(|| ctx.catalog.alloc_oid(), |t| t.oid),
            parent: Some(trigger.oid),
            ..trigger.clone()
        };
        let mut new = (*child).clone();
        put_sorted(&mut new.triggers, clone.clone());
        super::put_table(ctx, new)?;
        if child.partition_key.is_some() {
            clone_down(ctx, child.oid, &clone, replace)?;
        }
    }
    Ok(())
}

/// A table that has just become a partition of `parent` (CREATE TABLE
/// ... PARTITION OF, ATTACH PARTITION) takes clones of the parent's row
/// triggers, down to its own partitions (42710 when it has a trigger by
/// the same name, as in PostgreSQL).
pub(super) fn adopt(
    ctx: &mut StatementCtx,
    parent: &TableDef,
    table: nestor_common::RelId,
) -> Result<(), DbError> {
    let Some(t) = ctx.catalog.table_by_oid(table) else {
        return Err(DbError::internal("new partition vanished"));
    };
    let row_triggers: Vec<&TriggerDef> = parent.triggers.iter().filter(|t| t.row).collect();
    if row_triggers.is_empty() {
        return Ok(());
    }
    let mut new = (*t).clone();
    let mut clones = Vec::new();
    for tr in row_triggers {
        if new.triggers.iter().any(|x| x.name == tr.name) {
            return Err(duplicate(&tr.name, &t.name));
        }
        let clone = TriggerDef {
            oid: ctx.catalog.alloc_oid(),
            parent: Some(tr.oid),
            ..tr.clone()
        };
        put_sorted(&mut new.triggers, clone.clone());
        clones.push(clone);
    }
    super::put_table(ctx, new)?;
    if t.partition_key.is_some() {
        for c in &clones {
            clone_down(ctx, t.oid, c, false)?;
        }
    }
    Ok(())
}

/// A table that has just stopped being a partition (DETACH PARTITION)
/// loses its cloned triggers, and its partitions the clones of those.
pub(super) fn disown(ctx: &mut StatementCtx, table: nestor_common::RelId) -> Result<(), DbError> {
    let Some(t) = ctx.catalog.table_by_oid(table) else {
        return Err(DbError::internal("detached partition vanished"));
    };
    let gone: Vec<nestor_common::RelId> = t
        .triggers
        .iter()
        .filter(|x| x.parent.is_some())
        .map(|x| x.oid)
        .collect();
    if gone.is_empty() {
        return Ok(());
    }
    let mut new = (*t).clone();
    new.triggers.retain(|x| x.parent.is_none());
    super::put_table(ctx, new)?;
    drop_clones(ctx, t.oid, &gone)
}

/// The triggers of partition `t` cloned from triggers `parents` of its
/// parent.
fn clones_of(t: &TableDef, parents: &[nestor_common::RelId]) -> Vec<nestor_common::RelId> {
    t.triggers
        .iter()
        .filter(|x| x.parent.is_some_and(|p| parents.contains(&p)))
        .map(|x| x.oid)
        .collect()
}

/// Drop the clones of triggers `gone` from the partitions of `parent`,
/// and theirs from their partitions.
fn drop_clones(
    ctx: &mut StatementCtx,
    parent: nestor_common::RelId,
    gone: &[nestor_common::RelId],
) -> Result<(), DbError> {
    for child in ctx.catalog.children(parent) {
        let mine = clones_of(&child, gone);
        if mine.is_empty() {
            continue;
        }
        let mut new = (*child).clone();
        new.triggers.retain(|x| !mine.contains(&x.oid));
        super::put_table(ctx, new)?;
        drop_clones(ctx, child.oid, &mine)?;
    }
    Ok(())
}

/// The table and trigger a clone was made from.
fn original_of(ctx: &StatementCtx, clone: &TriggerDef) -> Option<(String, String)> {
    let parent = clone.parent?;
    ctx.catalog.tables().iter().find_map(|t| {
        t.triggers
            .iter()
            .find(|x| x.oid == parent)
            .map(|x| (t.name.clone(), x.name.clone()))
    })
}

/// ALTER TRIGGER name ON table RENAME TO new on a table: renamed there
/// and in its partitions' clones (a clone itself is refused).
pub(super) fn rename_on_table(
    ctx: &mut StatementCtx,
    def: &TableDef,
    from: &str,
    to: &str,
) -> Result<(), DbError> {
    if def.triggers.iter().any(|t| t.name == to) {
        return Err(duplicate(to, &def.name));
    }
    let Some(t) = def.triggers.iter().find(|t| t.name == from) else {
        return Err(DbError::new(
            SqlState::UndefinedObject,
            format!(
                "trigger \"{from}\" for table \"{}\" does not exist",
                def.name
            ),
        ));
    };
    if t.parent.is_some() {
        let parent = original_of(ctx, t)
            .map(|(table, _)| table)
            .unwrap_or_default();
        return Err(DbError::new(
            SqlState::InternalError,
            format!("cannot rename trigger \"{from}\" on table \"{}\"", def.name),
        )
        .with_hint(format!(
            "Rename the trigger on the partitioned table \"{parent}\" instead."
        )));
    }
    rename_down(ctx, def, t.oid, to)
}

fn rename_down(
    ctx: &mut StatementCtx,
    def: &TableDef,
    oid: nestor_common::RelId,
    to: &str,
) -> Result<(), DbError> {
    if def.triggers.iter().any(|t| t.name == to) {
        return Err(duplicate(to, &def.name));
    }
    let mut new = def.clone();
    for t in &mut new.triggers {
        if t.oid == oid {
            t.name = to.to_string();
        }
    }
    new.triggers.sort_by(|a, b| a.name.cmp(&b.name));
    super::put_table(ctx, new)?;
    for child in ctx.catalog.children(def.oid) {
        if let Some(&c) = clones_of(&child, &[oid]).first() {
            rename_down(ctx, &child, c, to)?;
        }
    }
    Ok(())
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
        let Some(found) = rel.triggers().iter().find(|t| &t.name == name) else {
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
        };
        if let Some((table, original)) = original_of(ctx, found) {
            return Err(DbError::new(
                SqlState::DependentObjectsStillExist,
                format!(
                    "cannot drop trigger {name} on table {table_name} because trigger {original} on table {table} requires it"
                ),
            )
            .with_hint(format!(
                "You can drop trigger {original} on table {table} instead."
            )));
        }
        let oid = found.oid;
        rel.put(ctx, |triggers| triggers.retain(|t| &t.name != name))?;
        if let TrigRel::Table(t) = &rel {
            drop_clones(ctx, t.oid, &[oid])?;
        }
    }
    Ok(CommandTag::Plain("DROP TRIGGER"))
}

/// The trigger state an ALTER TABLE subcommand sets, and the triggers it
/// names (None: all, or all user triggers); None for other subcommands.
pub(super) fn enable_command(cmd: &pb::AlterTableCmd) -> Option<(TriggerEnabled, Option<&str>)> {
    use pb::AlterTableType as A;
    let name = Some(cmd.name.as_str());
    Some(match A::try_from(cmd.subtype).ok()? {
        A::AtEnableTrig => (TriggerEnabled::Origin, name),
        A::AtEnableAlwaysTrig => (TriggerEnabled::Always, name),
        A::AtEnableReplicaTrig => (TriggerEnabled::Replica, name),
        A::AtDisableTrig => (TriggerEnabled::Disabled, name),
        A::AtEnableTrigAll | A::AtEnableTrigUser => (TriggerEnabled::Origin, None),
        A::AtDisableTrigAll | A::AtDisableTrigUser => (TriggerEnabled::Disabled, None),
        _ => return None,
    })
}

/// ALTER TABLE [ONLY] t ENABLE [REPLICA | ALWAYS] / DISABLE TRIGGER
/// { name | ALL | USER }: the triggers' pg_trigger.tgenabled, and unless
/// ONLY (`recurse` false) their clones' in the table's partitions, as
/// PostgreSQL 15. ALL is USER: Nestor's foreign keys are no triggers.
pub(super) fn enable(
    ctx: &mut StatementCtx,
    def: &TableDef,
    (state, name): (TriggerEnabled, Option<&str>),
    recurse: bool,
) -> Result<(), DbError> {
    if let Some(n) = name {
        if !def.triggers.iter().any(|t| t.name == n) {
            return Err(DbError::new(
                SqlState::UndefinedObject,
                format!("trigger \"{n}\" for table \"{}\" does not exist", def.name),
            ));
        }
    }
    let oids: Vec<nestor_common::RelId> = def
        .triggers
        .iter()
        .filter(|t| name.is_none_or(|n| t.name == n))
        .map(|t| t.oid)
        .collect();
    set_enabled(ctx, def, &oids, state, recurse)
}

fn set_enabled(
    ctx: &mut StatementCtx,
    def: &TableDef,
    oids: &[nestor_common::RelId],
    state: TriggerEnabled,
    recurse: bool,
) -> Result<(), DbError> {
    let mut new = def.clone();
    for t in new.triggers.iter_mut().filter(|t| oids.contains(&t.oid)) {
        t.enabled = state;
    }
    super::put_table(ctx, new)?;
    if !recurse || def.partition_key.is_none() {
        return Ok(());
    }
    for child in ctx.catalog.children(def.oid) {
        let clones = clones_of(&child, oids);
        if !clones.is_empty() {
            set_enabled(ctx, &child, &clones, state, recurse)?;
        }
    }
    Ok(())
}
