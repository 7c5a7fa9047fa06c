//! Firing triggers around INSERT, UPDATE, DELETE and TRUNCATE.
//!
//! A statement that changes a table with triggers makes one [`Firing`]
//! for its event; a table without triggers for the event makes none, so
//! the statement's row loop pays one branch. The order is PostgreSQL's:
//!
//! ```text
//!   BEFORE STATEMENT triggers                       (once, name order)
//!   for each row:
//!     BEFORE ROW triggers: each gets the row its predecessor returned;
//!       NULL skips the row (nothing written, no AFTER event)
//!     the write (constraints checked on the row the triggers returned)
//!     AFTER ROW event queued: (OLD, NEW) as written
//!   AFTER ROW triggers, event by event              (the statement's
//!     changes are all in place and visible to them)
//!   AFTER STATEMENT triggers
//! ```
//!
//! A trigger fires when its event matches, for UPDATE OF columns when the
//! statement's SET names one of them, and when its WHEN condition (planned
//! once per statement, NEW and OLD as parameters) is true. The trigger
//! function runs through `crate::ROUTINES.trigger` (PL/pgSQL), as its own
//! commands with its own snapshots; a BEFORE ROW UPDATE or DELETE trigger
//! fires after the row is locked, on its newest version, so it fires once
//! per row even when a concurrent writer made the statement re-check it.
//!
//! A view's INSTEAD OF row triggers run in the same frame
//! (`exec_instead` in modify.rs): BEFORE STATEMENT triggers of the view,
//! then per row the INSTEAD OF triggers in name order (each gets the row
//! its predecessor returned; NULL skips the row: not counted, no
//! RETURNING row), then AFTER STATEMENT triggers. A view's statement
//! triggers fire only then, as in PostgreSQL (a write through an
//! automatically updatable view fires its base table's).
//!
//! A partitioned table's row triggers fire as their clones in the
//! partitions (`ddl/trigger.rs`): a routed INSERT or COPY fires the
//! leaf's (`LeafTriggers`), a row an UPDATE moves between partitions
//! fires the source's DELETE and the destination's INSERT triggers
//! (`modify::MoveTriggers`), and the AFTER ROW events of all of them are
//! fired at the statement's end in the order they were queued
//! ([`fire_in_order`]). A trigger fires only as its enabled state
//! (ENABLE / DISABLE TRIGGER) and session_replication_role allow.
//!
//! Transition tables (REFERENCING OLD/NEW TABLE): a Firing whose armed
//! AFTER triggers name one keeps the statement's old and/or new rows
//! ([`Capture`]; none otherwise, so a written row costs one branch), a
//! descendant's Firing keeps them in the named table's layout for it
//! ([`Firing::for_descendant`], [`Firing::absorb`]), and AFTER ROW and
//! AFTER STATEMENT calls pass them (`TriggerCall::transition`). The
//! trigger function reads them by name (`plpgsql`, `Plan::EphemeralScan`).
//! PostgreSQL shares them, and fires statement triggers once, per table
//! and event across a query level (WITH items writing one table, foreign
//! key actions); here each statement keeps its own.
//!
//! Left out: constraint triggers (0A000). INSERT ...
//! ON CONFLICT DO UPDATE fires INSERT and UPDATE triggers as PostgreSQL:
//! BEFORE INSERT statement then BEFORE UPDATE statement; per row BEFORE
//! INSERT, then on a conflict BEFORE UPDATE on the locked existing row;
//! AFTER ROW events in row order; AFTER UPDATE statement, then AFTER
//! INSERT statement (into a partitioned table, the leaves' row
//! triggers and the named table's statement triggers). COPY FROM fires INSERT
//! triggers as INSERT does (`modify::copy_insert`). The AFTER
//! ROW queue holds the statement's changed rows in memory, as PostgreSQL's
//! does.

use std::sync::Arc;

use nestor_catalog::{FunctionDef, Returns, TableDef, TriggerDef, TriggerTiming, ViewDef};
use nestor_common::{DbError, RelId, SqlState};
use nestor_plan::ir::{Expr, Plan};
use nestor_plan::select::partition::{PartCheck, Routing};
use nestor_plan::PlannedStmt;
use nestor_types::datatype::DataType;
use nestor_types::Value;

use crate::context::{Ev, Transition, TransitionRows, TriggerCall};

/// The event a statement fires triggers for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    Insert,
    Update,
    Delete,
    Truncate,
}

impl Event {
    fn bit(self) -> u8 {
        match self {
            Event::Insert => nestor_catalog::TRIGGER_INSERT,
            Event::Update => nestor_catalog::TRIGGER_UPDATE,
            Event::Delete => nestor_catalog::TRIGGER_DELETE,
            Event::Truncate => nestor_catalog::TRIGGER_TRUNCATE,
        }
    }

    fn op(self) -> &'static str {
        match self {
            Event::Insert => "INSERT",
            Event::Update => "UPDATE",
            Event::Delete => "DELETE",
            Event::Truncate => "TRUNCATE",
        }
    }
}

/// One trigger that applies to the statement, with what firing it needs.
struct Armed<'t> {
    def: &'t TriggerDef,
    function: Arc<FunctionDef>,
    /// The WHEN condition, planned over (NEW columns, OLD columns).
    when: Option<Expr>,
}

/// An AFTER ROW event: the triggers (indexes into `triggers`) and (OLD,
/// NEW).
pub(crate) struct Queued {
    /// Its place among all events queued (`NEXT_EVENT`): a statement
    /// that fires several Firings (partitions, rows moved between them)
    /// fires their events merged in this order, as PostgreSQL's one
    /// after-trigger queue does.
    seq: u64,
    which: Vec<usize>,
    old: Option<Vec<Value>>,
    new: Option<Vec<Value>>,
}

/// The next AFTER ROW event's sequence number.
static NEXT_EVENT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The triggers one statement fires.
pub(crate) struct Firing<'t> {
    /// The table or view fired on (TG_RELID, TG_TABLE_NAME).
    rel_oid: RelId,
    rel_name: &'t str,
    /// Columns of its rows (a table's with dropped ones).
    width: usize,
    event: Event,
    cols: Arc<Vec<(String, DataType)>>,
    /// Positions of the live columns in a table row.
    live: Vec<usize>,
    /// Stored generated columns (positions among the live columns): a
    /// BEFORE ROW trigger's change to one is dropped before the next
    /// trigger sees the row, as PostgreSQL does; the write computes them.
    generated: Vec<usize>,
    triggers: Vec<Armed<'t>>,
    /// AFTER ROW events: the triggers (indexes into `triggers`) whose WHEN
    /// held when the row was written, (OLD, NEW) in live columns.
    queued: Vec<Queued>,
    /// The statement's rows for transition tables (None: no trigger has
    /// any, and a written row costs nothing more).
    capture: Option<Box<Capture>>,
}

/// The rows a statement changed, kept for its AFTER triggers' transition
/// tables (REFERENCING OLD/NEW TABLE): old versions when a trigger names
/// OLD TABLE, new ones when one names NEW TABLE, in the live columns of
/// the table the statement named. A descendant's Firing (a partition or
/// inheritance child in a statement on its parent) keeps them in the
/// named table's layout (`map`) and hands them up (`Firing::absorb`).
struct Capture {
    old: Option<TransitionRows>,
    new: Option<TransitionRows>,
    /// Per live column of the named table, its position among this
    /// Firing's live columns (None: the named table is this one).
    map: Option<Vec<Option<usize>>>,
}

impl Capture {
    /// A capture for `triggers` (None when none has transition tables).
    fn of(triggers: &[&TriggerDef]) -> Option<Box<Capture>> {
        let wants = |f: fn(&TriggerDef) -> bool| {
            triggers
                .iter()
                .any(|t| t.timing == TriggerTiming::After && f(t))
                .then(TransitionRows::default)
        };
        let old = wants(|t| t.old_table.is_some());
        let new = wants(|t| t.new_table.is_some());
        (old.is_some() || new.is_some()).then(|| {
            Box::new(Capture {
                old,
                new,
                map: None,
            })
        })
    }

    fn add(
        &mut self,
        old: Option<&[Value]>,
        new: Option<&[Value]>,
        ev: &mut Ev,
    ) -> Result<(), DbError> {
        for (rows, row) in [(&mut self.old, old), (&mut self.new, new)] {
            let (Some(rows), Some(row)) = (rows, row) else {
                continue;
            };
            let row: Vec<Value> = match &self.map {
                None => row.to_vec(),
                Some(map) => map
                    .iter()
                    .map(|i| i.map_or(Value::Null, |i| row[i].clone()))
                    .collect(),
            };
            ev.mem
                .charge(crate::workmem::entry_bytes(&row), "transition table")?;
            Arc::make_mut(rows).push(row);
        }
        Ok(())
    }
}

impl<'t> Firing<'t> {
    /// The triggers of `table` for `event`; None when there are none.
    /// `set_columns`: the columns an UPDATE's SET names (UPDATE OF).
    pub(crate) fn new(
        table: &'t TableDef,
        event: Event,
        set_columns: &[usize],
        ev: &mut Ev,
    ) -> Result<Option<Firing<'t>>, DbError> {
        if table.triggers.is_empty() {
            return Ok(None);
        }
        // UPDATE OF a generated column fires when a column it reads is
        // set (the SQL standard's rule, as PostgreSQL applies it).
        let mut with_generated;
        let mut set_columns = set_columns;
        if event == Event::Update && !set_columns.is_empty() {
            with_generated = set_columns.to_vec();
            for &c in set_columns {
                let deps = nestor_plan::modify::generated_dependents(
                    ev.ctx.catalog,
                    ev.ctx.eval,
                    table,
                    c,
                )?;
                with_generated.extend(deps.into_iter().filter(|d| !set_columns.contains(d)));
            }
            set_columns = &with_generated;
        }
        // A partitioned table's row triggers fire as their clones in the
        // partitions a row is written to.
        let partitioned = table.partition_key.is_some();
        let replica = replica_role(ev);
        let applies = |t: &TriggerDef| {
            !(partitioned && t.row)
                && t.enabled.fires(replica)
                && t.events & event.bit() != 0
                && (event != Event::Update
                    || t.columns.is_empty()
                    || t.columns.iter().any(|c| {
                        table
                            .column_index(c)
                            .is_some_and(|i| set_columns.contains(&i))
                    }))
        };
        let chosen: Vec<&TriggerDef> = table.triggers.iter().filter(|t| applies(t)).collect();
        if chosen.is_empty() {
            return Ok(None);
        }
        let live: Vec<usize> = table.live_columns().map(|(i, _)| i).collect();
        let cols: Vec<(String, DataType)> = table
            .live_columns()
            .map(|(_, c)| (c.name.clone(), c.ty))
            .collect();
        let triggers = arm(&chosen, &cols, ev)?;
        let capture = Capture::of(&chosen);
        let generated = live
            .iter()
            .enumerate()
            .filter(|(_, &i)| table.columns[i].generated)
            .map(|(k, _)| k)
            .collect();
        Ok(Some(Firing {
            rel_oid: table.oid,
            rel_name: &table.name,
            width: table.columns.len(),
            event,
            cols: Arc::new(cols),
            live,
            generated,
            triggers,
            queued: Vec::new(),
            capture,
        }))
    }

    /// The Firing of descendant `table` (a partition, an inheritance
    /// child) in a statement on `named`, whose Firing it is: its own
    /// triggers, and when `named` keeps transition tables, the rows
    /// written here for them, in `named`'s layout (hand them up with
    /// [`Firing::absorb`]).
    pub(crate) fn for_descendant(
        table: &'t TableDef,
        event: Event,
        set_columns: &[usize],
        named: Option<&Firing>,
        ev: &mut Ev,
    ) -> Result<Option<Firing<'t>>, DbError> {
        let own = Firing::new(table, event, set_columns, ev)?.map(Firing::descendant);
        let Some(cap) = named.and_then(|n| n.capture.as_ref().map(|c| (n, c))) else {
            return Ok(own);
        };
        let (named, cap) = cap;
        let mut f = match own {
            Some(f) => f,
            None => Firing {
                rel_oid: table.oid,
                rel_name: &table.name,
                width: table.columns.len(),
                event,
                cols: Arc::new(
                    table
                        .live_columns()
                        .map(|(_, c)| (c.name.clone(), c.ty))
                        .collect(),
                ),
                live: table.live_columns().map(|(i, _)| i).collect(),
                generated: Vec::new(),
                triggers: Vec::new(),
                queued: Vec::new(),
                capture: None,
            },
        };
        let map = named
            .cols
            .iter()
            .map(|(n, _)| f.cols.iter().position(|(c, _)| c == n))
            .collect();
        f.capture = Some(Box::new(Capture {
            old: cap.old.as_ref().map(|_| TransitionRows::default()),
            new: cap.new.as_ref().map(|_| TransitionRows::default()),
            map: Some(map),
        }));
        Ok(Some(f))
    }

    /// As the Firing of a descendant of the table a statement names: its
    /// statement triggers do not fire, and its row triggers have no
    /// transition tables (CREATE TRIGGER, ATTACH PARTITION and INHERIT
    /// refuse them), so it keeps no rows of its own.
    pub(crate) fn descendant(mut self) -> Self {
        self.capture = None;
        self
    }

    /// Whether it keeps rows for transition tables.
    pub(crate) fn captures(&self) -> bool {
        self.capture.is_some()
    }

    /// Keep a row (live columns) for the transition tables only, with no
    /// AFTER ROW event: a row written to a descendant whose triggers do
    /// not fire for it (a row an UPDATE moved between partitions, one
    /// routed to a partition).
    pub(crate) fn capture_row(
        &mut self,
        old: Option<&[Value]>,
        new: Option<&[Value]>,
        ev: &mut Ev,
    ) -> Result<(), DbError> {
        match &mut self.capture {
            Some(c) => c.add(old, new, ev),
            None => Ok(()),
        }
    }

    /// Take over the rows a descendant's Firing kept for this one's
    /// transition tables ([`Firing::for_descendant`]).
    pub(crate) fn absorb(&mut self, child: &mut Firing) {
        let (Some(mine), Some(theirs)) = (&mut self.capture, &mut child.capture) else {
            return;
        };
        for (to, from) in [
            (&mut mine.old, &mut theirs.old),
            (&mut mine.new, &mut theirs.new),
        ] {
            if let (Some(to), Some(from)) = (to, from) {
                let rows = std::mem::take(Arc::make_mut(from));
                Arc::make_mut(to).extend(rows);
            }
        }
    }

    /// The triggers of view `view` for `event` (its INSTEAD OF row
    /// triggers and statement triggers); None when there are none.
    /// `set_columns`: the view columns an UPDATE's SET names.
    pub(crate) fn for_view(
        view: &'t ViewDef,
        event: Event,
        set_columns: &[usize],
        ev: &mut Ev,
    ) -> Result<Option<Firing<'t>>, DbError> {
        let replica = replica_role(ev);
        let applies = |t: &TriggerDef| {
            t.enabled.fires(replica)
                && t.events & event.bit() != 0
                && (event != Event::Update
                    || t.columns.is_empty()
                    || t.columns.iter().any(|c| {
                        view.columns
                            .iter()
                            .position(|(n, _)| n == c)
                            .is_some_and(|i| set_columns.contains(&i))
                    }))
        };
        let chosen: Vec<&TriggerDef> = view.triggers.iter().filter(|t| applies(t)).collect();
        if chosen.is_empty() {
            return Ok(None);
        }
        let cols = view.columns.clone();
        let triggers = arm(&chosen, &cols, ev)?;
        Ok(Some(Firing {
            rel_oid: view.oid,
            rel_name: &view.name,
            width: cols.len(),
            event,
            live: (0..cols.len()).collect(),
            generated: Vec::new(),
            cols: Arc::new(cols),
            triggers,
            queued: Vec::new(),
            capture: None,
        }))
    }

    /// The INSTEAD OF row triggers on one row of a view: the row they
    /// returned (DELETE: `old`), or None when one returned NULL (the row
    /// is skipped).
    pub(crate) fn instead_row(
        &self,
        old: Option<&[Value]>,
        new: Option<Vec<Value>>,
        ev: &mut Ev,
    ) -> Result<Option<Vec<Value>>, DbError> {
        self.row_triggers(TriggerTiming::Instead, old, new, ev)
    }

    /// Whether BEFORE ROW triggers fire (UPDATE and DELETE then lock the
    /// row before firing them).
    pub(crate) fn has_before_row(&self) -> bool {
        self.triggers
            .iter()
            .any(|t| t.def.row && t.def.timing == TriggerTiming::Before)
    }

    /// A table row's live columns.
    pub(crate) fn live(&self, row: &[Value]) -> Vec<Value> {
        self.live.iter().map(|&i| row[i].clone()).collect()
    }

    /// Live columns back into a table row (dropped columns NULL).
    pub(crate) fn full(&self, live: Vec<Value>) -> Vec<Value> {
        let mut row = vec![Value::Null; self.width];
        for (&i, v) in self.live.iter().zip(live) {
            row[i] = v;
        }
        row
    }

    /// A table row about to be inserted, through the BEFORE ROW INSERT
    /// triggers (if any): the row to write, or None when one returned NULL
    /// (the row is skipped).
    ///
    /// `part`: the partition constraint when the table is a partition. A
    /// trigger cloned from the partitioned parent may not change the row
    /// so that it leaves the partition (0A000, PostgreSQL's
    /// ExecBRInsertTriggers); for the table's own triggers the write's
    /// partition check applies.
    pub(crate) fn before_insert(
        &self,
        row: Vec<Value>,
        part: Option<&PartCheck>,
        ev: &mut Ev,
    ) -> Result<Option<Vec<Value>>, DbError> {
        if !self.has_before_row() {
            return Ok(Some(row));
        }
        let mut cur = self.live(&row);
        for t in &self.triggers {
            if !(t.def.row && t.def.timing == TriggerTiming::Before) {
                continue;
            }
            if !self.when_holds(t, None, Some(&cur), ev)? {
                continue;
            }
            let Some(mut r) = self.fire(t, "ROW", None, Some(cur.clone()), ev)? else {
                return Ok(None);
            };
            self.drop_generated(&mut r);
            if let (Some(c), Some(_)) = (part, t.def.parent) {
                let full = self.full(r.clone());
                use crate::executor::eval::Eval;
                if r != cur && !c.holds(&full, &mut |e, row| e.eval(row, ev))? {
                    return Err(self.moved_out(&t.def.name, ev));
                }
            }
            cur = r;
        }
        Ok(Some(self.full(cur)))
    }

    /// A BEFORE ROW trigger's change to a stored generated column is
    /// dropped before the next trigger sees the row (the write computes
    /// them), as PostgreSQL does.
    fn drop_generated(&self, row: &mut [Value]) {
        for &k in &self.generated {
            if let Some(v) = row.get_mut(k) {
                *v = Value::Null;
            }
        }
    }

    fn moved_out(&self, trigger: &str, ev: &Ev) -> DbError {
        let schema = ev
            .ctx
            .catalog
            .table_by_oid(self.rel_oid)
            .and_then(|t| ev.ctx.catalog.schema_name(t.namespace))
            .unwrap_or_else(|| "public".into());
        DbError::new(
            SqlState::FeatureNotSupported,
            "moving row to another partition during a BEFORE FOR EACH ROW trigger is not supported",
        )
        .with_detail(format!(
            "Before executing trigger \"{trigger}\", the row was to be in partition \"{schema}.{}\".",
            self.rel_name
        ))
    }

    pub(crate) fn before_statement(&self, ev: &mut Ev) -> Result<(), DbError> {
        self.fire_statement(TriggerTiming::Before, ev)
    }

    /// Queued AFTER ROW triggers, then AFTER STATEMENT triggers.
    pub(crate) fn after_statement(&mut self, ev: &mut Ev) -> Result<(), DbError> {
        self.after_rows(ev)?;
        self.fire_statement(TriggerTiming::After, ev)
    }

    /// Queued AFTER ROW triggers only (a descendant's rows in a statement
    /// on its inheritance parent, whose statement triggers do not fire).
    pub(crate) fn after_rows(&mut self, ev: &mut Ev) -> Result<(), DbError> {
        for q in std::mem::take(&mut self.queued) {
            self.fire_queued(q, ev)?;
        }
        Ok(())
    }

    /// The AFTER ROW events queued so far, taken out: a MERGE keeps its
    /// events of all kinds in one queue, in row order, as PostgreSQL's
    /// after-trigger queue does.
    pub(crate) fn take_queued(&mut self) -> Vec<Queued> {
        std::mem::take(&mut self.queued)
    }

    /// Fire one AFTER ROW event taken out with [`Firing::take_queued`].
    pub(crate) fn fire_queued(
        &self,
        Queued {
            which, old, new, ..
        }: Queued,
        ev: &mut Ev,
    ) -> Result<(), DbError> {
        for i in which {
            self.fire(&self.triggers[i], "ROW", old.clone(), new.clone(), ev)?;
        }
        Ok(())
    }

    fn fire_statement(&self, timing: TriggerTiming, ev: &mut Ev) -> Result<(), DbError> {
        for t in &self.triggers {
            if !t.def.row && t.def.timing == timing {
                self.fire(t, "STATEMENT", None, None, ev)?;
            }
        }
        Ok(())
    }

    /// BEFORE ROW triggers on one row (live columns): the row to write, or
    /// None when one returned NULL. `old` is the row as it was (UPDATE,
    /// DELETE); `new` the proposed one (INSERT, UPDATE; for DELETE the
    /// result only says whether to go on).
    pub(crate) fn before_row(
        &self,
        old: Option<&[Value]>,
        new: Option<Vec<Value>>,
        ev: &mut Ev,
    ) -> Result<Option<Vec<Value>>, DbError> {
        self.row_triggers(TriggerTiming::Before, old, new, ev)
    }

    /// The BEFORE or INSTEAD OF row triggers, in name order.
    fn row_triggers(
        &self,
        timing: TriggerTiming,
        old: Option<&[Value]>,
        new: Option<Vec<Value>>,
        ev: &mut Ev,
    ) -> Result<Option<Vec<Value>>, DbError> {
        let mut cur = new;
        for t in &self.triggers {
            if !(t.def.row && t.def.timing == timing) {
                continue;
            }
            if !self.when_holds(t, old, cur.as_deref(), ev)? {
                continue;
            }
            let returned = self.fire(t, "ROW", old.map(<[Value]>::to_vec), cur.clone(), ev)?;
            match returned {
                None => return Ok(None),
                Some(mut r) => {
                    if self.event != Event::Delete {
                        self.drop_generated(&mut r);
                        cur = Some(r);
                    }
                }
            }
        }
        Ok(Some(match (self.event, cur) {
            (Event::Delete, _) | (_, None) => old.map(<[Value]>::to_vec).unwrap_or_default(),
            (_, Some(r)) => r,
        }))
    }

    /// Queue the AFTER ROW event of a row written (live columns), for the
    /// triggers whose WHEN holds now.
    pub(crate) fn after_row(
        &mut self,
        old: Option<Vec<Value>>,
        new: Option<Vec<Value>>,
        ev: &mut Ev,
    ) -> Result<(), DbError> {
        if let Some(c) = &mut self.capture {
            c.add(old.as_deref(), new.as_deref(), ev)?;
        }
        let mut which = Vec::new();
        for (i, t) in self.triggers.iter().enumerate() {
            if t.def.row
                && t.def.timing == TriggerTiming::After
                && self.when_holds(t, old.as_deref(), new.as_deref(), ev)?
            {
                which.push(i);
            }
        }
        if !which.is_empty() {
            let seq = NEXT_EVENT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.queued.push(Queued {
                seq,
                which,
                old,
                new,
            });
        }
        Ok(())
    }

    fn when_holds(
        &self,
        t: &Armed,
        old: Option<&[Value]>,
        new: Option<&[Value]>,
        ev: &mut Ev,
    ) -> Result<bool, DbError> {
        let Some(cond) = &t.when else {
            return Ok(true);
        };
        let n = self.cols.len();
        let mut params = Vec::with_capacity(2 * n);
        params.extend(new.map_or_else(|| vec![Value::Null; n], <[Value]>::to_vec));
        params.extend(old.map_or_else(|| vec![Value::Null; n], <[Value]>::to_vec));
        let mut inner = Ev::new(ev.ctx, &params);
        use crate::executor::eval::Eval;
        Ok(matches!(cond.eval(&[], &mut inner)?, Value::Bool(true)))
    }

    fn fire(
        &self,
        t: &Armed,
        level: &'static str,
        old: Option<Vec<Value>>,
        new: Option<Vec<Value>>,
        ev: &mut Ev,
    ) -> Result<Option<Vec<Value>>, DbError> {
        let call = TriggerCall {
            name: &t.def.name,
            when: match t.def.timing {
                TriggerTiming::Before => "BEFORE",
                TriggerTiming::After => "AFTER",
                TriggerTiming::Instead => "INSTEAD OF",
            },
            level,
            op: self.event.op(),
            rel_oid: self.rel_oid,
            rel_name: self.rel_name,
            schema: "public",
            args: &t.def.args,
            cols: self.cols.clone(),
            new,
            old,
            transition: self.transition_of(t.def),
        };
        (crate::ROUTINES.trigger)(&t.function, call, ev.ctx)
    }
}

impl Firing<'_> {
    /// The transition tables trigger `def` names, with the statement's
    /// rows (None: it names none; an AFTER trigger only).
    fn transition_of(&self, def: &TriggerDef) -> Option<Transition> {
        let cap = self.capture.as_ref()?;
        if !def.has_transition() || def.timing != TriggerTiming::After {
            return None;
        }
        let named = |name: &Option<String>, rows: &Option<TransitionRows>| {
            name.clone().map(|n| (n, rows.clone().unwrap_or_default()))
        };
        Some(Transition {
            old: named(&def.old_table, &cap.old),
            new: named(&def.new_table, &cap.new),
        })
    }
}

/// Whether the session's session_replication_role is replica (which
/// fires the triggers enabled REPLICA and ALWAYS, not the others).
fn replica_role(ev: &Ev) -> bool {
    ev.ctx.settings.get("session_replication_role") == Some("replica")
}

/// The chosen triggers with their functions and planned WHEN conditions.
fn arm<'t>(
    chosen: &[&'t TriggerDef],
    cols: &[(String, DataType)],
    ev: &mut Ev,
) -> Result<Vec<Armed<'t>>, DbError> {
    let mut triggers = Vec::with_capacity(chosen.len());
    for &def in chosen {
        let function = ev
            .ctx
            .catalog
            .function_by_oid(def.function)
            .filter(|f| f.returns == Returns::Trigger)
            .ok_or_else(|| {
                DbError::new(
                    SqlState::UndefinedFunction,
                    format!(
                        "function with OID {} of trigger \"{}\" does not exist",
                        def.function.0, def.name
                    ),
                )
            })?;
        let when = match &def.when {
            Some(text) => Some(plan_when(text, cols, ev)?),
            None => None,
        };
        triggers.push(Armed {
            def,
            function,
            when,
        });
    }
    Ok(triggers)
}

/// Fire the statement-level triggers of TRUNCATE.
pub(crate) fn truncate(
    table: &TableDef,
    timing: TriggerTiming,
    ev: &mut Ev,
) -> Result<(), DbError> {
    let Some(f) = Firing::new(table, Event::Truncate, &[], ev)? else {
        return Ok(());
    };
    match timing {
        TriggerTiming::Before => f.before_statement(ev),
        TriggerTiming::After | TriggerTiming::Instead => f.fire_statement(TriggerTiming::After, ev),
    }
}

/// NEW.x and OLD.x as parameters: NEW's columns are $1..$n, OLD's follow.
pub(crate) struct WhenVars<'c> {
    pub cols: &'c [(String, DataType)],
}

impl nestor_plan::bind::VarResolver for WhenVars<'_> {
    fn resolve(&self, parts: &[&str]) -> Result<Option<(usize, DataType)>, DbError> {
        let [rec, col] = parts else {
            return Ok(None);
        };
        let base = match *rec {
            "new" => 0,
            "old" => self.cols.len(),
            _ => return Ok(None),
        };
        Ok(self
            .cols
            .iter()
            .position(|(n, _)| n == col)
            .map(|i| (base + i, self.cols[i].1)))
    }
}

/// Plan a WHEN condition to a boolean expression over NEW and OLD.
fn plan_when(text: &str, cols: &[(String, DataType)], ev: &mut Ev) -> Result<Expr, DbError> {
    let sql = format!("SELECT ({text})::boolean");
    let stmts = nestor_parser::parse_sql(&sql)?;
    let [stmt] = stmts.as_slice() else {
        return Err(DbError::internal("trigger WHEN condition"));
    };
    let mut hints: Vec<u32> = cols.iter().map(|(_, t)| t.oid()).collect();
    hints.extend(cols.iter().map(|(_, t)| t.oid()));
    let vars = WhenVars { cols };
    let planned = nestor_plan::statement::plan_statement_with(
        ev.ctx.catalog,
        ev.ctx.eval,
        &sql,
        stmt,
        &hints,
        Some(&vars),
    )?;
    match &planned.stmt {
        PlannedStmt::Query(Plan::Project { input, exprs })
            if matches!(input.as_ref(), Plan::Single) && exprs.len() == 1 =>
        {
            Ok(exprs[0].clone())
        }
        _ => Err(DbError::new(
            SqlState::FeatureNotSupported,
            "a trigger WHEN condition with a subquery is not supported",
        )),
    }
}

/// A leaf's INSERT triggers and partition constraint (None: it has no
/// INSERT triggers).
type LeafFiring<'r> = Option<(Firing<'r>, Option<PartCheck>)>;

/// The row triggers of the partitions a partitioned-table INSERT (or
/// COPY) routes rows to: each leaf's armed when a row first reaches it;
/// its BEFORE ROW triggers fire on the row in the leaf's layout (and may
/// not move it out, `Firing::before_insert`); the AFTER ROW events of all
/// leaves wait in one queue in row order, fired when the statement's rows
/// are all written, as PostgreSQL's after-trigger queue does.
pub(crate) struct LeafTriggers<'r> {
    routing: &'r Routing,
    /// Per leaf: not yet armed, or its Firing (None: no INSERT triggers)
    /// and partition constraint.
    armed: Vec<Option<LeafFiring<'r>>>,
    queue: Vec<(usize, Queued)>,
}

impl<'r> LeafTriggers<'r> {
    /// None when no leaf has a trigger (the routed write then pays
    /// nothing).
    pub(crate) fn new(routing: &'r Routing) -> Option<LeafTriggers<'r>> {
        if routing.leaves.iter().all(|l| l.table.triggers.is_empty()) {
            return None;
        }
        Some(LeafTriggers {
            routing,
            armed: routing.leaves.iter().map(|_| None).collect(),
            queue: Vec::new(),
        })
    }

    fn arm(&mut self, leaf: usize, ev: &mut Ev) -> Result<(), DbError> {
        if self.armed[leaf].is_none() {
            let table = &self.routing.leaves[leaf].table;
            let armed = match Firing::new(table, Event::Insert, &[], ev)?.map(Firing::descendant) {
                Some(f) => {
                    let check = PartCheck::of(ev.ctx.catalog, ev.ctx.eval, table, None)?;
                    Some((f, check))
                }
                None => None,
            };
            self.armed[leaf] = Some(armed);
        }
        Ok(())
    }

    /// A row routed to `leaf` (in its layout) through the leaf's BEFORE
    /// ROW INSERT triggers: the row to write, or None when one returned
    /// NULL.
    pub(crate) fn before(
        &mut self,
        leaf: usize,
        row: Vec<Value>,
        ev: &mut Ev,
    ) -> Result<Option<Vec<Value>>, DbError> {
        self.arm(leaf, ev)?;
        match &self.armed[leaf] {
            Some(Some((f, check))) => f.before_insert(row, check.as_ref(), ev),
            _ => Ok(Some(row)),
        }
    }

    /// The partition constraint a row routed to `leaf` must meet again
    /// once its BEFORE ROW triggers ran (they may have changed its key,
    /// PostgreSQL's ExecInsert re-checks it then); None when it has none.
    pub(crate) fn recheck(&self, leaf: usize) -> Option<&PartCheck> {
        match &self.armed[leaf] {
            Some(Some((f, check))) if f.has_before_row() => check.as_ref(),
            _ => None,
        }
    }

    /// Queue the AFTER ROW INSERT event of a row written to `leaf` (in its
    /// layout).
    pub(crate) fn after(&mut self, leaf: usize, row: &[Value], ev: &mut Ev) -> Result<(), DbError> {
        self.arm(leaf, ev)?;
        if let Some(Some((f, _))) = &mut self.armed[leaf] {
            let live = f.live(row);
            f.after_row(None, Some(live), ev)?;
            self.queue
                .extend(f.take_queued().into_iter().map(|q| (leaf, q)));
        }
        Ok(())
    }

    /// The queued AFTER ROW events, in row order.
    pub(crate) fn fire_after(&mut self, ev: &mut Ev) -> Result<(), DbError> {
        fire_in_order(&mut [], std::slice::from_mut(self), ev)
    }
}

/// The AFTER ROW events queued in `firings` and `leaves`, merged in the
/// order they were queued.
pub(crate) fn fire_in_order(
    firings: &mut [&mut Firing],
    leaves: &mut [LeafTriggers],
    ev: &mut Ev,
) -> Result<(), DbError> {
    let mut all: Vec<(&Firing, Queued)> = Vec::new();
    for f in firings.iter_mut() {
        let q = f.take_queued();
        all.extend(q.into_iter().map(|q| (&**f, q)));
    }
    for l in leaves.iter_mut() {
        let queue = std::mem::take(&mut l.queue);
        for (leaf, q) in queue {
            if let Some(Some((f, _))) = &l.armed[leaf] {
                all.push((f, q));
            }
        }
    }
    all.sort_by_key(|(_, q)| q.seq);
    for (f, q) in all {
        f.fire_queued(q, ev)?;
    }
    Ok(())
}
