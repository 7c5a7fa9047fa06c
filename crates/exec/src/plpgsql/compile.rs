//! From PostgreSQL's PL/pgSQL parse tree to Nestor's function tree.
//!
//! libpg_query runs PostgreSQL's own PL/pgSQL grammar (pl_gram.y) and hands
//! the compiled function over as JSON: the *datums* (arguments, `found`,
//! every declared variable, loop variables, INTO rows, record fields,
//! `sqlstate`/`sqlerrm` of each exception block) in the order the parser
//! created them, and the statement tree with the embedded SQL as text.
//!
//! The JSON does not say which block declared which variable, and the
//! embedded SQL refers to variables by name, so scopes are rebuilt here:
//! walking the statements in text order, each construct takes the datums
//! it created from a cursor over the datum list, in the order the parser
//! made them. How many declarations each block has comes from a scan of
//! the body's text ([`declaration_counts`]: the DECLARE sections, one per
//! BEGIN, in text order, which is the tree's pre-order):
//!
//! ```text
//!   datums: [a b found | x y | i | (row) | sqlstate sqlerrm]
//!            args       block  FOR  INTO   EXCEPTION
//!   DECLARE x int; y int;        <- a block takes its 2 declarations
//!   BEGIN
//!     FOR i IN 1..3 LOOP ...     <- a FOR takes its loop variable
//!     SELECT ... INTO x, y;      <- INTO rows and record fields: skipped
//!   EXCEPTION WHEN ...           <- sqlstate, sqlerrm of the block
//! ```
//!
//! A bound cursor's arguments (`c CURSOR (lo int) FOR ...`) are datums too,
//! made before the cursor's own: no block declares them (the scan skips
//! them), only the cursor's query sees them. A FOR loop over a cursor
//! declares its record itself.
//!
//! Each embedded expression keeps the scope it appeared in (frames of
//! names, innermost last; a frame's label allows `label.name`), which the
//! binder consults for names that are not columns.

use std::sync::Arc;

use nestor_catalog::Catalog;
use nestor_common::{DbError, SqlState};
use nestor_types::datatype::{DataType, RecordType};
use parking_lot::Mutex;
use serde_json::Value as J;

use super::run::ExprPlan;

/// A compiled function.
pub(crate) struct Func {
    /// For error context: `f(integer)`, or `inline_code_block` for DO.
    pub name: String,
    pub datums: Vec<Datum>,
    pub body: Block,
    /// Datums 0..nargs are the declared arguments (every mode).
    pub nargs: usize,
    pub found: usize,
    /// `#variable_conflict` / `#print_strict_params` at the top of the
    /// body: they override the session's plpgsql.* settings.
    pub options: Options,
    /// A trigger function's NEW, OLD and TG_ datums.
    pub trigger: Option<TriggerDatums>,
    /// plpgsql.extra_warnings' warnings, positioned in the body.
    pub warnings: Vec<DbError>,
}

pub(crate) struct TriggerDatums {
    pub new: usize,
    pub old: usize,
    /// TRIGGER_VARIABLES' datums.
    pub tg: Vec<usize>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Options {
    pub variable_conflict: Option<nestor_plan::bind::VarConflict>,
    pub print_strict_params: Option<bool>,
}

/// The `#option value` lines a body may start with (libpg_query's tree
/// does not carry them). Unknown options and values are left to the
/// parser, which rejects them.
pub(crate) fn body_options(body: &str) -> Options {
    let mut o = Options::default();
    let mut rest = body;
    loop {
        rest = rest.trim_start();
        if let Some(r) = rest.strip_prefix("--") {
            rest = r.split_once('\n').map_or("", |(_, r)| r);
            continue;
        }
        let Some(r) = rest.strip_prefix('#') else {
            return o;
        };
        let (line, r) = r.split_once('\n').unwrap_or((r, ""));
        rest = r;
        let mut words = line.split_whitespace().map(|w| w.to_ascii_lowercase());
        match (words.next().as_deref(), words.next().as_deref()) {
            (Some("variable_conflict"), Some(v)) => {
                o.variable_conflict = Some(nestor_plan::bind::VarConflict::from_setting(Some(v)));
            }
            (Some("print_strict_params"), Some(v)) => {
                o.print_strict_params = Some(v == "on");
            }
            _ => {}
        }
    }
}

pub(crate) enum Datum {
    Var(VarDef),
    /// A row variable. `record`: typed when assigned; declared with a
    /// composite type or a table's row type (`pair`, `t`, `t%ROWTYPE`):
    /// that type, a NULL of it until assigned (its fields read as NULL,
    /// assigning one makes the row), values assigned cast to it.
    Rec {
        name: String,
        declared: Option<&'static RecordType>,
    },
    /// A list of targets (`INTO a, b`); statements name their targets
    /// themselves ([`Target::Row`]), so the datum only holds the place.
    Row,
    /// `rec.field`.
    RecField {
        rec: usize,
        field: String,
    },
}

pub(crate) struct VarDef {
    pub name: String,
    pub ty: DataType,
    pub constant: bool,
    pub not_null: bool,
    pub default: Option<Arc<PlExpr>>,
    /// A bound cursor (`c CURSOR [(args)] FOR query`): its query.
    pub cursor: Option<CursorDecl>,
    /// Declared as a domain (its OID; `ty` is the base type): every value
    /// assigned, the initial one included, is checked against it.
    pub domain: Option<u32>,
    /// The declaration's line (0: not declared in the body).
    pub lineno: i64,
}

/// A bound cursor's declaration.
pub(crate) struct CursorDecl {
    /// The query, in a scope where the arguments are variables.
    pub query: Arc<PlExpr>,
    /// The arguments' datums, in declaration order (OPEN assigns them).
    pub args: Vec<usize>,
    /// SCROLL / NO SCROLL ([`CURSOR_OPT_SCROLL`], [`CURSOR_OPT_NO_SCROLL`]).
    pub options: i64,
}

/// PostgreSQL's CURSOR_OPT_SCROLL and CURSOR_OPT_NO_SCROLL.
pub(crate) const CURSOR_OPT_SCROLL: i64 = 0x2;
pub(crate) const CURSOR_OPT_NO_SCROLL: i64 = 0x4;

impl Datum {
    pub(crate) fn name(&self) -> &str {
        match self {
            Datum::Var(v) => &v.name,
            Datum::Rec { name, .. } => name,
            Datum::Row => "(unnamed row)",
            Datum::RecField { field, .. } => field,
        }
    }
}

/// Names visible at a point of the body: frames, innermost last.
#[derive(Clone, Default)]
pub(crate) struct Scope {
    pub frames: Vec<Frame>,
}

#[derive(Clone)]
pub(crate) struct Frame {
    pub label: Option<String>,
    pub names: Vec<(String, usize)>,
}

impl Scope {
    /// The datum a name denotes, innermost declaration first.
    pub(crate) fn lookup(&self, name: &str) -> Option<usize> {
        self.frames.iter().rev().find_map(|f| {
            f.names
                .iter()
                .rev()
                .find(|(n, _)| n == name)
                .map(|&(_, d)| d)
        })
    }

    /// `label.name`.
    pub(crate) fn lookup_in(&self, label: &str, name: &str) -> Option<usize> {
        self.frames
            .iter()
            .rev()
            .filter(|f| f.label.as_deref() == Some(label))
            .find_map(|f| {
                f.names
                    .iter()
                    .rev()
                    .find(|(n, _)| n == name)
                    .map(|&(_, d)| d)
            })
    }
}

/// An embedded expression or SQL statement, with its scope and its plan
/// (made on first use, redone when the catalog changes).
pub(crate) struct PlExpr {
    /// What is planned: an expression (run as `SELECT <text>`) or a whole
    /// statement.
    pub text: String,
    pub kind: ExprKind,
    pub scope: Arc<Scope>,
    /// Its plans (see run.rs).
    pub cache: Mutex<Vec<Arc<ExprPlan>>>,
}

/// How an expression is written, which decides how it is planned and how
/// its errors are reported (PostgreSQL's RAW_PARSE_PLPGSQL_* modes).
pub(crate) enum ExprKind {
    /// A value: `IF x > 0`, `RETURN x + 1`, a RAISE parameter.
    Expr,
    /// The value of `target := value`; `written` is the whole text and
    /// the value starts `value_at` characters into it.
    Assign { written: String, value_at: u32 },
    /// A SQL statement: INSERT, PERFORM's SELECT, a FOR loop's query.
    Statement,
}

impl PlExpr {
    /// The text is run as `SELECT <text>`.
    pub(crate) fn is_expr(&self) -> bool {
        !matches!(self.kind, ExprKind::Statement)
    }
}

pub(crate) struct Block {
    pub lineno: i64,
    pub label: Option<String>,
    pub decls: Vec<usize>,
    pub body: Vec<Stmt>,
    pub handlers: Option<Handlers>,
}

pub(crate) struct Handlers {
    pub sqlstate: Option<usize>,
    pub sqlerrm: Option<usize>,
    pub list: Vec<Handler>,
}

pub(crate) struct Handler {
    pub conds: Vec<Cond>,
    pub body: Vec<Stmt>,
}

pub(crate) enum Cond {
    /// WHEN OTHERS: everything but query_canceled and assert_failure.
    Others,
    /// A SQLSTATE; a class code (`22000`) matches its whole class.
    Code(String),
}

/// Where an assignment or INTO puts values.
#[derive(Clone)]
pub(crate) enum Target {
    Var(usize),
    Rec(usize),
    Row(Vec<usize>),
    Field(usize, String),
}

/// The subscripts of an assignment's target (`arr[i][j] := v`,
/// `arr[lo:hi] := v`), each an expression of the function.
pub(crate) struct TargetSubscripts {
    pub slice: bool,
    /// (lower, upper) per dimension: an element has upper bounds only; a
    /// slice's bound is None where omitted (`[:hi]`), and a plain `[i]`
    /// in a slice is `[1:i]`.
    pub bounds: Vec<(Bound, Bound)>,
}

/// What OPEN runs.
pub(crate) enum CursorSource {
    /// The bound cursor's query, its arguments given as `SELECT <args>`.
    Bound {
        args: Option<Arc<PlExpr>>,
    },
    Query(Arc<PlExpr>),
    Dynamic {
        query: Arc<PlExpr>,
        params: Vec<Arc<PlExpr>>,
    },
}

/// One bound of a target's subscript, None where omitted.
pub(crate) type Bound = Option<Arc<PlExpr>>;

pub(crate) enum Stmt {
    Block(Block),
    Assign {
        lineno: i64,
        target: Target,
        expr: Arc<PlExpr>,
        /// `arr[i] := v`, `arr[lo:hi] := v`.
        subscripts: Option<TargetSubscripts>,
    },
    If {
        lineno: i64,
        branches: Vec<(Arc<PlExpr>, Vec<Stmt>)>,
        else_: Vec<Stmt>,
    },
    Case {
        lineno: i64,
        /// CASE x WHEN ...: the operand and the hidden variable it is
        /// stored in.
        operand: Option<(Arc<PlExpr>, usize)>,
        whens: Vec<(Arc<PlExpr>, Vec<Stmt>)>,
        else_: Option<Vec<Stmt>>,
    },
    Loop {
        lineno: i64,
        label: Option<String>,
        body: Vec<Stmt>,
    },
    While {
        lineno: i64,
        label: Option<String>,
        cond: Arc<PlExpr>,
        body: Vec<Stmt>,
    },
    ForInt {
        lineno: i64,
        label: Option<String>,
        var: usize,
        lower: Arc<PlExpr>,
        upper: Arc<PlExpr>,
        step: Option<Arc<PlExpr>>,
        reverse: bool,
        body: Vec<Stmt>,
    },
    ForQuery {
        lineno: i64,
        label: Option<String>,
        target: Target,
        query: Arc<PlExpr>,
        /// FOR ... IN EXECUTE: the query is an expression giving the text.
        dynamic: Option<Vec<Arc<PlExpr>>>,
        body: Vec<Stmt>,
    },
    /// OPEN cursor [(args)] | OPEN refcursor [SCROLL] FOR query |
    /// FOR EXECUTE text [USING ...].
    Open {
        lineno: i64,
        curvar: usize,
        options: i64,
        source: CursorSource,
    },
    /// FETCH / MOVE [direction] [FROM | IN] cursor [INTO target].
    Fetch {
        lineno: i64,
        curvar: usize,
        /// PostgreSQL's FetchDirection: forward, backward, absolute,
        /// relative (0..=3).
        direction: i64,
        how_many: i64,
        /// A count given as an expression (`RELATIVE -2`, `FORWARD n`).
        count: Option<Arc<PlExpr>>,
        is_move: bool,
        into: Option<Target>,
    },
    Close {
        lineno: i64,
        curvar: usize,
    },
    /// FOR rec IN cursor [(args)] LOOP.
    ForCursor {
        lineno: i64,
        label: Option<String>,
        rec: usize,
        curvar: usize,
        args: Option<Arc<PlExpr>>,
        body: Vec<Stmt>,
    },
    /// FOREACH target [SLICE n] IN ARRAY expr.
    ForEach {
        lineno: i64,
        label: Option<String>,
        target: Target,
        slice: i64,
        expr: Arc<PlExpr>,
        body: Vec<Stmt>,
    },
    Exit {
        lineno: i64,
        is_exit: bool,
        label: Option<String>,
        cond: Option<Arc<PlExpr>>,
    },
    Return {
        lineno: i64,
        expr: Option<Arc<PlExpr>>,
    },
    ReturnNext {
        lineno: i64,
        expr: Option<Arc<PlExpr>>,
    },
    ReturnQuery {
        lineno: i64,
        query: Arc<PlExpr>,
        dynamic: Option<Vec<Arc<PlExpr>>>,
    },
    Raise {
        lineno: i64,
        level: i64,
        condname: Option<String>,
        message: Option<String>,
        params: Vec<Arc<PlExpr>>,
        options: Vec<(i64, Arc<PlExpr>)>,
    },
    Assert {
        lineno: i64,
        cond: Arc<PlExpr>,
        message: Option<Arc<PlExpr>>,
    },
    ExecSql {
        lineno: i64,
        sql: Arc<PlExpr>,
        into: Option<Target>,
        strict: bool,
    },
    DynExecute {
        lineno: i64,
        query: Arc<PlExpr>,
        into: Option<Target>,
        strict: bool,
        params: Vec<Arc<PlExpr>>,
    },
    Perform {
        lineno: i64,
        expr: Arc<PlExpr>,
    },
    GetDiag {
        lineno: i64,
        stacked: bool,
        items: Vec<(String, usize)>,
    },
    Call {
        lineno: i64,
        expr: Arc<PlExpr>,
    },
    /// COMMIT / ROLLBACK [AND CHAIN]: the next transaction has the same
    /// characteristics either way (a CALL on its own runs with the
    /// defaults).
    Commit {
        lineno: i64,
    },
    Rollback {
        lineno: i64,
    },
}

type ExprVisitor<'a> = dyn FnMut(i64, &PlExpr) -> Result<(), DbError> + 'a;

/// Visit every expression of a function with the line of its statement
/// (0 for declarations' defaults).
pub(crate) fn for_each_expr(func: &Func, f: &mut ExprVisitor<'_>) -> Result<(), DbError> {
    for d in &func.datums {
        if let Datum::Var(VarDef {
            default: Some(e), ..
        }) = d
        {
            f(0, e)?;
        }
    }
    visit_block(&func.body, f)
}

fn visit_block(b: &Block, f: &mut ExprVisitor<'_>) -> Result<(), DbError> {
    visit_stmts(&b.body, f)?;
    if let Some(h) = &b.handlers {
        for handler in &h.list {
            visit_stmts(&handler.body, f)?;
        }
    }
    Ok(())
}

fn visit_stmts(list: &[Stmt], f: &mut ExprVisitor<'_>) -> Result<(), DbError> {
    for s in list {
        let line = s.lineno();
        let mut e = |x: &Arc<PlExpr>| f(line, x);
        match s {
            Stmt::Block(b) => visit_block(b, f)?,
            Stmt::Assign {
                expr, subscripts, ..
            } => {
                for (l, u) in subscripts.iter().flat_map(|s| &s.bounds) {
                    for x in [l, u].into_iter().flatten() {
                        e(x)?;
                    }
                }
                e(expr)?
            }
            Stmt::If {
                branches, else_, ..
            } => {
                for (c, _) in branches {
                    e(c)?;
                }
                for (_, body) in branches {
                    visit_stmts(body, f)?;
                }
                visit_stmts(else_, f)?;
            }
            Stmt::Case {
                operand,
                whens,
                else_,
                ..
            } => {
                if let Some((o, _)) = operand {
                    e(o)?;
                }
                for (c, _) in whens {
                    e(c)?;
                }
                for (_, body) in whens {
                    visit_stmts(body, f)?;
                }
                if let Some(body) = else_ {
                    visit_stmts(body, f)?;
                }
            }
            Stmt::Loop { body, .. } => visit_stmts(body, f)?,
            Stmt::While { cond, body, .. } => {
                e(cond)?;
                visit_stmts(body, f)?;
            }
            Stmt::ForInt {
                lower,
                upper,
                step,
                body,
                ..
            } => {
                e(lower)?;
                e(upper)?;
                if let Some(x) = step {
                    e(x)?;
                }
                visit_stmts(body, f)?;
            }
            Stmt::ForQuery {
                query,
                dynamic,
                body,
                ..
            } => {
                e(query)?;
                for p in dynamic.iter().flatten() {
                    e(p)?;
                }
                visit_stmts(body, f)?;
            }
            Stmt::ForEach { expr, body, .. } => {
                e(expr)?;
                visit_stmts(body, f)?;
            }
            Stmt::Open { source, .. } => match source {
                CursorSource::Bound { args } => {
                    if let Some(a) = args {
                        e(a)?;
                    }
                }
                CursorSource::Query(q) => e(q)?,
                CursorSource::Dynamic { query, params } => {
                    e(query)?;
                    for p in params {
                        e(p)?;
                    }
                }
            },
            Stmt::Fetch { count, .. } => {
                if let Some(c) = count {
                    e(c)?;
                }
            }
            Stmt::Close { .. } => {}
            Stmt::ForCursor { args, body, .. } => {
                if let Some(a) = args {
                    e(a)?;
                }
                visit_stmts(body, f)?;
            }
            Stmt::Exit { cond, .. } => {
                if let Some(c) = cond {
                    e(c)?;
                }
            }
            Stmt::Return { expr, .. } | Stmt::ReturnNext { expr, .. } => {
                if let Some(x) = expr {
                    e(x)?;
                }
            }
            Stmt::ReturnQuery { query, dynamic, .. } => {
                e(query)?;
                for p in dynamic.iter().flatten() {
                    e(p)?;
                }
            }
            Stmt::Raise {
                params, options, ..
            } => {
                for p in params {
                    e(p)?;
                }
                for (_, o) in options {
                    e(o)?;
                }
            }
            Stmt::Assert { cond, message, .. } => {
                e(cond)?;
                if let Some(m) = message {
                    e(m)?;
                }
            }
            Stmt::ExecSql { sql, .. } => e(sql)?,
            Stmt::DynExecute { query, params, .. } => {
                e(query)?;
                for p in params {
                    e(p)?;
                }
            }
            Stmt::Perform { expr, .. } | Stmt::Call { expr, .. } => e(expr)?,
            Stmt::GetDiag { .. } | Stmt::Commit { .. } | Stmt::Rollback { .. } => {}
        }
    }
    Ok(())
}

impl Stmt {
    pub(crate) fn lineno(&self) -> i64 {
        match self {
            Stmt::Block(b) => b.lineno,
            Stmt::Assign { lineno, .. }
            | Stmt::If { lineno, .. }
            | Stmt::Case { lineno, .. }
            | Stmt::Loop { lineno, .. }
            | Stmt::While { lineno, .. }
            | Stmt::ForInt { lineno, .. }
            | Stmt::ForQuery { lineno, .. }
            | Stmt::ForEach { lineno, .. }
            | Stmt::Open { lineno, .. }
            | Stmt::Fetch { lineno, .. }
            | Stmt::Close { lineno, .. }
            | Stmt::ForCursor { lineno, .. }
            | Stmt::Exit { lineno, .. }
            | Stmt::Return { lineno, .. }
            | Stmt::ReturnNext { lineno, .. }
            | Stmt::ReturnQuery { lineno, .. }
            | Stmt::Raise { lineno, .. }
            | Stmt::Assert { lineno, .. }
            | Stmt::ExecSql { lineno, .. }
            | Stmt::DynExecute { lineno, .. }
            | Stmt::Perform { lineno, .. }
            | Stmt::GetDiag { lineno, .. }
            | Stmt::Call { lineno, .. }
            | Stmt::Commit { lineno, .. }
            | Stmt::Rollback { lineno, .. } => *lineno,
        }
    }

    /// PostgreSQL's name of the statement in CONTEXT lines ("at RAISE").
    pub(crate) fn what(&self) -> &'static str {
        match self {
            Stmt::Block(_) => "statement block",
            Stmt::Assign { .. } => "assignment",
            Stmt::If { .. } => "IF",
            Stmt::Case { .. } => "CASE",
            Stmt::Loop { .. } => "LOOP",
            Stmt::While { .. } => "WHILE",
            Stmt::ForInt { .. } => "FOR with integer loop variable",
            Stmt::ForQuery {
                dynamic: Some(_), ..
            } => "FOR over EXECUTE statement",
            Stmt::ForQuery { .. } => "FOR over SELECT rows",
            Stmt::ForEach { .. } => "FOREACH over array",
            Stmt::Open { .. } => "OPEN",
            Stmt::Fetch { is_move: true, .. } => "MOVE",
            Stmt::Fetch { .. } => "FETCH",
            Stmt::Close { .. } => "CLOSE",
            Stmt::ForCursor { .. } => "FOR over cursor",
            Stmt::Exit { is_exit: true, .. } => "EXIT",
            Stmt::Exit { .. } => "CONTINUE",
            Stmt::Return { .. } => "RETURN",
            Stmt::ReturnNext { .. } => "RETURN NEXT",
            Stmt::ReturnQuery { .. } => "RETURN QUERY",
            Stmt::Raise { .. } => "RAISE",
            Stmt::Assert { .. } => "ASSERT",
            Stmt::ExecSql { .. } => "SQL statement",
            Stmt::DynExecute { .. } => "EXECUTE",
            Stmt::Perform { .. } => "PERFORM",
            Stmt::GetDiag { .. } => "GET DIAGNOSTICS",
            Stmt::Call { .. } => "CALL",
            Stmt::Commit { .. } => "COMMIT",
            Stmt::Rollback { .. } => "ROLLBACK",
        }
    }
}

// ----- JSON access ----------------------------------------------------------

fn bad(what: &str) -> DbError {
    DbError::internal(format!("unexpected PL/pgSQL tree: {what}"))
}

/// The single `{"Tag": {...}}` of a node.
fn tagged(j: &J) -> Result<(&str, &J), DbError> {
    let o = j.as_object().ok_or_else(|| bad("node is not an object"))?;
    let (k, v) = o.iter().next().ok_or_else(|| bad("empty node"))?;
    Ok((k.as_str(), v))
}

fn int(j: &J, key: &str) -> i64 {
    j.get(key).and_then(J::as_i64).unwrap_or(0)
}

fn boolean(j: &J, key: &str) -> bool {
    j.get(key).and_then(J::as_bool).unwrap_or(false)
}

fn string(j: &J, key: &str) -> Option<String> {
    j.get(key).and_then(J::as_str).map(str::to_string)
}

fn list<'a>(j: &'a J, key: &str) -> &'a [J] {
    j.get(key)
        .and_then(J::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// The query text of an expression field (`{"PLpgSQL_expr": {...}}`).
fn expr_text(j: &J, key: &str) -> Option<String> {
    let e = j.get(key)?;
    let (_, inner) = tagged(e).ok()?;
    string(inner, "query")
}

// ----- compiling ------------------------------------------------------------

/// What the compiler knows about the function being compiled.
pub(crate) struct Signature<'a> {
    pub name: String,
    /// Declared argument types, every mode, in order.
    pub arg_types: Vec<DataType>,
    pub catalog: &'a Catalog,
    /// The body's text (for its DECLARE sections).
    pub body: &'a str,
    /// The body was given to the parser inside a block of refcursor
    /// declarations standing for text arguments (mod.rs's
    /// `refcursor_wrapper`): the argument each declaration is.
    pub shadows: &'a [usize],
    /// Row variables given to the parser as `record`, with the type they
    /// were declared with (mod.rs `row_declaration`).
    pub rows: &'a [(String, String)],
    /// plpgsql.extra_warnings and extra_errors (`PLPGSQL_CHECK_*` bits)
    /// for a compile that checks (CREATE FUNCTION, DO); (0, 0) otherwise.
    pub extra: (u8, u8),
}

struct Compiler<'a> {
    raw: Vec<J>,
    datums: Vec<Option<Datum>>,
    cursor: usize,
    scope: Scope,
    catalog: &'a Catalog,
    /// Declarations per block, in text order.
    decls: std::collections::VecDeque<DeclSection>,
    /// Variables returned bare (`RETURN x;`), which the parser was given
    /// as `(x)` (see [`wrap_bare_returns`]).
    bare_returns: Vec<String>,
    /// The datums of bound cursors' arguments: no block declares them.
    cursor_args: std::collections::HashSet<usize>,
    /// Datums 0..nargs are the arguments (`ALIAS FOR $n`).
    nargs: usize,
    /// Datums that stand for others (a wrapper's refcursor declaration for
    /// its argument).
    remap: std::collections::HashMap<usize, usize>,
    /// See [`Signature::rows`].
    rows: &'a [(String, String)],
    /// See [`Signature::extra`].
    extra: (u8, u8),
    body_text: &'a str,
    warnings: Vec<DbError>,
}

/// Compile the JSON of one function (from nestor_parser::parse_plpgsql).
pub(crate) fn compile(json: &J, sig: Signature<'_>) -> Result<Func, DbError> {
    let (tag, f) = tagged(json)?;
    if tag != "PLpgSQL_function" {
        return Err(bad(tag));
    }
    let raw: Vec<J> = list(f, "datums").to_vec();
    let nargs = sig.arg_types.len();
    let mut c = Compiler {
        datums: (0..raw.len()).map(|_| None).collect(),
        raw,
        cursor: 0,
        scope: Scope::default(),
        catalog: sig.catalog,
        decls: declarations(sig.body).into(),
        bare_returns: bare_returns(sig.body)
            .into_iter()
            .map(|(start, end)| sig.body[start..end].to_string())
            .collect(),
        cursor_args: Default::default(),
        nargs,
        remap: Default::default(),
        rows: sig.rows,
        extra: sig.extra,
        body_text: sig.body,
        warnings: Vec::new(),
    };
    c.cursor_args = (0..c.raw.len())
        .filter_map(|i| c.argrow_fields(i))
        .flatten()
        .map(|(_, d)| d)
        .collect();
    // The arguments and `found` come first.
    let mut top = Frame {
        label: Some(sig.name.split('(').next().unwrap_or("").to_string()),
        names: Vec::new(),
    };
    let mut found = None;
    while c.cursor < c.raw.len() {
        let i = c.cursor;
        let (_, d) = tagged(&c.raw[i])?;
        let name = string(d, "refname").unwrap_or_default();
        if i < nargs {
            let ty = sig.arg_types[i];
            // An argument of a row type is a row variable of that type.
            if let DataType::Record(rt) = ty {
                if rt.oid != 0 {
                    c.datums[i] = Some(Datum::Rec {
                        name: name.clone(),
                        declared: Some(rt),
                    });
                    if !name.is_empty() {
                        top.names.push((name, i));
                    }
                    c.cursor += 1;
                    continue;
                }
            }
            c.datums[i] = Some(Datum::Var(VarDef {
                name: name.clone(),
                ty,
                constant: false,
                not_null: false,
                default: None,
                cursor: None,
                domain: None,
                lineno: 0,
            }));
        } else if name == "found" && d.get("lineno").is_none() {
            c.datums[i] = Some(Datum::Var(VarDef {
                name: name.clone(),
                ty: DataType::Bool,
                constant: false,
                not_null: false,
                default: None,
                cursor: None,
                domain: None,
                lineno: 0,
            }));
            found = Some(i);
        } else {
            break;
        }
        if !name.is_empty() {
            top.names.push((name, i));
        }
        c.cursor += 1;
        if found.is_some() {
            break;
        }
    }
    let found = found.ok_or_else(|| bad("no found variable"))?;
    // A trigger function: NEW and OLD (records the parser made right after
    // `found`) and the TG_ variables (which it leaves to the compiler).
    let trigger = match (f.get("new_varno"), f.get("old_varno")) {
        (Some(n), Some(o)) => {
            let (new, old) = (
                n.as_u64().unwrap_or(0) as usize,
                o.as_u64().unwrap_or(0) as usize,
            );
            for (d, name) in [(new, "new"), (old, "old")] {
                if d >= c.datums.len() {
                    return Err(bad("trigger record"));
                }
                c.datums[d] = Some(Datum::Rec {
                    name: name.into(),
                    declared: None,
                });
                top.names.push((name.into(), d));
            }
            c.cursor = c.cursor.max(new.max(old) + 1);
            let mut tg = Vec::new();
            for (name, ty) in TRIGGER_VARIABLES {
                let d = c.datums.len();
                c.raw.push(J::Null);
                c.datums.push(Some(Datum::Var(VarDef {
                    name: name.to_string(),
                    ty,
                    constant: true,
                    not_null: false,
                    default: None,
                    cursor: None,
                    domain: None,
                    lineno: 0,
                })));
                top.names.push((name.to_string(), d));
                tg.push(d);
            }
            Some(TriggerDatums { new, old, tg })
        }
        _ => None,
    };
    c.scope.frames.push(top);
    let action = f.get("action").ok_or_else(|| bad("no action"))?;
    let (_, mut b) = tagged(action)?;
    if !sig.shadows.is_empty() {
        // The wrapper block: its declarations are the arguments, its one
        // statement (before the parser's own RETURN) the body's block.
        for &arg in sig.shadows {
            let d = c
                .take_declared()?
                .ok_or_else(|| bad("wrapper declaration"))?;
            c.remap.insert(d, arg);
        }
        let inner = list(b, "body").first().ok_or_else(|| bad("wrapper body"))?;
        b = match tagged(inner)? {
            ("PLpgSQL_stmt_block", inner) => inner,
            (t, _) => return Err(bad(t)),
        };
    }
    let mut body = c.block(b)?;
    // The parser ends every function with a RETURN of its own (line 0), as
    // PostgreSQL does only where falling off the end is allowed; the
    // interpreter decides that from the signature instead.
    if let Some(Stmt::Return {
        lineno: 0,
        expr: None,
    }) = body.body.last()
    {
        body.body.pop();
    }
    // Datums no construct claimed (record fields, INTO rows): made now.
    for i in 0..c.raw.len() {
        if c.datums[i].is_none() {
            let d = c.datum(i)?;
            c.datums[i] = Some(d);
        }
    }
    Ok(Func {
        name: sig.name,
        datums: c
            .datums
            .into_iter()
            .map(|d| d.expect("every datum made"))
            .collect(),
        body,
        nargs,
        found,
        options: body_options(sig.body),
        trigger,
        warnings: c.warnings,
    })
}

/// The 1-based character position in `body` of `name` (a whole word, any
/// case) on 1-based line `line`.
fn name_position(body: &str, line: i64, name: &str) -> Option<u32> {
    let start: usize = body
        .split_inclusive('\n')
        .take(usize::try_from(line).ok()?.checked_sub(1)?)
        .map(str::len)
        .sum();
    let text = body.get(start..)?.split('\n').next()?;
    let lower = text.to_ascii_lowercase();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let b = lower.as_bytes();
    let mut from = 0;
    while let Some(i) = lower.get(from..)?.find(name).map(|i| i + from) {
        let end = i + name.len();
        if (i == 0 || !word(b[i - 1])) && b.get(end).is_none_or(|&c| !word(c)) {
            return Some((body[..start + i].chars().count() + 1) as u32);
        }
        from = end;
    }
    None
}

/// The variables of a trigger function, in [`TriggerDatums::tg`] order.
pub(crate) const TRIGGER_VARIABLES: [(&str, DataType); 10] = [
    ("tg_name", DataType::Name),
    ("tg_when", DataType::Text),
    ("tg_level", DataType::Text),
    ("tg_op", DataType::Text),
    ("tg_relid", DataType::Oid),
    ("tg_relname", DataType::Name),
    ("tg_table_name", DataType::Name),
    ("tg_table_schema", DataType::Name),
    ("tg_nargs", DataType::Int4),
    ("tg_argv", DataType::Array(&DataType::Text)),
];

impl Compiler<'_> {
    fn pl_expr(&self, text: String) -> Arc<PlExpr> {
        self.pl_expr_of(text, ExprKind::Expr)
    }

    fn pl_stmt(&self, j: &J, key: &str) -> Result<Arc<PlExpr>, DbError> {
        let text = expr_text(j, key).ok_or_else(|| bad(key))?;
        Ok(self.pl_expr_of(text, ExprKind::Statement))
    }

    /// The subscripts of an assignment's target text (`arr[i] :=`).
    fn target_subscripts(&self, lhs: &str) -> Result<Option<TargetSubscripts>, DbError> {
        let groups = subscript_groups(lhs)?;
        if groups.is_empty() {
            return Ok(None);
        }
        let slice = groups.iter().any(|g| g.2);
        let expr = |t: Option<&str>| t.map(|t| self.pl_expr(t.to_string()));
        let bounds = groups
            .iter()
            .map(|(lo, hi, is_slice)| {
                let lo = match (lo, slice && !is_slice) {
                    (_, true) => Some("1"),
                    (lo, false) => lo.as_deref(),
                };
                (expr(lo), expr(hi.as_deref()))
            })
            .collect();
        Ok(Some(TargetSubscripts { slice, bounds }))
    }

    fn pl_expr_of(&self, text: String, kind: ExprKind) -> Arc<PlExpr> {
        Arc::new(PlExpr {
            text,
            kind,
            scope: Arc::new(self.scope.clone()),
            cache: Mutex::new(Vec::new()),
        })
    }

    /// A RETURN's value, a bare variable as written.
    fn return_expr(&self, j: &J) -> Option<Arc<PlExpr>> {
        let text = expr_text(j, "expr")?;
        let unwrapped = text
            .strip_prefix('(')
            .and_then(|t| t.strip_suffix(')'))
            .filter(|t| self.bare_returns.iter().any(|b| b == t));
        Some(self.pl_expr(unwrapped.map_or(text.clone(), str::to_string)))
    }

    fn opt_expr(&self, j: &J, key: &str) -> Option<Arc<PlExpr>> {
        expr_text(j, key).map(|t| self.pl_expr(t))
    }

    fn req_expr(&self, j: &J, key: &str) -> Result<Arc<PlExpr>, DbError> {
        self.opt_expr(j, key).ok_or_else(|| bad(key))
    }

    fn exprs(&self, j: &J, key: &str) -> Vec<Arc<PlExpr>> {
        list(j, key)
            .iter()
            .filter_map(|e| tagged(e).ok())
            .filter_map(|(_, inner)| string(inner, "query"))
            .map(|t| self.pl_expr(t))
            .collect()
    }

    /// Build datum `i` from its JSON.
    fn datum(&self, i: usize) -> Result<Datum, DbError> {
        let (tag, d) = tagged(&self.raw[i])?;
        Ok(match tag {
            "PLpgSQL_var" => {
                let name = string(d, "refname").unwrap_or_default();
                let typname = d
                    .get("datatype")
                    .and_then(|t| tagged(t).ok())
                    .and_then(|(_, t)| string(t, "typname"))
                    .unwrap_or_default();
                if let Some(rt) = self.row_type_of(&typname) {
                    return Ok(Datum::Rec {
                        name,
                        declared: Some(rt),
                    });
                }
                match self.type_of(&typname)? {
                    None => Datum::Rec {
                        name,
                        declared: None,
                    },
                    Some(ty) => Datum::Var(VarDef {
                        name,
                        ty,
                        constant: boolean(d, "isconst"),
                        not_null: boolean(d, "notnull"),
                        default: self.opt_expr(d, "default_val"),
                        cursor: self.cursor_decl(d)?,
                        domain: super::domain_of_text(&typname),
                        lineno: int(d, "lineno"),
                    }),
                }
            }
            "PLpgSQL_rec" => {
                let name = string(d, "refname").unwrap_or_default();
                // Given to the parser as `record` (mod.rs row_declaration).
                let declared = self
                    .rows
                    .iter()
                    .find(|(v, _)| *v == name)
                    .and_then(|(_, ty)| self.row_type_of(ty));
                Datum::Rec { name, declared }
            }
            "PLpgSQL_row" => Datum::Row,
            "PLpgSQL_recfield" => Datum::RecField {
                rec: self.dno(int(d, "recparentno") as usize),
                field: string(d, "fieldname").unwrap_or_default(),
            },
            t => return Err(bad(t)),
        })
    }

    /// The row type a declaration names: a composite type, or a table's
    /// row type (`t`, `t%ROWTYPE`); None for `record` and other types.
    fn row_type_of(&self, typname: &str) -> Option<&'static RecordType> {
        let t = typname.trim();
        let base = match t.len().checked_sub("%rowtype".len()) {
            Some(n) if t.is_char_boundary(n) && t[n..].eq_ignore_ascii_case("%rowtype") => &t[..n],
            _ => t,
        };
        if base.eq_ignore_ascii_case("record") {
            return None;
        }
        if let Ok(DataType::Record(rt)) = super::type_from_text(base) {
            return (rt.oid != 0).then_some(rt);
        }
        let name = match base.strip_prefix('"').and_then(|b| b.strip_suffix('"')) {
            Some(quoted) => quoted.to_string(),
            None => base.to_ascii_lowercase(),
        };
        let table = self.catalog.table(&name)?;
        nestor_types::composites::lookup(table.oid.0).map(|d| d.record_type())
    }

    /// A declared type; None for a record (`record`, `t%ROWTYPE`, `t`).
    fn type_of(&self, typname: &str) -> Result<Option<DataType>, DbError> {
        let t = typname.trim();
        if t.eq_ignore_ascii_case("record") || t.to_ascii_lowercase().ends_with("%rowtype") {
            return Ok(None);
        }
        if let Some(base) = t.strip_suffix("%TYPE").or_else(|| t.strip_suffix("%type")) {
            // An unquoted name is folded to lower case, as the parser does.
            let parts: Vec<String> = base
                .split('.')
                .map(
                    |p| match p.strip_prefix('"').and_then(|p| p.strip_suffix('"')) {
                        Some(quoted) => quoted.to_string(),
                        None => p.to_ascii_lowercase(),
                    },
                )
                .collect();
            let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
            return match parts.as_slice() {
                [var] => match self.scope.lookup(var).and_then(|d| self.datums[d].as_ref()) {
                    Some(Datum::Var(v)) => Ok(Some(v.ty)),
                    _ => Err(DbError::new(
                        SqlState::UndefinedObject,
                        format!("variable \"{var}\" does not exist"),
                    )),
                },
                [table, col] => {
                    let t = self.catalog.table(table).ok_or_else(|| {
                        DbError::new(
                            SqlState::UndefinedTable,
                            format!("relation \"{table}\" does not exist"),
                        )
                    })?;
                    let c = t
                        .columns
                        .iter()
                        .find(|c| !c.dropped && c.name == *col)
                        .ok_or_else(|| {
                            DbError::new(
                                SqlState::UndefinedColumn,
                                format!("column \"{col}\" of relation \"{table}\" does not exist"),
                            )
                        })?;
                    Ok(Some(c.ty))
                }
                _ => Err(DbError::unsupported(format!("type {t}"))),
            };
        }
        match super::type_from_text(t) {
            Ok(ty) => Ok(Some(ty)),
            // A table's name is its row type: a record.
            Err(e) => match self.catalog.table(t.trim_matches('"')) {
                Some(_) => Ok(None),
                None => Err(e),
            },
        }
    }

    /// The argument datums (name, datum) of the bound cursor datum `i`
    /// declares; None when `i` is no cursor with arguments.
    fn argrow_fields(&self, i: usize) -> Option<Vec<(String, usize)>> {
        let (tag, d) = tagged(&self.raw[i]).ok()?;
        if tag != "PLpgSQL_var" || d.get("cursor_explicit_expr").is_none() {
            return None;
        }
        let row = usize::try_from(int(d, "cursor_explicit_argrow")).ok()?;
        let (_, r) = tagged(self.raw.get(row)?).ok()?;
        Some(
            list(r, "fields")
                .iter()
                .map(|f| {
                    (
                        string(f, "name").unwrap_or_default(),
                        int(f, "varno") as usize,
                    )
                })
                .collect(),
        )
    }

    /// A bound cursor's declaration: its query sees its arguments.
    fn cursor_decl(&self, d: &J) -> Result<Option<CursorDecl>, DbError> {
        let Some(text) = expr_text(d, "cursor_explicit_expr") else {
            return Ok(None);
        };
        let args = match usize::try_from(int(d, "cursor_explicit_argrow")) {
            Ok(row) => {
                let (_, r) = tagged(self.raw.get(row).ok_or_else(|| bad("cursor arguments"))?)?;
                list(r, "fields")
                    .iter()
                    .map(|f| {
                        (
                            string(f, "name").unwrap_or_default(),
                            int(f, "varno") as usize,
                        )
                    })
                    .collect()
            }
            Err(_) => Vec::new(),
        };
        let mut scope = self.scope.clone();
        scope.frames.push(Frame {
            label: None,
            names: args.clone(),
        });
        Ok(Some(CursorDecl {
            query: Arc::new(PlExpr {
                text,
                kind: ExprKind::Statement,
                scope: Arc::new(scope),
                cache: Mutex::new(Vec::new()),
            }),
            args: args.into_iter().map(|(_, d)| d).collect(),
            options: int(d, "cursor_options"),
        }))
    }

    /// The datum `d` stands for (see [`Signature::shadows`]).
    fn dno(&self, d: usize) -> usize {
        self.remap.get(&d).copied().unwrap_or(d)
    }

    /// A cursor statement's cursor variable.
    fn curvar(&self, s: &J) -> usize {
        self.dno(int(s, "curvar") as usize)
    }

    /// Take the next declared datum at the cursor, skipping record fields
    /// and INTO rows, which no declaration makes.
    fn take_declared(&mut self) -> Result<Option<usize>, DbError> {
        let mut i = self.cursor;
        while i < self.raw.len() {
            let (tag, d) = tagged(&self.raw[i])?;
            let name = string(d, "refname").unwrap_or_default();
            let skip = tag == "PLpgSQL_recfield"
                || (tag == "PLpgSQL_row" && name == "(unnamed row)")
                || self.cursor_args.contains(&i)
                || self.datums[i].is_some();
            if skip {
                i += 1;
                continue;
            }
            let datum = self.datum(i)?;
            self.datums[i] = Some(datum);
            self.cursor = i + 1;
            return Ok(Some(i));
        }
        Ok(None)
    }

    /// The loop variable of an integer FOR: the next unclaimed variable
    /// named `name`.
    fn take_named(&mut self, name: &str) -> Result<usize, DbError> {
        for i in self.cursor..self.raw.len() {
            if self.datums[i].is_some() {
                continue;
            }
            let (_, d) = tagged(&self.raw[i])?;
            if string(d, "refname").as_deref() == Some(name) {
                let datum = self.datum(i)?;
                self.datums[i] = Some(datum);
                self.cursor = i + 1;
                return Ok(i);
            }
        }
        Err(bad(&format!("no datum for {name}")))
    }

    fn block(&mut self, b: &J) -> Result<Block, DbError> {
        let lineno = int(b, "lineno");
        let label = string(b, "label");
        let mut decls = Vec::new();
        // Declarations are made one at a time: a default may name an
        // earlier one, and %TYPE may refer to one.
        self.scope.frames.push(Frame {
            label: label.clone(),
            names: Vec::new(),
        });
        let section = self.decls.pop_front().unwrap_or_default();
        for _ in 0..section.count {
            let Some(d) = self.take_declared()? else {
                break;
            };
            let name = self.datums[d].as_ref().expect("taken").name().to_string();
            // A bound cursor's arguments are declared before it.
            for (arg, _) in self.argrow_fields(d).unwrap_or_default() {
                if self.scope.lookup(&arg).is_some() {
                    self.shadowed(&arg, d)?;
                }
            }
            if self.scope.lookup(&name).is_some() {
                self.shadowed(&name, d)?;
            }
            self.name_in_block(name, d);
            decls.push(d);
        }
        // `name ALIAS FOR target`: another name for a datum in scope.
        for (name, target) in section.aliases {
            let d = match target.strip_prefix('$').map(str::parse::<usize>) {
                Some(Ok(n)) if (1..=self.nargs).contains(&n) => Some(n - 1),
                _ => self.scope.lookup(&target),
            }
            .ok_or_else(|| {
                DbError::new(
                    SqlState::UndefinedObject,
                    format!("variable \"{target}\" does not exist"),
                )
            })?;
            self.name_in_block(name, d);
        }
        let body = self.stmts(list(b, "body"))?;
        let handlers = match b.get("exceptions") {
            None => None,
            Some(e) => {
                let (_, eb) = tagged(e)?;
                let sqlstate = self.take_named("sqlstate").ok();
                let sqlerrm = self.take_named("sqlerrm").ok();
                let mut hframe = Frame {
                    label: None,
                    names: Vec::new(),
                };
                if let Some(d) = sqlstate {
                    hframe.names.push(("sqlstate".into(), d));
                }
                if let Some(d) = sqlerrm {
                    hframe.names.push(("sqlerrm".into(), d));
                }
                self.scope.frames.push(hframe);
                let mut out = Vec::new();
                for h in list(eb, "exc_list") {
                    let (_, h) = tagged(h)?;
                    let mut conds = Vec::new();
                    for c in list(h, "conditions") {
                        let (_, c) = tagged(c)?;
                        let name = string(c, "condname").unwrap_or_default();
                        conds.push(condition(&name)?);
                    }
                    let body = self.stmts(list(h, "action"))?;
                    out.push(Handler { conds, body });
                }
                self.scope.frames.pop();
                Some(Handlers {
                    sqlstate,
                    sqlerrm,
                    list: out,
                })
            }
        };
        self.scope.frames.pop();
        Ok(Block {
            lineno,
            label,
            decls,
            body,
            handlers,
        })
    }

    /// Put `name` for datum `d` in the innermost frame (the block being
    /// compiled): a declaration or an ALIAS.
    /// plpgsql.extra_warnings / extra_errors' shadowed_variables: the
    /// declaration of `name` (datum `d`) hides a variable of an enclosing
    /// block or a parameter. Positioned at the name on its line.
    fn shadowed(&mut self, name: &str, d: usize) -> Result<(), DbError> {
        let check = nestor_settings::PLPGSQL_CHECK_SHADOWED_VARIABLES;
        let (warn, fail) = (self.extra.0 & check != 0, self.extra.1 & check != 0);
        if !warn && !fail {
            return Ok(());
        }
        let mut e = DbError::new(
            SqlState::DuplicateAlias,
            format!("variable \"{name}\" shadows a previously defined variable"),
        );
        let line = tagged(&self.raw[d]).map_or(0, |(_, j)| int(j, "lineno"));
        if let Some(p) = name_position(self.body_text, line, name) {
            e = e.with_position(p);
        }
        if fail {
            return Err(e);
        }
        self.warnings
            .push(e.with_severity(nestor_common::error::Severity::Warning));
        Ok(())
    }

    fn name_in_block(&mut self, name: String, d: usize) {
        self.scope
            .frames
            .last_mut()
            .expect("a block's frame is pushed before its declarations")
            .names
            .push((name, d));
    }

    fn stmts(&mut self, list: &[J]) -> Result<Vec<Stmt>, DbError> {
        list.iter().map(|s| self.stmt(s)).collect()
    }

    /// A loop's body, compiled in a frame of its own: the loop's label
    /// and the names the loop declares (its variable or record).
    fn loop_body(&mut self, s: &J, names: Vec<(String, usize)>) -> Result<Vec<Stmt>, DbError> {
        self.scope.frames.push(Frame {
            label: string(s, "label"),
            names,
        });
        let body = self.stmts(list(s, "body"));
        self.scope.frames.pop();
        body
    }

    fn target(&self, varno: usize) -> Result<Target, DbError> {
        let varno = self.dno(varno);
        let (tag, d) = tagged(self.raw.get(varno).ok_or_else(|| bad("varno"))?)?;
        Ok(match tag {
            "PLpgSQL_var" => {
                let typname = d
                    .get("datatype")
                    .and_then(|t| tagged(t).ok())
                    .and_then(|(_, t)| string(t, "typname"))
                    .unwrap_or_default();
                if self.row_type_of(&typname).is_some() || self.type_of(&typname)?.is_none() {
                    Target::Rec(varno)
                } else {
                    Target::Var(varno)
                }
            }
            "PLpgSQL_rec" => Target::Rec(varno),
            "PLpgSQL_row" => Target::Row(
                list(d, "fields")
                    .iter()
                    .map(|f| self.dno(int(f, "varno") as usize))
                    .collect(),
            ),
            "PLpgSQL_recfield" => Target::Field(
                self.dno(int(d, "recparentno") as usize),
                string(d, "fieldname").unwrap_or_default(),
            ),
            t => return Err(bad(t)),
        })
    }

    /// An INTO target or a FOR loop variable as the JSON writes it inline.
    fn inline_target(&mut self, j: &J) -> Result<Target, DbError> {
        let (tag, d) = tagged(j)?;
        match tag {
            "PLpgSQL_row" => Ok(Target::Row(
                list(d, "fields")
                    .iter()
                    .map(|f| self.dno(int(f, "varno") as usize))
                    .collect(),
            )),
            "PLpgSQL_rec" => {
                if let Some(dno) = d.get("dno").and_then(J::as_i64) {
                    return Ok(Target::Rec(dno as usize));
                }
                let name = string(d, "refname").unwrap_or_default();
                self.scope
                    .lookup(&name)
                    .map(Target::Rec)
                    .ok_or_else(|| bad("record target"))
            }
            "PLpgSQL_var" => {
                let name = string(d, "refname").unwrap_or_default();
                match self.scope.lookup(&name) {
                    Some(dno) => self.target(dno),
                    None => Err(bad("variable target")),
                }
            }
            t => Err(bad(t)),
        }
    }

    fn stmt(&mut self, j: &J) -> Result<Stmt, DbError> {
        let (tag, s) = tagged(j)?;
        let lineno = int(s, "lineno");
        Ok(match tag {
            "PLpgSQL_stmt_block" => Stmt::Block(self.block(s)?),
            "PLpgSQL_stmt_assign" => {
                let target = self.target(int(s, "varno") as usize)?;
                let written = expr_text(s, "expr").ok_or_else(|| bad("assignment"))?;
                let (at, value) = assignment_value(&written);
                let value = value.to_string();
                let value_at = written[..at].chars().count() as u32;
                let subscripts = self.target_subscripts(&written[..at])?;
                Stmt::Assign {
                    lineno,
                    target,
                    expr: self.pl_expr_of(value, ExprKind::Assign { written, value_at }),
                    subscripts,
                }
            }
            "PLpgSQL_stmt_if" => {
                let mut branches =
                    vec![(self.req_expr(s, "cond")?, self.stmts(list(s, "then_body"))?)];
                for e in list(s, "elsif_list") {
                    let (_, e) = tagged(e)?;
                    branches.push((self.req_expr(e, "cond")?, self.stmts(list(e, "stmts"))?));
                }
                Stmt::If {
                    lineno,
                    branches,
                    else_: self.stmts(list(s, "else_body"))?,
                }
            }
            "PLpgSQL_stmt_case" => {
                let operand = match self.opt_expr(s, "t_expr") {
                    Some(e) => {
                        let dno = int(s, "t_varno") as usize;
                        // The hidden variable the operand is kept in: typed
                        // by the operand's value, named in the WHEN tests.
                        if self.datums.get(dno).is_some_and(Option::is_none) {
                            let name = tagged(&self.raw[dno])
                                .ok()
                                .and_then(|(_, d)| string(d, "refname"))
                                .unwrap_or_default();
                            self.datums[dno] = Some(Datum::Var(VarDef {
                                name: name.clone(),
                                ty: DataType::Unknown,
                                constant: false,
                                not_null: false,
                                default: None,
                                cursor: None,
                                domain: None,
                                lineno: 0,
                            }));
                            self.scope.frames.push(Frame {
                                label: None,
                                names: vec![(name, dno)],
                            });
                        }
                        Some((e, dno))
                    }
                    None => None,
                };
                let mut whens = Vec::new();
                for w in list(s, "case_when_list") {
                    let (_, w) = tagged(w)?;
                    whens.push((self.req_expr(w, "expr")?, self.stmts(list(w, "stmts"))?));
                }
                let else_ = if boolean(s, "have_else") {
                    Some(self.stmts(list(s, "else_stmts"))?)
                } else {
                    None
                };
                if operand.is_some() {
                    self.scope.frames.pop();
                }
                Stmt::Case {
                    lineno,
                    operand,
                    whens,
                    else_,
                }
            }
            "PLpgSQL_stmt_loop" => Stmt::Loop {
                lineno,
                label: string(s, "label"),
                body: self.stmts(list(s, "body"))?,
            },
            "PLpgSQL_stmt_while" => Stmt::While {
                lineno,
                label: string(s, "label"),
                cond: self.req_expr(s, "cond")?,
                body: self.stmts(list(s, "body"))?,
            },
            "PLpgSQL_stmt_fori" => {
                let var_json = s.get("var").ok_or_else(|| bad("fori var"))?;
                let (_, v) = tagged(var_json)?;
                let name = string(v, "refname").unwrap_or_default();
                let lower = self.req_expr(s, "lower")?;
                let upper = self.req_expr(s, "upper")?;
                let step = self.opt_expr(s, "step");
                let var = self.take_named(&name)?;
                let body = self.loop_body(s, vec![(name, var)]);
                Stmt::ForInt {
                    lineno,
                    label: string(s, "label"),
                    var,
                    lower,
                    upper,
                    step,
                    reverse: boolean(s, "reverse"),
                    body: body?,
                }
            }
            "PLpgSQL_stmt_fors" | "PLpgSQL_stmt_dynfors" => {
                let target = self.inline_target(s.get("var").ok_or_else(|| bad("for target"))?)?;
                let dynamic = (tag == "PLpgSQL_stmt_dynfors").then(|| self.exprs(s, "params"));
                let query = match dynamic {
                    None => self.pl_stmt(s, "query")?,
                    Some(_) => self.req_expr(s, "query")?,
                };
                let body = self.loop_body(s, Vec::new());
                Stmt::ForQuery {
                    lineno,
                    label: string(s, "label"),
                    target,
                    query,
                    dynamic,
                    body: body?,
                }
            }
            "PLpgSQL_stmt_exit" => Stmt::Exit {
                lineno,
                is_exit: boolean(s, "is_exit"),
                label: string(s, "label"),
                cond: self.opt_expr(s, "cond"),
            },
            "PLpgSQL_stmt_return" => Stmt::Return {
                lineno,
                expr: self.return_expr(s),
            },
            "PLpgSQL_stmt_return_next" => Stmt::ReturnNext {
                lineno,
                expr: self.return_expr(s),
            },
            "PLpgSQL_stmt_return_query" => match self.pl_stmt(s, "query") {
                Ok(q) => Stmt::ReturnQuery {
                    lineno,
                    query: q,
                    dynamic: None,
                },
                Err(_) => Stmt::ReturnQuery {
                    lineno,
                    query: self.req_expr(s, "dynquery")?,
                    dynamic: Some(self.exprs(s, "params")),
                },
            },
            "PLpgSQL_stmt_raise" => Stmt::Raise {
                lineno,
                level: int(s, "elog_level"),
                condname: string(s, "condname"),
                message: string(s, "message"),
                params: self.exprs(s, "params"),
                options: list(s, "options")
                    .iter()
                    .filter_map(|o| tagged(o).ok())
                    .filter_map(|(_, o)| {
                        Some((int(o, "opt_type"), self.pl_expr(expr_text(o, "expr")?)))
                    })
                    .collect(),
            },
            "PLpgSQL_stmt_assert" => Stmt::Assert {
                lineno,
                cond: self.req_expr(s, "cond")?,
                message: self.opt_expr(s, "message"),
            },
            "PLpgSQL_stmt_execsql" => {
                let into = if boolean(s, "into") {
                    Some(self.inline_target(s.get("target").ok_or_else(|| bad("INTO"))?)?)
                } else {
                    None
                };
                Stmt::ExecSql {
                    lineno,
                    sql: self.pl_stmt(s, "sqlstmt")?,
                    into,
                    strict: boolean(s, "strict"),
                }
            }
            "PLpgSQL_stmt_dynexecute" => {
                let into = if boolean(s, "into") {
                    Some(self.inline_target(s.get("target").ok_or_else(|| bad("INTO"))?)?)
                } else {
                    None
                };
                Stmt::DynExecute {
                    lineno,
                    query: self.req_expr(s, "query")?,
                    into,
                    strict: boolean(s, "strict"),
                    params: self.exprs(s, "params"),
                }
            }
            "PLpgSQL_stmt_perform" => Stmt::Perform {
                lineno,
                expr: self.pl_stmt(s, "expr")?,
            },
            "PLpgSQL_stmt_getdiag" => Stmt::GetDiag {
                lineno,
                stacked: boolean(s, "is_stacked"),
                items: list(s, "diag_items")
                    .iter()
                    .filter_map(|i| tagged(i).ok())
                    .map(|(_, i)| {
                        (
                            string(i, "kind").unwrap_or_default(),
                            self.dno(int(i, "target") as usize),
                        )
                    })
                    .collect(),
            },
            "PLpgSQL_stmt_call" => Stmt::Call {
                lineno,
                expr: self.pl_stmt(s, "expr")?,
            },
            "PLpgSQL_stmt_commit" => Stmt::Commit { lineno },
            "PLpgSQL_stmt_rollback" => Stmt::Rollback { lineno },
            "PLpgSQL_stmt_open" => {
                let source = if let Some(q) = expr_text(s, "query") {
                    CursorSource::Query(self.pl_expr_of(q, ExprKind::Statement))
                } else if s.get("dynquery").is_some() {
                    CursorSource::Dynamic {
                        query: self.req_expr(s, "dynquery")?,
                        params: self.exprs(s, "params"),
                    }
                } else {
                    CursorSource::Bound {
                        args: self.opt_expr(s, "argquery"),
                    }
                };
                Stmt::Open {
                    lineno,
                    curvar: self.curvar(s),
                    options: int(s, "cursor_options"),
                    source,
                }
            }
            "PLpgSQL_stmt_fetch" => Stmt::Fetch {
                lineno,
                curvar: self.curvar(s),
                direction: int(s, "direction"),
                how_many: int(s, "how_many"),
                count: self.opt_expr(s, "expr"),
                is_move: boolean(s, "is_move"),
                into: match s.get("target") {
                    Some(t) => Some(self.inline_target(t)?),
                    None => None,
                },
            },
            "PLpgSQL_stmt_close" => Stmt::Close {
                lineno,
                curvar: self.curvar(s),
            },
            "PLpgSQL_stmt_forc" => {
                let (_, v) = tagged(s.get("var").ok_or_else(|| bad("cursor loop record"))?)?;
                let rec = v
                    .get("dno")
                    .and_then(J::as_u64)
                    .map(|d| d as usize)
                    .filter(|&d| d < self.datums.len())
                    .ok_or_else(|| bad("cursor loop record"))?;
                let name = string(v, "refname").unwrap_or_default();
                self.datums[rec] = Some(Datum::Rec {
                    name: name.clone(),
                    declared: None,
                });
                let args = self.opt_expr(s, "argquery");
                let body = self.loop_body(s, vec![(name, rec)]);
                Stmt::ForCursor {
                    lineno,
                    label: string(s, "label"),
                    rec,
                    curvar: self.curvar(s),
                    args,
                    body: body?,
                }
            }
            "PLpgSQL_stmt_foreach_a" => {
                let target = self.target(int(s, "varno") as usize)?;
                let expr = self.req_expr(s, "expr")?;
                let body = self.loop_body(s, Vec::new());
                Stmt::ForEach {
                    lineno,
                    label: string(s, "label"),
                    target,
                    slice: int(s, "slice"),
                    expr,
                    body: body?,
                }
            }
            t => return Err(DbError::unsupported(format!("PL/pgSQL statement {t}"))),
        })
    }
}

/// For each block of a PL/pgSQL body, in the order of their BEGINs, how
/// many variables its DECLARE section declares (`x ALIAS FOR ...` makes
/// none). A small scanner over PostgreSQL's lexical rules: strings,
/// quoted identifiers, comments and dollar quotes are skipped whole.
#[cfg(test)]
pub(crate) fn declaration_counts(body: &str) -> Vec<usize> {
    declarations(body).into_iter().map(|d| d.count).collect()
}

/// A block's DECLARE section: how many variables it declares, and its
/// `name ALIAS FOR target` declarations (name folded as the parser folds
/// it, target as written: a name or `$n`), which make no variable.
#[derive(Default)]
pub(crate) struct DeclSection {
    pub count: usize,
    pub aliases: Vec<(String, String)>,
}

/// The DECLARE sections of a body, one per BEGIN, in text order (see
/// [`declaration_counts`]).
pub(crate) fn declarations(body: &str) -> Vec<DeclSection> {
    let b = body.as_bytes();
    // (upper-case word, word as written, ends a declaration)
    let mut words: Vec<(String, String, bool)> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\'' => {
                i += 1;
                while i < b.len() {
                    if b[i] == b'\'' {
                        if b.get(i + 1) == Some(&b'\'') {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += 1;
                }
                // A quoted name: never a keyword, kept as written.
                let name = body.get(start..i.min(b.len())).unwrap_or("");
                words.push(("\"".into(), name.to_string(), false));
                i += 1;
            }
            b'-' if b.get(i + 1) == Some(&b'-') => {
                while i < b.len() && b[i] != b'\n' && b[i] != b'\r' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                while i < b.len() {
                    if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                        depth += 1;
                        i += 2;
                    } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            b'$' => {
                // $tag$ ... $tag$ (a $n parameter is not a quote).
                let start = i;
                let mut j = i + 1;
                while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                    j += 1;
                }
                if j < b.len()
                    && b[j] == b'$'
                    && !b[start + 1..j].first().is_some_and(u8::is_ascii_digit)
                {
                    let tag = &body[start..=j];
                    match body[j + 1..].find(tag) {
                        Some(end) => i = j + 1 + end + tag.len(),
                        None => i = b.len(),
                    }
                } else {
                    // `$n`, as ALIAS FOR names an argument.
                    words.push((body[start..j].into(), body[start..j].into(), false));
                    i = j;
                }
            }
            b';' => {
                words.push((";".into(), ";".into(), true));
                i += 1;
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] >= 0x80)
                {
                    i += 1;
                }
                words.push((
                    body[start..i].to_ascii_uppercase(),
                    body[start..i].to_ascii_lowercase(),
                    false,
                ));
            }
            _ => i += 1,
        }
    }
    let mut out = Vec::new();
    let mut in_decl = false;
    let mut section = DeclSection::default();
    // The words of the declaration being read.
    let mut current: Vec<(String, String)> = Vec::new();
    for (w, written, semi) in words {
        if semi {
            if in_decl {
                match current.as_slice() {
                    [(_, name), (alias, _), (f, _), (_, target), ..]
                        if alias == "ALIAS" && f == "FOR" =>
                    {
                        section.aliases.push((name.clone(), target.clone()));
                    }
                    _ => section.count += 1,
                }
            }
            current.clear();
            continue;
        }
        match w.as_str() {
            "DECLARE" => {
                in_decl = true;
                current.clear();
            }
            "BEGIN" => {
                out.push(if in_decl {
                    std::mem::take(&mut section)
                } else {
                    DeclSection::default()
                });
                in_decl = false;
                section = DeclSection::default();
                current.clear();
            }
            _ => current.push((w, written)),
        }
    }
    out
}

/// `RETURN NEXT x;` and `RETURN x;` with a bare variable: libpg_query's
/// tree keeps the variable's number in a field it does not output, so the
/// text given to it has the variable in parentheses, an expression (the
/// lines, and so line numbers, stay as written).
pub(crate) fn wrap_bare_returns(body: &str) -> String {
    let inserts = bare_returns(body);
    let mut out = String::with_capacity(body.len() + inserts.len() * 2);
    let mut at = 0;
    for (start, end) in inserts {
        out.push_str(&body[at..start]);
        out.push('(');
        out.push_str(&body[start..end]);
        out.push(')');
        at = end;
    }
    out.push_str(&body[at..]);
    out
}

/// Whether a body has OPEN, FETCH, MOVE or CLOSE statements (as words
/// outside strings and comments: a false hit only costs a wrapper).
pub(crate) fn uses_cursor_statements(body: &str) -> bool {
    tokens(body).iter().any(|t| {
        t.is_ident
            && ["open", "fetch", "move", "close"]
                .iter()
                .any(|k| t.word.eq_ignore_ascii_case(k))
    })
}

/// Whether a body's last token is a `;`.
pub(crate) fn ends_with_semicolon(body: &str) -> bool {
    tokens(body).last().is_some_and(|t| t.word == ";")
}

/// The body after its leading `#option` lines and comments (see
/// [`body_options`]).
pub(crate) fn after_options(body: &str) -> &str {
    let mut rest = body;
    loop {
        let trimmed = rest.trim_start();
        if let Some(r) = trimmed.strip_prefix("--") {
            rest = r.split_once('\n').map_or("", |(_, r)| r);
            continue;
        }
        let Some(r) = trimmed.strip_prefix('#') else {
            return rest;
        };
        rest = r.split_once('\n').map_or("", |(_, r)| r);
    }
}

/// The (start, end) byte ranges of variables returned bare.
fn bare_returns(body: &str) -> Vec<(usize, usize)> {
    let toks = tokens(body);
    let mut inserts: Vec<(usize, usize)> = Vec::new(); // (start, end) of the word
    for (k, t) in toks.iter().enumerate() {
        if !t.word.eq_ignore_ascii_case("RETURN") {
            continue;
        }
        let mut j = k + 1;
        if toks
            .get(j)
            .is_some_and(|n| n.word.eq_ignore_ascii_case("NEXT"))
        {
            j += 1;
        }
        let (Some(var), Some(semi)) = (toks.get(j), toks.get(j + 1)) else {
            continue;
        };
        if var.is_ident && semi.word == ";" && !var.word.eq_ignore_ascii_case("QUERY") {
            inserts.push((var.start, var.end));
        }
    }
    inserts
}

struct Tok {
    word: String,
    start: usize,
    end: usize,
    is_ident: bool,
}

/// Words, quoted identifiers and semicolons of a PL/pgSQL body (strings,
/// comments and dollar quotes skipped).
fn tokens(body: &str) -> Vec<Tok> {
    let b = body.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\'' => {
                i += 1;
                while i < b.len() {
                    if b[i] == b'\'' {
                        if b.get(i + 1) == Some(&b'\'') {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                i += 1;
                out.push(Tok {
                    word: "'".into(),
                    start: i,
                    end: i,
                    is_ident: false,
                });
            }
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += 1;
                }
                i += 1;
                let end = i.min(b.len());
                out.push(Tok {
                    word: body[start..end].to_string(),
                    start,
                    end,
                    is_ident: true,
                });
            }
            b'-' if b.get(i + 1) == Some(&b'-') => {
                while i < b.len() && b[i] != b'\n' && b[i] != b'\r' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                while i < b.len() {
                    if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                        depth += 1;
                        i += 2;
                    } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            b'$' => {
                let start = i;
                let mut j = i + 1;
                while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                    j += 1;
                }
                if j < b.len()
                    && b[j] == b'$'
                    && !b[start + 1..j].first().is_some_and(u8::is_ascii_digit)
                {
                    let tag = &body[start..=j];
                    match body[j + 1..].find(tag) {
                        Some(end) => i = j + 1 + end + tag.len(),
                        None => i = b.len(),
                    }
                    out.push(Tok {
                        word: "$".into(),
                        start: i,
                        end: i,
                        is_ident: false,
                    });
                } else {
                    out.push(Tok {
                        word: body[start..j].to_string(),
                        start,
                        end: j,
                        is_ident: false,
                    });
                    i = j;
                }
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 => {
                let start = i;
                while i < b.len()
                    && (b[i].is_ascii_alphanumeric()
                        || b[i] == b'_'
                        || b[i] == b'$'
                        || b[i] >= 0x80)
                {
                    i += 1;
                }
                out.push(Tok {
                    word: body[start..i].to_string(),
                    start,
                    end: i,
                    is_ident: true,
                });
            }
            c if c.is_ascii_whitespace() => i += 1,
            _ => {
                out.push(Tok {
                    word: (c as char).to_string(),
                    start: i,
                    end: i + 1,
                    is_ident: false,
                });
                i += 1;
            }
        }
    }
    out
}

/// The value side of an assignment's text (`x := x + 1` -> `x + 1`) and
/// the byte offset it starts at.
fn assignment_value(text: &str) -> (usize, &str) {
    let bytes = text.as_bytes();
    let mut quote = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\'' {
            quote = !quote;
        } else if !quote {
            let rest = if b == b':' && bytes.get(i + 1) == Some(&b'=') {
                Some(i + 2)
            } else if b == b'=' {
                Some(i + 1)
            } else {
                None
            };
            if let Some(at) = rest {
                let value = text[at..].trim_start();
                let at = text.len() - value.len();
                return (at, value.trim_end());
            }
        }
        i += 1;
    }
    (0, text)
}

/// One bracket of an assignment target: the text of its lower and upper
/// bound (None where there is none) and whether it is a slice.
type Group = (Option<String>, Option<String>, bool);

/// The bracketed groups after the variable in an assignment's target
/// text (`a[i][j + 1] :=`, `a[1:n] :=`); empty when there is none.
fn subscript_groups(lhs: &str) -> Result<Vec<Group>, DbError> {
    let lhs = lhs.trim_end();
    let lhs = lhs
        .strip_suffix(":=")
        .or_else(|| lhs.strip_suffix('='))
        .unwrap_or(lhs)
        .trim_end();
    let b = lhs.as_bytes();
    let Some(mut i) = lhs.find('[') else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if b[i] != b'[' {
            return Err(DbError::unsupported(
                "assignment to a field of an array element",
            ));
        }
        let (end, colon) = bracket_end(b, i + 1).ok_or_else(|| {
            DbError::new(SqlState::SyntaxError, "syntax error in assignment target")
        })?;
        let part = |from: usize, to: usize| {
            let t = lhs[from..to].trim();
            (!t.is_empty()).then(|| t.to_string())
        };
        out.push(match colon {
            Some(c) => (part(i + 1, c), part(c + 1, end), true),
            None => (None, part(i + 1, end), false),
        });
        i = end + 1;
    }
    Ok(out)
}

/// The `]` closing a bracket whose text starts at `from`, and the colon
/// at its top level, skipping quotes, nested brackets and `::` casts.
fn bracket_end(b: &[u8], from: usize) -> Option<(usize, Option<usize>)> {
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut colon = None;
    let mut i = from;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'\'' | b'"' => quote = Some(c),
                b'[' | b'(' => depth += 1,
                b']' if depth == 0 => return Some((i, colon)),
                b']' | b')' => depth = depth.saturating_sub(1),
                b':' if b.get(i + 1) == Some(&b':') => i += 1,
                b':' if depth == 0 => colon = Some(i),
                _ => {}
            },
        }
        i += 1;
    }
    None
}

/// A condition name of an exception handler.
fn condition(name: &str) -> Result<Cond, DbError> {
    let lower = name.to_ascii_lowercase();
    if lower == "others" {
        return Ok(Cond::Others);
    }
    if let Some(code) = lower.strip_prefix("sqlstate ") {
        return Ok(Cond::Code(
            code.trim().trim_matches('\'').to_ascii_uppercase(),
        ));
    }
    if nestor_common::errcodes::is_sqlstate(name) {
        return Ok(Cond::Code(name.to_string()));
    }
    nestor_common::errcodes::condition_sqlstate(&lower)
        .map(|c| Cond::Code(c.to_string()))
        .ok_or_else(|| {
            DbError::new(
                SqlState::UndefinedObject,
                format!("unrecognized exception condition \"{name}\""),
            )
        })
}

#[cfg(test)]
mod tests {
    #[test]
    fn declarations_are_counted_per_block() {
        let body = "
            DECLARE a int := 1; b text := 'x;y'; c ALIAS FOR $1;
            BEGIN
              BEGIN NULL; END;
              <<l>> DECLARE -- a comment; with a semicolon
                d int; /* e int; */
              BEGIN
                EXECUTE $q$ DECLARE z int; BEGIN $q$;
              END;
            END";
        assert_eq!(super::declaration_counts(body), [2, 0, 1]);
        assert_eq!(super::declaration_counts("BEGIN RETURN 1; END"), [0]);
        let aliases: Vec<_> = super::declarations(body)
            .into_iter()
            .map(|d| d.aliases)
            .collect();
        assert_eq!(aliases[0], [("c".to_string(), "$1".to_string())]);
        let d = super::declarations("DECLARE Ps ALIAS FOR NEW; \"Q\" alias for ps; BEGIN END");
        assert_eq!(
            d[0].aliases,
            [
                ("ps".to_string(), "new".to_string()),
                ("Q".to_string(), "ps".to_string())
            ]
        );
        assert_eq!(d[0].count, 0);
    }

    #[test]
    fn cursor_statement_scan() {
        assert!(super::uses_cursor_statements(
            "BEGIN OPEN $1 FOR SELECT 1; END"
        ));
        assert!(!super::uses_cursor_statements(
            "BEGIN RAISE NOTICE 'open'; -- fetch\n RETURN 1; END"
        ));
        assert!(super::ends_with_semicolon("BEGIN NULL; END; -- done\n"));
        assert!(!super::ends_with_semicolon("BEGIN NULL; END"));
        assert_eq!(
            super::after_options("#variable_conflict use_column\n-- c\nBEGIN END"),
            "BEGIN END"
        );
        assert_eq!(super::after_options("\nDECLARE x int;"), "\nDECLARE x int;");
    }

    #[test]
    fn bare_returns_are_wrapped() {
        assert_eq!(
            super::wrap_bare_returns(
                "BEGIN RETURN NEXT i; RETURN x; RETURN x + 1; RETURN; RETURN QUERY SELECT 1; END"
            ),
            "BEGIN RETURN NEXT (i); RETURN (x); RETURN x + 1; RETURN; RETURN QUERY SELECT 1; END"
        );
        assert_eq!(
            super::wrap_bare_returns("RAISE NOTICE 'RETURN x;'"),
            "RAISE NOTICE 'RETURN x;'"
        );
    }

    #[test]
    fn subscript_groups_of_targets() {
        let g = |t: &str| super::subscript_groups(t).unwrap();
        assert!(g("x :=").is_empty());
        assert_eq!(g("a[i] :="), vec![(None, Some("i".into()), false)]);
        assert_eq!(
            g("a[1:n][f(x[2])] ="),
            vec![
                (Some("1".into()), Some("n".into()), true),
                (None, Some("f(x[2])".into()), false)
            ]
        );
        assert_eq!(
            g("a[i::int:] :="),
            vec![(Some("i::int".into()), None, true)]
        );
        assert!(super::subscript_groups("a[1].f :=").is_err());
    }

    #[test]
    fn assignment_values() {
        assert_eq!(super::assignment_value("x := x + 1"), (5, "x + 1"));
        assert_eq!(super::assignment_value("r.f = 'a:=b'"), (6, "'a:=b'"));
        assert_eq!(super::assignment_value("y :=  a = b "), (6, "a = b"));
    }
}
