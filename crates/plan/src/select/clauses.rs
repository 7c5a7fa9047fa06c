//! The clauses around a query's FROM tree: the select list (`*`
//! expansion, output names), GROUP BY and ORDER BY items that name output
//! columns, LIMIT/OFFSET, and FOR UPDATE/SHARE targets.

use super::*;

pub(super) fn bind_group_item(
    b: &mut Binder,
    g: &Node,
    targets: &[Target],
) -> Result<Expr, DbError> {
    let cols: Vec<OutCol> = targets.iter().map(|t| t.col.clone()).collect();
    // A bare name binds to an input column first (PostgreSQL's rule for
    // GROUP BY), then to an output alias; a number is a target position.
    if let NodeEnum::AConst(_) = node(g)? {
        if let Some(i) = output_ref(b, g, &cols)? {
            check_groupable(b, g, cols[i].ty)?;
            return Ok(targets[i].expr.clone());
        }
    }
    match b.bind(g) {
        Ok((e, t)) => {
            check_groupable(b, g, t)?;
            Ok(e)
        }
        Err(e) if e.code == SqlState::UndefinedColumn => match output_ref(b, g, &cols)? {
            Some(i) => {
                check_groupable(b, g, cols[i].ty)?;
                Ok(targets[i].expr.clone())
            }
            None => Err(e),
        },
        Err(e) => Err(e),
    }
}

/// Grouping needs `=`: the geometric types have no default one
/// (PostgreSQL's 42883 at the GROUP BY item).
fn check_groupable(b: &Binder, g: &Node, t: DataType) -> Result<(), DbError> {
    if !matches!(t, DataType::Geo(_)) {
        return Ok(());
    }
    Err(err_at(
        DbError::new(
            SqlState::UndefinedFunction,
            format!(
                "could not identify an equality operator for type {}",
                t.name()
            ),
        ),
        b.text,
        bind::expr_location(node(g)?),
    ))
}

/// An ORDER BY / GROUP BY item that names an output column: a position
/// (`ORDER BY 2`) or a bare output name (`ORDER BY total`).
pub(super) fn output_ref(b: &Binder, n: &Node, cols: &[OutCol]) -> Result<Option<usize>, DbError> {
    match node(n)? {
        NodeEnum::AConst(c) => {
            if let Some(pb::a_const::Val::Ival(i)) = &c.val {
                let k = i.ival;
                if k < 1 || k as usize > cols.len() {
                    return Err(err_at(
                        DbError::new(
                            SqlState::InvalidColumnReference,
                            format!("ORDER BY position {k} is not in select list"),
                        ),
                        b.text,
                        c.location,
                    ));
                }
                return Ok(Some(k as usize - 1));
            }
            Ok(None)
        }
        NodeEnum::ColumnRef(c) if c.fields.len() == 1 => {
            let Some(name) = c.fields.first().and_then(bind::str_val) else {
                return Ok(None);
            };
            let hits: Vec<usize> = cols
                .iter()
                .enumerate()
                .filter(|(_, c)| c.name == name)
                .map(|(i, _)| i)
                .collect();
            Ok(if hits.len() == 1 { Some(hits[0]) } else { None })
        }
        _ => Ok(None),
    }
}

/// An ORDER BY key: ASC / DESC, or USING `<` / `>` (the default B-tree
/// orderings; another operator is 0A000).
pub(super) fn sort_key(expr: Expr, sb: &pb::SortBy) -> Result<SortKey, DbError> {
    let desc = if sb.sortby_dir == pb::SortByDir::SortbyUsing as i32 {
        match bind::names(&sb.use_op).last().map(String::as_str) {
            Some("<") => false,
            Some(">") => true,
            other => {
                return Err(DbError::unsupported(format!(
                    "ORDER BY USING operator {}",
                    other.unwrap_or("")
                )))
            }
        }
    } else {
        sb.sortby_dir == pb::SortByDir::SortbyDesc as i32
    };
    let nulls_first = match pb::SortByNulls::try_from(sb.sortby_nulls) {
        Ok(pb::SortByNulls::SortbyNullsFirst) => true,
        Ok(pb::SortByNulls::SortbyNullsLast) => false,
        _ => desc,
    };
    Ok(SortKey {
        expr,
        desc,
        nulls_first,
    })
}

pub(super) fn plan_limit(
    b: &mut Binder,
    sel: &pb::SelectStmt,
    plan: Plan,
) -> Result<Plan, DbError> {
    if sel.limit_count.is_none() && sel.limit_offset.is_none() {
        return Ok(plan);
    }
    let with_ties = sel.limit_option == pb::LimitOption::WithTies as i32;
    if with_ties {
        if let Some(n) = sel.limit_count.as_deref() {
            if matches!(&n.node, Some(NodeEnum::AConst(c)) if c.isnull) {
                return Err(DbError::new(
                    SqlState::InvalidRowCountInLimitClause,
                    "row count cannot be null in FETCH FIRST ... WITH TIES clause",
                ));
            }
        }
    }
    let saved = b.agg;
    b.agg = AggCtx::NotAllowed("LIMIT");
    let mut bind_int = |n: &Option<Box<Node>>| -> Result<Option<Expr>, DbError> {
        match n {
            None => Ok(None),
            Some(n) => {
                let (e, t) = b.bind(n)?;
                if matches!(e, Expr::Const(Value::Null)) && !with_ties {
                    return Ok(None);
                }
                Ok(Some(b.coerce(e, t, DataType::Int8)?))
            }
        }
    };
    let limit = bind_int(&sel.limit_count)?;
    let offset = bind_int(&sel.limit_offset)?;
    b.agg = saved;
    if with_ties {
        return limit_with_ties(plan, limit, offset);
    }
    Ok(Plan::Limit {
        input: Box::new(plan),
        limit,
        offset,
        ties: Vec::new(),
    })
}

/// FETCH FIRST ... WITH TIES: the limit goes right above the ORDER BY's
/// sort (below the projection and row locking), where the sort keys can
/// be evaluated to find the ties.
fn limit_with_ties(plan: Plan, limit: Option<Expr>, offset: Option<Expr>) -> Result<Plan, DbError> {
    Ok(match plan {
        Plan::Sort { input, keys } => Plan::Limit {
            ties: keys.clone(),
            input: Box::new(Plan::Sort { input, keys }),
            limit,
            offset,
        },
        Plan::Project { input, exprs } => Plan::Project {
            input: Box::new(limit_with_ties(*input, limit, offset)?),
            exprs,
        },
        Plan::LockRows {
            input,
            targets,
            mode,
            policy,
            recheck,
        } => Plan::LockRows {
            input: Box::new(limit_with_ties(*input, limit, offset)?),
            targets,
            mode,
            policy,
            recheck,
        },
        _ => return Err(DbError::unsupported("FETCH ... WITH TIES of this query")),
    })
}

pub(super) fn lock_mode(sel: &pb::SelectStmt) -> Result<(LockMode, WaitPolicy), DbError> {
    let mut mode = LockMode::KeyShare;
    let mut policy = WaitPolicy::Block;
    for l in &sel.locking_clause {
        let NodeEnum::LockingClause(lc) = node(l)? else {
            continue;
        };
        let m = match pb::LockClauseStrength::try_from(lc.strength) {
            Ok(pb::LockClauseStrength::LcsForkeyshare) => LockMode::KeyShare,
            Ok(pb::LockClauseStrength::LcsForshare) => LockMode::Share,
            Ok(pb::LockClauseStrength::LcsFornokeyupdate) => LockMode::NoKeyUpdate,
            _ => LockMode::Update,
        };
        mode = mode.max(m);
        policy = match pb::LockWaitPolicy::try_from(lc.wait_policy) {
            Ok(pb::LockWaitPolicy::LockWaitSkip) => WaitPolicy::SkipLocked,
            Ok(pb::LockWaitPolicy::LockWaitError) => WaitPolicy::NoWait,
            _ => policy,
        };
    }
    Ok((mode, policy))
}

/// Tables locked by FOR UPDATE/SHARE (all tables, or those named by OF).
pub(super) fn lock_targets(
    b: &Binder,
    sel: &pb::SelectStmt,
    tree: Option<&From>,
) -> Result<Vec<LockTarget>, DbError> {
    if sel.locking_clause.is_empty() {
        return Ok(Vec::new());
    }
    if !sel.distinct_clause.is_empty() {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "FOR UPDATE is not allowed with DISTINCT clause",
        ));
    }
    if !sel.group_clause.is_empty() {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "FOR UPDATE is not allowed with GROUP BY clause",
        ));
    }
    if sel.having_clause.is_some() {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            "FOR UPDATE is not allowed with HAVING clause",
        ));
    }
    let mut named: Vec<String> = Vec::new();
    let mut locations: Vec<i32> = Vec::new();
    let mut strength = "FOR UPDATE";
    for l in &sel.locking_clause {
        if let NodeEnum::LockingClause(lc) = node(l)? {
            strength = match pb::LockClauseStrength::try_from(lc.strength) {
                Ok(pb::LockClauseStrength::LcsFornokeyupdate) => "FOR NO KEY UPDATE",
                Ok(pb::LockClauseStrength::LcsForshare) => "FOR SHARE",
                Ok(pb::LockClauseStrength::LcsForkeyshare) => "FOR KEY SHARE",
                _ => "FOR UPDATE",
            };
            for r in &lc.locked_rels {
                if let NodeEnum::RangeVar(rv) = node(r)? {
                    if let Some(what) = unlockable_entry(&sel.from_clause, &rv.relname) {
                        let e = DbError::new(
                            SqlState::FeatureNotSupported,
                            format!("{strength} cannot be applied to {what}"),
                        );
                        return Err(err_at(e, b.text, rv.location));
                    }
                    named.push(rv.relname.clone());
                    locations.push(rv.location);
                }
            }
        }
    }
    let mut out = Vec::new();
    // Each item with whether an outer join NULL-extends it.
    let mut stack: Vec<(&From, bool)> = tree.into_iter().map(|t| (t, false)).collect();
    while let Some((f, nullable)) = stack.pop() {
        match f {
            From::Table {
                table,
                alias,
                offset,
                ..
            } if named.is_empty() || named.contains(alias) => {
                if nullable {
                    return Err(DbError::new(
                        SqlState::FeatureNotSupported,
                        format!(
                            "{strength} cannot be applied to the nullable side of an outer join"
                        ),
                    ));
                }
                out.push(LockTarget {
                    table: table.clone(),
                    offset: *offset,
                    members: Vec::new(),
                });
            }
            From::Join {
                kind, left, right, ..
            } => {
                let full = *kind == JoinKind::Full;
                stack.push((left, nullable || full || *kind == JoinKind::Right));
                stack.push((right, nullable || full || *kind == JoinKind::Left));
            }
            From::Other { offset, width, .. } => {
                if let Some((parent, oid)) = super::inherit::family_at(b, *offset, *width) {
                    if named.is_empty() || named.contains(&parent) {
                        let Some(root) = b.catalog.table_by_oid(nestor_common::RelId(oid)) else {
                            continue;
                        };
                        if root.partition_key.is_some() {
                            return Err(DbError::unsupported(format!(
                                "{strength} of a partitioned table (\"{parent}\")"
                            )));
                        }
                        if nullable {
                            return Err(DbError::new(
                                SqlState::FeatureNotSupported,
                                format!(
                                    "{strength} cannot be applied to the nullable side of an outer join"
                                ),
                            ));
                        }
                        let members = super::inherit::lock_members(b, &root);
                        out.push(LockTarget {
                            table: root,
                            offset: *offset,
                            members,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    if out.is_empty() && !named.is_empty() {
        let e = DbError::new(
            SqlState::UndefinedTable,
            format!(
                "relation \"{}\" in {strength} clause not found in FROM clause",
                named[0]
            ),
        );
        return Err(err_at(e, b.text, locations[0]));
    }
    Ok(out)
}

/// What a locking clause's `OF name` may not lock, when the FROM entry
/// the name first denotes is one (PostgreSQL's transformLockingClause,
/// 0A000): "a join" (an aliased join, or one with a USING alias), "a
/// function". Entries are visited in PostgreSQL's range-table order: a
/// join's sides before the join itself.
fn unlockable_entry(from: &[Node], name: &str) -> Option<&'static str> {
    fn visit(n: &Node, name: &str) -> Option<Option<&'static str>> {
        match n.node.as_ref()? {
            NodeEnum::JoinExpr(j) => {
                let sides = [j.larg.as_deref(), j.rarg.as_deref()];
                if let Some(found) = sides.into_iter().flatten().find_map(|s| visit(s, name)) {
                    return Some(found);
                }
                let alias = j.alias.as_ref().or(j.join_using_alias.as_ref());
                alias
                    .filter(|a| a.aliasname == name)
                    .map(|_| Some("a join"))
            }
            NodeEnum::RangeVar(rv) => {
                let own = rv.alias.as_ref().map_or(&rv.relname, |a| &a.aliasname);
                (own == name).then_some(None)
            }
            NodeEnum::RangeSubselect(rs) => rs
                .alias
                .as_ref()
                .filter(|a| a.aliasname == name)
                .map(|_| None),
            NodeEnum::RangeFunction(rf) => {
                let own = match &rf.alias {
                    Some(a) => Some(a.aliasname.clone()),
                    None => rf.functions.first().and_then(|f| match f.node.as_ref()? {
                        NodeEnum::List(l) => match l.items.first()?.node.as_ref()? {
                            NodeEnum::FuncCall(fc) => bind::names(&fc.funcname).last().cloned(),
                            _ => None,
                        },
                        _ => None,
                    }),
                };
                (own.as_deref() == Some(name)).then_some(Some("a function"))
            }
            _ => None,
        }
    }
    from.iter().find_map(|n| visit(n, name)).flatten()
}

pub(crate) fn bind_targets(b: &mut Binder, list: &[Node]) -> Result<Vec<Target>, DbError> {
    let mut out = Vec::new();
    for t in list {
        let NodeEnum::ResTarget(rt) = node(t)? else {
            return Err(DbError::internal("target is not ResTarget"));
        };
        let val = req(&rt.val)?;
        if let Some(star) = star_rel(val)? {
            expand_star(b, star.as_deref(), &mut out, rt.location)?;
            continue;
        }
        if let NodeEnum::AIndirection(ind) = node(val)? {
            if matches!(
                ind.indirection.last().and_then(|n| n.node.as_ref()),
                Some(NodeEnum::AStar(_))
            ) {
                expand_fields(b, ind, &mut out)?;
                continue;
            }
        }
        let allowed = std::mem::replace(&mut b.srf_allowed, true);
        let bound = match node(val)? {
            NodeEnum::FuncCall(fc) if b.srf_kind(fc).is_some() => b.bind_srf(fc),
            _ => b.bind(val),
        };
        b.srf_allowed = allowed;
        let (expr, ty) = bound?;
        let name = if rt.name.is_empty() {
            derive_name(val)
        } else {
            rt.name.clone()
        };
        let (table_oid, column_id) = match &expr {
            Expr::Col(c) => {
                let sc = &b.scopes[b.level()].cols[*c];
                (sc.table_oid, sc.attnum)
            }
            _ => (0, 0),
        };
        let ty = if ty == DataType::Unknown {
            DataType::Text
        } else {
            ty
        };
        out.push(Target {
            expr,
            col: OutCol {
                name,
                ty,
                table_oid,
                column_id,
            },
        });
    }
    Ok(out)
}

/// `(expr).*` in a select list: one column per field of the record.
fn expand_fields(
    b: &mut Binder,
    ind: &pb::AIndirection,
    out: &mut Vec<Target>,
) -> Result<(), DbError> {
    let mut inner = ind.clone();
    inner.indirection.pop();
    let (expr, ty) = if inner.indirection.is_empty() {
        b.bind(req(&inner.arg)?)?
    } else {
        b.bind(&Node {
            node: Some(NodeEnum::AIndirection(Box::new(inner))),
        })?
    };
    let DataType::Record(r) = ty else {
        return Err(DbError::new(
            SqlState::WrongObjectType,
            format!("type {} is not composite", ty.name()),
        ));
    };
    for (k, (name, fty)) in r.fields.iter().enumerate() {
        out.push(Target {
            expr: Expr::Func(crate::functions::Func::FieldSelect(k), vec![expr.clone()]),
            col: OutCol {
                name: name.clone(),
                ty: *fty,
                table_oid: 0,
                column_id: 0,
            },
        });
    }
    Ok(())
}

/// `*` (Some(None)) or `t.*` (Some(Some(t))).
pub(super) fn star_rel(n: &Node) -> Result<Option<Option<String>>, DbError> {
    if let NodeEnum::ColumnRef(c) = node(n)? {
        if let Some(last) = c.fields.last() {
            if matches!(last.node, Some(NodeEnum::AStar(_))) {
                let rel = if c.fields.len() >= 2 {
                    bind::str_val(&c.fields[c.fields.len() - 2]).map(str::to_string)
                } else {
                    None
                };
                return Ok(Some(rel));
            }
        }
    }
    Ok(None)
}

/// Move a USING join's merged columns to the front of its columns in a
/// `*` expansion, in USING order, the rest keeping their order.
fn using_first(order: &mut [(usize, usize)], j: &bind::UsingJoin) {
    let inside = |(i, _): &(usize, usize)| (j.start..j.end).contains(i);
    let Some(from) = order.iter().position(inside) else {
        return;
    };
    let to = from + order[from..].iter().take_while(|e| inside(e)).count();
    let segment = &mut order[from..to];
    let rank = |(i, _): &(usize, usize)| j.merged.iter().position(|m| m == i).unwrap_or(usize::MAX);
    // Stable: merged columns by their USING position, then the others.
    segment.sort_by_key(rank);
}

pub(super) fn expand_star(
    b: &mut Binder,
    rel: Option<&str>,
    out: &mut Vec<Target>,
    location: i32,
) -> Result<(), DbError> {
    let level = b.level();
    let scope = &b.scopes[level];
    if rel.is_none() && scope.cols.is_empty() {
        return Err(err_at(
            DbError::new(
                SqlState::SyntaxError,
                "SELECT * with no tables specified is not valid",
            ),
            b.text,
            location,
        ));
    }
    let (order, any) = star_order(scope, rel, 0);
    if any || rel.is_none() {
        return push_star(b, level, (&order, rel), out);
    }
    let r = rel.unwrap_or_default();
    if scope.cols.iter().any(|c| c.rel == r) {
        // A table of no columns: `t.*` is nothing.
        return Ok(());
    }
    // `x.*` of an enclosing level's FROM item (a LATERAL subquery's
    // `SELECT x.*`): its columns, innermost level first.
    for lvl in (0..level).rev() {
        let outer = &b.scopes[lvl];
        let (order, any) = star_order(outer, rel, outer.floor);
        if any {
            return push_star(b, lvl, (&order, rel), out);
        }
        if outer.cols[outer.floor.min(outer.cols.len())..]
            .iter()
            .any(|c| c.rel == r)
        {
            return Ok(());
        }
    }
    // PL/pgSQL: `v.*` of a row variable (`VALUES (NEW.*)` in a trigger)
    // is its fields.
    if let Some(vars) = b.vars {
        if let Some((i, DataType::Record(rt))) = vars.resolve(&[r])? {
            if b.params.len() <= i {
                b.params.resize(i + 1, DataType::Unknown);
            }
            b.params[i] = DataType::Record(rt);
            for (k, (name, ty)) in rt.fields.iter().enumerate() {
                out.push(Target {
                    expr: Expr::Func(crate::functions::Func::FieldSelect(k), vec![Expr::Param(i)]),
                    col: OutCol {
                        name: name.clone(),
                        ty: *ty,
                        table_oid: 0,
                        column_id: 0,
                    },
                });
            }
            return Ok(());
        }
    }
    Err(err_at(b.missing_entry(r), b.text, location))
}

/// The columns `*` (rel None) or `rel.*` expands to in `scope`, from
/// column `floor` on: (scope index, the index read for it) in output
/// order, and whether `rel` named anything.
pub(super) fn star_order(
    scope: &Scope,
    rel: Option<&str>,
    floor: usize,
) -> (Vec<(usize, usize)>, bool) {
    let mut any = false;
    // (scope index, the index `*` reads for it), in output order.
    let mut order: Vec<(usize, usize)> = Vec::new();
    // `x.*` of `JOIN ... USING (...) AS x`: the merged columns.
    let using_alias = rel.and_then(|r| scope.using_alias(r));
    if let Some(named) = using_alias {
        order.extend(named.iter().map(|&(_, i)| (i, i)));
        any = true;
    }
    for (i, c) in scope
        .cols
        .iter()
        .enumerate()
        .skip(floor)
        .filter(|_| using_alias.is_none())
    {
        // `r.*` has r's copy of a JOIN USING column (hidden from `*`);
        // the join's own alias `j.*` has the merged column only.
        let join_alias = rel.is_some()
            && scope
                .using_joins
                .iter()
                .any(|j| j.alias.as_deref() == rel && (j.start..j.end).contains(&i));
        let using_copy = c.merged && rel == Some(c.rel.as_str()) && !join_alias;
        if (c.hidden && !using_copy) || rel.is_some_and(|r| r != c.rel) {
            continue;
        }
        any = true;
        // The left copy of a RIGHT or FULL join's USING column stands for
        // the merged column in `*` (see select::from).
        let merged_here = |m: &ScopeCol| {
            c.merged && m.name == c.name && !m.merged && rel.is_none_or(|r| m.rel == r)
        };
        let read = match scope.cols[i + 1..].iter().position(merged_here) {
            Some(p) => i + 1 + p,
            None => i,
        };
        order.push((i, read));
    }
    for j in &scope.using_joins {
        if rel.is_none() || j.alias.as_deref() == rel {
            using_first(&mut order, j);
        }
    }
    (order, any)
}

/// The targets of a star's columns (`star_order`) of level `lvl`'s scope:
/// its columns, or references to them from an inner level.
/// `rel`: the star's qualifier (a merged JOIN USING column is coerced to
/// its common type unless `rel` is the column's own table).
fn push_star(
    b: &mut Binder,
    lvl: usize,
    (order, rel): (&[(usize, usize)], Option<&str>),
    out: &mut Vec<Target>,
) -> Result<(), DbError> {
    for &(_, i) in order {
        let c = &b.scopes[lvl].cols[i];
        // A coerced merged column is no table column any more.
        let (table_oid, column_id) = match bind::using_cast(c, rel) {
            Some(_) => (0, 0),
            None => (c.table_oid, c.attnum),
        };
        let name = c.name.clone();
        let (expr, ty) = b.read_column(lvl, i, rel)?;
        let col = OutCol {
            name,
            ty,
            table_oid,
            column_id,
        };
        out.push(Target { expr, col });
    }
    Ok(())
}

/// PostgreSQL's column name for an unnamed target.
pub(crate) fn derive_name(n: &Node) -> String {
    figure_colname(n).0
}

/// PostgreSQL's FigureColname: a name and its strength (2: a column,
/// function or keyword name; 1: a cast's type name or `case`, which a
/// stronger name inside overrides; 0: `?column?`).
fn figure_colname(n: &Node) -> (String, u8) {
    let strong = |s: String| (s, 2);
    match n.node.as_ref() {
        // The last field name, a trailing `*` ignored (`(a.*)::text` is a).
        Some(NodeEnum::ColumnRef(c)) => match c.fields.iter().rev().find_map(bind::str_val) {
            Some(name) => strong(name.to_string()),
            None => ("?column?".into(), 0),
        },
        Some(NodeEnum::FuncCall(f)) => match bind::names(&f.funcname).last() {
            Some(name) => strong(name.clone()),
            None => ("?column?".into(), 0),
        },
        Some(NodeEnum::TypeCast(t)) => {
            let inner = t
                .arg
                .as_deref()
                .map(figure_colname)
                .unwrap_or_else(|| ("?column?".into(), 0));
            if inner.1 > 1 {
                return inner;
            }
            match t
                .type_name
                .as_ref()
                .and_then(|tn| bind::names(&tn.names).last().cloned())
            {
                Some(name) => (name, 1),
                None => inner,
            }
        }
        // The ELSE result's name when it is a strong one
        // (`CASE ... ELSE ARRAY[...] END` is "array"), else "case".
        Some(NodeEnum::CaseExpr(c)) => match c.defresult.as_deref().map(figure_colname) {
            Some(named) if named.1 > 1 => named,
            _ => ("case".into(), 1),
        },
        Some(NodeEnum::AIndirection(i)) => {
            match i.indirection.iter().rev().find_map(bind::str_val) {
                Some(field) => strong(field.to_string()),
                None => i
                    .arg
                    .as_deref()
                    .map(figure_colname)
                    .unwrap_or_else(|| ("?column?".into(), 0)),
            }
        }
        Some(NodeEnum::CollateClause(c)) => c
            .arg
            .as_deref()
            .map(figure_colname)
            .unwrap_or_else(|| ("?column?".into(), 0)),
        _ => {
            let name = simple_name(n);
            let strength = if name == "?column?" { 0 } else { 2 };
            (name, strength)
        }
    }
}

/// The names of the remaining node kinds (all strong when known).
fn simple_name(n: &Node) -> String {
    match n.node.as_ref() {
        Some(NodeEnum::CoalesceExpr(_)) => "coalesce".into(),
        Some(NodeEnum::MinMaxExpr(m)) => {
            if m.op == pb::MinMaxOp::IsGreatest as i32 {
                "greatest".into()
            } else {
                "least".into()
            }
        }
        Some(NodeEnum::SqlvalueFunction(f)) => {
            use pb::SqlValueFunctionOp as Op;
            match Op::try_from(f.op) {
                Ok(Op::SvfopCurrentTimestamp | Op::SvfopCurrentTimestampN) => "current_timestamp",
                Ok(Op::SvfopCurrentDate) => "current_date",
                Ok(Op::SvfopCurrentUser) => "current_user",
                Ok(Op::SvfopSessionUser) => "session_user",
                Ok(Op::SvfopUser) => "user",
                Ok(Op::SvfopCurrentRole) => "current_role",
                Ok(Op::SvfopCurrentCatalog) => "current_catalog",
                Ok(Op::SvfopCurrentSchema) => "current_schema",
                Ok(Op::SvfopLocaltimestamp | Op::SvfopLocaltimestampN) => "localtimestamp",
                Ok(Op::SvfopLocaltime | Op::SvfopLocaltimeN) => "localtime",
                Ok(Op::SvfopCurrentTime | Op::SvfopCurrentTimeN) => "current_time",
                _ => "?column?",
            }
            .into()
        }
        Some(NodeEnum::AArrayExpr(_)) => "array".into(),
        Some(NodeEnum::RowExpr(_)) => "row".into(),
        Some(NodeEnum::GroupingFunc(_)) => "grouping".into(),
        Some(NodeEnum::SubLink(s)) => {
            if s.sub_link_type == pb::SubLinkType::ExistsSublink as i32 {
                return "exists".into();
            }
            if s.sub_link_type == pb::SubLinkType::ArraySublink as i32 {
                return "array".into();
            }
            // PostgreSQL's FigureColname names only EXISTS, scalar and
            // ARRAY sublinks; IN/ANY/ALL are ?column?.
            if s.sub_link_type == pb::SubLinkType::AnySublink as i32
                || s.sub_link_type == pb::SubLinkType::AllSublink as i32
            {
                return "?column?".into();
            }
            if let Some(NodeEnum::SelectStmt(sel)) =
                s.subselect.as_deref().and_then(|n| n.node.as_ref())
            {
                // The subquery's first output column: a set operation's is
                // its leftmost SELECT's, a VALUES list's `column1`.
                let mut sel = sel.as_ref();
                while let Some(l) = sel.larg.as_deref() {
                    sel = l;
                }
                if sel.target_list.is_empty() && !sel.values_lists.is_empty() {
                    return "column1".into();
                }
                if let Some(Some(NodeEnum::ResTarget(rt))) =
                    sel.target_list.first().map(|t| t.node.as_ref())
                {
                    if !rt.name.is_empty() {
                        return rt.name.clone();
                    }
                    if let Some(v) = rt.val.as_deref() {
                        return derive_name(v);
                    }
                }
            }
            "?column?".into()
        }
        Some(NodeEnum::AExpr(a)) if a.kind == pb::AExprKind::AexprNullif as i32 => "nullif".into(),
        _ => "?column?".into(),
    }
}
