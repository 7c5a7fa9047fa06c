//! Hash joins: when a join is run by a hash table instead of a nested loop.
//!
//! A nested loop compares every left row with every right row: a join of
//! two 10,000-row tables without an index on the join column is 10^8
//! evaluations of the ON clause (PostgreSQL's own regression files over
//! `tenk1` timed out on it). A join whose ON clause (or, for an inner join,
//! WHERE clause) equates an expression over the left side with one over the
//! right side can instead read the right side once into a hash table keyed
//! by its expressions and look each left row up there
//! (`Plan::HashJoin`, run by `exec/src/executor/hash_join.rs`).
//!
//! The choice is rule-based, as the rest of the access-path choice: an
//! index lookup keyed by the outer row (`access::join_index`) still wins
//! for INNER and LEFT joins (one O(log n) lookup per left row, nothing held
//! in memory); otherwise any join with at least one usable equality becomes
//! a hash join, every kind (RIGHT and FULL joins, which read their right
//! side into memory anyway, included). The right side is the one hashed;
//! without a cost model there is no estimate to choose the smaller side by.
//!
//! An equality is usable as a key when each side reads only its own input
//! (no subquery, aggregate, volatile or set-returning call: a key is
//! computed once per row, where the nested loop would compute it per pair)
//! and the two sides' types are in one *hash class*: a class is a set of
//! types whose values are equal under SQL `=` exactly when they are equal
//! under `Value`'s `Eq`, which `Value`'s `Hash` agrees with — integers of
//! any width (`int4 = int8` compares by value, and `Value` hashes every
//! integer as an i64), floats of either width (NaN = NaN and -0 = +0 as in
//! PostgreSQL), numerics (by value: `1.0` and `1.00` hash alike), the text
//! types (text, varchar, name: byte equality), and each of bool, bytea,
//! date, timestamp, timestamptz, interval (by its 30-day-month span, as
//! PostgreSQL's interval `=`), uuid. Not hashed: char(n) (its `=` ignores
//! trailing blanks), jsonb, arrays, records, mixed classes (`int = numeric`
//! compares across representations), and expressions whose type the
//! planner cannot see from the expression itself (keys are columns, casts,
//! arithmetic and constants). Those joins stay nested loops, with the same
//! results.
//!
//! The conditions that are not keys stay the join's filter, over the
//! joined row, deciding among the rows with equal keys — so an outer join's
//! filter that fails still NULL-extends the preserved row, as in the nested
//! loop. Left out: semi- and anti-joins (EXISTS / IN are subquery
//! expressions, not joins, in this planner), hashing IS NOT DISTINCT FROM,
//! and choosing the smaller side to build. A hash table past work_mem
//! spills: the executor turns the join into a grace hash join in batches
//! (exec/src/executor/hash_join.rs).
//!
//! What stands in for semi- and anti-joins: a correlated subquery (EXISTS,
//! NOT EXISTS, IN, scalar, LATERAL) that reads a table through
//! `col = (enclosing row's value)` re-runs its scan per outer row; without
//! an index on `col` that is the same n x m as a nested loop. Such a leaf
//! becomes `Plan::HashedScan` ([`hashed_scan`]): the table read once per
//! statement, ordered by `col`, each run a lookup. The same hash classes
//! decide when the column's stored values may be compared with the key.

use super::access::{and_all, within};
use super::*;
use crate::bind::ScopeCol;
use crate::ir::render_expr;

/// The equi-join keys found among a join's conjuncts (query-level
/// coordinates): conjunct `used[i]` is `left[i] = right[i]`.
pub(super) struct HashKeys {
    left: Vec<Expr>,
    right: Vec<Expr>,
    used: Vec<usize>,
}

/// Types whose values hash alike exactly when SQL `=` holds (see the
/// module header).
#[derive(Clone, Copy, PartialEq, Eq)]
enum HashClass {
    Int,
    Float,
    Numeric,
    Text,
    Bool,
    Bytea,
    Date,
    Timestamp,
    TimestampTz,
    Interval,
    Time,
    TimeTz,
    Uuid,
    PgLsn,
    /// bit and bit varying (one class: they compare with each other).
    Bits,
}

fn hash_class(t: DataType) -> Option<HashClass> {
    Some(match t {
        DataType::Int2 | DataType::Int4 | DataType::Int8 | DataType::Oid => HashClass::Int,
        DataType::Float4 | DataType::Float8 => HashClass::Float,
        DataType::Numeric(_) => HashClass::Numeric,
        // A bpchar key is a `char(n)` compared with one of the same length
        // (both blank-padded alike; others are compared without their
        // trailing blanks, as text).
        DataType::Text | DataType::Varchar(_) | DataType::Name | DataType::Char(_) => {
            HashClass::Text
        }
        DataType::Bool => HashClass::Bool,
        DataType::Bytea => HashClass::Bytea,
        DataType::Date => HashClass::Date,
        DataType::Timestamp(_) => HashClass::Timestamp,
        DataType::TimestampTz(_) => HashClass::TimestampTz,
        DataType::Interval(_) => HashClass::Interval,
        DataType::Time(_) => HashClass::Time,
        DataType::TimeTz(_) => HashClass::TimeTz,
        DataType::Uuid => HashClass::Uuid,
        DataType::PgLsn => HashClass::PgLsn,
        DataType::Bit(_) | DataType::VarBit(_) => HashClass::Bits,
        _ => return None,
    })
}

/// The type of a key expression, where the expression itself says it
/// (`cols`: the query level's columns; `scopes`: every level's, for
/// references to enclosing rows).
fn key_type(e: &Expr, cols: &[ScopeCol], scopes: &[Scope]) -> Option<DataType> {
    match e {
        Expr::Col(c) => cols.get(*c).map(|c| c.ty),
        Expr::Outer { level, col } => scopes.get(*level)?.cols.get(*col).map(|c| c.ty),
        Expr::Cast(_, t) | Expr::Arith(_, _, _, t) => Some(*t),
        Expr::Func(crate::functions::Func::BpcharToText, _) => Some(DataType::Text),
        Expr::Const(v) if !v.is_null() => Some(v.data_type()),
        _ => None,
    }
}

/// Whether `e` can be one side's key: it reads columns of that side only
/// (positions `lo..hi`), and nothing whose value may differ between two
/// evaluations on the same row or that is not a plain row function.
fn key_of_side(e: &Expr, lo: usize, hi: usize) -> bool {
    if e.columns().is_empty() || !within(e, lo, hi) {
        return false;
    }
    let mut ok = true;
    e.walk(&mut |x| match x {
        Expr::Sub(_) | Expr::Agg(_) | Expr::Window(_) => ok = false,
        Expr::Func(f, _) if f.is_volatile() => ok = false,
        Expr::UserFunc(f, _) if f.0.volatility == nestor_catalog::Volatility::Volatile => {
            ok = false
        }
        _ => {}
    });
    ok
}

/// The equalities among `at_join` (query-level coordinates) that can key a
/// hash join of the sides `l` and `r`, or None if there are none or the
/// right side's plan reads the left row (an index lookup keyed by it, a
/// LATERAL subquery): that plan serves the join per left row.
pub(super) fn hash_keys(
    b: &Binder,
    at_join: &[Expr],
    right: &Plan,
    (llo, lhi): (usize, usize),
    (rlo, rhi): (usize, usize),
) -> Option<HashKeys> {
    if reads_param(right) {
        return None;
    }
    let cols = b.scopes.last().map_or(&[][..], |s| &s.cols[..]);
    let mut keys = HashKeys {
        left: Vec::new(),
        right: Vec::new(),
        used: Vec::new(),
    };
    for (i, e) in at_join.iter().enumerate() {
        let Expr::Cmp(Cmp::Eq, a, x) = e else {
            continue;
        };
        let (l, r) = if key_of_side(a, llo, lhi) && key_of_side(x, rlo, rhi) {
            (a, x)
        } else if key_of_side(a, rlo, rhi) && key_of_side(x, llo, lhi) {
            (x, a)
        } else {
            continue;
        };
        let class = |e: &Expr| key_type(e, cols, &b.scopes).and_then(hash_class);
        match (class(l), class(r)) {
            (Some(cl), Some(cr)) if cl == cr => {}
            _ => continue,
        }
        keys.left.push((**l).clone());
        keys.right.push((**r).clone());
        keys.used.push(i);
    }
    (!keys.used.is_empty()).then_some(keys)
}

/// Whether a plan run as the right side of a join reads the row it is
/// given (the current left row of a nested loop) rather than only its own
/// inputs: then it cannot be read once into a hash table.
fn reads_param(p: &Plan) -> bool {
    let cols = |e: &Expr| !e.columns().is_empty();
    match p {
        Plan::IndexScan { keys, .. } => {
            keys.eq.iter().any(cols)
                || keys.in_list.iter().flatten().any(cols)
                || keys.in_array.iter().any(cols)
                || keys.lo.iter().chain(keys.hi.iter()).any(|(e, _)| cols(e))
                || keys.gin.iter().any(|q| cols(&q.value))
        }
        Plan::LateralSubquery { .. } => true,
        Plan::FunctionScan { args, .. } => args.iter().any(cols),
        Plan::Values { rows } => rows.iter().flatten().any(cols),
        Plan::Single
        | Plan::SeqScan { .. }
        | Plan::HashedScan { .. }
        | Plan::SysView { .. }
        | Plan::EphemeralScan { .. }
        | Plan::CteScan { .. } => false,
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
        | Plan::LockRows { input, .. } => reads_param(input),
        // The inner side of an INNER or LEFT nested loop is given the
        // loop's own left row.
        Plan::NestedLoop {
            left,
            kind: JoinKind::Inner | JoinKind::Left,
            ..
        } => reads_param(left),
        Plan::NestedLoop { left, right, .. }
        | Plan::HashJoin { left, right, .. }
        | Plan::SetOp { left, right, .. } => reads_param(left) || reads_param(right),
        Plan::RecursiveUnion { init, step, .. } => reads_param(init) || reads_param(step),
        Plan::Append { inputs } => inputs.iter().any(reads_param),
    }
}

/// The hash join of `left` and `right` on `keys`; the other conjuncts of
/// `at_join` become its filter. `offset` is the join's first position in
/// the query level's row (the plan's rows start there).
pub(super) fn plan(
    b: &Binder,
    kind: JoinKind,
    (left, right): (Plan, Plan),
    keys: HashKeys,
    at_join: Vec<Expr>,
    offset: usize,
    [(llo, lhi), (rlo, rhi)]: [(usize, usize); 2],
) -> Plan {
    let cols = b.scopes.last().map_or(&[][..], |s| &s.cols[..]);
    let name = |c: usize| match cols.get(c) {
        Some(col) if !col.rel.is_empty() => format!("{}.{}", col.rel, col.name),
        Some(col) => col.name.clone(),
        None => format!("${c}"),
    };
    let conds = |parts: Vec<String>| match parts.len() {
        1 => parts.into_iter().next().unwrap_or_default(),
        _ => format!("({})", parts.join(" AND ")),
    };
    let mut display = vec![format!(
        "Hash Cond: {}",
        conds(
            keys.left
                .iter()
                .zip(&keys.right)
                .map(|(l, r)| format!("({} = {})", render_expr(l, &name), render_expr(r, &name)))
                .collect()
        )
    )];
    let filter: Vec<Expr> = at_join
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !keys.used.contains(i))
        .map(|(_, e)| e)
        .collect();
    if !filter.is_empty() {
        display.push(format!(
            "Join Filter: {}",
            conds(
                filter
                    .iter()
                    .map(|e| paren(render_expr(e, &name)))
                    .collect()
            )
        ));
    }
    let local = |v: Vec<Expr>, by: usize| -> Vec<Expr> {
        v.into_iter().map(|e| e.shift(-(by as isize))).collect()
    };
    Plan::HashJoin {
        left: Box::new(left),
        right: Box::new(right),
        kind,
        left_keys: local(keys.left, llo),
        right_keys: local(keys.right, rlo),
        filter: and_all(local(filter, offset)),
        left_width: lhi - llo,
        right_width: rhi - rlo,
        display,
    }
}

/// A condition as EXPLAIN prints it: parenthesized once.
fn paren(s: String) -> String {
    if s.starts_with('(') && s.ends_with(')') {
        s
    } else {
        format!("({s})")
    }
}

/// A table leaf in a correlated subquery whose conjuncts (`local`, over
/// the table's row) include `col = key`, `key` reading the enclosing
/// query's row, where no index serves: without one, each outer row would
/// scan the whole table. It becomes a `Plan::HashedScan` — the table's rows
/// read once per statement, ordered by `col`, and looked up per outer row
/// (`exec/src/executor/hash_join.rs`). The key's type must be in the
/// column's hash class, as for a hash join's keys. The conjuncts that read
/// no enclosing row (and call nothing volatile or a subquery) filter the
/// rows kept; the others are checked per lookup. None when no conjunct
/// fits; then the table is scanned per outer row.
pub(super) fn hashed_scan(
    b: &mut Binder,
    table: Arc<TableDef>,
    alias: String,
    local: Vec<Expr>,
) -> Result<Plan, (Arc<TableDef>, String, Vec<Expr>)> {
    let outer_key = |e: &Expr| -> Option<(usize, Expr)> {
        let Expr::Cmp(Cmp::Eq, a, x) = e else {
            return None;
        };
        let (c, key) = match (column_of(a, &table), column_of(x, &table)) {
            (Some(c), None) if reads_enclosing_row(x) => (c, x.as_ref()),
            (None, Some(c)) if reads_enclosing_row(a) => (c, a.as_ref()),
            _ => return None,
        };
        let column = table.columns.get(c)?;
        let mut sub = false;
        key.walk(&mut |x| sub |= matches!(x, Expr::Sub(_)));
        if sub || !key.is_scan_constant() {
            return None;
        }
        let kt = key_type(key, &[], &b.scopes)?;
        (hash_class(column.ty)? == hash_class(kt)?).then(|| (c, key.clone()))
    };
    let Some((i, (col, key))) = local
        .iter()
        .enumerate()
        .find_map(|(i, e)| outer_key(e).map(|k| (i, k)))
    else {
        return Err((table, alias, local));
    };
    let (build, per_row): (Vec<Expr>, Vec<Expr>) = local
        .into_iter()
        .enumerate()
        .filter(|(j, _)| *j != i)
        .map(|(_, e)| e)
        .partition(row_local);
    Ok(Plan::HashedScan {
        table,
        alias,
        // Two ids: `id` marks the first run, `id + 1` holds the rows.
        id: {
            let id = b.fresh_id();
            b.fresh_id();
            id
        },
        col,
        key,
        build_filter: and_all(build),
        filter: and_all(per_row),
    })
}

/// The table column `e` is, also through a cast that keeps its values
/// (varchar to text, an integer to a wider one), so the column's stored
/// values can be compared with the key.
fn column_of(e: &Expr, table: &TableDef) -> Option<usize> {
    match e {
        Expr::Col(c) => Some(*c),
        Expr::Cast(inner, to) => {
            let Expr::Col(c) = inner.as_ref() else {
                return None;
            };
            let from = table.columns.get(*c)?.ty;
            let keeps = matches!(
                (from, *to),
                (DataType::Varchar(_) | DataType::Text, DataType::Text)
                    | (DataType::Int2, DataType::Int4 | DataType::Int8)
                    | (DataType::Int4, DataType::Int8)
            );
            keeps.then_some(*c)
        }
        _ => None,
    }
}

fn reads_enclosing_row(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x, Expr::Outer { .. }));
    found
}

/// Whether a conjunct's value on a row is the same in every run of the
/// scan: it reads no enclosing row, no subquery, nothing volatile.
fn row_local(e: &Expr) -> bool {
    let mut ok = true;
    e.walk(&mut |x| match x {
        Expr::Outer { .. } | Expr::Sub(_) | Expr::Agg(_) | Expr::Window(_) => ok = false,
        Expr::Func(f, _) if f.is_volatile() => ok = false,
        Expr::UserFunc(f, _) if f.0.volatility == nestor_catalog::Volatility::Volatile => {
            ok = false
        }
        _ => {}
    });
    ok
}
