//! Query plans: a tree of operators the executor runs, and EXPLAIN text.
//!
//! Rows flow bottom-up as `Vec<Value>`. A table scan's row is the table's
//! columns (dropped ones included, as NULL, so positions match storage)
//! followed by three hidden system columns: the row id (ctid), xmin and
//! xmax. The row id is what UPDATE, DELETE and FOR UPDATE write through.
//! A join's row is the left row followed by the right row. The binder
//! resolves every column reference to a position in these layouts.
//!
//! Access paths: a base table is read by `SeqScan` or, when the WHERE (or a
//! join's ON) clause fixes a prefix of an index's columns to values known
//! before the scan (constants, parameters, or the current left row of a
//! nested loop), by `IndexScan` with equality keys, then an IN list,
//! `= ANY (array)` or a range on the column after the equality prefix (`LIKE 'prefix%'` and `~ '^prefix'` on a text
//! column become the range [prefix, successor of prefix), the condition
//! itself staying in the filter).
//!
//! Joins: `NestedLoop` (the right side run per left row, given it as its
//! parameter row) or, for an equality between the sides that no index
//! serves, `HashJoin` (the right side run once into a hash table).

use std::fmt::Write;
use std::sync::Arc;

use nestor_txn::{LockMode, WaitPolicy};
use nestor_types::datatype::DataType;

use super::{AggCall, Expr, WinCall};
use nestor_catalog::{IndexDef, TableDef};

/// Number of hidden system columns after a table's columns.
pub const SYS_COLS: usize = 3;
/// Offsets of the system columns after the data columns (xmax is 2).
pub const SYS_ROWID: usize = 0;
pub(crate) const SYS_XMIN: usize = 1;

/// Index access keys.
#[derive(Clone, Debug)]
pub struct IndexKeys {
    /// Equality on a prefix of the index columns.
    pub eq: Vec<Expr>,
    /// IN list on the index column after the equality prefix.
    pub in_list: Option<Vec<Expr>>,
    /// `col = ANY (array)` on the index column after the equality prefix:
    /// the array's elements are looked up as an IN list's are.
    pub in_array: Option<Expr>,
    /// Range on the column after the prefix: (bound, inclusive).
    pub lo: Option<(Expr, bool)>,
    pub hi: Option<(Expr, bool)>,
    /// Conditions as text for EXPLAIN.
    pub display: Vec<String>,
    /// A GIN index's conditions (`select::gin`); empty for other
    /// methods. Their conjuncts stay in the scan's filter too: GIN is
    /// lossy, every row it yields is rechecked.
    pub gin: Vec<GinQual>,
    /// A partial GIN index: the query's conjuncts its predicate implies
    /// (no Filter line shows them), and the predicate's conjuncts, which
    /// PostgreSQL's Recheck Cond shows after the GIN conditions. The
    /// executor's filter keeps every conjunct of the query regardless.
    pub gin_implied: Vec<Expr>,
    pub gin_predicate: Vec<Expr>,
}

/// An operator a GIN index answers, its key on the left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GinOp {
    /// `@>` (jsonb or array).
    Contains,
    /// `?`
    Exists,
    /// `?|`
    ExistsAny,
    /// `?&`
    ExistsAll,
    /// array `&&`
    Overlap,
    /// array `<@`
    ContainedBy,
    /// array `=`
    ArrayEq,
    /// jsonpath `@?` and `@@` (the keys a match requires, or a full read).
    PathExists,
    PathMatch,
    /// tsvector `@@` tsquery (a row needs one of the query's words, unless
    /// the query can match without any).
    TsMatch,
}

/// One conjunct a GIN index answers: `key op value`, `value` known
/// before the scan (a constant or parameter).
#[derive(Clone, Debug)]
pub struct GinQual {
    /// Which of the index's keys.
    pub key: usize,
    pub class: nestor_catalog::gin::GinClass,
    pub op: GinOp,
    pub value: Expr,
    /// The conjunct as written (EXPLAIN's Recheck Cond).
    pub conj: Expr,
}

/// The order an index scan delivers its rows in. Every scan reads the
/// index in key order; `Forward` and `Backward` promise it to the plan
/// above (an ORDER BY on the key columns) and read in batches so that a
/// LIMIT ends the reading early.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexOrder {
    Unordered,
    Forward,
    Backward,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JoinKind {
    Inner,
    Left,
    /// Every right row at least once (unmatched ones NULL-extended on the
    /// left); the right side is read once, not per left row.
    Right,
    /// LEFT and RIGHT at once.
    Full,
}

#[derive(Clone, Debug)]
pub struct SortKey {
    pub expr: Expr,
    pub desc: bool,
    pub nulls_first: bool,
}

/// Row locking of `SELECT ... FOR UPDATE` for one table in the row.
#[derive(Clone, Debug)]
pub struct LockTarget {
    pub table: Arc<TableDef>,
    /// Offset of the table's columns in the row.
    pub offset: usize,
    /// Read with inheritance (`select::inherit`): the tree's members, each
    /// with the position in it of each of `table`'s columns. The row's
    /// `tableoid` (after the system columns) says which member a row is
    /// of, and the lock is taken there. Empty for a plain table.
    pub members: Vec<(Arc<TableDef>, Vec<Option<usize>>)>,
}

#[derive(Clone, Debug)]
pub struct AggSpec {
    pub call: AggCall,
}

impl AggSpec {
    /// DISTINCT or ORDER BY (ordered-set aggregates too): PostgreSQL
    /// aggregates such calls by sorted groups, never by hashing.
    pub fn sorts_input(&self) -> bool {
        self.call.distinct || !self.call.order.is_empty()
    }
}

/// Set-returning functions usable in FROM.
#[derive(Clone, Debug, PartialEq)]
pub enum TableFunc {
    GenerateSeries,
    Unnest,
    /// pg_partition_ancestors(rel): the relation, then the partitioned
    /// tables above it.
    PartitionAncestors,
    /// pg_partition_tree(rel): (relid, parentrelid, isleaf, level) of the
    /// relation and its partitions, level by level.
    PartitionTree,
    /// pg_options_to_table(text[]): each `name=value` as two columns.
    OptionsToTable,
    /// A scalar function in FROM whose arguments read earlier FROM items
    /// (`t, LATERAL abs(t.x)`): one row, its one argument's value.
    Value,
    /// A function the select list runs as a set-returning one
    /// (`generate_subscripts`): its values, one per row.
    Srf(crate::functions::SrfKind),
    /// regexp_matches, jsonb_each and the other built-in set-returning
    /// functions over values.
    Set(nestor_types::set_fns::SetFn),
    /// A user-defined set-returning (or row-returning) function; its
    /// result columns are the plan's. A function returning record has the
    /// column types its call's column definition list gives.
    User(super::UserFn, Option<Vec<DataType>>),
    /// ROWS FROM (f(...), g(...), ...): the functions' rows side by side,
    /// the shorter results padded with NULLs. The scan's arguments are the
    /// items' arguments one after another.
    RowsFrom(Vec<RowsFromItem>),
    /// A populate function whose record type has attributes of domains
    /// (or whose base argument is of a domain over a composite): each of
    /// its rows, as a record, must pass the checks.
    Checked(Box<TableFunc>, Box<super::DomainChecks>),
    /// A function whose one column is a composite value (unnest of an
    /// array of rows, `coalesce(row(...))`): each value's fields are the
    /// row, this many of them (a NULL value: a row of NULLs, as
    /// PostgreSQL's function scan expands it).
    Fields(Box<TableFunc>, usize),
}

/// One function of a ROWS FROM: how many of the scan's arguments are its
/// own, and how many columns its rows have.
#[derive(Clone, Debug, PartialEq)]
pub struct RowsFromItem {
    pub func: TableFunc,
    pub nargs: usize,
    pub width: usize,
}

/// A sequential scan's two decoding steps (`select::narrow`): the columns
/// its filter reads, decoded for every visible row, and the rest of the
/// columns it decodes, only for the rows that pass.
#[derive(Debug)]
pub struct LateCols {
    pub filter: Arc<[bool]>,
    pub rest: Arc<[bool]>,
}

#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum Plan {
    /// One row with no columns (SELECT without FROM).
    Single,
    Values {
        rows: Vec<Vec<Expr>>,
    },
    SeqScan {
        table: Arc<TableDef>,
        alias: String,
        filter: Option<Expr>,
        /// The columns the query reads (`select::narrow`); the others are
        /// not decoded and read as NULL. None: all of them.
        cols: Option<Arc<[bool]>>,
        /// Filter first, then decode the rest (`select::narrow`): set when
        /// the filter reads fewer of the columns than the scan decodes.
        late: Option<Arc<LateCols>>,
    },
    IndexScan {
        table: Arc<TableDef>,
        alias: String,
        index: IndexDef,
        keys: IndexKeys,
        filter: Option<Expr>,
        /// As SeqScan's (the index's key columns are always among them).
        cols: Option<Arc<[bool]>>,
        /// Whether the rows must come in index order (an ORDER BY's sort
        /// was dropped for it), and which way.
        order: IndexOrder,
    },
    /// A table read, in a correlated subquery (or LATERAL), through a
    /// conjunct `col = key` where `key` reads the enclosing query's row and
    /// no index serves it (`plan/src/select/hash_join.rs`): the first run
    /// in a statement scans the table (and marks `id` in the statement's
    /// cache); the second keeps the rows passing `build_filter` (the
    /// conjuncts that read no enclosing row) with a non-NULL `col`, ordered
    /// by it, under `id + 1`; from then on every run (one per outer row)
    /// looks up the rows whose `col` equals `key`'s value, then `filter`.
    HashedScan {
        table: Arc<TableDef>,
        alias: String,
        id: usize,
        col: usize,
        key: Expr,
        build_filter: Option<Expr>,
        filter: Option<Expr>,
    },
    /// A function in FROM whose arguments refer to earlier FROM items: run
    /// per row of `input` (arguments evaluated on it), each of its rows
    /// appended to that row.
    LateralFunction {
        input: Box<Plan>,
        func: TableFunc,
        args: Vec<Expr>,
        ordinality: bool,
    },
    FunctionScan {
        func: TableFunc,
        args: Vec<Expr>,
        name: String,
        /// WITH ORDINALITY: a bigint row number follows the function's
        /// columns.
        ordinality: bool,
    },
    /// A trigger's transition table, read from the statement's
    /// transition rows (`slot`; see `VarResolver::relation`).
    EphemeralScan {
        slot: usize,
        name: String,
    },
    /// A system view computed at run time.
    SysView {
        view: crate::sysviews::View,
        filter: Option<Expr>,
    },
    /// WITH RECURSIVE's `init UNION [ALL] step`: `init`'s rows, then
    /// `step` run again and again over the rows of the previous round
    /// (its working table, a CteScan of `work_id`) until a round adds
    /// none; without `all`, rows seen before are dropped.
    RecursiveUnion {
        init: Box<Plan>,
        step: Box<Plan>,
        work_id: usize,
        all: bool,
    },
    /// Materialized CTE (computed once per execution, cached under `id`;
    /// `correlated`: it reads an enclosing query's row, so it is computed
    /// at each scan, as PostgreSQL re-runs a CTE whose parameters change).
    CteScan {
        id: usize,
        name: String,
        plan: Arc<Plan>,
        correlated: bool,
        /// Compute all its rows before emitting the first (shared by the
        /// CTE's scans, set while binding: see `Cte::whole_first`);
        /// otherwise rows stream up as they are made, so `LIMIT` over an
        /// endless recursive CTE stops it.
        whole_first: Arc<std::sync::atomic::AtomicBool>,
    },
    Filter {
        input: Box<Plan>,
        pred: Expr,
    },
    /// A projection whose items call set-returning functions (`Func::Srf`,
    /// a whole item or inside one: `(f(x)).n`): each input row gives as
    /// many rows as its longest set, the shorter ones padded with NULL,
    /// none if every set is empty; the i-th row evaluates each item with
    /// its calls' i-th values (PostgreSQL's ProjectSet).
    ProjectSet {
        input: Box<Plan>,
        exprs: Vec<Expr>,
    },
    Project {
        input: Box<Plan>,
        exprs: Vec<Expr>,
    },
    NestedLoop {
        left: Box<Plan>,
        right: Box<Plan>,
        kind: JoinKind,
        on: Option<Expr>,
        /// Row widths of the two sides (the NULLs of an outer join's
        /// unmatched rows).
        left_width: usize,
        right_width: usize,
    },
    /// An equi-join by hash table (`exec/src/executor/hash_join.rs`): the
    /// right side's rows are read once into a hash table on `right_keys`,
    /// then each left row looks up the rows whose keys equal its
    /// `left_keys` (a NULL key matches nothing); `filter` (the join's other
    /// conditions, over the joined row) decides among them. Every kind:
    /// LEFT and FULL NULL-extend left rows that matched nothing, RIGHT and
    /// FULL right rows no left row matched, after the last left row. The
    /// keys' types hash alike for equal values (`select/access.rs`,
    /// `hash_class`), so the table's equality is the SQL `=`.
    HashJoin {
        left: Box<Plan>,
        right: Box<Plan>,
        kind: JoinKind,
        /// Over the left row and the right row (each in its own
        /// coordinates), pairwise.
        left_keys: Vec<Expr>,
        right_keys: Vec<Expr>,
        filter: Option<Expr>,
        left_width: usize,
        right_width: usize,
        /// EXPLAIN's "Hash Cond" and "Join Filter" lines.
        display: Vec<String>,
    },
    /// A LATERAL subquery, the inner side of a nested loop: `plan` run per
    /// outer row (the loop's parameter row), which it sees as the row of
    /// query level `level` — `pad` NULLs (the FROM items before the
    /// loop's left side, which it cannot reference), then the left row.
    LateralSubquery {
        plan: Box<Plan>,
        level: usize,
        pad: usize,
    },
    Aggregate {
        input: Box<Plan>,
        group: Vec<Expr>,
        aggs: Vec<AggSpec>,
    },
    /// GROUP BY GROUPING SETS: the input aggregated once per set (positions
    /// in `group`); per group, the group columns (NULL where the set lacks
    /// one), a bigint mask (bit i set when `group[i]` is not in the set),
    /// then the aggregates.
    GroupingSets {
        input: Box<Plan>,
        group: Vec<Expr>,
        sets: Vec<Vec<usize>>,
        aggs: Vec<AggSpec>,
    },
    /// Window functions over the input rows: each input row with one more
    /// column per call, rows in the order of the last call's window.
    Window {
        input: Box<Plan>,
        calls: Vec<WinCall>,
    },
    Sort {
        input: Box<Plan>,
        keys: Vec<SortKey>,
    },
    Limit {
        input: Box<Plan>,
        limit: Option<Expr>,
        offset: Option<Expr>,
        /// FETCH FIRST ... WITH TIES: the input's sort keys; past the
        /// limit, rows whose keys equal the last row's still come.
        ties: Vec<SortKey>,
    },
    Distinct {
        input: Box<Plan>,
    },
    /// SELECT DISTINCT ON: of the (sorted) input rows, the first of each
    /// value of `keys`.
    DistinctOn {
        input: Box<Plan>,
        keys: Vec<Expr>,
    },
    Append {
        inputs: Vec<Plan>,
    },
    /// INTERSECT / EXCEPT [ALL].
    SetOp {
        left: Box<Plan>,
        right: Box<Plan>,
        intersect: bool,
        all: bool,
    },
    LockRows {
        input: Box<Plan>,
        targets: Vec<LockTarget>,
        mode: LockMode,
        policy: WaitPolicy,
        /// The WHERE clause, re-checked on a row's newest version.
        recheck: Option<Expr>,
    },
}

/// An output column of a query.
#[derive(Clone, Debug)]
pub struct OutCol {
    pub name: String,
    pub ty: DataType,
    pub table_oid: u32,
    pub column_id: i16,
}

/// A plan node's inputs in EXPLAIN order, borrowed as `$plan` is (`iter`
/// or `iter_mut` for Append's list): one list of the variants for
/// [`Plan::children`] and [`Plan::children_mut`].
macro_rules! inputs {
    ($plan:expr, $iter:ident) => {
        match $plan {
            Plan::Filter { input, .. }
            | Plan::Project { input, .. }
            | Plan::ProjectSet { input, .. }
            | Plan::LateralFunction { input, .. }
            | Plan::Aggregate { input, .. }
            | Plan::GroupingSets { input, .. }
            | Plan::Window { input, .. }
            | Plan::Sort { input, .. }
            | Plan::Limit { input, .. }
            | Plan::Distinct { input }
            | Plan::DistinctOn { input, .. }
            | Plan::LockRows { input, .. } => vec![input],
            Plan::NestedLoop { left, right, .. }
            | Plan::HashJoin { left, right, .. }
            | Plan::SetOp { left, right, .. } => vec![left, right],
            Plan::RecursiveUnion { init, step, .. } => vec![init, step],
            Plan::LateralSubquery { plan, .. } => vec![plan],
            Plan::Append { inputs } => inputs.$iter().collect(),
            _ => Vec::new(),
        }
    };
}

impl Plan {
    /// Whether PostgreSQL's plan for the same query could run backward
    /// (its ExecSupportsBackwardScan, for a cursor declared without SCROLL
    /// or NO SCROLL): scans, VALUES, functions in FROM, CTE scans, sorts
    /// and appends can, and the nodes that pass their input's rows on
    /// (projections, filters, limits, row locks) can when their input can;
    /// a SELECT without FROM, joins, aggregation, DISTINCT, window
    /// functions, set operations and set-returning functions in the select
    /// list cannot.
    pub fn supports_backward_scan(&self) -> bool {
        match self {
            Plan::Values { .. }
            | Plan::SeqScan { .. }
            | Plan::IndexScan { .. }
            | Plan::HashedScan { .. }
            | Plan::FunctionScan { .. }
            | Plan::SysView { .. }
            | Plan::EphemeralScan { .. }
            | Plan::CteScan { .. }
            | Plan::Sort { .. } => true,
            Plan::Filter { input, .. }
            | Plan::Project { input, .. }
            | Plan::Limit { input, .. }
            | Plan::LockRows { input, .. } => input.supports_backward_scan(),
            Plan::Append { inputs } => inputs.iter().all(Plan::supports_backward_scan),
            Plan::Single
            | Plan::LateralFunction { .. }
            | Plan::RecursiveUnion { .. }
            | Plan::ProjectSet { .. }
            | Plan::NestedLoop { .. }
            | Plan::HashJoin { .. }
            | Plan::LateralSubquery { .. }
            | Plan::Aggregate { .. }
            | Plan::GroupingSets { .. }
            | Plan::Window { .. }
            | Plan::Distinct { .. }
            | Plan::DistinctOn { .. }
            | Plan::SetOp { .. } => false,
        }
    }

    /// EXPLAIN text, one line per entry.
    pub fn explain(&self, out: &mut Vec<String>) {
        let from = out.len();
        let cx = Names {
            prefix: self.relations() > 1,
            outer: None,
        };
        self.explain_at(0, &cx, Vec::new(), out);
        // PostgreSQL names each VALUES list of a query apart: "*VALUES*",
        // "*VALUES*_1", ... in the order the query has them.
        let label = "Values Scan on \"*VALUES*\"";
        let mut seen = 0;
        for line in &mut out[from..] {
            if line.ends_with(label) {
                if seen > 0 {
                    line.truncate(line.len() - 1);
                    let _ = write!(line, "_{seen}\"");
                }
                seen += 1;
            }
        }
    }

    fn line(depth: usize, s: &str, out: &mut Vec<String>) {
        if depth == 0 {
            out.push(s.to_string());
        } else {
            let mut l = " ".repeat(depth * 6 - 4);
            let _ = write!(l, "->  {s}");
            out.push(l);
        }
    }

    fn detail(depth: usize, s: &str, out: &mut Vec<String>) {
        let pad = if depth == 0 { 2 } else { depth * 6 + 2 };
        out.push(format!("{}{s}", " ".repeat(pad)));
    }

    /// The node at depth `d`; `filters` are the conditions of Filter
    /// nodes above it (rendered over its output), which PostgreSQL shows
    /// as the node's own Filter line.
    fn explain_at(&self, d: usize, cx: &Names, mut filters: Vec<String>, out: &mut Vec<String>) {
        let Some(label) = self.label() else {
            // Filter and Project print as their input (PostgreSQL folds
            // them into the node below).
            // A condition on no column (PostgreSQL folds it, or shows a
            // One-Time Filter) is left out.
            if let Plan::Filter { input, pred } = self {
                if !pred.columns().is_empty() {
                    let names = input.own_names(cx);
                    filters.push(render_expr(pred, &|c| column_name(&names, c)));
                }
            }
            for c in self.children() {
                c.explain_at(d, cx, std::mem::take(&mut filters), out);
            }
            return;
        };
        Self::line(d, &label, out);
        let mut details = self.details(cx);
        if !filters.is_empty() {
            // One Filter line: the node's own condition and those above.
            let at = details.iter().position(|l| l.starts_with("Filter: "));
            let own = at.map(|i| details.remove(i)["Filter: ".len()..].to_string());
            let all: Vec<String> = own.into_iter().chain(filters).collect();
            let text = match all.as_slice() {
                [one] => one.clone(),
                many => format!("({})", many.join(" AND ")),
            };
            details.insert(at.unwrap_or(details.len()), format!("Filter: {text}"));
        }
        for detail in details {
            Self::detail(d, &detail, out);
        }
        if let Some((index, conds)) = self.gin_index_line() {
            // PostgreSQL reads a GIN index through a bitmap: the index
            // scan below the heap scan that rechecks.
            Self::line(d + 1, &format!("Bitmap Index Scan on {index}"), out);
            Self::detail(d + 1, &format!("Index Cond: ({conds})"), out);
        }
        if let Plan::HashJoin { left, right, .. } = self {
            // PostgreSQL shows the table built from the inner side as a
            // Hash node above it.
            left.explain_at(d + 1, cx, Vec::new(), out);
            Self::line(d + 1, "Hash", out);
            right.explain_at(d + 2, cx, Vec::new(), out);
            return;
        }
        if let Plan::NestedLoop { left, right, .. } = self {
            left.explain_at(d + 1, cx, Vec::new(), out);
            let inner = Names {
                prefix: cx.prefix,
                outer: Some(left.out_names(&Names {
                    prefix: true,
                    outer: None,
                })),
            };
            right.explain_at(d + 1, &inner, Vec::new(), out);
            return;
        }
        for c in self.children() {
            c.explain_at(d + 1, cx, Vec::new(), out);
        }
    }

    /// The table column a parameterized index scan (perhaps under a
    /// filter) looks up by the outer row's value, if this is one.
    fn outer_key_column(&self) -> Option<usize> {
        match self {
            Plan::Filter { input, .. } => input.outer_key_column(),
            Plan::IndexScan { index, keys, .. }
                if keys.display.iter().any(|d| d.ends_with("(outer)")) =>
            {
                index.columns.first().copied()
            }
            _ => None,
        }
    }

    /// The relations (tables, functions, VALUES lists, CTEs) the plan
    /// reads: with more than one, PostgreSQL's EXPLAIN qualifies column
    /// names in sort keys, group keys and upper filters.
    fn relations(&self) -> usize {
        let own = usize::from(matches!(
            self,
            Plan::SeqScan { .. }
                | Plan::IndexScan { .. }
                | Plan::HashedScan { .. }
                | Plan::FunctionScan { .. }
                | Plan::LateralFunction { .. }
                | Plan::Values { .. }
                | Plan::CteScan { .. }
                | Plan::SysView { .. }
                | Plan::EphemeralScan { .. }
                | Plan::LateralSubquery { .. }
        ));
        own + self.children().iter().map(|c| c.relations()).sum::<usize>()
    }

    /// How the node itself names its output columns (a condition folded
    /// into it, as HAVING into an aggregation, reads `count(*)` where a
    /// node above reads `(count(*))`).
    fn own_names(&self, cx: &Names) -> Vec<String> {
        let bare = |e: &Expr, names: &[String]| render_expr(e, &|c| column_name(names, c));
        match self {
            Plan::Project { input, exprs } | Plan::ProjectSet { input, exprs } => {
                let names = input.out_names(cx);
                exprs.iter().map(|e| bare(e, &names)).collect()
            }
            Plan::Aggregate { input, group, aggs } => {
                let names = input.out_names(cx);
                group
                    .iter()
                    .map(|e| bare(e, &names))
                    .chain(aggs.iter().map(|a| agg_text(&a.call, &names)))
                    .collect()
            }
            _ => self.out_names(cx),
        }
    }

    /// How a node above names each column of this node's output rows, as
    /// PostgreSQL's EXPLAIN prints a reference to it: a table's column by
    /// its name (`t.a` when qualified), a computed one as its expression
    /// in parentheses (`(count(*))`, `((a + b))`).
    fn out_names(&self, cx: &Names) -> Vec<String> {
        let qualify = |rel: &str, col: &str| {
            if cx.prefix {
                format!("{rel}.{col}")
            } else {
                col.to_string()
            }
        };
        match self {
            Plan::SeqScan { table, alias, .. }
            | Plan::IndexScan { table, alias, .. }
            | Plan::HashedScan { table, alias, .. } => {
                let rel = if alias.is_empty() { &table.name } else { alias };
                table
                    .columns
                    .iter()
                    .map(|c| qualify(rel, &c.name))
                    .chain(["ctid", "xmin", "xmax"].map(|s| qualify(rel, s)))
                    .collect()
            }
            Plan::Values { rows } => (1..=rows.first().map_or(0, Vec::len))
                .map(|i| qualify("\"*VALUES*\"", &format!("column{i}")))
                .collect(),
            Plan::Filter { input, .. }
            | Plan::Sort { input, .. }
            | Plan::Limit { input, .. }
            | Plan::Distinct { input }
            | Plan::DistinctOn { input, .. }
            | Plan::LockRows { input, .. }
            | Plan::Window { input, .. } => input.out_names(cx),
            Plan::Project { input, exprs } | Plan::ProjectSet { input, exprs } => {
                let names = input.out_names(cx);
                exprs.iter().map(|e| computed(e, &names)).collect()
            }
            Plan::NestedLoop { left, right, .. } | Plan::HashJoin { left, right, .. } => {
                let mut names = left.out_names(cx);
                names.extend(right.out_names(cx));
                names
            }
            Plan::Aggregate { input, group, aggs } => {
                let names = input.out_names(cx);
                group
                    .iter()
                    .map(|e| computed(e, &names))
                    .chain(
                        aggs.iter()
                            .map(|a| format!("({})", agg_text(&a.call, &names))),
                    )
                    .collect()
            }
            Plan::Append { inputs } => inputs.first().map_or_else(Vec::new, |i| i.out_names(cx)),
            Plan::SetOp { left, .. } => left.out_names(cx),
            Plan::RecursiveUnion { init, .. } => init.out_names(cx),
            _ => Vec::new(),
        }
    }

    /// The node's EXPLAIN line (None for nodes printed as their input).
    fn label(&self) -> Option<String> {
        let scan = |kind: &str, t: &TableDef, alias: &str| {
            format!("{kind} on {}{}", t.name, alias_suffix(&t.name, alias))
        };
        Some(match self {
            Plan::Filter { .. } | Plan::Project { .. } => return None,
            Plan::Single => "Result".into(),
            Plan::Values { .. } => "Values Scan on \"*VALUES*\"".into(),
            Plan::SeqScan { table, alias, .. } | Plan::HashedScan { table, alias, .. } => {
                scan("Seq Scan", table, alias)
            }
            Plan::IndexScan {
                table,
                alias,
                index,
                ..
            } if index.method == nestor_catalog::AccessMethod::Gin => {
                scan("Bitmap Heap Scan", table, alias)
            }
            Plan::IndexScan {
                table,
                alias,
                index,
                order: IndexOrder::Backward,
                ..
            } => scan(
                &format!("Index Scan Backward using {}", index.name),
                table,
                alias,
            ),
            Plan::IndexScan {
                table,
                alias,
                index,
                ..
            } => scan(&format!("Index Scan using {}", index.name), table, alias),
            Plan::FunctionScan { name, .. } => format!("Function Scan on {name}"),
            Plan::SysView { view, .. } => format!("Function Scan on {}", view.name()),
            Plan::CteScan { name, .. } => format!("CTE Scan on {name}"),
            // PostgreSQL 15 names no target for it.
            Plan::EphemeralScan { .. } => "Named Tuplestore Scan".into(),
            Plan::RecursiveUnion { .. } => "Recursive Union".into(),
            Plan::ProjectSet { .. } => "ProjectSet".into(),
            Plan::LateralFunction { .. } => "Nested Loop (lateral function)".into(),
            Plan::NestedLoop { kind, .. } if *kind == JoinKind::Left => {
                "Nested Loop Left Join".into()
            }
            Plan::NestedLoop { kind, .. } if *kind == JoinKind::Right => {
                "Nested Loop Right Join".into()
            }
            Plan::NestedLoop { kind, .. } if *kind == JoinKind::Full => {
                "Nested Loop Full Join".into()
            }
            Plan::HashJoin { kind, .. } => match kind {
                JoinKind::Inner => "Hash Join".into(),
                JoinKind::Left => "Hash Left Join".into(),
                JoinKind::Right => "Hash Right Join".into(),
                JoinKind::Full => "Hash Full Join".into(),
            },
            Plan::LateralSubquery { .. } => "Subquery Scan (lateral)".into(),
            Plan::DistinctOn { .. } => "Unique".into(),
            Plan::NestedLoop { .. } => "Nested Loop".into(),
            Plan::Aggregate { group, .. } if group.is_empty() => "Aggregate".into(),
            Plan::Aggregate { aggs, .. } if aggs.iter().any(AggSpec::sorts_input) => {
                "GroupAggregate".into()
            }
            Plan::Aggregate { .. } | Plan::Distinct { .. } => "HashAggregate".into(),
            Plan::Window { .. } => "WindowAgg".into(),
            Plan::GroupingSets { .. } => "MixedAggregate".into(),
            Plan::Sort { .. } => "Sort".into(),
            Plan::Limit { .. } => "Limit".into(),
            Plan::Append { .. } => "Append".into(),
            Plan::SetOp {
                intersect: true, ..
            } => "HashSetOp Intersect".into(),
            Plan::SetOp { .. } => "HashSetOp Except".into(),
            Plan::LockRows { .. } => "LockRows".into(),
        })
    }

    /// The node's detail lines: a scan's Index Cond and Filter, a sort's
    /// keys, a grouping's keys, a nested loop's join filter.
    fn details(&self, cx: &Names) -> Vec<String> {
        let mut out = Vec::new();
        match self {
            Plan::HashJoin { display, .. } => return display.clone(),
            Plan::Sort { input, keys } => {
                let names = input.out_names(cx);
                let keys: Vec<String> = keys.iter().map(|k| sort_key_text(k, &names)).collect();
                return vec![format!("Sort Key: {}", keys.join(", "))];
            }
            Plan::Aggregate { input, group, .. } if !group.is_empty() => {
                let names = input.out_names(cx);
                let keys: Vec<String> = group
                    .iter()
                    .map(|e| render_expr(e, &|c| column_name(&names, c)))
                    .collect();
                return vec![format!("Group Key: {}", keys.join(", "))];
            }
            Plan::NestedLoop {
                left,
                right,
                on: Some(on),
                left_width,
                ..
            } => {
                let mut names = left.out_names(cx);
                names.extend(right.out_names(cx));
                // The equality a parameterized inner index scan looks up
                // shows as its Index Cond, not again here.
                let keyed = right.outer_key_column().map(|c| left_width + c);
                let rest: Vec<&Expr> = match on {
                    Expr::And(v) => v.iter().collect(),
                    e => vec![e],
                }
                .into_iter()
                .filter(|e| keyed.is_none_or(|k| !is_key_equality(e, k, *left_width)))
                .collect();
                let text: Vec<String> = rest
                    .iter()
                    .map(|e| render_expr(e, &|c| column_name(&names, c)))
                    .collect();
                return match text.as_slice() {
                    [] => Vec::new(),
                    [one] => vec![format!("Join Filter: {one}")],
                    many => vec![format!("Join Filter: ({})", many.join(" AND "))],
                };
            }
            _ => {}
        }
        if let Plan::HashedScan {
            table,
            col,
            build_filter,
            filter,
            ..
        } = self
        {
            out.push(format!(
                "Hash Key: ({} = (outer))",
                table.columns[*col].name
            ));
            let parts: Vec<String> = build_filter
                .iter()
                .chain(filter.iter())
                .map(|f| show(f, table))
                .collect();
            if !parts.is_empty() {
                out.push(format!("Filter: {}", parts.join(" AND ")));
            }
            return out;
        }
        if let Plan::IndexScan {
            table,
            index,
            keys,
            filter,
            ..
        } = self
        {
            if index.method == nestor_catalog::AccessMethod::Gin {
                let mut recheck = keys.display.clone();
                recheck.extend(keys.gin_predicate.iter().map(|e| bare(&show(e, table))));
                out.push(format!("Recheck Cond: ({})", and_conds(&recheck)));
                let rest: Vec<Expr> = filter
                    .iter()
                    .flat_map(|f| match f {
                        Expr::And(v) => v.clone(),
                        e => vec![e.clone()],
                    })
                    .filter(|e| !keys.gin.iter().any(|q| q.conj == *e))
                    .filter(|e| !keys.gin_implied.contains(e))
                    .collect();
                if !rest.is_empty() {
                    let rest = if rest.len() == 1 {
                        rest.into_iter()
                            .next()
                            .unwrap_or(Expr::Const(nestor_types::Value::Null))
                    } else {
                        Expr::And(rest)
                    };
                    out.push(format!("Filter: {}", show(&rest, table)));
                }
                return out;
            }
        }
        let (table, keys, filter) = match self {
            Plan::SeqScan { table, filter, .. } => (table, None, filter),
            Plan::IndexScan {
                table,
                keys,
                filter,
                ..
            } => (table, Some(keys), filter),
            _ => return out,
        };
        if let Some(k) = keys.filter(|k| !k.display.is_empty()) {
            let display = outer_keys(k, cx);
            out.push(format!("Index Cond: ({})", and_conds(&display)));
        }
        if let Some(f) = filter {
            out.push(format!("Filter: {}", show(f, table)));
        }
        out
    }

    /// A GIN index scan's Bitmap Index Scan line: the index's name and
    /// its conditions.
    fn gin_index_line(&self) -> Option<(String, String)> {
        match self {
            Plan::IndexScan { index, keys, .. }
                if index.method == nestor_catalog::AccessMethod::Gin =>
            {
                Some((index.name.clone(), and_conds(&keys.display)))
            }
            _ => None,
        }
    }

    /// Inputs, as [`Plan::children`] lists them, to change.
    pub(crate) fn children_mut(&mut self) -> Vec<&mut Plan> {
        inputs!(self, iter_mut)
    }

    /// Inputs in EXPLAIN order.
    pub(crate) fn children(&self) -> Vec<&Plan> {
        inputs!(self, iter)
    }
}

/// How EXPLAIN names columns: qualified by their relation or not.
struct Names {
    prefix: bool,
    /// Under a nested loop's inner side: the outer row's column names,
    /// which a parameterized index scan's key reads.
    outer: Option<Vec<String>>,
}

/// A parameterized index scan's key conditions with the outer row's
/// expression in place of `(outer)` (`v = a.v`), when the names of the
/// outer row are known.
fn outer_keys(k: &IndexKeys, cx: &Names) -> Vec<String> {
    let (Some(names), [key]) = (&cx.outer, k.eq.as_slice()) else {
        return k.display.clone();
    };
    k.display
        .iter()
        .map(|d| match d.strip_suffix("(outer)") {
            Some(col) => format!("{col}{}", render_expr(key, &|c| column_name(names, c))),
            None => d.clone(),
        })
        .collect()
}

/// Whether `e` is `Col(key) = <expression of the outer row>` (positions
/// below `left_width`).
fn is_key_equality(e: &Expr, key: usize, left_width: usize) -> bool {
    let Expr::Cmp(crate::ir::Cmp::Eq, a, b) = e else {
        return false;
    };
    let outer = |x: &Expr| x.columns().iter().all(|&c| c < left_width);
    let keyed = |x: &Expr, o: &Expr| matches!(x, Expr::Col(c) if *c == key) && outer(o);
    keyed(a, b) || keyed(b, a)
}

/// Column `c` of a row whose columns are `names` (a placeholder past
/// them: a node whose outputs EXPLAIN cannot name).
fn column_name(names: &[String], c: usize) -> String {
    names.get(c).cloned().unwrap_or_else(|| "?column?".into())
}

/// An output column computed from `names`: a plain column keeps its name,
/// anything else is its expression in parentheses.
fn computed(e: &Expr, names: &[String]) -> String {
    match e {
        Expr::Col(c) => column_name(names, *c),
        e => format!("({})", render_expr(e, &|c| column_name(names, c))),
    }
}

/// A sort key as PostgreSQL's show_sortorder_options prints it.
fn sort_key_text(k: &SortKey, names: &[String]) -> String {
    let mut s = computed(&k.expr, names);
    match (k.desc, k.nulls_first) {
        (true, true) => s.push_str(" DESC"),
        (true, false) => s.push_str(" DESC NULLS LAST"),
        (false, true) => s.push_str(" NULLS FIRST"),
        (false, false) => {}
    }
    s
}

/// An aggregate call as EXPLAIN prints it (`count(*)`, `sum(t.a)`).
fn agg_text(call: &AggCall, names: &[String]) -> String {
    use crate::ir::AggFunc as F;
    let name = match call.func {
        F::CountStar => return "count(*)".into(),
        F::Count => "count",
        F::Sum => "sum",
        F::Avg => "avg",
        F::Min => "min",
        F::Max => "max",
        F::BoolAnd => "bool_and",
        F::BoolOr => "bool_or",
        F::StringAgg => "string_agg",
        F::ArrayAgg | F::ArrayAggArrays => "array_agg",
        F::JsonAgg { binary: true, .. } => "jsonb_agg",
        F::JsonAgg { .. } => "json_agg",
        F::JsonObjectAgg { binary: true } => "jsonb_object_agg",
        F::JsonObjectAgg { .. } => "json_object_agg",
        F::User => call.user.as_ref().map_or("?", |u| u.def.0.name.as_str()),
        _ => "aggregate",
    };
    let arg = call
        .arg
        .as_ref()
        .map(|a| render_expr(a, &|c| column_name(names, c)))
        .unwrap_or_default();
    let distinct = if call.distinct { "DISTINCT " } else { "" };
    format!("{name}({distinct}{arg})")
}

/// A condition's text without the parentheses the renderer puts around
/// an operator (EXPLAIN adds its own when it joins several).
pub(crate) fn bare(text: &str) -> String {
    text.strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .map_or_else(|| text.to_string(), str::to_string)
}

/// Index conditions as EXPLAIN prints them: one bare, several each in
/// parentheses joined by AND.
fn and_conds(display: &[String]) -> String {
    match display {
        [one] => one.clone(),
        many => many
            .iter()
            .map(|c| format!("({c})"))
            .collect::<Vec<_>>()
            .join(" AND "),
    }
}

fn alias_suffix(name: &str, alias: &str) -> String {
    if alias.is_empty() || alias == name {
        String::new()
    } else {
        format!(" {alias}")
    }
}

/// Render a scan-level expression for EXPLAIN, naming the table's columns.
pub fn show(e: &Expr, table: &TableDef) -> String {
    let name = |c: usize| -> String {
        if let Some(col) = table.columns.get(c) {
            return col.name.clone();
        }
        match c - table.columns.len() {
            SYS_ROWID => "ctid".into(),
            SYS_XMIN => "xmin".into(),
            _ => "xmax".into(),
        }
    };
    render_expr(e, &name)
}

/// The operator a jsonb or array containment/existence function
/// implements (what a GIN index answers), or a json field access.
pub(crate) fn containment_operator(name: &str) -> Option<&'static str> {
    Some(match name {
        "jsonb_contains" | "arraycontains" => "@>",
        "jsonb_contained" | "arraycontained" => "<@",
        "jsonb_exists" => "?",
        "jsonb_exists_any" => "?|",
        "jsonb_exists_all" => "?&",
        "arrayoverlap" => "&&",
        "jsonb_path_exists_opr" => "@?",
        "jsonb_path_match_opr" => "@@",
        "jsonb_object_field"
        | "jsonb_array_element"
        | "json_object_field"
        | "json_array_element" => "->",
        "jsonb_object_field_text"
        | "jsonb_array_element_text"
        | "json_object_field_text"
        | "json_array_element_text" => "->>",
        _ => return None,
    })
}

/// The operator a regular-expression match function implements.
fn regex_operator(name: &str) -> Option<&'static str> {
    Some(match name {
        "textregexeq" => "~",
        "textregexne" => "!~",
        "texticregexeq" => "~*",
        "texticregexne" => "!~*",
        _ => return None,
    })
}

/// The operator a library function of the range, text search or
/// geometric types implements, for `nargs` operands.
fn library_operator(name: &str, nargs: usize) -> Option<&'static str> {
    nestor_types::range::catalog::operator_of(name, nargs)
        .or_else(|| nestor_types::tsearch::catalog::operator_of(name, nargs))
        .or_else(|| nestor_types::geometry::catalog::operator_of(name, nargs))
}

/// Render an expression with `colname` naming input columns.
pub(crate) fn render_expr(e: &Expr, colname: &dyn Fn(usize) -> String) -> String {
    let r = |x: &Expr| render_expr(x, colname);
    match e {
        Expr::Const(v) => match v {
            nestor_types::Value::Text(s) => format!("'{}'::text", s.replace('\'', "''")),
            nestor_types::Value::Jsonb(s) => format!("'{}'::jsonb", s.replace('\'', "''")),
            nestor_types::Value::Geo(g) => {
                let text = g.to_text(1);
                format!("'{text}'::{}", g.kind().name())
            }
            nestor_types::Value::TsVector(t) => {
                format!("'{}'::tsvector", t.to_text().replace('\'', "''"))
            }
            nestor_types::Value::TsQuery(q) => {
                format!("'{}'::tsquery", q.to_text().replace('\'', "''"))
            }
            nestor_types::Value::Array(a) => {
                let ctx = nestor_types::EvalCtx::new(nestor_types::datetime::TimeZone::UTC, 0);
                let text = a.to_text(&ctx).replace('\'', "''");
                format!("'{text}'::{}", a.data_type())
            }
            v => crate::valops::to_text(
                v,
                &nestor_types::EvalCtx::new(nestor_types::datetime::TimeZone::UTC, 0),
            )
            .unwrap_or_else(|| "NULL".into()),
        },
        Expr::Param(i) => format!("${}", i + 1),
        Expr::Col(c) => colname(*c),
        Expr::Outer { col, .. } => format!("outer.{col}"),
        Expr::Arith(op, a, b, _) => {
            let s = match op {
                crate::valops::Arith::Add => "+",
                crate::valops::Arith::Sub => "-",
                crate::valops::Arith::Mul => "*",
                crate::valops::Arith::Div => "/",
                crate::valops::Arith::Mod => "%",
            };
            format!("({} {s} {})", r(a), r(b))
        }
        Expr::Cmp(op, a, b) => format!("({} {} {})", r(a), op.symbol(), r(b)),
        Expr::And(v) => format!("({})", v.iter().map(r).collect::<Vec<_>>().join(" AND ")),
        Expr::Or(v) => format!("({})", v.iter().map(r).collect::<Vec<_>>().join(" OR ")),
        Expr::Not(a) => format!("(NOT {})", r(a)),
        Expr::IsNull(a, false) => format!("({} IS NULL)", r(a)),
        Expr::IsNull(a, true) => format!("({} IS NOT NULL)", r(a)),
        Expr::Cast(a, t) => format!("({})::{}", r(a), t),
        // Checks of the domains inside a composite only: no cast shown.
        Expr::Domain(d) if d.checks.domain.is_empty() => r(&d.arg),
        Expr::Domain(d) => format!("({})::{}", r(&d.arg), d.checks.domain),
        Expr::InList { lhs, list, negated } => format!(
            "({} {}IN ({}))",
            r(lhs),
            if *negated { "NOT " } else { "" },
            list.iter().map(r).collect::<Vec<_>>().join(", ")
        ),
        Expr::Like {
            lhs,
            pattern,
            ci,
            negated,
        } => format!(
            "({} {}{} {})",
            r(lhs),
            if *negated { "!" } else { "" },
            if *ci { "~~*" } else { "~~" },
            r(pattern)
        ),
        Expr::UserFunc(f, args) => format!(
            "{}({})",
            f.0.name,
            args.iter().map(r).collect::<Vec<_>>().join(", ")
        ),
        Expr::Func(
            crate::functions::Func::LikeAny {
                ci,
                negated,
                all,
                regex,
            },
            args,
        ) if args.len() == 2 => {
            format!(
                "({} {}{} {} ({}))",
                r(&args[0]),
                if *negated { "!" } else { "" },
                match (*regex, *ci) {
                    (false, false) => "~~",
                    (false, true) => "~~*",
                    (true, false) => "~",
                    (true, true) => "~*",
                },
                if *all { "ALL" } else { "ANY" },
                r(&args[1])
            )
        }
        Expr::Func(crate::functions::Func::AnyArray { op, all }, args) if args.len() == 2 => {
            format!(
                "({} {} {} ({}))",
                r(&args[0]),
                op.symbol(),
                if *all { "ALL" } else { "ANY" },
                r(&args[1])
            )
        }
        Expr::Func(crate::functions::Func::LibraryAny { func, all }, args) if args.len() == 2 => {
            format!(
                "({} {} {} ({}))",
                r(&args[0]),
                nestor_types::tsearch::catalog::operator_of(func.name, 2).unwrap_or(func.name),
                if *all { "ALL" } else { "ANY" },
                r(&args[1])
            )
        }
        Expr::Func(crate::functions::Func::Library(f), args)
            if args.len() == 2 && containment_operator(f.name).is_some() =>
        {
            let op = containment_operator(f.name).unwrap_or("@>");
            let right = match (&args[1], op) {
                // A jsonpath constant is held as its text.
                (Expr::Const(nestor_types::Value::Text(s)), "@?" | "@@") => {
                    format!("'{}'::jsonpath", s.replace('\'', "''"))
                }
                (other, _) => r(other),
            };
            format!("({} {op} {right})", r(&args[0]))
        }
        Expr::Func(crate::functions::Func::Library(f), args)
            if args.len() == 2 && regex_operator(f.name).is_some() =>
        {
            let op = regex_operator(f.name).unwrap_or("~");
            format!("({} {op} {})", r(&args[0]), r(&args[1]))
        }
        Expr::Func(crate::functions::Func::Library(f), args)
            if library_operator(f.name, args.len()).is_some() =>
        {
            let op = library_operator(f.name, args.len()).unwrap_or("");
            match args.as_slice() {
                [a] => format!("({op} {})", r(a)),
                [a, b] => format!("({} {op} {})", r(a), r(b)),
                _ => "(...)".into(),
            }
        }
        Expr::Func(f, args) => format!(
            "{}({})",
            f.explain_name(),
            args.iter().map(r).collect::<Vec<_>>().join(", ")
        ),
        _ => "(...)".into(),
    }
}
