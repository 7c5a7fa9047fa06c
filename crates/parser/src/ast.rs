//! Helpers over the parse tree: node access, names, locations, and error
//! cursors (PostgreSQL's `parser_errposition`).

use nestor_common::DbError;

use crate::pb::Node;
use crate::{location_to_position, NodeEnum};

pub fn err_at(e: DbError, text: &str, location: i32) -> DbError {
    if e.position.is_some() || e.unpositioned {
        return e;
    }
    match location_to_position(text, location) {
        Some(p) => e.with_position(p),
        None => e,
    }
}

pub fn node(n: &Node) -> Result<&NodeEnum, DbError> {
    n.node
        .as_ref()
        .ok_or_else(|| DbError::internal("empty parse tree node"))
}

pub fn str_val(n: &Node) -> Option<&str> {
    match n.node.as_ref()? {
        NodeEnum::String(s) => Some(&s.sval),
        _ => None,
    }
}

pub fn names(list: &[Node]) -> Vec<String> {
    list.iter()
        .filter_map(|n| str_val(n).map(str::to_string))
        .collect()
}

/// Short name of a libpg_query node kind, for 0A000 messages.
pub fn node_kind(n: &NodeEnum) -> String {
    let dbg = format!("{n:?}");
    dbg.split(['(', ' ', '{'])
        .next()
        .unwrap_or("node")
        .to_string()
}

pub fn unsupported_node(n: &NodeEnum) -> DbError {
    DbError::unsupported(format!("expression {}", node_kind(n)))
}

/// Location of a node for error cursors.
pub fn location_of(n: &NodeEnum) -> i32 {
    match n {
        NodeEnum::AConst(c) => c.location,
        NodeEnum::ColumnRef(c) => c.location,
        NodeEnum::ParamRef(p) => p.location,
        NodeEnum::TypeCast(t) => t.location,
        NodeEnum::AExpr(a) => a.location,
        NodeEnum::FuncCall(f) => f.location,
        NodeEnum::BoolExpr(b) => b.location,
        NodeEnum::NullTest(t) => t.location,
        NodeEnum::SubLink(s) => s.location,
        NodeEnum::CaseExpr(c) => c.location,
        NodeEnum::ResTarget(r) => r.location,
        NodeEnum::RangeVar(r) => r.location,
        _ => -1,
    }
}

/// PostgreSQL's exprLocation: the leftmost location in an expression (an
/// operator's left operand, a cast's argument), for errors about a whole
/// expression.
pub fn expr_location(n: &NodeEnum) -> i32 {
    let leftmost = |a: i32, b: i32| match (a < 0, b < 0) {
        (true, _) => b,
        (_, true) => a,
        _ => a.min(b),
    };
    let sub = |n: &Option<Box<Node>>| {
        n.as_deref()
            .and_then(|n| n.node.as_ref())
            .map_or(-1, expr_location)
    };
    match n {
        NodeEnum::AExpr(a) => leftmost(a.location, sub(&a.lexpr)),
        NodeEnum::TypeCast(t) => leftmost(t.location, sub(&t.arg)),
        NodeEnum::BoolExpr(b) => b
            .args
            .first()
            .and_then(|a| a.node.as_ref())
            .map_or(b.location, |a| leftmost(b.location, expr_location(a))),
        NodeEnum::NullTest(t) => leftmost(t.location, sub(&t.arg)),
        other => location_of(other),
    }
}

pub fn req(n: &Option<Box<Node>>) -> Result<&Node, DbError> {
    n.as_deref()
        .ok_or_else(|| DbError::internal("missing operand in parse tree"))
}
