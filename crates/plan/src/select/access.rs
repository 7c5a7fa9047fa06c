//! Access-path choice: the logical FROM tree with its WHERE/ON conjuncts
//! becomes the physical plan. Conjuncts are pushed down as far as they can
//! go; at a table leaf they choose between a sequential scan, an index scan
//! (equality prefix, IN list or `= ANY (array)`, range, or the range a
//! `LIKE 'prefix%'` / `~ '^prefix'` implies) and, inside a nested loop, an
//! index lookup keyed by the outer row. The choice is rule-based: most
//! equality columns, then ranges (there is no cost model).
//!
//! An ORDER BY on a single table's scan asks [`index_ordered`] whether an
//! index delivers the order (forward: each key's declared ASC/DESC and
//! NULLS FIRST/LAST; backward: their exact reverse; the WHERE's equality
//! prefix skipped); then the sort is dropped and the index scan reads in
//! batches, so `ORDER BY col LIMIT n` reads about n entries.
//!
//! A hash index (`USING hash`) serves equality only: `col = value`, an
//! IN list or `= ANY (array)`, the exact-match form of a LIKE, and the
//! inner lookup of a nested loop on `=`; never a range, a LIKE prefix, an
//! ORDER BY (its order is no order) or a uniqueness bonus. Its entries
//! live in the same ordered storage as a btree's, so the lookup itself
//! is the btree's.
//!
//! Expression and partial indexes take part as `Candidate`s: each key
//! an expression over the table's row (a column is `Expr::Col`), matched
//! against the conjuncts and sort keys by equality; a partial index only
//! when the conjuncts imply its predicate (`crate::select::index_expr::implied`),
//! the conjuncts it implies being neither index conditions nor filters.

use super::*;

/// Split an AND tree into its conjuncts.
pub fn conjuncts(e: Expr) -> Vec<Expr> {
    match e {
        Expr::And(v) => v.into_iter().flat_map(conjuncts).collect(),
        e => vec![e],
    }
}

pub(crate) fn and_all(mut v: Vec<Expr>) -> Option<Expr> {
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
            security,
        } if security.is_empty() => Ok((
            table_scan(b, table, alias, local(offset, mine), offset, param),
            rest,
        )),
        // Row-level security: its quals in the scan, then the
        // statement's leakproof conditions (which may pick an index), the
        // others above it (`rls`).
        From::Table {
            table,
            alias,
            offset,
            mut security,
        } => {
            let (leakproof, above): (Vec<Expr>, Vec<Expr>) = local(offset, mine)
                .into_iter()
                .partition(super::rls::leakproof);
            security.extend(leakproof);
            Ok((
                with_filter(table_scan(b, table, alias, security, offset, None), above),
                rest,
            ))
        }
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
            // The arguments are over the level's row; the function is given
            // its left side's rows, which begin at `llo` (0 in a FROM list,
            // the join's first column inside a JOIN).
            let args = args.into_iter().map(|a| a.shift(-(llo as isize))).collect();
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
    if let Some((index, keys, used)) = choose_index(b.catalog, &table, &local) {
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
            order: IndexOrder::Unordered,
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
                order: IndexOrder::Unordered,
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

/// An index as the planner matches it: each key as an expression over
/// the table's row (a column key is `Expr::Col`) with its type and EXPLAIN
/// name, and a partial index's predicate (its conjuncts).
struct Candidate<'t> {
    table: &'t TableDef,
    def: &'t nestor_catalog::IndexDef,
    keys: Vec<(Expr, DataType, String)>,
    predicate: Vec<Expr>,
}

/// The table's indexes as [`Candidate`]s; a computed index is bound from
/// its stored text (one that fails to bind is left out).
fn candidates<'t>(
    catalog: &nestor_catalog::Catalog,
    table: &'t Arc<TableDef>,
) -> Vec<Candidate<'t>> {
    let mut out = Vec::with_capacity(table.indexes.len());
    for idx in &table.indexes {
        let Some(x) = &idx.exprs else {
            let keys = idx
                .columns
                .iter()
                .map(|&c| {
                    let col = &table.columns[c];
                    (Expr::Col(c), col.ty, col.name.clone())
                })
                .collect();
            out.push(Candidate {
                table,
                def: idx,
                keys,
                predicate: Vec::new(),
            });
            continue;
        };
        let Ok(bound) = crate::select::index_expr::bind_stored(catalog, table, x) else {
            continue;
        };
        let keys = bound
            .keys
            .into_iter()
            .map(|(e, ty)| {
                let name = crate::select::index_expr::show_key(&e, table);
                (e, ty, name)
            })
            .collect();
        out.push(Candidate {
            table,
            def: idx,
            keys,
            predicate: bound.predicate,
        });
    }
    out
}

/// The best index for the conjuncts: most equality columns, then a range
/// or IN list; a partial index only when the conjuncts imply its
/// predicate. Returns the index, keys, and the conjuncts it covers (or
/// that its predicate implies: they need no filter).
pub(super) fn choose_index(
    catalog: &nestor_catalog::Catalog,
    table: &Arc<TableDef>,
    conj: &[Expr],
) -> Option<(nestor_catalog::IndexDef, IndexKeys, Vec<usize>)> {
    let mut best: Option<(usize, nestor_catalog::IndexDef, IndexKeys, Vec<usize>)> = None;
    for cand in candidates(catalog, table) {
        if !crate::select::index_expr::implied(&cand.predicate, conj) {
            continue;
        }
        let matched = if cand.def.method == nestor_catalog::AccessMethod::Gin {
            gin_match(&cand, conj)
        } else {
            index_match(&cand, conj)
        };
        let Some((score, keys, used)) = matched else {
            continue;
        };
        if best.as_ref().is_none_or(|(s, ..)| score > *s) {
            best = Some((score, cand.def.clone(), keys, used));
        }
    }
    best.map(|(_, i, k, u)| (i, k, u))
}

/// How well one index serves the conjuncts: (score, keys, conjuncts used);
/// None if it serves none. Equality on a key column scores 10, an IN list on
/// the first 8, a bound of a range 3, a fully matched unique index 5 more;
/// a partial index (whose predicate the conjuncts imply) 2 more, and is
/// used even with no key condition.
fn index_match(cand: &Candidate<'_>, all: &[Expr]) -> Option<(usize, IndexKeys, Vec<usize>)> {
    // The conjuncts a partial index's predicate implies are neither index
    // conditions nor filters (PostgreSQL's indrestrictinfo): the others are
    // matched, by their positions in `all`.
    let implied: Vec<usize> = (0..all.len())
        .filter(|&i| {
            cand.predicate
                .iter()
                .any(|p| crate::select::index_expr::implies(p, &all[i]))
        })
        .collect();
    // A hash index, which cannot be scanned without a key condition,
    // matches them all (PostgreSQL keeps indrestrictinfo whole for an
    // index without amoptionalkey): `WHERE a = 1` is then its key even
    // when its predicate is `a = 1`.
    let place: Vec<usize> = (0..all.len())
        .filter(|i| hashed(cand.def) || !implied.contains(i))
        .collect();
    let conj: Vec<Expr> = place.iter().map(|&i| all[i].clone()).collect();
    let conj = &conj[..];
    let mut keys = IndexKeys {
        eq: Vec::new(),
        in_list: None,
        in_array: None,
        lo: None,
        hi: None,
        display: Vec::new(),
        gin: Vec::new(),
        gin_implied: Vec::new(),
        gin_predicate: Vec::new(),
    };
    let mut used = Vec::new();
    let mut score = 0;
    for (k, (key, ty, name)) in cand.keys.iter().enumerate() {
        let ty = *ty;
        // A key under another type's class takes none of the key type's
        // operators (`bpchar_ops` on text).
        if !indexable_type(ty) || cand.def.key_opt(k).foreign_class(ty) {
            break;
        }
        let eq = conj
            .iter()
            .enumerate()
            .find_map(|(i, e)| match key_cmp(e, key) {
                Some((Cmp::Eq, v)) => Some((i, v.clone())),
                _ => None,
            });
        if let Some((i, v)) = eq {
            keys.display
                .push(format!("{name} = {}", show_value(&v, cand)));
            keys.eq.push(key_value(v, cand, ty));
            used.push(i);
            score += 10;
            continue;
        }
        {
            if let Some((i, list)) = in_list_on(conj, key) {
                keys.display
                    .push(format!("{name} = ANY ({})", show_list(&list, ty, cand)));
                keys.in_list = Some(list.into_iter().map(|v| key_value(v, cand, ty)).collect());
                used.push(i);
                score += 8;
                break;
            }
            if let Some((i, array)) = any_array_on(conj, key) {
                if cand.def.exprs.is_some() {
                    break; // the elements would need a cast to the key's type
                }
                keys.display
                    .push(format!("{name} = ANY ({})", show_value(&array, cand)));
                keys.in_array = Some(array);
                used.push(i);
                score += 8;
                break;
            }
        }
        if hashed(cand.def) {
            score += prefix_keys(cand, (key, ty, name), conj, &mut keys, true);
            break;
        }
        // A pattern class (`text_pattern_ops`) compares by bytes under
        // its own operators (`~<~`): PostgreSQL matches equality and a
        // LIKE prefix to it, not the type's `<` and `>`.
        if !pattern_class(cand, k) {
            score += range_keys(cand, (key, ty, name), conj, &mut keys, &mut used);
        }
        if keys.lo.is_none() && keys.hi.is_none() {
            score += prefix_keys(cand, (key, ty, name), conj, &mut keys, false);
        }
        break;
    }
    let mut used: Vec<usize> = used.into_iter().map(|i| place[i]).collect();
    for i in implied {
        if !used.contains(&i) {
            used.push(i);
        }
    }
    if !cand.predicate.is_empty() {
        score += 2;
    }
    if score == 0 {
        return None;
    }
    // A hash index cannot be scanned whole (PostgreSQL's amoptionalkey is
    // false): a partial one serves only with a key condition.
    let keyed = !keys.eq.is_empty() || keys.in_list.is_some() || keys.in_array.is_some();
    if hashed(cand.def) && !keyed {
        return None;
    }
    if cand.def.unique && keys.eq.len() == cand.keys.len() {
        score += 5;
    }
    Some((score, keys, used))
}

/// How well a GIN index serves the conjuncts: 4 per conjunct it answers
/// (below a btree equality, above a range: it reads candidates to
/// recheck). None if it answers none (a GIN index is never read whole
/// for a query it cannot narrow). Its conjuncts stay in the filter: the
/// executor rechecks them on every row (GIN is lossy).
fn gin_match(cand: &Candidate<'_>, all: &[Expr]) -> Option<(usize, IndexKeys, Vec<usize>)> {
    let classes = cand.def.exprs.as_ref().map(|x| x.gin.clone())?;
    let keys: Vec<Expr> = cand.keys.iter().map(|(e, ..)| e.clone()).collect();
    let quals = crate::select::gin::index_match(&keys, &classes, all);
    if quals.is_empty() {
        return None;
    }
    // One condition prints bare, several each in parentheses, as
    // `details` joins them.
    let display = quals
        .iter()
        .map(|(_, q)| crate::ir::bare(&show_value(&q.conj, cand)))
        .collect();
    // The conjuncts a partial index's predicate implies (not GIN
    // conditions themselves).
    let gin_implied: Vec<Expr> = all
        .iter()
        .enumerate()
        .filter(|(i, e)| {
            !quals.iter().any(|(k, _)| k == i)
                && cand
                    .predicate
                    .iter()
                    .any(|p| crate::select::index_expr::implies(p, e))
        })
        .map(|(_, e)| e.clone())
        .collect();
    // jsonb_path_ops answers `@>` with fewer, more selective keys than
    // jsonb_ops: the better of two indexes on one column (PostgreSQL's
    // cost model prefers it too).
    let path_ops = quals
        .iter()
        .all(|(_, q)| q.class == nestor_catalog::gin::GinClass::JsonbPathOps);
    let score = 4 * quals.len() + usize::from(path_ops);
    let keys = IndexKeys {
        eq: Vec::new(),
        in_list: None,
        in_array: None,
        lo: None,
        hi: None,
        display,
        gin: quals.into_iter().map(|(_, q)| q).collect(),
        gin_implied,
        gin_predicate: cand.predicate.clone(),
    };
    // Nothing is "used": every conjunct stays in the filter (the recheck).
    Some((score, keys, Vec::new()))
}

/// Whether key `k` of the index is under a pattern operator class.
fn pattern_class(cand: &Candidate<'_>, k: usize) -> bool {
    cand.def
        .key_opt(k)
        .opclass
        .is_some_and(|c| c.ends_with("_pattern_ops"))
}

/// Whether the index is a hash index: equality lookups only.
fn hashed(def: &nestor_catalog::IndexDef) -> bool {
    def.method == nestor_catalog::AccessMethod::Hash
}

/// `key op e` or `e op key` with `e` computable before the scan, `key`
/// on the left.
fn key_cmp<'e>(e: &'e Expr, key: &Expr) -> Option<(Cmp, &'e Expr)> {
    if let Expr::Col(c) = key {
        return col_cmp(e).and_then(|(x, op, v)| (x == *c).then_some((op, v)));
    }
    if let Expr::Cmp(op, a, b) = e {
        if a.as_ref() == key && b.is_scan_constant() {
            return Some((*op, b));
        }
        if b.as_ref() == key && a.is_scan_constant() {
            return Some((op.flip(), a));
        }
    }
    None
}

/// A value compared with a computed index's key, cast to the key's type
/// (a plain index's are cast by the executor, `cast_key`; integers of any
/// width compare by value in the index already).
fn key_value(v: Expr, cand: &Candidate<'_>, ty: DataType) -> Expr {
    if cand.def.exprs.is_none() || ty.is_integer() {
        v
    } else {
        Expr::Cast(Box::new(v), ty)
    }
}

fn show_value(v: &Expr, cand: &Candidate<'_>) -> String {
    crate::ir::show(v, cand.table)
}

/// `col IN (row-independent list)` among the conjuncts.
fn in_list_on(conj: &[Expr], key: &Expr) -> Option<(usize, Vec<Expr>)> {
    conj.iter().enumerate().find_map(|(i, e)| match e {
        Expr::InList {
            lhs,
            list,
            negated: false,
        } if lhs.as_ref() == key && list.iter().all(Expr::is_row_independent) => {
            Some((i, list.clone()))
        }
        _ => None,
    })
}

/// An IN list as EXPLAIN shows the array PostgreSQL makes of it:
/// `'{1,2}'::integer[]` for constants, `ARRAY[$1, $2]` otherwise.
fn show_list(list: &[Expr], ty: DataType, cand: &Candidate<'_>) -> String {
    let table = cand.table;
    let consts: Option<Vec<Value>> = list
        .iter()
        .map(|e| match e {
            Expr::Const(v) => Some(v.clone()),
            _ => None,
        })
        .collect();
    if let Some(items) = consts {
        let array = nestor_types::array::Array::from_items(ty, items).value();
        return crate::ir::show(&Expr::Const(array), table);
    }
    let items: Vec<String> = list.iter().map(|e| crate::ir::show(e, table)).collect();
    format!("ARRAY[{}]", items.join(", "))
}

/// `col = ANY (array)` with the array known before the scan (a constant,
/// a parameter) among the conjuncts: PostgreSQL's ScalarArrayOpExpr index
/// qualification.
fn any_array_on(conj: &[Expr], key: &Expr) -> Option<(usize, Expr)> {
    conj.iter().enumerate().find_map(|(i, e)| match e {
        Expr::Func(
            crate::functions::Func::AnyArray {
                op: Cmp::Eq,
                all: false,
            },
            args,
        ) if matches!(args.as_slice(), [k, a] if k == key && a.is_scan_constant()) => {
            Some((i, args[1].clone()))
        }
        _ => None,
    })
}

/// `col LIKE 'prefix...'` or `col ~ '^prefix...'` on a text column, with a
/// constant pattern, among the conjuncts: the rows lie in [prefix,
/// successor of prefix), a range of the index because text keys sort in
/// byte order (Nestor's only collation, PostgreSQL's "C"); a pattern
/// without wildcards is an equality. The condition itself stays in the
/// filter (PostgreSQL's prefix index qualification). Returns the score.
/// `exact_only`: only a pattern without wildcards serves (a hash index,
/// which cannot scan a range).
fn prefix_keys(
    cand: &Candidate<'_>,
    (key, ty, name): (&Expr, DataType, &str),
    conj: &[Expr],
    keys: &mut IndexKeys,
    exact_only: bool,
) -> usize {
    if !matches!(ty, DataType::Text | DataType::Varchar(_)) {
        return 0;
    }
    let Some((prefix, exact)) = conj
        .iter()
        .filter_map(|e| pattern_prefix(e, key))
        .find(|(_, exact)| *exact || !exact_only)
    else {
        return 0;
    };
    let show = |s: &str| crate::ir::show(&Expr::Const(Value::Text(s.into())), cand.table);
    if exact {
        keys.display.push(format!("{name} = {}", show(&prefix)));
        keys.eq.push(Expr::Const(Value::Text(prefix.into())));
        return 10;
    }
    // A pattern class's range is in its own operators.
    let pattern = cand
        .keys
        .iter()
        .position(|(e, ..)| e == key)
        .is_some_and(|k| pattern_class(cand, k));
    let (ge, lt) = if pattern {
        ("~>=~", "~<~")
    } else {
        (">=", "<")
    };
    keys.display.push(format!("{name} {ge} {}", show(&prefix)));
    let succ = text_successor(&prefix);
    if let Some(succ) = &succ {
        keys.display.push(format!("{name} {lt} {}", show(succ)));
    }
    keys.lo = Some((Expr::Const(Value::Text(prefix.into())), true));
    keys.hi = succ.map(|s| (Expr::Const(Value::Text(s.into())), false));
    6
}

/// The fixed prefix of a LIKE or regular-expression condition on `col`
/// (non-empty) and whether the pattern is exactly it.
fn pattern_prefix(e: &Expr, key: &Expr) -> Option<(String, bool)> {
    let is_col = |x: &Expr| match x {
        Expr::Cast(inner, DataType::Text) => inner.as_ref() == key,
        x => x == key,
    };
    let (prefix, exact) = match e {
        Expr::Like {
            lhs,
            pattern,
            ci: false,
            negated: false,
        } if is_col(lhs) => match pattern.as_ref() {
            Expr::Const(Value::Text(p)) => like_prefix(p),
            _ => return None,
        },
        Expr::Func(crate::functions::Func::Library(f), args)
            if f.name == "textregexeq" && args.len() == 2 && is_col(&args[0]) =>
        {
            match &args[1] {
                Expr::Const(Value::Text(p)) => (regex_prefix(p)?, false),
                _ => return None,
            }
        }
        _ => return None,
    };
    (!prefix.is_empty()).then_some((prefix, exact))
}

/// The characters of a LIKE pattern before its first wildcard (`\`
/// escapes the next character) and whether there is no wildcard at all.
fn like_prefix(p: &str) -> (String, bool) {
    let mut out = String::new();
    let mut chars = p.chars();
    while let Some(c) = chars.next() {
        match c {
            '%' | '_' => return (out, false),
            '\\' => match chars.next() {
                Some(n) => out.push(n),
                // A trailing escape is an error when the pattern is used.
                None => return (String::new(), false),
            },
            c => out.push(c),
        }
    }
    (out, true)
}

/// The literal characters after a leading `^` of a regular expression, up
/// to its first metacharacter; a quantifier after the last one makes that
/// one optional, so it is dropped. None for a pattern with an alternation
/// anywhere (`^ab|cd` matches rows not starting with `ab`).
fn regex_prefix(p: &str) -> Option<String> {
    let rest = p.strip_prefix('^')?;
    if p.contains('|') {
        return None;
    }
    let mut out = String::new();
    for c in rest.chars() {
        match c {
            '*' | '+' | '?' | '{' => {
                out.pop();
                break;
            }
            '.' | '[' | ']' | '(' | ')' | '}' | '^' | '$' | '\\' => break,
            c => out.push(c),
        }
    }
    Some(out)
}

/// The least string greater than every string starting with `s` (in byte
/// order, which for UTF-8 is code point order): `s` with its last
/// character incremented, after dropping trailing characters that have no
/// successor. None when there is none.
pub(crate) fn text_successor(s: &str) -> Option<String> {
    let mut chars: Vec<char> = s.chars().collect();
    while let Some(last) = chars.pop() {
        let next = (last as u32 + 1..=char::MAX as u32).find_map(char::from_u32);
        if let Some(n) = next {
            chars.push(n);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

/// Lower and upper bounds on `col` among the conjuncts; returns the score.
fn range_keys(
    cand: &Candidate<'_>,
    (key, ty, name): (&Expr, DataType, &str),
    conj: &[Expr],
    keys: &mut IndexKeys,
    used: &mut Vec<usize>,
) -> usize {
    let mut score = 0;
    for (i, e) in conj.iter().enumerate() {
        let Some((op, v)) = key_cmp(e, key) else {
            continue;
        };
        let slot = match op {
            Cmp::Gt | Cmp::Ge if keys.lo.is_none() => &mut keys.lo,
            Cmp::Lt | Cmp::Le if keys.hi.is_none() => &mut keys.hi,
            _ => continue,
        };
        *slot = Some((
            key_value(v.clone(), cand, ty),
            matches!(op, Cmp::Ge | Cmp::Le),
        ));
        keys.display.push(format!(
            "{name} {} {}",
            op.symbol(),
            crate::ir::show(v, cand.table)
        ));
        used.push(i);
        score += 3;
    }
    // A range bounded on one side stops before the key's NULLs on the
    // other, wherever the key's order puts them (the executor's
    // `key_range`), so the condition is all in the index (`x >= 1` never
    // returns a NULL x).
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
        // Computed indexes have no plain first column.
        let Some(&first) = idx.columns.first() else {
            continue;
        };
        let ty = table.columns[first].ty;
        if !indexable_type(ty) || idx.key_opt(0).foreign_class(ty) {
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
                in_array: None,
                lo: None,
                hi: None,
                display: vec![format!("{} = (outer)", table.columns[first].name)],
                gin: Vec::new(),
                gin_implied: Vec::new(),
                gin_predicate: Vec::new(),
            };
            return Some((idx.clone(), keys));
        }
    }
    None
}

/// ORDER BY served by an index instead of a sort: the scan under the sort
/// (`plan`, a table scan perhaps under a filter) becomes an index scan
/// delivering rows in the sort keys' order, forward or backward. An index
/// scan already chosen for the WHERE keeps its keys when the sort keys
/// follow its equality prefix (columns the prefix fixes may appear among
/// them anywhere); a sequential scan becomes a full index scan only under
/// a LIMIT (`limited`; without one reading everything in index order costs
/// more than a sort, as PostgreSQL's cost model also finds). Each index
/// key sorts as declared (ASC NULLS LAST unless CREATE INDEX said
/// otherwise): every sort key must ask for its key's order (a forward
/// scan) or every one its exact reverse (backward), so `(a, b DESC)`
/// serves `ORDER BY a, b DESC` and `ORDER BY a DESC, b`. Returns the
/// plan unchanged (`Err`) when no index serves.
pub(crate) fn index_ordered(
    catalog: &nestor_catalog::Catalog,
    plan: Plan,
    sort: &[SortKey],
    limited: bool,
) -> Result<Plan, Plan> {
    match plan {
        Plan::Filter { input, pred } => match index_ordered(catalog, *input, sort, limited) {
            Ok(p) => Ok(Plan::Filter {
                input: Box::new(p),
                pred,
            }),
            Err(p) => Err(Plan::Filter {
                input: Box::new(p),
                pred,
            }),
        },
        Plan::IndexScan {
            table,
            alias,
            index,
            keys,
            filter,
            cols,
            order: IndexOrder::Unordered,
        } if keys.in_list.is_none() && keys.in_array.is_none() => {
            let cands = candidates(catalog, &table);
            let order = cands
                .iter()
                .find(|c| c.def.oid == index.oid)
                .and_then(|c| order_of(c, keys.eq.len(), sort));
            let (index, order) = match order {
                Some(o) => (index, Some(o)),
                None => match same_prefix_ordered(&cands, &index, &keys, sort) {
                    Some((other, o)) => (other, Some(o)),
                    None => (index, None),
                },
            };
            let p = Plan::IndexScan {
                order: order.unwrap_or(IndexOrder::Unordered),
                table,
                alias,
                index,
                keys,
                filter,
                cols,
            };
            if order.is_some() {
                Ok(p)
            } else {
                Err(p)
            }
        }
        Plan::SeqScan {
            table,
            alias,
            filter,
            cols: None,
            late: None,
        } if limited => {
            // A partial index only when the filter implies its predicate
            // (the rows outside it are not in the index).
            let conj = filter.clone().map(conjuncts).unwrap_or_default();
            let found = candidates(catalog, &table).iter().find_map(|c| {
                if !crate::select::index_expr::implied(&c.predicate, &conj) {
                    return None;
                }
                order_of(c, 0, sort).map(|o| (c.def.clone(), o))
            });
            let Some((index, order)) = found else {
                return Err(Plan::SeqScan {
                    table,
                    alias,
                    filter,
                    cols: None,
                    late: None,
                });
            };
            Ok(Plan::IndexScan {
                table,
                alias,
                index,
                keys: IndexKeys {
                    eq: Vec::new(),
                    in_list: None,
                    in_array: None,
                    lo: None,
                    hi: None,
                    display: Vec::new(),
                    gin: Vec::new(),
                    gin_implied: Vec::new(),
                    gin_predicate: Vec::new(),
                },
                filter,
                cols: None,
                order,
            })
        }
        p => Err(p),
    }
}

/// Another plain btree index whose first columns are those the
/// equalities of `keys` fix on `index`, and that delivers `sort`'s order
/// after them (`WHERE a = 1 ORDER BY b DESC` with indexes on `(a)` and
/// `(a, b DESC)`): the same lookup in the order the sort wants, as
/// PostgreSQL's pathkeys pick it. Not for a range or a unique index the
/// equalities fix whole (one row at most: nothing to order).
fn same_prefix_ordered(
    cands: &[Candidate<'_>],
    index: &nestor_catalog::IndexDef,
    keys: &IndexKeys,
    sort: &[SortKey],
) -> Option<(nestor_catalog::IndexDef, IndexOrder)> {
    let fixed = keys.eq.len();
    let plain_btree = |d: &nestor_catalog::IndexDef| {
        d.exprs.is_none() && d.method == nestor_catalog::AccessMethod::Btree
    };
    if fixed == 0
        || keys.lo.is_some()
        || keys.hi.is_some()
        || !plain_btree(index)
        || (index.unique && fixed == index.columns.len())
        || index.columns.len() < fixed
    {
        return None;
    }
    cands.iter().find_map(|c| {
        let same_prefix = c.def.oid != index.oid
            && plain_btree(c.def)
            && c.predicate.is_empty()
            && c.def.columns.get(..fixed) == Some(&index.columns[..fixed]);
        if !same_prefix {
            return None;
        }
        order_of(c, fixed, sort).map(|o| (c.def.clone(), o))
    })
}

/// The direction in which index `cand` delivers rows in `sort`'s order
/// (sort keys equal to its key columns or expressions, `ORDER BY
/// lower(b)`), given that its first `fixed` keys are fixed by equalities;
/// None if it does not.
fn order_of(cand: &Candidate<'_>, fixed: usize, sort: &[SortKey]) -> Option<IndexOrder> {
    if cand.def.method == nestor_catalog::AccessMethod::Gin {
        return None; // its entries are keys of values, in no row order
    }
    let keys = &cand.keys;
    let mut pos = fixed;
    let mut dir = None;
    for k in sort {
        if keys.iter().take(fixed).any(|(e, ..)| *e == k.expr) {
            continue;
        }
        // A hash index's entries have no order to offer beyond the keys
        // its equalities fix.
        match keys.get(pos) {
            Some((e, ty, _)) if *e == k.expr && sorts_as_keys(*ty) && !hashed(cand.def) => {}
            _ => return None,
        }
        // A key under another collation or another family's class
        // orders by other operators than ORDER BY's (PostgreSQL's
        // pathkeys do not match either); varchar_ops is text_ops' family.
        let opt = cand.def.key_opt(pos);
        if opt.collation.is_some() || opt.opclass.as_deref().is_some_and(|c| c != "varchar_ops") {
            return None;
        }
        // Forward the entries come in the key's declared order, backward
        // in its exact reverse.
        let d = if (k.desc, k.nulls_first) == (opt.desc, opt.nulls_first) {
            IndexOrder::Forward
        } else if (k.desc, k.nulls_first) == (!opt.desc, !opt.nulls_first) {
            IndexOrder::Backward
        } else {
            return None;
        };
        if dir.is_some_and(|x| x != d) {
            return None;
        }
        dir = Some(d);
        pos += 1;
    }
    Some(dir.unwrap_or(IndexOrder::Forward))
}

/// Types whose index key order (byte order of the sortable encoding) is
/// their ORDER BY order (jsonb's keys are its btree order,
/// `nestor_types::jsonb_order`). Not intervals (ORDER BY compares spans),
/// character(n) (trailing blanks), floats and numerics (not indexable
/// here).
fn sorts_as_keys(t: DataType) -> bool {
    t.is_integer()
        || matches!(
            t,
            DataType::Bool
                | DataType::Text
                | DataType::Varchar(_)
                | DataType::Date
                | DataType::Timestamp(_)
                | DataType::TimestampTz(_)
                | DataType::Time(_)
                | DataType::TimeTz(_)
                | DataType::Money
                | DataType::Uuid
                | DataType::Jsonb
                | DataType::PgLsn
                | DataType::Bit(_)
                | DataType::VarBit(_)
                | DataType::Oid
        )
}
