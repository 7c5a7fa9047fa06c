//! Literal constants of a statement text, and the parse-tree constants
//! they became: what lets the parse cache serve `SELECT … WHERE aid = 17`
//! from the tree of `SELECT … WHERE aid = 4711`.
//!
//! [`scan`] is a small SQL lexer that finds the plain literals of a text:
//! integers, decimals and `'…'` strings (no `E''`, `B''`, `X''`, `U&''`,
//! no dollar quoting, no negative signs: those stay part of the text). It
//! skips comments, quoted identifiers and dollar-quoted bodies, so it never
//! mistakes their insides for literals. [`shape`] is the text with each
//! literal replaced by a class marker; texts of one shape differ only in
//! their literal values.
//!
//! ```text
//!   text   EXECUTE sel(10 * 57 + 3)          UPDATE t SET v = 'x' WHERE id = 5
//!   shape  EXECUTE sel(\x01I * \x01I + \x01I)  UPDATE t SET v = \x01S WHERE id = \x01I
//! ```
//!
//! [`constants`] walks a parse tree and calls back on every `A_Const`, so
//! a literal can be matched to the constant at its location and later
//! replaced. The walk knows the node types of everyday DML (SELECT without
//! WITH/window/INTO, INSERT … VALUES/SELECT, UPDATE, DELETE, EXECUTE) and
//! their expressions, and reports any other node type as unknown: a tree it
//! cannot walk completely is never used as a template, so no constant is
//! ever left holding another text's value.

use crate::lex::{self, is_ident};
use pg_query::protobuf::{a_const, node::Node as N, AConst, Node, RawStmt, SelectStmt};

/// The class of a literal: which `A_Const` the grammar makes of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// Decimal digits that fit in int4: an integer constant.
    Int,
    /// Other numbers (decimals, exponents, beyond int4): a float constant
    /// holding the literal's text.
    Num,
    /// A plain `'…'` string (`''` is a quote): a string constant.
    Str,
}

impl Class {
    fn marker(self) -> &'static str {
        match self {
            Class::Int => "\u{1}I",
            Class::Num => "\u{1}N",
            Class::Str => "\u{1}S",
        }
    }
}

/// A literal: its class and byte range in the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Lit {
    pub class: Class,
    pub start: usize,
    pub end: usize,
}

/// The plain literals of `text`, in order; None when the text has a
/// construct the scanner does not follow to its end (an unterminated
/// quote or comment) or holds the marker byte itself.
pub(crate) fn scan(text: &str) -> Option<Vec<Lit>> {
    let b = text.as_bytes();
    let n = b.len();
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        let c = b[i];
        let prev = if i > 0 { b[i - 1] } else { b' ' };
        let next = if i + 1 < n { b[i + 1] } else { 0 };
        match c {
            0x01 => return None,
            b'\'' => {
                // A prefix letter (E'', B'', X'', N'', U&'') makes another
                // kind of literal: skip it, following E's backslashes.
                let prefixed = is_ident(prev) || prev == b'&';
                let end = lex::quoted_end(b, i, lex::e_prefixed(b, i))?;
                if !prefixed {
                    out.push(Lit {
                        class: Class::Str,
                        start: i,
                        end,
                    });
                }
                i = end;
            }
            b'"' => i = lex::quoted_end(b, i, false)?,
            b'-' if next == b'-' => i = lex::line_comment_end(b, i),
            b'/' if next == b'*' => i = lex::block_comment_end(b, i)?,
            b'$' if !is_ident(prev) => {
                if next.is_ascii_digit() {
                    i += 1;
                    while i < n && b[i].is_ascii_digit() {
                        i += 1;
                    }
                    continue;
                }
                // $tag$ … $tag$ (tag: identifier characters, no $).
                let mut j = i + 1;
                while j < n
                    && is_ident(b[j])
                    && b[j] != b'$'
                    && !(j == i + 1 && b[j].is_ascii_digit())
                {
                    j += 1;
                }
                if j < n && b[j] == b'$' {
                    let tag = &b[i..=j];
                    let body = j + 1;
                    let close = b[body..].windows(tag.len()).position(|w| w == tag)?;
                    i = body + close + tag.len();
                } else {
                    i += 1;
                }
            }
            b'0'..=b'9' | b'.' if !is_ident(prev) && (c != b'.' || next.is_ascii_digit()) => {
                let start = i;
                let mut real = false;
                while i < n && b[i].is_ascii_digit() {
                    i += 1;
                }
                if i < n && b[i] == b'.' && !(i + 1 < n && b[i + 1] == b'.') {
                    real = true;
                    i += 1;
                    while i < n && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
                if i < n
                    && (b[i] == b'e' || b[i] == b'E')
                    && (b.get(i + 1).is_some_and(u8::is_ascii_digit)
                        || (matches!(b.get(i + 1), Some(b'+' | b'-'))
                            && b.get(i + 2).is_some_and(u8::is_ascii_digit)))
                {
                    real = true;
                    i += 2;
                    while i < n && b[i].is_ascii_digit() {
                        i += 1;
                    }
                }
                if i < n && is_ident(b[i]) {
                    // 0x1F, 1_000, 12abc: not a plain number; skip it all.
                    while i < n && is_ident(b[i]) {
                        i += 1;
                    }
                    continue;
                }
                let class = if !real && text[start..i].parse::<i32>().is_ok() {
                    Class::Int
                } else {
                    Class::Num
                };
                out.push(Lit {
                    class,
                    start,
                    end: i,
                });
            }
            c if is_ident(c) => {
                while i < n && is_ident(b[i]) {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    Some(out)
}

/// `text` with the literals `lits` replaced by their class markers.
pub(crate) fn shape(text: &str, lits: &[Lit]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for l in lits {
        out.push_str(&text[at..l.start]);
        out.push_str(l.class.marker());
        at = l.end;
    }
    out.push_str(&text[at..]);
    out
}

/// The constant the grammar makes of literal `l` of `text`.
pub(crate) fn value(text: &str, l: &Lit) -> a_const::Val {
    let s = &text[l.start..l.end];
    match l.class {
        Class::Int => a_const::Val::Ival(pg_query::protobuf::Integer {
            ival: s.parse().expect("an int4 literal"),
        }),
        Class::Num => a_const::Val::Fval(pg_query::protobuf::Float {
            fval: s.to_string(),
        }),
        Class::Str => a_const::Val::Sval(pg_query::protobuf::String {
            sval: s[1..s.len() - 1].replace("''", "'"),
        }),
    }
}

/// Call `f` on every `A_Const` of the statements; false (stopping early)
/// at a node type the walk does not know.
pub(crate) fn constants(stmts: &mut [RawStmt], f: &mut dyn FnMut(&mut AConst)) -> bool {
    stmts.iter_mut().all(|s| {
        let Some(n) = s.stmt.as_deref_mut() else {
            return true;
        };
        match &mut n.node {
            Some(N::SelectStmt(_))
            | Some(N::InsertStmt(_))
            | Some(N::UpdateStmt(_))
            | Some(N::DeleteStmt(_))
            | Some(N::ExecuteStmt(_)) => node(n, f),
            // Statements without constants (BEGIN, SAVEPOINT, …) keep
            // the text's shape exactly: fine, as long as nothing varies.
            Some(N::TransactionStmt(_)) => true,
            _ => false,
        }
    })
}

fn nodes(list: &mut [Node], f: &mut dyn FnMut(&mut AConst)) -> bool {
    list.iter_mut().all(|n| node(n, f))
}

fn opt(n: &mut Option<Box<Node>>, f: &mut dyn FnMut(&mut AConst)) -> bool {
    n.as_deref_mut().is_none_or(|n| node(n, f))
}

fn select(s: &mut SelectStmt, f: &mut dyn FnMut(&mut AConst)) -> bool {
    if s.into_clause.is_some() || s.with_clause.is_some() || !s.window_clause.is_empty() {
        return false;
    }
    nodes(&mut s.distinct_clause, f)
        && nodes(&mut s.target_list, f)
        && nodes(&mut s.from_clause, f)
        && opt(&mut s.where_clause, f)
        && nodes(&mut s.group_clause, f)
        && opt(&mut s.having_clause, f)
        && nodes(&mut s.values_lists, f)
        && nodes(&mut s.sort_clause, f)
        && opt(&mut s.limit_offset, f)
        && opt(&mut s.limit_count, f)
        && nodes(&mut s.locking_clause, f)
        && s.larg.as_deref_mut().is_none_or(|l| select(l, f))
        && s.rarg.as_deref_mut().is_none_or(|r| select(r, f))
}

fn type_name(t: &mut pg_query::protobuf::TypeName, f: &mut dyn FnMut(&mut AConst)) -> bool {
    nodes(&mut t.names, f) && nodes(&mut t.typmods, f) && nodes(&mut t.array_bounds, f)
}

fn alias(a: &mut pg_query::protobuf::Alias, f: &mut dyn FnMut(&mut AConst)) -> bool {
    nodes(&mut a.colnames, f)
}

fn range_var(r: &mut pg_query::protobuf::RangeVar, f: &mut dyn FnMut(&mut AConst)) -> bool {
    r.alias.as_mut().is_none_or(|a| alias(a, f))
}

/// Every child of every known node type; anything else is unknown.
fn node(n: &mut Node, f: &mut dyn FnMut(&mut AConst)) -> bool {
    let Some(inner) = n.node.as_mut() else {
        return true;
    };
    match inner {
        N::AConst(c) => {
            f(c);
            true
        }
        N::String(_) | N::Integer(_) | N::Float(_) | N::Boolean(_) | N::BitString(_) => true,
        N::AStar(_) | N::ParamRef(_) => true,
        N::SqlvalueFunction(s) => opt(&mut s.xpr, f),
        N::ColumnRef(c) => nodes(&mut c.fields, f),
        N::List(l) => nodes(&mut l.items, f),
        N::AExpr(a) => nodes(&mut a.name, f) && opt(&mut a.lexpr, f) && opt(&mut a.rexpr, f),
        N::BoolExpr(b) => opt(&mut b.xpr, f) && nodes(&mut b.args, f),
        N::NullTest(t) => opt(&mut t.xpr, f) && opt(&mut t.arg, f),
        N::TypeCast(t) => {
            opt(&mut t.arg, f) && t.type_name.as_mut().is_none_or(|t| type_name(t, f))
        }
        N::TypeName(t) => type_name(t, f),
        N::FuncCall(c) => {
            c.over.is_none()
                && nodes(&mut c.funcname, f)
                && nodes(&mut c.args, f)
                && nodes(&mut c.agg_order, f)
                && opt(&mut c.agg_filter, f)
        }
        N::ResTarget(r) => nodes(&mut r.indirection, f) && opt(&mut r.val, f),
        N::SortBy(s) => opt(&mut s.node, f) && nodes(&mut s.use_op, f),
        N::RangeVar(r) => range_var(r, f),
        N::Alias(a) => alias(a, f),
        N::JoinExpr(j) => {
            opt(&mut j.larg, f)
                && opt(&mut j.rarg, f)
                && nodes(&mut j.using_clause, f)
                && j.join_using_alias.as_mut().is_none_or(|a| alias(a, f))
                && opt(&mut j.quals, f)
                && j.alias.as_mut().is_none_or(|a| alias(a, f))
        }
        N::LockingClause(l) => nodes(&mut l.locked_rels, f),
        N::AIndirection(a) => opt(&mut a.arg, f) && nodes(&mut a.indirection, f),
        N::AIndices(a) => opt(&mut a.lidx, f) && opt(&mut a.uidx, f),
        N::AArrayExpr(a) => nodes(&mut a.elements, f),
        N::RowExpr(r) => opt(&mut r.xpr, f) && nodes(&mut r.args, f) && nodes(&mut r.colnames, f),
        N::CoalesceExpr(c) => opt(&mut c.xpr, f) && nodes(&mut c.args, f),
        N::MinMaxExpr(m) => opt(&mut m.xpr, f) && nodes(&mut m.args, f),
        N::CaseExpr(c) => {
            opt(&mut c.xpr, f)
                && opt(&mut c.arg, f)
                && nodes(&mut c.args, f)
                && opt(&mut c.defresult, f)
        }
        N::CaseWhen(w) => opt(&mut w.xpr, f) && opt(&mut w.expr, f) && opt(&mut w.result, f),
        N::SubLink(s) => {
            opt(&mut s.xpr, f)
                && opt(&mut s.testexpr, f)
                && nodes(&mut s.oper_name, f)
                && opt(&mut s.subselect, f)
        }
        N::SelectStmt(s) => select(s, f),
        N::InsertStmt(i) => {
            i.on_conflict_clause.is_none()
                && i.with_clause.is_none()
                && i.relation.as_mut().is_none_or(|r| range_var(r, f))
                && nodes(&mut i.cols, f)
                && opt(&mut i.select_stmt, f)
                && nodes(&mut i.returning_list, f)
        }
        N::UpdateStmt(u) => {
            u.with_clause.is_none()
                && u.relation.as_mut().is_none_or(|r| range_var(r, f))
                && nodes(&mut u.target_list, f)
                && opt(&mut u.where_clause, f)
                && nodes(&mut u.from_clause, f)
                && nodes(&mut u.returning_list, f)
        }
        N::DeleteStmt(d) => {
            d.with_clause.is_none()
                && d.relation.as_mut().is_none_or(|r| range_var(r, f))
                && nodes(&mut d.using_clause, f)
                && opt(&mut d.where_clause, f)
                && nodes(&mut d.returning_list, f)
        }
        N::ExecuteStmt(e) => nodes(&mut e.params, f),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lits(text: &str) -> Vec<(&str, Class)> {
        scan(text)
            .unwrap()
            .iter()
            .map(|l| (&text[l.start..l.end], l.class))
            .collect()
    }

    #[test]
    fn the_scanner_finds_plain_literals_only() {
        use Class::*;
        assert_eq!(
            lits("select 1, 2.5, 'a''b', 3e4, 99999999999, .5 from t1 where x = $1"),
            vec![
                ("1", Int),
                ("2.5", Num),
                ("'a''b'", Str),
                ("3e4", Num),
                ("99999999999", Num),
                (".5", Num)
            ]
        );
        // Prefixed strings, quoted identifiers, comments, dollar quotes,
        // identifiers with digits, odd numbers: none of them.
        assert_eq!(
            lits("select E'x\\'1', B'01', X'ff', U&'d', \"c 2\", t.a2, a$1, 0x1F, 1_000 -- 5\n /* 6 /* 7 */ */ $$ 8 $$ $q$ '9' $q$"),
            vec![]
        );
        assert_eq!(lits("select -5, a-1"), vec![("5", Int), ("1", Int)]);
        assert!(scan("select 'open").is_none());
        assert!(scan("select /* open").is_none());
        assert!(scan("select $a$ open").is_none());
        assert!(scan("select \u{1}").is_none());
        let t = "update t set v = 'x' where id = 5";
        let l = scan(t).unwrap();
        assert_eq!(shape(t, &l), "update t set v = \u{1}S where id = \u{1}I");
    }
}
