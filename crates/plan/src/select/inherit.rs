//! Reading an inheritance tree: `FROM parent` (or `parent*`) reads the
//! parent's rows and every descendant's, `FROM ONLY parent` the parent's.
//!
//! The tree is resolved here, at plan time, from the catalog's parent
//! links (`Catalog::descendants`); a table nobody inherits from gets the
//! ordinary table leaf, so its scans do no extra work. A table with
//! children becomes an Append of one scan per member, each projected onto
//! the parent's row layout — the parent's columns matched by name in the
//! member (a member has every column of its ancestors, with the same
//! type), then the member's system columns — followed by one more hidden
//! column, `tableoid`, the member's OID as a constant:
//!
//! ```text
//!   parent(a, b)   child(a, b, c) INHERITS (parent)
//!   FROM parent  ->  Append
//!                      Project [a b | ctid xmin xmax | 16384]  SeqScan parent
//!                      Project [a b | ctid xmin xmax | 16390]  SeqScan child
//!   row:   a  b  ctid- xmin- xmax- tableoid-     (- hidden from `*`)
//! ```
//!
//! The leaf is a fixed plan (`From::Other`): conditions on it filter the
//! Append's rows rather than choosing an index per member — except for a
//! partitioned table (`narrow_family`): its partitioned members hold no
//! rows and are left out, partitions whose bounds cannot hold `key =
//! constant` are pruned, and the conditions go into each remaining
//! partition's scan, where an index may serve them. SELECT ... FOR
//! UPDATE/SHARE of an inheritance tree locks each row in the member it
//! comes from (`lock_members`: the row's `tableoid` names it); of a
//! partitioned table it is 0A000 (`family_at` finds the tree). A plain
//! table's `tableoid` is a constant the
//! binder supplies (`Binder::resolve`), so its layout has no such column.

use super::*;

/// attnum of the `tableoid` system column (PostgreSQL's
/// TableOidAttributeNumber).
pub(crate) const TABLEOID_ATTNUM: i16 = -6;

/// The members of `t`'s inheritance tree when the reference includes
/// descendants and there are some (None: read `t` as a plain table).
pub(crate) fn family(b: &Binder, t: &Arc<TableDef>, inh: bool) -> Option<Vec<Arc<TableDef>>> {
    if !inh {
        return None;
    }
    let members = b.catalog.descendants(t);
    (members.len() > 1).then_some(members)
}

/// Add the scope of `parent`'s tree (its columns, its system columns and
/// `tableoid`) and return its leaf: the Append of its members.
pub(crate) fn add_family(
    parent: &Arc<TableDef>,
    members: &[Arc<TableDef>],
    alias: &str,
    colnames: &[String],
    offset: &mut usize,
    scope: &mut Scope,
) -> From {
    let mut sub = Scope::default();
    add_table(parent.clone(), alias, colnames, &mut 0, &mut sub);
    sub.cols.push(ScopeCol {
        perm: None,
        rel: alias.to_string(),
        name: "tableoid".to_string(),
        ty: DataType::Oid,
        hidden: true,
        table_oid: parent.oid.0,
        attnum: TABLEOID_ATTNUM,
        merged: false,
        scalar_fn: false,
        subst: None,
        using_cast: None,
    });
    let width = sub.cols.len();
    scope.cols.extend(sub.cols);
    let inputs = members
        .iter()
        .map(|m| member_scan(parent, m, alias))
        .collect();
    let f = From::Other {
        plan: Plan::Append { inputs },
        offset: *offset,
        width,
    };
    *offset += width;
    debug_assert_eq!(scope.cols.len(), *offset, "scope and row layout agree");
    f
}

/// One member's scan, projected onto the parent's row layout.
fn member_scan(parent: &TableDef, m: &Arc<TableDef>, alias: &str) -> Plan {
    let mut exprs: Vec<Expr> = parent
        .columns
        .iter()
        .map(|c| match m.column_index(&c.name) {
            Some(i) if !c.dropped => Expr::Col(i),
            _ => Expr::Const(Value::Null),
        })
        .collect();
    let n = m.columns.len();
    exprs.extend((0..SYS_COLS).map(|k| Expr::Col(n + k)));
    exprs.push(Expr::Const(Value::Int8(i64::from(m.oid.0))));
    Plan::Project {
        input: Box::new(Plan::SeqScan {
            table: m.clone(),
            alias: alias.to_string(),
            filter: None,
            cols: None,
            late: None,
        }),
        exprs,
    }
}

/// The alias and root OID of the inheritance tree whose leaf spans row positions
/// `offset..offset + width` of the current level, if that leaf is one
/// (its `tableoid` column is what marks it).
pub(crate) fn family_at(b: &Binder, offset: usize, width: usize) -> Option<(String, u32)> {
    let scope = b.scopes.last()?;
    scope
        .cols
        .get(offset..offset + width)?
        .iter()
        .find(|c| c.hidden && c.attnum == TABLEOID_ATTNUM)
        .map(|c| (c.rel.clone(), c.table_oid))
}

/// The members of `root`'s tree with the position of each of `root`'s
/// columns in them, for locking a row of the tree (`LockTarget`).
pub(crate) fn lock_members(
    b: &Binder,
    root: &Arc<TableDef>,
) -> Vec<(Arc<TableDef>, Vec<Option<usize>>)> {
    b.catalog
        .descendants(root)
        .into_iter()
        .map(|m| {
            let map = root
                .columns
                .iter()
                .map(|c| (!c.dropped).then(|| m.column_index(&c.name)).flatten())
                .collect();
            (m, map)
        })
        .collect()
}

/// The table a member's scan reads (`member_scan`'s shape).
fn member_table(p: &Plan) -> Option<&Arc<TableDef>> {
    match p {
        Plan::Project { input, .. } => match input.as_ref() {
            Plan::SeqScan { table, .. } => Some(table),
            _ => None,
        },
        _ => None,
    }
}

/// The conditions `conj` over `root`'s data columns, over member `m`'s
/// row instead: each column found by name in `m` (a partition may order
/// its columns differently or have dropped ones). None when one is
/// missing.
fn conds_for(root: &TableDef, m: &TableDef, conj: &[Expr]) -> Option<Vec<Expr>> {
    let map: Vec<Option<usize>> = root
        .columns
        .iter()
        .map(|c| (!c.dropped).then(|| m.column_index(&c.name)).flatten())
        .collect();
    let mapped = |e: &Expr| {
        e.columns()
            .iter()
            .all(|&c| map.get(c).copied().flatten().is_some())
    };
    if !conj.iter().all(mapped) {
        return None;
    }
    let out = conj
        .iter()
        .map(|e| {
            e.clone().rewrite(&mut |x| {
                Ok(match x {
                    Expr::Col(c) => map.get(*c).copied().flatten().map(Expr::Col),
                    _ => None,
                })
            })
        })
        .collect::<Result<Vec<_>, _>>();
    out.ok()
}

/// A partitioned table's Append narrowed by the conditions on it (`conj`,
/// over its row): pruned to the leaves that may hold rows matching
/// `key = constant` (`partition::surviving`), and with the conditions
/// pushed into each leaf's scan, over the leaf's own columns, when they
/// read data columns only. Any other plan is left as it is.
/// Returns the plan and the conditions still to apply above it.
pub(crate) fn narrow_family(b: &mut Binder, plan: Plan, conj: Vec<Expr>) -> (Plan, Vec<Expr>) {
    let Plan::Append { inputs } = plan else {
        return (plan, conj);
    };
    let root = match inputs.first().and_then(member_table) {
        Some(t) if t.partition_key.is_some() => t.clone(),
        _ => return (Plan::Append { inputs }, conj),
    };
    let eq = crate::select::partition::eq_consts(&conj, 0, root.columns.len());
    // The leaves in PostgreSQL's order: bound order, a partitioned
    // partition's leaves in its place.
    let keep = crate::select::partition::surviving(b.catalog, b.eval, &root, &eq);
    let mut slots: Vec<Option<Plan>> = inputs.into_iter().map(Some).collect();
    let mut kept: Vec<Plan> = Vec::with_capacity(keep.len());
    for oid in &keep {
        let at = slots.iter().position(|p| {
            p.as_ref()
                .and_then(member_table)
                .is_some_and(|t| t.oid == *oid)
        });
        if let Some(p) = at.and_then(|i| slots[i].take()) {
            kept.push(p);
        }
    }
    if kept.is_empty() {
        // Nothing can match: the root's own (empty) scan stands for it.
        kept.push(member_scan(&root, &root, &root.name));
    }
    let n = root.columns.len();
    let readable = !conj.is_empty()
        && conj
            .iter()
            .all(|e| e.columns().iter().all(|&c| c < n) && !e.has_correlated_subquery());
    // Each leaf's conditions over its own row (None: not pushable).
    let per_leaf: Option<Vec<Vec<Expr>>> = if readable {
        kept.iter()
            .map(|p| member_table(p).and_then(|t| conds_for(&root, t, &conj)))
            .collect()
    } else {
        None
    };
    let Some(per_leaf) = per_leaf else {
        return (append_of(kept), conj);
    };
    let inputs = kept
        .into_iter()
        .zip(per_leaf)
        .map(|(p, conds)| match p {
            Plan::Project { input, exprs } => match *input {
                Plan::SeqScan { table, alias, .. } => Plan::Project {
                    input: Box::new(super::access::table_scan(b, table, alias, conds, 0, None)),
                    exprs,
                },
                other => Plan::Project {
                    input: Box::new(other),
                    exprs,
                },
            },
            other => other,
        })
        .collect();
    (append_of(inputs), Vec::new())
}

/// An Append of `inputs`, or the one input alone (as PostgreSQL drops a
/// single-child Append).
fn append_of(mut inputs: Vec<Plan>) -> Plan {
    if inputs.len() == 1 {
        if let Some(p) = inputs.pop() {
            return p;
        }
    }
    Plan::Append { inputs }
}
