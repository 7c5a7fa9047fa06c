//! ALTER TABLE: each subcommand builds a new table definition from the
//! current one and applies it (commands of one statement see each other's
//! results).
//!
//! ADD COLUMN does not rewrite rows: existing rows read the column's value
//! at the time it was added (PostgreSQL's attmissingval), so a volatile
//! default is refused. DROP COLUMN keeps the slot (marked dropped) so
//! stored rows keep their layout. SET LOGGED / UNLOGGED is refused: an
//! UNLOGGED table's rows are not in the WAL, and making them durable would
//! need their images in the ALTER's redo.

use std::sync::Arc;

use nestor_catalog::{Change, IndexDef, TableDef};
use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_parser::NodeEnum;
use nestor_plan::bind::relname;
use nestor_types::Value;

use super::table::{add_index, bind_checks, column_def, set_default, table_constraint};
use super::{binder, notice, undefined_table};
use crate::context::{Ev, StatementCtx};
use crate::executor::eval::{truthy, Eval};
use crate::tag::CommandTag;

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
    let owner_only = !at.cmds.is_empty()
        && at.cmds.iter().all(|c| {
            matches!(nestor_parser::ast::node(c), Ok(NodeEnum::AlterTableCmd(cmd))
                if cmd.subtype == pb::AlterTableType::AtChangeOwner as i32)
        });
    if owner_only {
        return change_owner(ctx, at, &name);
    }
    if at.objtype == pb::ObjectType::ObjectType as i32 && ctx.catalog.composite(&name).is_some() {
        return super::composite::alter_composite(ctx, at, &name);
    }
    if at.objtype == pb::ObjectType::ObjectType as i32 {
        return Err(super::enum_type::undefined_type(&name));
    }
    if let Some(tag) = view_options(ctx, text, at, &name)? {
        return Ok(tag);
    }
    if at.objtype != pb::ObjectType::ObjectTable as i32 {
        return Err(DbError::unsupported("ALTER of this object type"));
    }
    if ctx.catalog.table(&name).is_none() {
        if at.missing_ok {
            notice(ctx, format!("relation \"{name}\" does not exist, skipping"));
            return Ok(CommandTag::Plain("ALTER TABLE"));
        }
        return Err(undefined_table(&name));
    }
    for c in &at.cmds {
        let NodeEnum::AlterTableCmd(cmd) = nestor_parser::ast::node(c)? else {
            continue;
        };
        let def = ctx
            .catalog
            .table(&name)
            .ok_or_else(|| undefined_table(&name))?;
        if let Some(what) = super::trigger::enable_command(cmd) {
            super::trigger::enable(ctx, &def, what, rv.inh)?;
            continue;
        }
        if let Some(what) = super::policy::row_security_command(cmd) {
            super::policy::set_row_security(ctx, &def, what)?;
            continue;
        }
        super::inherit::refuse_on_inherited(ctx, &def, cmd)?;
        super::partition::refuse_alter(&def, cmd)?;
        let children = super::inherit::recursing_children(ctx, &def, cmd, rv.inh)?;
        alter_cmd(ctx, text, &def, cmd)?;
        for child in children {
            if let Some(cur) = ctx.catalog.table_by_oid(child.oid) {
                if super::inherit::child_cmd_applies(ctx, &cur, cmd)? {
                    alter_cmd(ctx, text, &cur, cmd)?;
                }
            }
        }
    }
    if let Some(t) = ctx.catalog.table(&name) {
        super::view::revalidate_views_on(ctx, t.oid, &format!("table {name}"))?;
    }
    Ok(CommandTag::Plain("ALTER TABLE"))
}

/// ALTER VIEW (or ALTER TABLE of a view) whose commands all SET or
/// RESET options (`view::alter_view_options`) or set or drop column
/// defaults (`view::alter_view_default`), in order. None for anything
/// else.
fn view_options(
    ctx: &mut StatementCtx,
    text: &str,
    at: &pb::AlterTableStmt,
    name: &str,
) -> Result<Option<CommandTag>, DbError> {
    if ctx.catalog.view(name).is_none() || at.cmds.is_empty() {
        return Ok(None);
    }
    let mut cmds = Vec::with_capacity(at.cmds.len());
    for c in &at.cmds {
        let NodeEnum::AlterTableCmd(cmd) = nestor_parser::ast::node(c)? else {
            return Ok(None);
        };
        match pb::AlterTableType::try_from(cmd.subtype) {
            Ok(pb::AlterTableType::AtSetRelOptions | pb::AlterTableType::AtResetRelOptions)
                if matches!(
                    cmd.def.as_deref().and_then(|d| d.node.as_ref()),
                    Some(NodeEnum::List(_))
                ) => {}
            Ok(pb::AlterTableType::AtColumnDefault) => {}
            _ => return Ok(None),
        }
        cmds.push(cmd);
    }
    for cmd in cmds {
        if cmd.subtype == pb::AlterTableType::AtColumnDefault as i32 {
            super::view::alter_view_default(ctx, text, name, &cmd.name, cmd.def.as_deref())?;
            continue;
        }
        let set = cmd.subtype == pb::AlterTableType::AtSetRelOptions as i32;
        let mut opts: Vec<(bool, &pb::DefElem)> = Vec::new();
        if let Some(NodeEnum::List(l)) = cmd.def.as_deref().and_then(|d| d.node.as_ref()) {
            for item in &l.items {
                if let NodeEnum::DefElem(d) = nestor_parser::ast::node(item)? {
                    opts.push((set, d));
                }
            }
        }
        super::view::alter_view_options(ctx, name, &opts)?;
    }
    let tag = if at.objtype == pb::ObjectType::ObjectView as i32 {
        "ALTER VIEW"
    } else {
        "ALTER TABLE"
    };
    Ok(Some(CommandTag::Plain(tag)))
}

/// ALTER TABLE/SEQUENCE/VIEW/INDEX ... OWNER TO role (see
/// `grant::change_relation_owner`).
fn change_owner(
    ctx: &mut StatementCtx,
    at: &pb::AlterTableStmt,
    name: &str,
) -> Result<CommandTag, DbError> {
    let tag = match pb::ObjectType::try_from(at.objtype) {
        Ok(pb::ObjectType::ObjectSequence) => "ALTER SEQUENCE",
        Ok(pb::ObjectType::ObjectIndex) => "ALTER INDEX",
        Ok(pb::ObjectType::ObjectView) => "ALTER VIEW",
        _ => "ALTER TABLE",
    };
    if ctx.catalog.relation(name).is_none() {
        if at.missing_ok {
            notice(ctx, format!("relation \"{name}\" does not exist, skipping"));
            return Ok(CommandTag::Plain(tag));
        }
        return Err(undefined_table(name));
    }
    for c in &at.cmds {
        let NodeEnum::AlterTableCmd(cmd) = nestor_parser::ast::node(c)? else {
            continue;
        };
        if let Some(role) = &cmd.newowner {
            super::grant::change_relation_owner(ctx, name, role)?;
        }
    }
    Ok(CommandTag::Plain(tag))
}

fn alter_cmd(
    ctx: &mut StatementCtx,
    text: &str,
    def: &Arc<TableDef>,
    cmd: &pb::AlterTableCmd,
) -> Result<(), DbError> {
    use pb::AlterTableType as A;
    let sub = A::try_from(cmd.subtype).unwrap_or(A::Undefined);
    match sub {
        A::AtAddColumn => add_column(ctx, text, def, cmd),
        A::AtDropColumn => drop_column(ctx, def, cmd),
        A::AtAddConstraint => add_constraint(ctx, text, def, cmd),
        A::AtValidateConstraint => validate_constraint(ctx, def, &cmd.name),
        A::AtDropConstraint => drop_constraint(ctx, def, cmd),
        A::AtAddIdentity => add_identity(ctx, def, cmd),
        A::AtSetIdentity => set_identity(ctx, def, cmd),
        A::AtDropIdentity => drop_identity(ctx, def, cmd),
        A::AtAlterColumnType => super::alter_type::alter_column_type(ctx, text, def, cmd),
        A::AtSetNotNull | A::AtDropNotNull => {
            let pos = existing_column(def, &cmd.name)?;
            let mut new = (**def).clone();
            new.columns[pos].not_null = sub == A::AtSetNotNull;
            super::put_table(ctx, new)
        }
        A::AtDropExpression => super::generated::drop_expression(ctx, def, cmd),
        A::AtColumnDefault => {
            let pos = existing_column(def, &cmd.name)?;
            if def.columns[pos].generated {
                let e = super::generated::is_generated_err(&cmd.name, &def.name);
                return Err(match cmd.def {
                    Some(_) => e,
                    None => {
                        e.with_hint("Use ALTER TABLE ... ALTER COLUMN ... DROP EXPRESSION instead.")
                    }
                });
            }
            let mut new = (**def).clone();
            match cmd.def.as_deref() {
                Some(d) => {
                    let mut b = binder(ctx, text);
                    // PostgreSQL cooks an ALTER's default without the
                    // statement's text: its errors have no position.
                    set_default(&mut b, &mut new.columns[pos], d).map_err(|mut e| {
                        e.position = None;
                        e
                    })?;
                }
                None => new.columns[pos].default = None,
            }
            super::put_table(ctx, new)
        }
        // Storage parameters (fillfactor, ...) have nothing to tune in
        // memory; accepted as PostgreSQL accepts them.
        A::AtSetRelOptions => match cmd
            .def
            .as_deref()
            .map(nestor_parser::ast::node)
            .transpose()?
        {
            Some(NodeEnum::List(l)) => super::index_am::check_table_options(&l.items),
            _ => Ok(()),
        },
        A::AtResetRelOptions => Ok(()),
        A::AtAttachPartition | A::AtDetachPartition => {
            super::partition::attach_or_detach(ctx, text, def, cmd)
        }
        A::AtAddInherit | A::AtDropInherit => {
            let Some(NodeEnum::RangeVar(parent)) = cmd.def.as_deref().and_then(|n| n.node.as_ref())
            else {
                return Err(DbError::internal("INHERIT without a parent"));
            };
            let new = if sub == A::AtAddInherit {
                super::inherit::add_parent(ctx, def, parent)?
            } else {
                super::inherit::remove_parent(ctx, def, parent)?
            };
            super::put_table(ctx, new)
        }
        A::AtSetStorage | A::AtSetCompression => {
            super::column_storage::alter(ctx, def, cmd, sub == A::AtSetStorage)
        }
        A::AtSetLogged | A::AtSetUnLogged => Err(DbError::unsupported(
            "ALTER TABLE SET LOGGED / SET UNLOGGED",
        )),
        other => Err(DbError::unsupported(format!("ALTER TABLE {other:?}"))),
    }
}

/// ALTER TABLE ... DROP CONSTRAINT name: a FOREIGN KEY, a CHECK, or the
/// index of a PRIMARY KEY / UNIQUE constraint (refused with 2BP01 while a
/// foreign key of another table needs it, unless CASCADE drops those).
fn drop_constraint(
    ctx: &mut StatementCtx,
    def: &Arc<TableDef>,
    cmd: &pb::AlterTableCmd,
) -> Result<(), DbError> {
    let name = &cmd.name;
    let cascade = cmd.behavior == pb::DropBehavior::DropCascade as i32;
    let mut new = (**def).clone();
    if let Some(k) = new.foreign_keys.iter().position(|f| f.name == *name) {
        new.foreign_keys.remove(k);
        return super::put_table(ctx, new);
    }
    if let Some(k) = new.checks.iter().position(|c| c.name == *name) {
        new.checks.remove(k);
        return super::put_table(ctx, new);
    }
    if let Some(k) = new
        .indexes
        .iter()
        .position(|i| i.constraint && i.name == *name)
    {
        let idx = new.indexes[k].clone();
        let mut cols = idx.columns.clone();
        cols.sort_unstable();
        let dependents: Vec<_> = ctx
            .catalog
            .referencing(def.oid)
            .into_iter()
            .filter(|(_, fk)| {
                let mut c = fk.parent_columns.clone();
                c.sort_unstable();
                c == cols
            })
            .collect();
        // Another unique index over the same columns would still serve them.
        let other = new.indexes.iter().any(|i| {
            i.unique && i.name != *name && {
                let mut c = i.columns.clone();
                c.sort_unstable();
                c == cols
            }
        });
        if !dependents.is_empty() && !other {
            if !cascade {
                return Err(super::dependents_remain(
                    format_args!("constraint {name} on table {}", def.name),
                    dependents.iter().map(|(c, fk)| {
                        format!(
                            "constraint {} on table {} depends on index {}",
                            fk.name, c.name, name
                        )
                    }),
                ));
            }
            let dropped: Vec<(u32, String)> = dependents
                .iter()
                .map(|(c, fk)| {
                    (
                        fk.oid.0,
                        format!("constraint {} on table {}", fk.name, c.name),
                    )
                })
                .collect();
            super::foreign_key::cascade_notice(ctx, dropped);
            for (child, fk) in dependents {
                if child.oid == new.oid {
                    new.foreign_keys.retain(|f| f.name != fk.name);
                    continue;
                }
                let cur = ctx.catalog.table_by_oid(child.oid).unwrap_or(child);
                let mut c = (*cur).clone();
                c.foreign_keys.retain(|f| f.name != fk.name);
                super::put_table(ctx, c)?;
            }
        }
        new.indexes.remove(k);
        def.storage.drop_index(idx.oid);
        return super::put_table(ctx, new);
    }
    if cmd.missing_ok {
        notice(
            ctx,
            format!(
                "constraint \"{name}\" of relation \"{}\" does not exist, skipping",
                def.name
            ),
        );
        return Ok(());
    }
    Err(DbError::new(
        SqlState::UndefinedObject,
        format!(
            "constraint \"{name}\" of relation \"{}\" does not exist",
            def.name
        ),
    ))
}

/// ALTER TABLE ... ALTER COLUMN c ADD GENERATED {ALWAYS | BY DEFAULT} AS
/// IDENTITY [(options)]: the form pg_dump writes for identity columns.
fn add_identity(
    ctx: &mut StatementCtx,
    def: &Arc<TableDef>,
    cmd: &pb::AlterTableCmd,
) -> Result<(), DbError> {
    let pos = existing_column(def, &cmd.name)?;
    let Some(NodeEnum::Constraint(con)) = cmd
        .def
        .as_deref()
        .map(nestor_parser::ast::node)
        .transpose()?
    else {
        return Err(DbError::internal("ADD GENERATED without its clause"));
    };
    let col = &def.columns[pos];
    if !col.not_null {
        return Err(DbError::new(
            SqlState::ObjectNotInPrerequisiteState,
            format!(
                "column \"{}\" of relation \"{}\" must be declared NOT NULL before identity can be added",
                col.name, def.name
            ),
        ));
    }
    if def.identity(pos).is_some() {
        return Err(DbError::new(
            SqlState::ObjectNotInPrerequisiteState,
            format!(
                "column \"{}\" of relation \"{}\" is already an identity column",
                col.name, def.name
            ),
        ));
    }
    if col.default.is_some() {
        return Err(DbError::new(
            SqlState::ObjectNotInPrerequisiteState,
            format!(
                "column \"{}\" of relation \"{}\" already has a default value",
                col.name, def.name
            ),
        ));
    }
    let spec = super::table::IdentitySpec {
        always: con.generated_when == "a",
        options: con.options.clone(),
        location: con.location,
    };
    let mut new = (**def).clone();
    let seq = super::table::identity_sequence(
        ctx,
        &def.name,
        &mut new.columns[pos],
        &spec,
        def.persistence,
        &[],
    )?;
    new.owned_sequences.push(seq.name.clone());
    new.identities.push(nestor_catalog::Identity {
        column: pos,
        always: spec.always,
    });
    ctx.catalog
        .apply(ctx.txn, &ctx.db.store, Change::PutSequence(Arc::new(seq)))?;
    super::put_table(ctx, new)
}

fn not_identity(col: &str, table: &str) -> DbError {
    DbError::new(
        SqlState::ObjectNotInPrerequisiteState,
        format!("column \"{col}\" of relation \"{table}\" is not an identity column"),
    )
}

/// The sequence behind identity column `pos` of `def`, as the catalog
/// names it.
fn identity_sequence_of(ctx: &StatementCtx, def: &TableDef, pos: usize) -> Option<String> {
    let col = &def.columns[pos].name;
    def.owned_sequences.iter().find_map(|s| {
        let name = ctx.catalog.qualify(def.namespace, s);
        let seq = ctx.catalog.sequence(&name)?;
        (seq.owned_by.as_ref().map(|(_, c)| c) == Some(col)).then_some(name)
    })
}

/// ALTER TABLE ... ALTER COLUMN c SET GENERATED { ALWAYS | BY DEFAULT }
/// / RESTART [WITH n] / SET sequence_option ...: the identity's kind, and
/// the other options on its sequence as ALTER SEQUENCE takes them.
fn set_identity(
    ctx: &mut StatementCtx,
    def: &Arc<TableDef>,
    cmd: &pb::AlterTableCmd,
) -> Result<(), DbError> {
    let pos = existing_column(def, &cmd.name)?;
    let Some(identity) = def.identity(pos) else {
        return Err(not_identity(&cmd.name, &def.name));
    };
    let options = match cmd
        .def
        .as_deref()
        .map(nestor_parser::ast::node)
        .transpose()?
    {
        Some(NodeEnum::List(l)) => l.items.clone(),
        _ => Vec::new(),
    };
    let mut always = identity.always;
    let mut seq_options = Vec::new();
    for o in options {
        match nestor_parser::ast::node(&o)? {
            NodeEnum::DefElem(d) if d.defname == "generated" => {
                let kind = match d.arg.as_deref().map(nestor_parser::ast::node).transpose()? {
                    Some(NodeEnum::Integer(i)) => i.ival,
                    _ => 0,
                };
                always = kind == i32::from(b'a');
            }
            _ => seq_options.push(o),
        }
    }
    if !seq_options.is_empty() {
        let name = identity_sequence_of(ctx, def, pos)
            .ok_or_else(|| DbError::internal("identity column without its sequence"))?;
        let seq = ctx
            .catalog
            .sequence(&name)
            .ok_or_else(|| undefined_table(&name))?;
        super::alter_sequence_params(ctx, &seq, &seq_options)?;
    }
    if always != identity.always {
        let cur = ctx
            .catalog
            .table_by_oid(def.oid)
            .ok_or_else(|| undefined_table(&def.name))?;
        let mut new = (*cur).clone();
        for i in new.identities.iter_mut().filter(|i| i.column == pos) {
            i.always = always;
        }
        super::put_table(ctx, new)?;
    }
    Ok(())
}

/// ALTER TABLE ... ALTER COLUMN c DROP IDENTITY [IF EXISTS]: the column
/// keeps its values and NOT NULL, loses its default, and its sequence is
/// dropped.
fn drop_identity(
    ctx: &mut StatementCtx,
    def: &Arc<TableDef>,
    cmd: &pb::AlterTableCmd,
) -> Result<(), DbError> {
    let pos = existing_column(def, &cmd.name)?;
    if def.identity(pos).is_none() {
        if cmd.missing_ok {
            notice(
                ctx,
                format!(
                    "column \"{}\" of relation \"{}\" is not an identity column, skipping",
                    cmd.name, def.name
                ),
            );
            return Ok(());
        }
        return Err(not_identity(&cmd.name, &def.name));
    }
    let seq = identity_sequence_of(ctx, def, pos);
    let mut new = (**def).clone();
    new.identities.retain(|i| i.column != pos);
    new.columns[pos].default = None;
    if let Some(seq) = &seq {
        let bare = ctx.catalog.unqualified(seq).to_string();
        new.owned_sequences.retain(|s| *s != bare);
    }
    super::put_table(ctx, new)?;
    if let Some(seq) = seq {
        ctx.catalog
            .apply(ctx.txn, &ctx.db.store, Change::DropSequence(seq))?;
    }
    Ok(())
}

pub(super) fn existing_column(def: &TableDef, name: &str) -> Result<usize, DbError> {
    def.column_index(name).ok_or_else(|| {
        DbError::new(
            SqlState::UndefinedColumn,
            format!(
                "column \"{name}\" of relation \"{}\" does not exist",
                def.name
            ),
        )
    })
}

fn add_column(
    ctx: &mut StatementCtx,
    text: &str,
    def: &Arc<TableDef>,
    cmd: &pb::AlterTableCmd,
) -> Result<(), DbError> {
    let Some(NodeEnum::ColumnDef(cd)) = cmd.def.as_deref().and_then(|n| n.node.as_ref()) else {
        return Err(DbError::internal("ADD COLUMN without definition"));
    };
    if def.column_index(&cd.colname).is_some() {
        let msg = format!(
            "column \"{}\" of relation \"{}\" already exists",
            cd.colname, def.name
        );
        if cmd.missing_ok {
            notice(ctx, format!("{msg}, skipping"));
            return Ok(());
        }
        return Err(DbError::new(SqlState::DuplicateColumn, msg));
    }
    let mut b = binder(ctx, text);
    let (mut idx, mut checks) = (Vec::new(), Vec::new());
    let mut fks = Vec::new();
    let (mut col, serial, bound_default, identity, generation) =
        column_def(&mut b, &def.name, cd, &mut idx, &mut checks, &mut fks)?;
    // A serial or identity column numbers the existing rows from its new
    // sequence, and a volatile DEFAULT is evaluated for each of them: the
    // table is rewritten (as PostgreSQL rewrites it). Any other DEFAULT is
    // one value, which rows stored before the column read (`missing`).
    let mut new = (**def).clone();
    let mut per_row = None;
    if serial.is_some() || identity.is_some() {
        let seq =
            super::table::added_column_sequence(ctx, def, &mut col, serial, identity.as_ref())?;
        let default = col
            .default
            .clone()
            .expect("a serial column defaults to nextval");
        per_row = Some(bind_default_text(ctx, &default, col.ty)?);
        new.owned_sequences.push(seq);
        if let Some(spec) = &identity {
            new.identities.push(nestor_catalog::Identity {
                column: new.columns.len(),
                always: spec.always,
            });
        }
    } else if let Some(d) = bound_default.as_ref().filter(|d| !d.is_row_independent()) {
        per_row = Some(d.clone());
    }
    let mut missing = Value::Null;
    if let Some(d) = bound_default.as_ref().filter(|_| per_row.is_none()) {
        let mut ev = Ev::new(ctx, &[]);
        let v = d.eval(&[], &mut ev)?;
        missing = nestor_plan::valops::cast(v, col.ty, false, &ev.ctx.eval)?;
    }
    if let Some(d) = col.domain.and_then(nestor_types::domains::lookup) {
        missing = domain_column_fill(ctx, def, &d, bound_default.is_none(), missing)?;
    }
    if col.not_null
        && per_row.is_none()
        && missing.is_null()
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
    col.missing = missing;
    new.columns.push(col);
    new.checks = bind_checks(ctx, text, &new, checks)?;
    if let Some(e) = generation {
        // PostgreSQL reports these without a cursor.
        let pos = new.columns.len() - 1;
        super::generated::check_expr(ctx, text, &new, pos, &e).map_err(|mut e| {
            e.position = None;
            e.unpositioned = true;
            e
        })?;
        super::generated::rewrite(ctx, def, new, None)?;
    } else if per_row.is_some() {
        super::generated::rewrite(ctx, def, new, per_row.as_ref())?;
    } else {
        super::put_table(ctx, new)?;
    }
    // The column's PRIMARY KEY, UNIQUE and REFERENCES constraints, as ADD
    // CONSTRAINT adds them.
    attach_constraints(ctx, def, idx, fks, false)
}

/// A column default's stored text, bound and coerced to the column's type.
fn bind_default_text(
    ctx: &StatementCtx,
    text: &str,
    ty: nestor_types::datatype::DataType,
) -> Result<nestor_plan::ir::Expr, DbError> {
    let node = nestor_parser::parse_expr(text)?;
    let mut b = binder(ctx, text);
    let (e, t) = b.bind(&node)?;
    b.coerce_assign(e, t, ty)
}

/// ADD COLUMN of a domain: the value the existing rows get (the domain's
/// DEFAULT when the column has none of its own) must pass the domain's
/// constraints when there are rows, as PostgreSQL's rewrite checks it.
fn domain_column_fill(
    ctx: &mut StatementCtx,
    def: &TableDef,
    d: &Arc<nestor_types::domains::DomainDef>,
    use_domain_default: bool,
    mut missing: Value,
) -> Result<Value, DbError> {
    if use_domain_default {
        if let Some(text) = &nestor_types::domains::effective_default(d) {
            let node = nestor_parser::parse_expr(text)?;
            let mut b = binder(ctx, text);
            let (e, t) = b.bind(&node)?;
            let e = b.coerce_assign(e, t, d.base)?;
            let mut ev = Ev::new(ctx, &[]);
            missing = e.eval(&[], &mut ev)?;
        }
    }
    if def.storage.scan(&ctx.snapshot).next().is_none() {
        return Ok(missing);
    }
    let checks = nestor_plan::bind::domain::bind_domain_checks(
        ctx.catalog,
        ctx.eval,
        nestor_plan::select::plan_query,
        d,
        1,
        0,
    )?;
    let v = [missing];
    let mut ev = Ev::new(ctx, &[]);
    crate::executor::eval::check_domain(&checks, &v, &mut ev)?;
    let [v] = v;
    Ok(v)
}

fn drop_column(
    ctx: &mut StatementCtx,
    def: &Arc<TableDef>,
    cmd: &pb::AlterTableCmd,
) -> Result<(), DbError> {
    let pos = match existing_column(def, &cmd.name) {
        Ok(p) => p,
        Err(e) if cmd.missing_ok => {
            notice(ctx, format!("{}, skipping", e.message));
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let cascade = cmd.behavior == pb::DropBehavior::DropCascade as i32;
    let dependents = super::generated::dependents(ctx, def, pos)?;
    if let Some(&d) = dependents.first() {
        let (col, dep) = (&def.columns[pos].name, &def.columns[d].name);
        let t = &def.name;
        if !cascade {
            return Err(super::dependents_remain(
                format_args!("column {col} of table {t}"),
                [format!(
                    "column {dep} of table {t} depends on column {col} of table {t}"
                )],
            ));
        }
        for &d in &dependents {
            notice(
                ctx,
                format!(
                    "drop cascades to column {} of table {t}",
                    def.columns[d].name
                ),
            );
        }
    }
    let policies = super::policy::reading_column(ctx, def, pos)?;
    if !policies.is_empty() {
        super::policy::drop_for_column(ctx, def, pos, &policies, cascade)?;
    }
    super::column_deps::drop_dependents(ctx, def, pos, cascade)?;
    for d in dependents {
        let cur = ctx
            .catalog
            .table_by_oid(def.oid)
            .ok_or_else(|| undefined_table(&def.name))?;
        drop_column_at(ctx, &cur, d)?;
    }
    let cur = ctx
        .catalog
        .table_by_oid(def.oid)
        .ok_or_else(|| undefined_table(&def.name))?;
    drop_column_at(ctx, &cur, pos)
}

/// Drop column `pos` of `def` (ALTER TABLE ... DROP COLUMN, DROP DOMAIN
/// ... CASCADE): its indexes, its foreign keys and the CHECKs that read
/// it go with it.
pub(super) fn drop_column_at(
    ctx: &mut StatementCtx,
    def: &Arc<TableDef>,
    pos: usize,
) -> Result<(), DbError> {
    let mut new = (**def).clone();
    new.columns[pos].dropped = true;
    new.columns[pos].not_null = false;
    new.columns[pos].default = None;
    new.columns[pos].generated = false;
    // The slot keeps its base type only: the domain may be dropped.
    new.columns[pos].domain = None;
    // Indexes that read the column go with it (a computed one when its
    // expressions or predicate do, as in PostgreSQL).
    let (gone, keep): (Vec<IndexDef>, Vec<IndexDef>) = new.indexes.drain(..).partition(|i| {
        nestor_plan::select::index_expr::columns_read(ctx.catalog, def, i).contains(&pos)
    });
    new.indexes = keep;
    // So do its own foreign keys over it (PostgreSQL's automatic
    // dependency of the constraint on its columns).
    new.foreign_keys.retain(|f| !f.columns.contains(&pos));
    // CHECK constraints that read the column go with it.
    let bound = nestor_plan::modify::bind_checks(ctx.catalog, ctx.eval, def)?;
    new.checks.retain(|c| {
        !bound
            .iter()
            .any(|b| b.domain.is_none() && b.name == c.name && b.expr.columns().contains(&pos))
    });
    for g in gone {
        def.storage.drop_index(g.oid);
    }
    super::put_table(ctx, new)
}

fn add_constraint(
    ctx: &mut StatementCtx,
    text: &str,
    def: &Arc<TableDef>,
    cmd: &pb::AlterTableCmd,
) -> Result<(), DbError> {
    let Some(NodeEnum::Constraint(c)) = cmd.def.as_deref().and_then(|n| n.node.as_ref()) else {
        return Err(DbError::internal("ADD CONSTRAINT without definition"));
    };
    if !c.indexname.is_empty() {
        return constraint_using_index(ctx, def, c)
            .map_err(|e| nestor_plan::bind::err_at(e, text, c.location));
    }
    let (mut idx, mut checks) = (Vec::new(), Vec::new());
    let mut fks = Vec::new();
    table_constraint(c, &mut idx, &mut checks, &mut fks)?;
    // NOT VALID (CHECK and FOREIGN KEY only; the grammar refuses it on the
    // others): the rows there are now are not checked, new ones are.
    let not_valid = c.skip_validation;
    attach_constraints(ctx, def, idx, fks, not_valid)?;
    if !checks.is_empty() {
        let cur = ctx
            .catalog
            .table_by_oid(def.oid)
            .unwrap_or_else(|| def.clone());
        let mut new = (*cur).clone();
        new.checks = bind_checks(ctx, text, &new, checks)?;
        let added: Vec<String> = new.checks[cur.checks.len()..]
            .iter()
            .map(|c| c.name.clone())
            .collect();
        if not_valid {
            new.not_valid.extend(added);
        } else {
            verify_checks(ctx, &new, &added)?;
        }
        super::put_table(ctx, new)?;
    }
    Ok(())
}

/// Add FOREIGN KEY, PRIMARY KEY and UNIQUE constraints to table `def` as
/// it stands in the catalog now (ADD CONSTRAINT, ADD COLUMN): each foreign
/// key validated against the rows unless NOT VALID, each index built.
fn attach_constraints(
    ctx: &mut StatementCtx,
    def: &Arc<TableDef>,
    idx: Vec<super::PendingIndex>,
    fks: Vec<super::foreign_key::PendingFk>,
    not_valid: bool,
) -> Result<(), DbError> {
    for p in fks {
        let cur = ctx
            .catalog
            .table_by_oid(def.oid)
            .unwrap_or_else(|| def.clone());
        let fk = super::foreign_key::resolve(ctx, &cur, &p, &[])?;
        if cur.foreign_keys.iter().any(|f| f.name == fk.name)
            || cur.checks.iter().any(|c| c.name == fk.name)
        {
            return Err(DbError::new(
                SqlState::DuplicateObject,
                format!(
                    "constraint \"{}\" for relation \"{}\" already exists",
                    fk.name, cur.name
                ),
            ));
        }
        let mut new = (*cur).clone();
        if not_valid {
            new.not_valid.push(fk.name.clone());
        } else {
            // Existing rows must satisfy it (PostgreSQL validates at once).
            let mut ev = Ev::new(ctx, &[]);
            crate::foreign_keys::validate(&cur, &fk, &mut ev)?;
        }
        new.foreign_keys.push(fk);
        super::put_table(ctx, new)?;
    }
    let current = |ctx: &StatementCtx| {
        ctx.catalog
            .table_by_oid(def.oid)
            .unwrap_or_else(|| def.clone())
    };
    for pi in idx {
        add_index(ctx, &current(ctx), pi)?;
    }
    Ok(())
}

/// ADD [CONSTRAINT name] PRIMARY KEY | UNIQUE USING INDEX idx: the unique
/// index becomes the constraint's (index_check_primary_key's and
/// ATExecAddIndexConstraint's checks and messages), renamed to the
/// constraint's name with a NOTICE; a primary key makes its columns NOT
/// NULL (23502 if a row holds a NULL).
fn constraint_using_index(
    ctx: &mut StatementCtx,
    def: &Arc<TableDef>,
    c: &pb::Constraint,
) -> Result<(), DbError> {
    let primary = c.contype == pb::ConstrType::ConstrPrimary as i32;
    if def.partition_key.is_some() {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "ALTER TABLE / ADD CONSTRAINT USING INDEX is not supported on partitioned tables",
        ));
    }
    let name = &c.indexname;
    let Some(pos) = def.indexes.iter().position(|i| i.name == *name) else {
        return Err(DbError::new(
            SqlState::UndefinedObject,
            format!("index \"{name}\" does not exist"),
        ));
    };
    let i = &def.indexes[pos];
    if i.constraint {
        return Err(DbError::new(
            SqlState::ObjectNotInPrerequisiteState,
            format!("index \"{name}\" is already associated with a constraint"),
        ));
    }
    let not_such = |what: String| {
        DbError::new(SqlState::WrongObjectType, what)
            .with_detail("Cannot create a primary key or unique constraint using such an index.")
    };
    if !i.unique {
        return Err(not_such(format!("\"{name}\" is not a unique index")));
    }
    if let Some(x) = &i.exprs {
        return Err(not_such(if x.predicate.is_some() {
            format!("\"{name}\" is a partial index")
        } else {
            format!("index \"{name}\" contains expressions")
        }));
    }
    // Each key must sort and compare as its column's defaults would
    // (PostgreSQL's transformIndexConstraint): ASC NULLS LAST, the
    // column's collation, the default class.
    if let Some(k) = (0..i.columns.len()).find(|&k| !i.key_opt(k).is_default()) {
        return Err(not_such(format!(
            "index \"{name}\" column number {} does not have default sorting behavior",
            k + 1
        )));
    }
    if primary && def.indexes.iter().any(|i| i.primary) {
        return Err(DbError::new(
            SqlState::InvalidTableDefinition,
            format!(
                "multiple primary keys for table \"{}\" are not allowed",
                def.name
            ),
        )
        .unpositioned());
    }
    let mut new = (**def).clone();
    if primary {
        for &col in &i.columns {
            if new.columns[col].not_null {
                continue;
            }
            let snap = ctx.snapshot;
            let has_null = def
                .storage
                .scan(&snap)
                .any(|t| crate::executor::scan_row(t, def)[col].is_null());
            if has_null {
                return Err(DbError::new(
                    SqlState::NotNullViolation,
                    format!(
                        "column \"{}\" of relation \"{}\" contains null values",
                        new.columns[col].name, def.name
                    ),
                )
                .unpositioned());
            }
            new.columns[col].not_null = true;
        }
    }
    let to = if c.conname.is_empty() {
        name.clone()
    } else {
        c.conname.clone()
    };
    if to != *name {
        if ctx.catalog.name_taken(&to) {
            return Err(DbError::new(
                SqlState::DuplicateTable,
                format!("relation \"{to}\" already exists"),
            ));
        }
        ctx.notices.push(
            DbError::new(
                SqlState::SuccessfulCompletion,
                format!(
                    "ALTER TABLE / ADD CONSTRAINT USING INDEX will rename index \"{name}\" to \"{to}\""
                ),
            )
            .with_severity(nestor_common::error::Severity::Notice),
        );
    }
    let ni = &mut new.indexes[pos];
    ni.name = to;
    ni.constraint = true;
    ni.primary = primary;
    super::put_table(ctx, new)
}

/// ALTER TABLE ... VALIDATE CONSTRAINT: check the rows a NOT VALID CHECK
/// or FOREIGN KEY was added over, then mark it valid (nothing to do for a
/// valid one).
fn validate_constraint(
    ctx: &mut StatementCtx,
    def: &Arc<TableDef>,
    name: &str,
) -> Result<(), DbError> {
    let is_check = def.checks.iter().any(|c| c.name == name);
    let fk = def.foreign_keys.iter().find(|f| f.name == name);
    if !is_check && fk.is_none() {
        let other = def.indexes.iter().any(|i| i.constraint && i.name == name);
        return Err(if other {
            DbError::new(
                SqlState::WrongObjectType,
                format!(
                    "constraint \"{name}\" of relation \"{}\" is not a foreign key or check constraint",
                    def.name
                ),
            )
        } else {
            DbError::new(
                SqlState::UndefinedObject,
                format!(
                    "constraint \"{name}\" of relation \"{}\" does not exist",
                    def.name
                ),
            )
        });
    }
    if !def.not_valid.iter().any(|n| n == name) {
        return Ok(());
    }
    match fk {
        Some(fk) => {
            let mut ev = Ev::new(ctx, &[]);
            crate::foreign_keys::validate(def, fk, &mut ev)?;
        }
        None => verify_checks(ctx, def, &[name.to_string()])?,
    }
    let mut new = (**def).clone();
    new.not_valid.retain(|n| n != name);
    super::put_table(ctx, new)
}

/// The CHECKs named `names` must hold for every existing row.
fn verify_checks(ctx: &mut StatementCtx, def: &TableDef, names: &[String]) -> Result<(), DbError> {
    let mut checks =
        nestor_plan::modify::bind_checks(ctx.catalog, ctx.eval, &Arc::new(def.clone()))?;
    checks.retain(|c| c.domain.is_none() && names.contains(&c.name));
    let snap = ctx.snapshot;
    let rows: Vec<nestor_storage::Tuple> = def.storage.scan(&snap).collect();
    let mut ev = Ev::new(ctx, &[]);
    for t in rows {
        let row = crate::executor::scan_row(t, def);
        for ch in &checks {
            if truthy(&ch.expr.eval(&row, &mut ev)?) == Some(false) {
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
