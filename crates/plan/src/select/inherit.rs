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
//! Append's rows rather than choosing an index per member, and SELECT
//! ... FOR UPDATE of it is 0A000 (`family_at` finds it). A plain table's `tableoid` is a constant the
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
        rel: alias.to_string(),
        name: "tableoid".to_string(),
        ty: DataType::Oid,
        hidden: true,
        table_oid: parent.oid.0,
        attnum: TABLEOID_ATTNUM,
        merged: false,
        scalar_fn: false,
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

/// The alias of the inheritance tree whose leaf spans row positions
/// `offset..offset + width` of the current level, if that leaf is one
/// (its `tableoid` column is what marks it).
pub(crate) fn family_at(b: &Binder, offset: usize, width: usize) -> Option<String> {
    let scope = b.scopes.last()?;
    scope
        .cols
        .get(offset..offset + width)?
        .iter()
        .find(|c| c.hidden && c.attnum == TABLEOID_ATTNUM)
        .map(|c| c.rel.clone())
}
