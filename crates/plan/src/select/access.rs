//! Access-path choice: the logical FROM tree with its WHERE/ON conjuncts
//! becomes the physical plan. Conjuncts are pushed down as far as they can
//! go; at a table leaf they choose between a sequential scan, an index scan
//! (equality prefix, IN list or range) and, inside a nested loop, an index
//! lookup keyed by the outer row. The choice is rule-based: most equality
//! columns, then ranges (there is no cost model).

use super::*;

/// Split an AND tree into its conjuncts.
pub fn conjuncts(e: Expr) -> Vec<Expr> {
    match e {
        Expr::And(v) => v.into_iter().flat_map(conjuncts).collect(),
        e => vec![e],
    }
}

pub(super) fn and_all(mut v: Vec<Expr>) -> Option<Expr> {
    match v.len() {
        0 => None,
        1 => v.pop(),
        _ => Some(Expr::And(v)),
    }
}

pub(crate) fn with_filter(p: Plan, rest: Vec<Expr>) -> Plan {
    match and_all(rest) {
        None => p,
        Some(pred) => Plan::Filter {
            input: Box::new(p),
            pred,
        },
    }
}

pub(super) fn within(e: &Expr, lo: usize, hi: usize) -> bool {
    e.columns().iter().all(|&c| c >= lo && c < hi)
}

/// Key expressions for a parameterized inner scan: conjuncts over the
/// whole join row, the left side's range (left row = positions from
/// `left_lo`).
pub(crate) struct JoinParam {
    left_lo: usize,
    left_hi: usize,
    conj: Vec<Expr>,
}

/// Build the physical plan of a FROM tree with `conj` (in the query
/// level's row coordinates) pushed down. Returns the plan (rows local to
/// the node's range) and the conjuncts it could not place.
pub(crate) fn build(
    b: &mut Binder,
    f: From,
    conj: Vec<Expr>,
    param: Option<JoinParam>,
) -> Result<(Plan, Vec<Expr>), DbError> {
    let (lo, hi) = f.range();
    // A conjunct with a correlated subquery stays above the FROM tree,
    // where rows are in the query level's layout.
    let (mine, mut rest): (Vec<Expr>, Vec<Expr>) = conj
        .into_iter()
        .partition(|e| within(e, lo, hi) && !e.has_correlated_subquery());
    let local = |offset: usize, v: Vec<Expr>| -> Vec<Expr> {
        v.into_iter().map(|e| e.shift(-(offset as isize))).collect()
    };
    match f {
        From::Table {
            table,
            alias,
            offset,
        } => Ok((
            table_scan(b, table, alias, local(offset, mine), offset, param),
            rest,
        )),
        From::Other { plan, offset, .. } => {
            let (plan, mine) = super::inherit::narrow_family(b, plan, local(offset, mine));
            Ok((with_filter(plan, mine), rest))
        }
        From::SysView { view, offset, .. } => {
            let filter = and_all(local(offset, mine));
            Ok((Plan::SysView { view, filter }, rest))
        }
        From::Join {
            kind,
            left,
            right,
            on,
            offset,
            merged,
            ..
        } => {
            let (plan, above) = build_join(b, kind, (*left, *right), on, offset, mine)?;
            rest.extend(above);
            Ok((with_merged(plan, merged), rest))
        }
        From::Lateral {
            left,
            func,
            args,
            ordinality,
            ..
        } => {
            // Conjuncts over the earlier items go down to them; the rest
            // (the function's columns) are applied above.
            let (llo, lhi) = left.range();
            let (to_left, above): (Vec<Expr>, Vec<Expr>) =
                mine.into_iter().partition(|e| within(e, llo, lhi));
            let (lp, lrest) = build(b, *left, to_left, None)?;
            rest.extend(lrest);
            rest.extend(above);
            Ok((
                Plan::LateralFunction {
                    input: Box::new(lp),
                    func,
                    args,
                    ordinality,
                },
                rest,
            ))
        }
        From::LateralFn { .. } => Err(DbError::unsupported(
            "a function in FROM referring to another FROM item inside a JOIN",
        )),
    }
}

/// The conjuncts of a join node by where they are evaluated.
#[derive(Default)]
struct JoinConjuncts {
    to_left: Vec<Expr>,
    to_right: Vec<Expr>,
    at_join: Vec<Expr>,
    above: Vec<Expr>,
}

impl JoinConjuncts {
    /// Place WHERE conjuncts (`mine`) and ON conjuncts by the join kind:
    /// a WHERE conjunct may filter a side before the join only if that
    /// side is not NULL-extended by it; an ON conjunct may filter only a
    /// side that is (it decides matches, never drops a preserved row).
    fn place(
        kind: JoinKind,
        (llo, lhi): (usize, usize),
        (rlo, rhi): (usize, usize),
        mine: Vec<Expr>,
        on: Vec<Expr>,
        offset: usize,
    ) -> Result<Self, DbError> {
        let mut c = JoinConjuncts::default();
        // A side is "kept" when this join never NULL-extends it.
        let (left_kept, right_kept) = match kind {
            JoinKind::Inner => (true, true),
            JoinKind::Left => (true, false),
            JoinKind::Right => (false, true),
            JoinKind::Full => (false, false),
        };
        let inner = kind == JoinKind::Inner;
        for e in mine {
            match () {
                _ if within(&e, llo, lhi) && left_kept => c.to_left.push(e),
                _ if within(&e, rlo, rhi) && right_kept => c.to_right.push(e),
                _ if inner => c.at_join.push(e),
                _ => c.above.push(e),
            }
        }
        for e in on {
            match () {
                // Evaluated on the joined row, which has the query level's
                // layout only for a join that starts it (`a JOIN b`, not the
                // inner join of `a JOIN (b JOIN c ON ...)`).
                _ if e.has_correlated_subquery() => {
                    if offset != 0 {
                        return Err(DbError::unsupported(
                            "correlated subquery in the ON clause of a parenthesized join",
                        ));
                    }
                    c.at_join.push(e)
                }
                // The right side is NULL-extended only if the left is kept.
                _ if within(&e, rlo, rhi) && left_kept => c.to_right.push(e),
                _ if within(&e, llo, lhi) && right_kept => c.to_left.push(e),
                _ => c.at_join.push(e),
            }
        }
        Ok(c)
    }
}

/// A join node: conjuncts over one side go down to it (see
/// [`JoinConjuncts::place`]), the others stay at the join; for INNER and
/// LEFT joins the inner side may become a lookup keyed by the outer row;
/// failing that, a join with an equality between the sides is a hash join
/// (`hash_join.rs`), any other a nested loop.
/// Returns the plan and the conjuncts that must be applied above the join.
fn build_join(
    b: &mut Binder,
    kind: JoinKind,
    (left, right): (From, From),
    on: Vec<Expr>,
    offset: usize,
    mine: Vec<Expr>,
) -> Result<(Plan, Vec<Expr>), DbError> {
    let (llo, lhi) = left.range();
    let (rlo, rhi) = right.range();
    let c = JoinConjuncts::place(kind, (llo, lhi), (rlo, rhi), mine, on, offset)?;
    if kind == JoinKind::Full {
        check_full_join_conditions(&c.at_join, (llo, lhi), (rlo, rhi))?;
    }
    let (mut at_join, mut above) = (c.at_join, c.above);
    let (lp, lrest) = build(b, left, c.to_left, None)?;
    // The right side of a RIGHT or FULL join is read once, not per left row.
    let jp = matches!(kind, JoinKind::Inner | JoinKind::Left).then(|| JoinParam {
        left_lo: llo,
        left_hi: lhi,
        conj: at_join
            .iter()
            .filter(|e| !e.has_correlated_subquery())
            .cloned()
            .collect(),
    });
    let (rp, rrest) = build(b, right, c.to_right, jp)?;
    at_join.extend(rrest);
    above.extend(lrest);
    if let Some(keys) = hash_join::hash_keys(b, &at_join, &rp, (llo, lhi), (rlo, rhi)) {
        let sides = [(llo, lhi), (rlo, rhi)];
        let plan = hash_join::plan(b, kind, (lp, rp), keys, at_join, offset, sides);
        return Ok((plan, above));
    }
    let on_local = at_join
        .into_iter()
        .map(|e| e.shift(-(offset as isize)))
        .collect();
    let plan = Plan::NestedLoop {
        left: Box::new(lp),
        right: Box::new(rp),
        kind,
        on: and_all(on_local),
        left_width: lhi - llo,
        right_width: rhi - rlo,
    };
    Ok((plan, above))
}

/// PostgreSQL runs a FULL join as a merge or hash join only: a condition
/// relating the two sides must be an equality between them (0A000
/// otherwise, as there).
fn check_full_join_conditions(
    at_join: &[Expr],
    (llo, lhi): (usize, usize),
    (rlo, rhi): (usize, usize),
) -> Result<(), DbError> {
    let side = |e: &Expr, lo, hi| within(e, lo, hi) && !e.columns().is_empty();
    let equi = |e: &Expr| match e {
        Expr::Cmp(Cmp::Eq, a, x) => {
            (side(a, llo, lhi) && side(x, rlo, rhi)) || (side(a, rlo, rhi) && side(x, llo, lhi))
        }
        _ => false,
    };
    let relates = |e: &Expr| {
        let cols = e.columns();
        cols.iter().any(|&c| c >= llo && c < lhi) && cols.iter().any(|&c| c >= rlo && c < rhi)
    };
    if at_join.iter().any(|e| relates(e) && !equi(e)) {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "FULL JOIN is only supported with merge-joinable or hash-joinable join conditions",
        ));
    }
    Ok(())
}

/// A join with USING columns that are merged from both sides (RIGHT and
/// FULL joins): their values follow the two sides' columns.
fn with_merged(plan: Plan, merged: Vec<Expr>) -> Plan {
    if merged.is_empty() {
        return plan;
    }
    let (Plan::NestedLoop {
        left_width,
        right_width,
        ..
    }
    | Plan::HashJoin {
        left_width,
        right_width,
        ..
    }) = &plan
    else {
        return plan;
    };
    let mut exprs: Vec<Expr> = (0..left_width + right_width).map(Expr::Col).collect();
    exprs.extend(merged);
    Plan::Project {
        input: Box::new(plan),
        exprs,
    }
}

/// A table leaf: pick an index for the conjuncts (local coordinates), or
/// a join-parameterized index lookup.
pub(super) fn table_scan(
    b: &mut Binder,
    table: Arc<TableDef>,
    alias: String,
    local: Vec<Expr>,
    offset: usize,
    param: Option<JoinParam>,
) -> Plan {
    if let Some((index, keys, used)) = choose_index(&table, &local) {
        let filter: Vec<Expr> = local
            .into_iter()
            .enumerate()
            .filter(|(i, _)| !used.contains(i))
            .map(|(_, e)| e)
            .collect();
        return Plan::IndexScan {
            table,
            alias,
            index,
            keys,
            filter: and_all(filter),
            cols: None,
        };
    }
    if let Some(p) = param {
        if let Some((index, keys)) = join_index(&table, offset, &p) {
            return Plan::IndexScan {
                table,
                alias,
                index,
                keys,
                filter: and_all(local),
                cols: None,
            };
        }
    }
    let (table, alias, local) = match hash_join::hashed_scan(b, table, alias, local) {
        Ok(plan) => return plan,
        Err(unchanged) => unchanged,
    };
    Plan::SeqScan {
        table,
        alias,
        filter: and_all(local),
        cols: None,
        late: None,
    }
}

/// `Col(c) op e` or `e op Col(c)` with `e` computable before the scan
/// (constants, parameters, and the enclosing query's row in a correlated
/// subquery: `WHERE i.unique1 = o.unique1` is an index lookup per outer
/// row, not a scan).
pub(super) fn col_cmp(e: &Expr) -> Option<(usize, Cmp, &Expr)> {
    if let Expr::Cmp(op, a, b) = e {
        if let Expr::Col(c) = a.as_ref() {
            if b.is_scan_constant() {
                return Some((*c, *op, b));
            }
        }
        if let Expr::Col(c) = b.as_ref() {
            if a.is_scan_constant() {
                return Some((*c, op.flip(), a));
            }
        }
    }
    None
}

pub(super) fn indexable_type(t: DataType) -> bool {
    !matches!(
        t,
        DataType::Numeric(_) | DataType::Float4 | DataType::Float8
    )
}

/// The best index for the conjuncts: most equality columns, then a range
/// or IN list. Returns the index, keys, and the conjuncts it covers.
pub(super) fn choose_index(
    table: &TableDef,
    conj: &[Expr],
) -> Option<(nestor_catalog::IndexDef, IndexKeys, Vec<usize>)> {
    let mut best: Option<(usize, nestor_catalog::IndexDef, IndexKeys, Vec<usize>)> = None;
    for idx in &table.indexes {
        let Some((score, keys, used)) = index_match(table, idx, conj) else {
            continue;
        };
        if best.as_ref().is_none_or(|(s, ..)| score > *s) {
            best = Some((score, idx.clone(), keys, used));
        }
    }
    best.map(|(_, i, k, u)| (i, k, u))
}

/// How well one index serves the conjuncts: (score, keys, conjuncts used);
/// None if it serves none. Equality on a key column scores 10, an IN list on
/// the first 8, a bound of a range 3, a fully matched unique index 5 more.
fn index_match(
    table: &TableDef,
    idx: &nestor_catalog::IndexDef,
    conj: &[Expr],
) -> Option<(usize, IndexKeys, Vec<usize>)> {
    let mut keys = IndexKeys {
        eq: Vec::new(),
        in_list: None,
        lo: None,
        hi: None,
        display: Vec::new(),
    };
    let mut used = Vec::new();
    let mut score = 0;
    for &col in &idx.columns {
        if !indexable_type(table.columns[col].ty) {
            break;
        }
        let name = &table.columns[col].name;
        let eq = conj.iter().enumerate().find_map(|(i, e)| match col_cmp(e) {
            Some((c, Cmp::Eq, v)) if c == col => Some((i, v.clone())),
            _ => None,
        });
        if let Some((i, v)) = eq {
            keys.display
                .push(format!("{name} = {}", crate::ir::show(&v, table)));
            keys.eq.push(v);
            used.push(i);
            score += 10;
            continue;
        }
        if keys.eq.is_empty() {
            if let Some((i, list)) = in_list_on(conj, col) {
                keys.display.push(format!("{name} = ANY (...)"));
                keys.in_list = Some(list);
                used.push(i);
                score += 8;
                break;
            }
        }
        score += range_keys(table, col, conj, &mut keys, &mut used);
        break;
    }
    if score == 0 {
        return None;
    }
    if idx.unique && keys.eq.len() == idx.columns.len() {
        score += 5;
    }
    Some((score, keys, used))
}

/// `col IN (row-independent list)` among the conjuncts.
fn in_list_on(conj: &[Expr], col: usize) -> Option<(usize, Vec<Expr>)> {
    conj.iter().enumerate().find_map(|(i, e)| match e {
        Expr::InList {
            lhs,
            list,
            negated: false,
        } if matches!(lhs.as_ref(), Expr::Col(c) if *c == col)
            && list.iter().all(Expr::is_row_independent) =>
        {
            Some((i, list.clone()))
        }
        _ => None,
    })
}

/// Lower and upper bounds on `col` among the conjuncts; returns the score.
fn range_keys(
    table: &TableDef,
    col: usize,
    conj: &[Expr],
    keys: &mut IndexKeys,
    used: &mut Vec<usize>,
) -> usize {
    let mut score = 0;
    let mut lo_conj = None;
    for (i, e) in conj.iter().enumerate() {
        let Some((c, op, v)) = col_cmp(e) else {
            continue;
        };
        let slot = match op {
            Cmp::Gt | Cmp::Ge if c == col && keys.lo.is_none() => &mut keys.lo,
            Cmp::Lt | Cmp::Le if c == col && keys.hi.is_none() => &mut keys.hi,
            _ => continue,
        };
        *slot = Some((v.clone(), matches!(op, Cmp::Ge | Cmp::Le)));
        if matches!(op, Cmp::Gt | Cmp::Ge) {
            lo_conj = Some(i);
        }
        keys.display.push(format!(
            "{} {} {}",
            table.columns[col].name,
            op.symbol(),
            crate::ir::show(v, table)
        ));
        used.push(i);
        score += 3;
    }
    // NULLs sort last in an index: a range with a lower bound and none
    // above reaches the NULL entries, so its condition stays in the filter
    // to refuse them (`x >= 1` returned the rows where x is NULL).
    if let (Some(i), None) = (lo_conj, &keys.hi) {
        used.retain(|&u| u != i);
    }
    score
}

/// A join condition `inner.col = f(outer row)` on the first column of an
/// index of the inner table: the inner side becomes an index lookup keyed
/// by the outer row.
pub(super) fn join_index(
    table: &TableDef,
    offset: usize,
    p: &JoinParam,
) -> Option<(nestor_catalog::IndexDef, IndexKeys)> {
    let width = table.columns.len() + SYS_COLS;
    for idx in &table.indexes {
        let first = idx.columns[0];
        if !indexable_type(table.columns[first].ty) {
            continue;
        }
        let target = offset + first;
        for e in &p.conj {
            let Expr::Cmp(Cmp::Eq, a, bx) = e else {
                continue;
            };
            let other = match (a.as_ref(), bx.as_ref()) {
                (Expr::Col(c), o) if *c == target => o,
                (o, Expr::Col(c)) if *c == target => o,
                _ => continue,
            };
            let cols = other.columns();
            let outer_only = cols.iter().all(|&c| c >= p.left_lo && c < p.left_hi)
                && !cols.iter().any(|&c| c >= offset && c < offset + width);
            if !outer_only || matches!(other, Expr::Sub(_)) {
                continue;
            }
            let key = other.clone().shift(-(p.left_lo as isize));
            let keys = IndexKeys {
                eq: vec![key],
                in_list: None,
                lo: None,
                hi: None,
                display: vec![format!("{} = (outer)", table.columns[first].name)],
            };
            return Some((idx.clone(), keys));
        }
    }
    None
}
