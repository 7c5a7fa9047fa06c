//! GROUP BY GROUPING SETS / ROLLUP / CUBE, and GROUPING().
//!
//! The GROUP BY list expands to a list of grouping sets, each a set of
//! grouping expressions; the items of the list combine by cross product
//! (PostgreSQL's rule), so `GROUP BY a, ROLLUP (b, c)` is
//!
//! ```text
//!   {a} x {(b, c), (b), ()}  =  (a, b, c), (a, b), (a)
//! ```
//!
//! The distinct expressions of all sets are the aggregation's group
//! columns; each set is a list of positions in them. `Plan::GroupingSets`
//! aggregates the input once per set and emits, per group, the group
//! columns (NULL where the set lacks the expression), a bigint mask (bit i
//! set when group expression i is not in the set), then the aggregates.
//! `GROUPING(x, y)` reads the mask: the bits of x and y, x's the higher
//! (PostgreSQL's definition); with a plain GROUP BY it is 0.

use super::*;

/// At most this many grouping sets (PostgreSQL's limit).
const MAX_SETS: usize = 4096;

/// Grouping sets as lists of unbound expression nodes.
type NodeSets<'a> = Vec<Vec<&'a Node>>;

/// Whether the GROUP BY list uses grouping sets.
pub(super) fn has_grouping_sets(group_clause: &[Node]) -> bool {
    group_clause
        .iter()
        .any(|g| matches!(g.node, Some(NodeEnum::GroupingSet(_))))
}

/// The group expressions and the grouping sets (positions in them) of a
/// GROUP BY list with grouping sets.
pub(super) fn bind_grouping_sets(
    b: &mut Binder,
    group_clause: &[Node],
    targets: &[Target],
) -> Result<(Vec<Expr>, Vec<Vec<usize>>), DbError> {
    let mut sets: NodeSets = vec![Vec::new()];
    for item in group_clause {
        sets = cross(&sets, &item_sets(item)?)?;
    }
    let mut group: Vec<Expr> = Vec::new();
    let mut out = Vec::with_capacity(sets.len());
    for set in sets {
        let mut positions: Vec<usize> = Vec::with_capacity(set.len());
        for n in set {
            let e = bind_group_item(b, n, targets)?;
            let i = match group.iter().position(|g| *g == e) {
                Some(i) => i,
                None => {
                    group.push(e);
                    group.len() - 1
                }
            };
            if !positions.contains(&i) {
                positions.push(i);
            }
        }
        out.push(positions);
    }
    if group.len() > 64 {
        return Err(DbError::unsupported(
            "more than 64 distinct expressions in grouping sets",
        ));
    }
    Ok((group, out))
}

/// Every concatenation of a set of `a` with a set of `b`.
fn cross<'a>(a: &NodeSets<'a>, b: &NodeSets<'a>) -> Result<NodeSets<'a>, DbError> {
    if a.len().saturating_mul(b.len()) > MAX_SETS {
        return Err(too_many());
    }
    let mut out = Vec::with_capacity(a.len() * b.len());
    for x in a {
        for y in b {
            let mut s = x.clone();
            s.extend(y.iter().copied());
            out.push(s);
        }
    }
    Ok(out)
}

fn too_many() -> DbError {
    DbError::new(
        SqlState::StatementTooComplex,
        format!("too many grouping sets present (maximum {MAX_SETS})"),
    )
}

/// The expressions of one ROLLUP/CUBE element: `(a, b)` is both.
fn element(n: &Node) -> Vec<&Node> {
    match &n.node {
        Some(NodeEnum::RowExpr(r))
            if r.row_format == pb::CoercionForm::CoerceImplicitCast as i32 =>
        {
            r.args.iter().collect()
        }
        _ => vec![n],
    }
}

/// The grouping sets one GROUP BY item stands for.
fn item_sets(n: &Node) -> Result<NodeSets<'_>, DbError> {
    let Some(NodeEnum::GroupingSet(gs)) = &n.node else {
        return Ok(vec![element(n)]);
    };
    let elements: Vec<Vec<&Node>> = gs.content.iter().map(element).collect();
    Ok(match pb::GroupingSetKind::try_from(gs.kind) {
        Ok(pb::GroupingSetKind::GroupingSetEmpty) => vec![Vec::new()],
        Ok(pb::GroupingSetKind::GroupingSetSimple) => vec![elements.concat()],
        Ok(pb::GroupingSetKind::GroupingSetRollup) => (0..=elements.len())
            .rev()
            .map(|k| elements[..k].concat())
            .collect(),
        Ok(pb::GroupingSetKind::GroupingSetCube) => cube(&elements)?,
        Ok(pb::GroupingSetKind::GroupingSetSets) => {
            let mut out = Vec::new();
            for c in &gs.content {
                out.extend(item_sets(c)?);
                if out.len() > MAX_SETS {
                    return Err(too_many());
                }
            }
            out
        }
        _ => return Err(DbError::internal("unknown grouping set kind")),
    })
}

/// CUBE: every subset of the elements, the largest first.
fn cube<'a>(elements: &[Vec<&'a Node>]) -> Result<NodeSets<'a>, DbError> {
    let n = elements.len();
    if n > 12 {
        return Err(too_many());
    }
    let mut masks: Vec<u32> = (0..1u32 << n).collect();
    masks.sort_by_key(|m| std::cmp::Reverse(m.count_ones()));
    Ok(masks
        .into_iter()
        .map(|m| {
            (0..n)
                .filter(|i| m & (1 << (n - 1 - i)) != 0)
                .flat_map(|i| elements[i].iter().copied())
                .collect()
        })
        .collect())
}

/// GROUPING(args) after aggregation: the mask column read at the
/// arguments' group positions (`Expr::Grouping([mask, positions...])`),
/// or 0 without grouping sets. An argument must be a group expression.
pub(super) fn rewrite_grouping(
    args: &[Expr],
    group: &[Expr],
    mask_col: Option<usize>,
    src: (&str, &[Node]),
) -> Result<Expr, DbError> {
    let mut out = Vec::with_capacity(args.len() + 1);
    out.push(mask_col.map_or(Expr::Const(Value::Int8(0)), Expr::Col));
    for a in args {
        let Some(i) = group.iter().position(|g| g == a) else {
            return Err(err_at(
                DbError::new(
                    SqlState::GroupingError,
                    "arguments to GROUPING must be grouping expressions of the associated query level",
                ),
                src.0,
                grouping_arg_location(src.1),
            ));
        };
        out.push(Expr::Const(Value::Int4(i as i32)));
    }
    Ok(Expr::Grouping(out))
}

/// The location of the first GROUPING() argument in `nodes`.
fn grouping_arg_location(nodes: &[Node]) -> i32 {
    for n in nodes.iter().filter_map(|n| n.node.as_ref()) {
        for (r, ..) in n.nodes() {
            if let nestor_parser::NodeRef::GroupingFunc(g) = r {
                if let Some(a) = g.args.first().and_then(|a| a.node.as_ref()) {
                    return bind::expr_location(a);
                }
            }
        }
    }
    -1
}
