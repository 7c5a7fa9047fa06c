//! A view's definition as PostgreSQL 15's deparser (ruleutils.c) prints
//! it: `pg_get_viewdef`, `pg_views.definition`,
//! `information_schema.views.view_definition` and psql's `\d+`.
//!
//! Nestor keeps a view's query as SQL text and re-plans it from that text;
//! the text stays as it is. This module reads that text's parse tree and
//! prints it the way ruleutils prints the analyzed query PostgreSQL keeps:
//!
//! - layout: the target list one column per line (`,\n    `), FROM,
//!   WHERE, GROUP BY, HAVING, ORDER BY, OFFSET, LIMIT on their own lines
//!   with ruleutils' indentation (appendContextKeyword); the wrap-column
//!   form (`pg_get_viewdef(oid, int)`) joins target entries while the line
//!   fits;
//! - names: every column reference qualified by its range-table name
//!   (PostgreSQL 15 views always carry OLD/NEW entries, so the deparser
//!   always qualifies); `*` expanded to the columns; `AS name` only where
//!   the output name differs from a plain column's own;
//! - types: a small analysis (`expr`) gives each expression its type so
//!   literals print as the constants the parser made (`'abc'::text`, `1`,
//!   `1.5`) and the implicit casts PostgreSQL shows on operator and
//!   function arguments appear (`(t.v)::text`, `(t.a)::numeric`);
//! - the rewrites parse analysis does: `IN (...)` is `= ANY (ARRAY[...])`,
//!   `BETWEEN` two comparisons, `LIKE` the `~~` operator;
//! - parentheses: every operator parenthesized, unless `pretty` asks for
//!   PRETTY_PAREN (isSimpleNode's rules).
//!
//! - joins: `JOIN ... ON`, `LEFT JOIN`, `CROSS JOIN`, USING and NATURAL
//!   joins with their merged columns (buildMergedJoinVar's choice of
//!   side), aliased joins; subqueries in FROM and in expressions; set
//!   operations, WITH [RECURSIVE], VALUES; aggregates with DISTINCT,
//!   ORDER BY and FILTER; window functions, named windows and frames;
//!   CASE, COALESCE/NULLIF/GREATEST/LEAST, IS [NOT] DISTINCT FROM,
//!   EXTRACT/SUBSTRING/POSITION/TRIM in their SQL syntax, json operators,
//!   `op ANY (array)`, row equality, a table of common built-in functions
//!   (`expr::function_signature`) and user functions with one plain
//!   definition.
//!
//! What it leaves out: anything it cannot type or does not know (other
//! built-in functions and operators, overloaded or polymorphic user
//! functions, ordering row comparisons and whole-row references, GROUPING
//! SETS, `JOIN ... USING (...) AS`, ROWS FROM, SEARCH/CYCLE, domain
//! columns, literals with backslashes) makes `definition` return None and
//! the caller shows the stored text on one line, so an unusual view shows
//! its query as written rather than a guess.
//! Work is bounded: the text is at most `SOURCE_BYTES_MAX` and the
//! deparser gives up after `STEPS_MAX` nodes (a subquery in an
//! expression is rendered twice: once to learn its type) or near the
//! stack limit.

mod expr;
mod from;

use nestor_catalog::Catalog;
use nestor_common::keywords::quote_identifier;
use nestor_parser::pb;
use nestor_types::{DataType, EvalCtx};

use expr::E;
use pb::node::Node as N;

/// Longer stored queries keep their stored form.
const SOURCE_BYTES_MAX: usize = 256 * 1024;
/// Nodes deparsed before giving up (a bound on work, not a depth limit:
/// the parser's own depth check has run on the text).
const STEPS_MAX: usize = 200_000;
/// ruleutils' indentation steps.
const INDENT_STD: i32 = 8;
const INDENT_JOIN: i32 = 4;
const INDENT_VAR: i32 = 4;
const INDENT_LIMIT: i32 = 40;

/// How to print: `pretty` is PRETTYFLAG_PAREN (fewer parentheses);
/// `wrap` ruleutils' wrapColumn (0: every target entry on its own line).
#[derive(Clone, Copy)]
pub(crate) struct Layout {
    pub pretty: bool,
    pub wrap: i32,
}

/// The construct the deparser does not print as PostgreSQL would.
#[derive(Debug)]
pub(crate) struct Unsupported;

type R<T> = Result<T, Unsupported>;

/// A view query's display form (without the trailing `;`), or None when
/// it has a construct this module does not cover. `columns` are the
/// view's output columns (its names win over the query's, as ruleutils
/// uses the view's tuple descriptor).
pub(crate) fn definition(
    c: &Catalog,
    eval: &EvalCtx,
    query: &str,
    columns: &[(String, DataType)],
    layout: Layout,
) -> Option<String> {
    if query.len() > SOURCE_BYTES_MAX {
        return None;
    }
    let stmts = nestor_parser::parse_sql(query).ok()?;
    let [stmt] = stmts.as_slice() else {
        return None;
    };
    let Some(N::SelectStmt(sel)) = stmt.stmt.as_ref().and_then(|s| s.node.as_ref()) else {
        return None;
    };
    let mut dp = Deparser::new(c, eval, layout);
    let out = dp.query(sel, Some(columns), true).ok()?;
    (out.len() == columns.len()).then_some(dp.buf)
}

/// One output column of a query level: its name and type.
#[derive(Clone, Debug)]
struct Col {
    name: String,
    ty: Option<DataType>,
}

/// A range-table entry as the deparser sees it: the name it prints and
/// qualifies columns with, and its columns.
#[derive(Clone, Debug)]
struct Rte {
    name: String,
    /// The name the query itself uses for it (its alias or relation
    /// name), which qualified references match.
    refname: String,
    cols: Vec<Col>,
    /// Inside an aliased join: not visible to references.
    hidden: bool,
}

/// The range tables of one query level, outermost first in `Deparser`.
#[derive(Default)]
struct Level {
    rtes: Vec<Rte>,
    /// USING columns of joins: unqualified name -> what it stands for.
    merged: Vec<(String, E)>,
    /// Each top-level FROM item's columns, in order (`*`).
    items: Vec<Vec<(String, E)>>,
    ctes: Vec<(String, Vec<Col>)>,
    /// The FROM entries' names, chosen when the level opens.
    names: Option<Vec<String>>,
    /// WINDOW clause: named windows.
    windows: Vec<(String, expr::WindowSpec)>,
}

struct Deparser<'a> {
    c: &'a Catalog,
    /// The session's styles, for printing constants (dates, intervals)
    /// as their output functions do.
    eval: &'a EvalCtx,
    layout: Layout,
    indent: i32,
    buf: String,
    levels: Vec<Level>,
    /// Range-table names in use by enclosing levels (ruleutils makes
    /// them unique across levels: a second `t` prints as `t_1`).
    used: Vec<String>,
    steps: usize,
}

impl<'a> Deparser<'a> {
    fn new(c: &'a Catalog, eval: &'a EvalCtx, layout: Layout) -> Self {
        Deparser {
            c,
            eval,
            layout,
            indent: 0,
            buf: String::new(),
            levels: Vec::new(),
            used: Vec::new(),
            steps: 0,
        }
    }

    /// Counts a node against STEPS_MAX; a statement nested deep enough
    /// to near max_stack_depth keeps its stored text too.
    fn step(&mut self) -> R<()> {
        self.steps += 1;
        if self.steps > STEPS_MAX {
            return Err(Unsupported);
        }
        nestor_common::stack::check().map_err(|_| Unsupported)
    }

    /// appendContextKeyword: a new line at the current indentation.
    fn keyword(&mut self, s: &str, before: i32, after: i32, plus: i32) {
        self.indent += before;
        let trimmed = self.buf.trim_end_matches(' ').len();
        self.buf.truncate(trimmed);
        self.buf.push('\n');
        let amount = if self.indent < INDENT_LIMIT {
            self.indent.max(0) + plus
        } else {
            (INDENT_LIMIT + (self.indent - INDENT_LIMIT) / (INDENT_STD / 2)) % INDENT_LIMIT + plus
        };
        self.buf
            .extend(std::iter::repeat_n(' ', amount.max(0) as usize));
        self.buf.push_str(s);
        self.indent = (self.indent + after).max(0);
    }

    /// get_query_def: one query at the current indentation, in a context
    /// of its own (its indentation changes do not leak out).
    fn query(
        &mut self,
        sel: &pb::SelectStmt,
        result: Option<&[(String, DataType)]>,
        names_visible: bool,
    ) -> R<Vec<Col>> {
        self.step()?;
        let saved = self.indent;
        let used = self.used.len();
        self.levels.push(Level::default());
        let out = self.select(sel, result, names_visible);
        self.levels.pop();
        self.used.truncate(used);
        self.indent = saved;
        out
    }

    /// get_select_query_def.
    fn select(
        &mut self,
        sel: &pb::SelectStmt,
        result: Option<&[(String, DataType)]>,
        names_visible: bool,
    ) -> R<Vec<Col>> {
        if sel.into_clause.is_some() || !sel.locking_clause.is_empty() {
            return Err(Unsupported);
        }
        if sel.op == pb::SetOperation::SetopNone as i32 {
            let names = self.level_names(&sel.from_clause)?;
            self.level().names = Some(names);
        }
        if let Some(w) = &sel.with_clause {
            self.with_clause(w)?;
        }
        if sel.op != pb::SetOperation::SetopNone as i32 {
            let cols = self.setop(sel, result, names_visible)?;
            self.order_by(&sel.sort_clause, None, &cols)?;
            self.limit(sel)?;
            return Ok(cols);
        }
        let (cols, targets) = self.basic_select(sel, result, names_visible)?;
        self.order_by(&sel.sort_clause, Some(&targets), &cols)?;
        self.limit(sel)?;
        Ok(cols)
    }

    /// get_with_clause.
    fn with_clause(&mut self, w: &pb::WithClause) -> R<()> {
        self.indent += INDENT_STD;
        self.buf.push(' ');
        let mut sep = if w.recursive {
            "WITH RECURSIVE "
        } else {
            "WITH "
        };
        for node in &w.ctes {
            let Some(N::CommonTableExpr(cte)) = node.node.as_ref() else {
                return Err(Unsupported);
            };
            if cte.search_clause.is_some() || cte.cycle_clause.is_some() {
                return Err(Unsupported);
            }
            let Some(N::SelectStmt(q)) = cte.ctequery.as_ref().and_then(|q| q.node.as_ref()) else {
                return Err(Unsupported);
            };
            self.buf.push_str(sep);
            self.buf.push_str(&quote_identifier(&cte.ctename));
            let aliases = string_list(&cte.aliascolnames)?;
            if !aliases.is_empty() {
                let quoted: Vec<String> = aliases.iter().map(|a| quote_identifier(a)).collect();
                self.buf.push_str(&format!("({})", quoted.join(", ")));
            }
            self.buf.push_str(" AS ");
            match cte.ctematerialized {
                x if x == pb::CteMaterialize::Always as i32 => self.buf.push_str("MATERIALIZED "),
                x if x == pb::CteMaterialize::Never as i32 => {
                    self.buf.push_str("NOT MATERIALIZED ")
                }
                _ => {}
            }
            self.buf.push('(');
            self.keyword("", 0, 0, 0);
            if w.recursive {
                // The recursive term reads the query itself: its columns
                // are those of the non-recursive term.
                let cols = self.recursive_columns(q, &aliases)?;
                self.level().ctes.push((cte.ctename.clone(), cols));
            }
            let cols = rename_cols(self.query(q, None, true)?, &aliases)?;
            self.keyword("", 0, 0, 0);
            self.buf.push(')');
            let ctes = &mut self.level().ctes;
            ctes.retain(|(n, _)| n != &cte.ctename);
            ctes.push((cte.ctename.clone(), cols));
            sep = ", ";
        }
        self.indent -= INDENT_STD;
        self.keyword("", 0, 0, 0);
        Ok(())
    }

    /// A recursive WITH query's columns: its non-recursive term's,
    /// from a rendering thrown away.
    fn recursive_columns(&mut self, q: &pb::SelectStmt, aliases: &[String]) -> R<Vec<Col>> {
        let first = match q.larg.as_deref() {
            Some(l) if q.op == pb::SetOperation::SetopUnion as i32 => l,
            _ => q,
        };
        let outer = std::mem::take(&mut self.buf);
        let saved = self.indent;
        let cols = self.query(first, None, true);
        self.buf = outer;
        self.indent = saved;
        rename_cols(cols?, aliases)
    }

    fn level(&mut self) -> &mut Level {
        self.levels.last_mut().expect("a query level is open")
    }

    /// get_setop_query over the parse tree's set-operation nodes.
    fn setop(
        &mut self,
        sel: &pb::SelectStmt,
        result: Option<&[(String, DataType)]>,
        names_visible: bool,
    ) -> R<Vec<Col>> {
        self.step()?;
        if sel.op == pb::SetOperation::SetopNone as i32 {
            let paren = sel.with_clause.is_some()
                || !sel.sort_clause.is_empty()
                || sel.limit_count.is_some()
                || sel.limit_offset.is_some();
            if paren {
                self.buf.push('(');
            }
            let cols = self.query(sel, result, names_visible)?;
            if paren {
                self.buf.push(')');
            }
            return Ok(cols);
        }
        let (Some(l), Some(r)) = (sel.larg.as_deref(), sel.rarg.as_deref()) else {
            return Err(Unsupported);
        };
        let none = pb::SetOperation::SetopNone as i32;
        let lparen = l.op != none && (l.op != sel.op || l.all != sel.all);
        let sub = if lparen {
            self.buf.push('(');
            self.keyword("", INDENT_STD, 0, 0);
            INDENT_STD
        } else {
            0
        };
        let cols = self.setop(l, result, names_visible)?;
        if lparen {
            self.keyword(") ", -sub, 0, 0);
        } else {
            self.keyword("", -sub, 0, 0);
        }
        self.buf.push_str(match sel.op {
            x if x == pb::SetOperation::SetopUnion as i32 => "UNION ",
            x if x == pb::SetOperation::SetopIntersect as i32 => "INTERSECT ",
            x if x == pb::SetOperation::SetopExcept as i32 => "EXCEPT ",
            _ => return Err(Unsupported),
        });
        if sel.all {
            self.buf.push_str("ALL ");
        }
        let rparen = r.op != none;
        let sub = if rparen {
            self.buf.push('(');
            INDENT_STD
        } else {
            0
        };
        self.keyword("", sub, 0, 0);
        let rcols = self.setop(r, result, false)?;
        self.indent -= sub;
        if rparen {
            self.keyword(")", 0, 0, 0);
        }
        // The branches print as they are (PostgreSQL coerces them above
        // the branch queries); their types must meet in a common one.
        if rcols.len() != cols.len() {
            return Err(Unsupported);
        }
        cols.into_iter()
            .zip(rcols)
            .map(|(a, b)| {
                let (Some(x), Some(y)) = (a.ty, b.ty) else {
                    return Err(Unsupported);
                };
                Ok(Col {
                    name: a.name,
                    ty: Some(expr::common_type(x, y)?),
                })
            })
            .collect()
    }

    /// get_basic_select_query.
    fn basic_select(
        &mut self,
        sel: &pb::SelectStmt,
        result: Option<&[(String, DataType)]>,
        names_visible: bool,
    ) -> R<(Vec<Col>, Vec<Target>)> {
        self.indent += INDENT_STD;
        self.buf.push(' ');
        if !sel.values_lists.is_empty() {
            let cols = self.values(&sel.values_lists, result)?;
            return Ok((cols, Vec::new()));
        }
        // FROM first: the target list and WHERE bind to its range table.
        let from = self.read_from(&sel.from_clause)?;
        self.window_clause(&sel.window_clause)?;
        let mut targets = self.targets(&sel.target_list)?;
        if let Some(r) = result {
            // `SELECT * FROM t` keeps the columns t had at CREATE VIEW:
            // those added since come last.
            if targets.len() > r.len() && star_over_one_relation(sel) {
                targets.truncate(r.len());
            }
        }
        self.buf.push_str("SELECT");
        if !sel.distinct_clause.is_empty() {
            self.distinct(&sel.distinct_clause, &targets)?;
        }
        let cols = self.target_list(&targets, result, names_visible)?;
        self.print_from(&from)?;
        if let Some(w) = sel.where_clause.as_deref() {
            let e = self.analyze(w)?;
            self.keyword(" WHERE ", -INDENT_STD, INDENT_STD, 1);
            self.expr(&e, false)?;
        }
        if !sel.group_clause.is_empty() {
            self.keyword(" GROUP BY ", -INDENT_STD, INDENT_STD, 1);
            if sel.group_distinct {
                self.buf.push_str("DISTINCT ");
            }
            let mut seen = Vec::new();
            for g in &sel.group_clause {
                let e = self.sort_group_expr(g, &targets, true)?;
                let text = self.render(|d| d.sortgroup(&e))?;
                self.list_item(&mut seen, text);
            }
        }
        if let Some(h) = sel.having_clause.as_deref() {
            let e = self.analyze(h)?;
            self.keyword(" HAVING ", -INDENT_STD, INDENT_STD, 0);
            self.expr(&e, false)?;
        }
        self.print_windows()?;
        Ok((cols, targets))
    }

    /// get_values_def: `VALUES (a,b), (c,d)` (no space after the commas
    /// inside a row, as ruleutils prints them); the columns are
    /// `column1`...
    fn values(&mut self, rows: &[pb::Node], result: Option<&[(String, DataType)]>) -> R<Vec<Col>> {
        let mut analyzed: Vec<Vec<E>> = Vec::new();
        for r in rows {
            let Some(N::List(items)) = r.node.as_ref() else {
                return Err(Unsupported);
            };
            let row = items
                .items
                .iter()
                .map(|i| self.analyze_value(i))
                .collect::<R<Vec<E>>>()?;
            if analyzed.first().is_some_and(|f| f.len() != row.len()) {
                return Err(Unsupported);
            }
            analyzed.push(row);
        }
        let width = analyzed.first().map_or(0, Vec::len);
        let mut types = Vec::with_capacity(width);
        for col in 0..width {
            let column: Vec<E> = analyzed.iter().map(|r| r[col].clone()).collect();
            let (column, ty) = expr::unify(column)?;
            for (r, e) in analyzed.iter_mut().zip(column) {
                r[col] = e;
            }
            types.push(ty);
        }
        let cols: Vec<Col> = types
            .into_iter()
            .enumerate()
            .map(|(i, ty)| Col {
                name: format!("column{}", i + 1),
                ty: Some(ty),
            })
            .collect();
        if let Some(r) = result {
            // A view whose names differ from columnN prints a SELECT over
            // the VALUES instead (not covered).
            if r.iter().zip(&cols).any(|(a, b)| a.0 != b.name) {
                return Err(Unsupported);
            }
        }
        self.buf.push_str("VALUES ");
        for (i, row) in analyzed.iter().enumerate() {
            if i > 0 {
                self.buf.push_str(", ");
            }
            self.buf.push('(');
            for (j, e) in row.iter().enumerate() {
                if j > 0 {
                    self.buf.push(',');
                }
                self.expr(e, false)?;
            }
            self.buf.push(')');
        }
        Ok(cols)
    }

    /// WINDOW clause: each named window analyzed into the level.
    fn window_clause(&mut self, defs: &[pb::Node]) -> R<()> {
        for d in defs {
            let Some(N::WindowDef(w)) = d.node.as_ref() else {
                return Err(Unsupported);
            };
            let spec = self.window_spec_of(w)?;
            self.level().windows.push((w.name.clone(), spec));
        }
        Ok(())
    }

    /// get_rule_windowclause.
    fn print_windows(&mut self) -> R<()> {
        let windows = std::mem::take(&mut self.level().windows);
        for (i, (name, spec)) in windows.iter().enumerate() {
            if i == 0 {
                self.keyword(" WINDOW ", -INDENT_STD, INDENT_STD, 1);
            } else {
                self.buf.push_str(", ");
            }
            self.buf.push_str(&quote_identifier(name));
            self.buf.push_str(" AS ");
            self.window_spec(spec)?;
        }
        self.level().windows = windows;
        Ok(())
    }

    /// DISTINCT [ON (...)].
    fn distinct(&mut self, on: &[pb::Node], targets: &[Target]) -> R<()> {
        let on: Vec<&pb::Node> = on.iter().filter(|n| n.node.is_some()).collect();
        if on.is_empty() {
            self.buf.push_str(" DISTINCT");
            return Ok(());
        }
        self.buf.push_str(" DISTINCT ON (");
        for (i, n) in on.into_iter().enumerate() {
            if i > 0 {
                self.buf.push_str(", ");
            }
            let e = self.sort_group_expr(n, targets, false)?;
            self.sortgroup(&e)?;
        }
        self.buf.push(')');
        Ok(())
    }

    /// get_target_list: each entry printed on its own, then placed on a
    /// new line unless the wrap column leaves room for it.
    fn target_list(
        &mut self,
        targets: &[Target],
        result: Option<&[(String, DataType)]>,
        names_visible: bool,
    ) -> R<Vec<Col>> {
        let mut cols = Vec::with_capacity(targets.len());
        let mut last_multiline = false;
        for (i, t) in targets.iter().enumerate() {
            self.buf.push_str(if i == 0 { " " } else { ", " });
            let outer = std::mem::take(&mut self.buf);
            let natural = match &t.expr {
                E::Var { col, .. } => {
                    self.expr(&t.expr, true)?;
                    Some(col.clone())
                }
                e => {
                    self.expr(e, true)?;
                    (!names_visible).then(|| "?column?".to_string())
                }
            };
            let name = result
                .and_then(|r| r.get(i))
                .map_or_else(|| t.name.clone(), |r| r.0.clone());
            if natural.as_deref() != Some(name.as_str()) {
                self.buf.push_str(" AS ");
                self.buf.push_str(&quote_identifier(&name));
            }
            let item = std::mem::replace(&mut self.buf, outer);
            if self.layout.wrap >= 0 {
                if item.starts_with('\n') {
                    let trimmed = self.buf.trim_end_matches(' ').len();
                    self.buf.truncate(trimmed);
                } else {
                    let line = self.buf.rsplit('\n').next().unwrap_or("").len();
                    let overflow = line + item.len() > self.layout.wrap as usize;
                    if i > 0 && (overflow || last_multiline) {
                        self.keyword("", -INDENT_STD, INDENT_STD, INDENT_VAR);
                    }
                }
                last_multiline = item.trim_start_matches('\n').contains('\n');
            }
            self.buf.push_str(&item);
            cols.push(Col {
                name,
                ty: t.expr.ty(),
            });
        }
        Ok(cols)
    }

    /// ORDER BY: in a set operation by output column number (ruleutils'
    /// force_colno), otherwise by expression.
    fn order_by(&mut self, sorts: &[pb::Node], targets: Option<&[Target]>, cols: &[Col]) -> R<()> {
        if sorts.is_empty() {
            return Ok(());
        }
        self.keyword(" ORDER BY ", -INDENT_STD, INDENT_STD, 1);
        let mut seen: Vec<String> = Vec::new();
        for s in sorts {
            let Some(N::SortBy(sb)) = s.node.as_ref() else {
                return Err(Unsupported);
            };
            let node = sb.node.as_deref().ok_or(Unsupported)?;
            let (text, ty) = match targets {
                Some(t) => {
                    let e = self.sort_group_expr(node, t, false)?;
                    (self.render(|d| d.sortgroup(&e))?, e.ty())
                }
                None => {
                    let n = self.setop_column(node, cols)?;
                    ((n + 1).to_string(), cols[n].ty)
                }
            };
            if !self.list_item(&mut seen, text) {
                continue;
            }
            self.sort_options(sb, ty)?;
        }
        Ok(())
    }

    /// Print `f`'s output on its own, to compare it with other items.
    fn render(&mut self, f: impl FnOnce(&mut Self) -> R<()>) -> R<String> {
        let outer = std::mem::take(&mut self.buf);
        let r = f(self);
        let text = std::mem::replace(&mut self.buf, outer);
        r.map(|()| text)
    }

    /// Append an ORDER BY / GROUP BY item unless an equal one came
    /// before (the parser keeps one sort or group entry per target, so
    /// PostgreSQL drops the repeat); whether it was appended.
    fn list_item(&mut self, seen: &mut Vec<String>, text: String) -> bool {
        if seen.contains(&text) {
            return false;
        }
        if !seen.is_empty() {
            self.buf.push_str(", ");
        }
        if text.starts_with('\n') {
            let trimmed = self.buf.trim_end_matches(' ').len();
            self.buf.truncate(trimmed);
        }
        self.buf.push_str(&text);
        seen.push(text);
        true
    }

    /// A set operation's ORDER BY item: an output column by name or
    /// number.
    fn setop_column(&self, node: &pb::Node, cols: &[Col]) -> R<usize> {
        match node.node.as_ref() {
            Some(N::AConst(pb::AConst {
                val: Some(pb::a_const::Val::Ival(i)),
                ..
            })) => {
                let n = usize::try_from(i.ival).map_err(|_| Unsupported)?;
                (1..=cols.len())
                    .contains(&n)
                    .then_some(n - 1)
                    .ok_or(Unsupported)
            }
            Some(N::ColumnRef(cr)) => {
                let [name] = string_list(&cr.fields)?
                    .try_into()
                    .map_err(|_| Unsupported)?;
                cols.iter().position(|c| c.name == name).ok_or(Unsupported)
            }
            _ => Err(Unsupported),
        }
    }

    /// ASC/DESC and NULLS as ruleutils prints them: DESC when descending,
    /// NULLS FIRST/LAST only when not the default for the direction.
    fn sort_options(&mut self, sb: &pb::SortBy, ty: Option<DataType>) -> R<()> {
        if ty.is_none() {
            return Err(Unsupported);
        }
        let desc = match sb.sortby_dir {
            x if x == pb::SortByDir::SortbyDesc as i32 => true,
            x if x == pb::SortByDir::SortbyUsing as i32 => return self.sort_using(sb, ty),
            _ => false,
        };
        if desc {
            self.buf.push_str(" DESC");
        }
        match sb.sortby_nulls {
            x if x == pb::SortByNulls::SortbyNullsFirst as i32 && !desc => {
                self.buf.push_str(" NULLS FIRST")
            }
            x if x == pb::SortByNulls::SortbyNullsLast as i32 && desc => {
                self.buf.push_str(" NULLS LAST")
            }
            _ => {}
        }
        Ok(())
    }

    /// `USING op`: `<` and `>` are the type's own orderings (ASC, DESC);
    /// text's pattern operators print as `USING op` with the NULLS
    /// placement always shown (their default: last for `~<~`, first for
    /// `~>~`, as for ASC/DESC).
    fn sort_using(&mut self, sb: &pb::SortBy, ty: Option<DataType>) -> R<()> {
        let op = match string_list(&sb.use_op)?.as_slice() {
            [op] => op.clone(),
            _ => return Err(Unsupported),
        };
        let nulls = sb.sortby_nulls;
        let first = nulls == pb::SortByNulls::SortbyNullsFirst as i32;
        let last = nulls == pb::SortByNulls::SortbyNullsLast as i32;
        let (descending, printed) = match op.as_str() {
            "<" => (false, false),
            ">" => (true, false),
            "~<~" | "~<=~" if ty == Some(DataType::Text) => (false, true),
            "~>~" | "~>=~" if ty == Some(DataType::Text) => (true, true),
            _ => return Err(Unsupported),
        };
        let nulls_first = first || (descending && !last);
        if !printed {
            if descending {
                self.buf.push_str(" DESC");
            }
            match (descending, nulls_first) {
                (false, true) => self.buf.push_str(" NULLS FIRST"),
                (true, false) => self.buf.push_str(" NULLS LAST"),
                _ => {}
            }
            return Ok(());
        }
        self.buf.push_str(" USING ");
        self.buf.push_str(&op);
        self.buf.push_str(if nulls_first {
            " NULLS FIRST"
        } else {
            " NULLS LAST"
        });
        Ok(())
    }

    /// OFFSET, then LIMIT or FETCH FIRST ... WITH TIES.
    fn limit(&mut self, sel: &pb::SelectStmt) -> R<()> {
        if let Some(o) = sel.limit_offset.as_deref() {
            let e = self.analyze_limit(o)?;
            self.keyword(" OFFSET ", -INDENT_STD, INDENT_STD, 0);
            self.expr(&e, false)?;
        }
        if let Some(l) = sel.limit_count.as_deref() {
            let e = self.analyze_limit(l)?;
            if sel.limit_option == pb::LimitOption::WithTies as i32 {
                self.keyword(" FETCH FIRST ", -INDENT_STD, INDENT_STD, 0);
                self.buf.push('(');
                self.expr(&e, false)?;
                self.buf.push_str(") ROWS WITH TIES");
            } else {
                self.keyword(" LIMIT ", -INDENT_STD, INDENT_STD, 0);
                if e.is_null_const() {
                    self.buf.push_str("ALL");
                } else {
                    self.expr(&e, false)?;
                }
            }
        }
        Ok(())
    }
}

/// One target-list entry after `*` expansion: its expression and the
/// name the parser gives its column.
struct Target {
    expr: E,
    name: String,
}

/// `SELECT * FROM rel` (one relation, nothing else in the list).
fn star_over_one_relation(sel: &pb::SelectStmt) -> bool {
    let star = match sel.target_list.as_slice() {
        [t] => match t.node.as_ref() {
            Some(N::ResTarget(rt)) => match rt.val.as_deref().and_then(|v| v.node.as_ref()) {
                Some(N::ColumnRef(cr)) => {
                    matches!(cr.fields.as_slice(), [f] if matches!(f.node, Some(N::AStar(_))))
                }
                _ => false,
            },
            _ => false,
        },
        _ => false,
    };
    star && matches!(sel.from_clause.as_slice(), [f] if matches!(f.node, Some(N::RangeVar(_))))
}

/// Columns renamed by a column alias list (no more names than columns).
fn rename_cols(mut cols: Vec<Col>, aliases: &[String]) -> R<Vec<Col>> {
    if aliases.len() > cols.len() {
        return Err(Unsupported);
    }
    for (c, a) in cols.iter_mut().zip(aliases) {
        c.name = a.clone();
    }
    Ok(cols)
}

/// The strings of a list of String nodes (names, column aliases).
fn string_list(nodes: &[pb::Node]) -> R<Vec<String>> {
    nodes
        .iter()
        .map(|n| match n.node.as_ref() {
            Some(N::String(s)) => Ok(s.sval.clone()),
            _ => Err(Unsupported),
        })
        .collect()
}
