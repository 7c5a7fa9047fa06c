//! Which index of a partition belongs to which index of its partitioned
//! parent. PostgreSQL links them (pg_inherits rows between the indexes,
//! `indisvalid` of the parent); Nestor keeps no link: the link is the
//! definition. Two indexes have the same definition when they agree on
//! uniqueness, NULLS NOT DISTINCT, their keys and their predicate, with
//! columns compared by name (a partition may order its columns
//! differently or have dropped ones; its columns are its parent's by name
//! and type) and expressions and predicates by their stored text, which
//! names columns and so reads the same over the parent and over any
//! partition. When the parent has several indexes of one definition, its
//! k-th claims the partition's k-th index of that definition, as
//! PostgreSQL lets each of a partition's indexes serve one parent index.
//!
//! The DDL keeps every partition supplied with a claimed index for each
//! of its parent's (`nestor_exec::ddl::part_index`); pg_inherits and
//! pg_class.relispartition show the links this module finds.

use crate::{IndexDef, IndexKey, TableDef};

/// One key of an index, independent of the table's column numbering.
#[derive(PartialEq, Eq)]
enum Key<'a> {
    Column(&'a str),
    Expr(&'a str),
}

fn keys<'a>(t: &'a TableDef, i: &'a IndexDef) -> Vec<Key<'a>> {
    let col = |c: usize| Key::Column(t.columns.get(c).map_or("", |c| c.name.as_str()));
    match &i.exprs {
        None => i.columns.iter().map(|&c| col(c)).collect(),
        Some(x) => x
            .keys
            .iter()
            .map(|k| match k {
                IndexKey::Column(c) => col(*c),
                IndexKey::Expr(e) => Key::Expr(e),
            })
            .collect(),
    }
}

fn predicate(i: &IndexDef) -> Option<&str> {
    i.exprs.as_ref().and_then(|x| x.predicate.as_deref())
}

/// Whether index `a` of table `at` and index `b` of table `bt` have the
/// same definition.
pub fn same_definition(at: &TableDef, a: &IndexDef, bt: &TableDef, b: &IndexDef) -> bool {
    a.unique == b.unique
        && a.method == b.method
        && a.index.nulls_not_distinct == b.index.nulls_not_distinct
        && predicate(a) == predicate(b)
        && keys(at, a) == keys(bt, b)
        && gin_classes(a) == gin_classes(b)
        && a.keyopts == b.keyopts
}

/// A GIN index's operator classes (empty for other methods).
fn gin_classes(i: &IndexDef) -> &[crate::gin::GinClass] {
    i.exprs.as_ref().map_or(&[], |x| &x.gin[..])
}

/// The index of `child` that the parent's index `idx` claims: the k-th
/// of the child's indexes of its definition, for `idx` the k-th of the
/// parent's.
pub fn claimed<'c>(parent: &TableDef, idx: &IndexDef, child: &'c TableDef) -> Option<&'c IndexDef> {
    let k = parent
        .indexes
        .iter()
        .take_while(|o| o.oid != idx.oid)
        .filter(|o| same_definition(parent, o, parent, idx))
        .count();
    child
        .indexes
        .iter()
        .filter(|c| same_definition(parent, idx, child, c))
        .nth(k)
}

/// The index of `parent` (the partition `child`'s partitioned parent)
/// that claims `child`'s index `idx`, if one does.
pub fn claiming<'p>(
    parent: &'p TableDef,
    child: &TableDef,
    idx: &IndexDef,
) -> Option<&'p IndexDef> {
    if parent.partition_key.is_none() || child.partition_bound.is_none() {
        return None;
    }
    parent
        .indexes
        .iter()
        .find(|p| claimed(parent, p, child).is_some_and(|c| c.oid == idx.oid))
}
