//! Execution of MERGE (planned by `nestor_plan::merge`).
//!
//! The join of target and source is read whole first (as UPDATE reads its
//! rows), then each of its rows is driven through the WHEN clauses: a row
//! with a target row id takes the first WHEN MATCHED clause whose
//! condition holds, one without takes the first WHEN NOT MATCHED clause's.
//! The writes are UPDATE's, DELETE's and INSERT's own
//! (`crate::modify::write_row`, `store_row`): the same row locks, checks,
//! foreign-key work, statistics and row triggers, so a MERGE write is an
//! ordinary write (and ordinary WAL). Statement triggers fire for each
//! kind of action the statement has, BEFORE as INSERT, UPDATE, DELETE and
//! AFTER as DELETE, UPDATE, INSERT (PostgreSQL's order); AFTER ROW events
//! of all three kinds (and of every table written) fire in row order
//! once the rows are written.
//!
//! A partitioned target or an inheritance parent is read whole (its
//! members' rows in its layout, with `tableoid`): a matched row is
//! written in the member it comes from (`crate::members`: the member's
//! row triggers, checks and foreign keys; an UPDATE moving a row out of
//! its partition deletes it there and routes it from the target, as
//! UPDATE does), a new row is routed to its leaf as INSERT routes it
//! (into an inheritance parent it is the parent's). Statement triggers
//! are the target's.
//!
//! A target row this command already updated or deleted (matched by a
//! second source row) is PostgreSQL's 21000. Under READ COMMITTED a target
//! row a concurrent transaction changed comes back with its newest
//! version (`Written::Changed`): as PostgreSQL 15's EvalPlanQual for MERGE,
//! the ON condition is evaluated again on it (with the source row as it
//! was read) and, if it still holds, the WHEN MATCHED clauses are tried
//! again from the first; a row that no longer matches, or was deleted
//! meanwhile, goes to the WHEN NOT MATCHED clauses. What differs from
//! PostgreSQL: its EvalPlanQual re-runs the source side too (re-fetching
//! rows of source tables under row locks), where the source row here
//! keeps the values read at the statement's snapshot, as Nestor's
//! UPDATE ... FROM does. REPEATABLE READ gets 40001 from storage.

use std::sync::Arc;

use nestor_catalog::TableDef;
use nestor_common::{DbError, RowId, SqlState};
use nestor_plan::ir::{SYS_COLS, SYS_ROWID};
use nestor_plan::merge::{MergeAction, MergeKind, MergePlan};
use nestor_plan::modify::{InsertPlan, Members, ModifyPlan};
use nestor_plan::select::partition::Routing;
use nestor_storage::Recheck;
use nestor_types::Value;

use crate::context::{Ev, RowSink};
use crate::executor::eval::Eval;
use crate::executor::Row;
use crate::members::{MemberWrites, Tree};
use crate::modify::{self, Epq, FkWork, Written};
use crate::triggers::{Event, Firing, LeafTriggers};

/// PostgreSQL's error for a target row two source rows match.
fn affect_row_twice() -> DbError {
    DbError::new(
        SqlState::CardinalityViolation,
        "MERGE command cannot affect row a second time",
    )
    .with_hint("Ensure that not more than one source row matches any one target row.")
}

/// Each action as the statement it runs: UPDATE and DELETE as a
/// `ModifyPlan` over the join's row, INSERT as an `InsertPlan`.
enum Prepared {
    Modify(Box<ModifyPlan>),
    Insert(Box<InsertPlan>),
    Nothing,
}

fn prepare(p: &MergePlan, a: &MergeAction) -> Prepared {
    let modify = |sets: Vec<_>, delete: bool| {
        Prepared::Modify(Box::new(ModifyPlan {
            table: p.table.clone(),
            offset: 0,
            input: nestor_plan::ir::Plan::Single,
            recheck: None,
            sets,
            checks: match (&p.rls, delete) {
                (_, true) => Vec::new(),
                (Some(r), false) => r.update_checks.clone(),
                (None, false) => p.checks.clone(),
            },
            returning: None,
            delete,
            view_checks: Vec::new(),
            children: Vec::new(),
            part_check: p.part_check.clone(),
            reroute: None,
            members: None,
        }))
    };
    match &a.kind {
        MergeKind::Update(sets) => modify(sets.clone(), false),
        MergeKind::Delete => modify(Vec::new(), true),
        MergeKind::Insert {
            targets, defaults, ..
        } => Prepared::Insert(Box::new(InsertPlan {
            table: p.table.clone(),
            source: nestor_plan::ir::Plan::Single,
            targets: targets.clone(),
            defaults: defaults.clone(),
            checks: p
                .rls
                .as_ref()
                .map_or(&p.checks, |r| &r.insert_checks)
                .clone(),
            conflict: None,
            returning: None,
            view_checks: Vec::new(),
            route: None,
            part_check: p.part_check.clone(),
        })),
        MergeKind::Nothing => Prepared::Nothing,
    }
}

/// The triggers of the statement, one firing per kind of action it has.
/// Their AFTER ROW events (and those of a tree's members) fire once the
/// rows are all written, in row order (`triggers::fire_in_order`).
struct Triggers<'t> {
    insert: Option<Firing<'t>>,
    update: Option<Firing<'t>>,
    delete: Option<Firing<'t>>,
}

/// A tree target's writes (`crate::members`), made as rows reach them.
struct TreeRun<'p> {
    tree: Tree<'p>,
    /// Per WHEN MATCHED clause, per member: the plan writing its rows.
    plans: Vec<Vec<Option<ModifyPlan>>>,
    /// Per member: its UPDATE and its DELETE writes.
    update: Vec<Option<MemberWrites<'p>>>,
    delete: Vec<Option<MemberWrites<'p>>>,
    /// The leaves' INSERT row triggers (a partitioned target).
    inserts: Option<LeafTriggers<'p>>,
}

impl<'p> TreeRun<'p> {
    fn new(p: &'p MergePlan, members: &'p Members) -> TreeRun<'p> {
        let n = members.members.len();
        TreeRun {
            tree: Tree::new(members, p.table.columns.len()),
            plans: p
                .matched
                .iter()
                .map(|_| (0..n).map(|_| None).collect())
                .collect(),
            update: (0..n).map(|_| None).collect(),
            delete: (0..n).map(|_| None).collect(),
            inserts: members.route.as_deref().and_then(LeafTriggers::new),
        }
    }
}

pub(crate) fn exec_merge(
    p: &MergePlan,
    ev: &mut Ev,
    sink: &mut dyn RowSink,
) -> Result<u64, DbError> {
    let t = &p.table;
    let has_insert = p.has(|k| matches!(k, MergeKind::Insert { .. }));
    let has_update = p.has(|k| matches!(k, MergeKind::Update(_)));
    let has_delete = p.has(|k| matches!(k, MergeKind::Delete));
    let trig = Triggers {
        insert: if has_insert {
            Firing::new(t, Event::Insert, &[], ev)?
        } else {
            None
        },
        update: if has_update {
            Firing::new(t, Event::Update, &p.set_columns(), ev)?
        } else {
            None
        },
        delete: if has_delete {
            Firing::new(t, Event::Delete, &[], ev)?
        } else {
            None
        },
    };
    for f in [&trig.insert, &trig.update, &trig.delete]
        .into_iter()
        .flatten()
    {
        f.before_statement(ev)?;
    }
    let matched: Vec<Prepared> = p.matched.iter().map(|a| prepare(p, a)).collect();
    let not_matched: Vec<Prepared> = p.not_matched.iter().map(|a| prepare(p, a)).collect();
    let rows = modify::collect(&p.input, ev)?;
    let mut run = Run {
        p,
        matched,
        not_matched,
        fk: FkWork::new(t, has_update, ev),
        fk_inserted: Vec::new(),
        trig,
        tree: p.members.as_deref().map(|m| TreeRun::new(p, m)),
    };
    let mut count = 0;
    for row in rows {
        if run.merge_row(row, ev, sink)? {
            count += 1;
        }
    }
    let Run {
        mut fk,
        fk_inserted,
        mut trig,
        tree,
        ..
    } = run;
    fk.finish(t, ev)?;
    let mut fired = Vec::new();
    let mut inserts = None;
    if let Some(tr) = tree {
        for (writes, named) in [(tr.update, &mut trig.update), (tr.delete, &mut trig.delete)] {
            for (i, w) in writes.into_iter().enumerate() {
                if let Some(w) = w {
                    fired.extend(w.finish(&tr.tree.member(i).table, named.as_mut(), ev)?);
                }
            }
        }
        inserts = tr.inserts;
    }
    for (table, rid, row) in fk_inserted {
        crate::foreign_keys::check_child(&table, &row, None, Some(rid), ev)?;
    }
    let mut all: Vec<&mut Firing> = [&mut trig.insert, &mut trig.update, &mut trig.delete]
        .into_iter()
        .flatten()
        .chain(fired.iter_mut())
        .collect();
    crate::triggers::fire_in_order(&mut all, inserts.as_mut_slice(), ev)?;
    for f in [&mut trig.delete, &mut trig.update, &mut trig.insert]
        .into_iter()
        .flatten()
    {
        f.after_statement(ev)?;
    }
    Ok(count)
}

/// One execution's state.
struct Run<'p> {
    p: &'p MergePlan,
    matched: Vec<Prepared>,
    not_matched: Vec<Prepared>,
    fk: FkWork,
    /// Rows inserted into tables with foreign keys, checked at the end.
    fk_inserted: Vec<(Arc<TableDef>, RowId, Row)>,
    trig: Triggers<'p>,
    tree: Option<TreeRun<'p>>,
}

impl<'p> Run<'p> {
    /// The target's part of the input row: its columns, system columns
    /// and, for a tree, `tableoid`.
    fn target_width(&self) -> usize {
        self.p.table.columns.len() + SYS_COLS + usize::from(self.tree.is_some())
    }

    /// Drive one row of the join through the WHEN clauses; whether it
    /// wrote a row.
    fn merge_row(
        &mut self,
        mut row: Row,
        ev: &mut Ev,
        sink: &mut dyn RowSink,
    ) -> Result<bool, DbError> {
        let n = self.p.table.columns.len();
        if !row[n + SYS_ROWID].is_null() {
            let done = match self.tree.is_some() {
                true => self.matched_member_row(&mut row, ev, sink)?,
                false => self.matched_row(&mut row, ev, sink)?,
            };
            if let Some(done) = done {
                return Ok(done);
            }
            // No longer matched: the target's side is NULL.
            let w = self.target_width();
            for v in &mut row[..w] {
                *v = Value::Null;
            }
        }
        self.not_matched_row(&row, ev)
    }

    /// Row-level security: the target row must pass the UPDATE (DELETE)
    /// policies' USING before an action changes it.
    fn check_target(&self, delete: bool, row: &[Value], ev: &mut Ev) -> Result<(), DbError> {
        if let Some(r) = &self.p.rls {
            let using = if delete {
                &r.delete_target
            } else {
                &r.update_target
            };
            let n = self.p.table.columns.len();
            modify::check_policies(&self.p.table, using, &row[..n], ev)?;
        }
        Ok(())
    }

    /// The WHEN MATCHED clauses on a matched row: Some(whether it wrote),
    /// or None when the row turned out not to match any more.
    fn matched_row(
        &mut self,
        row: &mut Row,
        ev: &mut Ev,
        sink: &mut dyn RowSink,
    ) -> Result<Option<bool>, DbError> {
        let mut recheck = Recheck::Snapshot;
        loop {
            let Some(i) = first_holding(&self.p.matched, row, ev)? else {
                return Ok(Some(false));
            };
            let Prepared::Modify(mp) = &self.matched[i] else {
                return Ok(Some(false));
            };
            self.check_target(mp.delete, row, ev)?;
            let firing = match mp.delete {
                false => self.trig.update.as_mut(),
                true => self.trig.delete.as_mut(),
            };
            let r = modify::write_row(
                mp,
                row,
                ev,
                sink,
                firing,
                &mut self.fk,
                recheck,
                Epq::Return,
                None,
            )?;
            match r {
                Written::Yes => return Ok(Some(true)),
                Written::Skipped => return Ok(Some(false)),
                Written::SelfModified => return Err(affect_row_twice()),
                Written::Gone => return Ok(None),
                Written::Changed => {
                    if !self.p.recheck.test(row, ev)? {
                        return Ok(None);
                    }
                    recheck = Recheck::Latest;
                }
            }
        }
    }

    /// [`Run::matched_row`] for a tree target: the row is written in the
    /// member it comes from (`crate::members`).
    fn matched_member_row(
        &mut self,
        row: &mut Row,
        ev: &mut Ev,
        sink: &mut dyn RowSink,
    ) -> Result<Option<bool>, DbError> {
        let Some(tr) = self.tree.as_mut() else {
            return Ok(None);
        };
        let m = tr.tree.member_of(row)?;
        let offset = tr.tree.extend(m, row, ev)?;
        let r = self.matched_member_loop(m, offset, row, ev, sink);
        row.truncate(offset);
        r
    }

    fn matched_member_loop(
        &mut self,
        m: usize,
        offset: usize,
        row: &mut Row,
        ev: &mut Ev,
        sink: &mut dyn RowSink,
    ) -> Result<Option<bool>, DbError> {
        let p = self.p;
        let mut recheck = Recheck::Snapshot;
        loop {
            let Some(a) = first_holding(&p.matched, row, ev)? else {
                return Ok(Some(false));
            };
            let (sets, delete) = match &p.matched[a].kind {
                MergeKind::Update(sets) => (&sets[..], false),
                MergeKind::Delete => (&[][..], true),
                _ => return Ok(Some(false)),
            };
            self.check_target(delete, row, ev)?;
            let Some(tr) = self.tree.as_mut() else {
                return Ok(None);
            };
            if tr.plans[a][m].is_none() {
                tr.plans[a][m] = Some(tr.tree.plan(m, sets, delete, offset)?);
            }
            let (writes, named) = match delete {
                false => (&mut tr.update[m], self.trig.update.as_ref()),
                true => (&mut tr.delete[m], self.trig.delete.as_ref()),
            };
            if writes.is_none() {
                let cols = p.set_columns();
                let made = MemberWrites::new(&tr.tree, (m, delete), &cols, named, false, ev)?;
                *writes = Some(made);
            }
            let (Some(plan), Some(w)) = (tr.plans[a][m].as_ref(), writes.as_mut()) else {
                return Ok(None);
            };
            let n = p.table.columns.len();
            let old = (!delete).then(|| row[..n].to_vec());
            let r = w.write(
                plan,
                (&tr.tree, m, offset),
                row,
                &mut tr.inserts,
                recheck,
                ev,
                sink,
            )?;
            let moved = w.moved();
            match r {
                Written::Yes => {
                    if let (true, Some(old)) = (moved, old) {
                        self.capture_moved(&old, &row[..n], ev)?;
                    }
                    return Ok(Some(true));
                }
                Written::Skipped => return Ok(Some(false)),
                Written::SelfModified => return Err(affect_row_twice()),
                Written::Gone => return Ok(None),
                Written::Changed => {
                    if !p.recheck.test(row, ev)? {
                        return Ok(None);
                    }
                    recheck = Recheck::Latest;
                }
            }
        }
    }

    /// A row an UPDATE action moved to another partition is, in the
    /// target's transition tables, a deleted row and an inserted one (as
    /// PostgreSQL 15's MERGE keeps it), each kept when the statement
    /// fires that event's triggers.
    fn capture_moved(&mut self, old: &[Value], new: &[Value], ev: &mut Ev) -> Result<(), DbError> {
        if let Some(f) = self.trig.delete.as_mut().filter(|f| f.captures()) {
            let old = f.live(old);
            f.capture_row(Some(&old), None, ev)?;
        }
        if let Some(f) = self.trig.insert.as_mut().filter(|f| f.captures()) {
            let new = f.live(new);
            f.capture_row(None, Some(&new), ev)?;
        }
        Ok(())
    }

    /// The WHEN NOT MATCHED clauses on a source row no target row
    /// matches: whether it inserted a row.
    fn not_matched_row(&mut self, row: &Row, ev: &mut Ev) -> Result<bool, DbError> {
        let Some(i) = first_holding(&self.p.not_matched, row, ev)? else {
            return Ok(false);
        };
        let (Prepared::Insert(ip), MergeKind::Insert { values, .. }) =
            (&self.not_matched[i], &self.p.not_matched[i].kind)
        else {
            return Ok(false);
        };
        let mut vals = Vec::with_capacity(values.len());
        for e in values {
            vals.push(e.eval(row, ev)?);
        }
        let t = &ip.table;
        let new = modify::build_row(t, &ip.targets, &ip.defaults, vals, ev)?;
        if let Some(route) = self.p.members.as_ref().and_then(|m| m.route.as_ref()) {
            return self.insert_routed(route, new, ev);
        }
        let mut new = match self.trig.insert.as_ref() {
            Some(f) => match f.before_insert(new, ip.part_check.as_ref(), ev)? {
                Some(r) => r,
                None => return Ok(false),
            },
            None => new,
        };
        modify::check_row(t, &ip.checks, &mut new, ev)?;
        modify::check_partition(t, ip.part_check.as_ref(), &new, ev)?;
        let rid = modify::store_row(t, &new, ev)?;
        if !t.foreign_keys.is_empty() {
            self.fk_inserted.push((t.clone(), rid, new.clone()));
        }
        if let Some(f) = self.trig.insert.as_mut() {
            let live = f.live(&new);
            f.after_row(None, Some(live), ev)?;
        }
        Ok(true)
    }

    /// A new row of a partitioned target, routed to its leaf as INSERT
    /// routes it (the leaf's checks and row triggers), once it passes
    /// the target's row-level security policies.
    fn insert_routed(&mut self, route: &Routing, new: Row, ev: &mut Ev) -> Result<bool, DbError> {
        let p = self.p;
        if let Some(r) = &p.rls {
            modify::check_policies(&p.table, &r.insert_checks, &new, ev)?;
        }
        let inserts = self.tree.as_mut().and_then(|t| t.inserts.as_mut());
        let Some((leaf, rid, written)) = modify::insert_routed(route, new, inserts, ev)? else {
            return Ok(false);
        };
        if let Some(f) = self.trig.insert.as_mut() {
            modify::capture_routed(f, route, leaf, &written, ev)?;
        }
        let table = &route.leaves[leaf].table;
        if !table.foreign_keys.is_empty() {
            self.fk_inserted.push((table.clone(), rid, written));
        }
        Ok(true)
    }
}

/// The first clause whose condition holds on `row`.
fn first_holding(
    actions: &[MergeAction],
    row: &[Value],
    ev: &mut Ev,
) -> Result<Option<usize>, DbError> {
    for (i, a) in actions.iter().enumerate() {
        match &a.cond {
            Some(c) if !c.test(row, ev)? => {}
            _ => return Ok(Some(i)),
        }
    }
    Ok(None)
}
