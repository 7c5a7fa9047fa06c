//! Helpers over the parse tree: node access, names, locations, error
//! cursors (PostgreSQL's `parser_errposition`), and the constructors of
//! the few nodes that query rewriting builds ([`wrap`], [`string`],
//! [`column_ref`]).

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

/// The command a statement node is, in PostgreSQL's words (its command
/// tag, e.g. `CREATE FUNCTION`, `LOCK TABLE`), for "... is not supported"
/// errors; the node's own name for the rare ones not listed.
pub fn command_name(n: &NodeEnum) -> String {
    use crate::pb::ObjectType as O;
    let s = match n {
        NodeEnum::CreateFunctionStmt(f) if f.is_procedure => "CREATE PROCEDURE",
        NodeEnum::CreateFunctionStmt(_) => "CREATE FUNCTION",
        NodeEnum::AlterFunctionStmt(_) => "ALTER FUNCTION",
        NodeEnum::DoStmt(_) => "DO",
        NodeEnum::CallStmt(_) => "CALL",
        NodeEnum::CreateTrigStmt(_) => "CREATE TRIGGER",
        NodeEnum::CreateEventTrigStmt(_) => "CREATE EVENT TRIGGER",
        NodeEnum::LockStmt(_) => "LOCK TABLE",
        NodeEnum::CreateTableAsStmt(c) if c.is_select_into => "SELECT INTO",
        NodeEnum::CreateTableAsStmt(c) if c.objtype() == O::ObjectMatview => {
            "CREATE MATERIALIZED VIEW"
        }
        NodeEnum::CreateTableAsStmt(_) => "CREATE TABLE AS",
        NodeEnum::RefreshMatViewStmt(_) => "REFRESH MATERIALIZED VIEW",
        NodeEnum::ViewStmt(_) => "CREATE VIEW",
        NodeEnum::CreateSchemaStmt(_) => "CREATE SCHEMA",
        NodeEnum::CreateRoleStmt(_) => "CREATE ROLE",
        NodeEnum::AlterRoleStmt(_) => "ALTER ROLE",
        NodeEnum::DropRoleStmt(_) => "DROP ROLE",
        NodeEnum::GrantStmt(g) if g.is_grant => "GRANT",
        NodeEnum::GrantStmt(_) => "REVOKE",
        NodeEnum::GrantRoleStmt(g) if g.is_grant => "GRANT ROLE",
        NodeEnum::GrantRoleStmt(_) => "REVOKE ROLE",
        NodeEnum::AlterSeqStmt(_) => "ALTER SEQUENCE",
        NodeEnum::ReindexStmt(_) => "REINDEX",
        NodeEnum::ClusterStmt(_) => "CLUSTER",
        NodeEnum::ListenStmt(_) => "LISTEN",
        NodeEnum::UnlistenStmt(_) => "UNLISTEN",
        NodeEnum::NotifyStmt(_) => "NOTIFY",
        NodeEnum::CreatedbStmt(_) => "CREATE DATABASE",
        NodeEnum::DropdbStmt(_) => "DROP DATABASE",
        NodeEnum::CommentStmt(_) => "COMMENT",
        NodeEnum::CreateExtensionStmt(_) => "CREATE EXTENSION",
        NodeEnum::CreateEnumStmt(_) | NodeEnum::CompositeTypeStmt(_) => "CREATE TYPE",
        NodeEnum::CreateRangeStmt(_) => "CREATE TYPE",
        NodeEnum::CreateDomainStmt(_) => "CREATE DOMAIN",
        NodeEnum::DefineStmt(d) => {
            use crate::pb::ObjectType as O;
            match O::try_from(d.kind) {
                Ok(O::ObjectAggregate) => "CREATE AGGREGATE",
                Ok(O::ObjectOperator) => "CREATE OPERATOR",
                Ok(O::ObjectType) => "CREATE TYPE",
                Ok(O::ObjectCollation) => "CREATE COLLATION",
                Ok(O::ObjectTsconfiguration) => "CREATE TEXT SEARCH CONFIGURATION",
                Ok(O::ObjectTsdictionary) => "CREATE TEXT SEARCH DICTIONARY",
                Ok(O::ObjectTsparser) => "CREATE TEXT SEARCH PARSER",
                Ok(O::ObjectTstemplate) => "CREATE TEXT SEARCH TEMPLATE",
                _ => "CREATE (object)",
            }
        }
        NodeEnum::AlterTsconfigurationStmt(_) => "ALTER TEXT SEARCH CONFIGURATION",
        NodeEnum::AlterTsdictionaryStmt(_) => "ALTER TEXT SEARCH DICTIONARY",
        NodeEnum::RuleStmt(_) => "CREATE RULE",
        NodeEnum::CreatePolicyStmt(_) => "CREATE POLICY",
        NodeEnum::CreatePublicationStmt(_) => "CREATE PUBLICATION",
        NodeEnum::CreateSubscriptionStmt(_) => "CREATE SUBSCRIPTION",
        NodeEnum::CreateStatsStmt(_) => "CREATE STATISTICS",
        NodeEnum::CreateTableSpaceStmt(_) => "CREATE TABLESPACE",
        NodeEnum::CreateForeignTableStmt(_) => "CREATE FOREIGN TABLE",
        NodeEnum::MergeStmt(_) => "MERGE",
        NodeEnum::ExecuteStmt(_) => "EXECUTE",
        NodeEnum::PrepareStmt(_) => "PREPARE",
        NodeEnum::DeallocateStmt(_) => "DEALLOCATE",
        NodeEnum::DeclareCursorStmt(_) => "DECLARE CURSOR",
        NodeEnum::FetchStmt(_) => "FETCH",
        NodeEnum::ClosePortalStmt(_) => "CLOSE CURSOR",
        NodeEnum::LoadStmt(_) => "LOAD",
        NodeEnum::AlterSystemStmt(_) => "ALTER SYSTEM",
        NodeEnum::AlterOwnerStmt(_) => "ALTER OWNER",
        NodeEnum::RenameStmt(_) => "ALTER ... RENAME",
        NodeEnum::AlterObjectSchemaStmt(_) => "ALTER ... SET SCHEMA",
        NodeEnum::ReassignOwnedStmt(_) => "REASSIGN OWNED",
        NodeEnum::DropOwnedStmt(_) => "DROP OWNED",
        NodeEnum::SecLabelStmt(_) => "SECURITY LABEL",
        NodeEnum::ImportForeignSchemaStmt(_) => "IMPORT FOREIGN SCHEMA",
        NodeEnum::CreateCastStmt(_) => "CREATE CAST",
        NodeEnum::CreateConversionStmt(_) => "CREATE CONVERSION",
        NodeEnum::CreateOpClassStmt(_) => "CREATE OPERATOR CLASS",
        NodeEnum::CreateOpFamilyStmt(_) => "CREATE OPERATOR FAMILY",
        NodeEnum::AlterOpFamilyStmt(_) => "ALTER OPERATOR FAMILY",
        NodeEnum::AlterDatabaseStmt(_) | NodeEnum::AlterDatabaseSetStmt(_) => "ALTER DATABASE",
        NodeEnum::AlterRoleSetStmt(_) => "ALTER ROLE",
        NodeEnum::AlterEnumStmt(_) => "ALTER TYPE",
        NodeEnum::AlterDomainStmt(_) => "ALTER DOMAIN",
        NodeEnum::AlterExtensionStmt(_) => "ALTER EXTENSION",
        NodeEnum::AlterTableSpaceOptionsStmt(_) => "ALTER TABLESPACE",
        NodeEnum::AlterPolicyStmt(_) => "ALTER POLICY",
        NodeEnum::AlterPublicationStmt(_) => "ALTER PUBLICATION",
        NodeEnum::AlterSubscriptionStmt(_) => "ALTER SUBSCRIPTION",
        NodeEnum::AlterDefaultPrivilegesStmt(_) => "ALTER DEFAULT PRIVILEGES",
        NodeEnum::ConstraintsSetStmt(_) => "SET CONSTRAINTS",
        other => return format!("statement {}", node_kind(other)),
    };
    s.to_string()
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
        NodeEnum::AArrayExpr(a) => a.location,
        NodeEnum::CollateClause(c) => c.location,
        NodeEnum::SetToDefault(d) => d.location,
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

/// A node holding `n`.
pub fn wrap(n: NodeEnum) -> Node {
    Node { node: Some(n) }
}

/// A `String` node (a name part, an operator name).
pub fn string(s: &str) -> Node {
    wrap(NodeEnum::String(crate::pb::String {
        sval: s.to_string(),
    }))
}

/// A column reference `a.b...` with no location.
pub fn column_ref(fields: &[&str]) -> Node {
    wrap(NodeEnum::ColumnRef(crate::pb::ColumnRef {
        fields: fields.iter().map(|f| string(f)).collect(),
        location: -1,
    }))
}
