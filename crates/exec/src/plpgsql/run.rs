//! Running a compiled PL/pgSQL function.
//!
//! Statements run inside the calling statement's context: same
//! transaction, same session. Each SQL statement of a VOLATILE function
//! (and of a DO block or procedure) is a new command with a new snapshot
//! under READ COMMITTED, as PostgreSQL's SPI gives it; the caller's command
//! id and snapshot are restored afterwards, so the calling statement's own
//! writes keep their command id. A STABLE or IMMUTABLE function reads with
//! the caller's snapshot and may not write.
//!
//! **Exception blocks are savepoint marks.** Entering a block with an
//! EXCEPTION clause defines a mark in the transaction's private undo log
//! (the same mechanism as SAVEPOINT); an error inside rolls back to it —
//! rows, row locks and the waiters on them — and runs the handler; leaving
//! the block normally releases the mark. No XID, nothing shared, O(1) per
//! entry:
//!
//! ```text
//!   FOR i IN 1..70 LOOP
//!     BEGIN                        -- undo mark (a Vec push)
//!       INSERT INTO t VALUES (i);  -- undo entry, stamped with the one XID
//!     EXCEPTION WHEN unique_violation THEN
//!       NULL;                      -- the insert's undo is applied
//!     END;                         -- mark released
//!   END LOOP;                      -- 70 blocks, 1 XID (PostgreSQL: 71)
//! ```
//!
//! Expressions are planned once per function (per catalog version and
//! record shape) as `SELECT <expr>` with the variables they name as
//! parameters; one without tables runs as a bare expression.

use std::collections::HashMap;
use std::sync::Arc;

use nestor_catalog::{FunctionDef, Returns};
use nestor_common::error::Severity;
use nestor_common::{DbError, SqlState};
use nestor_plan::ir::{Expr, Plan};
use nestor_plan::PlannedStmt;
use nestor_types::array::{Array, ARRAY_DIMS_MAX};
use nestor_types::array_subscript;
use nestor_types::datatype::{DataType, RecordType};
use nestor_types::Value;

use super::compile::{
    Block, Cond, CursorSource, Datum, ExprKind, Func, PlExpr, Stmt, Target, TargetSubscripts,
    CURSOR_OPT_NO_SCROLL, CURSOR_OPT_SCROLL,
};
use crate::context::{Ev, Outcome, StatementCtx, TriggerCall};
use crate::statement::Prepared;

/// A record's or a query result's column names and types.
pub(crate) type Columns = Arc<Vec<(String, DataType)>>;
use crate::tag::CommandTag;

/// A record variable's value: its columns and values.
#[derive(Clone, Debug)]
pub(crate) struct Rec {
    pub cols: Columns,
    pub vals: Vec<Value>,
    /// A NULL of the record's type (a statement-level trigger's NEW and
    /// OLD, an INSERT's OLD): its fields read as NULL, and assigning one
    /// makes it a row, as in PostgreSQL.
    pub null: bool,
}

impl Rec {
    fn row(cols: Columns, vals: Vec<Value>) -> Rec {
        Rec {
            cols,
            vals,
            null: false,
        }
    }

    fn null_of(cols: Columns) -> Rec {
        let vals = vec![Value::Null; cols.len()];
        Rec {
            cols,
            vals,
            null: true,
        }
    }

    /// The record as one value (`raise notice '%', new`, `to_jsonb(new)`).
    fn value(&self) -> Value {
        if self.null {
            return Value::Null;
        }
        Value::Record(Arc::from(self.vals.as_slice()))
    }
}

/// Where a query parameter's value comes from.
#[derive(Clone, Debug, PartialEq)]
enum Slot {
    Datum(usize),
    Field(usize, String),
    /// A record variable as a whole.
    Rec(usize),
}

/// Plans an expression keeps at once: one for the sessions without TEMP
/// objects, and one per record shape or TEMP-using session beyond that.
const PLANS_PER_EXPR_MAX: usize = 8;

/// An expression or statement planned for the function.
pub(crate) struct ExprPlan {
    version: u64,
    /// Whom the plan holds for: every session without TEMP objects (None),
    /// or the one session whose TEMP namespace names resolved in.
    scope: Option<nestor_common::SessionId>,
    /// plpgsql.variable_conflict as it was planned with.
    conflict: nestor_plan::bind::VarConflict,
    prepared: Prepared,
    slots: Vec<Slot>,
    /// SELECT <expr> without FROM or subqueries: evaluated directly.
    simple: Option<Expr>,
    /// The simple expression calls a user-defined function.
    simple_calls: bool,
    /// The record shapes field references were planned with.
    shapes: Vec<(usize, Columns)>,
    /// The transition tables (names and columns) it was planned with.
    enrs: Vec<(String, Columns)>,
}

/// Control flow out of a statement list.
enum Flow {
    Normal,
    Exit(Option<String>),
    Continue(Option<String>),
    Return,
}

/// The running state of one call.
pub(crate) struct Run<'f> {
    func: &'f Func,
    def: Option<&'f FunctionDef>,
    vals: Vec<Option<Value>>,
    recs: HashMap<usize, Rec>,
    ret: Option<Value>,
    /// RETURN's row, for a function whose result is a row.
    ret_row: Option<Vec<Value>>,
    rows: Vec<Vec<Value>>,
    /// The column types of a row (or set) result, as of this call: a
    /// table's row type follows ALTER TABLE. None: a scalar (or DO).
    shape: Option<Vec<DataType>>,
    /// Each statement takes a new snapshot and command id.
    volatile: bool,
    row_count: u64,
    /// The error being handled, for GET STACKED DIAGNOSTICS and `RAISE;`.
    handling: Vec<DbError>,
    depth: usize,
    /// The error propagating out has this call's CONTEXT line already
    /// (the innermost statement's, as in PostgreSQL, where one line names
    /// the statement the function was executing).
    lined: bool,
    /// FOR loops running over a query that writes.
    writing_loops: u32,
    /// A trigger call's transition tables by name, in the order of their
    /// rows in `StatementCtx::transition` (empty: none).
    enrs: Vec<(String, Columns)>,
    /// Bound constraints of the domains variables are declared as, by
    /// domain OID, bound at the first assignment of this call.
    domain_checks: HashMap<u32, Arc<nestor_plan::ir::DomainChecks>>,
}

fn err_plpgsql(msg: impl Into<String>) -> DbError {
    DbError::new(SqlState::PlpgsqlError, msg)
}

/// Append a CONTEXT line (PostgreSQL lists them innermost first).
pub(crate) fn add_context(mut e: DbError, line: String) -> DbError {
    e.context = Some(match e.context.take() {
        Some(c) => format!("{c}\n{line}"),
        None => line,
    });
    e
}

impl<'f> Run<'f> {
    pub(crate) fn new(func: &'f Func, def: Option<&'f FunctionDef>, volatile: bool) -> Run<'f> {
        Run {
            func,
            def,
            vals: vec![None; func.datums.len()],
            recs: HashMap::new(),
            ret: None,
            ret_row: None,
            rows: Vec::new(),
            shape: None,
            volatile,
            row_count: 0,
            handling: Vec::new(),
            depth: 0,
            lined: false,
            writing_loops: 0,
            enrs: Vec::new(),
            domain_checks: HashMap::new(),
        }
    }

    /// Run the function with its argument values.
    pub(crate) fn call(
        mut self,
        ctx: &mut StatementCtx<'_>,
        args: Vec<Value>,
    ) -> Result<Outcome, DbError> {
        nestor_common::stack::check()?;
        self.shape = match self.def {
            Some(d) if d.args.iter().any(|a| a.mode.is_output()) => Some(
                d.args
                    .iter()
                    .filter(|a| a.mode.is_output())
                    .map(|a| a.ty)
                    .collect(),
            ),
            Some(d) => match d.result_columns(ctx.catalog)? {
                Some(cols) => Some(cols.into_iter().map(|(_, t)| t).collect()),
                None => match &d.returns {
                    Returns::Scalar(t) if d.retset => Some(vec![*t]),
                    _ => None,
                },
            },
            None => None,
        };
        // Input arguments fill the IN/INOUT/VARIADIC datums in order; OUT
        // ones start NULL.
        let mut input = args.into_iter();
        for i in 0..self.func.nargs {
            let is_input = self
                .def
                .is_none_or(|d| d.args.get(i).is_none_or(|a| a.mode.is_input()));
            let v = if is_input {
                input.next().unwrap_or(Value::Null)
            } else {
                Value::Null
            };
            if let Datum::Rec {
                declared: Some(rt), ..
            } = &self.func.datums[i]
            {
                let rec = match &v {
                    Value::Record(f) => Rec::row(row_columns(rt), f.to_vec()),
                    _ => Rec::null_of(row_columns(rt)),
                };
                self.recs.insert(i, rec);
            }
            self.vals[i] = Some(v);
        }
        self.vals[self.func.found] = Some(Value::Bool(false));
        let flow = self.block(ctx, &self.func.body)?;
        if let Flow::Exit(_) | Flow::Continue(_) = flow {
            return Err(err_plpgsql(
                "CONTINUE cannot be used outside a loop".to_string(),
            ));
        }
        self.finish(matches!(flow, Flow::Return))
    }

    /// Run a trigger function for one event: NEW and OLD hold the row's
    /// values (table columns in order), the TG_ variables describe the
    /// event. Returns the row RETURN gave (None: NULL, skip the row).
    pub(crate) fn call_trigger(
        mut self,
        ctx: &mut StatementCtx<'_>,
        call: TriggerCall<'_>,
    ) -> Result<Option<Vec<Value>>, DbError> {
        nestor_common::stack::check()?;
        let Some(t) = &self.func.trigger else {
            return Err(DbError::internal(
                "a trigger call of a function that is not a trigger function",
            ));
        };
        self.shape = Some(call.cols.iter().map(|(_, ty)| *ty).collect());
        let values = [
            Value::Text(Arc::from(call.name)),
            Value::Text(Arc::from(call.when)),
            Value::Text(Arc::from(call.level)),
            Value::Text(Arc::from(call.op)),
            Value::Int8(i64::from(call.rel_oid.0)),
            Value::Text(Arc::from(call.rel_name)),
            Value::Text(Arc::from(call.rel_name)),
            Value::Text(Arc::from(call.schema)),
            Value::Int4(call.args.len() as i32),
            trigger_argv(call.args),
        ];
        for (&d, v) in t.tg.iter().zip(values) {
            self.vals[d] = Some(v);
        }
        // NEW and OLD are NULLs of the table's row type where the event
        // has no such row.
        let (new, old) = (t.new, t.old);
        let rec = |vals: Option<Vec<Value>>| match vals {
            Some(vals) => Rec::row(call.cols.clone(), vals),
            None => Rec::null_of(call.cols.clone()),
        };
        self.recs.insert(new, rec(call.new));
        self.recs.insert(old, rec(call.old));
        self.vals[self.func.found] = Some(Value::Bool(false));
        // The transition tables, seen by this call's own SQL only (its
        // resolver names them); a nested trigger call sets its own.
        let mut rows = Vec::new();
        if let Some(tr) = call.transition {
            for (name, r) in [tr.old, tr.new].into_iter().flatten() {
                self.enrs.push((name, call.cols.clone()));
                rows.push(r);
            }
        }
        let saved = std::mem::replace(&mut ctx.transition, rows);
        let flow = self.block(ctx, &self.func.body);
        ctx.transition = saved;
        let flow = flow?;
        if !matches!(flow, Flow::Return) {
            return Err(DbError::new(
                SqlState::FunctionExecutedNoReturnStatement,
                "control reached end of trigger procedure without RETURN",
            )
            .with_context(format!("PL/pgSQL function {}", self.func.name)));
        }
        Ok(self.ret_row)
    }

    fn finish(self, returned: bool) -> Result<Outcome, DbError> {
        let Some(def) = self.def else {
            return Ok(Outcome::Value(Value::Null));
        };
        if def.retset {
            return Ok(Outcome::Rows(self.rows));
        }
        let outs: Vec<usize> = def
            .args
            .iter()
            .enumerate()
            .filter(|(_, a)| a.mode.is_output())
            .map(|(i, _)| i)
            .collect();
        if !outs.is_empty() {
            let vals: Vec<Value> = outs
                .iter()
                .map(|&i| self.vals[i].clone().unwrap_or(Value::Null))
                .collect();
            return Ok(match &def.returns {
                Returns::Row(_) | Returns::RowType(_) => Outcome::Rows(vec![vals]),
                _ => Outcome::Value(vals.into_iter().next().unwrap_or(Value::Null)),
            });
        }
        if def.procedure || matches!(def.returns, Returns::Scalar(DataType::Void)) {
            return Ok(Outcome::Value(Value::Text(Arc::from(""))));
        }
        if !returned {
            return Err(DbError::new(
                SqlState::FunctionExecutedNoReturnStatement,
                "control reached end of function without RETURN",
            )
            .with_context(format!("PL/pgSQL function {}", self.func.name)));
        }
        if let (Returns::Row(_) | Returns::RowType(_), Some(shape)) = (&def.returns, &self.shape) {
            let n = shape.len();
            return Ok(Outcome::Rows(vec![self
                .ret_row
                .unwrap_or_else(|| vec![Value::Null; n])]));
        }
        Ok(Outcome::Value(self.ret.unwrap_or(Value::Null)))
    }

    fn context(&self, stmt: &Stmt) -> String {
        format!(
            "PL/pgSQL function {} line {} at {}",
            self.func.name,
            stmt.lineno(),
            stmt.what()
        )
    }

    /// A declaration's initialization failed: PostgreSQL's CONTEXT names
    /// the declaration's line.
    fn init_context(&mut self, e: DbError, d: usize) -> DbError {
        let line = match &self.func.datums[d] {
            Datum::Var(v) => v.lineno,
            _ => 0,
        };
        if self.lined || line <= 0 {
            return e;
        }
        self.lined = true;
        add_context(
            e,
            format!(
                "PL/pgSQL function {} line {line} during statement block local variable initialization",
                self.func.name
            ),
        )
    }

    // ----- blocks and statement lists -----------------------------------

    fn block(&mut self, ctx: &mut StatementCtx<'_>, b: &Block) -> Result<Flow, DbError> {
        for &d in &b.decls {
            self.init_datum(ctx, d)
                .map_err(|e| self.init_context(e, d))?;
        }
        let Some(h) = &b.handlers else {
            return self.stmts(ctx, &b.body);
        };
        // An exception block: a mark in the undo log.
        let mark = format!("\u{0}plpgsql{}", self.depth);
        ctx.txn.savepoint(&mark).map_err(DbError::from)?;
        self.depth += 1;
        let r = self.stmts(ctx, &b.body);
        self.depth -= 1;
        match r {
            Ok(flow) => {
                ctx.txn.release(&mark).map_err(DbError::from)?;
                Ok(flow)
            }
            Err(e) => {
                let Some(handler) = h
                    .list
                    .iter()
                    .find(|h| h.conds.iter().any(|c| matches(c, &e)))
                else {
                    ctx.txn.rollback_to(&mark).map_err(DbError::from)?;
                    ctx.txn.release(&mark).map_err(DbError::from)?;
                    return Err(e);
                };
                ctx.txn.rollback_to(&mark).map_err(DbError::from)?;
                ctx.txn.release(&mark).map_err(DbError::from)?;
                if let Some(d) = h.sqlstate {
                    self.vals[d] = Some(Value::Text(Arc::from(e.sqlstate())));
                }
                if let Some(d) = h.sqlerrm {
                    self.vals[d] = Some(Value::Text(Arc::from(e.message.as_str())));
                }
                self.lined = false;
                self.handling.push(e);
                let r = self.stmts(ctx, &handler.body);
                self.handling.pop();
                r
            }
        }
    }

    fn init_datum(&mut self, ctx: &mut StatementCtx<'_>, d: usize) -> Result<(), DbError> {
        match &self.func.datums[d] {
            Datum::Var(v) => {
                let val = match &v.default {
                    Some(e) => {
                        let val = self.eval(ctx, e)?;
                        self.cast(ctx, val, v.ty)?
                    }
                    // A bound cursor's portal is named after it.
                    None if v.cursor.is_some() => Value::Text(Arc::from(v.name.as_str())),
                    None => Value::Null,
                };
                let val = self.check_var_domain(ctx, v.domain, val)?;
                if v.not_null && val.is_null() {
                    return Err(DbError::new(
                        SqlState::NullValueNotAllowed,
                        format!(
                            "variable \"{}\" must have a default value, since it's declared NOT NULL",
                            v.name
                        ),
                    ));
                }
                self.vals[d] = Some(val);
            }
            Datum::Rec { declared, .. } => match declared {
                Some(rt) => {
                    self.recs.insert(d, Rec::null_of(row_columns(rt)));
                }
                None => {
                    self.recs.remove(&d);
                }
            },
            Datum::Row | Datum::RecField { .. } => {}
        }
        Ok(())
    }

    fn stmts(&mut self, ctx: &mut StatementCtx<'_>, list: &[Stmt]) -> Result<Flow, DbError> {
        for s in list {
            (ctx.wait.interrupt)().map_err(DbError::from)?;
            let flow = match self.stmt(ctx, s) {
                Ok(f) => f,
                Err(e) if self.lined => return Err(e),
                Err(e) => {
                    self.lined = true;
                    return Err(add_context(e, self.context(s)));
                }
            };
            if !matches!(flow, Flow::Normal) {
                return Ok(flow);
            }
        }
        Ok(Flow::Normal)
    }

    /// Run a loop body; Some(flow) when the loop must end with it.
    fn loop_body(
        &mut self,
        ctx: &mut StatementCtx<'_>,
        label: &Option<String>,
        body: &[Stmt],
    ) -> Result<Option<Flow>, DbError> {
        match self.stmts(ctx, body)? {
            Flow::Normal => Ok(None),
            Flow::Return => Ok(Some(Flow::Return)),
            Flow::Exit(None) => Ok(Some(Flow::Normal)),
            Flow::Exit(Some(l)) if label.as_deref() == Some(l.as_str()) => Ok(Some(Flow::Normal)),
            Flow::Exit(l) => Ok(Some(Flow::Exit(l))),
            Flow::Continue(None) => Ok(None),
            Flow::Continue(Some(l)) if label.as_deref() == Some(l.as_str()) => Ok(None),
            Flow::Continue(l) => Ok(Some(Flow::Continue(l))),
        }
    }

    fn stmt(&mut self, ctx: &mut StatementCtx<'_>, s: &Stmt) -> Result<Flow, DbError> {
        match s {
            Stmt::Block(b) => {
                let flow = self.block(ctx, b)?;
                Ok(match flow {
                    Flow::Exit(Some(l)) if b.label.as_deref() == Some(l.as_str()) => Flow::Normal,
                    f => f,
                })
            }
            Stmt::Assign {
                target,
                expr,
                subscripts,
                ..
            } => {
                if let Some(s) = subscripts {
                    self.check_subscriptable(target, expr)?;
                    let v = self.eval(ctx, expr)?;
                    self.assign_subscripted(ctx, target, s, v)?;
                } else if let Target::Rec(_) = target {
                    // `r := composite`: the record takes its fields.
                    let (v, ty) = self.eval_typed(ctx, expr)?;
                    match (ty, v) {
                        (ty, Value::Record(f)) => {
                            // An anonymous ROW(...) has fields f1, f2, ...
                            let cols = match ty {
                                DataType::Record(rt) if rt.fields.len() == f.len() => {
                                    row_columns(rt)
                                }
                                _ => Arc::new(
                                    f.iter()
                                        .enumerate()
                                        .map(|(i, v)| (format!("f{}", i + 1), v.data_type()))
                                        .collect(),
                                ),
                            };
                            self.assign_row(ctx, target, &cols, f.to_vec())?;
                        }
                        (DataType::Record(rt), Value::Null) if !rt.fields.is_empty() => {
                            let nulls = vec![Value::Null; rt.fields.len()];
                            self.assign_row(ctx, target, &row_columns(rt), nulls)?;
                        }
                        (_, v) => self.assign(ctx, target, v)?,
                    }
                } else {
                    let v = self.eval(ctx, expr)?;
                    self.assign(ctx, target, v)?;
                }
                Ok(Flow::Normal)
            }
            Stmt::If {
                branches, else_, ..
            } => {
                for (cond, body) in branches {
                    if self.eval_bool(ctx, cond)? {
                        return self.stmts(ctx, body);
                    }
                }
                self.stmts(ctx, else_)
            }
            Stmt::Case {
                operand,
                whens,
                else_,
                ..
            } => {
                if let Some((e, dno)) = operand {
                    let v = self.eval(ctx, e)?;
                    self.vals[*dno] = Some(v);
                }
                for (cond, body) in whens {
                    let hit = match operand {
                        // CASE x WHEN a, b: the compiled WHEN tests
                        // "x IN (a, b)" on the hidden variable.
                        Some(_) => self.eval_bool(ctx, cond)?,
                        None => self.eval_bool(ctx, cond)?,
                    };
                    if hit {
                        return self.stmts(ctx, body);
                    }
                }
                match else_ {
                    Some(body) => self.stmts(ctx, body),
                    None => Err(DbError::new(SqlState::CaseNotFound, "case not found")
                        .with_hint("CASE statement is missing ELSE part.")),
                }
            }
            Stmt::Loop { label, body, .. } => loop {
                if let Some(f) = self.loop_body(ctx, label, body)? {
                    return Ok(f);
                }
            },
            Stmt::While {
                label, cond, body, ..
            } => {
                while self.eval_bool(ctx, cond)? {
                    if let Some(f) = self.loop_body(ctx, label, body)? {
                        return Ok(f);
                    }
                }
                Ok(Flow::Normal)
            }
            Stmt::ForInt {
                label,
                var,
                lower,
                upper,
                step,
                reverse,
                body,
                ..
            } => self.for_int(
                ctx,
                label,
                *var,
                lower,
                upper,
                step.as_deref(),
                *reverse,
                body,
            ),
            Stmt::ForQuery {
                label,
                target,
                query,
                dynamic,
                body,
                ..
            } => {
                let rows = match dynamic {
                    None => self.query_rows(ctx, query)?,
                    Some(params) => self.dynamic_rows(ctx, query, params)?.0,
                };
                // A loop over a query that writes (UPDATE ... RETURNING)
                // may not end the transaction inside (PostgreSQL's cursor
                // would have to be held past its commit).
                let writing = dynamic.is_none()
                    && self
                        .plan(ctx, query)
                        .is_ok_and(|p| writes(&p.prepared).is_some());
                self.vals[self.func.found] = Some(Value::Bool(!rows.1.is_empty()));
                let (cols, rows) = rows;
                let mut flow = Flow::Normal;
                self.writing_loops += u32::from(writing);
                let mut r = Ok(());
                for row in rows {
                    r = self.assign_row(ctx, target, &cols, row);
                    if r.is_err() {
                        break;
                    }
                    match self.loop_body(ctx, label, body) {
                        Ok(None) => {}
                        Ok(Some(f)) => {
                            flow = f;
                            break;
                        }
                        Err(e) => {
                            r = Err(e);
                            break;
                        }
                    }
                }
                self.writing_loops -= u32::from(writing);
                r.map(|()| flow)
            }
            Stmt::ForEach {
                label,
                target,
                slice,
                expr,
                body,
                ..
            } => self.foreach(ctx, label, target, *slice, expr, body),
            Stmt::Open {
                curvar,
                options,
                source,
                ..
            } => {
                self.open_cursor(ctx, *curvar, *options, source)?;
                Ok(Flow::Normal)
            }
            Stmt::Fetch {
                curvar,
                direction,
                how_many,
                count,
                is_move,
                into,
                ..
            } => {
                let name = self.cursor_name(*curvar)?;
                let n = match count {
                    Some(e) => {
                        let v = self.eval(ctx, e)?;
                        match self.cast(ctx, v, DataType::Int8)? {
                            Value::Int8(n) => n,
                            _ => {
                                return Err(DbError::new(
                                    SqlState::NullValueNotAllowed,
                                    "relative or absolute cursor position is null",
                                ))
                            }
                        }
                    }
                    None => *how_many,
                };
                let dir = match direction {
                    1 => Dir::Backward(n),
                    2 => Dir::Absolute(n),
                    3 => Dir::Relative(n),
                    _ => Dir::Forward(n),
                };
                let (cols, rows) = ctx.cursors.fetch(&name, dir, *is_move)?;
                self.row_count = rows.len() as u64;
                self.vals[self.func.found] = Some(Value::Bool(!rows.is_empty()));
                if let Some(t) = into {
                    let cols = Arc::new(desc_columns(&cols));
                    let row = rows
                        .into_iter()
                        .next()
                        .unwrap_or_else(|| vec![Value::Null; cols.len()]);
                    self.assign_row(ctx, t, &cols, row)?;
                }
                Ok(Flow::Normal)
            }
            Stmt::Close { curvar, .. } => {
                let name = self.cursor_name(*curvar)?;
                ctx.cursors.close(&name)?;
                Ok(Flow::Normal)
            }
            Stmt::ForCursor {
                label,
                rec,
                curvar,
                args,
                body,
                ..
            } => self.for_cursor(ctx, label, *rec, *curvar, args, body),
            Stmt::Exit {
                is_exit,
                label,
                cond,
                ..
            } => {
                if let Some(c) = cond {
                    if !self.eval_bool(ctx, c)? {
                        return Ok(Flow::Normal);
                    }
                }
                Ok(if *is_exit {
                    Flow::Exit(label.clone())
                } else {
                    Flow::Continue(label.clone())
                })
            }
            Stmt::Return { expr, .. } => {
                if let Some(e) = expr {
                    let retset = self.def.is_some_and(|d| d.retset);
                    if retset {
                        return Err(DbError::new(
                            SqlState::SyntaxError,
                            "RETURN cannot have a parameter in function returning set",
                        )
                        .with_hint("Use RETURN NEXT or RETURN QUERY."));
                    }
                    if self.def.is_some_and(|d| d.returns == Returns::Trigger) {
                        // NEW, OLD, another record, or NULL (skip the row).
                        self.ret_row = match self.rec_of(e) {
                            Some(d) => self.recs.get(&d).filter(|r| !r.null).map(|r| r.vals.clone()),
                            None => match self.eval(ctx, e)? {
                                Value::Null => None,
                                Value::Record(fields) => Some(fields.to_vec()),
                                _ => {
                                    return Err(DbError::new(
                                        SqlState::DatatypeMismatch,
                                        "cannot return non-composite value from function returning composite type",
                                    ))
                                }
                            },
                        };
                        if let Some(row) = self.ret_row.take() {
                            self.ret_row = Some(self.fit_row(
                                ctx,
                                row,
                                "returned row structure does not match the structure of the triggering table",
                            )?);
                        }
                        return Ok(Flow::Return);
                    }
                    let row_result = self.def.is_some_and(|d| {
                        matches!(d.returns, Returns::Row(_) | Returns::RowType(_))
                    });
                    if row_result {
                        let row = self.row_value(ctx, e)?;
                        self.ret_row = Some(self.fit_row(
                            ctx,
                            row,
                            "returned record type does not match expected record type",
                        )?);
                        return Ok(Flow::Return);
                    }
                    let v = self.eval(ctx, e)?;
                    let v = match self.def.map(|d| &d.returns) {
                        Some(Returns::Scalar(t)) => self.cast(ctx, v, *t)?,
                        _ => v,
                    };
                    self.ret = Some(v);
                }
                Ok(Flow::Return)
            }
            Stmt::ReturnNext { expr, .. } => {
                // RETURN NEXT rec: the record's values.
                if let Some(d) = expr.as_ref().and_then(|e| self.rec_of(e)) {
                    let r = self.recs.get(&d).ok_or_else(|| unassigned(self.func, d))?;
                    let row = r.vals.clone();
                    let row =
                        self.fit_row(ctx, row, "wrong record type supplied in RETURN NEXT")?;
                    self.rows.push(row);
                    return Ok(Flow::Normal);
                }
                let row = match expr {
                    Some(e) => {
                        let v = self.eval(ctx, e)?;
                        let v = match self.def.map(|d| &d.returns) {
                            Some(Returns::Scalar(t)) => self.cast(ctx, v, *t)?,
                            _ => v,
                        };
                        vec![v]
                    }
                    None => self.out_row(),
                };
                self.rows.push(row);
                Ok(Flow::Normal)
            }
            Stmt::ReturnQuery { query, dynamic, .. } => {
                let (cols, rows) = match dynamic {
                    None => self.query_rows(ctx, query)?,
                    Some(params) => self.dynamic_rows(ctx, query, params)?.0,
                };
                // Checked as the query runs in PostgreSQL: its statement
                // is named.
                let rows = self
                    .fit_query(ctx, &cols, rows)
                    .map_err(|e| match dynamic {
                        None => add_context(e, format!("SQL statement \"{}\"", query.text)),
                        Some(_) => e,
                    })?;
                self.row_count = rows.len() as u64;
                self.vals[self.func.found] = Some(Value::Bool(!rows.is_empty()));
                self.rows.extend(rows);
                Ok(Flow::Normal)
            }
            Stmt::Raise {
                level,
                condname,
                message,
                params,
                options,
                ..
            } => {
                self.raise(ctx, *level, condname, message, params, options)?;
                Ok(Flow::Normal)
            }
            Stmt::Assert { cond, message, .. } => {
                if ctx.settings.get("plpgsql.check_asserts") == Some("off") {
                    return Ok(Flow::Normal);
                }
                let ok = self.eval(ctx, cond)?;
                if matches!(ok, Value::Bool(true)) {
                    return Ok(Flow::Normal);
                }
                let msg = match message {
                    Some(m) => match self.eval(ctx, m)? {
                        Value::Null => "assertion failed".to_string(),
                        v => value_text(ctx, &v),
                    },
                    None => "assertion failed".to_string(),
                };
                Err(DbError::new(SqlState::AssertFailure, msg))
            }
            Stmt::ExecSql {
                sql, into, strict, ..
            } => {
                self.exec_sql(ctx, sql, into.as_ref(), *strict)?;
                Ok(Flow::Normal)
            }
            Stmt::DynExecute {
                query,
                into,
                strict,
                params,
                ..
            } => {
                let ((cols, rows), tag) = self.dynamic_rows(ctx, query, params)?;
                let n = tag_rows(tag, rows.len());
                self.after_sql(ctx, into.as_ref(), *strict, cols, rows, n)?;
                Ok(Flow::Normal)
            }
            Stmt::Perform { expr, .. } => {
                let (_, rows) = self.query_rows(ctx, expr)?;
                self.row_count = rows.len() as u64;
                self.vals[self.func.found] = Some(Value::Bool(!rows.is_empty()));
                Ok(Flow::Normal)
            }
            Stmt::GetDiag { stacked, items, .. } => {
                for (kind, target) in items {
                    let v = self.diagnostic(*stacked, kind)?;
                    self.assign(ctx, &Target::Var(*target), v)?;
                }
                Ok(Flow::Normal)
            }
            Stmt::Call { expr, .. } => {
                let plan = self.plan(ctx, expr)?;
                // Where the output arguments go, checked before the call.
                let targets = match plan.prepared.plan_snapshot().as_ref() {
                    PlannedStmt::Call { def, args } => {
                        self.output_targets(def, args, &plan.slots)?
                    }
                    _ => Vec::new(),
                };
                let params = self.params(&plan)?;
                let mut rows: Vec<Vec<Value>> = Vec::new();
                self.run(ctx, &plan, &params, &mut rows)
                    .map_err(|e| spi_error(e, expr))?;
                if let Some(row) = rows.into_iter().next() {
                    for (t, v) in targets.iter().zip(row) {
                        self.assign(ctx, t, v)?;
                    }
                }
                Ok(Flow::Normal)
            }
            Stmt::Commit { .. } => self.end_transaction(ctx, true),
            Stmt::Rollback { .. } => self.end_transaction(ctx, false),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn for_int(
        &mut self,
        ctx: &mut StatementCtx<'_>,
        label: &Option<String>,
        var: usize,
        lower: &PlExpr,
        upper: &PlExpr,
        step: Option<&PlExpr>,
        reverse: bool,
        body: &[Stmt],
    ) -> Result<Flow, DbError> {
        let int = |run: &mut Self, ctx: &mut StatementCtx<'_>, e: &PlExpr, what: &str| {
            let v = run.eval(ctx, e)?;
            let v = run.cast(ctx, v, DataType::Int4)?;
            match v {
                Value::Int4(i) => Ok(i as i64),
                _ => Err(DbError::new(
                    SqlState::NullValueNotAllowed,
                    format!("{what} of FOR loop cannot be null"),
                )),
            }
        };
        let lo = int(self, ctx, lower, "lower bound")?;
        let hi = int(self, ctx, upper, "upper bound")?;
        let by = match step {
            Some(s) => {
                let b = int(self, ctx, s, "BY value")?;
                if b <= 0 {
                    return Err(DbError::new(
                        SqlState::InvalidParameterValue,
                        "BY value of FOR loop must be greater than zero",
                    ));
                }
                b
            }
            None => 1,
        };
        let mut i = lo;
        let mut found = false;
        loop {
            if (!reverse && i > hi) || (reverse && i < hi) {
                break;
            }
            found = true;
            self.vals[var] = Some(Value::Int4(i as i32));
            if let Some(f) = self.loop_body(ctx, label, body)? {
                self.vals[self.func.found] = Some(Value::Bool(true));
                return Ok(f);
            }
            i = if reverse { i - by } else { i + by };
            if i > i32::MAX as i64 || i < i32::MIN as i64 {
                break;
            }
        }
        self.vals[self.func.found] = Some(Value::Bool(found));
        Ok(Flow::Normal)
    }

    /// The portal name a cursor variable holds (22004 when NULL).
    fn cursor_name(&self, curvar: usize) -> Result<String, DbError> {
        match &self.vals[curvar] {
            Some(Value::Text(t)) => Ok(t.to_string()),
            Some(Value::Null) | None => Err(DbError::new(
                SqlState::NullValueNotAllowed,
                format!(
                    "cursor variable \"{}\" is null",
                    self.func.datums[curvar].name()
                ),
            )),
            Some(v) => Err(err_plpgsql(format!(
                "cursor variable \"{}\" holds a {} value",
                self.func.datums[curvar].name(),
                v.data_type()
            ))),
        }
    }

    /// OPEN: run the query and keep its rows as a cursor of the session
    /// (crate::context::Cursors) under the variable's name, or a new
    /// `<unnamed portal N>` put into the variable when it is NULL. Returns
    /// the name and whether the variable was NULL.
    fn open_cursor(
        &mut self,
        ctx: &mut StatementCtx<'_>,
        curvar: usize,
        options: i64,
        source: &CursorSource,
    ) -> Result<(String, bool), DbError> {
        let given = match &self.vals[curvar] {
            Some(Value::Text(t)) => Some(t.to_string()),
            _ => None,
        };
        if let Some(name) = &given {
            if ctx.cursors.is_open(name) {
                return Err(DbError::new(
                    SqlState::DuplicateCursor,
                    format!("cursor \"{name}\" already in use"),
                ));
            }
        }
        let (query, options, (cols, rows), backward) = match source {
            CursorSource::Bound { args } => {
                let func = self.func;
                let Datum::Var(super::compile::VarDef {
                    cursor: Some(decl), ..
                }) = &func.datums[curvar]
                else {
                    return Err(err_plpgsql(format!(
                        "cursor \"{}\" has no argument query",
                        self.func.datums[curvar].name()
                    )));
                };
                if let Some(a) = args {
                    self.set_cursor_args(ctx, &decl.args, a)?;
                }
                let rows = self.query_rows(ctx, &decl.query)?;
                let backward = self
                    .plan(ctx, &decl.query)?
                    .prepared
                    .supports_backward_scan();
                (decl.query.text.clone(), decl.options, rows, backward)
            }
            CursorSource::Query(q) => {
                let rows = self.query_rows(ctx, q)?;
                let backward = self.plan(ctx, q)?.prepared.supports_backward_scan();
                (q.text.clone(), options, rows, backward)
            }
            CursorSource::Dynamic { query, params } => {
                let ((cols, rows), _) = self.dynamic_rows(ctx, query, params)?;
                (query.text.clone(), options, (cols, rows), false)
            }
        };
        let scrollable =
            options & CURSOR_OPT_SCROLL != 0 || (options & CURSOR_OPT_NO_SCROLL == 0 && backward);
        let name = match &given {
            Some(n) => n.clone(),
            None => ctx.cursors.unnamed(),
        };
        ctx.cursors
            .open(&name, opened_cursor(&cols, rows, scrollable, &query))?;
        if given.is_none() {
            self.assign(
                ctx,
                &Target::Var(curvar),
                Value::Text(Arc::from(name.as_str())),
            )?;
        }
        Ok((name, given.is_none()))
    }

    /// A bound cursor's arguments: `SELECT <args>` into its argument
    /// variables.
    fn set_cursor_args(
        &mut self,
        ctx: &mut StatementCtx<'_>,
        args: &[usize],
        values: &PlExpr,
    ) -> Result<(), DbError> {
        let (cols, rows) = self.query_rows(ctx, values)?;
        let row = rows
            .into_iter()
            .next()
            .unwrap_or_else(|| vec![Value::Null; cols.len()]);
        self.assign_row(ctx, &Target::Row(args.to_vec()), &cols, row)
    }

    /// FOR rec IN cursor [(args)] LOOP: the cursor opened as OPEN opens it,
    /// read a row at a time (a FETCH or MOVE in the body moves it too),
    /// closed after the loop; a variable that was NULL is again.
    fn for_cursor(
        &mut self,
        ctx: &mut StatementCtx<'_>,
        label: &Option<String>,
        rec: usize,
        curvar: usize,
        args: &Option<Arc<PlExpr>>,
        body: &[Stmt],
    ) -> Result<Flow, DbError> {
        let source = CursorSource::Bound { args: args.clone() };
        let (name, generated) = self.open_cursor(ctx, curvar, 0, &source)?;
        let mut found = false;
        let mut r = Ok(Flow::Normal);
        loop {
            let (cols, rows) = match ctx.cursors.fetch(&name, Dir::Forward(1), false) {
                Ok(x) => x,
                Err(e) => {
                    r = Err(e);
                    break;
                }
            };
            let Some(row) = rows.into_iter().next() else {
                break;
            };
            found = true;
            let cols = Arc::new(desc_columns(&cols));
            if let Err(e) = self.assign_row(ctx, &Target::Rec(rec), &cols, row) {
                r = Err(e);
                break;
            }
            match self.loop_body(ctx, label, body) {
                Ok(None) => {}
                Ok(Some(f)) => {
                    r = Ok(f);
                    break;
                }
                Err(e) => {
                    r = Err(e);
                    break;
                }
            }
        }
        if ctx.cursors.is_open(&name) {
            ctx.cursors.close(&name)?;
        }
        if generated {
            self.vals[curvar] = Some(Value::Null);
        }
        let flow = r?;
        self.vals[self.func.found] = Some(Value::Bool(found));
        Ok(flow)
    }

    /// FOREACH target [SLICE n] IN ARRAY expr: the elements in storage
    /// order (row-major, whatever the dimensions), or with SLICE n the
    /// n-dimensional sub-arrays (subscripted from 1), as PostgreSQL's
    /// array iterator gives them; its checks, in its order.
    fn foreach(
        &mut self,
        ctx: &mut StatementCtx<'_>,
        label: &Option<String>,
        target: &Target,
        slice: i64,
        expr: &PlExpr,
        body: &[Stmt],
    ) -> Result<Flow, DbError> {
        let (v, ty) = self.eval_typed(ctx, expr)?;
        let arr = match v {
            Value::Null => {
                return Err(DbError::new(
                    SqlState::NullValueNotAllowed,
                    "FOREACH expression must not be null",
                ))
            }
            Value::Array(a) => a,
            v => {
                let ty = if ty == DataType::Unknown {
                    v.data_type()
                } else {
                    ty
                };
                return Err(DbError::new(
                    SqlState::DatatypeMismatch,
                    format!("FOREACH expression must yield an array, not type {ty}"),
                ));
            }
        };
        let ndims = arr.ndims();
        if slice < 0 || slice > ndims as i64 {
            return Err(DbError::new(
                SqlState::ArraySubscriptError,
                format!("slice dimension ({slice}) is out of the valid range 0..{ndims}"),
            ));
        }
        let var_is_array = match target {
            Target::Var(d) => match &self.func.datums[*d] {
                Datum::Var(v) => v.ty.element().is_some(),
                _ => false,
            },
            _ => false,
        };
        if slice > 0 && !var_is_array {
            return Err(DbError::new(
                SqlState::DatatypeMismatch,
                "FOREACH ... SLICE loop variable must be of an array type",
            ));
        }
        if slice == 0 && var_is_array {
            return Err(DbError::new(
                SqlState::DatatypeMismatch,
                "FOREACH loop variable must not be of an array type",
            ));
        }
        let slice = slice as usize;
        let inner: Vec<nestor_types::array::Dim> = arr.dims[ndims - slice..]
            .iter()
            .map(|d| nestor_types::array::Dim {
                len: d.len,
                lower: 1,
            })
            .collect();
        let per: usize = inner.iter().map(|d| d.len as usize).product();
        let mut found = false;
        let mut flow = Flow::Normal;
        for chunk in arr.items.chunks(per.max(1)) {
            found = true;
            let v = if slice == 0 {
                chunk[0].clone()
            } else {
                Array::new(arr.elem, inner.clone(), chunk.to_vec())?.value()
            };
            self.assign_element(ctx, target, arr.elem, v)?;
            if let Some(f) = self.loop_body(ctx, label, body)? {
                flow = f;
                break;
            }
        }
        self.vals[self.func.found] = Some(Value::Bool(found));
        Ok(flow)
    }

    /// Assign an array element to a loop variable: a composite element to
    /// a record or a list of variables field by field.
    fn assign_element(
        &mut self,
        ctx: &mut StatementCtx<'_>,
        target: &Target,
        elem: DataType,
        v: Value,
    ) -> Result<(), DbError> {
        let (Target::Rec(_) | Target::Row(_), DataType::Record(rt)) = (target, elem) else {
            return self.assign(ctx, target, v);
        };
        let cols: Columns = Arc::new(rt.fields.clone());
        match v {
            Value::Record(fields) => self.assign_row(ctx, target, &cols, fields.to_vec()),
            _ => {
                let nulls = vec![Value::Null; cols.len()];
                self.assign_row(ctx, target, &cols, nulls)
            }
        }
    }

    /// The record variable an expression is, when it is one (`(r)`).
    fn rec_of(&self, e: &PlExpr) -> Option<usize> {
        let name = e
            .text
            .trim()
            .trim_start_matches('(')
            .trim_end_matches(')')
            .trim();
        // An unquoted name is folded to lower case, as the parser does.
        let name = match name.strip_prefix('"').and_then(|n| n.strip_suffix('"')) {
            Some(quoted) => quoted.to_string(),
            None => name.to_ascii_lowercase(),
        };
        let d = e.scope.lookup(&name)?;
        matches!(self.func.datums[d], Datum::Rec { .. }).then_some(d)
    }

    // ----- values ---------------------------------------------------------

    /// The variables a CALL passed for the procedure's OUT and INOUT
    /// arguments, in the order of its output arguments, which get their
    /// values back.
    fn output_targets(
        &self,
        def: &FunctionDef,
        args: &[Expr],
        slots: &[Slot],
    ) -> Result<Vec<Target>, DbError> {
        let mut targets = Vec::new();
        // One argument per procedure argument (bind_procedure_call).
        for (a, given) in def.args.iter().zip(args) {
            if !a.mode.is_output() {
                continue;
            }
            let mut e = Some(given);
            while let Some(Expr::Cast(inner, _)) = e {
                e = Some(inner);
            }
            let target = match e {
                Some(Expr::Param(i)) => match slots.get(*i) {
                    Some(Slot::Datum(d)) => match self.func.datums[*d] {
                        Datum::Var(_) => Some(Target::Var(*d)),
                        Datum::Rec { .. } => Some(Target::Rec(*d)),
                        _ => None,
                    },
                    Some(Slot::Field(rec, f)) => Some(Target::Field(*rec, f.clone())),
                    Some(Slot::Rec(d)) => Some(Target::Rec(*d)),
                    None => None,
                },
                _ => None,
            };
            match target {
                Some(t) => targets.push(t),
                None => {
                    return Err(DbError::new(
                        SqlState::SyntaxError,
                        format!(
                            "procedure parameter \"{}\" is an output parameter but corresponding argument is not writable",
                            a.name
                        ),
                    ))
                }
            }
        }
        Ok(targets)
    }

    /// COMMIT / ROLLBACK [AND CHAIN] in a procedure or DO block called on
    /// its own: the transaction ends and the rest runs in a new one with
    /// the same characteristics (AND CHAIN's, and the defaults the
    /// statement's transaction began with alike).
    fn end_transaction(
        &mut self,
        ctx: &mut StatementCtx<'_>,
        commit: bool,
    ) -> Result<Flow, DbError> {
        if !ctx.may_end_txn {
            return Err(DbError::new(
                SqlState::InvalidTransactionTermination,
                "invalid transaction termination",
            ));
        }
        if self.writing_loops > 0 {
            return Err(DbError::new(
                SqlState::InvalidTransactionTermination,
                "cannot perform transaction commands inside a cursor loop that is not read-only",
            ));
        }
        if ctx.txn.savepoint_stats().depth > 0 {
            return Err(DbError::new(
                SqlState::InvalidTransactionTermination,
                if commit {
                    "cannot commit while a subtransaction is active"
                } else {
                    "cannot roll back while a subtransaction is active"
                },
            ));
        }
        // The checks of DEFERRABLE constraints belong to the transaction
        // ending here: at its commit, or gone with its rollback.
        let deferred = std::mem::take(ctx.deferred);
        ctx.constraints_deferred = crate::ConstraintModes::default();
        if commit {
            crate::foreign_keys::check_deferred(ctx, deferred)?;
        }
        let csn = ctx.txn.restart(commit).map_err(DbError::from)?;
        if commit {
            ctx.catalog.after_commit(&ctx.db.store);
            if csn.is_some() {
                // As at a top-level COMMIT: the synchronous replicas first.
                let interrupt = ctx.wait.interrupt;
                if let Some(w) = ctx.db.replication.wait_after_commit(
                    &ctx.db.log,
                    ctx.settings.get("synchronous_commit"),
                    &|| interrupt().is_err(),
                ) {
                    ctx.notices.push(w);
                }
            }
        }
        ctx.restarts += 1;
        let now = nestor_types::EvalCtx::utc_now().now;
        ctx.txn_start_us = now;
        ctx.eval.now = now;
        ctx.stmt_start_us = now;
        ctx.snapshot = ctx.txn.start_statement_with(&ctx.wait)?;
        Ok(Flow::Normal)
    }

    /// The values of a row-valued expression: a record or row variable,
    /// or NULL (a row of NULLs).
    fn row_value(&mut self, ctx: &mut StatementCtx<'_>, e: &PlExpr) -> Result<Vec<Value>, DbError> {
        if let Some(d) = self.rec_of(e) {
            let r = self.recs.get(&d).ok_or_else(|| unassigned(self.func, d))?;
            return Ok(r.vals.clone());
        }
        match self.eval(ctx, e)? {
            Value::Null => Ok(vec![Value::Null; self.shape.as_ref().map_or(0, Vec::len)]),
            _ => Err(DbError::new(
                SqlState::DatatypeMismatch,
                "cannot return non-composite value from function returning composite type",
            )),
        }
    }

    /// A row for the result: as many columns as the result has, each cast
    /// to the result's type (PL/pgSQL's assignment rules).
    fn fit_row(
        &self,
        ctx: &StatementCtx<'_>,
        row: Vec<Value>,
        message: &str,
    ) -> Result<Vec<Value>, DbError> {
        let Some(shape) = &self.shape else {
            return Ok(row);
        };
        if row.len() != shape.len() {
            return Err(
                DbError::new(SqlState::DatatypeMismatch, message).with_detail(format!(
                    "Number of returned columns ({}) does not match expected column count ({}).",
                    row.len(),
                    shape.len()
                )),
            );
        }
        row.into_iter()
            .zip(shape)
            .map(|(v, t)| self.cast(ctx, v, *t))
            .collect()
    }

    /// RETURN QUERY's rows: the query's columns must be the result's, in
    /// number and type (PostgreSQL does not convert them).
    fn fit_query(
        &self,
        ctx: &StatementCtx<'_>,
        cols: &[(String, DataType)],
        rows: Vec<Vec<Value>>,
    ) -> Result<Vec<Vec<Value>>, DbError> {
        let Some(shape) = &self.shape else {
            return Ok(rows);
        };
        let mismatch = |detail: String| {
            DbError::new(
                SqlState::DatatypeMismatch,
                "structure of query does not match function result type",
            )
            .with_detail(detail)
        };
        if cols.len() != shape.len() {
            return Err(mismatch(format!(
                "Number of returned columns ({}) does not match expected column count ({}).",
                cols.len(),
                shape.len()
            )));
        }
        let mut cast = false;
        for (i, ((_, got), want)) in cols.iter().zip(shape).enumerate() {
            // An untyped literal's column is text, as PostgreSQL resolves
            // it in a SELECT list.
            match got {
                DataType::Unknown if *want == DataType::Text => cast = true,
                g if g.base() == want.base() => {}
                DataType::Unknown => {
                    return Err(mismatch(format!(
                        "Returned type text does not match expected type {} in column {}.",
                        want.name(),
                        i + 1
                    )))
                }
                g => {
                    return Err(mismatch(format!(
                        "Returned type {} does not match expected type {} in column {}.",
                        g.name(),
                        want.name(),
                        i + 1
                    )))
                }
            }
        }
        if !cast {
            return Ok(rows);
        }
        rows.into_iter()
            .map(|r| {
                r.into_iter()
                    .zip(shape)
                    .map(|(v, t)| self.cast(ctx, v, *t))
                    .collect()
            })
            .collect()
    }

    fn out_row(&self) -> Vec<Value> {
        let Some(def) = self.def else {
            return Vec::new();
        };
        def.args
            .iter()
            .enumerate()
            .filter(|(_, a)| a.mode.is_output())
            .map(|(i, _)| self.vals[i].clone().unwrap_or(Value::Null))
            .collect()
    }

    /// `v` checked against the domain a variable is declared as (its NOT
    /// NULL and CHECK constraints, as PostgreSQL's assignment coerces to
    /// the domain).
    fn check_var_domain(
        &mut self,
        ctx: &mut StatementCtx<'_>,
        domain: Option<u32>,
        v: Value,
    ) -> Result<Value, DbError> {
        let Some(oid) = domain else {
            return Ok(v);
        };
        let checks = match self.domain_checks.get(&oid) {
            Some(c) => c.clone(),
            None => {
                let Some(def) = nestor_types::domains::lookup(oid) else {
                    // Dropped since the function was compiled.
                    return Err(DbError::new(
                        SqlState::UndefinedObject,
                        format!("type with OID {oid} does not exist"),
                    ));
                };
                let c = Arc::new(nestor_plan::bind::domain::bind_domain_checks(
                    ctx.catalog,
                    ctx.eval,
                    nestor_plan::select::plan_query,
                    &def,
                    1,
                    0,
                )?);
                self.domain_checks.insert(oid, c.clone());
                c
            }
        };
        let mut ev = Ev::new(ctx, &[]);
        crate::executor::eval::check_domain(&checks, std::slice::from_ref(&v), &mut ev)?;
        Ok(v)
    }

    fn cast(&self, ctx: &StatementCtx<'_>, v: Value, ty: DataType) -> Result<Value, DbError> {
        if v.is_null() || ty == DataType::Unknown {
            return Ok(v);
        }
        nestor_plan::valops::cast(v, ty, false, &ctx.eval)
    }

    /// `arr[i] := v`, `arr[lo:hi] := v`: the variable's new array, made
    /// as an UPDATE's subscripted SET makes it (a NULL array is assigned
    /// into as an empty one).
    fn assign_subscripted(
        &mut self,
        ctx: &mut StatementCtx<'_>,
        target: &Target,
        s: &TargetSubscripts,
        v: Value,
    ) -> Result<(), DbError> {
        let Target::Var(d) = target else {
            return Err(DbError::unsupported(
                "subscripted assignment to a record field",
            ));
        };
        let Datum::Var(var) = &self.func.datums[*d] else {
            return Err(err_plpgsql("assignment to a non-variable"));
        };
        let ty = var.ty;
        let DataType::Array(elem) = ty else {
            return Err(DbError::new(
                SqlState::DatatypeMismatch,
                format!(
                    "cannot subscript type {} because it does not support subscripting",
                    ty.name()
                ),
            ));
        };
        if s.bounds.len() > ARRAY_DIMS_MAX {
            return Err(DbError::new(
                SqlState::ProgramLimitExceeded,
                format!(
                    "number of array dimensions ({}) exceeds the maximum allowed ({ARRAY_DIMS_MAX})",
                    s.bounds.len()
                ),
            ));
        }
        let mut lower = Vec::with_capacity(s.bounds.len());
        let mut upper = Vec::with_capacity(s.bounds.len());
        for (l, u) in &s.bounds {
            lower.push(self.subscript(ctx, l.as_ref())?);
            upper.push(self.subscript(ctx, u.as_ref())?);
        }
        let empty;
        let current = match self.vals[*d].as_ref() {
            Some(Value::Array(a)) => a.as_ref(),
            _ => {
                empty = Array::from_items(*elem, Vec::new());
                &empty
            }
        };
        let new = if s.slice {
            let v = self.cast(ctx, v, ty)?;
            let src = match &v {
                Value::Array(a) => Some(a.as_ref()),
                _ => None,
            };
            array_subscript::set_slice(current, &lower, &upper, src)?
        } else {
            let v = self.cast(ctx, v, *elem)?;
            let subs: Vec<i32> = upper.iter().map(|u| u.unwrap_or(0)).collect();
            array_subscript::set_element(current, &subs, v)?
        };
        self.assign(ctx, target, new.value())
    }

    /// `x[1] := v` of a variable that is no array: PostgreSQL's error,
    /// positioned at the variable in the assignment's text.
    fn check_subscriptable(&self, target: &Target, expr: &PlExpr) -> Result<(), DbError> {
        let Target::Var(d) = target else {
            return Ok(());
        };
        let Datum::Var(var) = &self.func.datums[*d] else {
            return Ok(());
        };
        if matches!(var.ty, DataType::Array(_)) {
            return Ok(());
        }
        let mut e = DbError::new(
            SqlState::DatatypeMismatch,
            format!(
                "cannot subscript type {} because it does not support subscripting",
                var.ty.name()
            ),
        );
        if let ExprKind::Assign { written, .. } = &expr.kind {
            e.internal = Some(Box::new(nestor_common::InternalQuery {
                position: 1,
                query: written.clone(),
            }));
        }
        Err(e)
    }

    /// A subscript of an assignment target, None where omitted.
    fn subscript(
        &mut self,
        ctx: &mut StatementCtx<'_>,
        e: Option<&Arc<PlExpr>>,
    ) -> Result<Option<i32>, DbError> {
        let Some(e) = e else {
            return Ok(None);
        };
        let v = self.eval(ctx, e)?;
        match self.cast(ctx, v, DataType::Int4)? {
            Value::Int4(i) => Ok(Some(i)),
            Value::Null => Err(DbError::new(
                SqlState::NullValueNotAllowed,
                "array subscript in assignment must not be null",
            )),
            _ => Err(DbError::new(
                SqlState::DatatypeMismatch,
                "array subscript must have type integer",
            )),
        }
    }

    fn assign(
        &mut self,
        ctx: &mut StatementCtx<'_>,
        target: &Target,
        v: Value,
    ) -> Result<(), DbError> {
        match target {
            Target::Var(d) => {
                let Datum::Var(var) = &self.func.datums[*d] else {
                    return Err(err_plpgsql("assignment to a non-variable"));
                };
                if var.constant {
                    return Err(DbError::new(
                        SqlState::SyntaxError,
                        format!("variable \"{}\" is declared CONSTANT", var.name),
                    ));
                }
                let v = self.cast(ctx, v, var.ty)?;
                let v = self.check_var_domain(ctx, var.domain, v)?;
                if var.not_null && v.is_null() {
                    return Err(DbError::new(
                        SqlState::NullValueNotAllowed,
                        format!(
                            "null value cannot be assigned to variable \"{}\" declared NOT NULL",
                            var.name
                        ),
                    ));
                }
                self.vals[*d] = Some(v);
                Ok(())
            }
            Target::Field(rec, field) => {
                let r = self
                    .recs
                    .get_mut(rec)
                    .ok_or_else(|| unassigned(self.func, *rec))?;
                let i = r
                    .cols
                    .iter()
                    .position(|(n, _)| n == field)
                    .ok_or_else(|| no_field(self.func, *rec, field))?;
                let ty = r.cols[i].1;
                let v = if v.is_null() {
                    v
                } else {
                    nestor_plan::valops::cast(v, ty, false, &ctx.eval)?
                };
                let r = self.recs.get_mut(rec).expect("checked");
                r.vals[i] = v;
                r.null = false;
                Ok(())
            }
            Target::Rec(_) | Target::Row(_) => {
                let cols = Arc::new(vec![("?column?".to_string(), DataType::Unknown)]);
                self.assign_row(ctx, target, &cols, vec![v])
            }
        }
    }

    /// Put one result row into a target (INTO, FOR loop variable).
    fn assign_row(
        &mut self,
        ctx: &mut StatementCtx<'_>,
        target: &Target,
        cols: &Columns,
        mut row: Vec<Value>,
    ) -> Result<(), DbError> {
        match target {
            Target::Rec(d) => {
                if let Datum::Rec {
                    declared: Some(rt), ..
                } = &self.func.datums[*d]
                {
                    // A declared row type keeps its columns: the values
                    // are cast to them by position.
                    let mut vals = Vec::with_capacity(rt.fields.len());
                    let mut given = row.into_iter();
                    for (_, ty) in &rt.fields {
                        let v = given.next().unwrap_or(Value::Null);
                        vals.push(self.cast(ctx, v, *ty)?);
                    }
                    self.recs.insert(*d, Rec::row(row_columns(rt), vals));
                    return Ok(());
                }
                row.truncate(cols.len());
                row.resize(cols.len(), Value::Null);
                self.recs.insert(*d, Rec::row(cols.clone(), row));
                Ok(())
            }
            Target::Row(fields)
                if fields.len() == 1
                    && matches!(self.func.datums[fields[0]], Datum::Rec { .. }) =>
            {
                // SELECT * INTO rec: the whole row.
                self.assign_row(ctx, &Target::Rec(fields[0]), cols, row)
            }
            Target::Row(fields) => {
                let mut vals = row.into_iter();
                for &f in fields {
                    let v = vals.next().unwrap_or(Value::Null);
                    let t = match &self.func.datums[f] {
                        Datum::RecField { rec, field } => Target::Field(*rec, field.clone()),
                        Datum::Rec { .. } => Target::Rec(f),
                        _ => Target::Var(f),
                    };
                    self.assign(ctx, &t, v)?;
                }
                Ok(())
            }
            t => {
                let v = row.into_iter().next().unwrap_or(Value::Null);
                self.assign(ctx, t, v)
            }
        }
    }

    fn diagnostic(&self, stacked: bool, kind: &str) -> Result<Value, DbError> {
        let text = |s: &str| Value::Text(Arc::from(s));
        if !stacked {
            return Ok(match kind {
                "ROW_COUNT" => Value::Int8(self.row_count as i64),
                "PG_CONTEXT" => text(&format!("PL/pgSQL function {}", self.func.name)),
                _ => Value::Null,
            });
        }
        let e = self.handling.last().ok_or_else(|| {
            DbError::new(
                SqlState::StackedDiagnosticsAccessedWithoutActiveHandler,
                "GET STACKED DIAGNOSTICS cannot be used outside an exception handler",
            )
        })?;
        let opt = |s: &Option<String>| text(s.as_deref().unwrap_or(""));
        let obj = e.object.as_deref();
        Ok(match kind {
            "RETURNED_SQLSTATE" => text(e.sqlstate()),
            "MESSAGE_TEXT" => text(&e.message),
            "PG_EXCEPTION_DETAIL" => opt(&e.detail),
            "PG_EXCEPTION_HINT" => opt(&e.hint),
            "PG_EXCEPTION_CONTEXT" => opt(&e.context),
            "COLUMN_NAME" => text(obj.and_then(|o| o.column.as_deref()).unwrap_or("")),
            "CONSTRAINT_NAME" => text(obj.and_then(|o| o.constraint.as_deref()).unwrap_or("")),
            "TABLE_NAME" => text(obj.and_then(|o| o.table.as_deref()).unwrap_or("")),
            "SCHEMA_NAME" => text(obj.and_then(|o| o.schema.as_deref()).unwrap_or("")),
            "PG_DATATYPE_NAME" => text(""),
            _ => Value::Null,
        })
    }

    // ----- RAISE --------------------------------------------------------------

    fn raise(
        &mut self,
        ctx: &mut StatementCtx<'_>,
        level: i64,
        condname: &Option<String>,
        message: &Option<String>,
        params: &[Arc<PlExpr>],
        options: &[(i64, Arc<PlExpr>)],
    ) -> Result<(), DbError> {
        // RAISE; re-throws the error being handled.
        if condname.is_none() && message.is_none() && options.is_empty() {
            return match self.handling.last() {
                Some(e) => {
                    // Thrown again as it was, context and all.
                    self.lined = true;
                    Err(e.clone())
                }
                None => Err(DbError::new(
                    SqlState::StackedDiagnosticsAccessedWithoutActiveHandler,
                    "RAISE without parameters cannot be used outside an exception handler",
                )),
            };
        }
        let mut code: Option<String> = None;
        let mut text = match message {
            Some(fmt) => {
                let mut vals = Vec::with_capacity(params.len());
                for p in params {
                    let v = self.eval(ctx, p)?;
                    vals.push(if v.is_null() {
                        "<NULL>".to_string()
                    } else {
                        value_text(ctx, &v)
                    });
                }
                format_message(fmt, &vals)?
            }
            None => String::new(),
        };
        if let Some(c) = condname {
            let sqlstate = if nestor_common::errcodes::is_sqlstate(c) {
                c.clone()
            } else {
                nestor_common::errcodes::condition_sqlstate(c)
                    .ok_or_else(|| {
                        DbError::new(
                            SqlState::UndefinedObject,
                            format!("unrecognized exception condition \"{c}\""),
                        )
                    })?
                    .to_string()
            };
            if text.is_empty() {
                text = nestor_common::errcodes::condition_name(&sqlstate)
                    .unwrap_or(&sqlstate)
                    .to_string();
            }
            code = Some(sqlstate);
        }
        let (mut detail, mut hint) = (None, None);
        let mut object = nestor_common::error::ErrorObject::default();
        for (kind, e) in options {
            let v = self.eval(ctx, e)?;
            if v.is_null() {
                return Err(DbError::new(
                    SqlState::NullValueNotAllowed,
                    "RAISE statement option cannot be null".to_string(),
                ));
            }
            let s = value_text(ctx, &v);
            match kind {
                0 => {
                    let c = if nestor_common::errcodes::is_sqlstate(&s) {
                        s
                    } else {
                        nestor_common::errcodes::condition_sqlstate(&s)
                            .ok_or_else(|| {
                                DbError::new(
                                    SqlState::UndefinedObject,
                                    format!("unrecognized exception condition \"{s}\""),
                                )
                            })?
                            .to_string()
                    };
                    code = Some(c);
                }
                1 => text = s,
                2 => detail = Some(s),
                3 => hint = Some(s),
                4 => object.column = Some(s),
                5 => object.constraint = Some(s),
                7 => object.table = Some(s),
                8 => object.schema = Some(s),
                _ => {}
            }
        }
        let severity = match level {
            21.. => None,
            19 | 20 => Some(Severity::Warning),
            18 => Some(Severity::Notice),
            17 => Some(Severity::Info),
            15 | 16 => Some(Severity::Log),
            _ => Some(Severity::Debug),
        };
        let mut e = match &code {
            Some(c) => DbError::with_sqlstate(c, text),
            None if severity.is_none() => DbError::new(SqlState::RaiseException, text),
            None => DbError::new(SqlState::SuccessfulCompletion, text),
        };
        e.detail = detail;
        e.hint = hint;
        if object != Default::default() {
            e.object = Some(Box::new(object));
        }
        match severity {
            None => Err(e),
            Some(sev) => {
                if code.is_none() && sev == Severity::Warning {
                    e.code = SqlState::Warning;
                }
                let e = e.with_severity(sev);
                ctx.notices.push(e);
                Ok(())
            }
        }
    }

    // ----- SQL -----------------------------------------------------------

    /// A SQL statement: INSERT/UPDATE/DELETE/SELECT, with INTO or not.
    fn exec_sql(
        &mut self,
        ctx: &mut StatementCtx<'_>,
        sql: &PlExpr,
        into: Option<&Target>,
        strict: bool,
    ) -> Result<(), DbError> {
        let plan = self.plan(ctx, sql)?;
        if !self.volatile {
            if let Some(what) = writes(&plan.prepared) {
                let e = DbError::new(
                    SqlState::FeatureNotSupported,
                    format!("{what} is not allowed in a non-volatile function"),
                );
                return Err(spi_error(e, sql));
            }
        }
        let params = self.params(&plan)?;
        let mut rows: Vec<Vec<Value>> = Vec::new();
        let tag = self
            .run(ctx, &plan, &params, &mut rows)
            .map_err(|e| spi_error(e, sql))?;
        let cols = Arc::new(columns_of(&plan.prepared));
        let n = tag_rows(tag, rows.len());
        if into.is_none() && plan.prepared.columns.is_some() && !modifies(&plan.prepared) {
            return Err(DbError::new(
                SqlState::SyntaxError,
                "query has no destination for result data",
            )
            .with_hint("If you want to discard the results of a SELECT, use PERFORM instead."));
        }
        let shown = strict
            && self
                .func
                .options
                .print_strict_params
                .unwrap_or(ctx.settings.get("plpgsql.print_strict_params") == Some("on"));
        let named: Vec<(String, Value)> = if shown {
            plan.slots
                .iter()
                .zip(&params)
                .map(|(s, v)| {
                    let name = match s {
                        Slot::Datum(d) => self.func.datums[*d].name().to_string(),
                        Slot::Field(rec, f) => format!("{}.{f}", self.func.datums[*rec].name()),
                        Slot::Rec(d) => self.func.datums[*d].name().to_string(),
                    };
                    (name, v.clone())
                })
                .collect()
        } else {
            Vec::new()
        };
        self.after_sql(ctx, into, strict, cols, rows, n)
            .map_err(|e| {
                // plpgsql.print_strict_params: the values the query was run
                // with, in the DETAIL of STRICT's errors.
                let strict_error = matches!(e.code, SqlState::NoDataFound | SqlState::TooManyRows);
                if !strict_error || named.is_empty() {
                    return e;
                }
                let list: Vec<String> = named
                    .iter()
                    .map(|(n, v)| match v {
                        Value::Null => format!("{n} = NULL"),
                        v => format!("{n} = '{}'", value_text(ctx, v).replace('\'', "''")),
                    })
                    .collect();
                e.with_detail(format!("parameters: {}", list.join(", ")))
            })
    }

    fn after_sql(
        &mut self,
        ctx: &mut StatementCtx<'_>,
        into: Option<&Target>,
        strict: bool,
        cols: Columns,
        rows: Vec<Vec<Value>>,
        n: u64,
    ) -> Result<(), DbError> {
        self.row_count = n;
        self.vals[self.func.found] = Some(Value::Bool(n > 0));
        let Some(target) = into else {
            return Ok(());
        };
        if strict && rows.is_empty() {
            return Err(DbError::new(
                SqlState::NoDataFound,
                "query returned no rows",
            ));
        }
        let too_many = match strict {
            true => Some(Severity::Error),
            false => extra_check(ctx, nestor_settings::PLPGSQL_CHECK_TOO_MANY_ROWS),
        };
        if let (true, Some(level)) = (rows.len() > 1, too_many) {
            let e = DbError::new(SqlState::TooManyRows, "query returned more than one row")
                .with_hint("Make sure the query returns a single row, or use LIMIT 1.");
            raise_at(ctx, e, level)?;
        }
        if let (Some(arity), false) = (self.target_arity(target), rows.is_empty()) {
            let check = extra_check(ctx, nestor_settings::PLPGSQL_CHECK_STRICT_MULTI_ASSIGNMENT);
            if let (true, Some(level)) = (arity != cols.len(), check) {
                let list = if level == Severity::Error {
                    "extra_errors"
                } else {
                    "extra_warnings"
                };
                let e = DbError::new(
                    SqlState::DatatypeMismatch,
                    "number of source and target fields in assignment does not match",
                )
                .with_detail(format!(
                    "strict_multi_assignment check of {list} is active."
                ))
                .with_hint("Make sure the query returns the exact list of columns.");
                raise_at(ctx, e, level)?;
            }
        }
        let row = rows
            .into_iter()
            .next()
            .unwrap_or_else(|| vec![Value::Null; cols.len()]);
        self.assign_row(ctx, target, &cols, row)
    }

    /// How many fields an INTO target takes: its variables, or a declared
    /// row type's fields; None for a `record` (it takes any row).
    fn target_arity(&self, target: &Target) -> Option<usize> {
        let rec_fields = |d: usize| match &self.func.datums[d] {
            Datum::Rec { declared, .. } => Some(declared.map(|rt| rt.fields.len())),
            _ => None,
        };
        match target {
            Target::Rec(d) => rec_fields(*d).flatten(),
            Target::Row(fields) if fields.len() == 1 => match rec_fields(fields[0]) {
                Some(declared) => declared,
                None => Some(1),
            },
            Target::Row(fields) => Some(fields.len()),
            _ => None,
        }
    }

    /// Run an expression or query text and collect its rows.
    #[allow(clippy::type_complexity)]
    fn query_rows(
        &mut self,
        ctx: &mut StatementCtx<'_>,
        e: &PlExpr,
    ) -> Result<(Columns, Vec<Vec<Value>>), DbError> {
        let plan = self.plan(ctx, e)?;
        let params = self.params(&plan)?;
        let mut rows: Vec<Vec<Value>> = Vec::new();
        self.run(ctx, &plan, &params, &mut rows)
            .map_err(|err| spi_error(err, e))?;
        Ok((Arc::new(columns_of(&plan.prepared)), rows))
    }

    /// EXECUTE text [USING ...]: planned every time, with the USING values
    /// as $1..$n.
    #[allow(clippy::type_complexity)]
    fn dynamic_rows(
        &mut self,
        ctx: &mut StatementCtx<'_>,
        query: &PlExpr,
        params: &[Arc<PlExpr>],
    ) -> Result<((Columns, Vec<Vec<Value>>), CommandTag), DbError> {
        let text = match self.eval(ctx, query)? {
            Value::Null => {
                return Err(DbError::new(
                    SqlState::NullValueNotAllowed,
                    "query string argument of EXECUTE is null",
                ))
            }
            v => value_text(ctx, &v),
        };
        let mut vals = Vec::with_capacity(params.len());
        let mut hints = Vec::with_capacity(params.len());
        for p in params {
            let (v, t) = self.eval_typed(ctx, p)?;
            hints.push(t.oid());
            vals.push(v);
        }
        let with_ctx = |e: DbError| spi_error_in(e, &text, 0, "SQL statement");
        let stmts = nestor_parser::parse_sql(&text).map_err(with_ctx)?;
        let [stmt] = stmts.as_slice() else {
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                "EXECUTE of a string with more than one statement",
            ));
        };
        // A trigger's transition tables are visible to EXECUTE too.
        let prepared = if self.enrs.is_empty() {
            crate::statement::prepare(ctx.catalog, ctx.eval, &text, stmt, &hints)
        } else {
            let enrs = Enrs(&self.enrs);
            crate::statement::prepare_with(ctx.catalog, ctx.eval, &text, stmt, &hints, &enrs)
        }
        .map_err(with_ctx)?;
        let plan = ExprPlan {
            version: ctx.catalog.version(),
            scope: ctx.catalog.plan_scope(),
            conflict: nestor_plan::bind::VarConflict::Error,
            prepared,
            slots: Vec::new(),
            simple: None,
            simple_calls: false,
            shapes: Vec::new(),
            enrs: Vec::new(),
        };
        let mut rows: Vec<Vec<Value>> = Vec::new();
        // EXECUTE runs its statement atomically: a procedure it calls may
        // not end the transaction (as in PostgreSQL).
        let may_end_txn = std::mem::replace(&mut ctx.may_end_txn, false);
        let r = self.run(ctx, &plan, &vals, &mut rows);
        ctx.may_end_txn = may_end_txn;
        let tag = r.map_err(with_ctx)?;
        Ok(((Arc::new(columns_of(&plan.prepared)), rows), tag))
    }

    /// Run a planned statement as its own command.
    fn run(
        &mut self,
        ctx: &mut StatementCtx<'_>,
        plan: &ExprPlan,
        params: &[Value],
        rows: &mut Vec<Vec<Value>>,
    ) -> Result<CommandTag, DbError> {
        let saved = (ctx.snapshot, ctx.txn.cid(), ctx.restarts);
        if self.volatile {
            ctx.snapshot = ctx.txn.start_statement_with(&ctx.wait)?;
        }
        let r = crate::statement::execute_nested(ctx, &plan.prepared, params, rows);
        // A procedure it called may have ended the transaction: what was
        // saved belongs to the old one.
        if ctx.restarts == saved.2 {
            ctx.snapshot = saved.0;
            ctx.txn.restore_command(saved.1);
        }
        r
    }

    /// Evaluate an expression to one value.
    pub(crate) fn eval(
        &mut self,
        ctx: &mut StatementCtx<'_>,
        e: &PlExpr,
    ) -> Result<Value, DbError> {
        self.eval_typed(ctx, e).map(|(v, _)| v)
    }

    fn eval_typed(
        &mut self,
        ctx: &mut StatementCtx<'_>,
        e: &PlExpr,
    ) -> Result<(Value, DataType), DbError> {
        let plan = self.plan(ctx, e)?;
        let params = self.params(&plan)?;
        let ty = plan
            .prepared
            .columns
            .as_ref()
            .and_then(|c| c.first())
            .and_then(|c| DataType::from_oid_typmod(c.type_oid, c.type_modifier))
            .unwrap_or(DataType::Unknown);
        if let Some(simple) = &plan.simple {
            // A function it calls reads with a snapshot of its own in a
            // VOLATILE caller, as every statement there does.
            let fresh = self.volatile && plan.simple_calls;
            let saved = (ctx.snapshot, ctx.txn.cid(), ctx.restarts);
            if fresh {
                ctx.snapshot = ctx.txn.start_statement_with(&ctx.wait)?;
            }
            let mut ev = Ev::new(ctx, &params);
            // Evaluated directly, as PostgreSQL's simple expressions
            // are: no statement of its own to report.
            let v = nestor_plan_eval(simple, &mut ev).map_err(|mut err| {
                err.position = None;
                err
            });
            if fresh && ctx.restarts == saved.2 {
                ctx.snapshot = saved.0;
                ctx.txn.restore_command(saved.1);
            }
            return Ok((v?, ty));
        }
        let mut rows: Vec<Vec<Value>> = Vec::new();
        self.run(ctx, &plan, &params, &mut rows)
            .map_err(|err| spi_error(err, e))?;
        if rows.len() > 1 {
            return Err(DbError::new(
                SqlState::CardinalityViolation,
                format!("query \"{}\" returned more than one row", e.text),
            ));
        }
        let row = rows.into_iter().next();
        if let Some(r) = &row {
            if r.len() != 1 {
                return Err(DbError::new(
                    SqlState::SyntaxError,
                    format!("query \"{}\" returned {} columns", e.text, r.len()),
                ));
            }
        }
        Ok((
            row.and_then(|r| r.into_iter().next())
                .unwrap_or(Value::Null),
            ty,
        ))
    }

    fn eval_bool(&mut self, ctx: &mut StatementCtx<'_>, e: &PlExpr) -> Result<bool, DbError> {
        match self.eval(ctx, e)? {
            Value::Bool(b) => Ok(b),
            Value::Null => Ok(false),
            v => match nestor_plan::valops::cast(v, DataType::Bool, false, &ctx.eval)? {
                Value::Bool(b) => Ok(b),
                _ => Ok(false),
            },
        }
    }

    fn params(&self, plan: &ExprPlan) -> Result<Vec<Value>, DbError> {
        plan.slots
            .iter()
            .map(|s| match s {
                Slot::Datum(d) => Ok(self.vals[*d].clone().unwrap_or(Value::Null)),
                Slot::Field(rec, f) => {
                    let r = self
                        .recs
                        .get(rec)
                        .ok_or_else(|| unassigned(self.func, *rec))?;
                    let i = r
                        .cols
                        .iter()
                        .position(|(n, _)| n == f)
                        .ok_or_else(|| no_field(self.func, *rec, f))?;
                    Ok(r.vals[i].clone())
                }
                Slot::Rec(d) => Ok(self.recs.get(d).map_or(Value::Null, Rec::value)),
            })
            .collect()
    }

    /// The plan of an expression (`as_select`: its text is an expression,
    /// run as SELECT <text>) or a statement, from the cache when still
    /// valid.
    fn plan(&mut self, ctx: &StatementCtx<'_>, e: &PlExpr) -> Result<Arc<ExprPlan>, DbError> {
        self.plan_uncached(ctx, e).map_err(|err| spi_error(err, e))
    }

    fn plan_uncached(
        &mut self,
        ctx: &StatementCtx<'_>,
        e: &PlExpr,
    ) -> Result<Arc<ExprPlan>, DbError> {
        let as_select = e.is_expr();
        let version = ctx.catalog.version();
        let scope = ctx.catalog.plan_scope();
        let conflict = self.func.options.variable_conflict.unwrap_or_else(|| {
            nestor_plan::bind::VarConflict::from_setting(
                ctx.settings.get("plpgsql.variable_conflict"),
            )
        });
        let valid = |p: &ExprPlan| {
            p.version == version
                && p.scope == scope
                && p.conflict == conflict
                && p.enrs == self.enrs
                && p.shapes.iter().all(|(d, cols)| match self.recs.get(d) {
                    Some(r) => Arc::ptr_eq(&r.cols, cols) || r.cols == *cols,
                    // Planned while the record was not assigned yet.
                    None => cols.is_empty(),
                })
        };
        if let Some(p) = e.cache.lock().iter().find(|p| valid(p)) {
            return Ok(p.clone());
        }
        let text = if as_select {
            format!("SELECT {}", e.text)
        } else {
            e.text.clone()
        };
        let stmts = nestor_parser::parse_sql(&text)?;
        let [stmt] = stmts.as_slice() else {
            return Err(DbError::new(
                SqlState::SyntaxError,
                format!("query \"{}\" returned more than one row", e.text),
            ));
        };
        if let Some(nestor_parser::NodeEnum::TransactionStmt(_)) =
            stmt.stmt.as_ref().and_then(|n| n.node.as_ref())
        {
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                "unsupported transaction command in PL/pgSQL",
            ));
        }
        let resolver = Resolver {
            run: self,
            conflict,
            scope: &e.scope,
            slots: std::cell::RefCell::new(Vec::new()),
            shapes: std::cell::RefCell::new(Vec::new()),
        };
        // $1..$n name the arguments.
        let mut hints = Vec::new();
        for i in 0..self.func.nargs {
            resolver.slots.borrow_mut().push(Slot::Datum(i));
            hints.push(match &self.func.datums[i] {
                Datum::Var(v) => v.ty.oid(),
                // A row argument: `$1.field` selects from its type.
                Datum::Rec {
                    declared: Some(rt), ..
                } => rt.oid,
                _ => 0,
            });
        }
        let prepared =
            crate::statement::prepare_with(ctx.catalog, ctx.eval, &text, stmt, &hints, &resolver)?;
        let simple = if as_select {
            simple_expr(&prepared)
        } else {
            None
        };
        let plan = Arc::new(ExprPlan {
            version,
            scope,
            conflict,
            prepared,
            slots: resolver.slots.into_inner(),
            simple_calls: simple.as_ref().is_some_and(calls_functions),
            simple,
            shapes: resolver.shapes.into_inner(),
            enrs: self.enrs.clone(),
        });
        let mut cache = e.cache.lock();
        // Stale plans go; past the limit the oldest goes.
        cache.retain(|p| p.version == version);
        if cache.len() >= PLANS_PER_EXPR_MAX {
            cache.remove(0);
        }
        cache.push(plan.clone());
        Ok(plan)
    }
}

/// Report an error raised while planning or running `e` as PostgreSQL's
/// SPI does: a position becomes a position in the expression's own text
/// (psql's `QUERY:`), otherwise the expression is named in a CONTEXT line.
fn spi_error(err: DbError, e: &PlExpr) -> DbError {
    match &e.kind {
        // Planned as "SELECT <text>".
        ExprKind::Expr => spi_error_in(err, &e.text, -7, "SQL expression"),
        ExprKind::Assign { written, value_at } => {
            spi_error_in(err, written, *value_at as i64 - 7, "PL/pgSQL assignment")
        }
        ExprKind::Statement => spi_error_in(err, &e.text, 0, "SQL statement"),
    }
}

/// `shift`: what to add to a position in the planned text to get one in
/// `query`.
fn spi_error_in(mut err: DbError, query: &str, shift: i64, what: &str) -> DbError {
    match err.position.take() {
        Some(p) => {
            let position = (p as i64 + shift).max(1) as u32;
            err.internal = Some(Box::new(nestor_common::InternalQuery {
                position,
                query: query.to_string(),
            }));
            err
        }
        None => add_context(err, format!("{what} \"{query}\"")),
    }
}

/// Evaluate a bound expression with the executor's evaluator.
fn nestor_plan_eval(e: &Expr, ev: &mut Ev<'_, '_>) -> Result<Value, DbError> {
    use crate::executor::eval::Eval;
    e.eval(&[], ev)
}

/// SELECT <expr> with nothing else: the expression.
fn simple_expr(p: &Prepared) -> Option<Expr> {
    let plan = p.plan_snapshot();
    let PlannedStmt::Query(Plan::Project { input, exprs }) = plan.as_ref() else {
        return None;
    };
    if !matches!(input.as_ref(), Plan::Single) || exprs.len() != 1 {
        return None;
    }
    let mut has_sub = false;
    exprs[0].walk(&mut |x| {
        if matches!(x, Expr::Sub(_) | Expr::Agg(_)) {
            has_sub = true;
        }
    });
    (!has_sub).then(|| exprs[0].clone())
}

/// Whether an expression calls a user-defined function (which may read
/// tables).
fn calls_functions(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x, Expr::UserFunc(..)));
    found
}

/// What a statement writes, for the non-volatile check.
fn writes(p: &Prepared) -> Option<&'static str> {
    match p.plan_snapshot().as_ref() {
        PlannedStmt::Insert(_) => Some("INSERT"),
        PlannedStmt::Modify(m) if m.delete => Some("DELETE"),
        PlannedStmt::Modify(_) => Some("UPDATE"),
        PlannedStmt::Instead(p) => Some(p.kind.command()),
        PlannedStmt::Merge(_) => Some("MERGE"),
        // PostgreSQL names the main statement ("SELECT is not allowed in
        // a non-volatile function").
        w @ PlannedStmt::With { .. } => w.command(),
        _ => None,
    }
}

/// Whether the statement is an INSERT, UPDATE or DELETE (with RETURNING,
/// its rows may go nowhere); a SELECT over data-modifying WITH items is a
/// SELECT, whose rows need a destination.
fn modifies(p: &Prepared) -> bool {
    match p.plan_snapshot().as_ref() {
        PlannedStmt::With { main, .. } => {
            matches!(
                main.as_ref(),
                PlannedStmt::Insert(_)
                    | PlannedStmt::Modify(_)
                    | PlannedStmt::Instead(_)
                    | PlannedStmt::Merge(_)
            )
        }
        other => matches!(
            other,
            PlannedStmt::Insert(_)
                | PlannedStmt::Modify(_)
                | PlannedStmt::Instead(_)
                | PlannedStmt::Merge(_)
        ),
    }
}

fn columns_of(p: &Prepared) -> Vec<(String, DataType)> {
    p.columns
        .as_ref()
        .map(|cols| {
            cols.iter()
                .map(|c| {
                    (
                        c.name.clone(),
                        DataType::from_oid_typmod(c.type_oid, c.type_modifier)
                            .unwrap_or(DataType::Text),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn tag_rows(tag: CommandTag, returned: usize) -> u64 {
    match tag {
        CommandTag::Rows(_, n) => n,
        CommandTag::Plain(_) => returned as u64,
    }
}

use crate::context::FetchDirection as Dir;

/// An OPENed cursor's rows, its columns described as to a client.
fn opened_cursor(
    cols: &Columns,
    rows: Vec<Vec<Value>>,
    scrollable: bool,
    query: &str,
) -> crate::context::OpenedCursor {
    crate::context::OpenedCursor {
        columns: cols
            .iter()
            .map(|(name, ty)| crate::context::ColumnDesc {
                name: name.clone(),
                type_oid: ty.oid(),
                type_size: ty.typlen(),
                type_modifier: ty.typmod(),
                table_oid: 0,
                column_id: 0,
            })
            .collect(),
        rows,
        scrollable,
        statement: Arc::from(query),
    }
}

/// A cursor's columns as names and types.
fn desc_columns(cols: &[crate::context::ColumnDesc]) -> Vec<(String, DataType)> {
    cols.iter()
        .map(|c| {
            (
                c.name.clone(),
                DataType::from_oid_typmod(c.type_oid, c.type_modifier).unwrap_or(DataType::Text),
            )
        })
        .collect()
}

/// TG_ARGV: the trigger's arguments as a text[] subscripted from 0, as
/// PostgreSQL builds it; NULL for a trigger without arguments.
fn trigger_argv(args: &[String]) -> Value {
    if args.is_empty() {
        return Value::Null;
    }
    let items = args
        .iter()
        .map(|a| Value::Text(Arc::from(a.as_str())))
        .collect();
    let dims = vec![nestor_types::array::Dim {
        len: args.len() as i32,
        lower: 0,
    }];
    Array::new(DataType::Text, dims, items).map_or(Value::Null, Array::value)
}

/// Whether a plpgsql.extra_errors (Error) or extra_warnings (Warning)
/// check is on.
fn extra_check(ctx: &StatementCtx<'_>, check: u8) -> Option<Severity> {
    let s = ctx.settings;
    if s.plpgsql_extra_errors & check != 0 {
        Some(Severity::Error)
    } else if s.plpgsql_extra_warnings & check != 0 {
        Some(Severity::Warning)
    } else {
        None
    }
}

/// Fail with `e`, or send it as a warning.
fn raise_at(ctx: &mut StatementCtx<'_>, e: DbError, level: Severity) -> Result<(), DbError> {
    if level == Severity::Error {
        return Err(e);
    }
    ctx.notices.push(e.with_severity(Severity::Warning));
    Ok(())
}

/// The columns of a row type, as a record variable holds them.
fn row_columns(rt: &RecordType) -> Columns {
    Arc::new(rt.fields.clone())
}

fn unassigned(func: &Func, rec: usize) -> DbError {
    DbError::new(
        SqlState::ObjectNotInPrerequisiteState,
        format!("record \"{}\" is not assigned yet", func.datums[rec].name()),
    )
    .with_detail("The tuple structure of a not-yet-assigned record is indeterminate.")
    .unpositioned()
}

fn no_field(func: &Func, rec: usize, field: &str) -> DbError {
    DbError::new(
        SqlState::UndefinedColumn,
        format!(
            "record \"{}\" has no field \"{field}\"",
            func.datums[rec].name()
        ),
    )
    .unpositioned()
}

/// A value as RAISE and EXECUTE print it (its text output form).
pub(crate) fn value_text(ctx: &StatementCtx<'_>, v: &Value) -> String {
    v.to_text(&ctx.eval)
}

/// RAISE's format: each % takes the next parameter, %% is a %.
fn format_message(fmt: &str, vals: &[String]) -> Result<String, DbError> {
    let mut out = String::new();
    let mut it = vals.iter();
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '%' {
            if chars.peek() == Some(&'%') {
                chars.next();
                out.push('%');
                continue;
            }
            match it.next() {
                Some(v) => out.push_str(v),
                None => {
                    return Err(DbError::new(
                        SqlState::SyntaxError,
                        "too few parameters specified for RAISE",
                    ))
                }
            }
        } else {
            out.push(c);
        }
    }
    if it.next().is_some() {
        return Err(DbError::new(
            SqlState::SyntaxError,
            "too many parameters specified for RAISE",
        ));
    }
    Ok(out)
}

/// Whether a handler condition catches an error.
fn matches(c: &Cond, e: &DbError) -> bool {
    let code = e.sqlstate();
    match c {
        Cond::Others => {
            !matches!(code, "57014" | "P0004") && !matches!(e.code, SqlState::AdminShutdown)
        }
        Cond::Code(want) => {
            if want.ends_with("000") {
                code.starts_with(&want[..2])
            } else {
                code == want
            }
        }
    }
}

/// The transition tables alone, for EXECUTE's statement.
struct Enrs<'r>(&'r [(String, Columns)]);

impl nestor_plan::bind::VarResolver for Enrs<'_> {
    fn resolve(&self, _parts: &[&str]) -> Result<Option<(usize, DataType)>, DbError> {
        Ok(None)
    }

    fn relation(&self, name: &str) -> Option<(usize, Columns)> {
        transition_table(self.0, name)
    }
}

/// Transition table `name` among `enrs`: its slot and columns.
fn transition_table(enrs: &[(String, Columns)], name: &str) -> Option<(usize, Columns)> {
    let slot = enrs.iter().position(|(n, _)| n == name)?;
    Some((slot, enrs[slot].1.clone()))
}

/// Names of the body for the binder: variables, arguments and record
/// fields become parameters of the statement being planned.
struct Resolver<'r, 'f> {
    run: &'r Run<'f>,
    conflict: nestor_plan::bind::VarConflict,
    scope: &'r super::compile::Scope,
    slots: std::cell::RefCell<Vec<Slot>>,
    shapes: std::cell::RefCell<Vec<(usize, Columns)>>,
}

impl Resolver<'_, '_> {
    fn slot(&self, s: Slot, ty: DataType) -> (usize, DataType) {
        let mut slots = self.slots.borrow_mut();
        let i = match slots.iter().position(|x| *x == s) {
            Some(i) => i,
            None => {
                slots.push(s);
                slots.len() - 1
            }
        };
        (i, ty)
    }

    fn datum(&self, d: usize) -> Result<Option<(usize, DataType)>, DbError> {
        match &self.run.func.datums[d] {
            Datum::Var(v) if v.ty == DataType::Unknown => {
                // CASE's hidden operand variable: typed by its value.
                let ty = self.run.vals[d]
                    .as_ref()
                    .map_or(DataType::Text, |v| v.data_type());
                Ok(Some(self.slot(Slot::Datum(d), ty)))
            }
            Datum::Var(v) => Ok(Some(self.slot(Slot::Datum(d), v.ty))),
            Datum::Rec { declared, .. } => {
                // A parameter of the declared row type, or of an anonymous
                // record type of the record's current shape (the plan is
                // kept for that shape); a record not assigned yet is a
                // NULL of no known shape.
                let cols = match self.run.recs.get(&d) {
                    Some(r) => r.cols.clone(),
                    None => Arc::new(Vec::new()),
                };
                self.note_shape(d, &cols);
                let rt = match declared {
                    Some(rt) => rt,
                    None => nestor_types::datatype::record_type(cols.to_vec()),
                };
                Ok(Some(self.slot(Slot::Rec(d), DataType::Record(rt))))
            }
            _ => Ok(None),
        }
    }

    fn field(&self, rec: usize, field: &str) -> Result<Option<(usize, DataType)>, DbError> {
        let r = self
            .run
            .recs
            .get(&rec)
            .ok_or_else(|| unassigned(self.run.func, rec))?;
        let (_, ty) = r
            .cols
            .iter()
            .find(|(n, _)| n == field)
            .ok_or_else(|| no_field(self.run.func, rec, field))?;
        self.note_shape(rec, &r.cols);
        Ok(Some(self.slot(Slot::Field(rec, field.to_string()), *ty)))
    }

    /// The plan depends on record `rec` having columns `cols`.
    fn note_shape(&self, rec: usize, cols: &Columns) {
        let mut shapes = self.shapes.borrow_mut();
        if !shapes.iter().any(|(d, _)| *d == rec) {
            shapes.push((rec, cols.clone()));
        }
    }
}

impl nestor_plan::bind::VarResolver for Resolver<'_, '_> {
    fn conflict(&self) -> nestor_plan::bind::VarConflict {
        self.conflict
    }

    fn relation(&self, name: &str) -> Option<(usize, Columns)> {
        transition_table(&self.run.enrs, name)
    }

    fn resolve(&self, parts: &[&str]) -> Result<Option<(usize, DataType)>, DbError> {
        let datums = &self.run.func.datums;
        let is_rec = |d: usize| matches!(datums[d], Datum::Rec { .. });
        match parts {
            [name] => match self.scope.lookup(name) {
                Some(d) => self.datum(d),
                None => Ok(None),
            },
            [a, b] => {
                if let Some(d) = self.scope.lookup_in(a, b) {
                    return self.datum(d);
                }
                match self.scope.lookup(a) {
                    Some(d) if is_rec(d) => self.field(d, b),
                    _ => Ok(None),
                }
            }
            [label, rec, field] => match self.scope.lookup_in(label, rec) {
                Some(d) if is_rec(d) => self.field(d, field),
                _ => Ok(None),
            },
            _ => Ok(None),
        }
    }
}
