//! FROM: the range-table entries a query level binds its column
//! references to, and their printed form (get_from_clause_item).
//!
//! Items are rendered while they are analyzed (a subquery's text is
//! printed at the indentation the FROM clause will have), since the
//! target list, which prints first, needs their columns. Every entry's
//! name is chosen before any is rendered, as ruleutils' set_rtable_names
//! does for a whole level, so a subquery's `t` yields to an outer `t`.

use super::expr::{var, E};
use super::{string_list, Col, Deparser, Rte, Unsupported, INDENT_JOIN, INDENT_STD, INDENT_VAR, R};
use nestor_catalog::Relation;
use nestor_common::keywords::quote_identifier;
use nestor_parser::pb;
use pb::node::Node as N;

/// The FROM clause of one level: each top-level item's printed text.
pub(super) struct From {
    items: Vec<String>,
}

impl Deparser<'_> {
    /// Analyze and render the FROM items, adding their entries to the
    /// current level (and each item's columns, which `*` expands to).
    pub(super) fn read_from(&mut self, items: &[pb::Node]) -> R<From> {
        let mut names = match self.level().names.take() {
            Some(n) => n,
            None => self.level_names(items)?,
        };
        let mut out = Vec::with_capacity(items.len());
        for i in items {
            let outer = std::mem::take(&mut self.buf);
            let r = self.item(i, &mut names);
            let text = std::mem::replace(&mut self.buf, outer);
            let cols = r?;
            self.level().items.push(cols);
            out.push(text);
        }
        Ok(From { items: out })
    }

    /// get_from_clause: the first item after ` FROM `, the others after
    /// `, ` (on a new line when the wrap column is passed).
    pub(super) fn print_from(&mut self, from: &From) -> R<()> {
        for (i, item) in from.items.iter().enumerate() {
            if i == 0 {
                self.keyword(" FROM ", -INDENT_STD, INDENT_STD, 2);
                self.buf.push_str(item);
                continue;
            }
            self.buf.push_str(", ");
            if self.layout.wrap >= 0 {
                let line = self.buf.rsplit('\n').next().unwrap_or("").len();
                if line + item.len() > self.layout.wrap as usize {
                    self.keyword("", -INDENT_STD, INDENT_STD, INDENT_VAR);
                }
            }
            self.buf.push_str(item);
        }
        Ok(())
    }

    /// The names of a level's entries, chosen before anything of the
    /// level is printed (its WITH queries see them as taken), in
    /// reverse rendering order (popped as items render).
    pub(super) fn level_names(&mut self, items: &[pb::Node]) -> R<Vec<String>> {
        let mut names = Vec::new();
        for i in items {
            self.item_names(i, &mut names)?;
        }
        names.reverse();
        Ok(names)
    }

    /// The reference names of an item's entries, made unique against the
    /// enclosing levels, in rendering order.
    fn item_names(&mut self, node: &pb::Node, out: &mut Vec<String>) -> R<()> {
        let base = match node.node.as_ref() {
            Some(N::RangeVar(rv)) => rv
                .alias
                .as_ref()
                .map_or(rv.relname.clone(), |a| a.aliasname.clone()),
            Some(N::RangeSubselect(s)) => s.alias.as_ref().ok_or(Unsupported)?.aliasname.clone(),
            Some(N::RangeFunction(f)) => match &f.alias {
                Some(a) => a.aliasname.clone(),
                None => function_name(f)?,
            },
            Some(N::JoinExpr(j)) => {
                if j.join_using_alias.is_some() {
                    return Err(Unsupported);
                }
                self.item_names(j.larg.as_deref().ok_or(Unsupported)?, out)?;
                self.item_names(j.rarg.as_deref().ok_or(Unsupported)?, out)?;
                // A join's own entry follows its inputs' (its range-table
                // index is assigned after theirs).
                match &j.alias {
                    Some(a) => a.aliasname.clone(),
                    None => return Ok(()),
                }
            }
            _ => return Err(Unsupported),
        };
        let name = self.unique_name(&base);
        out.push(name);
        Ok(())
    }

    /// ruleutils' unique range-table names: `t`, then `t_1`, `t_2`...
    fn unique_name(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut n = 0;
        while self.used.contains(&name) {
            n += 1;
            name = format!("{base}_{n}");
        }
        self.used.push(name.clone());
        name
    }

    /// get_from_clause_item: prints the item, returns its columns.
    fn item(&mut self, node: &pb::Node, names: &mut Vec<String>) -> R<Vec<(String, E)>> {
        self.step()?;
        match node.node.as_ref() {
            Some(N::RangeVar(rv)) => self.relation(rv, names.pop().ok_or(Unsupported)?)?,
            Some(N::RangeSubselect(s)) => self.subselect(s, names.pop().ok_or(Unsupported)?)?,
            Some(N::RangeFunction(f)) => self.function(f, names.pop().ok_or(Unsupported)?)?,
            Some(N::JoinExpr(j)) => return self.join(j, names),
            _ => return Err(Unsupported),
        }
        let r = self
            .levels
            .last()
            .and_then(|l| l.rtes.last())
            .ok_or(Unsupported)?;
        Ok((0..r.cols.len())
            .map(|c| (r.cols[c].name.clone(), var(r, c)))
            .collect())
    }

    /// A table, view or WITH query by name.
    fn relation(&mut self, rv: &pb::RangeVar, name: String) -> R<()> {
        if !rv.catalogname.is_empty() {
            return Err(Unsupported);
        }
        let cte = rv
            .schemaname
            .is_empty()
            .then(|| self.cte(&rv.relname))
            .flatten();
        let (printed, cols) = match cte {
            Some(cols) => (quote_identifier(&rv.relname), cols),
            None => self.catalog_relation(rv)?,
        };
        if !rv.inh {
            self.buf.push_str("ONLY ");
        }
        self.buf.push_str(&printed);
        let aliases = match &rv.alias {
            Some(a) => string_list(&a.colnames)?,
            None => Vec::new(),
        };
        if rv.alias.is_some() || name != rv.relname {
            self.buf.push(' ');
            self.buf.push_str(&quote_identifier(&name));
        }
        let cols = rename(cols, &aliases)?;
        if !aliases.is_empty() {
            self.alias_list(&cols);
        }
        self.add_rte(
            name,
            rv.alias.as_ref().map_or(&rv.relname, |a| &a.aliasname),
            cols,
        );
        Ok(())
    }

    /// A WITH query of this or an enclosing level.
    fn cte(&self, name: &str) -> Option<Vec<Col>> {
        self.levels
            .iter()
            .rev()
            .flat_map(|l| l.ctes.iter().rev())
            .find(|(n, _)| n == name)
            .map(|(_, cols)| cols.clone())
    }

    /// A table or view: its printed name (qualified only when the
    /// search path would not find it) and columns. The stored text names
    /// a relation outside `public` with its schema; an unqualified name
    /// is the session's TEMP relation or `public`'s, as the view is
    /// planned.
    fn catalog_relation(&self, rv: &pb::RangeVar) -> R<(String, Vec<Col>)> {
        let visible = self.c.relation(&rv.relname);
        let found = if !rv.schemaname.is_empty() {
            self.c
                .relation(&format!("{}.{}", rv.schemaname, rv.relname))
        } else if is_temp(visible.as_ref()) {
            visible.clone()
        } else {
            self.c.relation(&format!("public.{}", rv.relname))
        };
        let (oid, cols) = match found {
            Some(Relation::Table(t)) => (
                t.oid,
                t.columns
                    .iter()
                    .filter(|c| !c.dropped)
                    .map(|c| Col {
                        name: c.name.clone(),
                        // A domain column's comparisons show casts to its
                        // base type this module does not place.
                        ty: c.domain.is_none().then_some(c.ty),
                    })
                    .collect(),
            ),
            Some(Relation::View(v)) => (
                v.oid,
                v.columns
                    .iter()
                    .map(|(n, t)| Col {
                        name: n.clone(),
                        ty: Some(*t),
                    })
                    .collect(),
            ),
            _ => return Err(Unsupported),
        };
        let same = match visible {
            Some(Relation::Table(t)) => t.oid == oid,
            Some(Relation::View(v)) => v.oid == oid,
            _ => false,
        };
        let schema = if rv.schemaname.is_empty() {
            "public"
        } else {
            rv.schemaname.as_str()
        };
        let printed = if same {
            quote_identifier(&rv.relname)
        } else {
            format!(
                "{}.{}",
                quote_identifier(schema),
                quote_identifier(&rv.relname)
            )
        };
        Ok((printed, cols))
    }

    /// `(subquery) alias[(columns)]`.
    fn subselect(&mut self, s: &pb::RangeSubselect, name: String) -> R<()> {
        let Some(N::SelectStmt(q)) = s.subquery.as_ref().and_then(|q| q.node.as_ref()) else {
            return Err(Unsupported);
        };
        let alias = s.alias.as_ref().ok_or(Unsupported)?;
        if s.lateral {
            self.buf.push_str("LATERAL ");
        }
        self.buf.push('(');
        let cols = self.query(q, None, true)?;
        self.buf.push_str(") ");
        self.buf.push_str(&quote_identifier(&name));
        let aliases = string_list(&alias.colnames)?;
        let cols = rename(cols, &aliases)?;
        if !aliases.is_empty() {
            self.alias_list(&cols);
        }
        self.add_rte(name, &alias.aliasname, cols);
        Ok(())
    }

    /// A set-returning function of one result column (generate_series,
    /// unnest): printed with its column alias list, as ruleutils always
    /// does for a function.
    fn function(&mut self, f: &pb::RangeFunction, name: String) -> R<()> {
        if f.is_rowsfrom || f.ordinality || !f.coldeflist.is_empty() || f.functions.len() != 1 {
            return Err(Unsupported);
        }
        let Some(N::List(pair)) = f.functions[0].node.as_ref() else {
            return Err(Unsupported);
        };
        let call = pair.items.first().ok_or(Unsupported)?;
        let e = self.analyze(call)?;
        let ty = match &e {
            E::Func {
                name: fname, ty, ..
            } if fname == "generate_series" => *ty,
            E::Func {
                name: fname,
                ty: Some(nestor_types::DataType::Array(el)),
                ..
            } if fname == "unnest" => Some(**el),
            _ => return Err(Unsupported),
        };
        let ty = match (&e, ty) {
            (E::Func { name: fname, .. }, _) if fname == "unnest" => ty,
            (E::Func { ty, .. }, _) => *ty,
            _ => None,
        };
        if f.lateral {
            self.buf.push_str("LATERAL ");
        }
        self.expr(&e, true)?;
        let aliases = match &f.alias {
            Some(a) => string_list(&a.colnames)?,
            None => Vec::new(),
        };
        let col = aliases.first().cloned().unwrap_or_else(|| name.clone());
        if aliases.len() > 1 {
            return Err(Unsupported);
        }
        self.buf.push(' ');
        self.buf.push_str(&quote_identifier(&name));
        let cols = vec![Col { name: col, ty }];
        self.alias_list(&cols);
        let refname = f
            .alias
            .as_ref()
            .map_or(name.clone(), |a| a.aliasname.clone());
        self.add_rte(name, &refname, cols);
        Ok(())
    }

    /// `(a JOIN b ON ...)`; the parentheses only without PRETTY_PAREN,
    /// around a right input that is itself a join, or for an alias.
    fn join(&mut self, j: &pb::JoinExpr, names: &mut Vec<String>) -> R<Vec<(String, E)>> {
        let (Some(l), Some(r)) = (j.larg.as_deref(), j.rarg.as_deref()) else {
            return Err(Unsupported);
        };
        let pretty = self.layout.pretty;
        let right_is_join = matches!(
            r.node.as_ref(),
            Some(N::JoinExpr(rj)) if rj.alias.is_none()
        );
        let paren = !pretty || j.alias.is_some();
        if paren {
            self.buf.push('(');
        }
        let (rtes_before, merged_before) = self
            .levels
            .last()
            .map_or((0, 0), |l| (l.rtes.len(), l.merged.len()));
        let lcols = self.item(l, names)?;
        let outer = std::mem::take(&mut self.buf);
        let right = self.item(r, names);
        let rtext = std::mem::replace(&mut self.buf, outer);
        let rcols = right?;
        let using = if j.is_natural {
            lcols
                .iter()
                .filter(|(n, _)| rcols.iter().any(|(m, _)| m == n))
                .map(|(n, _)| n.clone())
                .collect()
        } else {
            string_list(&j.using_clause)?
        };
        let inner = j.jointype == pb::JoinType::JoinInner as i32;
        let kw = match j.jointype {
            _ if inner && j.quals.is_none() && using.is_empty() => " CROSS JOIN ",
            _ if inner => " JOIN ",
            x if x == pb::JoinType::JoinLeft as i32 => " LEFT JOIN ",
            x if x == pb::JoinType::JoinRight as i32 => " RIGHT JOIN ",
            x if x == pb::JoinType::JoinFull as i32 => " FULL JOIN ",
            _ => return Err(Unsupported),
        };
        self.keyword(kw, -INDENT_STD, INDENT_STD, INDENT_JOIN);
        if pretty && right_is_join {
            self.buf.push('(');
        }
        self.buf.push_str(&rtext);
        if pretty && right_is_join {
            self.buf.push(')');
        }
        let cols = if !using.is_empty() {
            let cols = self.merge_using(&using, lcols, rcols, j.jointype)?;
            let quoted: Vec<String> = using.iter().map(|u| quote_identifier(u)).collect();
            self.buf
                .push_str(&format!(" USING ({})", quoted.join(", ")));
            cols
        } else {
            if let Some(q) = j.quals.as_deref() {
                let e = self.analyze(q)?;
                self.buf.push_str(" ON ");
                if !pretty {
                    self.buf.push('(');
                }
                self.expr(&e, false)?;
                if !pretty {
                    self.buf.push(')');
                }
            } else if !inner {
                self.buf.push_str(" ON TRUE");
            }
            lcols.into_iter().chain(rcols).collect()
        };
        if paren {
            self.buf.push(')');
        }
        match &j.alias {
            Some(a) => self.join_alias(a, cols, names, rtes_before, merged_before),
            None => Ok(cols),
        }
    }

    /// `(a JOIN b ...) j[(cols)]`: the join becomes an entry of its own,
    /// hiding its inputs' entries from references outside it.
    fn join_alias(
        &mut self,
        alias: &pb::Alias,
        cols: Vec<(String, E)>,
        names: &mut Vec<String>,
        rtes_before: usize,
        merged_before: usize,
    ) -> R<Vec<(String, E)>> {
        let name = names.pop().ok_or(Unsupported)?;
        self.buf.push(' ');
        self.buf.push_str(&quote_identifier(&name));
        let aliases = string_list(&alias.colnames)?;
        let cols: Vec<Col> = rename(
            cols.into_iter()
                .map(|(n, e)| Col {
                    name: n,
                    ty: e.ty(),
                })
                .collect(),
            &aliases,
        )?;
        if !aliases.is_empty() {
            self.alias_list(&cols);
        }
        let level = self.level();
        for r in &mut level.rtes[rtes_before..] {
            r.hidden = true;
        }
        level.merged.truncate(merged_before);
        self.add_rte(name, &alias.aliasname, cols);
        let r = self
            .levels
            .last()
            .and_then(|l| l.rtes.last())
            .ok_or(Unsupported)?;
        Ok((0..r.cols.len())
            .map(|c| (r.cols[c].name.clone(), var(r, c)))
            .collect())
    }

    /// JOIN USING (and NATURAL): the merged columns first, then each
    /// side's others. A merged column is the side PostgreSQL's
    /// buildMergedJoinVar keeps uncoerced (INNER prefers the left, LEFT
    /// takes the left, RIGHT the right); FULL JOIN's is the join's own
    /// column, printed by its name alone.
    fn merge_using(
        &mut self,
        using: &[String],
        lcols: Vec<(String, E)>,
        rcols: Vec<(String, E)>,
        jointype: i32,
    ) -> R<Vec<(String, E)>> {
        let find = |cols: &[(String, E)], u: &String| -> R<E> {
            let mut hits = cols.iter().filter(|(n, _)| n == u);
            let first = hits.next().ok_or(Unsupported)?;
            if hits.next().is_some() {
                return Err(Unsupported);
            }
            Ok(first.1.clone())
        };
        let mut merged = Vec::with_capacity(using.len());
        for u in using {
            let (l, r) = (find(&lcols, u)?, find(&rcols, u)?);
            let (lt, rt) = (l.ty().ok_or(Unsupported)?, r.ty().ok_or(Unsupported)?);
            let common = super::expr::common_type(lt, rt)?;
            let (l_plain, r_plain) = (
                super::expr::same_type(lt, common),
                super::expr::same_type(rt, common),
            );
            let e = match jointype {
                x if x == pb::JoinType::JoinInner as i32 && l_plain => l,
                x if x == pb::JoinType::JoinInner as i32 && r_plain => r,
                x if x == pb::JoinType::JoinLeft as i32 && l_plain => l,
                x if x == pb::JoinType::JoinRight as i32 && r_plain => r,
                x if x == pb::JoinType::JoinFull as i32 => E::Var {
                    rte: String::new(),
                    col: u.clone(),
                    ty: Some(common),
                },
                _ => return Err(Unsupported),
            };
            self.level().merged.push((u.clone(), e.clone()));
            merged.push((u.clone(), e));
        }
        let others = |cols: Vec<(String, E)>| {
            cols.into_iter()
                .filter(|(n, _)| !using.contains(n))
                .collect::<Vec<_>>()
        };
        Ok(merged
            .into_iter()
            .chain(others(lcols))
            .chain(others(rcols))
            .collect())
    }

    fn add_rte(&mut self, name: String, refname: &str, cols: Vec<Col>) {
        self.level().rtes.push(Rte {
            name,
            refname: refname.to_string(),
            cols,
            hidden: false,
        });
    }

    /// get_column_alias_list: `(a, b)`.
    fn alias_list(&mut self, cols: &[Col]) {
        let names: Vec<String> = cols.iter().map(|c| quote_identifier(&c.name)).collect();
        self.buf.push_str(&format!("({})", names.join(", ")));
    }
}

/// Whether a relation is a TEMP table or view.
fn is_temp(r: Option<&Relation>) -> bool {
    match r {
        Some(Relation::Table(t)) => t.persistence == nestor_catalog::Persistence::Temporary,
        Some(Relation::View(v)) => v.temporary,
        _ => false,
    }
}

/// The first columns renamed by an alias list.
fn rename(mut cols: Vec<Col>, aliases: &[String]) -> R<Vec<Col>> {
    if aliases.len() > cols.len() {
        return Err(Unsupported);
    }
    for (c, a) in cols.iter_mut().zip(aliases) {
        c.name = a.clone();
    }
    Ok(cols)
}

/// A FROM function's default name: the function's own.
fn function_name(f: &pb::RangeFunction) -> R<String> {
    let Some(N::List(pair)) = f.functions.first().and_then(|n| n.node.as_ref()) else {
        return Err(Unsupported);
    };
    match pair.items.first().and_then(|n| n.node.as_ref()) {
        Some(N::FuncCall(fc)) => string_list(&fc.funcname)?.pop().ok_or(Unsupported),
        _ => Err(Unsupported),
    }
}
