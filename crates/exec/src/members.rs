//! Writing rows read from an inheritance tree whole (planned as
//! `nestor_plan::modify::Members`): MERGE into a partitioned table or an
//! inheritance parent, UPDATE or DELETE through a view of a partitioned
//! table.
//!
//! Those statements read the tree as SELECT does, one Append whose rows
//! are in the named table's layout, followed by `tableoid`; their
//! conditions and SET expressions are bound over that row. A row is
//! written in the member `tableoid` names by the ordinary single-table
//! path (`modify::write_row`, with its row locks, triggers, checks,
//! foreign keys and cross-partition moves), given a `ModifyPlan` for the
//! member and a row that carries both layouts:
//!
//! ```text
//!   statement row (named table's layout, source columns...) | member row | member sys
//!   ^ SET expressions, conditions read here                   ^ write_row's offset
//! ```
//!
//! The member's part is the statement's values moved to the member's
//! positions (its dropped columns NULL), or, when the member has columns
//! the named table lacks (an inheritance child's own), the member's row
//! as stored, so an UPDATE keeps them. Each SET names a column of the
//! named table; the member plan sets that column's position in the
//! member to the same expression, still evaluated over the statement's
//! part. After a write, or when a concurrent change brought the row's
//! newest version (EvalPlanQual, `Epq::Return`), the member's part is
//! copied back over the statement's, so a re-check, a WITH CHECK OPTION
//! or RETURNING sees the row as it now is.
//!
//! UPDATE and DELETE reach here through [`exec_modify`], which sends a
//! plan without a tree on to `modify::exec_modify` (so `modify` needs
//! nothing of this module).

use std::collections::HashMap;

use nestor_common::{DbError, RowId};
use nestor_plan::ir::{Expr, Plan, SYS_COLS, SYS_ROWID};
use nestor_plan::modify::{Member, Members, ModifyPlan};
use nestor_types::Value;

use nestor_storage::Recheck;

use crate::context::{Ev, RowSink};
use crate::executor::eval::Eval;
use crate::executor::Row;
use crate::modify::{self, Epq, FkWork, MoveTriggers, Written};
use crate::triggers::{Event, Firing, LeafTriggers};

/// A tree's members, found by the `tableoid` of a row.
pub(crate) struct Tree<'p> {
    pub(crate) members: &'p Members,
    /// The named table's column count.
    width: usize,
    by_oid: HashMap<u32, usize>,
}

impl<'p> Tree<'p> {
    pub(crate) fn new(members: &'p Members, width: usize) -> Tree<'p> {
        let by_oid = members
            .members
            .iter()
            .enumerate()
            .map(|(i, m)| (m.table.oid.0, i))
            .collect();
        Tree {
            members,
            width,
            by_oid,
        }
    }

    pub(crate) fn member(&self, i: usize) -> &'p Member {
        &self.members.members[i]
    }

    /// The member a statement row comes from.
    pub(crate) fn member_of(&self, row: &[Value]) -> Result<usize, DbError> {
        let oid = match row.get(self.members.tableoid) {
            Some(Value::Int8(o)) => *o as u32,
            _ => return Err(DbError::internal("a tree's row without its tableoid")),
        };
        self.by_oid.get(&oid).copied().ok_or_else(|| {
            DbError::internal(format!("row of relation {oid}, not a member of the tree"))
        })
    }

    /// Append member `i`'s row (then its system columns) to statement
    /// row `row`; returns the offset it starts at.
    pub(crate) fn extend(&self, i: usize, row: &mut Row, ev: &Ev) -> Result<usize, DbError> {
        let m = self.member(i);
        let offset = row.len();
        let sys = self.width..self.width + SYS_COLS;
        let stored = match (&row[self.width + SYS_ROWID], m.extra) {
            (Value::Int8(rid), true) => m
                .table
                .storage
                .get(RowId(*rid as u64), &ev.ctx.snapshot)
                .map(|t| t.data),
            _ => None,
        };
        let mut own: Row = match stored {
            Some(mut data) => {
                data.resize(m.table.columns.len(), Value::Null);
                data
            }
            None => vec![Value::Null; m.table.columns.len()],
        };
        for (c, at) in m.cols.iter().enumerate() {
            if let Some(at) = at {
                own[*at] = row[c].clone();
            }
        }
        own.extend(row[sys].iter().cloned());
        row.extend(own);
        Ok(offset)
    }

    /// Copy member `i`'s part of `row` (at `offset`) back over the
    /// statement's: the named table's columns and system columns.
    pub(crate) fn fold_back(&self, i: usize, row: &mut [Value], offset: usize) {
        let m = self.member(i);
        for (c, at) in m.cols.iter().enumerate() {
            if let Some(at) = at {
                row[c] = row[offset + at].clone();
            }
        }
        let n = m.table.columns.len();
        for k in 0..SYS_COLS {
            row[self.width + k] = row[offset + n + k].clone();
        }
    }

    /// The plan writing member `i`'s rows: `sets` (columns of the named
    /// table, expressions over the statement's row) at the member's
    /// positions, its checks and partition constraint, the tree's
    /// routing for rows leaving their partition.
    pub(crate) fn plan(
        &self,
        i: usize,
        sets: &[(usize, Expr)],
        delete: bool,
        offset: usize,
    ) -> Result<ModifyPlan, DbError> {
        let m = self.member(i);
        let sets = sets
            .iter()
            .map(|(c, e)| match m.cols.get(*c).copied().flatten() {
                Some(at) => Ok((at, e.clone())),
                None => Err(DbError::internal(format!(
                    "column {c} missing from \"{}\"",
                    m.table.name
                ))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ModifyPlan {
            table: m.table.clone(),
            offset,
            input: Plan::Single,
            recheck: None,
            sets,
            checks: if delete { Vec::new() } else { m.checks.clone() },
            returning: None,
            delete,
            view_checks: Vec::new(),
            children: Vec::new(),
            part_check: m.part_check.clone(),
            reroute: if delete {
                None
            } else {
                self.members.route.clone()
            },
            members: None,
        })
    }
}

/// What writing one member's rows for one kind of action keeps: its row
/// triggers (a descendant's, `Firing::for_descendant`), the triggers of
/// rows an UPDATE moves out of it, its foreign-key work. Made when a row
/// first reaches it.
pub(crate) struct MemberWrites<'p> {
    pub(crate) firing: Option<Firing<'p>>,
    pub(crate) moving: Option<MoveTriggers<'p>>,
    pub(crate) fk: FkWork,
}

impl<'p> MemberWrites<'p> {
    /// For member `i` of `tree`, rows deleted (`delete`) or updated
    /// (setting `set_columns` of the named table); `named`: the named
    /// table's Firing for the event. `as_update`: whether a row an UPDATE
    /// moves is an UPDATE in the transition tables (`MoveTriggers`).
    pub(crate) fn new(
        tree: &Tree<'p>,
        (i, delete): (usize, bool),
        set_columns: &[usize],
        named: Option<&Firing>,
        as_update: bool,
        ev: &mut Ev,
    ) -> Result<MemberWrites<'p>, DbError> {
        let m = tree.member(i);
        let t: &'p nestor_catalog::TableDef = &m.table;
        let event = if delete { Event::Delete } else { Event::Update };
        let cols: Vec<usize> = set_columns
            .iter()
            .filter_map(|c| m.cols.get(*c).copied().flatten())
            .collect();
        let firing = Firing::for_descendant(t, event, &cols, named, ev)?;
        // A row an UPDATE moves fires the leaf's DELETE triggers and the
        // destination's INSERT ones (the statement's, lent per write).
        let moving = match (&tree.members.route, delete) {
            (Some(_), false) => Some(MoveTriggers {
                delete: Firing::new(t, Event::Delete, &[], ev)?.map(Firing::descendant),
                insert: None,
                as_update,
                moved: false,
            }),
            _ => None,
        };
        Ok(MemberWrites {
            firing,
            moving,
            fk: FkWork::new(t, !delete, ev),
        })
    }

    /// Write statement row `row`, extended with member `i`'s part at
    /// `offset` (`Tree::extend`), by `plan` (`Tree::plan`): what
    /// `write_row` returns (`Epq::Return`), the member's part copied back
    /// over the statement's when written or changed concurrently.
    /// `inserts`: the statement's INSERT triggers of the leaves, for a
    /// row that moves.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn write(
        &mut self,
        plan: &ModifyPlan,
        (tree, i, offset): (&Tree<'p>, usize, usize),
        row: &mut Row,
        inserts: &mut Option<LeafTriggers<'p>>,
        recheck: Recheck,
        ev: &mut Ev,
        sink: &mut dyn RowSink,
    ) -> Result<Written, DbError> {
        if let Some(m) = &mut self.moving {
            m.insert = inserts.take();
            m.moved = false;
        }
        let r = modify::write_row(
            plan,
            row,
            ev,
            sink,
            self.firing.as_mut(),
            &mut self.fk,
            recheck,
            Epq::Return,
            self.moving.as_mut(),
        );
        if let Some(m) = &mut self.moving {
            *inserts = m.insert.take();
        }
        let r = r?;
        if matches!(r, Written::Yes | Written::Changed) {
            tree.fold_back(i, row, offset);
        }
        Ok(r)
    }

    /// Whether the last write moved its row to another partition.
    pub(crate) fn moved(&self) -> bool {
        self.moving.as_ref().is_some_and(|m| m.moved)
    }

    /// The statement's rows are all written: the foreign-key checks left,
    /// and the rows kept for `named`'s transition tables handed up.
    /// Returns the Firings whose AFTER ROW events are still queued.
    pub(crate) fn finish(
        mut self,
        table: &nestor_catalog::TableDef,
        named: Option<&mut Firing>,
        ev: &mut Ev,
    ) -> Result<Vec<Firing<'p>>, DbError> {
        self.fk.finish(table, ev)?;
        if let (Some(n), Some(f)) = (named, &mut self.firing) {
            n.absorb(f);
        }
        let mut out: Vec<Firing<'p>> = self.firing.into_iter().collect();
        if let Some(m) = self.moving {
            out.extend(m.delete);
        }
        Ok(out)
    }
}

/// UPDATE or DELETE (`modify::exec_modify`), of a tree read whole when
/// the plan says so.
pub(crate) fn exec_modify(
    p: &ModifyPlan,
    ev: &mut Ev,
    sink: &mut dyn RowSink,
) -> Result<u64, DbError> {
    match &p.members {
        Some(m) => exec_modify_tree(p, m, ev, sink),
        None => modify::exec_modify(p, ev, sink),
    }
}

/// UPDATE or DELETE of a tree read whole (through a view of a
/// partitioned table): each row written in the leaf it comes from
/// (`crate::members`), its WHERE clause re-checked on a row changed
/// concurrently as `write_row` does for a table. Statement triggers are
/// the named table's; AFTER ROW events fire in row order at the end.
fn exec_modify_tree(
    p: &ModifyPlan,
    members: &Members,
    ev: &mut Ev,
    sink: &mut dyn RowSink,
) -> Result<u64, DbError> {
    let set_columns = modify::set_columns(p);
    let mut trig = modify::statement_triggers(p, ev)?;
    let tree = Tree::new(members, p.table.columns.len());
    let mut writes: Vec<Option<(ModifyPlan, MemberWrites)>> =
        members.members.iter().map(|_| None).collect();
    let mut inserts = match (&members.route, p.delete) {
        (Some(r), false) => LeafTriggers::new(r),
        _ => None,
    };
    let rows = modify::collect(&p.input, ev)?;
    let mut count = 0;
    for mut row in rows {
        let i = tree.member_of(&row)?;
        let offset = tree.extend(i, &mut row, ev)?;
        if writes[i].is_none() {
            let plan = tree.plan(i, &p.sets, p.delete, offset)?;
            let cols = &set_columns;
            let w = MemberWrites::new(&tree, (i, p.delete), cols, trig.as_ref(), true, ev)?;
            writes[i] = Some((plan, w));
        }
        let Some((plan, w)) = writes[i].as_mut() else {
            continue;
        };
        let mut recheck = Recheck::Snapshot;
        loop {
            let r = w.write(
                plan,
                (&tree, i, offset),
                &mut row,
                &mut inserts,
                recheck,
                ev,
                sink,
            )?;
            match r {
                Written::Yes => {
                    if !p.view_checks.is_empty() {
                        modify::check_view_options(&p.table, &p.view_checks, &row, ev)?;
                    }
                    modify::emit_returning(&p.returning, &row, ev, sink)?;
                    count += 1;
                }
                Written::Changed => {
                    if p.recheck.as_ref().map_or(Ok(true), |w| w.test(&row, ev))? {
                        recheck = Recheck::Latest;
                        continue;
                    }
                }
                Written::Skipped | Written::Gone | Written::SelfModified => {}
            }
            break;
        }
    }
    let mut fired = Vec::new();
    for (plan, w) in writes.into_iter().flatten() {
        fired.extend(w.finish(&plan.table, trig.as_mut(), ev)?);
    }
    let mut all: Vec<&mut Firing> = trig.iter_mut().chain(fired.iter_mut()).collect();
    crate::triggers::fire_in_order(&mut all, inserts.as_mut_slice(), ev)?;
    if let Some(t) = &mut trig {
        t.after_statement(ev)?;
    }
    Ok(count)
}
