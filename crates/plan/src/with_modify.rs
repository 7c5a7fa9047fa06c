//! Data-modifying statements in WITH (PostgreSQL's "7.8.4 Data-Modifying
//! Statements in WITH"): `WITH x AS (INSERT | UPDATE | DELETE ...
//! [RETURNING ...])` on top of a SELECT, INSERT, UPDATE or DELETE, and WITH
//! on top of INSERT, UPDATE and DELETE at all.
//!
//! **What PostgreSQL promises.** Every data-modifying item runs exactly
//! once and to completion, whether the main query reads all, some or none
//! of its RETURNING rows; the items and the main query all run with the
//! statement's one snapshot, so none of them sees the others' effects on
//! the tables — RETURNING is the only way to see the changed rows. Such
//! items are allowed only in the WITH clause of the top-level statement
//! (0A000 "WITH clause containing a data-modifying statement must be at
//! the top level" anywhere else).
//!
//! **How.** A statement's writes are stamped with its command id and a
//! snapshot never sees its own command's writes (docs/transactions.md §2),
//! so running the data-modifying items *first*, to completion, with the
//! statement's snapshot unchanged, and the main query after them, is
//! indistinguishable from PostgreSQL running them at the end: nothing the
//! main query reads from a table can tell. Each item is planned as the
//! INSERT/UPDATE/DELETE it is (crate::modify, so triggers, CHECK and
//! foreign keys are the table's) into a [`WriteCte`]; its name is put in
//! scope as a `Plan::CteScan` of a fresh id, and the executor keeps the
//! item's RETURNING rows under that id before the main query starts
//! (`nestor-exec`'s `with_modify.rs`), where the CteScan finds them as it
//! finds a materialised SELECT item's rows. An item without RETURNING
//! still runs; naming it is 0A000 "WITH query ... does not have a
//! RETURNING clause" (`Cte::no_returning`).
//!
//! ```text
//!   WITH moved AS (DELETE FROM a RETURNING *)
//!   INSERT INTO b SELECT * FROM moved
//!
//!   PlannedStmt::With {
//!     writes: [WriteCte { name: moved, id: 1, stmt: Modify(Delete on a) }],
//!     main:   Insert on b  <-  CteScan(id 1)
//!   }
//!   run: Delete on a (cid c), RETURNING rows -> cache[1];
//!        Insert on b reads cache[1]; a SELECT of a here would still see
//!        the deleted rows (their xmax is command c, not < c).
//! ```
//!
//! Only statements whose WITH clause has such an item (or whose main
//! statement is an INSERT, UPDATE or DELETE with a WITH clause) come here
//! (`statement.rs`, [`top_with`]): a plain SELECT's WITH is planned by
//! `select` as before. An item found by `select` is not at the top level
//! and gets the 0A000 there (`select::plan_cte`).
//!
//! Under WITH RECURSIVE an item may name one written after it, as in
//! PostgreSQL: the items are planned, and run, each after the ones it
//! names (`select::recursion::order`).
//!
//! Left out (differences from PostgreSQL): AFTER triggers and NO ACTION
//! foreign-key checks of an item run when that item is done, not at the
//! end of the whole statement, so `WITH c AS (INSERT INTO child ...)
//! INSERT INTO parent ...` fails its check where PostgreSQL's passes; an
//! item's rows are materialised whole (counted in
//! `nestor.query_memory_max`), never streamed.

use std::sync::Arc;

use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_parser::NodeEnum;

use crate::bind::{self, err_at, node, req, Binder, Cte};
use crate::ir::{OutCol, Plan};
use crate::modify::{self, InsertPlan, ModifyPlan};
use crate::select;

/// The statement of a data-modifying WITH item.
pub enum WriteStmt {
    Insert(InsertPlan),
    /// UPDATE or DELETE.
    Modify(ModifyPlan),
    /// A write on a view its INSTEAD OF triggers do.
    Instead(crate::instead::InsteadPlan),
}

/// A data-modifying WITH item, run before the main query.
pub struct WriteCte {
    pub name: String,
    /// The id its RETURNING rows are kept under for the CteScans naming it.
    pub id: usize,
    /// Whether it has RETURNING (rows to keep).
    pub returning: bool,
    pub stmt: WriteStmt,
}

/// Whether a WITH clause has a data-modifying item.
pub fn has_writes(w: &pb::WithClause) -> bool {
    w.ctes.iter().any(|c| match c.node.as_ref() {
        Some(NodeEnum::CommonTableExpr(cte)) => !matches!(
            cte.ctequery.as_deref().and_then(|q| q.node.as_ref()),
            Some(NodeEnum::SelectStmt(_))
        ),
        _ => false,
    })
}

/// The WITH clause a top-level statement's planning starts here with:
/// a SELECT's when it has a data-modifying item, an INSERT's, UPDATE's or
/// DELETE's always. None for every other statement.
pub(crate) fn top_with(n: &NodeEnum) -> Option<&pb::WithClause> {
    match n {
        NodeEnum::SelectStmt(s) => s.with_clause.as_ref().filter(|w| has_writes(w)),
        NodeEnum::InsertStmt(s) => s.with_clause.as_ref(),
        NodeEnum::UpdateStmt(s) => s.with_clause.as_ref(),
        NodeEnum::DeleteStmt(s) => s.with_clause.as_ref(),
        NodeEnum::MergeStmt(s) => s.with_clause.as_ref(),
        _ => None,
    }
}

/// A copy of the statement without its WITH clause (planned once the
/// clause's items are in scope).
pub(crate) fn without_with(n: &NodeEnum) -> NodeEnum {
    let mut n = n.clone();
    match &mut n {
        NodeEnum::SelectStmt(s) => s.with_clause = None,
        NodeEnum::InsertStmt(s) => s.with_clause = None,
        NodeEnum::UpdateStmt(s) => s.with_clause = None,
        NodeEnum::DeleteStmt(s) => s.with_clause = None,
        NodeEnum::MergeStmt(s) => s.with_clause = None,
        _ => {}
    }
    n
}

/// Plan a top-level WITH clause: its items in order (under WITH RECURSIVE,
/// each after the items it names), each put in scope
/// (`b.ctes`; the caller truncates them after the main statement). The
/// data-modifying ones are returned, in order.
pub(crate) fn plan_with_clause(
    b: &mut Binder,
    w: &pb::WithClause,
) -> Result<Vec<WriteCte>, DbError> {
    let mut items = Vec::with_capacity(w.ctes.len());
    for c in &w.ctes {
        let NodeEnum::CommonTableExpr(cte) = node(c)? else {
            return Err(DbError::internal("WITH item is not a CTE"));
        };
        select::reject_merge_cte(b, cte)?;
        items.push(cte.as_ref());
    }
    if w.recursive {
        let order = select::recursion::order(b.text, w)?;
        items = order.into_iter().map(|i| items[i]).collect();
    }
    let mut writes = Vec::new();
    for cte in items {
        let q = node(req(&cte.ctequery)?)?;
        if matches!(q, NodeEnum::SelectStmt(_)) {
            select::plan_cte(b, w.recursive, cte)?;
            continue;
        }
        let (stmt, mut cols) = if w.recursive {
            plan_recursive_write(b, cte, q)?
        } else {
            plan_write(b, q)?
        };
        let returning = cols.is_some();
        let mut cols = cols.take().unwrap_or_default();
        for (c, a) in cols.iter_mut().zip(bind::names(&cte.aliascolnames)) {
            c.name = a;
        }
        let id = b.fresh_id();
        b.ctes.push(Cte {
            name: cte.ctename.clone(),
            id,
            // Never run: the executor has the item's rows under `id`
            // before the main query starts.
            plan: Arc::new(Plan::Values { rows: Vec::new() }),
            cols,
            working: false,
            no_returning: !returning,
            level: b.level(),
            star_hidden: 0,
            outer_level: None,
            refs: 0,
            volatile: false,
            whole_first: Default::default(),
        });
        writes.push(WriteCte {
            name: cte.ctename.clone(),
            id,
            returning,
            stmt,
        });
    }
    Ok(writes)
}

/// A data-modifying item of WITH RECURSIVE: planned as usual, but one that
/// names itself is PostgreSQL's 42P19 (its name is in scope as a working
/// table only to count the references).
fn plan_recursive_write(
    b: &mut Binder,
    cte: &pb::CommonTableExpr,
    q: &NodeEnum,
) -> Result<(WriteStmt, Option<Vec<OutCol>>), DbError> {
    let work_id = b.fresh_id();
    let (r, refs) = b.with_working_table(cte.ctename.clone(), work_id, (Vec::new(), 0), |b| {
        plan_write(b, q)
    });
    if refs > 0 {
        return Err(err_at(
            DbError::new(
                SqlState::InvalidRecursion,
                format!(
                    "recursive query \"{}\" must not contain data-modifying statements",
                    cte.ctename
                ),
            ),
            b.text,
            cte.location,
        ));
    }
    r
}

/// Plan one data-modifying item: its statement and its RETURNING columns.
/// Its own WITH clause may hold SELECT items only (a data-modifying one
/// there is not at the top level).
fn plan_write(b: &mut Binder, q: &NodeEnum) -> Result<(WriteStmt, Option<Vec<OutCol>>), DbError> {
    let ctes_len = b.ctes.len();
    let saved_agg = b.agg;
    let r = (|| {
        let stripped;
        let mut q = q;
        if let Some(w) = top_with(q) {
            for c in &w.ctes {
                let NodeEnum::CommonTableExpr(cte) = node(c)? else {
                    return Err(DbError::internal("WITH item is not a CTE"));
                };
                select::plan_cte(b, w.recursive, cte)?;
            }
            stripped = without_with(q);
            q = &stripped;
        }
        if let Some(p) = crate::instead::plan_statement(b, q)? {
            let cols = p.returning.as_ref().map(|r| r.cols.clone());
            return Ok((WriteStmt::Instead(p), cols));
        }
        Ok(match q {
            NodeEnum::InsertStmt(ins) => {
                let p = modify::plan_insert(b, ins)?;
                let cols = p.returning.as_ref().map(|r| r.cols.clone());
                (WriteStmt::Insert(p), cols)
            }
            NodeEnum::UpdateStmt(u) => {
                let p = modify::plan_update(b, u)?;
                let cols = p.returning.as_ref().map(|r| r.cols.clone());
                (WriteStmt::Modify(p), cols)
            }
            NodeEnum::DeleteStmt(d) => {
                let p = modify::plan_delete(b, d)?;
                let cols = p.returning.as_ref().map(|r| r.cols.clone());
                (WriteStmt::Modify(p), cols)
            }
            other => {
                return Err(DbError::unsupported(format!(
                    "{} in WITH",
                    nestor_parser::ast::command_name(other)
                )))
            }
        })
    })();
    b.ctes.truncate(ctes_len);
    b.agg = saved_agg;
    r
}
