//! Aggregates of outer query levels, as PostgreSQL's parse_agg.c decides
//! them: an aggregate belongs to the innermost query level whose columns
//! its arguments, ORDER BY keys and FILTER read (its own level when they
//! read none). So in
//!
//! ```text
//!   SELECT (SELECT max(o.b) FROM i) FROM o      -- level 0 / level 1
//! ```
//!
//! `max(o.b)` is an aggregate of level 0: the outer query aggregates, once
//! over all of o's rows, and the subquery reads the result as a column of
//! the outer row.
//!
//! The binder finds the level from the outer references it made while it
//! bound the arguments (`Binder::outer_uses`, a log of every `Outer` it
//! produced, so references inside nested subqueries count too) and the
//! columns the arguments read directly. An aggregate of level L < its own:
//!
//! - is checked against level L's clause (WHERE, GROUP BY, another
//!   aggregate's arguments...) as it stood when the subquery began
//!   (`Binder::level_aggs`), with PostgreSQL's 42803 messages;
//! - is rewritten to level L's row ([`lower`]: L's columns become its own
//!   columns, a subquery in the arguments runs on L's row) and handed to
//!   the SELECT of level L that is binding its select list, HAVING or
//!   ORDER BY (`Binder::outer_aggs`); anywhere else it stays 0A000;
//! - stands in the subquery as `Outer { level: L, col: width + k }`, the
//!   k-th such aggregate past L's input columns.
//!
//! Level L then aggregates with those calls first (select::plan_aggregation)
//! and gives the subqueries of its select list, HAVING and ORDER BY a row
//! in its input layout ([`crate::ir::SubQuery::remap`]): the grouped
//! columns where they were, the aggregates past them. A subquery there
//! reading a column that is not grouped is 42803, "subquery uses ungrouped
//! column ... from outer query", as in PostgreSQL.

use std::sync::Arc;

use nestor_common::{DbError, SqlState};

use super::{err_at, AggCtx, Binder, AGG_ARGS};
use crate::ir::{AggCall, Expr, SubKind, SubQuery};

/// A SELECT binding the clauses where aggregates of subqueries may be
/// its own: the calls found so far, `width` its input row's width.
#[derive(Debug)]
pub struct OuterAggs {
    pub level: usize,
    pub width: usize,
    pub calls: Vec<AggCall>,
    /// Where each call is written (the first time).
    pub locations: Vec<i32>,
}

/// The message for an aggregate in a clause that refuses it.
pub(crate) fn refusal(clause: &str) -> DbError {
    let message = if clause == AGG_ARGS {
        "aggregate function calls cannot be nested".to_string()
    } else {
        format!("aggregate functions are not allowed in {clause}")
    };
    DbError::new(SqlState::GroupingError, message)
}

impl Binder<'_> {
    /// A column of the enclosing level `lvl`: marks the levels in between
    /// as correlated and logs the reference.
    pub(crate) fn outer_ref(&mut self, lvl: usize, col: usize) -> Expr {
        for r in self.outer_refs.iter_mut().skip(lvl + 1) {
            *r = Some(r.map_or(lvl, |x| x.min(lvl)));
        }
        self.outer_uses.push((lvl, col));
        Expr::Outer { level: lvl, col }
    }

    /// The level an aggregate bound at the current level belongs to: the
    /// innermost level its parts read (`mark`: the log's length before
    /// they were bound).
    pub(crate) fn agg_level(&self, parts: &[&Expr], mark: usize) -> usize {
        let cur = self.level();
        let mut level = None::<usize>;
        let mut note = |l: usize| level = Some(level.map_or(l, |x: usize| x.max(l)));
        for e in parts {
            e.walk(&mut |x| match x {
                Expr::Col(_) => note(cur),
                Expr::Outer { level, .. } if *level <= cur => note(*level),
                _ => {}
            });
        }
        for &(l, _) in &self.outer_uses[mark..] {
            if l <= cur {
                note(l);
            }
        }
        level.unwrap_or(cur)
    }

    /// Hand `call`, bound at the current level but reading only level
    /// `level`'s (and outer) columns, to that level; the expression the
    /// subquery reads it by. `mark` as for [`Binder::agg_level`].
    pub(crate) fn outer_agg(
        &mut self,
        call: AggCall,
        level: usize,
        mark: usize,
        location: i32,
    ) -> Result<Expr, DbError> {
        let at = |e: DbError, b: &Binder| err_at(e, b.text, location);
        let ctx = self
            .level_aggs
            .iter()
            .rev()
            .find(|(l, _)| *l == level)
            .map(|(_, c)| *c);
        if let Some(AggCtx::NotAllowed(clause)) = ctx {
            return Err(at(refusal(clause), self));
        }
        let Some(slot) = self.outer_aggs.iter().rposition(|a| a.level == level) else {
            return Err(at(
                DbError::unsupported(
                    "aggregate functions whose arguments refer only to columns of outer queries",
                ),
                self,
            ));
        };
        let width = self.outer_aggs[slot].width;
        // An aggregate of that level inside the arguments (PostgreSQL
        // points at that one).
        if let Some(&(_, c)) = self.outer_uses[mark..]
            .iter()
            .find(|&&(l, c)| l == level && c >= width)
        {
            let inner = self.outer_aggs[slot].locations[c - width];
            return Err(err_at(refusal(AGG_ARGS), self.text, inner));
        }
        let call = lower_call(call, self.level(), level)?;
        let aggs = &mut self.outer_aggs[slot];
        let k = match aggs.calls.iter().position(|c| *c == call) {
            Some(k) => k,
            None => {
                aggs.calls.push(call);
                aggs.locations.push(location);
                aggs.calls.len() - 1
            }
        };
        // The arguments are read at `level` before it aggregates: only
        // their references to levels further out remain references from
        // here.
        let kept: Vec<(usize, usize)> = self.outer_uses[mark..]
            .iter()
            .filter(|(l, _)| *l < level)
            .copied()
            .collect();
        self.outer_uses.truncate(mark);
        self.outer_uses.extend(kept);
        Ok(self.outer_ref(level, width + k))
    }
}

fn lower_call(mut call: AggCall, from: usize, to: usize) -> Result<AggCall, DbError> {
    let lower_opt = |e: Option<Expr>| e.map(|e| lower(e, from, to)).transpose();
    call.arg = lower_opt(call.arg)?;
    call.filter = lower_opt(call.filter)?;
    for o in &mut call.order {
        let key = std::mem::replace(&mut o.key, Expr::Const(nestor_types::Value::Null));
        o.key = lower(key, from, to)?;
    }
    Ok(call)
}

/// An expression bound at level `from` that reads no column of levels
/// `to + 1 ..= from`, made an expression over level `to`'s row: `to`'s
/// columns become its own, and a subquery evaluated on `from`'s row is
/// evaluated on `to`'s (its plan reads `to`'s columns as outer ones
/// either way).
pub(crate) fn lower(e: Expr, from: usize, to: usize) -> Result<Expr, DbError> {
    e.rewrite(&mut |x| {
        Ok(match x {
            Expr::Outer { level, col } if *level == to => Some(Expr::Col(*col)),
            Expr::Sub(s) if s.level == from => {
                let kind = match &s.kind {
                    SubKind::Any { lhs, op, all } => SubKind::Any {
                        lhs: Box::new(lower((**lhs).clone(), from, to)?),
                        op: *op,
                        all: *all,
                    },
                    k => k.clone(),
                };
                Some(Expr::Sub(Arc::new(SubQuery {
                    kind,
                    level: to,
                    ..(**s).clone()
                })))
            }
            _ => None,
        })
    })
}
