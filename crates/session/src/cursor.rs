//! SQL cursors: DECLARE, FETCH, MOVE, CLOSE, pg_cursors and WHERE
//! CURRENT OF (what psycopg's named cursors, Django's `.iterator()` and
//! SQLAlchemy's `stream_results` send).
//!
//! A cursor runs its query to completion at DECLARE and keeps the rows
//! (PostgreSQL's cursors are lazy; the rows are the same, as both read the
//! snapshot of DECLARE — an "insensitive" cursor), with a position:
//!
//! ```text
//!   rows  r1 r2 r3          position 0 = before r1, 1..=3 on a row,
//!         ^ pos=1                    4 = after r3
//!   FETCH 2   -> r2 r3, pos=3     FETCH BACKWARD 1 -> r2, pos=2
//! ```
//!
//! Scrolling: the rows are all there, so every direction could work; the
//! cursor refuses backward moves with PostgreSQL's 55000 where PostgreSQL
//! does. NO SCROLL refuses them; SCROLL allows them; without either,
//! PostgreSQL allows them when the plan can run backward
//! (ExecSupportsBackwardScan) and the query locks no rows — Nestor asks its
//! own plan the same question (`Prepared::supports_backward_scan`: scans,
//! VALUES, functions in FROM, sorts and appends can; a SELECT without FROM,
//! joins, aggregation, DISTINCT, window functions and set-returning
//! functions in the select list cannot). A cursor lives until its
//! transaction ends (or a ROLLBACK TO a savepoint older than it); WITH HOLD
//! ones until CLOSE or the session's end, unless their transaction rolls
//! back. The rows are held in memory and counted as query working memory
//! while the cursor lives (a cursor over more than the server can hold
//! fails at DECLARE with 53200). A BINARY cursor's FETCH sends its rows in
//! binary format over the simple protocol (the extended protocol's Bind
//! chooses, as in PostgreSQL).
//!
//! WHERE CURRENT OF: when DECLARE's query is a simply updatable scan of
//! one table (one FROM item, a table or an inheritance tree, no joins,
//! aggregation, DISTINCT or set operations) or locks rows (FOR UPDATE/
//! SHARE), the query runs with each such table's `tableoid` and `ctid`
//! appended to its select list; they are cut off each row and kept beside
//! it ([`Updatable`], [`RowOrigin`]). `UPDATE/DELETE ... WHERE CURRENT OF
//! c` then becomes `WHERE tableoid = <oid> AND ctid = '<ctid>'` of the
//! cursor's current row — a ctid names the logical row in Nestor, so the
//! condition finds the row's newest version, as PostgreSQL's TID scan
//! follows the update chain (an UPDATE twice through the cursor updates
//! the row twice; after a DELETE it is a no-op). PostgreSQL's 24000 errors
//! come from the same facts: no current row, not a simply updatable scan
//! of the table, no or several FOR UPDATE references to it, held from a
//! previous transaction.
//!
//! An error computing the rows (a data exception, an integrity violation,
//! an error a called function raises) does not fail DECLARE of a query
//! with FROM: the rows produced before it are kept with the error, and the
//! FETCH that reads past them raises it, as PostgreSQL's lazy execution
//! meets it (a sorted query's first FETCH); the cursor is then failed, and
//! FETCH after ROLLBACK TO a savepoint that kept it is PostgreSQL's
//! "portal cannot be run". Without FROM the error fails DECLARE, as
//! PostgreSQL's planner folds such expressions (`SELECT 1 / 0`).
//!
//! Left out: a cursor's volatile functions run at DECLARE (PostgreSQL runs
//! them as rows are fetched, so they can see later commands' changes), and
//! a FOR UPDATE cursor locks its rows at DECLARE (PostgreSQL locks each as
//! it is fetched, skipping rows the transaction changed in between);
//! PostgreSQL calls a scan sorted by a Sort node, or under a window
//! function or a set-returning function in the select list, not simply
//! updatable, Nestor accepts it; DECLARE in a SQL function's body is 0A000
//! (the function runs in the executor, the cursors live in the session).
//!
//! PL/pgSQL's cursors are these: its OPEN, FETCH, MOVE and CLOSE reach the
//! table through `StatementCtx::cursors` ([`StatementCursors`]), so a
//! cursor a function opens is fetched from in SQL, and the other way round.

use std::collections::HashMap;
use std::sync::Arc;

use nestor_catalog::{Catalog, Relation};
use nestor_common::memory::Growth;
use nestor_common::{DbError, SqlState};
use nestor_exec::{ColumnDesc, RowSink};
use nestor_parser::ast::{column_ref, string, wrap};
use nestor_parser::pb::{self, node::Node as NodeEnum, Node};
use nestor_types::Value;

/// DECLARE's option bits (PostgreSQL's CURSOR_OPT_*).
pub(crate) const CURSOR_OPT_BINARY: i32 = 0x0001;
pub(crate) const CURSOR_OPT_SCROLL: i32 = 0x0002;
pub(crate) const CURSOR_OPT_NO_SCROLL: i32 = 0x0004;
pub(crate) const CURSOR_OPT_INSENSITIVE: i32 = 0x0008;
pub(crate) const CURSOR_OPT_HOLD: i32 = 0x0020;

/// A declared cursor.
pub(crate) struct Cursor {
    pub columns: Vec<ColumnDesc>,
    pub rows: Vec<Vec<Value>>,
    /// 0: before the first row; rows.len() + 1: after the last.
    pub pos: usize,
    /// Backward moves allowed (see the module header).
    pub scrollable: bool,
    /// WITH HOLD: survives its transaction's commit.
    pub hold: bool,
    pub binary: bool,
    /// The query string the DECLARE came in (pg_cursors.statement).
    pub statement: Arc<str>,
    /// Microseconds since 2000-01-01 UTC.
    pub created_us: i64,
    /// The transaction that declared it (its start time), for the others.
    pub txn_start_us: i64,
    /// The savepoint depth it was declared at (ROLLBACK TO a shallower
    /// one drops it).
    pub savepoint_depth: usize,
    /// What WHERE CURRENT OF can use, and each row's origins.
    pub updatable: Updatable,
    pub origins: Vec<Vec<Option<RowOrigin>>>,
    /// The rows' bytes, counted while the cursor lives.
    pub _growth: Option<Growth>,
    /// The error DECLARE's query stopped at, after `rows`: PostgreSQL
    /// runs the query as rows are fetched, so the FETCH that reads past
    /// `rows` raises it (a sort's input errs before the first row).
    pub failure: Option<DbError>,
    /// That FETCH happened (PORTAL_FAILED): the cursor cannot run again
    /// (after ROLLBACK TO a savepoint that kept it).
    pub failed: bool,
}

/// What WHERE CURRENT OF can find through a cursor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Updatable {
    /// Not a simply updatable scan of any table.
    No,
    /// A scan of one table: the OIDs of its members (it and, read with
    /// inheritance, its descendants).
    Scan(Vec<u32>),
    /// FOR UPDATE/SHARE: per locked FROM item, the OIDs of its members.
    Marks(Vec<Vec<u32>>),
}

/// The table row a cursor row came from (per tracked FROM item; None
/// where an outer join NULL-extended it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RowOrigin {
    pub tableoid: u32,
    /// `(row_id,1)`, as the ctid column reads.
    pub ctid: String,
}

fn cursor_state(msg: String) -> DbError {
    DbError::new(SqlState::InvalidCursorState, msg)
}

impl Cursor {
    /// The origin of the current row in `table` (named `table_name`) for
    /// `UPDATE/DELETE table WHERE CURRENT OF name`: PostgreSQL's
    /// execCurrentOf checks, in its order. None: the row came from another
    /// table (or the NULL side of a join), so the statement changes nothing.
    pub fn current_of(
        &self,
        name: &str,
        table: u32,
        table_name: &str,
    ) -> Result<Option<RowOrigin>, DbError> {
        let which = match &self.updatable {
            Updatable::Marks(marks) => {
                let mut hits = marks.iter().enumerate().filter(|(_, m)| m.contains(&table));
                match (hits.next(), hits.next()) {
                    (Some((i, _)), None) => i,
                    (Some(_), Some(_)) => {
                        return Err(cursor_state(format!(
                            "cursor \"{name}\" has multiple FOR UPDATE/SHARE references to table \"{table_name}\""
                        )))
                    }
                    (None, _) => {
                        return Err(cursor_state(format!(
                            "cursor \"{name}\" does not have a FOR UPDATE/SHARE reference to table \"{table_name}\""
                        )))
                    }
                }
            }
            Updatable::Scan(members) if members.contains(&table) => 0,
            _ => {
                return Err(cursor_state(format!(
                    "cursor \"{name}\" is not a simply updatable scan of table \"{table_name}\""
                )))
            }
        };
        if self.pos == 0 || self.pos > self.rows.len() {
            return Err(cursor_state(format!(
                "cursor \"{name}\" is not positioned on a row"
            )));
        }
        Ok(self
            .origins
            .get(self.pos - 1)
            .and_then(|o| o.get(which).cloned())
            .flatten())
    }
}

/// A FROM table whose rows' origins a cursor keeps.
pub(crate) struct Tracked {
    /// The name the query refers to it by (alias or table name).
    pub refname: String,
    /// Its members' OIDs (with inheritance: it and its descendants).
    pub members: Vec<u32>,
}

/// The FROM tables of DECLARE's query WHERE CURRENT OF can reach (see the
/// module header): with FOR UPDATE/SHARE the locked ones (`true`), else
/// the one table of a simply updatable scan (`false`).
pub(crate) fn trackable(catalog: &Catalog, sel: &pb::SelectStmt) -> (bool, Vec<Tracked>) {
    let plain = pb::SetOperation::try_from(sel.op).is_ok_and(|op| {
        matches!(
            op,
            pb::SetOperation::SetopNone | pb::SetOperation::Undefined
        )
    });
    if !plain || sel.with_clause.is_some() || !sel.distinct_clause.is_empty() {
        return (false, Vec::new());
    }
    if !sel.locking_clause.is_empty() {
        let mut named = Vec::new();
        for l in &sel.locking_clause {
            if let Some(NodeEnum::LockingClause(lc)) = l.node.as_ref() {
                for r in &lc.locked_rels {
                    if let Some(NodeEnum::RangeVar(rv)) = r.node.as_ref() {
                        named.push(rv.relname.clone());
                    }
                }
            }
        }
        let mut out = Vec::new();
        for item in &sel.from_clause {
            collect_tables(catalog, item, &mut out);
        }
        if !named.is_empty() {
            out.retain(|t| named.contains(&t.refname));
        }
        return (true, out);
    }
    let simple = sel.group_clause.is_empty()
        && sel.having_clause.is_none()
        && sel.window_clause.is_empty()
        && sel.from_clause.len() == 1;
    let mut out = Vec::new();
    if simple {
        if let Some(NodeEnum::RangeVar(_)) = sel.from_clause[0].node.as_ref() {
            collect_tables(catalog, &sel.from_clause[0], &mut out);
        }
    }
    (false, out)
}

/// The tables of a FROM item (through joins, not into subqueries).
fn collect_tables(catalog: &Catalog, item: &Node, out: &mut Vec<Tracked>) {
    match item.node.as_ref() {
        Some(NodeEnum::RangeVar(rv)) => {
            let Ok(name) = nestor_plan::bind::relname(rv) else {
                return;
            };
            let Some(Relation::Table(t)) = catalog.relation(&name) else {
                return;
            };
            let members = if rv.inh {
                catalog.descendants(&t).iter().map(|m| m.oid.0).collect()
            } else {
                vec![t.oid.0]
            };
            let refname = rv
                .alias
                .as_ref()
                .map_or_else(|| rv.relname.clone(), |a| a.aliasname.clone());
            out.push(Tracked { refname, members });
        }
        Some(NodeEnum::JoinExpr(j)) => {
            for side in [&j.larg, &j.rarg].into_iter().flatten() {
                collect_tables(catalog, side, out);
            }
        }
        _ => {}
    }
}

/// DECLARE's query with each tracked table's `tableoid` and `ctid`
/// appended to its select list.
pub(crate) fn with_origins(sel: &pb::SelectStmt, tracked: &[Tracked]) -> pb::SelectStmt {
    let mut out = sel.clone();
    for t in tracked {
        for col in ["tableoid", "ctid"] {
            out.target_list
                .push(wrap(NodeEnum::ResTarget(Box::new(pb::ResTarget {
                    name: String::new(),
                    indirection: Vec::new(),
                    val: Some(Box::new(column_ref(&[&t.refname, col]))),
                    location: -1,
                }))));
        }
    }
    out
}

/// Cut the origin columns [`with_origins`] appended off `row`.
pub(crate) fn take_origins(row: &mut Vec<Value>, tracked: usize) -> Vec<Option<RowOrigin>> {
    let extra = row.split_off(row.len().saturating_sub(2 * tracked));
    extra
        .chunks(2)
        .map(|pair| match pair {
            [Value::Int8(oid), Value::Text(ctid)] => Some(RowOrigin {
                tableoid: *oid as u32,
                ctid: ctid.to_string(),
            }),
            _ => None,
        })
        .collect()
}

/// The condition `WHERE CURRENT OF` stands for on the table `target`
/// refers to: its row `origin` (None: no row, `false`).
pub(crate) fn origin_condition(target: &str, origin: Option<&RowOrigin>) -> Node {
    let Some(o) = origin else {
        return wrap(NodeEnum::AConst(pb::AConst {
            isnull: false,
            location: -1,
            val: Some(pb::a_const::Val::Boolval(pb::Boolean { boolval: false })),
        }));
    };
    let eq = |col: &str, val: pb::a_const::Val| {
        wrap(NodeEnum::AExpr(Box::new(pb::AExpr {
            kind: pb::AExprKind::AexprOp as i32,
            name: vec![string("=")],
            lexpr: Some(Box::new(column_ref(&[target, col]))),
            rexpr: Some(Box::new(wrap(NodeEnum::AConst(pb::AConst {
                isnull: false,
                location: -1,
                val: Some(val),
            })))),
            location: -1,
        })))
    };
    wrap(NodeEnum::BoolExpr(Box::new(pb::BoolExpr {
        xpr: None,
        boolop: pb::BoolExprType::AndExpr as i32,
        args: vec![
            eq(
                "tableoid",
                match i32::try_from(o.tableoid) {
                    Ok(ival) => pb::a_const::Val::Ival(pb::Integer { ival }),
                    Err(_) => pb::a_const::Val::Fval(pb::Float {
                        fval: o.tableoid.to_string(),
                    }),
                },
            ),
            eq(
                "ctid",
                pb::a_const::Val::Sval(pb::String {
                    sval: o.ctid.clone(),
                }),
            ),
        ],
        location: -1,
    })))
}

/// Collects a cursor's rows, counting their bytes.
pub(crate) struct CursorSink {
    pub rows: Vec<Vec<Value>>,
    pub growth: Growth,
}

impl CursorSink {
    pub fn new() -> CursorSink {
        CursorSink {
            rows: Vec::new(),
            growth: Growth::new("cursor rows"),
        }
    }
}

impl RowSink for CursorSink {
    fn row(&mut self, row: Vec<Value>) -> Result<(), DbError> {
        let bytes = 24 + row.iter().map(Value::size_bytes).sum::<usize>();
        self.growth.grow(bytes)?;
        self.rows.push(row);
        Ok(())
    }
}

/// FETCH/MOVE's direction from the parse tree (libpg_query numbers the
/// directions from 1; a count of i64::MAX is ALL).
pub(crate) fn direction(kind: i32, how_many: i64) -> Direction {
    match kind {
        2 => Direction::Backward(how_many),
        3 => Direction::Absolute(how_many),
        4 => Direction::Relative(how_many),
        _ => Direction::Forward(how_many),
    }
}

/// How FETCH/MOVE moves.
pub(crate) use nestor_exec::FetchDirection as Direction;

/// The session's cursors as a statement's server-side code reaches them
/// (PL/pgSQL's OPEN, FETCH, MOVE, CLOSE): the session's own table, so
/// SQL's FETCH sees a cursor a function opened. A cursor opened here
/// belongs to the statement's transaction, as a DECLARE's would.
pub(crate) struct StatementCursors<'a> {
    pub map: &'a mut HashMap<String, Cursor>,
    /// The transaction's start (its cursors are the live ones) and the
    /// savepoint depth the statement runs at.
    pub txn_start_us: i64,
    pub savepoint_depth: usize,
    /// The session's count of unnamed cursors (`<unnamed portal N>`).
    pub unnamed: &'a mut u64,
    /// A cursor was opened or closed (pg_cursors needs publishing).
    pub changed: bool,
}

impl StatementCursors<'_> {
    fn live(&mut self, name: &str) -> Option<&mut Cursor> {
        let start = self.txn_start_us;
        self.map
            .get_mut(name)
            .filter(|c| c.hold || c.txn_start_us == start)
    }
}

fn no_cursor(name: &str) -> DbError {
    DbError::new(
        SqlState::InvalidCursorName,
        format!("cursor \"{name}\" does not exist"),
    )
}

impl nestor_exec::Cursors for StatementCursors<'_> {
    fn is_open(&mut self, name: &str) -> bool {
        self.live(name).is_some()
    }

    fn open(&mut self, name: &str, c: nestor_exec::OpenedCursor) -> Result<(), DbError> {
        let mut growth = Growth::new("cursor rows");
        let bytes: usize = c
            .rows
            .iter()
            .map(|r| 24 + r.iter().map(Value::size_bytes).sum::<usize>())
            .sum();
        growth.grow(bytes)?;
        self.map.insert(
            name.to_string(),
            Cursor {
                columns: c.columns,
                rows: c.rows,
                pos: 0,
                scrollable: c.scrollable,
                hold: false,
                binary: false,
                statement: c.statement,
                created_us: nestor_types::context::system_now(),
                txn_start_us: self.txn_start_us,
                savepoint_depth: self.savepoint_depth,
                updatable: Updatable::No,
                origins: Vec::new(),
                _growth: Some(growth),
                failure: None,
                failed: false,
            },
        );
        self.changed = true;
        Ok(())
    }

    fn unnamed(&mut self) -> String {
        *self.unnamed += 1;
        format!("<unnamed portal {}>", self.unnamed)
    }

    fn fetch(
        &mut self,
        name: &str,
        dir: Direction,
        moving: bool,
    ) -> Result<(Vec<ColumnDesc>, Vec<Vec<Value>>), DbError> {
        let c = self.live(name).ok_or_else(|| no_cursor(name))?;
        c.check_runnable(name)?;
        let rows = c.fetch(dir, moving)?;
        Ok((c.columns.clone(), rows))
    }

    fn close(&mut self, name: &str) -> Result<(), DbError> {
        self.live(name).ok_or_else(|| no_cursor(name))?;
        self.map.remove(name);
        self.changed = true;
        Ok(())
    }
}

impl Cursor {
    /// A cursor whose query failed at a FETCH cannot run again.
    pub fn check_runnable(&self, name: &str) -> Result<(), DbError> {
        if self.failed {
            return Err(DbError::new(
                SqlState::ObjectNotInPrerequisiteState,
                format!("portal \"{name}\" cannot be run"),
            ));
        }
        Ok(())
    }

    fn backward_error() -> DbError {
        DbError::new(
            SqlState::ObjectNotInPrerequisiteState,
            "cursor can only scan forward",
        )
        .with_hint("Declare it with SCROLL option to enable backward scan.")
    }

    /// Move as `dir` says; the rows passed over (FETCH returns them).
    /// `moving`: MOVE, which may count the current row without re-reading
    /// it (so a NO SCROLL cursor allows MOVE 0, as PostgreSQL does).
    pub fn fetch(&mut self, dir: Direction, moving: bool) -> Result<Vec<Vec<Value>>, DbError> {
        let out = self.move_by(dir, moving)?;
        // Past the rows DECLARE's query produced before it failed: the
        // error, as PostgreSQL's FETCH meets it.
        if self.pos > self.rows.len() {
            if let Some(e) = self.failure.take() {
                self.failed = true;
                return Err(e);
            }
        }
        Ok(out)
    }

    fn move_by(&mut self, dir: Direction, moving: bool) -> Result<Vec<Vec<Value>>, DbError> {
        let n = self.rows.len() as i64;
        let mut out = Vec::new();
        let pos = self.pos as i64;
        match dir {
            // FORWARD 0 and BACKWARD 0 re-fetch the current row.
            Direction::Forward(0) | Direction::Backward(0) => {
                return self.fetch(Direction::Relative(0), moving)
            }
            Direction::Forward(k) if k < 0 => {
                return self.fetch(Direction::Backward(k.saturating_neg()), moving)
            }
            Direction::Backward(k) if k < 0 => {
                return self.fetch(Direction::Forward(k.saturating_neg()), moving)
            }
            Direction::Forward(k) => {
                let mut p = pos;
                for _ in 0..k {
                    if p >= n {
                        p = n + 1;
                        break;
                    }
                    p += 1;
                    out.push(self.rows[(p - 1) as usize].clone());
                }
                self.pos = p as usize;
            }
            Direction::Backward(k) => {
                if !self.scrollable && k > 0 {
                    return Err(Self::backward_error());
                }
                let mut p = pos;
                for _ in 0..k {
                    if p <= 1 {
                        p = 0;
                        break;
                    }
                    p -= 1;
                    out.push(self.rows[(p - 1) as usize].clone());
                }
                self.pos = p as usize;
            }
            Direction::Absolute(k) => {
                let target = if k >= 0 { k } else { n + 1 + k };
                // PostgreSQL reaches a row at or before the current one by
                // rewinding or reading backward, ABSOLUTE 0 by rewinding
                // (a no-op at the start), a negative one from the end.
                let backward = match k {
                    0 => pos != 0,
                    k if k < 0 => true,
                    _ => pos != 0 && target <= pos,
                };
                if !self.scrollable && backward {
                    return Err(Self::backward_error());
                }
                self.pos = target.clamp(0, n + 1) as usize;
                if (1..=n).contains(&target) {
                    out.push(self.rows[(target - 1) as usize].clone());
                }
            }
            Direction::Relative(k) => {
                // RELATIVE 0 re-reads the current row by backing up one.
                let on_row = (1..=n).contains(&pos);
                if !self.scrollable && (k < 0 || (k == 0 && on_row && !moving)) {
                    return Err(Self::backward_error());
                }
                let target = pos.saturating_add(k);
                self.pos = target.clamp(0, n + 1) as usize;
                if (1..=n).contains(&target) {
                    out.push(self.rows[(target - 1) as usize].clone());
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cursor(n: i32) -> Cursor {
        Cursor {
            columns: Vec::new(),
            rows: (1..=n).map(|i| vec![Value::Int4(i)]).collect(),
            pos: 0,
            scrollable: true,
            hold: false,
            binary: false,
            statement: Arc::from(""),
            created_us: 0,
            txn_start_us: 0,
            savepoint_depth: 0,
            updatable: Updatable::No,
            origins: Vec::new(),
            _growth: None,
            failure: None,
            failed: false,
        }
    }

    impl Cursor {
        fn fetch_(&mut self, dir: Direction) -> Result<Vec<Vec<Value>>, DbError> {
            self.fetch(dir, false)
        }
    }

    fn ints(rows: Vec<Vec<Value>>) -> Vec<i64> {
        rows.iter().map(|r| r[0].as_i64().unwrap()).collect()
    }

    #[test]
    fn directions_move_as_postgresql() {
        let mut c = cursor(3);
        assert_eq!(ints(c.fetch_(Direction::Forward(2)).unwrap()), vec![1, 2]);
        assert_eq!(ints(c.fetch_(Direction::Forward(5)).unwrap()), vec![3]);
        assert_eq!(c.pos, 4);
        assert_eq!(ints(c.fetch_(Direction::Backward(1)).unwrap()), vec![3]);
        assert_eq!(ints(c.fetch_(Direction::Backward(9)).unwrap()), vec![2, 1]);
        assert_eq!(c.pos, 0);
        assert_eq!(ints(c.fetch_(Direction::Absolute(-1)).unwrap()), vec![3]);
        assert_eq!(ints(c.fetch_(Direction::Relative(-1)).unwrap()), vec![2]);
        assert_eq!(ints(c.fetch_(Direction::Relative(0)).unwrap()), vec![2]);
        assert!(c.fetch_(Direction::Absolute(7)).unwrap().is_empty());
        assert_eq!(c.pos, 4);
        let mut ns = cursor(2);
        ns.scrollable = false;
        ns.fetch_(Direction::Forward(1)).unwrap();
        assert_eq!(
            ns.fetch_(Direction::Backward(1)).unwrap_err().code,
            SqlState::ObjectNotInPrerequisiteState
        );
    }

    #[test]
    fn no_scroll_refuses_what_postgresql_refuses() {
        let backward = |c: &mut Cursor, d: Direction, moving: bool| {
            c.fetch(d, moving)
                .err()
                .is_some_and(|e| e.code == SqlState::ObjectNotInPrerequisiteState)
        };
        let mut c = cursor(6);
        c.scrollable = false;
        // At the start, ABSOLUTE 0 and RELATIVE 0 are no-ops.
        assert!(!backward(&mut c, Direction::Absolute(0), false));
        assert!(!backward(&mut c, Direction::Relative(0), false));
        c.fetch(Direction::Forward(2), false).unwrap();
        assert!(!backward(&mut c, Direction::Absolute(3), false));
        assert!(backward(&mut c, Direction::Absolute(3), false));
        assert!(backward(&mut c, Direction::Absolute(-1), false));
        assert!(backward(&mut c, Direction::Relative(0), false));
        assert!(!backward(&mut c, Direction::Relative(0), true));
        assert!(backward(&mut c, Direction::Absolute(0), true));
        assert_eq!(
            ints(c.fetch(Direction::Relative(2), false).unwrap()),
            vec![5]
        );
    }

    #[test]
    fn current_of_checks_in_postgresql_order() {
        let origin = |i: u32| RowOrigin {
            tableoid: 10,
            ctid: format!("({i},1)"),
        };
        let mut c = cursor(2);
        c.updatable = Updatable::Scan(vec![10, 11]);
        c.origins = vec![vec![Some(origin(1))], vec![Some(origin(2))]];
        let state = |r: Result<Option<RowOrigin>, DbError>| r.unwrap_err().message.clone();
        assert_eq!(
            state(c.current_of("c", 10, "t")),
            "cursor \"c\" is not positioned on a row"
        );
        assert_eq!(
            state(c.current_of("c", 12, "u")),
            "cursor \"c\" is not a simply updatable scan of table \"u\""
        );
        c.fetch(Direction::Forward(2), false).unwrap();
        assert_eq!(c.current_of("c", 11, "t").unwrap(), Some(origin(2)));
        c.updatable = Updatable::Marks(vec![vec![10], vec![10]]);
        assert!(state(c.current_of("c", 10, "t")).contains("multiple FOR UPDATE/SHARE"));
        c.updatable = Updatable::Marks(vec![vec![12]]);
        assert!(state(c.current_of("c", 10, "t")).contains("does not have a FOR UPDATE/SHARE"));
    }
}
