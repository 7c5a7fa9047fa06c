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
//! leaf's whole constraint; a row that fails it moves (the executor
//! deletes it and routes the new version from the named table, whose own
//! constraint, when it is a partition too, keeps the row in its subtree).
//!
//! Key expressions (`PARTITION BY RANGE ((a + 1), lower(b))`): a level's
//! key is a list of [`KeyCol`]s, each a column read straight from the row
//! or an expression bound here over the row of the table being routed or
//! checked (partitions share their parent's column names, so the stored
//! SQL binds against any table of the tree) and evaluated by the
//! executor through the [`KeyEval`] it passes in. A key of plain columns
//! evaluates nothing; a table that is neither partitioned nor a partition
//! gets no routing and no check at all (`modify::partition_write`).
//!
//! Hash keys hash each element as PostgreSQL's default hash operator
//! class does (`nestor_catalog::partition::row_hash`), unless the element
//! names a user operator class: then the level carries [`Hashers`], the
//! class's support function 2 bound as a call over the element's value
//! and the partition seed, evaluated through the same [`KeyEval`] and
//! combined by `row_hash_by`. A level without user classes has no
//! hashers and takes the old path.
//!
//! Pruning: a scan of a partitioned table whose WHERE clause has
//! `key = constant` conjuncts for the whole key of a level (a key
//! expression matching the conjunct's left side as bound) keeps only the
//! partitions whose bound may hold that key (`surviving`); everything else
//! reads every partition, the filter deciding (so does a level hashed by
//! a user operator class). Left out: pruning on ranges
//! and at run time (parameters), partition-wise joins and aggregates.

use std::sync::Arc;

use nestor_catalog::partition::{KeyPart, PartitionBound};
use nestor_catalog::{Catalog, TableDef};
use nestor_common::{DbError, RelId, SqlState};
use nestor_parser::pb;
use nestor_parser::NodeEnum;
use nestor_types::{EvalCtx, Value};

use crate::bind::AggCtx;
use crate::ir::{BoundCheck, Expr};
use crate::pg_catalog::quote_ident;
use crate::valops;

/// One element of a level's key as the executor reads it from a row.
#[derive(Clone, Debug, PartialEq)]
pub enum KeyCol {
    /// A column's position in the row.
    Col(usize),
    /// A key expression bound over the row.
    Expr(Expr),
}

/// The executor's evaluation of a bound key expression over a row.
pub type KeyEval<'a> = dyn FnMut(&Expr, &[Value]) -> Result<Value, DbError> + 'a;

/// The key of `row` under `key`.
fn key_values(key: &[KeyCol], row: &[Value], eval: &mut KeyEval) -> Result<Vec<Value>, DbError> {
    key.iter()
        .map(|k| match k {
            KeyCol::Col(c) => Ok(row.get(*c).cloned().unwrap_or(Value::Null)),
            KeyCol::Expr(e) => eval(e, row),
        })
        .collect()
}

/// The partition seed PostgreSQL passes to a hash support function.
const HASH_PARTITION_SEED: i64 = 0x7A5B_2236_7996_DCFD;

/// Per key element of a hash key naming user operator classes, the call
/// of the class's extended hash function (support function 2) over a
/// one-value row (`f($0, seed)`); None for an element of the type's
/// default class, hashed as PostgreSQL's built-in class does. A key
/// without user classes has none at all, so its levels pay nothing.
pub type Hashers = Vec<Option<Expr>>;

/// The [`Hashers`] of partitioned table `owner`'s key (None when it
/// names no user operator class).
pub fn bind_hashers(catalog: &Catalog, owner: &TableDef) -> Result<Option<Hashers>, DbError> {
    let Some(pk) = &owner.partition_key else {
        return Ok(None);
    };
    if !pk.has_user_opclass() {
        return Ok(None);
    }
    let mut out = Vec::with_capacity(pk.opclasses.len());
    for (i, oc) in pk.opclasses.iter().enumerate() {
        out.push(match oc {
            None => None,
            Some(oid) => Some(hasher(catalog, *oid, pk.part_type(i, &owner.columns))?),
        });
    }
    Ok(Some(out))
}

/// The call of user operator class `oid`'s support function 2.
fn hasher(
    catalog: &Catalog,
    oid: u32,
    ty: nestor_types::datatype::DataType,
) -> Result<Expr, DbError> {
    let class = catalog.opclass_by_oid(oid).ok_or_else(|| {
        DbError::internal(format!("cache lookup failed for operator class {oid}"))
    })?;
    let function = |p: &nestor_catalog::opclass::ProcMember| {
        catalog
            .functions(&p.name)
            .into_iter()
            .find(|f| f.oid.0 == p.func)
    };
    let def = class
        .procs
        .iter()
        .filter(|p| p.number == 2 && p.left == class.intype && p.right == class.intype)
        .find_map(function);
    let Some(def) = def else {
        let tname = nestor_types::datatype::DataType::from_oid(class.intype)
            .map_or_else(|| ty.to_string(), |t| t.to_string());
        return Err(DbError::new(
            SqlState::InvalidObjectDefinition,
            format!(
                "operator class \"{}\" of access method hash is missing support function 2 for type {tname}",
                class.name
            ),
        ));
    };
    Ok(Expr::UserFunc(
        crate::ir::UserFn(def),
        vec![Expr::Col(0), Expr::Const(Value::Int8(HASH_PARTITION_SEED))],
    ))
}

/// The row hash of `key` (PostgreSQL's compute_partition_hash_value):
/// NULLs skipped, each other value hashed by its element's hasher (a
/// user function, evaluated over the one-value row) or the built-in
/// hash; None when a value's type cannot be hashed.
pub fn key_hash(
    key: &[Value],
    hashers: &Hashers,
    eval: &mut KeyEval,
) -> Result<Option<u64>, DbError> {
    nestor_catalog::partition::row_hash_by(key, |i, v| {
        match hashers.get(i).and_then(Option::as_ref) {
            None => Ok(nestor_catalog::partition::hash_value(v)),
            Some(call) => match eval(call, std::slice::from_ref(v))? {
                Value::Int8(h) => Ok(Some(h as u64)),
                Value::Null => Err(DbError::new(
                    SqlState::NullValueNotAllowed,
                    "hash support function returned NULL",
                )),
                other => Err(DbError::internal(format!(
                    "hash support function returned {other:?}"
                ))),
            },
        }
    })
}

/// Which of `bounds` holds `key` under a level's hashers (None: compared
/// as the bounds compare values).
fn holding<'b, T>(
    mut bounds: impl Iterator<Item = (&'b PartitionBound, T)>,
    key: &[Value],
    hashers: Option<&Hashers>,
    eval: &mut KeyEval,
) -> Result<Option<T>, DbError> {
    let Some(h) = hashers else {
        return Ok(bounds.find(|(b, _)| b.contains(key)).map(|x| x.1));
    };
    let Some(hash) = key_hash(key, h, eval)? else {
        return Ok(None);
    };
    Ok(bounds.find(|(b, _)| b.holds_hash(hash)).map(|x| x.1))
}

/// The key of partitioned table `owner` over the row of table `t` (the
/// same table or one of its partitions, columns found by name); None
/// when `t` lacks a key column.
pub fn bind_key(
    catalog: &Catalog,
    ec: EvalCtx,
    owner: &TableDef,
    t: &TableDef,
) -> Result<Option<Vec<KeyCol>>, DbError> {
    let Some(pk) = &owner.partition_key else {
        return Ok(None);
    };
    let mut scope_table: Option<Arc<TableDef>> = None;
    let mut out = Vec::with_capacity(pk.parts.len());
    for p in &pk.parts {
        match p {
            KeyPart::Column(k) => match t.column_index(&owner.columns[*k].name) {
                Some(i) => out.push(KeyCol::Col(i)),
                None => return Ok(None),
            },
            KeyPart::Expr(x) => {
                let table = scope_table.get_or_insert_with(|| Arc::new(t.clone()));
                out.push(KeyCol::Expr(bind_key_expr(catalog, ec, table, &x.sql)?));
            }
        }
    }
    Ok(Some(out))
}

/// A stored key expression bound over `t`'s row.
pub fn bind_key_expr(
    catalog: &Catalog,
    ec: EvalCtx,
    t: &Arc<TableDef>,
    sql: &str,
) -> Result<Expr, DbError> {
    let node = nestor_parser::parse_expr(sql)?;
    let mut b = crate::select::row_binder(catalog, ec, sql, t);
    b.agg = AggCtx::NotAllowed("partition key expressions");
    Ok(b.bind(&node)?.0)
}

/// Whether a bound expression calls only immutable functions (what
/// PostgreSQL's contain_mutable_functions asks of a key expression, over
/// what Nestor knows of each call). A user-defined function counts as
/// declared (PostgreSQL would first inline a simple SQL function).
pub fn is_immutable(e: &Expr) -> bool {
    use crate::functions::Func;
    use nestor_types::functions::Volatility;
    let mut ok = true;
    e.walk(&mut |x| match x {
        Expr::Func(Func::Library(f), _) => ok &= f.volatility == Volatility::Immutable,
        Expr::Func(f, _) => ok &= !f.is_volatile(),
        Expr::UserFunc(f, _) => {
            ok &= f.0.volatility == nestor_catalog::Volatility::Immutable;
        }
        Expr::Param(_) | Expr::Outer { .. } => ok = false,
        _ => {}
    });
    ok
}

/// One level of a partition constraint: the parent's key (over the
/// checked row), the partition's bound and, for a DEFAULT partition, its
/// siblings' bounds.
#[derive(Clone, Debug)]
struct Level {
    key: Vec<KeyCol>,
    hashers: Option<Hashers>,
    bound: PartitionBound,
    siblings: Vec<PartitionBound>,
}

impl Level {
    fn holds(&self, row: &[Value], eval: &mut KeyEval) -> Result<bool, DbError> {
        let key = key_values(&self.key, row, eval)?;
        let h = self.hashers.as_ref();
        Ok(match &self.bound {
            PartitionBound::Default => {
                holding(self.siblings.iter().map(|s| (s, ())), &key, h, eval)?.is_none()
            }
            b => holding(std::iter::once((b, ())), &key, h, eval)?.is_some(),
        })
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
    pub fn of(
        catalog: &Catalog,
        ec: EvalCtx,
        t: &TableDef,
        stop: Option<RelId>,
    ) -> Result<Option<PartCheck>, DbError> {
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
            let Some(level) = level_of(catalog, ec, t, c.oid, bound, &parent)? else {
                return Ok(None);
            };
            levels.push(level);
            cur = Some(parent);
        }
        Ok((!levels.is_empty()).then_some(PartCheck { levels }))
    }

    /// Whether `row` (in the checked table's layout) satisfies it.
    pub fn holds(&self, row: &[Value], eval: &mut KeyEval) -> Result<bool, DbError> {
        for l in &self.levels {
            if !l.holds(row, eval)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// The level of partition `member` (bound `bound`) in `parent`, its key
/// bound over table `t`'s row.
fn level_of(
    catalog: &Catalog,
    ec: EvalCtx,
    t: &TableDef,
    member: RelId,
    bound: &PartitionBound,
    parent: &TableDef,
) -> Result<Option<Level>, DbError> {
    let Some(key) = bind_key(catalog, ec, parent, t)? else {
        return Ok(None);
    };
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
    Ok(Some(Level {
        key,
        hashers: bind_hashers(catalog, parent)?,
        bound: bound.clone(),
        siblings,
    }))
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

    /// A row in the leaf's layout back in the routed table's (`width`
    /// columns; those the leaf lacks NULL).
    pub fn back(&self, row: Vec<Value>, width: usize) -> Vec<Value> {
        let Some(m) = &self.map else {
            return row;
        };
        let mut out = vec![Value::Null; width];
        for (v, c) in row.into_iter().zip(m) {
            if let Some(c) = c {
                out[*c] = v;
            }
        }
        out
    }
}

enum Target {
    Leaf(usize),
    Node(Box<Node>),
}

/// A partitioned table in the routing tree: its key (over the routed
/// row), its partitions in bound order and its default.
struct Node {
    table: Arc<TableDef>,
    key: Vec<KeyCol>,
    hashers: Option<Hashers>,
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
        ec: EvalCtx,
        root: &Arc<TableDef>,
        checks: &CheckBinder<'_>,
    ) -> Result<Option<Routing>, DbError> {
        if root.partition_key.is_none() {
            return Ok(None);
        }
        let mut leaves = Vec::new();
        let node = build_node(catalog, ec, checks, root, root, &mut leaves)?;
        Ok(Some(Routing {
            root: root.clone(),
            node,
            leaves,
            root_check: PartCheck::of(catalog, ec, root, None)?,
        }))
    }

    /// The leaf of `row` (in the root's layout): 23514 when none holds it,
    /// whose DETAIL shows the key only when `shows_key` says the caller
    /// may read the table (PostgreSQL's ExecBuildSlotPartitionKeyDescription
    /// wants SELECT on it).
    pub fn route(
        &self,
        row: &[Value],
        ec: &EvalCtx,
        eval: &mut KeyEval,
        shows_key: &dyn Fn(&TableDef) -> bool,
    ) -> Result<usize, DbError> {
        let mut node = &self.node;
        loop {
            let key = key_values(&node.key, row, eval)?;
            let parts = node.parts.iter().map(|(b, t)| (b, t));
            let hit = holding(parts, &key, node.hashers.as_ref(), eval)?.or(node.default.as_ref());
            match hit {
                Some(Target::Leaf(i)) => return Ok(*i),
                Some(Target::Node(n)) => node = n,
                None => return Err(no_partition(node, &key, ec, shows_key(&node.table))),
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

/// A key's elements as PostgreSQL names them in messages: a column by
/// its name, an expression as ruleutils prints it (`(a + 1)`,
/// `lower(b)`).
pub fn key_names(t: &TableDef) -> Vec<String> {
    let Some(pk) = &t.partition_key else {
        return Vec::new();
    };
    pk.parts
        .iter()
        .map(|p| match p {
            KeyPart::Column(c) => quote_ident(&t.columns[*c].name),
            KeyPart::Expr(e) => expr_text(&e.sql),
        })
        .collect()
}

fn no_partition(node: &Node, key: &[Value], ec: &EvalCtx, show_key: bool) -> DbError {
    let e = DbError::new(
        SqlState::CheckViolation,
        format!(
            "no partition of relation \"{}\" found for row",
            node.table.name
        ),
    )
    .with_table(node.table.name.as_str())
    .with_schema(node.table.storage.schema());
    if !show_key {
        return e;
    }
    let names = key_names(&node.table);
    let vals: Vec<String> = key.iter().map(|v| valops::render(v, ec)).collect();
    e.with_detail(format!(
        "Partition key of the failing row contains ({}) = ({}).",
        names.join(", "),
        vals.join(", ")
    ))
}

fn build_node(
    catalog: &Catalog,
    ec: EvalCtx,
    checks: &CheckBinder<'_>,
    root: &Arc<TableDef>,
    t: &Arc<TableDef>,
    leaves: &mut Vec<Leaf>,
) -> Result<Node, DbError> {
    let key = bind_key(catalog, ec, t, root)?
        .ok_or_else(|| DbError::internal("partition key column missing in the routed table"))?;
    let mut node = Node {
        table: t.clone(),
        key,
        hashers: bind_hashers(catalog, t)?,
        parts: Vec::new(),
        default: None,
    };
    for c in catalog.children(t.oid) {
        let Some(bound) = c.partition_bound.clone() else {
            continue;
        };
        let target = if c.partition_key.is_some() {
            Target::Node(Box::new(build_node(catalog, ec, checks, root, &c, leaves)?))
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
/// `eq` (an expression over `root`'s row = non-NULL constant; a column
/// is `Expr::Col`) must scan: at each level whose whole key they give,
/// only the partition whose bound holds that key (or the default);
/// elsewhere every partition.
pub fn surviving(
    catalog: &Catalog,
    ec: EvalCtx,
    root: &Arc<TableDef>,
    eq: &[(Expr, Value)],
) -> Vec<RelId> {
    let mut out = Vec::new();
    walk(catalog, ec, root, root, eq, &mut out);
    out
}

fn walk(
    catalog: &Catalog,
    ec: EvalCtx,
    root: &Arc<TableDef>,
    t: &TableDef,
    eq: &[(Expr, Value)],
    out: &mut Vec<RelId>,
) {
    let Some(pk) = &t.partition_key else {
        return;
    };
    // A key hashed by a user function is not pruned on (the planner
    // calls no functions); the filter decides.
    let key: Option<Vec<Value>> = if eq.is_empty() || pk.has_user_opclass() {
        None
    } else {
        // A key that does not bind over the root (it cannot happen to a
        // partition's own key) prunes nothing.
        let bound = bind_key(catalog, ec, t, root).ok().flatten();
        bound.and_then(|bound| {
            bound
                .iter()
                .enumerate()
                .map(|(i, k)| {
                    let want = match k {
                        KeyCol::Col(c) => Expr::Col(*c),
                        KeyCol::Expr(e) => e.clone(),
                    };
                    let ty = pk.part_type(i, &t.columns);
                    eq.iter()
                        .find(|(e, v)| *e == want && same_kind(v, ty))
                        .map(|(_, v)| v.clone())
                })
                .collect()
        })
    };
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
            walk(catalog, ec, root, c, eq, out);
        } else {
            out.push(c.oid);
        }
    }
}

/// Whether a constant compares with a key of type `ty` as the bounds do
/// (same type, or both integers).
fn same_kind(v: &Value, ty: nestor_types::datatype::DataType) -> bool {
    let vt = v.data_type();
    vt == ty.base()
        || (vt.is_integer() && ty.is_integer())
        || (vt == nestor_types::datatype::DataType::Text && ty.is_string())
}

/// The `expression = constant` conjuncts of `conj` whose expression reads
/// only columns `lo..lo + n` (shifted to positions from `lo`), NULL
/// constants and expressions with subqueries left out.
pub fn eq_consts(conj: &[Expr], lo: usize, n: usize) -> Vec<(Expr, Value)> {
    conj.iter()
        .filter_map(|e| {
            let Expr::Cmp(crate::valops::Cmp::Eq, a, b) = e else {
                return None;
            };
            let (x, v) = match (a.as_ref(), b.as_ref()) {
                (x, Expr::Const(v)) | (Expr::Const(v), x) if !v.is_null() => (x, v),
                _ => return None,
            };
            let cols = x.columns();
            let mut sub = false;
            x.walk(&mut |y| sub |= matches!(y, Expr::Sub(_) | Expr::Outer { .. }));
            if cols.is_empty() || sub || cols.iter().any(|&c| c < lo || c >= lo + n) {
                return None;
            }
            let shifted = x
                .clone()
                .rewrite(&mut |y| {
                    Ok(match y {
                        Expr::Col(c) => Some(Expr::Col(c - lo)),
                        _ => None,
                    })
                })
                .ok()?;
            Some((shifted, v.clone()))
        })
        .collect()
}

/// A stored key expression as PostgreSQL's ruleutils prints it
/// (non-pretty): operators parenthesised (`(a + 1)`), calls bare
/// (`substr(b, 1, 5)`), string constants with their type (`'x'::text`).
/// Anything beyond those forms prints as the deparser wrote it.
pub fn expr_text(sql: &str) -> String {
    match nestor_parser::parse_expr(sql) {
        Ok(n) => node_text(&n).unwrap_or_else(|| sql.to_string()),
        Err(_) => sql.to_string(),
    }
}

/// pg_get_partkeydef's form of a key expression: as [`expr_text`], in
/// parentheses unless it looks like a function call.
pub fn keydef_expr_text(sql: &str) -> String {
    let t = expr_text(sql);
    let call = nestor_parser::parse_expr(sql)
        .ok()
        .is_some_and(|n| matches!(n.node, Some(NodeEnum::FuncCall(_))));
    if call {
        t
    } else {
        format!("({t})")
    }
}

fn names_of(list: &[pb::Node]) -> Option<Vec<String>> {
    list.iter()
        .map(|n| match n.node.as_ref()? {
            NodeEnum::String(s) => Some(s.sval.clone()),
            _ => None,
        })
        .collect()
}

fn node_text(n: &pb::Node) -> Option<String> {
    use pb::a_const::Val;
    Some(match n.node.as_ref()? {
        NodeEnum::ColumnRef(c) => {
            let parts = names_of(&c.fields)?;
            parts
                .iter()
                .map(|p| quote_ident(p))
                .collect::<Vec<_>>()
                .join(".")
        }
        NodeEnum::AConst(c) => match &c.val {
            None => "NULL".into(),
            Some(Val::Ival(i)) if i.ival >= 0 => i.ival.to_string(),
            Some(Val::Ival(i)) => format!("'{}'::integer", i.ival),
            Some(Val::Fval(f)) if !f.fval.starts_with('-') => f.fval.clone(),
            Some(Val::Fval(f)) => format!("'{}'::numeric", f.fval),
            Some(Val::Boolval(b)) => b.boolval.to_string(),
            Some(Val::Sval(s)) => format!("'{}'::text", s.sval.replace('\'', "''")),
            Some(Val::Bsval(_)) => return None,
        },
        NodeEnum::AExpr(a) if a.kind == pb::AExprKind::AexprOp as i32 => {
            let op = names_of(&a.name)?.pop()?;
            let r = node_text(a.rexpr.as_deref()?)?;
            match a.lexpr.as_deref() {
                Some(l) => format!("({} {op} {r})", node_text(l)?),
                None => format!("({op} {r})"),
            }
        }
        NodeEnum::FuncCall(f) => {
            if f.over.is_some() || f.agg_star || f.agg_distinct || f.func_variadic {
                return None;
            }
            let name = names_of(&f.funcname)?
                .iter()
                .filter(|p| *p != "pg_catalog")
                .map(|p| quote_ident(p))
                .collect::<Vec<_>>()
                .join(".");
            let args = f.args.iter().map(node_text).collect::<Option<Vec<_>>>()?;
            format!("{name}({})", args.join(", "))
        }
        NodeEnum::BoolExpr(b) => {
            let args = b.args.iter().map(node_text).collect::<Option<Vec<_>>>()?;
            match pb::BoolExprType::try_from(b.boolop).ok()? {
                pb::BoolExprType::AndExpr => format!("({})", args.join(" AND ")),
                pb::BoolExprType::OrExpr => format!("({})", args.join(" OR ")),
                pb::BoolExprType::NotExpr => format!("(NOT {})", args.first()?),
                _ => return None,
            }
        }
        NodeEnum::SqlvalueFunction(f) => {
            use pb::SqlValueFunctionOp as Op;
            match Op::try_from(f.op).ok()? {
                Op::SvfopCurrentDate => "CURRENT_DATE",
                Op::SvfopCurrentTimestamp => "CURRENT_TIMESTAMP",
                Op::SvfopLocaltimestamp => "LOCALTIMESTAMP",
                Op::SvfopCurrentRole => "CURRENT_ROLE",
                Op::SvfopCurrentUser => "CURRENT_USER",
                Op::SvfopUser => "USER",
                Op::SvfopSessionUser => "SESSION_USER",
                Op::SvfopCurrentCatalog => "CURRENT_CATALOG",
                Op::SvfopCurrentSchema => "CURRENT_SCHEMA",
                _ => return None,
            }
            .to_string()
        }
        NodeEnum::NullTest(t) => {
            let arg = node_text(t.arg.as_deref()?)?;
            if t.nulltesttype == pb::NullTestType::IsNotNull as i32 {
                format!("({arg} IS NOT NULL)")
            } else {
                format!("({arg} IS NULL)")
            }
        }
        _ => return None,
    })
}
