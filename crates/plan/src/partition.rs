//! Declarative partitioning in plans: routing a row written into a
//! partitioned table to its leaf, the partition constraint of a row
//! written into a partition, and pruning the partitions a read need not
//! scan.
//!
//! The catalog holds a partitioned table's key and each partition's bound
//! (`nestor_catalog::partition`). At plan time an INSERT, COPY or UPDATE
//! whose target is partitioned gets a [`Routing`]: the tree of bounds down
//! to the leaves, each leaf with its CHECK constraints bound and the map
//! from the target's column positions to its own (a partition attached
//! with ATTACH PARTITION may order its columns differently). The executor
//! computes the key from the row in the target's layout and walks down:
//!
//! ```text
//!   p RANGE (a): p1 [1,10)  p2 [10,20) LIST (b): p2x IN ('x')  p2d DEFAULT
//!   row (15, 'y')  ->  p: 15 in [10,20) -> p2: 'y' no list -> default p2d
//!   row (25, 'y')  ->  p: no bound holds 25, no default
//!                      23514 no partition of relation "p" found for row
//!                      DETAIL: Partition key of the failing row contains (a) = (25).
//! ```
//!
//! A row written into a partition directly (or into a partitioned table
//! that is itself a partition) is checked against its [`PartCheck`]: its
//! bound within its parent, then its parent's within the grandparent, up
//! to the tree's root (a DEFAULT bound: no sibling's bound holds the key).
//! An UPDATE through a partitioned table checks the new row against the
//! leaf's constraint below the named table; a row that fails it moves (the
//! executor deletes it and routes the new version from the named table).
//!
//! Pruning: a scan of a partitioned table whose WHERE clause has
//! `key = constant` conjuncts for the whole key of a level keeps only the
//! partitions whose bound may hold that key (`surviving`); everything else
//! reads every partition, the filter deciding. Left out: pruning on ranges
//! and at run time (parameters), partition-wise joins and aggregates.

use std::sync::Arc;

use nestor_catalog::partition::PartitionBound;
use nestor_catalog::{Catalog, TableDef};
use nestor_common::{DbError, RelId, SqlState};
use nestor_types::{EvalCtx, Value};

use crate::ir::BoundCheck;
use crate::pg_catalog::quote_ident;
use crate::valops;

/// One level of a partition constraint: the parent's key columns (as
/// positions in the checked row), the partition's bound and, for a
/// DEFAULT partition, its siblings' bounds.
#[derive(Clone, Debug)]
struct Level {
    key: Vec<usize>,
    bound: PartitionBound,
    siblings: Vec<PartitionBound>,
}

impl Level {
    fn holds(&self, row: &[Value]) -> bool {
        let key: Vec<Value> = self.key.iter().map(|&k| row[k].clone()).collect();
        match &self.bound {
            PartitionBound::Default => !self.siblings.iter().any(|s| s.contains(&key)),
            b => b.contains(&key),
        }
    }
}

/// The partition constraint of a table (its bound and its ancestors').
#[derive(Clone, Debug)]
pub struct PartCheck {
    levels: Vec<Level>,
}

impl PartCheck {
    /// The constraint of `t` over its own row layout, from its bound up to
    /// (not including) the bound of ancestor `stop` (the whole chain when
    /// None). None when `t` is no partition, or `t` is `stop`.
    pub fn of(catalog: &Catalog, t: &TableDef, stop: Option<RelId>) -> Option<PartCheck> {
        let mut levels = Vec::new();
        let mut cur: Option<Arc<TableDef>> = None;
        loop {
            let c: &TableDef = cur.as_deref().unwrap_or(t);
            if Some(c.oid) == stop {
                break;
            }
            let (Some(bound), Some(&parent)) = (&c.partition_bound, c.inherits.first()) else {
                break;
            };
            let Some(parent) = catalog.table_by_oid(parent) else {
                break;
            };
            let level = level_of(catalog, t, c.oid, bound, &parent)?;
            levels.push(level);
            cur = Some(parent);
        }
        (!levels.is_empty()).then_some(PartCheck { levels })
    }

    /// Whether `row` (in the checked table's layout) satisfies it.
    pub fn holds(&self, row: &[Value]) -> bool {
        self.levels.iter().all(|l| l.holds(row))
    }
}

/// The level of partition `member` (bound `bound`) in `parent`, its key
/// columns found by name in table `t`.
fn level_of(
    catalog: &Catalog,
    t: &TableDef,
    member: RelId,
    bound: &PartitionBound,
    parent: &TableDef,
) -> Option<Level> {
    let pk = parent.partition_key.as_ref()?;
    let key = pk
        .columns
        .iter()
        .map(|&k| t.column_index(&parent.columns[k].name))
        .collect::<Option<Vec<usize>>>()?;
    let siblings = if *bound == PartitionBound::Default {
        catalog
            .children(parent.oid)
            .iter()
            .filter(|s| s.oid != member)
            .filter_map(|s| s.partition_bound.clone())
            .collect()
    } else {
        Vec::new()
    };
    Some(Level {
        key,
        bound: bound.clone(),
        siblings,
    })
}

/// The 23514 of a row outside a partition's constraint.
pub fn violation(table: &TableDef, row: &[Value], ec: &EvalCtx) -> DbError {
    let vals: Vec<String> = table
        .live_columns()
        .map(|(i, _)| valops::render(&row[i], ec))
        .collect();
    DbError::new(
        SqlState::CheckViolation,
        format!(
            "new row for relation \"{}\" violates partition constraint",
            table.name
        ),
    )
    .with_detail(format!("Failing row contains ({}).", vals.join(", ")))
    .with_table(table.name.as_str())
    .with_schema(table.storage.schema())
}

/// A leaf a routed row is written into.
pub struct Leaf {
    pub table: Arc<TableDef>,
    /// For each of the leaf's columns, the routed table's column it takes
    /// (None: the layouts are the same).
    pub map: Option<Vec<Option<usize>>>,
    pub checks: Vec<BoundCheck>,
}

impl Leaf {
    /// `row` (in the routed table's layout) in the leaf's layout.
    pub fn row(&self, row: Vec<Value>) -> Vec<Value> {
        match &self.map {
            None => row,
            Some(m) => m
                .iter()
                .map(|c| c.map_or(Value::Null, |c| row[c].clone()))
                .collect(),
        }
    }
}

enum Target {
    Leaf(usize),
    Node(Box<Node>),
}

/// A partitioned table in the routing tree: its key (positions in the
/// routed row), its partitions in bound order and its default.
struct Node {
    table: Arc<TableDef>,
    key: Vec<usize>,
    parts: Vec<(PartitionBound, Target)>,
    default: Option<Target>,
}

/// Binds a leaf's CHECK constraints (`modify::bind_checks`).
pub type CheckBinder<'a> = dyn Fn(&Arc<TableDef>) -> Result<Vec<BoundCheck>, DbError> + 'a;

/// How rows written into a partitioned table reach their leaves.
pub struct Routing {
    pub root: Arc<TableDef>,
    node: Node,
    pub leaves: Vec<Leaf>,
    /// The root's own partition constraint, when it is a partition too.
    pub root_check: Option<PartCheck>,
}

impl std::fmt::Debug for Routing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Routing({} -> {} leaves)",
            self.root.name,
            self.leaves.len()
        )
    }
}

impl Routing {
    /// The routing of partitioned table `root` (None for any other).
    pub fn build(
        catalog: &Catalog,
        root: &Arc<TableDef>,
        checks: &CheckBinder<'_>,
    ) -> Result<Option<Routing>, DbError> {
        if root.partition_key.is_none() {
            return Ok(None);
        }
        let mut leaves = Vec::new();
        let node = build_node(catalog, checks, root, root, &mut leaves)?;
        Ok(Some(Routing {
            root: root.clone(),
            node,
            leaves,
            root_check: PartCheck::of(catalog, root, None),
        }))
    }

    /// The leaf of `row` (in the root's layout): 23514 when none holds it.
    pub fn route(&self, row: &[Value], ec: &EvalCtx) -> Result<usize, DbError> {
        let mut node = &self.node;
        loop {
            let key: Vec<Value> = node.key.iter().map(|&k| row[k].clone()).collect();
            let hit = node
                .parts
                .iter()
                .find(|(b, _)| b.contains(&key))
                .map(|(_, t)| t)
                .or(node.default.as_ref());
            match hit {
                Some(Target::Leaf(i)) => return Ok(*i),
                Some(Target::Node(n)) => node = n,
                None => return Err(no_partition(node, &key, ec)),
            }
        }
    }

    /// Every table of the tree below the root (for locking).
    pub fn tables(&self) -> Vec<Arc<TableDef>> {
        let mut out = Vec::new();
        collect_tables(&self.node, &self.leaves, &mut out);
        out
    }
}

fn collect_tables(n: &Node, leaves: &[Leaf], out: &mut Vec<Arc<TableDef>>) {
    let targets = n.parts.iter().map(|(_, t)| t).chain(n.default.as_ref());
    for t in targets {
        match t {
            Target::Leaf(i) => out.push(leaves[*i].table.clone()),
            Target::Node(c) => {
                out.push(c.table.clone());
                collect_tables(c, leaves, out);
            }
        }
    }
}

fn no_partition(node: &Node, key: &[Value], ec: &EvalCtx) -> DbError {
    let pk = node.table.partition_key.as_ref();
    let names: Vec<String> = pk
        .map(|k| {
            k.columns
                .iter()
                .map(|&c| quote_ident(&node.table.columns[c].name))
                .collect()
        })
        .unwrap_or_default();
    let vals: Vec<String> = key.iter().map(|v| valops::render(v, ec)).collect();
    DbError::new(
        SqlState::CheckViolation,
        format!(
            "no partition of relation \"{}\" found for row",
            node.table.name
        ),
    )
    .with_detail(format!(
        "Partition key of the failing row contains ({}) = ({}).",
        names.join(", "),
        vals.join(", ")
    ))
    .with_table(node.table.name.as_str())
    .with_schema(node.table.storage.schema())
}

fn build_node(
    catalog: &Catalog,
    checks: &CheckBinder<'_>,
    root: &Arc<TableDef>,
    t: &Arc<TableDef>,
    leaves: &mut Vec<Leaf>,
) -> Result<Node, DbError> {
    let pk = t
        .partition_key
        .as_ref()
        .ok_or_else(|| DbError::internal("routing through a table that is not partitioned"))?;
    let key = pk
        .columns
        .iter()
        .map(|&k| root.column_index(&t.columns[k].name))
        .collect::<Option<Vec<usize>>>()
        .ok_or_else(|| DbError::internal("partition key column missing in the routed table"))?;
    let mut node = Node {
        table: t.clone(),
        key,
        parts: Vec::new(),
        default: None,
    };
    for c in catalog.children(t.oid) {
        let Some(bound) = c.partition_bound.clone() else {
            continue;
        };
        let target = if c.partition_key.is_some() {
            Target::Node(Box::new(build_node(catalog, checks, root, &c, leaves)?))
        } else {
            leaves.push(leaf(checks, root, &c)?);
            Target::Leaf(leaves.len() - 1)
        };
        if bound == PartitionBound::Default {
            node.default = Some(target);
        } else {
            node.parts.push((bound, target));
        }
    }
    Ok(node)
}

fn leaf(checks: &CheckBinder<'_>, root: &TableDef, t: &Arc<TableDef>) -> Result<Leaf, DbError> {
    let same = t.columns.len() == root.columns.len()
        && t.columns
            .iter()
            .zip(&root.columns)
            .all(|(a, b)| a.name == b.name && a.dropped == b.dropped && !a.dropped);
    let map = (!same).then(|| {
        t.columns
            .iter()
            .map(|c| {
                if c.dropped {
                    None
                } else {
                    root.column_index(&c.name)
                }
            })
            .collect()
    });
    Ok(Leaf {
        table: t.clone(),
        map,
        checks: checks(t)?,
    })
}

/// The leaves of partitioned table `root` a read with the equalities
/// `eq` (column position in `root`'s row = non-NULL constant) must scan:
/// at each level whose whole key they give, only the partition whose
/// bound holds that key (or the default); elsewhere every partition.
pub fn surviving(catalog: &Catalog, root: &TableDef, eq: &[(usize, Value)]) -> Vec<RelId> {
    let mut out = Vec::new();
    walk(catalog, root, root, eq, &mut out);
    out
}

fn walk(
    catalog: &Catalog,
    root: &TableDef,
    t: &TableDef,
    eq: &[(usize, Value)],
    out: &mut Vec<RelId>,
) {
    let Some(pk) = &t.partition_key else {
        return;
    };
    let key: Option<Vec<Value>> = pk
        .columns
        .iter()
        .map(|&k| {
            let c = &t.columns[k];
            let pos = root.column_index(&c.name)?;
            eq.iter()
                .find(|(p, v)| *p == pos && same_kind(v, c.ty))
                .map(|(_, v)| v.clone())
        })
        .collect();
    let children = catalog.children(t.oid);
    let chosen: Vec<&Arc<TableDef>> = match &key {
        None => children.iter().collect(),
        Some(key) => children
            .iter()
            .find(|c| c.partition_bound.as_ref().is_some_and(|b| b.contains(key)))
            .or_else(|| {
                children
                    .iter()
                    .find(|c| c.partition_bound == Some(PartitionBound::Default))
            })
            .into_iter()
            .collect(),
    };
    for c in chosen {
        if c.partition_key.is_some() {
            walk(catalog, root, c, eq, out);
        } else {
            out.push(c.oid);
        }
    }
}

/// Whether a constant compares with a key column of type `ty` as the
/// bounds do (same type, or both integers).
fn same_kind(v: &Value, ty: nestor_types::datatype::DataType) -> bool {
    let vt = v.data_type();
    vt == ty.base()
        || (vt.is_integer() && ty.is_integer())
        || (vt == nestor_types::datatype::DataType::Text && ty.is_string())
}

/// The `column = constant` conjuncts of `conj` on columns `lo..lo + n`
/// (as positions from `lo`), NULL constants left out.
pub fn eq_consts(conj: &[crate::ir::Expr], lo: usize, n: usize) -> Vec<(usize, Value)> {
    use crate::ir::Expr;
    conj.iter()
        .filter_map(|e| {
            let Expr::Cmp(crate::valops::Cmp::Eq, a, b) = e else {
                return None;
            };
            match (a.as_ref(), b.as_ref()) {
                (Expr::Col(c), Expr::Const(v)) | (Expr::Const(v), Expr::Col(c))
                    if *c >= lo && *c < lo + n && !v.is_null() =>
                {
                    Some((c - lo, v.clone()))
                }
                _ => None,
            }
        })
        .collect()
}
