//! The binder: libpg_query expression nodes to typed [`Expr`]s.
//!
//! A [`Binder`] lives for the planning of one statement. It keeps a stack of
//! [`Scope`]s, one per query nesting level (a subquery pushes one), the
//! parameter types inferred so far, and counters for subquery ids. Column
//! names resolve innermost level first; a hit in an enclosing level becomes
//! `Expr::Outer` and marks the subqueries in between as correlated.
//!
//! Typing follows PostgreSQL's rules closely enough for clients to agree:
//! integer literals are `integer` (or `bigint` when large), decimal
//! literals `numeric`, quoted literals `unknown` until context decides
//! (they are converted at plan time, so `WHERE id = 'x'` fails with 22P02
//! while planning, as in PostgreSQL), `$n` takes the type its context
//! wants. Every AST node not handled here is rejected with 0A000 naming it.

use std::sync::Arc;

use nestor_common::limits::PARAMS_MAX;
use nestor_common::{DbError, SqlState};
use nestor_parser::pb::{self, a_const, Node};
use nestor_parser::NodeEnum;
use nestor_types::array::Array;
use nestor_types::cast::Coercion;
use nestor_types::datatype::DataType;
use nestor_types::regr::RegrAgg;
use nestor_types::Value;

use nestor_catalog::Catalog;
use nestor_types::EvalCtx;

use crate::functions::{self, CatalogFn, Func};
use crate::ir::{
    AggCall, AggFunc, AggOrder, BoolTest, Cmp, Expr, FrameBound, FrameExclude, FrameMode, OutCol,
    Plan, SubKind, SubQuery, WinCall, WinFrame, WinFunc,
};
use crate::valops::{self, Arith};
use nestor_types::datatype::RegKind;

mod bits;
pub mod domain;
mod hash_partition;
mod inline;
pub use inline::FunctionParams;
pub(crate) mod ordered_set;
pub(crate) mod outer_agg;
pub mod polymorphic;
pub(crate) mod subscripts;
pub mod user_agg;
mod user_cast;
pub mod userfunc;

pub use nestor_parser::ast::{
    err_at, expr_location, location_of, names, node, node_kind, req, str_val, unsupported_node,
};

/// One column visible to name resolution.
#[derive(Clone, Debug)]
pub struct ScopeCol {
    /// The range variable (alias or table name) it belongs to.
    pub rel: String,
    pub name: String,
    pub ty: DataType,
    /// Not expanded by `*` (system and dropped columns).
    pub hidden: bool,
    pub table_oid: u32,
    pub attnum: i16,
    /// The right-hand copy of a JOIN USING column: reachable only by its
    /// qualified name (the unqualified name means the merged column).
    pub merged: bool,
    /// The one column of a FROM function returning a scalar (`value` of
    /// jsonb_array_elements): the item's name used as a value is this
    /// column, not a record (PostgreSQL's whole-row Var of such a
    /// function).
    pub scalar_fn: bool,
    /// A column of a LATERAL subquery of one row that reads earlier FROM
    /// items (`LATERAL (VALUES (a.x)) s`): its value as an expression
    /// over the level's row, which a reference to the column in a WHERE
    /// or JOIN condition of the level becomes (PostgreSQL pulls such a
    /// subquery up into its parent), so a condition on `s.x` is one on
    /// `a.x` and can key an index scan. None for any other column.
    pub subst: Option<Box<Expr>>,
    /// The column an unqualified JOIN USING name means (the left copy of
    /// an inner or left join, the right copy of a right join) when its
    /// type is not the pair's common type: (that type, the column's own
    /// range variable). A reference other than `own.col` reads it coerced,
    /// as PostgreSQL's merged join column is (buildMergedJoinVar), so
    /// `t_int JOIN t_bigint USING (id)` has a bigint `id` and GROUP BY id
    /// does not group `t_int.id`.
    pub using_cast: Option<(DataType, String)>,
    /// A column of a table this level reads: the index of the table's
    /// need in [`Binder::perms`], where a reference to it is marked
    /// (`crate::perm`), and its attribute number there.
    pub perm: Option<(u32, i16)>,
}

/// The `attnum` of a FROM item's row marker (`select::from::null_marker`).
pub(crate) const NULL_MARKER_ATTNUM: i16 = -100;

/// The columns of one query level's input row, in row order.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    pub cols: Vec<ScopeCol>,
    /// Columns below this position are in the FROM list but not
    /// referenceable here: a JOIN's ON clause sees that join's inputs only,
    /// not the comma-separated items before it (42P01 "invalid reference
    /// to FROM-clause entry", as PostgreSQL).
    pub floor: usize,
    /// JOIN USING / NATURAL joins of this level, innermost first: `*`
    /// lists each one's merged columns first (see [`UsingJoin`]).
    pub using_joins: Vec<UsingJoin>,
    /// Range variables an aliased join hides (`(a JOIN b ...) AS j`: `a.x`
    /// is "invalid reference to FROM-clause entry", not missing).
    pub hidden_rels: Vec<String>,
    /// Range-variable names must be unique among the columns from here on:
    /// inside an aliased join only among its own items (its alias hides
    /// them, so `x JOIN (y x CROSS JOIN z) j` is allowed).
    pub alias_floor: usize,
    /// Where, in the level's row, the row a LATERAL subquery planned here
    /// is given at run time begins (`Plan::LateralSubquery`'s `pad`): 0
    /// for an item of the FROM list (it is given the items before it), a
    /// JOIN's first column on either side of that join (the right side is
    /// given the left row; the left side the row the join itself is given,
    /// empty). What lies before it comes from the enclosing LATERAL
    /// context (see `select/from.rs`).
    pub param_start: usize,
    /// The row-id columns of the tables an outer join of this level may
    /// NULL-extend: their whole rows are NULL where it does
    /// (`Binder::whole_row`).
    pub nullable_row_ids: Vec<usize>,
    /// The columns below `floor` are an UPDATE's or DELETE's target, seen
    /// from a LATERAL item of its FROM/USING list: PostgreSQL has the
    /// target in the namespace but not LATERAL-visible, so a reference to
    /// it is check_lateral_ref_ok's "invalid reference" (42P10), not a
    /// missing column.
    pub lateral_target: bool,
    /// A range-variable name an item inside a join gave again while the
    /// join's sides are planned, with where that item's columns begin:
    /// an error at the join's end, until then what makes a qualified
    /// reference to the name ambiguous (42P09), as in PostgreSQL.
    pub pending_duplicate: Option<(String, usize)>,
}

/// A JOIN USING (or NATURAL) join's place in its level's scope. PostgreSQL
/// expands `*` over it as the merged columns in USING order, then the
/// left side's other columns, then the right side's: `n1(a, b, c)
/// NATURAL JOIN n2(c, d, a)` is `a, c, b, d`.
#[derive(Clone, Debug)]
pub struct UsingJoin {
    /// The join's columns in the scope: `start..end`.
    pub start: usize,
    pub end: usize,
    /// The left copies of the merged columns, in USING order.
    pub merged: Vec<usize>,
    /// The join's alias (`j.*` is ordered as `*` is).
    pub alias: Option<String>,
    /// `JOIN ... USING (a, b) AS x` (join_using_alias): `x` names the
    /// merged columns only, each the position its unqualified name means
    /// (`x.a`, `x.*`, a bare `x` as a row); `x.c` of another column is
    /// 42703.
    pub using_alias: Option<(String, Vec<(String, usize)>)>,
}

impl UsingJoin {
    /// The merged columns `name` as a USING alias names, if it is one.
    pub fn aliased(&self, name: &str) -> Option<&[(String, usize)]> {
        self.using_alias
            .as_ref()
            .filter(|(a, _)| a == name)
            .map(|(_, cols)| cols.as_slice())
    }
}

impl Scope {
    pub fn width(&self) -> usize {
        self.cols.len()
    }

    /// Whether two items in reach are named `rel` (see
    /// [`Scope::pending_duplicate`]).
    pub fn names_twice(&self, rel: &str) -> bool {
        let Some((name, second)) = &self.pending_duplicate else {
            return false;
        };
        let second = (*second).min(self.cols.len());
        let floor = self.floor.min(second);
        name == rel
            && self.cols[floor..second].iter().any(|c| c.rel == rel)
            && self.cols[second..].iter().any(|c| c.rel == rel)
    }

    /// The merged columns of the referenceable join whose USING alias is
    /// `name` (see [`UsingJoin::using_alias`]).
    pub fn using_alias(&self, name: &str) -> Option<&[(String, usize)]> {
        self.using_joins
            .iter()
            .filter(|j| j.start >= self.floor)
            .find_map(|j| j.aliased(name))
    }
}

/// A common table expression in scope.
#[derive(Clone, Debug)]
pub struct Cte {
    pub name: String,
    pub id: usize,
    pub plan: Arc<Plan>,
    pub cols: Vec<OutCol>,
    /// The working table of a recursive CTE while its recursive term is
    /// planned: references to it are counted in `Binder::recursive_refs`.
    pub working: bool,
    /// A data-modifying statement without RETURNING: it runs, but a
    /// reference to it is 0A000 (see with_modify.rs).
    pub no_returning: bool,
    /// The query level the WITH clause belongs to.
    pub level: usize,
    /// The outermost enclosing query level whose row its query reads (see
    /// `Plan::CteScan`): a query reading the CTE is correlated to it too.
    pub outer_level: Option<usize>,
    /// How many trailing columns (those a SEARCH or CYCLE clause adds) `*`
    /// leaves out in references from a deeper level than `level`: inside
    /// the recursive term, as PostgreSQL's p_dontexpand (select/
    /// search_cycle.rs).
    pub star_hidden: usize,
    /// How many references to it were bound so far.
    pub refs: u32,
    /// Its query calls a volatile function.
    pub volatile: bool,
    /// Shared by its scans ([`Plan::CteScan`]'s `whole_first`): set once
    /// a volatile CTE has a second reference.
    pub whole_first: Arc<std::sync::atomic::AtomicBool>,
}

/// Where window functions may appear: a SELECT's list and ORDER BY; else
/// the error to give (PostgreSQL's message and SQLSTATE).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WinCtx {
    Allowed,
    NotAllowed(&'static str, SqlState),
}

/// Where aggregates may appear.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggCtx {
    Allowed,
    NotAllowed(&'static str),
}

/// Names a PL/pgSQL function body lends to the SQL it runs: a column
/// reference that names one of its variables (or a record's field) binds
/// as a parameter. `parts` are the reference's dotted parts; the answer is
/// the parameter's position and type, None for a name that is not a
/// variable, or an error (an unassigned record).
pub trait VarResolver {
    fn resolve(&self, parts: &[&str]) -> Result<Option<(usize, DataType)>, DbError>;

    /// What a name that is both a variable and a column means.
    fn conflict(&self) -> VarConflict {
        VarConflict::Error
    }

    /// A trigger's transition table (REFERENCING OLD/NEW TABLE AS name,
    /// PostgreSQL's ephemeral named relation) by its name: its slot in the
    /// statement's transition rows (`StatementCtx::transition`) and its
    /// columns. An unqualified name in FROM that is no CTE is looked up
    /// here before the catalog.
    fn relation(&self, _name: &str) -> Option<(usize, RelColumns)> {
        None
    }
}

/// A relation's columns (names and types), shared.
pub type RelColumns = std::sync::Arc<Vec<(String, DataType)>>;

/// PL/pgSQL's `plpgsql.variable_conflict` (SQL functions' arguments: the
/// column wins).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarConflict {
    /// 42702, the reference is ambiguous (PL/pgSQL's default).
    Error,
    UseVariable,
    UseColumn,
}

impl VarConflict {
    /// The setting's value (`error`, `use_variable`, `use_column`).
    pub fn from_setting(v: Option<&str>) -> VarConflict {
        match v {
            Some("use_variable") => VarConflict::UseVariable,
            Some("use_column") => VarConflict::UseColumn,
            _ => VarConflict::Error,
        }
    }
}

/// Plans a query nested in an expression (a subquery in WHERE, the select
/// list, ...). The binder does not plan queries: `select::plan_query` does,
/// and every binder is made with it, so binding depends on no planner
/// module while query planning depends on binding.
pub type QueryPlanner = fn(&mut Binder, &pb::SelectStmt) -> Result<(Plan, Vec<OutCol>), DbError>;

pub struct Binder<'e> {
    plan_query: QueryPlanner,
    pub catalog: &'e Catalog,
    /// Constants are folded while planning, in the session's time zone.
    pub eval: EvalCtx,
    pub text: &'e str,
    /// Types of $1..$n (Unknown until inferred).
    pub params: Vec<DataType>,
    pub scopes: Vec<Scope>,
    /// Lowest enclosing level referenced by each open level (for
    /// correlation), parallel to `scopes`.
    pub outer_refs: Vec<Option<usize>>,
    pub next_id: usize,
    pub agg: AggCtx,
    /// Per query level begun by `select::plan_query`: the enclosing
    /// level and where aggregates stood there when it began (an
    /// aggregate of that level found inside is checked against it).
    pub level_aggs: Vec<(usize, AggCtx)>,
    /// The SELECTs binding clauses that may hold their own aggregates
    /// found in subqueries (`bind/outer_agg.rs`), innermost last.
    pub outer_aggs: Vec<outer_agg::OuterAggs>,
    /// Every reference to an enclosing level's column made so far, as
    /// (level, column), in order.
    pub outer_uses: Vec<(usize, usize)>,
    /// The columns of its enclosing level each correlated subquery
    /// (by id) reads.
    pub sub_reads: std::collections::HashMap<usize, Vec<usize>>,
    pub window: WinCtx,
    /// The WINDOW clause of the SELECT being bound (`OVER w`).
    pub windows: Vec<(String, pb::WindowDef)>,
    /// CTEs visible, innermost last.
    pub ctes: Vec<Cte>,
    /// References to a recursive CTE's working table met so far.
    pub recursive_refs: Vec<(usize, usize)>,
    /// Set while an INSERT's VALUES are bound without OVERRIDING SYSTEM
    /// VALUE: values for GENERATED ALWAYS identity columns are refused.
    pub identity_check: Option<()>,
    /// Set by `select::plan_query`: whether the query just planned referred
    /// to rows of enclosing queries.
    pub last_correlated: bool,
    /// Set with it: the outermost level that query referred to.
    pub last_outer_level: Option<usize>,
    /// Positive while a side of an outer join that it may NULL-extend is
    /// planned (in the current query level): its subquery, function and
    /// VALUES items get a row marker (`select::from::null_marker`).
    pub null_extended: usize,
    /// Positive while the sides of a join are planned (in the current
    /// query level): a range-variable name given twice waits for the
    /// join's end (`select::from`'s claim_alias).
    pub join_depth: usize,
    /// Locations of the quoted literals bound so far, keyed by the address
    /// of their text: an input error converting one points at it, as
    /// PostgreSQL's coerce_type does.
    literal_locs: Vec<(usize, i32)>,
    /// A PL/pgSQL body's variables, when planning a statement it runs.
    /// Binding a select list: a set-returning function may be called
    /// inside an expression there (`(f(x)).n`), run by the ProjectSet.
    pub srf_allowed: bool,
    /// Calls of simple SQL functions stay calls (`inline.rs`): set while
    /// binding a user aggregate's steps, whose strictness is the called
    /// function's as declared.
    pub no_inline: bool,
    /// Fold arithmetic on two constants while binding (`bind_arith`); off
    /// to see an expression as written (`select::index_expr::render`).
    pub fold_constants: bool,
    /// A write to a descendant laid out differently from the table the
    /// statement names (an UPDATE or DELETE reaching a partition): the
    /// name the rows go by and that table, whose row type and column
    /// order the name's whole row takes (`RETURNING t` shows the named
    /// table's row, as PostgreSQL converts a partition's tuple).
    pub whole_row_as: Option<(String, std::sync::Arc<nestor_catalog::TableDef>)>,
    /// Names of WITH items being planned that the current item cannot
    /// reference (itself and later ones without RECURSIVE), for the
    /// DETAIL of "relation does not exist".
    pub hidden_ctes: Vec<String>,
    pub vars: Option<&'e dyn VarResolver>,
    /// The privileges the statement needs (crate::perm).
    pub perms: Vec<crate::perm::Perm>,
    /// While a view's query is planned: its owner, as whom the relations
    /// it reads are checked.
    pub perm_as: Option<nestor_common::RelId>,
    /// The tables whose policy expressions are being bound, innermost
    /// last (`select::rls`: a policy reaching its own table is 42P17).
    pub rls_tables: Vec<nestor_common::RelId>,
}

/// Relation name of a RangeVar as the catalog takes it: `schema.name`
/// when written with a schema (see nestor_catalog's notes on schemas),
/// else the name alone, which resolves through search_path. The system
/// schemas' relations are looked up by name alone.
/// The FROM item name of a rule action's NEW row (the rewriter's).
pub const NEW_REL: &str = "*NEW*";
/// The FROM item name of a rule action's OLD row.
pub const OLD_REL: &str = "*OLD*";

/// Whether a FROM item name is a rule action's NEW or OLD: its columns
/// are reachable by qualified name only (`select::from`).
pub fn is_pseudo_rel(name: &str) -> bool {
    name == NEW_REL || name == OLD_REL
}

pub fn relname(rv: &pb::RangeVar) -> Result<String, DbError> {
    match rv.schemaname.as_str() {
        "" | "pg_catalog" | "information_schema" => Ok(rv.relname.clone()),
        s => Ok(format!("{s}.{}", rv.relname)),
    }
}

/// A type in a function's signature (CREATE FUNCTION, DROP FUNCTION
/// f(anyelement), COMMENT ON FUNCTION ...): also a polymorphic
/// pseudo-type, which names no column's or value's type.
pub fn signature_type_from_name(tn: &pb::TypeName) -> Result<DataType, DbError> {
    let parts = names(&tn.names);
    let builtin = parts.len() == 1 || parts.first().is_some_and(|s| s == "pg_catalog");
    match parts
        .last()
        .and_then(|n| nestor_types::datatype::Poly::from_name(n))
    {
        Some(p) if builtin && tn.array_bounds.is_empty() => Ok(DataType::Poly(p)),
        Some(p) if builtin => Err(DbError::new(
            SqlState::UndefinedObject,
            format!("type {}[] does not exist", p.name()),
        )),
        _ => type_from_name(tn),
    }
}

/// A COLLATE clause naming `parts` on a value of type `ty`: Nestor
/// compares strings by their bytes (the "C" collation); the collations
/// that mean exactly that are accepted, others are 0A000, an unknown name
/// 42704, a non-string type 42804, as in PostgreSQL.
pub fn check_collation(parts: &[String], ty: DataType) -> Result<(), DbError> {
    let name = parts.last().map(String::as_str).unwrap_or("");
    match name {
        "default" | "C" | "POSIX" | "ucs_basic" => {}
        "en_US" | "en_US.utf8" | "und-x-icu" | "C.utf8" => {
            return Err(DbError::unsupported(format!("collation \"{name}\"")))
        }
        _ => {
            return Err(DbError::new(
                SqlState::UndefinedObject,
                format!(
                    "collation \"{}\" for encoding \"UTF8\" does not exist",
                    parts.join(".")
                ),
            ))
        }
    }
    if !ty.is_string() {
        return Err(DbError::new(
            SqlState::DatatypeMismatch,
            format!("collations are not supported by type {}", ty.name()),
        ));
    }
    Ok(())
}

/// Type from a TypeName node.
pub fn type_from_name(tn: &pb::TypeName) -> Result<DataType, DbError> {
    let base = base_type_from_name(tn)?;
    if tn.array_bounds.is_empty() {
        return Ok(base);
    }
    // `int[3][4]` is int[]: PostgreSQL ignores declared bounds. The
    // element's modifier stays (`char(5)[]` fits each element).
    base.array_keeping_typmod()?.ok_or_else(|| {
        DbError::new(
            SqlState::UndefinedObject,
            format!("type \"{}[]\" does not exist", base.name()),
        )
    })
}

fn base_type_from_name(tn: &pb::TypeName) -> Result<DataType, DbError> {
    let parts = names(&tn.names);
    let name = match parts.as_slice() {
        [s, n] if s == "pg_catalog" => n.clone(),
        [n] => n.clone(),
        _ => parts.join("."),
    };
    let mut mods = Vec::new();
    for m in &tn.typmods {
        match node(m)? {
            NodeEnum::AConst(c) => match &c.val {
                Some(a_const::Val::Ival(i)) => mods.push(i.ival as i64),
                _ => {
                    return Err(DbError::new(
                        SqlState::SyntaxError,
                        "type modifiers must be simple constants",
                    ))
                }
            },
            _ => {
                return Err(DbError::new(
                    SqlState::SyntaxError,
                    "type modifiers must be simple constants",
                ))
            }
        }
    }
    let canonical = match name.as_str() {
        "int4" => "integer",
        "int2" => "smallint",
        "int8" => "bigint",
        "float4" => "real",
        "float8" => "double precision",
        "bool" => "boolean",
        "timestamptz" => "timestamptz",
        n => n,
    };
    match canonical {
        "xid" | "xid8" | "cid" | "regprocedure" | "regoper" => Ok(DataType::Oid),
        _ => DataType::from_sql_name(canonical, &mods),
    }
}

fn no_array_type(t: DataType) -> DbError {
    DbError::new(
        SqlState::UndefinedObject,
        format!("could not find array type for data type {}", t.name()),
    )
}

/// SIMILAR TO's pattern `similar_to_escape(const[, const])` translated now
/// to the regular expression it names, as PostgreSQL's constant folding
/// does (EXPLAIN shows `f1 ~ '^(?:...)$'::text`, and the translation runs
/// once per statement instead of once per row).
fn fold_similar_pattern(p: Expr, ec: &EvalCtx) -> Result<Expr, DbError> {
    let Expr::Func(Func::Library(f), args) = &p else {
        return Ok(p);
    };
    let consts: Option<Vec<Value>> = args
        .iter()
        .map(|a| match a {
            Expr::Const(v) => Some(v.clone()),
            _ => None,
        })
        .collect();
    match consts {
        Some(vals) if f.name == "similar_to_escape" => Ok(Expr::Const(
            f.call(&vals, ec).map_err(DbError::unpositioned)?,
        )),
        _ => Ok(p),
    }
}

fn no_operator(op: &str, l: DataType, r: DataType) -> DbError {
    operator_missing(op, l.resolve_unknown().name(), r.resolve_unknown().name())
}

/// 42883 "operator does not exist: l op r" with the types named as given.
fn operator_missing(op: &str, l: &str, r: &str) -> DbError {
    DbError::new(
        SqlState::UndefinedFunction,
        format!("operator does not exist: {l} {op} {r}"),
    )
    .with_hint(
        "No operator matches the given name and argument types. You might need to add explicit type casts.",
    )
}

/// The common type of two operands of a comparison or arithmetic.
pub fn unify(l: DataType, r: DataType) -> Option<DataType> {
    use DataType as T;
    let (lb, rb) = (l.base(), r.base());
    Some(match (lb, rb) {
        (T::Unknown, T::Unknown) => T::Text,
        (T::Unknown, t) | (t, T::Unknown) => t,
        (a, b) if a == b => a,
        (a, b) if a.is_integer() && b.is_integer() => {
            if a == T::Int8 || b == T::Int8 {
                T::Int8
            } else if a == T::Int4 || b == T::Int4 {
                T::Int4
            } else {
                T::Int2
            }
        }
        (T::Float4 | T::Float8, b) if b.is_numeric() => T::Float8,
        (a, T::Float4 | T::Float8) if a.is_numeric() => T::Float8,
        (a, b) if a.is_numeric() && b.is_numeric() => T::NUMERIC,
        (a, b) if a.is_string() && b.is_string() => T::Text,
        (T::Bit(_), T::VarBit(_)) | (T::VarBit(_), T::Bit(_)) => T::VarBit(None),
        (T::Oid, b) | (b, T::Oid) if b.is_integer() => T::Int8,
        (T::Date, T::Timestamp(_)) | (T::Timestamp(_), T::Date) => T::Timestamp(None),
        // time casts to interval implicitly.
        (T::Time(_), T::Interval(_)) | (T::Interval(_), T::Time(_)) => T::Interval(None),
        (T::Time(_), T::TimeTz(_)) | (T::TimeTz(_), T::Time(_)) => T::TimeTz(None),
        (T::Date | T::Timestamp(_), T::TimestampTz(_))
        | (T::TimestampTz(_), T::Date | T::Timestamp(_)) => T::TimestampTz(None),
        (T::Array(a), T::Array(b)) => unify(*a, *b)?.array_of()?,
        // A record (a row constructor) compares as the composite type of
        // the other side.
        (T::Record(a), T::Record(b)) if a.oid != 0 && b.oid == 0 => T::Record(a),
        (T::Record(a), T::Record(b)) if a.oid == 0 && b.oid != 0 => T::Record(b),
        _ => return None,
    })
}

impl<'e> Binder<'e> {
    pub fn new(
        catalog: &'e Catalog,
        eval: EvalCtx,
        text: &'e str,
        hints: &[u32],
        plan_query: QueryPlanner,
    ) -> Binder<'e> {
        let params = hints
            .iter()
            .map(|&o| {
                if o == 0 {
                    DataType::Unknown
                } else {
                    DataType::from_oid(o)
                        .or_else(|| nestor_types::composites::type_for_oid(o))
                        .unwrap_or(DataType::Text)
                }
            })
            .collect();
        Binder {
            plan_query,
            catalog,
            eval,
            text,
            params,
            scopes: Vec::new(),
            outer_refs: Vec::new(),
            next_id: 0,
            agg: AggCtx::NotAllowed("WHERE"),
            level_aggs: Vec::new(),
            outer_aggs: Vec::new(),
            outer_uses: Vec::new(),
            sub_reads: Default::default(),
            window: WinCtx::NotAllowed(
                "window functions are not allowed here",
                SqlState::WindowingError,
            ),
            windows: Vec::new(),
            ctes: Vec::new(),
            recursive_refs: Vec::new(),
            identity_check: None,
            last_correlated: false,
            last_outer_level: None,
            null_extended: 0,
            join_depth: 0,
            literal_locs: Vec::new(),
            vars: None,
            perms: Vec::new(),
            perm_as: None,
            rls_tables: Vec::new(),
            srf_allowed: false,
            no_inline: false,
            fold_constants: true,
            whole_row_as: None,
            hidden_ctes: Vec::new(),
        }
    }

    /// Record that the statement needs `privs` on an object.
    /// USAGE on the schema of a relation the statement names (checked
    /// for schemas other than `public`, as PostgreSQL checks it at lookup).
    pub fn need_schema(&mut self, namespace: u32, location: i32) {
        use nestor_catalog::{PUBLIC_NAMESPACE_OID, TEMP_NAMESPACE};
        if namespace == PUBLIC_NAMESPACE_OID || namespace == TEMP_NAMESPACE {
            return;
        }
        if let Some(name) = self.catalog.schema_name(namespace) {
            crate::perm::need(
                &mut self.perms,
                crate::perm::Perm {
                    kind: nestor_catalog::acl::ObjKind::Schema,
                    oid: namespace,
                    name,
                    privs: nestor_catalog::acl::USAGE,
                    check_as: self.perm_as,
                    location,
                    cols: Default::default(),
                    lock_only: false,
                },
            );
        }
    }

    /// Record that the statement needs `privs` on an object, whatever
    /// columns it uses (only the object's privileges meet the need).
    pub fn need(
        &mut self,
        kind: nestor_catalog::acl::ObjKind,
        oid: u32,
        name: &str,
        privs: u16,
    ) -> usize {
        let i = self.need_by_columns(kind, oid, name, privs);
        self.perms[i].cols.untracked |= privs;
        i
    }

    /// [`Binder::need`] where the caller marks the columns the statement
    /// reads and writes ([`Binder::tag_cols`], [`Binder::mark_written`]):
    /// column privileges may meet it. The index of the need.
    pub fn need_by_columns(
        &mut self,
        kind: nestor_catalog::acl::ObjKind,
        oid: u32,
        name: &str,
        privs: u16,
    ) -> usize {
        crate::perm::need(
            &mut self.perms,
            crate::perm::Perm {
                kind,
                oid,
                name: name.to_string(),
                privs,
                check_as: self.perm_as,
                location: -1,
                cols: Default::default(),
                lock_only: false,
            },
        )
    }

    /// A relation the statement reaches through the one it names (a
    /// partition or inheritance child of an UPDATE or DELETE target):
    /// locked for `privs`, its privileges not checked.
    pub fn need_lock_only(&mut self, oid: u32, name: &str, privs: u16) -> usize {
        crate::perm::need(
            &mut self.perms,
            crate::perm::Perm {
                kind: nestor_catalog::acl::ObjKind::Table,
                oid,
                name: name.to_string(),
                privs,
                check_as: self.perm_as,
                location: -1,
                cols: Default::default(),
                lock_only: true,
            },
        )
    }

    /// The scope columns from position `from` on are a table's whose
    /// need is `perm`: references to them are marked there.
    pub fn tag_cols(scope: &mut Scope, from: usize, perm: usize) {
        let Ok(perm) = u32::try_from(perm) else {
            return;
        };
        for c in scope.cols.iter_mut().skip(from) {
            c.perm = Some((perm, c.attnum));
        }
    }

    /// [`Binder::tag_cols`] for a view's columns: numbered by position.
    pub fn tag_cols_by_position(scope: &mut Scope, from: usize, perm: usize) {
        let Ok(perm) = u32::try_from(perm) else {
            return;
        };
        for (k, c) in scope.cols.iter_mut().skip(from).enumerate() {
            c.perm = Some((perm, k as i16 + 1));
        }
    }

    /// Column `i` of level `lvl` is read: a table's column needs SELECT
    /// on it (PostgreSQL's markVarForSelectPriv). `whole`: as part of a
    /// whole-row reference, which needs every column.
    pub fn mark_read(&mut self, lvl: usize, i: usize, whole: bool) {
        let Some(c) = self.scopes.get(lvl).and_then(|s| s.cols.get(i)) else {
            return;
        };
        let Some((p, attnum)) = c.perm else {
            return;
        };
        let attnum = if whole { 0 } else { attnum };
        if let Some(perm) = self.perms.get_mut(p as usize) {
            perm.privs |= nestor_catalog::acl::SELECT;
            crate::perm::add_col(&mut perm.cols.select, attnum);
        }
    }

    /// The statement writes these columns (attribute numbers) of the
    /// table whose need is `perm`: `insert` for INSERT, else UPDATE.
    pub fn mark_written(&mut self, perm: usize, attnums: &[i16], insert: bool) {
        if let Some(p) = self.perms.get_mut(perm) {
            let set = if insert {
                &mut p.cols.insert
            } else {
                &mut p.cols.update
            };
            for &a in attnums {
                crate::perm::add_col(set, a);
            }
        }
    }

    /// The need of partition `t` a statement on its partitioned table
    /// reaches: checked as the partition's owner (PostgreSQL checks the
    /// named table's privileges only), so what it does is lock `t`.
    pub fn need_as_owner(&mut self, t: &nestor_catalog::TableDef, privs: u16) {
        let kind = nestor_catalog::acl::ObjKind::Table;
        let owner = self.catalog.acl(kind, t.oid.0).owner;
        let saved = self.perm_as.replace(owner);
        self.need(kind, t.oid.0, &t.name, privs);
        self.perm_as = saved;
    }

    pub(crate) fn fresh_id(&mut self) -> usize {
        self.next_id += 1;
        self.next_id
    }

    pub fn level(&self) -> usize {
        self.scopes.len().saturating_sub(1)
    }

    /// Remember where a quoted literal's text came from.
    fn note_literal(&mut self, e: &Expr, location: i32) {
        if let Expr::Const(Value::Text(s)) = e {
            if location >= 0 {
                self.literal_locs
                    .push((Arc::as_ptr(s) as *const u8 as usize, location));
            }
        }
    }

    /// Convert a constant now. Input errors for a quoted literal point at
    /// the literal; data errors converting a typed constant are evaluation
    /// errors (PostgreSQL's constant folding) and carry no position.
    pub(crate) fn fold_cast(
        &self,
        v: Value,
        from: DataType,
        to: DataType,
        explicit: bool,
    ) -> Result<Value, DbError> {
        let loc = match (&v, from) {
            (Value::Text(s), DataType::Unknown) => {
                let key = Arc::as_ptr(s) as *const u8 as usize;
                self.literal_locs
                    .iter()
                    .rev()
                    .find(|(k, _)| *k == key)
                    .map(|(_, l)| *l)
            }
            _ => None,
        };
        let evaluation_err = |e: DbError| {
            if e.code.code().starts_with("22") || e.code == SqlState::FeatureNotSupported {
                e.unpositioned()
            } else {
                e
            }
        };
        match loc {
            // The literal's input function runs without the type modifier
            // (positioned); the length or precision check comes after.
            // An interval's field restriction is read by its input function
            // (`interval '2' hour`).
            Some(l) => {
                let input_ty = match to {
                    // A reg* type's input function is its own (regconfig
                    // takes a name), not oid's.
                    DataType::Interval(_) | DataType::Reg(_) => to,
                    t => t.base(),
                };
                let v = valops::cast(v, input_ty, explicit, &self.eval)
                    .map_err(|e| err_at(e, self.text, l))?;
                if to == DataType::TsQuery && nestor_types::tsearch::has_notices() {
                    // tsqueryin's notice (an empty query) points at the
                    // literal, as the input error would.
                    let placed = nestor_types::tsearch::take_notices()
                        .into_iter()
                        .map(|n| err_at(n, self.text, l))
                        .collect();
                    nestor_types::tsearch::requeue(placed);
                }
                valops::cast(v, to, explicit, &self.eval).map_err(evaluation_err)
            }
            None => valops::cast(v, to, explicit, &self.eval).map_err(evaluation_err),
        }
    }

    /// Coerce a bound expression to `to`. Constants convert now (so bad
    /// literals fail at plan time), unknown parameters take the type.
    pub(crate) fn coerce(
        &mut self,
        e: Expr,
        from: DataType,
        to: DataType,
    ) -> Result<Expr, DbError> {
        if to == DataType::Unknown || from == to {
            return Ok(e);
        }
        if let Some(c) = self.user_cast(from, to) {
            return self.apply_user_cast(e, from, to, &c, false);
        }
        if let (Some(f), true) = (reg_name_fn(from), to.is_string()) {
            let named = Expr::Func(f, vec![e]);
            return self.coerce(named, DataType::Text, to);
        }
        if let (DataType::Reg(k), DataType::Unknown) = (to, from) {
            if let Expr::Const(Value::Text(name)) = &e {
                // A name that does not resolve is reported at the literal.
                let key = Arc::as_ptr(name) as *const u8 as usize;
                let at = self
                    .literal_locs
                    .iter()
                    .rev()
                    .find(|(k, _)| *k == key)
                    .map(|(_, l)| *l);
                let oid =
                    crate::pg_catalog::reg_lookup(self.catalog, k, name).map_err(|e| match at {
                        Some(l) => err_at(e, self.text, l),
                        None => e,
                    })?;
                return Ok(Expr::Const(Value::Int8(i64::from(oid))));
            }
        }
        if matches!(from, DataType::Char(_)) && to.is_string() && !matches!(to, DataType::Char(_)) {
            // character(n) to text drops the padding (PostgreSQL's rtrim in
            // bpchar-to-text).
            let e = match e {
                Expr::Const(Value::Text(s)) => {
                    Expr::Const(Value::Text(Arc::from(s.trim_end_matches(' '))))
                }
                Expr::Const(v) => Expr::Const(v),
                e => Expr::Func(Func::BpcharToText, vec![e]),
            };
            return self.coerce(e, DataType::Text, to);
        }
        if from.base() == to.base()
            && !matches!(
                to,
                DataType::Varchar(Some(_)) | DataType::Char(Some(_)) | DataType::Numeric(Some(_))
            )
        {
            return Ok(e);
        }
        match e {
            Expr::Const(v) => Ok(Expr::Const(self.fold_cast(
                v,
                from,
                to,
                from != DataType::Unknown,
            )?)),
            Expr::Param(i) if self.params.get(i) == Some(&DataType::Unknown) => {
                self.params[i] = to.base();
                Ok(Expr::Param(i))
            }
            e if from.is_integer() && to.is_integer() => Ok(Expr::Cast(Box::new(e), to)),
            e => Ok(Expr::Cast(Box::new(e), to)),
        }
    }

    /// Assignment coercion (INSERT/UPDATE values): like PostgreSQL's
    /// assignment casts, with the column's length check.
    pub fn coerce_assign(
        &mut self,
        e: Expr,
        from: DataType,
        to: DataType,
    ) -> Result<Expr, DbError> {
        // A user cast comes first (as a pg_cast row before PostgreSQL's
        // I/O conversion), applied if its context allows.
        let user = self.user_cast(from, to);
        if let Some(c) = user.as_ref().filter(|c| c.context <= Coercion::Assignment) {
            return self.apply_user_cast(e, from, to, c, false);
        }
        let compatible = user.is_none() && assignment_compatible(from, to);
        if !compatible {
            return Err(DbError::new(
                SqlState::DatatypeMismatch,
                format!(
                    "column is of type {} but expression is of type {}",
                    to.name(),
                    from.name()
                ),
            )
            .with_hint("You will need to rewrite or cast the expression."));
        }
        match e {
            Expr::Const(v) => Ok(Expr::Const(self.fold_cast(v, from, to, false)?)),
            Expr::Param(i) if self.params.get(i) == Some(&DataType::Unknown) => {
                self.params[i] = to.base();
                if matches!(
                    to,
                    DataType::Varchar(Some(_))
                        | DataType::Char(Some(_))
                        | DataType::Numeric(Some(_))
                ) {
                    Ok(Expr::Func(Func::AssignCast(to), vec![Expr::Param(i)]))
                } else {
                    Ok(Expr::Param(i))
                }
            }
            e if from == to => Ok(e),
            e => Ok(Expr::Func(Func::AssignCast(to), vec![e])),
        }
    }

    /// Bind an expression that must be boolean (WHERE, ON, HAVING).
    pub fn bind_bool(&mut self, n: &Node, clause: &str) -> Result<Expr, DbError> {
        let (e, t) = self.bind(n)?;
        if t == DataType::Unknown {
            return self.coerce(e, t, DataType::Bool);
        }
        if t != DataType::Bool {
            return Err(err_at(
                DbError::new(
                    SqlState::DatatypeMismatch,
                    format!(
                        "argument of {clause} must be type boolean, not type {}",
                        t.name()
                    ),
                ),
                self.text,
                expr_location(node(n)?),
            ));
        }
        Ok(e)
    }

    pub fn bind(&mut self, n: &Node) -> Result<(Expr, DataType), DbError> {
        nestor_common::stack::check()?;
        let ne = node(n)?;
        let loc = location_of(ne);
        self.bind_inner(ne).map_err(|e| err_at(e, self.text, loc))
    }

    fn bind_inner(&mut self, n: &NodeEnum) -> Result<(Expr, DataType), DbError> {
        match n {
            NodeEnum::AConst(c) => {
                let (e, t) = bind_const(c)?;
                self.note_literal(&e, c.location);
                Ok((e, t))
            }
            NodeEnum::ColumnRef(c) => self.bind_column(c),
            NodeEnum::ParamRef(p) => self.bind_param(p),
            NodeEnum::TypeCast(tc) => self.bind_cast(tc),
            NodeEnum::AExpr(a) => self.bind_aexpr(a),
            NodeEnum::BoolExpr(b) => self.bind_boolexpr(b),
            NodeEnum::NullTest(t) => {
                let (e, _) = self.bind(req(&t.arg)?)?;
                let negated = t.nulltesttype == pb::NullTestType::IsNotNull as i32;
                Ok((Expr::IsNull(Box::new(e), negated), DataType::Bool))
            }
            NodeEnum::BooleanTest(t) => {
                let e = self.bind_bool(req(&t.arg)?, "IS TRUE")?;
                let test = match pb::BoolTestType::try_from(t.booltesttype) {
                    Ok(pb::BoolTestType::IsTrue) => BoolTest::True,
                    Ok(pb::BoolTestType::IsNotTrue) => BoolTest::NotTrue,
                    Ok(pb::BoolTestType::IsFalse) => BoolTest::False,
                    Ok(pb::BoolTestType::IsNotFalse) => BoolTest::NotFalse,
                    Ok(pb::BoolTestType::IsUnknown) => BoolTest::Unknown,
                    _ => BoolTest::NotUnknown,
                };
                Ok((Expr::BoolTest(Box::new(e), test), DataType::Bool))
            }
            NodeEnum::FuncCall(f) => {
                let (e, t) = self.bind_func(f)?;
                let e = self.populate_checks(e, t)?;
                Ok((domain::typeof_domain(e), t))
            }
            NodeEnum::SqlvalueFunction(f) => self.bind_sqlvalue(f),
            NodeEnum::CaseExpr(c) => self.bind_case(c),
            NodeEnum::GroupingFunc(g) => self.bind_grouping(g),
            NodeEnum::CoalesceExpr(c) => {
                let (args, t) = self.bind_common(&c.args, "COALESCE")?;
                Ok((Expr::Coalesce(args), t))
            }
            NodeEnum::MinMaxExpr(m) => {
                let greatest = m.op == pb::MinMaxOp::IsGreatest as i32;
                let (args, t) =
                    self.bind_common(&m.args, if greatest { "GREATEST" } else { "LEAST" })?;
                Ok((Expr::MinMax(args, greatest), t))
            }
            NodeEnum::SubLink(s) => self.bind_sublink(s),
            NodeEnum::AArrayExpr(a) => self.bind_array(a, None),
            NodeEnum::AIndirection(i) => self.bind_indirection(i),
            NodeEnum::CollateClause(c) => self.bind_collate(c),
            NodeEnum::RowExpr(r) => self.bind_row(&r.args),
            // DEFAULT where INSERT's VALUES or UPDATE's SET do not take it
            // (they handle it before binding).
            NodeEnum::SetToDefault(d) => Err(err_at(
                DbError::new(
                    SqlState::SyntaxError,
                    "DEFAULT is not allowed in this context",
                ),
                self.text,
                d.location,
            )),
            other => Err(unsupported_node(other)),
        }
    }

    /// `ARRAY[...]`; `target` is the element type a cast around it asks
    /// for (`ARRAY[]::int[]`), which also decides an empty array's type.
    fn bind_array(
        &mut self,
        a: &pb::AArrayExpr,
        target: Option<DataType>,
    ) -> Result<(Expr, DataType), DbError> {
        let mut bound = Vec::with_capacity(a.elements.len());
        let mut located = Vec::with_capacity(a.elements.len());
        for n in &a.elements {
            let b = match node(n)? {
                NodeEnum::AArrayExpr(inner) => self.bind_array(inner, target)?,
                _ => self.bind(n)?,
            };
            located.push((b.1, expr_location(node(n)?)));
            bound.push(b);
        }
        if bound.is_empty() {
            let elem = target.ok_or_else(|| {
                DbError::new(
                    SqlState::IndeterminateDatatype,
                    "cannot determine type of empty array",
                )
                .with_hint("Explicitly cast to the desired type, for example ARRAY[]::integer[].")
            })?;
            let ty = elem.array_of().ok_or_else(|| no_array_type(elem))?;
            return Ok((
                Expr::Const(Array::from_items(elem.base(), Vec::new()).value()),
                ty,
            ));
        }
        let nested = bound.iter().any(|(_, t)| t.is_array());
        let ty = match target {
            Some(t) if !nested => t,
            _ => self.common_type_at(&located, "ARRAY")?.resolve_unknown(),
        };
        let (elem, array_ty) = if nested {
            let elem = ty.element().ok_or_else(|| {
                DbError::new(
                    SqlState::DatatypeMismatch,
                    format!(
                        "ARRAY types {} and {} cannot be matched",
                        ty.name(),
                        located[0].0.name()
                    ),
                )
            })?;
            (elem, ty)
        } else {
            (ty.base(), ty.array_of().ok_or_else(|| no_array_type(ty))?)
        };
        let mut items = Vec::with_capacity(bound.len());
        for (e, t) in bound {
            items.push(self.coerce(e, t, if nested { array_ty } else { elem })?);
        }
        let func = Func::ArrayCtor { elem, nested };
        if !nested && items.iter().all(|e| matches!(e, Expr::Const(_))) {
            let values = items
                .into_iter()
                .map(|e| match e {
                    Expr::Const(v) => v,
                    _ => unreachable!("checked constant"),
                })
                .collect();
            return Ok((
                Expr::Const(Array::from_items(elem, values).value()),
                array_ty,
            ));
        }
        Ok((Expr::Func(func, items), array_ty))
    }

    /// `expr[i][j]`, `expr[lo:hi]`, `(expr).f`, `(expr).f[1].g`: element
    /// access, slices and fields, each run of subscripts or fields applied
    /// to what the previous one gives.
    fn bind_indirection(&mut self, ind: &pb::AIndirection) -> Result<(Expr, DataType), DbError> {
        let arg = req(&ind.arg)?;
        let loc = expr_location(node(arg)?);
        let mut cur = self.bind(arg)?;
        let mut rest = ind.indirection.as_slice();
        while !rest.is_empty() {
            let subscript = |n: &Node| matches!(n.node, Some(NodeEnum::AIndices(_)));
            let fields = !subscript(&rest[0]);
            let n = rest
                .iter()
                .position(|n| subscript(n) == fields)
                .unwrap_or(rest.len());
            let (run, tail) = rest.split_at(n);
            cur = if fields {
                self.bind_fields(cur, run)
            } else {
                self.bind_subscripts(cur, run)
            }
            .map_err(|e| err_at(e, self.text, loc))?;
            rest = tail;
        }
        Ok(cur)
    }

    /// `(expr).field[.field...]`: fields of a record.
    fn bind_fields(
        &mut self,
        (mut e, mut t): (Expr, DataType),
        list: &[Node],
    ) -> Result<(Expr, DataType), DbError> {
        for i in list {
            let name = match node(i)? {
                NodeEnum::String(s) => s.sval.as_str(),
                NodeEnum::AStar(_) => return Err(DbError::unsupported("(expression).*")),
                other => return Err(unsupported_node(other)),
            };
            let DataType::Record(r) = t else {
                return Err(DbError::new(
                    SqlState::WrongObjectType,
                    format!(
                        "column notation .{name} applied to type {}, which is not a composite type",
                        t.name()
                    ),
                ));
            };
            let k = r.field(name).ok_or_else(|| {
                DbError::new(
                    SqlState::UndefinedColumn,
                    format!("could not identify column \"{name}\" in record data type"),
                )
            })?;
            e = Expr::Func(Func::FieldSelect(k), vec![e]);
            t = r.fields[k].1;
        }
        Ok((e, t))
    }

    fn bind_subscripts(
        &mut self,
        (arr, at): (Expr, DataType),
        list: &[Node],
    ) -> Result<(Expr, DataType), DbError> {
        if at == DataType::Jsonb {
            return self.bind_jsonb_subscripts(arr, list);
        }
        let subs = subscripts::bind_list(self, list)?;
        let mut args = Vec::with_capacity(subs.args.len() + 1);
        args.push(arr);
        args.extend(subs.args);
        // A name subscripts as the bytes it is made of (0-based), as
        // PostgreSQL's fixed-length name type does: pg_dump's
        // `typname[0] = '_'`.
        if at == DataType::Name && !subs.slice && args.len() == 2 {
            return Ok((Expr::Func(Func::Subscript, args), DataType::Text));
        }
        // point, lseg, box and line subscript as the fixed-length arrays
        // PostgreSQL stores them as (0-based, no slices).
        if let Some(elem) = geo_element(at) {
            if subs.slice {
                return Err(subscripts::fixed_length_slices());
            }
            return Ok((Expr::Func(Func::Subscript, args), elem));
        }
        let elem = at.element().ok_or_else(|| {
            DbError::new(
                SqlState::DatatypeMismatch,
                format!(
                    "cannot subscript type {} because it does not support subscripting",
                    at.name()
                ),
            )
        })?;
        if subs.slice {
            let f = Func::Slice {
                omitted: subs.omitted,
            };
            // int2vector / oidvector slices are plain arrays.
            let ty = match at {
                DataType::Array(_) => at,
                _ => elem.array_of().unwrap_or(at),
            };
            return Ok((Expr::Func(f, args), ty));
        }
        Ok((Expr::Func(Func::Subscript, args), elem))
    }

    /// `expr COLLATE name`: Nestor compares strings by their bytes (the
    /// "C" collation); the collations that mean exactly that are accepted,
    /// others are 0A000, an unknown name 42704 as in PostgreSQL.
    fn bind_collate(&mut self, c: &pb::CollateClause) -> Result<(Expr, DataType), DbError> {
        let (e, t) = self.bind(req(&c.arg)?)?;
        check_collation(&names(&c.collname), t)?;
        Ok((e, t))
    }

    /// `lhs op ANY/ALL (array expression)`.
    fn bind_any_array(
        &mut self,
        op: &str,
        lhs: &Node,
        rhs: &Node,
        all: bool,
    ) -> Result<(Expr, DataType), DbError> {
        if let Some((ci, negated)) = like_operator(op) {
            return self.bind_like_any((ci, negated, false), lhs, rhs, all);
        }
        if let Some((ci, negated)) = regex_operator(op) {
            return self.bind_like_any((ci, negated, true), lhs, rhs, all);
        }
        if nestor_types::tsearch::catalog::OPERATORS
            .iter()
            .any(|o| o.0 == op)
        {
            if let Some(r) = self.library_any(op, lhs, rhs, all)? {
                return Ok(r);
            }
        }
        let Some(cmp) = cmp_of(op) else {
            return Err(self.any_array_operator(op, rhs));
        };
        let (le, lt) = self.bind(lhs)?;
        let (re, rt) = self.bind(rhs)?;
        let rt = match rt {
            DataType::Unknown => {
                let t = lt
                    .resolve_unknown()
                    .array_of()
                    .ok_or_else(|| no_array_type(lt))?;
                let re = self.coerce(re, DataType::Unknown, t)?;
                return self.any_array(cmp, all, le, lt, re, t);
            }
            t => t,
        };
        self.any_array(cmp, all, le, lt, re, rt)
    }

    /// `lhs op ANY/ALL (rhs)` for a text search operator (`tsv @@ ANY
    /// (queries)`): the operator's function over each element; None when
    /// no such operator takes these operand types (the caller's error).
    fn library_any(
        &mut self,
        op: &str,
        lhs: &Node,
        rhs: &Node,
        all: bool,
    ) -> Result<Option<(Expr, DataType)>, DbError> {
        let (le, lt) = self.bind(lhs)?;
        let (re, rt) = self.bind(rhs)?;
        let et = match rt {
            DataType::Unknown => DataType::Unknown,
            t => match t.element() {
                Some(e) => e,
                None => {
                    return Err(DbError::new(
                        SqlState::WrongObjectType,
                        "op ANY/ALL (array) requires array on right side",
                    ))
                }
            },
        };
        let Some(f) = nestor_types::tsearch::catalog::resolve_operator(op, Some(lt), et) else {
            return Ok(None);
        };
        if f.ret != DataType::Bool {
            return Err(DbError::new(
                SqlState::WrongObjectType,
                "op ANY/ALL (array) requires operator to yield boolean",
            ));
        }
        let arr = f.arg_types[1]
            .array_of()
            .ok_or_else(|| no_array_type(f.arg_types[1]))?;
        let le = self.coerce(le, lt, f.arg_types[0])?;
        let re = self.coerce(re, rt, arr)?;
        Ok(Some((
            Expr::Func(Func::LibraryAny { func: f.func, all }, vec![le, re]),
            DataType::Bool,
        )))
    }

    /// The error of `lhs op ANY/ALL (rhs)` for an operator other than a
    /// comparison: PostgreSQL's make_scalar_array_op checks that the
    /// right side is an array, then that the operator yields boolean
    /// (arithmetic ones do not); other boolean operators are 0A000.
    fn any_array_operator(&mut self, op: &str, rhs: &Node) -> DbError {
        const NOT_BOOLEAN: &[&str] = &[
            "+", "-", "*", "/", "%", "^", "||", "&", "|", "#", "<<", ">>",
        ];
        if !NOT_BOOLEAN.contains(&op) {
            return DbError::unsupported(format!("operator {op} with ANY/ALL"));
        }
        let rt = match self.bind(rhs) {
            Ok((_, t)) => t,
            Err(e) => return e,
        };
        let why = if rt != DataType::Unknown && !rt.is_array() {
            "op ANY/ALL (array) requires array on right side"
        } else {
            "op ANY/ALL (array) requires operator to yield boolean"
        };
        DbError::new(SqlState::WrongObjectType, why)
    }

    /// `lhs [NOT] [I]LIKE ANY/ALL (patterns)`, or with `regex` `lhs ~
    /// ANY/ALL (patterns)` (and `~*`, `!~`, `!~*`): text against text[].
    fn bind_like_any(
        &mut self,
        (ci, negated, regex): (bool, bool, bool),
        lhs: &Node,
        rhs: &Node,
        all: bool,
    ) -> Result<(Expr, DataType), DbError> {
        let op = match (negated, ci, regex) {
            (false, false, false) => "~~",
            (false, true, false) => "~~*",
            (true, false, false) => "!~~",
            (true, true, false) => "!~~*",
            (false, false, true) => "~",
            (false, true, true) => "~*",
            (true, false, true) => "!~",
            (true, true, true) => "!~*",
        };
        let (le, lt) = self.bind(lhs)?;
        let (re, rt) = self.bind(rhs)?;
        let text_array = DataType::Text.array_of().expect("text[]");
        let et = match rt {
            DataType::Unknown => DataType::Text,
            t => t.element().ok_or_else(|| {
                DbError::new(
                    SqlState::WrongObjectType,
                    "op ANY/ALL (array) requires array on right side",
                )
            })?,
        };
        let texty = |t: DataType| t.is_string() || t == DataType::Unknown;
        if !texty(lt) || !texty(et) {
            return Err(no_operator(op, lt, et));
        }
        let le = self.coerce(le, lt, DataType::Text)?;
        let re = self.coerce(re, rt, text_array)?;
        Ok((
            Expr::Func(
                Func::LikeAny {
                    ci,
                    negated,
                    all,
                    regex,
                },
                vec![le, re],
            ),
            DataType::Bool,
        ))
    }

    fn any_array(
        &mut self,
        cmp: Cmp,
        all: bool,
        le: Expr,
        lt: DataType,
        re: Expr,
        rt: DataType,
    ) -> Result<(Expr, DataType), DbError> {
        let Some(et) = rt.element() else {
            return Err(DbError::new(
                SqlState::WrongObjectType,
                "op ANY/ALL (array) requires array on right side",
            ));
        };
        let ty = unify(lt, et).ok_or_else(|| no_operator(cmp.symbol(), lt, et))?;
        let le = if lt.is_integer() && et.is_integer() {
            le
        } else {
            self.coerce(le, lt, ty)?
        };
        let re = if et.is_integer() && ty.is_integer() {
            re
        } else {
            let at = ty.array_of().ok_or_else(|| no_array_type(ty))?;
            self.coerce(re, rt, at)?
        };
        Ok((
            Expr::Func(Func::AnyArray { op: cmp, all }, vec![le, re]),
            DataType::Bool,
        ))
    }

    /// Bind a list to one common type (COALESCE, CASE results, VALUES).
    pub(crate) fn bind_common(
        &mut self,
        list: &[Node],
        what: &str,
    ) -> Result<(Vec<Expr>, DataType), DbError> {
        let mut bound = Vec::with_capacity(list.len());
        let mut located = Vec::with_capacity(list.len());
        for n in list {
            let b = self.bind(n)?;
            located.push((b.1, expr_location(node(n)?)));
            bound.push(b);
        }
        let ty = self.common_type_at(&located, what)?;
        let mut out = Vec::with_capacity(bound.len());
        for (e, t) in bound {
            out.push(self.coerce(e, t, ty)?);
        }
        Ok((out, ty))
    }

    pub(crate) fn common_type(&self, types: &[DataType], what: &str) -> Result<DataType, DbError> {
        let located: Vec<(DataType, i32)> = types.iter().map(|&t| (t, -1)).collect();
        self.common_type_at(&located, what)
    }

    /// The common type of expressions given with their locations (as
    /// PostgreSQL's select_common_type: a mismatch points at the first
    /// expression that does not fit).
    pub(crate) fn common_type_at(
        &self,
        types: &[(DataType, i32)],
        what: &str,
    ) -> Result<DataType, DbError> {
        let mut ty = DataType::Unknown;
        for &(t, loc) in types.iter().filter(|t| t.0 != DataType::Unknown) {
            ty = unify(ty, t).ok_or_else(|| {
                err_at(
                    DbError::new(
                        SqlState::DatatypeMismatch,
                        format!(
                            "{what} types {} and {} cannot be matched",
                            ty.name(),
                            t.name()
                        ),
                    ),
                    self.text,
                    loc,
                )
            })?;
        }
        // character(n) of several lengths: PostgreSQL resolves to bpchar
        // and keeps each value's padding; padding all to the longest
        // length instead makes equal bpchar values equal as stored, for
        // grouping, DISTINCT and set operations.
        let longest = types.iter().try_fold(0, |m, t| match t.0 {
            DataType::Char(Some(n)) => Some(m.max(n)),
            _ => None,
        });
        // All of one reg* type (unknowns aside): that type, as
        // PostgreSQL's first rule of select_common_type (unify compares
        // them as oids).
        let mut known = types
            .iter()
            .map(|t| t.0)
            .filter(|&t| t != DataType::Unknown);
        if let Some(first @ DataType::Reg(_)) = known.next() {
            if known.all(|t| t == first) {
                return Ok(first);
            }
        }
        Ok(match longest {
            Some(n) if n > 0 => DataType::Char(Some(n)),
            _ if ty == DataType::Unknown => DataType::Text,
            _ => ty,
        })
    }

    fn bind_param(&mut self, p: &pb::ParamRef) -> Result<(Expr, DataType), DbError> {
        // Past PARAMS_MAX no Bind can supply the parameter (its count is 16
        // bits); the parser wraps larger numbers to negative ones, whose
        // message PostgreSQL prints the same way.
        let n = match usize::try_from(p.number) {
            Ok(n) if (1..=PARAMS_MAX).contains(&n) => n,
            _ => {
                return Err(DbError::new(
                    SqlState::UndefinedParameter,
                    format!("there is no parameter ${}", p.number),
                ))
            }
        };
        if self.params.len() < n {
            self.params.resize(n, DataType::Unknown);
        }
        Ok((Expr::Param(n - 1), self.params[n - 1]))
    }

    fn bind_column(&mut self, c: &pb::ColumnRef) -> Result<(Expr, DataType), DbError> {
        match self.bind_column_ref(c) {
            Err(e) if e.code == SqlState::UndefinedColumn => match self.functional_notation(c) {
                Some(call) => Ok(call),
                None => Err(e),
            },
            r => r,
        }
    }

    /// `x.f` where x has no column f: the call `f(x)` of a user function
    /// of one argument of a row or composite type (PostgreSQL's
    /// functional notation, ParseFuncOrColumn; PostgREST's "computed
    /// columns"). None when no such function takes x.
    fn functional_notation(&mut self, c: &pb::ColumnRef) -> Option<(Expr, DataType)> {
        let [rel, name] = c.fields.as_slice() else {
            return None;
        };
        let Ok(NodeEnum::String(fname)) = node(name) else {
            return None;
        };
        let takes_row = |f: &nestor_catalog::FunctionDef| matches!(f.input_types().as_slice(), [DataType::Record(r)] if r.oid != 0);
        if !self
            .catalog
            .functions(&fname.sval)
            .iter()
            .any(|f| takes_row(f))
        {
            return None;
        }
        let arg = pb::Node {
            node: Some(NodeEnum::ColumnRef(pb::ColumnRef {
                fields: vec![rel.clone()],
                location: c.location,
            })),
        };
        let call = pb::FuncCall {
            funcname: vec![name.clone()],
            args: vec![arg],
            location: c.location,
            ..Default::default()
        };
        crate::bind::userfunc::bind_call(self, &fname.sval, &call)
            .ok()
            .flatten()
    }

    fn bind_column_ref(&mut self, c: &pb::ColumnRef) -> Result<(Expr, DataType), DbError> {
        if let Some(row) = self.star_row(c)? {
            return Ok(row);
        }
        let mut parts = Vec::new();
        for f in &c.fields {
            match node(f)? {
                NodeEnum::String(s) => parts.push(s.sval.clone()),
                NodeEnum::AStar(_) => {
                    return Err(DbError::new(
                        SqlState::SyntaxError,
                        "row expansion via \"*\" is not supported here",
                    ))
                }
                other => return Err(unsupported_node(other)),
            }
        }
        let Some(vars) = self.vars else {
            return self.resolve_parts(&parts);
        };
        // PL/pgSQL: a variable, unless a column of that name is in scope
        // too (PostgreSQL's plpgsql.variable_conflict).
        let refs: Vec<&str> = parts.iter().map(String::as_str).collect();
        let conflict = vars.conflict();
        if conflict == VarConflict::UseColumn {
            if let Ok(col) = self.resolve_parts(&parts) {
                return Ok(col);
            }
        }
        let var = vars.resolve(&refs)?;
        if let (VarConflict::UseVariable, Some((i, ty))) = (conflict, var) {
            if self.params.len() <= i {
                self.params.resize(i + 1, DataType::Unknown);
            }
            self.params[i] = ty;
            return Ok((Expr::Param(i), ty));
        }
        match (self.resolve_parts(&parts), var) {
            (Ok(_), Some(_)) => Err(err_at(
                DbError::new(
                    SqlState::AmbiguousColumn,
                    format!("column reference \"{}\" is ambiguous", parts.join(".")),
                )
                .with_detail("It could refer to either a PL/pgSQL variable or a table column."),
                self.text,
                c.location,
            )),
            (Ok(col), None) => Ok(col),
            (Err(_), Some((i, ty))) => {
                if self.params.len() <= i {
                    self.params.resize(i + 1, DataType::Unknown);
                }
                self.params[i] = ty;
                Ok((Expr::Param(i), ty))
            }
            (Err(e), None) => match self.var_field(vars, &refs)? {
                Some(field) => Ok(field),
                None => Err(e),
            },
        }
    }

    /// `p.f` (or `func.p.f`) where `p` is a variable or argument of a row
    /// type: the field of it (PostgreSQL's field selection on a Param).
    fn var_field(
        &mut self,
        vars: &dyn VarResolver,
        refs: &[&str],
    ) -> Result<Option<(Expr, DataType)>, DbError> {
        let Some((field, var)) = refs.split_last() else {
            return Ok(None);
        };
        if var.is_empty() {
            return Ok(None);
        }
        let Some((i, DataType::Record(rt))) = vars.resolve(var)? else {
            return Ok(None);
        };
        let Some(k) = rt.field(field) else {
            return Ok(None);
        };
        if self.params.len() <= i {
            self.params.resize(i + 1, DataType::Unknown);
        }
        self.params[i] = DataType::Record(rt);
        let ty = rt.fields[k].1;
        Ok(Some((
            Expr::Func(Func::FieldSelect(k), vec![Expr::Param(i)]),
            ty,
        )))
    }

    fn resolve_parts(&mut self, parts: &[String]) -> Result<(Expr, DataType), DbError> {
        let (rel, name) = match parts {
            [n] => (None, n.as_str()),
            [r, n] => (Some(r.as_str()), n.as_str()),
            [_, r, n] => (Some(r.as_str()), n.as_str()),
            _ => {
                return Err(DbError::unsupported(
                    "column reference with more than 3 parts",
                ))
            }
        };
        self.resolve(rel, name)
    }

    /// Resolve a column name through the scopes, innermost first.
    pub fn resolve(&mut self, rel: Option<&str>, name: &str) -> Result<(Expr, DataType), DbError> {
        let cur = self.level();
        // Found only where it may not be referenced: the error, unless an
        // outer level has it.
        let mut unreachable = None;
        for lvl in (0..self.scopes.len()).rev() {
            let scope = &self.scopes[lvl];
            let using_alias = rel.and_then(|r| scope.using_alias(r));
            if let Some(cols) = using_alias {
                let Some(&(_, i)) = cols.iter().find(|(n, _)| n == name) else {
                    return Err(self.missing_column(rel, name));
                };
                return self.read_column(lvl, i, rel);
            }
            if let Some(r) = rel {
                if scope.names_twice(r) {
                    return Err(DbError::new(
                        SqlState::AmbiguousAlias,
                        format!("table reference \"{r}\" is ambiguous"),
                    ));
                }
            }
            let rel_known =
                rel.is_none_or(|r| scope.cols[scope.floor..].iter().any(|c| c.rel == r));
            let matches = |c: &ScopeCol| {
                c.name == name && rel.map_or(!c.merged, |r| c.rel == r) && !c.name.is_empty()
            };
            let mut hits = scope
                .cols
                .iter()
                .enumerate()
                .filter(|(i, c)| *i >= scope.floor && matches(c));
            if hits.clone().next().is_none() && unreachable.is_none() {
                if let Some(col) = scope.cols[..scope.floor].iter().find(|c| matches(c)) {
                    unreachable = Some(if scope.lateral_target {
                        lateral_target_ref(&col.rel)
                    } else {
                        unreachable_entry(rel, name, &col.rel)
                    });
                }
            }
            let Some((i, col)) = hits.next() else {
                if name == "tableoid" {
                    if let Some(oid) = plain_tableoid(scope, rel) {
                        return Ok((Expr::Const(Value::Int8(i64::from(oid))), DataType::Oid));
                    }
                }
                if rel.is_some() && rel_known {
                    return Err(self.missing_column(rel, name));
                }
                continue;
            };
            let (i, col) = match hits.next() {
                None => (i, col),
                // A join alias names both copies of a USING column and
                // the merged one: it means the merged one.
                Some(second) => {
                    let mut unmerged = std::iter::once((i, col))
                        .chain(std::iter::once(second))
                        .chain(hits)
                        .filter(|(_, c)| !c.merged);
                    match (unmerged.next(), unmerged.next()) {
                        (Some(only), None) if rel.is_some() => only,
                        _ => {
                            return Err(DbError::new(
                                SqlState::AmbiguousColumn,
                                format!("column reference \"{name}\" is ambiguous"),
                            ))
                        }
                    }
                }
            };
            // Pulled up only in a WHERE or JOIN condition of its own
            // level: elsewhere (a select list, GROUP BY) the column keeps
            // its identity, which grouping checks compare as PostgreSQL's
            // parser does before its planner pulls the subquery up.
            let qual = matches!(self.agg, AggCtx::NotAllowed("WHERE" | "JOIN conditions"));
            if let Some(e) = col.subst.clone().filter(|_| lvl == cur && qual) {
                let ty = col.ty;
                return Ok((self.substitute(lvl, *e), ty));
            }
            let is_ctid = col.hidden && col.name == "ctid";
            let (e, ty) = self.read_column(lvl, i, rel)?;
            if is_ctid {
                return Ok((Expr::Func(Func::CtidText, vec![e]), DataType::Text));
            }
            return Ok((e, ty));
        }
        if let Some(e) = unreachable {
            return Err(e);
        }
        // No column of that name at any level (PostgreSQL looks for one
        // first): a FROM item of that name is its whole row, innermost
        // level first.
        if rel.is_none() {
            for lvl in (0..self.scopes.len()).rev() {
                if self.scopes[lvl].names_twice(name) {
                    return Err(DbError::new(
                        SqlState::AmbiguousAlias,
                        format!("table reference \"{name}\" is ambiguous"),
                    ));
                }
                if let Some(row) = self.whole_row(lvl, name) {
                    return Ok(row);
                }
            }
        }
        match rel {
            Some(r)
                if self
                    .scopes
                    .iter()
                    .any(|s| s.hidden_rels.iter().any(|h| h == r)) =>
            {
                Err(unreachable_entry(rel, name, r))
            }
            Some(r) => Err(self.missing_entry(r)),
            None => Err(self.missing_column(None, name)),
        }
    }

    /// A pulled-up LATERAL column's value ([`ScopeCol::subst`], over level
    /// `lvl`'s row) as read here: a column of that level stays one where
    /// it is in reach, else (a JOIN's ON clause below the floor, which
    /// makes the join LATERAL) it is read as an outer reference, as the
    /// subquery itself read it.
    fn substitute(&mut self, lvl: usize, e: Expr) -> Expr {
        let cur = self.level();
        let floor = self.scopes[lvl].floor;
        e.rewrite(&mut |x| {
            Ok(match x {
                Expr::Col(j) if lvl == cur && *j >= floor => None,
                Expr::Col(j) => Some(self.outer_ref(lvl, *j)),
                Expr::Outer { level, col } => Some(self.outer_ref(*level, *col)),
                _ => None,
            })
        })
        .expect("substitution never fails")
    }

    /// Column `i` of level `lvl`'s scope as a reference qualified by `rel`
    /// (None: unqualified) reads it: marked read, an outer reference from
    /// a deeper level, a merged JOIN USING column coerced to its common
    /// type ([`using_cast`]).
    pub(crate) fn read_column(
        &mut self,
        lvl: usize,
        i: usize,
        rel: Option<&str>,
    ) -> Result<(Expr, DataType), DbError> {
        let col = &self.scopes[lvl].cols[i];
        let (ty, cast) = (col.ty, using_cast(col, rel));
        self.mark_read(lvl, i, false);
        let e = if lvl == self.level() {
            Expr::Col(i)
        } else {
            self.outer_ref(lvl, i)
        };
        match cast {
            Some(to) => Ok((self.coerce(e, ty, to)?, to)),
            None => Ok((e, ty)),
        }
    }

    /// No column `rel.name` (or `name`) is visible, worded as PostgreSQL's
    /// errorMissingColumn: its hint names the closest column names of the
    /// FROM items of every level (searchRangeTableForCol), or says that a
    /// column of that very name exists where it cannot be referenced.
    pub(crate) fn missing_column(&self, rel: Option<&str>, name: &str) -> DbError {
        let message = match rel {
            Some(r) => format!("column {r}.{name} does not exist"),
            None => format!("column \"{name}\" does not exist"),
        };
        let err = DbError::new(SqlState::UndefinedColumn, message);
        let hint = match fuzzy_column(&self.scopes, rel, name) {
            Fuzzy::None => return err,
            Fuzzy::Exact(item) => format!(
                "There is a column named \"{name}\" in table \"{item}\", but it cannot be referenced from this part of the query."
            ),
            Fuzzy::One(item, col) => {
                format!("Perhaps you meant to reference the column \"{item}.{col}\".")
            }
            Fuzzy::Two((i1, c1), (i2, c2)) => format!(
                "Perhaps you meant to reference the column \"{i1}.{c1}\" or the column \"{i2}.{c2}\"."
            ),
        };
        err.with_hint(hint)
    }

    /// No FROM item is named `r`, worded as PostgreSQL's errorMissingRTE:
    /// when a table of that name is in FROM under an alias (`UPDATE t AS
    /// x SET b = t.b`), "invalid reference" with a hint naming the alias.
    pub(crate) fn missing_entry(&self, r: &str) -> DbError {
        let aliased = self.scopes.iter().rev().find_map(|s| {
            s.cols.iter().find_map(|c| {
                let table = (c.table_oid != 0 && c.rel != r)
                    .then(|| self.catalog.table_by_oid(nestor_common::RelId(c.table_oid)))??;
                (self.catalog.unqualified(&table.name) == r).then(|| c.rel.clone())
            })
        });
        match aliased {
            Some(alias) => DbError::new(
                SqlState::UndefinedTable,
                format!("invalid reference to FROM-clause entry for table \"{r}\""),
            )
            .with_hint(format!(
                "Perhaps you meant to reference the table alias \"{alias}\"."
            )),
            None => DbError::new(
                SqlState::UndefinedTable,
                format!("missing FROM-clause entry for table \"{r}\""),
            ),
        }
    }

    /// `t.*` where a value is wanted (a function's argument, `t.* IS
    /// NULL`): the whole row of `t`, as a bare `t` is. None when `c` is
    /// not of that form.
    fn star_row(&mut self, c: &pb::ColumnRef) -> Result<Option<(Expr, DataType)>, DbError> {
        let [rel, star] = &c.fields[..] else {
            return Ok(None);
        };
        let (Some(NodeEnum::String(rel)), Some(NodeEnum::AStar(_))) =
            (rel.node.as_ref(), star.node.as_ref())
        else {
            return Ok(None);
        };
        for lvl in (0..self.scopes.len()).rev() {
            if let Some(row) = self.whole_row(lvl, &rel.sval) {
                return Ok(Some(row));
            }
        }
        Err(err_at(self.missing_entry(&rel.sval), self.text, c.location))
    }

    /// Run `f` with a recursive CTE's working table `name` in scope (an
    /// empty placeholder, `id`'s rows at run time); also how many times
    /// `f`'s statement referred to it.
    /// `star_hidden`: see [`Cte::star_hidden`].
    pub(crate) fn with_working_table<T>(
        &mut self,
        name: String,
        id: usize,
        (cols, star_hidden): (Vec<OutCol>, usize),
        f: impl FnOnce(&mut Self) -> T,
    ) -> (T, usize) {
        self.ctes.push(Cte {
            name,
            id,
            plan: Arc::new(Plan::Values { rows: Vec::new() }),
            cols,
            working: true,
            no_returning: false,
            level: self.level(),
            star_hidden,
            outer_level: None,
            refs: 0,
            volatile: false,
            whole_first: Default::default(),
        });
        self.recursive_refs.push((id, 0));
        let out = f(self);
        self.ctes.pop();
        let refs = self
            .recursive_refs
            .iter()
            .position(|(i, _)| *i == id)
            .map_or(0, |i| self.recursive_refs.remove(i).1);
        (out, refs)
    }

    /// A FROM item's name used as a value (`SELECT t FROM t`,
    /// `row_to_json(ss)`): a record of its visible columns, named as they
    /// are (PostgreSQL's whole-row Var, as an anonymous record).
    fn whole_row(&mut self, lvl: usize, name: &str) -> Option<(Expr, DataType)> {
        let cur = self.level();
        let scope = &self.scopes[lvl];
        let aliased = scope.using_alias(name);
        let cols: Vec<(usize, &ScopeCol)> = match aliased {
            Some(named) => named.iter().map(|&(_, i)| (i, &scope.cols[i])).collect(),
            None => scope
                .cols
                .iter()
                .enumerate()
                .filter(|(i, c)| *i >= scope.floor && c.rel == name && !c.hidden && !c.merged)
                .collect(),
        };
        // A table of no columns has a whole row too (of no fields); it
        // is known by its hidden system columns.
        let known = |c: &ScopeCol| c.rel == name && !c.merged;
        if cols.is_empty() && !scope.cols.get(scope.floor..)?.iter().any(known) {
            return None;
        }
        if let [(i, c)] = cols.as_slice() {
            if c.scalar_fn {
                let (i, ty) = (*i, c.ty);
                self.mark_read(lvl, i, false);
                if lvl == cur {
                    return Some((Expr::Col(i), ty));
                }
                return Some((self.outer_ref(lvl, i), ty));
            }
        }
        // Rows of a descendant written under the named table's name: its
        // columns in the named table's order, of its row type.
        let mut cols = cols;
        let mut named_type = None;
        if let Some((as_name, named)) = &self.whole_row_as {
            if as_name == name && aliased.is_none() {
                let by_name = |n: &str| cols.iter().find(|(_, c)| c.name == n).copied();
                let ordered: Option<Vec<_>> = named
                    .live_columns()
                    .map(|(_, c)| by_name(&c.name))
                    .collect();
                if let Some(ordered) = ordered.filter(|o| o.len() == cols.len()) {
                    cols = ordered;
                    named_type = nestor_types::composites::type_for_oid(named.oid.0);
                }
            }
        }
        let types: Vec<DataType> = cols.iter().map(|(_, c)| c.ty).collect();
        // (Not for a table read under another table's name: a partition's
        // or child's rows checked as the named parent's.)
        let catalog = self.catalog;
        let misnamed = |oid: u32| catalog.table(name).is_some_and(|t| t.oid.0 != oid);
        let ty = match aliased
            .is_none()
            .then(|| table_row_type(scope, name, &types).filter(|(oid, _)| !misnamed(*oid)))
        {
            _ if named_type.is_some() => named_type.expect("checked"),
            Some(Some((_, t))) => t,
            _ => DataType::Record(nestor_types::datatype::record_type(
                cols.iter().map(|(_, c)| (c.name.clone(), c.ty)).collect(),
            )),
        };
        let positions: Vec<usize> = cols.iter().map(|(i, _)| *i).collect();
        for &i in &positions {
            self.mark_read(lvl, i, true);
        }
        // A whole row is NULL where an outer join NULL-extends it
        // (PostgreSQL's whole-row Var), not a row of NULLs: a table's row
        // id, never NULL in a row read, tells, as does the marker of a
        // subquery or function that may be NULL-extended.
        let scope = &self.scopes[lvl];
        let row_id = (scope.floor..scope.cols.len()).find(|&i| {
            let c = &scope.cols[i];
            let row_id = scope.nullable_row_ids.contains(&i);
            c.rel == name && c.hidden && (row_id || c.attnum == NULL_MARKER_ATTNUM)
        });
        let mut col = |i: usize| {
            if lvl == cur {
                Expr::Col(i)
            } else {
                self.outer_ref(lvl, i)
            }
        };
        let fields = positions.into_iter().map(&mut col).collect();
        let row = Expr::Func(Func::RowCtor, fields);
        let Some(row_id) = row_id else {
            return Some((row, ty));
        };
        let missing = Expr::IsNull(Box::new(col(row_id)), false);
        Some((
            Expr::Case {
                operand: None,
                whens: vec![(missing, Expr::Const(Value::Null))],
                else_: Some(Box::new(row)),
            },
            ty,
        ))
    }

    fn bind_cast(&mut self, tc: &pb::TypeCast) -> Result<(Expr, DataType), DbError> {
        let tn = tc
            .type_name
            .as_ref()
            .ok_or_else(|| DbError::internal("cast without type"))?;
        if let Some((def, array)) = domain::domain_or_array(tn) {
            let (e, t) = self.bind_cast_base(tc, tn)?;
            if array {
                return Ok((self.coerce_to_domain_array(e, &def)?, t));
            }
            return Ok((self.coerce_to_domain(e, &def)?, def.base));
        }
        let (e, t) = self.bind_cast_base(tc, tn)?;
        Ok((self.check_contained_from(e, t, req(&tc.arg)?)?, t))
    }

    /// `arg::tn`, a domain taken as its base type.
    fn bind_cast_base(
        &mut self,
        tc: &pb::TypeCast,
        tn: &pb::TypeName,
    ) -> Result<(Expr, DataType), DbError> {
        if let NodeEnum::AArrayExpr(a) = node(req(&tc.arg)?)? {
            let to = type_from_name(tn).map_err(|e| err_at(e, self.text, tn.location))?;
            if let Some(elem) = to.element() {
                let (e, from) = self.bind_array(a, Some(elem))?;
                if to.typmod() >= 0 {
                    // `ARRAY['abcd']::char(3)[]` fits each element as an
                    // explicit cast does (truncating).
                    return Ok((Expr::Cast(Box::new(e), to), to));
                }
                return Ok((self.coerce(e, from, to)?, to));
            }
        }
        let (e, from) = self.bind(req(&tc.arg)?)?;
        if let Ok(DataType::Reg(kind)) = type_from_name(tn) {
            // A name that does not resolve is reported at the name, as
            // PostgreSQL's input function does.
            let at = location_of(node(req(&tc.arg)?)?);
            return self
                .reg_input(kind, e, from)
                .map_err(|e| err_at(e, self.text, at));
        }
        if let Some(f) = reg_name_fn(from) {
            let to = type_from_name(tn).map_err(|e| err_at(e, self.text, tn.location))?;
            if to.is_string() {
                let named = Expr::Func(f, vec![e]);
                return Ok((self.coerce(named, DataType::Text, to)?, to));
            }
        }
        let to = match type_from_name(tn) {
            Ok(t) => t,
            Err(e) => self
                .table_row_type(e, tn)
                .map_err(|e| err_at(e, self.text, tn.location))?,
        };
        if let Expr::Param(i) = e {
            if self.params[i] == DataType::Unknown {
                self.params[i] = to.base();
                return Ok((Expr::Param(i), to));
            }
        }
        if let Some(c) = self.user_cast(from, to) {
            return Ok((self.apply_user_cast(e, from, to, &c, true)?, to));
        }
        if from == DataType::Bool && to.is_numeric() && to != DataType::Int4
            || (from.is_datetime() && to.is_numeric())
        {
            return Err(valops::cannot_cast(from, to));
        }
        if matches!(from, DataType::Char(_)) && to.is_string() && !matches!(to, DataType::Char(_)) {
            return Ok((self.coerce(e, from, to)?, to));
        }
        if let (DataType::Record(f), DataType::Record(t)) = (from, to) {
            if f.oid == 0 && t.oid != 0 && f.fields.len() != t.fields.len() {
                let detail = if f.fields.len() > t.fields.len() {
                    "Input has too many columns."
                } else {
                    "Input has too few columns."
                };
                let e = valops::cannot_cast(from, to).with_detail(detail);
                return Err(err_at(e, self.text, tc.location));
            }
        }
        match e {
            Expr::Const(v) => Ok((Expr::Const(self.fold_cast(v, from, to, true)?), to)),
            e => Ok((Expr::Cast(Box::new(e), to), to)),
        }
    }

    /// A type name that names a table (`'(1,a)'::t`, `ROW(1, 'a')::t`, a
    /// column of type `t`): the table's row type, of its columns now, its
    /// OID the table's (`e`, the name's lookup error, otherwise). A view's
    /// name is its row type likewise (`json_populate_recordset(null::v,
    /// ...)`, as PostgREST writes through views). Arrays of it are 0A000.
    pub fn table_row_type(&self, e: DbError, tn: &pb::TypeName) -> Result<DataType, DbError> {
        let parts = names(&tn.names);
        let name = match parts.last() {
            Some(n) if e.code == SqlState::UndefinedObject => n,
            _ => return Err(e),
        };
        let Some(t) = self.catalog.table(name) else {
            return match self.catalog.view(name) {
                Some(v) => view_row_type(&v, tn),
                None => Err(e),
            };
        };
        if !tn.array_bounds.is_empty() {
            return Err(DbError::unsupported(format!(
                "arrays of the row type of table {}",
                t.name
            )));
        }
        Ok(nestor_catalog::row_type::note(&t))
    }

    /// `x::regclass` (and the other reg* types): a name is looked up (a
    /// constant now, else when evaluated); a number is the OID itself.
    fn reg_input(
        &mut self,
        kind: RegKind,
        e: Expr,
        from: DataType,
    ) -> Result<(Expr, DataType), DbError> {
        let ty = DataType::Reg(kind);
        if from.is_integer() || from.base() == DataType::Oid {
            let e = self.coerce(e, from, DataType::Oid)?;
            return Ok((e, ty));
        }
        if let Expr::Const(Value::Text(name)) = &e {
            let oid = crate::pg_catalog::reg_lookup(self.catalog, kind, name)?;
            return Ok((Expr::Const(Value::Int8(i64::from(oid))), ty));
        }
        if !from.is_string() {
            return Err(valops::cannot_cast(from, ty));
        }
        let e = self.coerce(e, from, DataType::Text)?;
        let f = match kind {
            RegKind::Class => Func::Regclass,
            k => Func::Catalog(CatalogFn::RegInput(k)),
        };
        Ok((Expr::Func(f, vec![e]), ty))
    }

    /// An aggregate's argument in the type the aggregate takes (bool_and
    /// a boolean, string_agg text, array_agg its result's element type).
    fn coerce_agg_arg(
        &mut self,
        func: AggFunc,
        arg: Option<Expr>,
        at: DataType,
        ty: DataType,
    ) -> Result<Option<Expr>, DbError> {
        Ok(match (func, arg) {
            (AggFunc::BoolAnd | AggFunc::BoolOr, Some(e)) => {
                Some(self.coerce(e, at, DataType::Bool)?)
            }
            // Coerced with its delimiter by agg_args.
            (AggFunc::StringAgg, Some(e)) => Some(e),
            // sum/avg of time: of the time cast to interval.
            (AggFunc::Sum | AggFunc::Avg, Some(e)) if matches!(at, DataType::Time(_)) => {
                Some(self.coerce(e, at, DataType::Interval(None))?)
            }
            (AggFunc::ArrayAgg, Some(e)) => {
                Some(self.coerce(e, at, ty.element().expect("an array"))?)
            }
            (AggFunc::ArrayAggArrays, Some(e)) => Some(self.coerce(e, at, ty)?),
            (_, a) => a,
        })
    }

    fn bind_boolexpr(&mut self, b: &pb::BoolExpr) -> Result<(Expr, DataType), DbError> {
        let kind = pb::BoolExprType::try_from(b.boolop).unwrap_or(pb::BoolExprType::Undefined);
        let clause = match kind {
            pb::BoolExprType::AndExpr => "AND",
            pb::BoolExprType::OrExpr => "OR",
            _ => "NOT",
        };
        let mut args = Vec::with_capacity(b.args.len());
        for a in &b.args {
            args.push(self.bind_bool(a, clause)?);
        }
        let e = match kind {
            pb::BoolExprType::AndExpr => Expr::And(args),
            pb::BoolExprType::OrExpr => Expr::Or(args),
            _ => Expr::Not(Box::new(
                args.pop()
                    .ok_or_else(|| DbError::internal("NOT without operand"))?,
            )),
        };
        Ok((e, DataType::Bool))
    }

    fn bind_aexpr(&mut self, a: &pb::AExpr) -> Result<(Expr, DataType), DbError> {
        let kind = pb::AExprKind::try_from(a.kind).unwrap_or(pb::AExprKind::Undefined);
        let op = names(&a.name).last().cloned().unwrap_or_default();
        match kind {
            pb::AExprKind::AexprOp => match &a.lexpr {
                None => self.bind_unary(&op, req(&a.rexpr)?),
                Some(l) => self.bind_binary(&op, l, req(&a.rexpr)?),
            },
            pb::AExprKind::AexprDistinct | pb::AExprKind::AexprNotDistinct => {
                let not = kind == pb::AExprKind::AexprNotDistinct;
                if let (Some(ls), Some(rs)) = (row_args(req(&a.lexpr)?), row_args(req(&a.rexpr)?)) {
                    let c = if not { Cmp::Eq } else { Cmp::Ne };
                    return Ok((self.bind_row_cmp(c, "=", ls, rs, true)?, DataType::Bool));
                }
                let (l, r, _) = self.bind_cmp_pair(req(&a.lexpr)?, req(&a.rexpr)?, "=", true)?;
                let negated = kind == pb::AExprKind::AexprNotDistinct;
                Ok((
                    Expr::Distinct(Box::new(l), Box::new(r), negated),
                    DataType::Bool,
                ))
            }
            pb::AExprKind::AexprNullif => {
                let (l, r, t) = self.bind_pair(req(&a.lexpr)?, req(&a.rexpr)?, "=")?;
                Ok((Expr::NullIf(Box::new(l), Box::new(r)), t))
            }
            pb::AExprKind::AexprIn => self.bind_in(&op, req(&a.lexpr)?, req(&a.rexpr)?),
            pb::AExprKind::AexprOpAny | pb::AExprKind::AexprOpAll => {
                let r = req(&a.rexpr)?;
                match node(r)? {
                    NodeEnum::AArrayExpr(arr) if kind == pb::AExprKind::AexprOpAny && op == "=" => {
                        let wrapper = pb::List {
                            items: arr.elements.clone(),
                        };
                        let list = Node {
                            node: Some(NodeEnum::List(wrapper)),
                        };
                        self.bind_in("=", req(&a.lexpr)?, &list)
                    }
                    _ => self.bind_any_array(
                        &op,
                        req(&a.lexpr)?,
                        r,
                        kind == pb::AExprKind::AexprOpAll,
                    ),
                }
            }
            pb::AExprKind::AexprLike | pb::AExprKind::AexprIlike => {
                let (l, lt) = self.bind(req(&a.lexpr)?)?;
                let (p, pt) = self.bind(req(&a.rexpr)?)?;
                let (l, p) = self.like_operands(&op, l, lt, p, pt)?;
                Ok((
                    Expr::Like {
                        lhs: Box::new(l),
                        pattern: Box::new(p),
                        ci: kind == pb::AExprKind::AexprIlike,
                        negated: op.starts_with('!'),
                    },
                    DataType::Bool,
                ))
            }
            pb::AExprKind::AexprBetween
            | pb::AExprKind::AexprNotBetween
            | pb::AExprKind::AexprBetweenSym
            | pb::AExprKind::AexprNotBetweenSym => self.bind_between(kind, a),
            // `a SIMILAR TO b [ESCAPE e]` arrives as `a ~ similar_to_escape(b
            // [, e])` (`!~` for NOT), PostgreSQL's own rewrite.
            pb::AExprKind::AexprSimilar => {
                let (l, lt) = self.bind(req(&a.lexpr)?)?;
                let (p, pt) = self.bind(req(&a.rexpr)?)?;
                if !(lt.is_string() || lt == DataType::Unknown) {
                    return Err(no_operator(&op, lt, pt));
                }
                let l = self.pattern_subject(l, lt)?;
                let p = fold_similar_pattern(self.coerce(p, pt, DataType::Text)?, &self.eval)?;
                let name = if op.starts_with('!') {
                    "textregexne"
                } else {
                    "textregexeq"
                };
                let f = functions::library_call(name, &[DataType::Text, DataType::Text])?;
                Ok((Expr::Func(f, vec![l, p]), DataType::Bool))
            }
            _ => Err(DbError::unsupported("this operator kind")),
        }
    }

    /// The subject and pattern of LIKE: both bytea (`bytea ~~ bytea`, no
    /// ILIKE), else text (a char(n) subject kept as is).
    fn like_operands(
        &mut self,
        op: &str,
        l: Expr,
        lt: DataType,
        p: Expr,
        pt: DataType,
    ) -> Result<(Expr, Expr), DbError> {
        // No LIKE for bit strings (and no assignment cast to text here).
        if nestor_types::bits::is_bits(lt) {
            return Err(operator_missing(op, lt.name(), pt.name()));
        }
        if lt == DataType::Bytea && matches!(pt, DataType::Bytea | DataType::Unknown) {
            if op.contains('*') {
                // Named as written: `bytea ~~* unknown` for a literal.
                return Err(operator_missing(op, lt.name(), pt.name()));
            }
            return Ok((l, self.coerce(p, pt, DataType::Bytea)?));
        }
        Ok((
            self.pattern_subject(l, lt)?,
            self.coerce(p, pt, DataType::Text)?,
        ))
    }

    /// The left operand of LIKE or a regular-expression match, as text. A
    /// `character(n)` value keeps its padding: PostgreSQL's bpcharlike
    /// and bpcharregexeq read the padded value (`'a'::char(3) LIKE 'a  '`
    /// is true), where a cast to text would drop it.
    fn pattern_subject(&mut self, e: Expr, t: DataType) -> Result<Expr, DbError> {
        if matches!(t, DataType::Char(_)) {
            return Ok(e);
        }
        self.coerce(e, t, DataType::Text)
    }

    fn bind_between(
        &mut self,
        kind: pb::AExprKind,
        a: &pb::AExpr,
    ) -> Result<(Expr, DataType), DbError> {
        let bounds = match node(req(&a.rexpr)?)? {
            NodeEnum::List(l) if l.items.len() == 2 => l.items.clone(),
            _ => return Err(DbError::internal("BETWEEN needs two bounds")),
        };
        let lhs = req(&a.lexpr)?;
        let (l1, lo, _) = self.bind_cmp_pair(lhs, &bounds[0], ">=", false)?;
        let (l2, hi, _) = self.bind_cmp_pair(lhs, &bounds[1], "<=", false)?;
        let sym = matches!(
            kind,
            pb::AExprKind::AexprBetweenSym | pb::AExprKind::AexprNotBetweenSym
        );
        let range = |l1: Expr, lo: Expr, l2: Expr, hi: Expr| {
            Expr::And(vec![
                Expr::Cmp(Cmp::Ge, Box::new(l1), Box::new(lo)),
                Expr::Cmp(Cmp::Le, Box::new(l2), Box::new(hi)),
            ])
        };
        let mut e = range(l1.clone(), lo.clone(), l2.clone(), hi.clone());
        if sym {
            e = Expr::Or(vec![e, range(l1, hi, l2, lo)]);
        }
        if matches!(
            kind,
            pb::AExprKind::AexprNotBetween | pb::AExprKind::AexprNotBetweenSym
        ) {
            e = Expr::Not(Box::new(e));
        }
        Ok((e, DataType::Bool))
    }

    fn bind_in(&mut self, op: &str, lhs: &Node, rhs: &Node) -> Result<(Expr, DataType), DbError> {
        let items = match node(rhs)? {
            NodeEnum::List(l) => &l.items,
            other => return Err(unsupported_node(other)),
        };
        if let Some(ls) = row_args(lhs) {
            // (a, b) [NOT] IN ((1, 2), (3, 4)): the OR of row equalities
            // (the AND of row inequalities).
            let negated = op == "<>";
            let mut arms = Vec::with_capacity(items.len());
            for item in items {
                let rs = row_args(item).ok_or_else(|| {
                    DbError::unsupported("IN with a row on the left and a value that is not a row")
                })?;
                let c = if negated { Cmp::Ne } else { Cmp::Eq };
                arms.push(self.bind_row_cmp(c, op, ls, rs, false)?);
            }
            let e = match (arms.len(), negated) {
                (1, _) => arms.pop().expect("one arm"),
                (_, true) => Expr::And(arms),
                (_, false) => Expr::Or(arms),
            };
            return Ok((e, DataType::Bool));
        }
        let (l, lt) = self.bind(lhs)?;
        let mut bound = vec![(l, lt)];
        for i in items {
            bound.push(self.bind(i)?);
        }
        let ty = self
            .common_type(&bound.iter().map(|b| b.1).collect::<Vec<_>>(), "IN")
            .map_err(|_| no_operator("=", lt, bound.get(1).map_or(lt, |b| b.1)))?;
        let mut exprs = Vec::with_capacity(bound.len());
        if matches!(ty, DataType::Char(_)) {
            // bpchar equality (see bpchar_pair): padded to the column's
            // length when every item fits it, else without trailing blanks.
            let fits = |(e, t): &(Expr, DataType), n: u32| match (e, t) {
                (Expr::Const(Value::Text(s)), DataType::Unknown) => {
                    s.trim_end_matches(' ').chars().count() <= n as usize
                }
                (_, t) => *t == DataType::Char(Some(n)),
            };
            let target = match lt {
                DataType::Char(Some(n)) if bound.iter().all(|b| fits(b, n)) => lt,
                _ => DataType::Text,
            };
            for (e, t) in bound {
                let e = if target == DataType::Text {
                    let e = self.coerce(e, t, DataType::Char(None))?;
                    self.coerce(e, DataType::Char(None), DataType::Text)?
                } else {
                    self.coerce(e, t, target)?
                };
                exprs.push(e);
            }
        } else {
            for (e, t) in bound {
                let keep_int = t.is_integer() && ty.is_integer();
                exprs.push(if keep_int { e } else { self.coerce(e, t, ty)? });
            }
        }
        let l = exprs.remove(0);
        Ok((
            Expr::InList {
                lhs: Box::new(l),
                list: exprs,
                negated: op == "<>",
            },
            DataType::Bool,
        ))
    }

    /// Bind two operands to a common type.
    fn bind_pair(
        &mut self,
        l: &Node,
        r: &Node,
        op: &str,
    ) -> Result<(Expr, Expr, DataType), DbError> {
        let (le, lt) = self.bind(l)?;
        let (re, rt) = self.bind(r)?;
        self.pair(le, lt, re, rt, op)
    }

    /// Bind two operands of a comparison: [`Binder::pair`], with
    /// PostgreSQL's bpchar semantics when both are `character`.
    fn bind_cmp_pair(
        &mut self,
        l: &Node,
        r: &Node,
        op: &str,
        equality: bool,
    ) -> Result<(Expr, Expr, DataType), DbError> {
        let (le, lt) = self.bind(l)?;
        let (re, rt) = self.bind(r)?;
        self.cmp_pair_bound(l, (le, lt), r, (re, rt), op, equality)
    }

    /// [`Binder::bind_cmp_pair`] of operands already bound.
    fn cmp_pair_bound(
        &mut self,
        l: &Node,
        (le, lt): (Expr, DataType),
        r: &Node,
        (re, rt): (Expr, DataType),
        op: &str,
        equality: bool,
    ) -> Result<(Expr, Expr, DataType), DbError> {
        // A composite value has only record's operators: a literal
        // beside it would be an anonymous record (PostgreSQL's error).
        for (t, other, n) in [(lt, rt, r), (rt, lt, l)] {
            if matches!(t, DataType::Record(_)) && other == DataType::Unknown {
                let e = nestor_types::binary::anonymous_record_input();
                return Err(err_at(e, self.text, expr_location(node(n)?)));
            }
        }
        self.cmp_operands(le, lt, re, rt, op, equality)
    }

    /// [`Binder::bind_cmp_pair`] of bound operands.
    fn cmp_operands(
        &mut self,
        le: Expr,
        lt: DataType,
        re: Expr,
        rt: DataType,
        op: &str,
        equality: bool,
    ) -> Result<(Expr, Expr, DataType), DbError> {
        // Records compare field by field with each field type's B-tree
        // operators: a geometric field has none (record_eq / record_cmp).
        if let Some(g) = [lt, rt].into_iter().find_map(geo_field) {
            let what = if equality {
                "an equality operator"
            } else {
                "a comparison function"
            };
            return Err(DbError::new(
                SqlState::UndefinedFunction,
                format!("could not identify {what} for type {}", g.name()),
            )
            .unpositioned());
        }
        if let Some(t) = unify(lt, rt) {
            if matches!(t, DataType::Char(_)) {
                return self.bpchar_pair(le, lt, re, rt, equality);
            }
        }
        // Two records of different types compare as records (record_eq,
        // record_lt, ...): field by field, of the same types.
        if let (DataType::Record(a), DataType::Record(b), None) = (lt, rt, unify(lt, rt)) {
            let types = |r: &nestor_types::datatype::RecordType| -> Vec<DataType> {
                r.fields.iter().map(|(_, t)| *t).collect()
            };
            same_field_types(&types(a), &types(b))?;
            return Ok((le, re, lt));
        }
        self.pair(le, lt, re, rt, op)
    }

    /// `ROW(a, b, ...)` or `(a, b, ...)`: a record of its fields (an
    /// unknown literal is text, as PostgreSQL resolves it there).
    fn bind_row(&mut self, args: &[Node]) -> Result<(Expr, DataType), DbError> {
        let mut fields = Vec::with_capacity(args.len());
        let mut types = Vec::with_capacity(args.len());
        for a in args {
            let (e, t) = self.bind(a)?;
            // ROW(t.*, ...): t's columns, one field each.
            if let (Some(NodeEnum::ColumnRef(c)), Some(inner), DataType::Record(r)) =
                (a.node.as_ref(), whole_row_fields(&e), t)
            {
                if matches!(
                    c.fields.last().and_then(|f| f.node.as_ref()),
                    Some(NodeEnum::AStar(_))
                ) {
                    for (x, (_, ft)) in inner.iter().zip(&r.fields) {
                        fields.push(x.clone());
                        types.push((format!("f{}", types.len() + 1), *ft));
                    }
                    continue;
                }
            }
            let e = self.coerce(e, t, t.resolve_unknown())?;
            fields.push(e);
            types.push((format!("f{}", types.len() + 1), t.resolve_unknown()));
        }
        let ty = DataType::Record(nestor_types::datatype::record_type(types));
        Ok((Expr::Func(Func::RowCtor, fields), ty))
    }

    /// A comparison of two row constructors, field by field (PostgreSQL's
    /// make_row_comparison_op): `=` is the AND of the fields' equalities,
    /// `<>` the OR of their inequalities (so each is an ordinary
    /// comparison the planner can use), an ordering a `RowCompare` of the
    /// two rows; IS [NOT] DISTINCT FROM (`distinct`, `op` "=" / "<>") the
    /// OR / AND of the fields'.
    fn bind_row_cmp(
        &mut self,
        c: Cmp,
        op: &str,
        ls: &[Node],
        rs: &[Node],
        distinct: bool,
    ) -> Result<Expr, DbError> {
        if ls.len() != rs.len() {
            return Err(DbError::new(
                SqlState::SyntaxError,
                "unequal number of entries in row expressions",
            ));
        }
        if ls.is_empty() {
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                "cannot compare rows of zero length",
            ));
        }
        let equality = matches!(c, Cmp::Eq | Cmp::Ne);
        let (mut lefts, mut rights) = (Vec::new(), Vec::new());
        for (l, r) in ls.iter().zip(rs) {
            let (le, re, _) = self.bind_cmp_pair(l, r, op, equality)?;
            lefts.push(le);
            rights.push(re);
        }
        let pairs = lefts.into_iter().zip(rights);
        let one = |v: Vec<Expr>, and: bool| match v.len() {
            1 => v.into_iter().next().expect("one"),
            _ if and => Expr::And(v),
            _ => Expr::Or(v),
        };
        Ok(match (c, distinct) {
            // IS DISTINCT FROM: some field differs; IS NOT DISTINCT FROM:
            // none does.
            (Cmp::Eq, true) => one(
                pairs
                    .map(|(a, b)| Expr::Distinct(Box::new(a), Box::new(b), true))
                    .collect(),
                true,
            ),
            (_, true) => one(
                pairs
                    .map(|(a, b)| Expr::Distinct(Box::new(a), Box::new(b), false))
                    .collect(),
                false,
            ),
            (Cmp::Eq, false) => one(
                pairs
                    .map(|(a, b)| Expr::Cmp(Cmp::Eq, Box::new(a), Box::new(b)))
                    .collect(),
                true,
            ),
            (Cmp::Ne, false) => one(
                pairs
                    .map(|(a, b)| Expr::Cmp(Cmp::Ne, Box::new(a), Box::new(b)))
                    .collect(),
                false,
            ),
            (c, false) => {
                let (a, b): (Vec<Expr>, Vec<Expr>) = pairs.unzip();
                Expr::Func(
                    Func::RowCompare(c),
                    vec![Expr::Func(Func::RowCtor, a), Expr::Func(Func::RowCtor, b)],
                )
            }
        })
    }

    /// Operands of a bpchar comparison. Trailing blanks are insignificant
    /// there (PostgreSQL's bpchareq and bpcharcmp compare the strings
    /// without them), while `char(n)` values are kept blank-padded. Two
    /// `char(n)` of the same length (or one and a literal that fits it,
    /// padded now) are equal exactly when their padded forms are, so an
    /// equality keeps them bare, and an index on the column still serves
    /// it; anything else compares the operands without their trailing
    /// blanks, as text.
    fn bpchar_pair(
        &mut self,
        le: Expr,
        lt: DataType,
        re: Expr,
        rt: DataType,
        equality: bool,
    ) -> Result<(Expr, Expr, DataType), DbError> {
        use DataType as T;
        let fits = |e: &Expr, n: u32| match e {
            Expr::Const(Value::Text(s)) => s.trim_end_matches(' ').chars().count() <= n as usize,
            _ => false,
        };
        let same = match (lt, rt) {
            (T::Char(Some(a)), T::Char(Some(b))) if a == b => Some(a),
            (T::Char(Some(a)), T::Unknown) if fits(&re, a) => Some(a),
            (T::Unknown, T::Char(Some(a))) if fits(&le, a) => Some(a),
            _ => None,
        };
        if let (true, Some(n)) = (equality, same) {
            let ty = T::Char(Some(n));
            let le = self.coerce(le, lt, ty)?;
            let re = self.coerce(re, rt, ty)?;
            return Ok((le, re, ty));
        }
        let le = self.coerce(le, lt, T::Char(None))?;
        let re = self.coerce(re, rt, T::Char(None))?;
        let le = self.coerce(le, T::Char(None), T::Text)?;
        let re = self.coerce(re, T::Char(None), T::Text)?;
        Ok((le, re, T::Text))
    }

    fn pair(
        &mut self,
        le: Expr,
        lt: DataType,
        re: Expr,
        rt: DataType,
        op: &str,
    ) -> Result<(Expr, Expr, DataType), DbError> {
        let ty = unify(lt, rt).ok_or_else(|| no_operator(op, lt, rt))?;
        // Integers of different widths compare by value without casts,
        // which keeps index columns bare for the planner.
        if lt.is_integer() && rt.is_integer() {
            return Ok((le, re, ty));
        }
        let le = self.coerce(le, lt, ty)?;
        let re = self.coerce(re, rt, ty)?;
        Ok((le, re, ty))
    }

    /// text_pattern_ops' comparisons (`~<~`, ...) of text or bpchar:
    /// byte-wise, which is what the default collation's (C) `<` ... are
    /// here, so they bind as those (bpchar's ignore trailing blanks).
    fn bind_pattern_cmp(
        &mut self,
        c: Cmp,
        op: &str,
        l: &Node,
        r: &Node,
    ) -> Result<(Expr, DataType), DbError> {
        let (le, lt) = self.bind(l)?;
        let (re, rt) = self.bind(r)?;
        let string = |t: DataType| t.is_string() || t == DataType::Unknown;
        if !(string(lt) && string(rt)) {
            return Err(no_operator(op, lt, rt));
        }
        let plain = match c {
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Ge => ">=",
            _ => ">",
        };
        let (le, re, _) = self.cmp_pair_bound(l, (le, lt), r, (re, rt), plain, false)?;
        Ok((Expr::Cmp(c, Box::new(le), Box::new(re)), DataType::Bool))
    }

    fn bind_unary(&mut self, op: &str, r: &Node) -> Result<(Expr, DataType), DbError> {
        let (e, t) = self.bind(r)?;
        if let Some(f) = nestor_types::tsearch::catalog::resolve_operator(op, None, t) {
            let e = self.coerce(e, t, f.arg_types[0])?;
            return Ok((Expr::Func(Func::Library(f.func), vec![e]), f.ret));
        }
        if matches!(t, DataType::Geo(_))
            || (t == DataType::Unknown && matches!(op, "@@" | "@-@" | "?-" | "?|"))
        {
            return self.bind_geo_op(op, None, (e, t));
        }
        match op {
            "-" => {
                if !t.is_numeric() && t != DataType::Unknown && !matches!(t, DataType::Interval(_))
                {
                    return Err(DbError::new(
                        SqlState::UndefinedFunction,
                        format!("operator does not exist: - {}", t.name()),
                    )
                    .with_hint(
                        "No operator matches the given name and argument type. You might need to add an explicit type cast.",
                    ));
                }
                if let Expr::Const(v) = &e {
                    let v = match v {
                        Value::Int4(i) if *i == i32::MIN => Value::Int8(-(*i as i64)),
                        // An overflow folding it is the operator's run-time
                        // error, which PostgreSQL reports without a cursor.
                        v => valops::negate(v).map_err(|mut e| {
                            e.position = None;
                            e.unpositioned = true;
                            e
                        })?,
                    };
                    return Ok((Expr::Const(v), t));
                }
                if !t.is_numeric() && !matches!(t, DataType::Interval(_)) {
                    return Err(DbError::new(
                        SqlState::UndefinedFunction,
                        format!("operator does not exist: - {}", t.name()),
                    )
                    .with_hint(
                        "No operator matches the given name and argument type. You might need to add an explicit type cast.",
                    ));
                }
                Ok((Expr::Neg(Box::new(e)), t))
            }
            "+" => Ok((e, t)),
            "~" if nestor_types::bits::is_bits(t) => self.bind_bits_not(e, t),
            "~" if t.is_integer() || t == DataType::Unknown => {
                let ty = if t.is_integer() { t } else { DataType::Int4 };
                let e = self.coerce(e, t, ty)?;
                Ok((Expr::Func(Func::Bitwise(b'~', ty), vec![e]), ty))
            }
            // Square and cube root: float8 operators only.
            "|/" | "||/" if t.is_numeric() || t == DataType::Unknown => {
                let e = self.coerce(e, t, DataType::Float8)?;
                let name = if op == "|/" { "sqrt" } else { "cbrt" };
                let f = functions::library_call(name, &[DataType::Float8])?;
                Ok((Expr::Func(f, vec![e]), DataType::Float8))
            }
            // Absolute value, in the operand's own numeric type.
            "@" if t.is_numeric() => {
                let f = functions::library_call("abs", &[t])?;
                Ok((Expr::Func(f, vec![e]), t.base()))
            }
            "|/" | "||/" | "@" => Err(DbError::new(
                SqlState::UndefinedFunction,
                format!("operator does not exist: {op} {}", t.name()),
            )
            .with_hint(
                "No operator matches the given name and argument type. You might need to add an explicit type cast.",
            )),
            _ => Err(DbError::unsupported(format!("prefix operator {op}"))),
        }
    }

    fn bind_binary(&mut self, op: &str, l: &Node, r: &Node) -> Result<(Expr, DataType), DbError> {
        if let Some(c) = pattern_cmp(op) {
            return self.bind_pattern_cmp(c, op, l, r);
        }
        let cmp = match op {
            "=" => Some(Cmp::Eq),
            "<>" | "!=" => Some(Cmp::Ne),
            "<" => Some(Cmp::Lt),
            "<=" => Some(Cmp::Le),
            ">" => Some(Cmp::Gt),
            ">=" => Some(Cmp::Ge),
            _ => None,
        };
        if let Some(c) = cmp {
            match (row_args(l), row_args(r)) {
                (Some(ls), Some(rs)) => {
                    return Ok((self.bind_row_cmp(c, op, ls, rs, false)?, DataType::Bool))
                }
                // (a, b) op (SELECT x, y): PostgreSQL's ROWCOMPARE sublink.
                (Some(_), None) | (None, Some(_)) => {
                    let written = op;
                    let (row, other, op) = match row_args(l) {
                        Some(_) => (l, r, op.to_string()),
                        None => (r, l, flip_op(op).to_string()),
                    };
                    let sublink = match other.node.as_ref() {
                        Some(NodeEnum::SubLink(sl))
                            if sl.sub_link_type == pb::SubLinkType::ExprSublink as i32 =>
                        {
                            Some(sl)
                        }
                        _ => None,
                    };
                    let Some(sl) = sublink else {
                        // A record value (a composite column, `'(1,a)'::c`):
                        // the row is cast to its type and compared whole.
                        let equality = matches!(c, Cmp::Eq | Cmp::Ne);
                        let (le, lt) = self.bind(l)?;
                        let (re, rt) = self.bind(r)?;
                        check_record_operands(l, lt, r, rt)?;
                        let (le, re, _) = self.cmp_operands(le, lt, re, rt, written, equality)?;
                        return Ok((Expr::Cmp(c, Box::new(le), Box::new(re)), DataType::Bool));
                    };
                    let mut rc = (**sl).clone();
                    rc.sub_link_type = pb::SubLinkType::RowcompareSublink as i32;
                    rc.testexpr = Some(Box::new(row.clone()));
                    rc.oper_name = vec![Node {
                        node: Some(NodeEnum::String(pb::String { sval: op })),
                    }];
                    return self.bind_sublink(&rc);
                }
                (None, None) => {}
            }
            let equality = matches!(c, Cmp::Eq | Cmp::Ne);
            let (le, lt) = self.bind(l)?;
            let (re, rt) = self.bind(r)?;
            if geometric_operands(op, lt, rt) {
                return self.bind_geo_op(op, Some((le, lt)), (re, rt));
            }
            let (le, re, _) = self.cmp_pair_bound(l, (le, lt), r, (re, rt), op, equality)?;
            return Ok((Expr::Cmp(c, Box::new(le), Box::new(re)), DataType::Bool));
        }
        if let (Some(ls), Some(rs)) = (row_args(l), row_args(r)) {
            // Rows compare field by field with an operator of a B-tree
            // family: the six comparisons here. PostgreSQL looks the
            // operator up for the first fields first.
            if let (Some(l0), Some(r0)) = (ls.first(), rs.first()) {
                let (_, ty) = self.bind_binary(op, l0, r0)?;
                if ty != DataType::Bool {
                    return Err(DbError::new(
                        SqlState::DatatypeMismatch,
                        format!(
                            "row comparison operator must yield type boolean, not type {}",
                            ty.name()
                        ),
                    ));
                }
            }
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                format!("could not determine interpretation of row comparison operator {op}"),
            )
            .with_hint(
                "Row comparison operators must be associated with btree operator families.",
            ));
        }
        let arith = match op {
            "+" => Some(Arith::Add),
            "-" => Some(Arith::Sub),
            "*" => Some(Arith::Mul),
            "/" => Some(Arith::Div),
            "%" => Some(Arith::Mod),
            _ => None,
        };
        let (le, lt) = self.bind(l)?;
        let (re, rt) = self.bind(r)?;
        if let Some(f) = nestor_types::range::catalog::resolve_operator(op, lt, rt) {
            let args = vec![
                self.coerce(le, lt, f.arg_types[0])?,
                self.coerce(re, rt, f.arg_types[1])?,
            ];
            return Ok((Expr::Func(Func::Library(f.func), args), f.ret));
        }
        if let Some(f) = nestor_types::tsearch::catalog::resolve_operator(op, Some(lt), rt) {
            let args = vec![
                self.coerce(le, lt, f.arg_types[0])?,
                self.coerce(re, rt, f.arg_types[1])?,
            ];
            return Ok((Expr::Func(Func::Library(f.func), args), f.ret));
        }
        if geometric_operands(op, lt, rt) {
            return self.bind_geo_op(op, Some((le, lt)), (re, rt));
        }
        if (op == "-" && lt == DataType::Jsonb) || op == "#-" {
            return self.bind_jsonb_delete(op, le, lt, re, rt);
        }
        if let Some(a) = arith {
            return self.bind_arith(a, op, le, lt, re, rt);
        }
        if bits::is_bits_op(op, lt, rt) {
            return self.bind_bits_op(op, (le, lt), (re, rt));
        }
        match op {
            "||" if lt.is_array() || rt.is_array() => self.bind_array_concat(le, lt, re, rt),
            "||" if matches!(
                (lt, rt),
                (DataType::Jsonb, DataType::Jsonb | DataType::Unknown)
                    | (DataType::Unknown, DataType::Jsonb)
            ) =>
            {
                let f =
                    functions::library_call("jsonb_concat", &[DataType::Jsonb, DataType::Jsonb])?;
                let le = self.coerce(le, lt, DataType::Jsonb)?;
                let re = self.coerce(re, rt, DataType::Jsonb)?;
                Ok((Expr::Func(f, vec![le, re]), DataType::Jsonb))
            }
            "||" if matches!(
                (lt, rt),
                (DataType::Bytea, DataType::Bytea | DataType::Unknown)
                    | (DataType::Unknown, DataType::Bytea)
            ) =>
            {
                // byteacat: an unknown literal takes the other side's type.
                let le = self.coerce(le, lt, DataType::Bytea)?;
                let re = self.coerce(re, rt, DataType::Bytea)?;
                Ok((Expr::Concat(Box::new(le), Box::new(re)), DataType::Bytea))
            }
            "||" if ![lt, rt]
                .iter()
                .any(|t| t.is_string() || *t == DataType::Unknown) =>
            {
                // textcat, textanycat and anytextcat all need a string side.
                Err(no_operator(op, lt, rt))
            }
            "||" => {
                let le = self.coerce(le, lt, DataType::Text)?;
                let re = self.coerce(re, rt, DataType::Text)?;
                Ok((Expr::Concat(Box::new(le), Box::new(re)), DataType::Text))
            }
            "&" | "|" | "#" | "<<" | ">>"
                if [lt, rt]
                    .iter()
                    .all(|t| t.is_integer() || *t == DataType::Unknown) =>
            {
                let shift = op == "<<" || op == ">>";
                let ty = if shift {
                    lt.resolve_unknown()
                } else {
                    unify(lt, rt).ok_or_else(|| no_operator(op, lt, rt))?
                };
                let ty = if ty.is_integer() { ty } else { DataType::Int4 };
                let le = self.coerce(le, lt, ty)?;
                let re = self.coerce(re, rt, if shift { DataType::Int4 } else { ty })?;
                let code = op.as_bytes()[0];
                Ok((Expr::Func(Func::Bitwise(code, ty), vec![le, re]), ty))
            }
            "~" | "!~" | "~*" | "!~*" => {
                let name = match op {
                    "~" => "textregexeq",
                    "!~" => "textregexne",
                    "~*" => "texticregexeq",
                    _ => "texticregexne",
                };
                if !(lt.is_string() && rt.is_string()) {
                    return Err(no_operator(op, lt, rt));
                }
                let le = self.pattern_subject(le, lt)?;
                let re = self.coerce(re, rt, DataType::Text)?;
                let f = functions::library_call(name, &[DataType::Text, DataType::Text])?;
                Ok((Expr::Func(f, vec![le, re]), DataType::Bool))
            }
            "~~" | "!~~" | "~~*" | "!~~*" => {
                let strings = lt.is_string() && rt.is_string();
                let bytea = lt == DataType::Bytea && matches!(op, "~~" | "!~~");
                if !(strings || bytea) {
                    return Err(no_operator(op, lt, rt));
                }
                let (le, re) = self.like_operands(op, le, lt, re, rt)?;
                Ok((
                    Expr::Like {
                        lhs: Box::new(le),
                        pattern: Box::new(re),
                        ci: op.contains('*'),
                        negated: op.starts_with('!'),
                    },
                    DataType::Bool,
                ))
            }
            "->" | "->>" | "#>" | "#>>" | "@>" | "<@" | "?" | "?|" | "?&"
                if lt == DataType::Jsonb
                    || (rt == DataType::Jsonb && matches!(op, "@>" | "<@")) =>
            {
                self.bind_jsonb_op(op, le, lt, re, rt)
            }
            "@>" | "<@" | "&&" if lt.is_array() || rt.is_array() => {
                let name = match op {
                    "@>" => "arraycontains",
                    "<@" => "arraycontained",
                    _ => "arrayoverlap",
                };
                let r = nestor_types::functions::resolve(name, &[lt, rt])
                    .map_err(|_| no_operator(op, lt, rt))?;
                let le = self.coerce(le, lt, r.arg_types[0])?;
                let re = self.coerce(re, rt, r.arg_types[1])?;
                Ok((Expr::Func(Func::Library(r.func), vec![le, re]), r.ret))
            }
            "->" | "->>" | "#>" | "#>>" if lt == DataType::Json => {
                self.bind_json_op(op, le, lt, re, rt)
            }
            "@?" | "@@"
                if matches!(lt, DataType::Jsonb | DataType::Unknown)
                    && matches!(rt, DataType::JsonPath | DataType::Unknown)
                    && (lt, rt) != (DataType::Unknown, DataType::Unknown) =>
            {
                // jsonb_path_exists_opr / jsonb_path_match_opr: silent.
                let name = nestor_types::jsonpath::operator_function(op)
                    .ok_or_else(|| no_operator(op, lt, rt))?;
                let r =
                    nestor_types::functions::resolve(name, &[DataType::Jsonb, DataType::JsonPath])?;
                let le = self.coerce(le, lt, DataType::Jsonb)?;
                let re = self.coerce(re, rt, DataType::JsonPath)?;
                Ok((Expr::Func(Func::Library(r.func), vec![le, re]), r.ret))
            }
            // numeric ^ numeric when a side is numeric and neither is a
            // float (integers and unknowns cast to numeric), else float8 ^
            // float8: PostgreSQL's two operators.
            "^" if [lt, rt]
                .iter()
                .all(|t| *t == DataType::Unknown || t.is_numeric()) =>
            {
                let numeric = [lt, rt].iter().any(|t| matches!(t, DataType::Numeric(_)))
                    && ![lt, rt]
                        .iter()
                        .any(|t| matches!(t, DataType::Float4 | DataType::Float8));
                let ty = if numeric {
                    DataType::NUMERIC
                } else {
                    DataType::Float8
                };
                let le = self.coerce(le, lt, ty)?;
                let re = self.coerce(re, rt, ty)?;
                let pow = functions::library_call("power", &[ty, ty])?;
                Ok((Expr::Func(pow, vec![le, re]), ty))
            }
            _ => Err(no_operator(op, lt, rt)),
        }
    }

    /// A geometric operator (`left` None: prefix): pg_operator's function
    /// for the operand types ([`nestor_types::geometry::catalog`]), the
    /// operands coerced to its argument types; 42883 when there is none.
    fn bind_geo_op(
        &mut self,
        op: &str,
        left: Option<(Expr, DataType)>,
        (re, rt): (Expr, DataType),
    ) -> Result<(Expr, DataType), DbError> {
        use nestor_types::geometry::catalog;
        let lt = left.as_ref().map(|l| l.1);
        let missing = || {
            match lt {
            Some(lt) => no_operator(op, lt, rt),
            None => DbError::new(
                SqlState::UndefinedFunction,
                format!("operator does not exist: {op} {}", rt.name()),
            )
            .with_hint(
                "No operator matches the given name and argument type. You might need to add an explicit type cast.",
            ),
        }
        };
        let r = catalog::resolve_operator(op, lt, rt).ok_or_else(missing)??;
        let mut args = Vec::with_capacity(2);
        let mut want = r.arg_types.iter();
        if let Some((le, lt)) = left {
            let t = *want.next().ok_or_else(missing)?;
            args.push(self.coerce(le, lt, t)?);
        }
        let t = *want.next().ok_or_else(missing)?;
        args.push(self.coerce(re, rt, t)?);
        Ok((Expr::Func(Func::Library(r.func), args), r.ret))
    }

    /// A jsonb operator: the function PostgreSQL implements it with, the
    /// right operand coerced to what that function takes (an unknown
    /// literal is a key, a path `'{a,1}'` or a jsonb document).
    fn bind_jsonb_op(
        &mut self,
        op: &str,
        le: Expr,
        lt: DataType,
        re: Expr,
        rt: DataType,
    ) -> Result<(Expr, DataType), DbError> {
        let name = nestor_types::jsonb_ops::operator_function(op, rt.is_integer())
            .ok_or_else(|| no_operator(op, lt, rt))?;
        let unknown = rt == DataType::Unknown;
        let fits = match op {
            "->" | "->>" => unknown || rt.is_string() || rt.is_integer(),
            "?" => unknown || rt.is_string(),
            "#>" | "#>>" | "?|" | "?&" => unknown || rt.element().is_some_and(|e| e.is_string()),
            _ => unknown || rt == DataType::Jsonb,
        };
        if !fits || (lt != DataType::Jsonb && lt != DataType::Unknown) {
            return Err(no_operator(op, lt, rt));
        }
        // An unknown path or key list is a text[] (not the function's
        // variadic steps).
        let want = match op {
            "#>" | "#>>" | "?|" | "?&" if unknown => DataType::Text.array_of().expect("text[]"),
            _ => rt,
        };
        self.jsonb_library_op(name, op, (le, lt), (re, rt), want)
    }

    /// A jsonb operator as the library function `name` over (jsonb,
    /// `want`), its operands coerced; 42883 naming the operator when
    /// there is none.
    fn jsonb_library_op(
        &mut self,
        name: &str,
        op: &str,
        (le, lt): (Expr, DataType),
        (re, rt): (Expr, DataType),
        want: DataType,
    ) -> Result<(Expr, DataType), DbError> {
        let r = nestor_types::functions::resolve(name, &[DataType::Jsonb, want])
            .map_err(|_| no_operator(op, lt, rt))?;
        let le = self.coerce(le, lt, r.arg_types[0])?;
        let re = self
            .coerce(re, rt, r.arg_types[1])
            .map_err(|_| no_operator(op, lt, rt))?;
        Ok((Expr::Func(Func::Library(r.func), vec![le, re]), r.ret))
    }

    /// `jsonb - key`, `jsonb - keys`, `jsonb - index`, `jsonb #- path`:
    /// jsonb_delete or jsonb_delete_path (an unknown right operand is a
    /// key for `-`, a path for `#-`).
    fn bind_jsonb_delete(
        &mut self,
        op: &str,
        le: Expr,
        lt: DataType,
        re: Expr,
        rt: DataType,
    ) -> Result<(Expr, DataType), DbError> {
        if !matches!(lt, DataType::Jsonb | DataType::Unknown) {
            return Err(no_operator(op, lt, rt));
        }
        let name = nestor_types::jsonb_edit::operator_function(op, rt)
            .ok_or_else(|| no_operator(op, lt, rt))?;
        let want = match rt {
            DataType::Unknown if op == "-" => DataType::Text,
            DataType::Unknown => DataType::Text.array_of().expect("text[]"),
            t => t,
        };
        self.jsonb_library_op(name, op, (le, lt), (re, rt), want)
    }

    /// `jsonb[s1][s2]...` (PostgreSQL 14's jsonb subscripting, read side):
    /// `jsonb #> ARRAY[s1, s2, ...]`, each subscript an integer (an array
    /// element; negative counts from the end) or text (an object key),
    /// NULL for a path that is not there. Slices and subscripts of other
    /// types are PostgreSQL's 42804 errors, with its cursor.
    fn bind_jsonb_subscripts(
        &mut self,
        j: Expr,
        list: &[Node],
    ) -> Result<(Expr, DataType), DbError> {
        let (path, _) = subscripts::bind_jsonb_list(self, list)?;
        let path_ty = DataType::Text.array_of().expect("text[]");
        let path = Expr::Func(
            Func::ArrayCtor {
                elem: DataType::Text,
                nested: false,
            },
            path,
        );
        self.bind_jsonb_op("#>", j, DataType::Jsonb, path, path_ty)
    }

    /// A json operator (`->`, `->>`, `#>`, `#>>`): the json_* function
    /// PostgreSQL implements it with, the right operand coerced as for
    /// jsonb (an unknown literal is a key or a path `'{a,1}'`).
    fn bind_json_op(
        &mut self,
        op: &str,
        le: Expr,
        lt: DataType,
        re: Expr,
        rt: DataType,
    ) -> Result<(Expr, DataType), DbError> {
        let name = nestor_types::json_ops::operator_function(op, rt.is_integer())
            .ok_or_else(|| no_operator(op, lt, rt))?;
        let unknown = rt == DataType::Unknown;
        let fits = match op {
            "->" | "->>" => unknown || rt.is_string() || rt.is_integer(),
            _ => unknown || rt.element().is_some_and(|e| e.is_string()),
        };
        if !fits {
            return Err(no_operator(op, lt, rt));
        }
        let path = DataType::Text.array_of().expect("text[]");
        let arg = match op {
            "#>" | "#>>" => path,
            _ if rt.is_integer() => rt,
            _ => DataType::Text,
        };
        let r = nestor_types::functions::resolve(name, &[DataType::Json, arg])
            .map_err(|_| no_operator(op, lt, rt))?;
        // A literal that is not a path is its own error (22P02 malformed
        // array literal), as in PostgreSQL.
        let re = if unknown {
            self.coerce(re, rt, r.arg_types[1])?
        } else {
            self.coerce(re, rt, r.arg_types[1])
                .map_err(|_| no_operator(op, lt, rt))?
        };
        Ok((Expr::Func(Func::Library(r.func), vec![le, re]), r.ret))
    }

    /// `array || array`, `array || element`, `element || array`.
    fn bind_array_concat(
        &mut self,
        le: Expr,
        lt: DataType,
        re: Expr,
        rt: DataType,
    ) -> Result<(Expr, DataType), DbError> {
        let name = match (lt.is_array(), rt.is_array()) {
            (true, true) => "array_cat",
            (true, false) if rt == DataType::Unknown => "array_cat",
            (false, true) if lt == DataType::Unknown => "array_cat",
            (true, false) => "array_append",
            _ => "array_prepend",
        };
        let r = functions::lookup(name, &[lt, rt])?;
        let le = self.coerce(le, lt, r.arg_types[0].unwrap_or(lt))?;
        let re = self.coerce(re, rt, r.arg_types[1].unwrap_or(rt))?;
        Ok((Expr::Func(r.func, vec![le, re]), r.ret))
    }

    fn bind_arith(
        &mut self,
        a: Arith,
        op: &str,
        le: Expr,
        lt: DataType,
        re: Expr,
        rt: DataType,
    ) -> Result<(Expr, DataType), DbError> {
        use DataType as T;
        if lt == T::Date
            && (rt.is_integer() || rt == T::Unknown)
            && matches!(a, Arith::Add | Arith::Sub)
        {
            let re = self.coerce(re, rt, T::Int4)?;
            return Ok((Expr::Arith(a, Box::new(le), Box::new(re), T::Date), T::Date));
        }
        if lt == T::Date && rt == T::Date && a == Arith::Sub {
            return Ok((Expr::Arith(a, Box::new(le), Box::new(re), T::Date), T::Int4));
        }
        if lt == T::Money || rt == T::Money {
            return self.bind_money_arith(a, op, le, lt, re, rt);
        }
        let temporal = |t: DataType| t.is_datetime() || matches!(t, T::Interval(_));
        if temporal(lt) || temporal(rt) {
            return self.bind_datetime_arith(a, op, le, lt, re, rt);
        }
        if lt == T::PgLsn || rt == T::PgLsn {
            return self.bind_lsn_arith(a, op, le, lt, re, rt);
        }
        let (le, re, ty) = self.pair(le, lt, re, rt, op)?;
        let ty = if ty == T::Text && lt == T::Unknown && rt == T::Unknown {
            T::NUMERIC
        } else {
            ty
        };
        if !ty.is_numeric() {
            return Err(no_operator(op, lt, rt));
        }
        let ty = ty.base();
        // Arithmetic on two constants is done now, as PostgreSQL's
        // constant folding does (`x <= 500 + 5` runs as `x <= 505`, and
        // EXPLAIN shows it so). One that fails (overflow, division by
        // zero) is left to fail when it runs, where it would in a branch
        // that is taken.
        if let (true, Expr::Const(x), Expr::Const(y)) = (self.fold_constants, &le, &re) {
            if let Ok(v) = valops::arith(a, x, y, &self.eval) {
                if !v.is_null() && v.data_type() == ty {
                    return Ok((Expr::Const(v), ty));
                }
            }
        }
        Ok((Expr::Arith(a, Box::new(le), Box::new(re), ty), ty))
    }

    /// money arithmetic: money ± money, money × and ÷ an integer or a
    /// float (a numeric is a float8, PostgreSQL's implicit cast), money ÷
    /// money (float8). An unknown literal is money where a money-money
    /// operator exists (`+`, `-`, `/`), else a float8 (`m * '2'`).
    fn bind_money_arith(
        &mut self,
        a: Arith,
        op: &str,
        le: Expr,
        lt: DataType,
        re: Expr,
        rt: DataType,
    ) -> Result<(Expr, DataType), DbError> {
        use DataType as T;
        let operand = |t: DataType| match t {
            T::Unknown if a == Arith::Mul => T::Float8,
            T::Unknown => T::Money,
            T::Numeric(_) => T::Float8,
            t => t,
        };
        let (lt2, rt2) = (operand(lt), operand(rt));
        let bop = match a {
            Arith::Add => nestor_types::ops::BinaryOp::Add,
            Arith::Sub => nestor_types::ops::BinaryOp::Sub,
            Arith::Mul => nestor_types::ops::BinaryOp::Mul,
            Arith::Div => nestor_types::ops::BinaryOp::Div,
            Arith::Mod => return Err(no_operator(op, lt, rt)),
        };
        let ty =
            nestor_types::ops::arith_type(bop, lt2, rt2).ok_or_else(|| no_operator(op, lt, rt))?;
        let le = self.coerce(le, lt, lt2)?;
        let re = self.coerce(re, rt, rt2)?;
        Ok((Expr::Arith(a, Box::new(le), Box::new(re), ty), ty))
    }

    /// pg_lsn arithmetic: `pg_lsn - pg_lsn` (numeric bytes), `pg_lsn ±
    /// numeric`, `numeric + pg_lsn`. An unknown literal is a pg_lsn where
    /// `pg_lsn - pg_lsn` takes it, else a numeric; integers convert to
    /// numeric (PostgreSQL's implicit cast).
    fn bind_lsn_arith(
        &mut self,
        a: Arith,
        op: &str,
        le: Expr,
        lt: DataType,
        re: Expr,
        rt: DataType,
    ) -> Result<(Expr, DataType), DbError> {
        use DataType as T;
        let operand = |t: DataType, other: DataType, left: bool| match t {
            T::Unknown if a == Arith::Sub && other == T::PgLsn && !left => T::PgLsn,
            T::Unknown => T::NUMERIC,
            t if t.is_integer() => T::NUMERIC,
            t => t,
        };
        let (lt2, rt2) = (operand(lt, rt, true), operand(rt, lt, false));
        let bop = match a {
            Arith::Add => nestor_types::ops::BinaryOp::Add,
            Arith::Sub => nestor_types::ops::BinaryOp::Sub,
            _ => return Err(no_operator(op, lt, rt)),
        };
        let ty = nestor_types::ops::arith_type(bop, lt2.base(), rt2.base())
            .ok_or_else(|| no_operator(op, lt, rt))?;
        let le = self.coerce(le, lt, lt2)?;
        let re = self.coerce(re, rt, rt2)?;
        Ok((Expr::Arith(a, Box::new(le), Box::new(re), ty), ty))
    }

    /// Date/time arithmetic: timestamp ± interval, timestamp - timestamp,
    /// date ± interval, interval ± interval, interval * / number. An
    /// unknown literal takes the other operand's type where an operator
    /// exists for that (PostgreSQL's rule: `ts - 'lit'` is a timestamp
    /// difference), else it is an interval (`ts + '1 day'`).
    fn bind_datetime_arith(
        &mut self,
        a: Arith,
        op: &str,
        le: Expr,
        lt: DataType,
        re: Expr,
        rt: DataType,
    ) -> Result<(Expr, DataType), DbError> {
        use DataType as T;
        let resolve = |other: DataType| -> DataType {
            match (a, other) {
                (_, T::Interval(_)) => T::Interval(None),
                // timetz has no timetz - timetz.
                (Arith::Sub, T::TimeTz(_)) => T::Interval(None),
                (Arith::Sub, t) if t.is_datetime() => t.base(),
                (Arith::Mul | Arith::Div, _) => T::Float8,
                _ => T::Interval(None),
            }
        };
        let (lt2, rt2) = match (lt, rt) {
            (T::Unknown, r) => (resolve(r), r),
            (l, T::Unknown) => (l, resolve(l)),
            (l, r) => (l, r),
        };
        // Mixed timestamp kinds compare as timestamptz, a date as a
        // timestamp (PostgreSQL's implicit casts).
        let (lt2, rt2) = match (lt2.base(), rt2.base()) {
            (T::Timestamp(_), T::TimestampTz(_)) | (T::Date, T::TimestampTz(_)) => {
                (T::TimestampTz(None), rt2)
            }
            (T::TimestampTz(_), T::Timestamp(_)) | (T::TimestampTz(_), T::Date) => {
                (lt2, T::TimestampTz(None))
            }
            (T::Date, T::Timestamp(_)) if a == Arith::Sub => (T::Timestamp(None), rt2),
            (T::Timestamp(_), T::Date) if a == Arith::Sub => (lt2, T::Timestamp(None)),
            _ => (lt2, rt2),
        };
        let bop = match a {
            Arith::Add => nestor_types::ops::BinaryOp::Add,
            Arith::Sub => nestor_types::ops::BinaryOp::Sub,
            Arith::Mul => nestor_types::ops::BinaryOp::Mul,
            Arith::Div => nestor_types::ops::BinaryOp::Div,
            Arith::Mod => nestor_types::ops::BinaryOp::Mod,
        };
        let timetz_plus_unknown = a == Arith::Add
            && matches!(
                (lt, rt),
                (T::TimeTz(_), T::Unknown) | (T::Unknown, T::TimeTz(_))
            );
        if matches!((a, lt2, rt2), (Arith::Add, T::Time(_), T::Time(_))) || timetz_plus_unknown {
            // time + time: PostgreSQL finds two candidates (time +
            // interval and interval + time, each casting one side);
            // timetz + unknown two as well (+ interval, + date).
            return Err(DbError::new(
                SqlState::AmbiguousFunction,
                format!("operator is not unique: {} + {}", lt.name(), rt.name()),
            )
            .with_hint(
                "Could not choose a best candidate operator. You might need to add explicit type casts.",
            ));
        }
        let ty = nestor_types::ops::arith_type(bop, lt2.base(), rt2.base())
            .ok_or_else(|| no_operator(op, lt, rt))?;
        let le = if lt2 == lt {
            le
        } else {
            self.coerce(le, lt, lt2)?
        };
        let re = if rt2 == rt {
            re
        } else {
            self.coerce(re, rt, rt2)?
        };
        Ok((Expr::Arith(a, Box::new(le), Box::new(re), ty), ty))
    }

    fn bind_case(&mut self, c: &pb::CaseExpr) -> Result<(Expr, DataType), DbError> {
        let operand = match &c.arg {
            Some(a) => Some(self.bind(a)?),
            None => None,
        };
        let mut whens = Vec::new();
        let mut results = Vec::new();
        let mut locs = Vec::new();
        for w in &c.args {
            let NodeEnum::CaseWhen(cw) = node(w)? else {
                return Err(DbError::internal("CASE arm is not WHEN"));
            };
            let cond = match &operand {
                Some((oe, ot)) => {
                    let (we, wt) = self.bind(req(&cw.expr)?)?;
                    let (_, we2, _) = self.pair(oe.clone(), *ot, we, wt, "=")?;
                    we2
                }
                None => self.bind_bool(req(&cw.expr)?, "CASE/WHEN")?,
            };
            whens.push(cond);
            let r = req(&cw.result)?;
            let b = self.bind(r)?;
            locs.push(expr_location(node(r)?));
            results.push(b);
        }
        let else_ = match &c.defresult {
            Some(d) => Some((self.bind(d)?, expr_location(node(d)?))),
            None => None,
        };
        // PostgreSQL considers the ELSE result first.
        let mut types: Vec<(DataType, i32)> = Vec::new();
        if let Some((e, loc)) = &else_ {
            types.push((e.1, *loc));
        }
        types.extend(results.iter().map(|r| r.1).zip(locs));
        let else_ = else_.map(|(e, _)| e);
        let ty = self.common_type_at(&types, "CASE")?;
        let mut arms = Vec::new();
        for (w, (r, rt)) in whens.into_iter().zip(results) {
            arms.push((w, self.coerce(r, rt, ty)?));
        }
        let else_ = match else_ {
            Some((e, t)) => Some(Box::new(self.coerce(e, t, ty)?)),
            None => None,
        };
        let operand = operand.map(|(e, _)| Box::new(e));
        Ok((
            Expr::Case {
                operand,
                whens: arms,
                else_,
            },
            ty,
        ))
    }

    fn bind_sqlvalue(&mut self, f: &pb::SqlValueFunction) -> Result<(Expr, DataType), DbError> {
        use pb::SqlValueFunctionOp as Op;
        let op = Op::try_from(f.op).unwrap_or(Op::SqlvalueFunctionOpUndefined);
        let (func, ty) = match op {
            Op::SvfopCurrentTimestamp | Op::SvfopCurrentTimestampN => {
                (Func::Now, DataType::TimestampTz(None))
            }
            Op::SvfopLocaltimestamp | Op::SvfopLocaltimestampN => {
                (Func::LocalTimestamp, DataType::Timestamp(None))
            }
            Op::SvfopCurrentDate => (Func::CurrentDate, DataType::Date),
            Op::SvfopSessionUser => (Func::SessionUser, DataType::Name),
            Op::SvfopCurrentUser | Op::SvfopCurrentRole | Op::SvfopUser => {
                (Func::CurrentUser, DataType::Name)
            }
            Op::SvfopCurrentCatalog => (Func::CurrentDatabase, DataType::Name),
            Op::SvfopCurrentSchema => (Func::CurrentSchema, DataType::Name),
            Op::SvfopLocaltime | Op::SvfopLocaltimeN => {
                // The time of day of LOCALTIMESTAMP, at the precision asked.
                let p = (op == Op::SvfopLocaltimeN).then_some(f.typmod.clamp(0, 6) as u32);
                let ty = DataType::Time(p);
                let now = Expr::Func(Func::LocalTimestamp, vec![]);
                return Ok((Expr::Cast(Box::new(now), ty), ty));
            }
            Op::SvfopCurrentTime | Op::SvfopCurrentTimeN => {
                // The time of day and offset of CURRENT_TIMESTAMP in the
                // session zone, at the precision asked.
                let p = (op == Op::SvfopCurrentTimeN).then_some(f.typmod.clamp(0, 6) as u32);
                let ty = DataType::TimeTz(p);
                let now = Expr::Func(Func::Now, vec![]);
                return Ok((Expr::Cast(Box::new(now), ty), ty));
            }
            _ => return Err(DbError::unsupported("this SQL value function")),
        };
        Ok((Expr::Func(func, vec![]), ty))
    }

    fn bind_func(&mut self, f: &pb::FuncCall) -> Result<(Expr, DataType), DbError> {
        let name = function_name(f);
        // rank() and the other hypothetical-set aggregates are window
        // functions unless called with WITHIN GROUP.
        match ordered_set::by_name(&name) {
            Some(AggFunc::Hypothetical(_)) if !f.agg_within_group => {}
            Some(func) => return self.bind_ordered_set(func, &name, f),
            None if f.agg_within_group => return Err(self.within_group_misuse(&name, f)),
            None => {}
        }
        if let Some(over) = &f.over {
            return self.bind_window(&name, f, over);
        }
        if let Some(agg) = agg_func(&name, f.agg_star) {
            return self.bind_agg(agg, &name, f);
        }
        if !user_agg::aggregates(self.catalog, &name).is_empty() {
            if let Some(bound) = self.bind_user_agg(&name, f)? {
                return Ok(bound);
            }
        }
        if f.agg_star || f.agg_distinct || !f.agg_order.is_empty() || f.agg_filter.is_some() {
            return Err(DbError::new(
                SqlState::WrongObjectType,
                format!("{name} is not an aggregate function"),
            ));
        }
        if f.func_variadic {
            if let Some(bound) = self.bind_variadic_json_build(&name, f)? {
                return Ok(bound);
            }
            if name == "format" {
                return self.bind_format_variadic(f);
            }
            if matches!(name.as_str(), "concat" | "concat_ws") {
                return self.bind_concat_variadic(&name, f);
            }
        }
        if name == "satisfies_hash_partition" && f.args.len() >= 3 {
            return self.bind_satisfies_hash_partition(f);
        }
        if self.srf_kind(f).is_some() {
            if self.srf_allowed {
                return self.bind_srf(f);
            }
            if let AggCtx::NotAllowed(clause) = self.agg {
                return Err(err_at(
                    DbError::new(
                        SqlState::FeatureNotSupported,
                        format!("set-returning functions are not allowed in {clause}"),
                    ),
                    self.text,
                    f.location,
                ));
            }
        }
        if matches!(
            name.as_str(),
            "generate_series" | "unnest" | "pg_partition_ancestors" | "jsonb_path_query"
        ) || self.srf_kind(f) == Some(functions::SrfKind::ExpandArray)
        {
            return Err(DbError::unsupported(format!(
                "set-returning function {name}() in this position"
            )));
        }
        if nestor_types::jsonpath::NAMED_FUNCTIONS.contains(&name.as_str()) {
            let args = self.bind_jsonpath_args(&name, f)?;
            let types: Vec<DataType> = args.iter().map(|_| DataType::Unknown).collect();
            let mut want = vec![
                DataType::Jsonb,
                DataType::JsonPath,
                DataType::Jsonb,
                DataType::Bool,
            ];
            want.truncate(types.len());
            let r = nestor_types::functions::resolve(&name, &want)?;
            return Ok((Expr::Func(Func::Library(r.func), args), r.ret));
        }
        if name == "pg_sleep_for" {
            let arg = f
                .args
                .first()
                .ok_or_else(|| DbError::internal("pg_sleep_for needs an argument"))?;
            let (e, t) = self.bind(arg)?;
            let e = self.coerce(e, t, DataType::Text)?;
            return Ok((Expr::Func(Func::PgSleepFor, vec![e]), DataType::Void));
        }
        if f.args
            .iter()
            .any(|a| matches!(a.node, Some(NodeEnum::NamedArgExpr(_))))
        {
            if name == "make_interval" {
                return self.bind_make_interval_named(f);
            }
            if let Some(params) = library_param_names(&name) {
                let args = self.bind_named_library_args(&name, params, f)?;
                return self.bind_library_call(&name, f, args);
            }
            // Named notation: only user functions take it here.
            return crate::bind::userfunc::bind_call(self, &name, f)?.ok_or_else(|| {
                DbError::new(
                    SqlState::UndefinedFunction,
                    format!("function {name} with named arguments does not exist"),
                )
            });
        }
        // PostgreSQL's internal names of operators (`textcat(a, b)` is
        // `a || b`, `int4larger` GREATEST), unless a user function takes
        // the name.
        let internal = f.args.len() == 2 && user_agg::internal_operator(&name).is_some();
        if internal && !f.agg_star && !f.func_variadic && self.catalog.functions(&name).is_empty() {
            if let Some(n) = user_agg::internal_operator_node(&name, f.args.clone(), f.location) {
                return match self.bind(&n) {
                    // No operator for these types: no such function.
                    Err(e) if e.code == SqlState::UndefinedFunction => {
                        let mut types = Vec::with_capacity(f.args.len());
                        for a in &f.args {
                            types.push(self.bind(a)?.1);
                        }
                        Err(ordered_set::no_function_at(
                            &name, &types, self.text, f.location,
                        ))
                    }
                    r => r,
                };
            }
        }
        let mut args = Vec::with_capacity(f.args.len());
        for a in &f.args {
            args.push(self.bind(a)?);
        }
        self.bind_library_call(&name, f, args)
    }

    /// A call of a built-in (else a user function) with its arguments
    /// bound, in order.
    fn bind_library_call(
        &mut self,
        name: &str,
        f: &pb::FuncCall,
        args: Vec<(Expr, DataType)>,
    ) -> Result<(Expr, DataType), DbError> {
        let name = name.to_string();
        let types: Vec<DataType> = args.iter().map(|a| a.1).collect();
        // A function of an extension this database has not installed
        // does not exist (a user function of that name may).
        let absent = nestor_types::extensions::provider(&name)
            .is_some_and(|ext| !self.catalog.has_extension(ext));
        let found = if absent {
            Err(nestor_types::functions::undefined_function(&name, &types))
        } else {
            functions::lookup(&name, &types)
        };
        let res = match found {
            Ok(r) => r,
            Err(e) if e.code == SqlState::UndefinedFunction => {
                // Not a built-in: a function created with CREATE FUNCTION.
                if let Some(bound) = crate::bind::userfunc::bind_call(self, &name, f)? {
                    return Ok(bound);
                }
                if let Some(bound) = self.library_call_through_user_casts(&name, &args)? {
                    return Ok(bound);
                }
                return match self.function_style_cast(f, &types)? {
                    Some(bound) => Ok(bound),
                    None => Err(e),
                };
            }
            Err(e) => return Err(e),
        };
        if matches!(res.func, Func::Nextval | Func::Currval | Func::Setval) {
            self.check_regclass_literal(f)?;
        }
        let mut out = Vec::with_capacity(args.len());
        for ((e, t), want) in args.into_iter().zip(res.arg_types.iter()) {
            out.push(match want {
                Some(w) => self.coerce_arg(e, t, *w, &name, &types)?,
                None => e,
            });
        }
        let ret = res.ret.resolve_unknown();
        Ok((Expr::Func(res.func, out), ret))
    }

    /// `typename(x)` with no function of that name: the cast `x::typename`,
    /// as PostgreSQL's func_get_detail reads a one-argument call named
    /// after a type (FUNCDETAIL_COERCION: `float8(i)`, `text(5)`,
    /// `date(ts)`, `mood('happy')`). None when the name is not a type.
    fn function_style_cast(
        &mut self,
        f: &pb::FuncCall,
        types: &[DataType],
    ) -> Result<Option<(Expr, DataType)>, DbError> {
        let ([arg], [from]) = (f.args.as_slice(), types) else {
            return Ok(None);
        };
        if f.agg_star || f.func_variadic || matches!(arg.node, Some(NodeEnum::NamedArgExpr(_))) {
            return Ok(None);
        }
        let tn = pb::TypeName {
            names: f.funcname.clone(),
            typemod: -1,
            location: f.location,
            ..Default::default()
        };
        let Ok(to) = type_from_name(&tn) else {
            return Ok(None);
        };
        // Not a row to a string through its output (PostgreSQL excludes
        // that coercion path from the function form).
        if matches!(from, DataType::Record(_)) && to.is_string() {
            return Ok(None);
        }
        let tc = pb::TypeCast {
            arg: Some(Box::new(arg.clone())),
            type_name: Some(tn),
            location: f.location,
        };
        self.bind_cast(&tc).map(Some)
    }

    /// `json[b]_build_object(VARIADIC arr)` / `json[b]_build_array(VARIADIC
    /// arr)`: the array's elements as the arguments; None for other
    /// functions (VARIADIC is otherwise read as the array argument it is).
    fn bind_variadic_json_build(
        &mut self,
        name: &str,
        f: &pb::FuncCall,
    ) -> Result<Option<(Expr, DataType)>, DbError> {
        let (object, binary) = match name {
            "json_build_object" => (true, false),
            "jsonb_build_object" => (true, true),
            "json_build_array" => (false, false),
            "jsonb_build_array" => (false, true),
            _ => return Ok(None),
        };
        let [arg] = f.args.as_slice() else {
            return Ok(None);
        };
        let e = self.bind_variadic_array(arg, true)?;
        let ret = if binary {
            DataType::Jsonb
        } else {
            DataType::Json
        };
        Ok(Some((
            Expr::Func(Func::JsonBuildVariadic { object, binary }, vec![e]),
            ret,
        )))
    }

    /// The array given to a VARIADIC parameter: 42804 "VARIADIC argument
    /// must be an array" for anything else; an untyped literal is a
    /// text[] when `unknown_is_text_array` (else it is not an array).
    fn bind_variadic_array(
        &mut self,
        arg: &Node,
        unknown_is_text_array: bool,
    ) -> Result<Expr, DbError> {
        Ok(self
            .bind_variadic_array_typed(arg, unknown_is_text_array)?
            .0)
    }

    /// [`Binder::bind_variadic_array`] with the array's type.
    fn bind_variadic_array_typed(
        &mut self,
        arg: &Node,
        unknown_is_text_array: bool,
    ) -> Result<(Expr, DataType), DbError> {
        let (e, t) = self.bind(arg)?;
        match t {
            DataType::Unknown if unknown_is_text_array => {
                let at = DataType::Text.array_of().expect("text[]");
                Ok((self.coerce(e, t, at)?, at))
            }
            t if t.is_array() => Ok((e, t)),
            _ => {
                let err = DbError::new(
                    SqlState::DatatypeMismatch,
                    "VARIADIC argument must be an array",
                );
                Err(err_at(err, self.text, node(arg).map_or(-1, expr_location)))
            }
        }
    }

    /// concat(VARIADIC a) and concat_ws(sep, VARIADIC a): the array's
    /// elements are the arguments (NULL elements skipped, a NULL array
    /// gives NULL), which is array_to_string(a, sep or '').
    fn bind_concat_variadic(
        &mut self,
        name: &str,
        f: &pb::FuncCall,
    ) -> Result<(Expr, DataType), DbError> {
        let fixed = usize::from(name == "concat_ws");
        if f.args.len() != fixed + 1 {
            let mut types = Vec::with_capacity(f.args.len());
            for a in &f.args {
                types.push(self.bind(a)?.1);
            }
            return Err(ordered_set::no_function_at(
                name, &types, self.text, f.location,
            ));
        }
        let (array, at) = self.bind_variadic_array_typed(&f.args[fixed], false)?;
        let sep = match fixed {
            1 => {
                let (e, t) = self.bind(&f.args[0])?;
                self.coerce(e, t, DataType::Text)?
            }
            _ => Expr::Const(Value::Text(Arc::from(""))),
        };
        let func = functions::library_call("array_to_string", &[at, DataType::Text])?;
        Ok((Expr::Func(func, vec![array, sep]), DataType::Text))
    }

    /// format(fmt, VARIADIC array): PostgreSQL's format(text, VARIADIC
    /// "any") given the array itself, its elements formatted as the
    /// arguments after `fmt` (an untyped literal is not an array here, as
    /// for "any").
    fn bind_format_variadic(&mut self, f: &pb::FuncCall) -> Result<(Expr, DataType), DbError> {
        let [fmt, arr] = f.args.as_slice() else {
            return Err(err_at(
                DbError::new(
                    SqlState::UndefinedFunction,
                    "function format with a VARIADIC argument does not exist",
                )
                .with_hint("format takes the format, then one VARIADIC array."),
                self.text,
                f.location,
            ));
        };
        let (fe, ft) = self.bind(fmt)?;
        let fe = self.coerce(fe, ft, DataType::Text)?;
        let e = self.bind_variadic_array(arr, false)?;
        Ok((
            Expr::Func(Func::FormatVariadic, vec![fe, e]),
            DataType::Text,
        ))
    }

    /// The arguments of a built-in called with named ones (`jsonb_set_lax(t,
    /// p, v, null_value_treatment => 'delete_key')`), in parameter order:
    /// a parameter left out before one given takes its default; trailing
    /// ones are left to the function's own defaults.
    fn bind_named_library_args(
        &mut self,
        name: &str,
        params: &[(&str, Option<Value>)],
        f: &pb::FuncCall,
    ) -> Result<Vec<(Expr, DataType)>, DbError> {
        let mut bound = Vec::with_capacity(f.args.len());
        for (i, a) in f.args.iter().enumerate() {
            match node(a)? {
                NodeEnum::NamedArgExpr(na) => {
                    let arg = na
                        .arg
                        .as_deref()
                        .ok_or_else(|| DbError::internal("named argument without a value"))?;
                    let slot = params.iter().position(|p| p.0 == na.name);
                    bound.push((slot, Some(na.name.clone()), self.bind(arg)?));
                }
                _ => bound.push((Some(i), None, self.bind(a)?)),
            }
        }
        // PostgreSQL's 42883 names each argument's type (and name).
        let list: Vec<String> = bound
            .iter()
            .map(|(_, n, (_, t))| match n {
                Some(n) => format!("{n} => {}", t.name()),
                None => t.name().to_string(),
            })
            .collect();
        let undefined = || {
            DbError::new(
                SqlState::UndefinedFunction,
                format!("function {name}({}) does not exist", list.join(", ")),
            )
            .with_hint("No function matches the given name and argument types. You might need to add explicit type casts.")
        };
        let mut slots: Vec<Option<(Expr, DataType)>> = vec![None; params.len()];
        for (slot, _, arg) in bound {
            match slot {
                Some(s) if s < params.len() && slots[s].is_none() => slots[s] = Some(arg),
                _ => return Err(undefined()),
            }
        }
        let given = slots.iter().rposition(Option::is_some).map_or(0, |p| p + 1);
        let mut out = Vec::with_capacity(given);
        for (s, (_, default)) in slots.into_iter().zip(params).take(given) {
            out.push(match (s, default) {
                (Some(s), _) => s,
                (None, Some(d)) => {
                    let ty = d.data_type();
                    (Expr::Const(d.clone()), ty)
                }
                (None, None) => return Err(undefined()),
            });
        }
        Ok(out)
    }

    /// A sequence function's literal argument names a relation: PostgreSQL
    /// resolves it (as a regclass) while parsing, so a missing relation is
    /// reported at the literal. (One that is not a sequence fails when the
    /// function runs.)
    fn check_regclass_literal(&self, f: &pb::FuncCall) -> Result<(), DbError> {
        let Some(NodeEnum::AConst(c)) = f.args.first().and_then(|a| a.node.as_ref()) else {
            return Ok(());
        };
        let Some(a_const::Val::Sval(sv)) = &c.val else {
            return Ok(());
        };
        let n = nestor_catalog::qualified_name(&sv.sval)
            .map_err(|e| err_at(e, self.text, c.location))?;
        if self.catalog.relation(&n).is_none() {
            return Err(err_at(
                DbError::new(
                    SqlState::UndefinedTable,
                    format!("relation \"{n}\" does not exist"),
                ),
                self.text,
                c.location,
            ));
        }
        Ok(())
    }

    /// The arguments of a jsonb_path_* function: (target, path [, vars,
    /// silent]), positional or named (`silent => true`), coerced to jsonb,
    /// jsonpath, jsonb and boolean; a missing `vars` before a given
    /// `silent` is PostgreSQL's default `'{}'`.
    pub(crate) fn bind_jsonpath_args(
        &mut self,
        name: &str,
        f: &pb::FuncCall,
    ) -> Result<Vec<Expr>, DbError> {
        use nestor_types::jsonpath::PARAM_NAMES;
        const WANT: [DataType; 4] = [
            DataType::Jsonb,
            DataType::JsonPath,
            DataType::Jsonb,
            DataType::Bool,
        ];
        let mut slots: Vec<Option<(Expr, DataType)>> = vec![None; PARAM_NAMES.len()];
        let mut types = Vec::with_capacity(f.args.len());
        let mut named = false;
        let undefined = |types: &[DataType], named: bool| {
            let list: Vec<&str> = types.iter().map(|t| t.resolve_unknown().name()).collect();
            let msg = if named {
                format!("function {name} with these named arguments does not exist")
            } else {
                format!("function {name}({}) does not exist", list.join(", "))
            };
            DbError::new(SqlState::UndefinedFunction, msg)
                .with_hint("No function matches the given name and argument types. You might need to add explicit type casts.")
        };
        let mut bound = Vec::with_capacity(f.args.len());
        for (i, a) in f.args.iter().enumerate() {
            let (slot, arg) = match node(a)? {
                NodeEnum::NamedArgExpr(na) => {
                    named = true;
                    let slot = PARAM_NAMES.iter().position(|p| *p == na.name);
                    let arg = na
                        .arg
                        .as_deref()
                        .ok_or_else(|| DbError::internal("named argument without a value"))?;
                    (slot, arg)
                }
                _ => (Some(i), a),
            };
            let (e, t) = self.bind(arg)?;
            types.push(t);
            bound.push((slot, e, t));
        }
        for (slot, e, t) in bound {
            let Some(slot) = slot.filter(|s| *s < PARAM_NAMES.len() && slots[*s].is_none()) else {
                return Err(undefined(&types, named));
            };
            slots[slot] = Some((e, t));
        }
        if slots[0].is_none() || slots[1].is_none() {
            return Err(undefined(&types, named));
        }
        let n = if slots[3].is_some() {
            4
        } else if slots[2].is_some() {
            3
        } else {
            2
        };
        let mut out = Vec::with_capacity(n);
        for (i, s) in slots.into_iter().take(n).enumerate() {
            out.push(match s {
                Some((e, t)) => {
                    let fits = t == DataType::Unknown || t == WANT[i];
                    if !fits {
                        return Err(undefined(&types, named));
                    }
                    self.coerce(e, t, WANT[i])?
                }
                None => Expr::Const(Value::Jsonb("{}".into())),
            });
        }
        Ok(out)
    }

    /// make_interval(years => .., months, weeks, days, hours, mins, secs
    /// => ..): named (and positional) arguments, the rest 0.
    fn bind_make_interval_named(&mut self, f: &pb::FuncCall) -> Result<(Expr, DataType), DbError> {
        const PARAMS: [&str; 7] = ["years", "months", "weeks", "days", "hours", "mins", "secs"];
        let mut slots: Vec<Option<(Expr, DataType)>> = vec![None; PARAMS.len()];
        let undefined = || {
            DbError::new(
                SqlState::UndefinedFunction,
                "function make_interval with these named arguments does not exist",
            )
            .with_hint("No function matches the given name and argument types. You might need to add explicit type casts.")
        };
        for (i, a) in f.args.iter().enumerate() {
            let (slot, arg) = match node(a)? {
                NodeEnum::NamedArgExpr(na) => {
                    let slot = PARAMS
                        .iter()
                        .position(|p| *p == na.name)
                        .ok_or_else(undefined)?;
                    let arg = na
                        .arg
                        .as_deref()
                        .ok_or_else(|| DbError::internal("named argument without a value"))?;
                    (slot, arg)
                }
                _ => (i, a),
            };
            if slot >= PARAMS.len() || slots[slot].is_some() {
                return Err(undefined());
            }
            slots[slot] = Some(self.bind(arg)?);
        }
        let mut args = Vec::with_capacity(PARAMS.len());
        for (i, s) in slots.into_iter().enumerate() {
            args.push(s.unwrap_or_else(|| {
                if i == 6 {
                    (Expr::Const(Value::Float8(0.0)), DataType::Float8)
                } else {
                    (Expr::Const(Value::Int4(0)), DataType::Int4)
                }
            }));
        }
        let types: Vec<DataType> = args.iter().map(|a| a.1).collect();
        let res = functions::lookup("make_interval", &types)?;
        let mut out = Vec::with_capacity(args.len());
        for ((e, t), want) in args.into_iter().zip(res.arg_types.iter()) {
            out.push(match want {
                Some(w) => self.coerce_arg(e, t, *w, "make_interval", &types)?,
                None => e,
            });
        }
        Ok((Expr::Func(res.func, out), res.ret))
    }

    fn coerce_arg(
        &mut self,
        e: Expr,
        t: DataType,
        want: DataType,
        name: &str,
        types: &[DataType],
    ) -> Result<Expr, DbError> {
        let ok = t == DataType::Unknown
            || t.base() == want.base()
            || (t.is_numeric() && want.is_numeric())
            || (t.is_string() && want.is_string())
            || (nestor_types::bits::is_bits(t) && nestor_types::bits::is_bits(want))
            || (t == DataType::Date
                && matches!(want, DataType::Timestamp(_) | DataType::TimestampTz(_)))
            || (matches!(t, DataType::Time(_))
                && matches!(want, DataType::Interval(_) | DataType::TimeTz(_)))
            || (t == DataType::Oid && want.is_integer())
            || (t.is_integer() && want == DataType::Oid);
        if !ok {
            let list: Vec<&str> = types.iter().map(|t| t.resolve_unknown().name()).collect();
            return Err(DbError::new(
                SqlState::UndefinedFunction,
                format!("function {}({}) does not exist", name, list.join(", ")),
            )
            .with_hint("No function matches the given name and argument types. You might need to add explicit type casts."));
        }
        self.coerce(e, t, want)
    }

    /// GROUPING(args): where aggregates may be; the planner checks the
    /// arguments against GROUP BY (select::grouping).
    fn bind_grouping(&mut self, g: &pb::GroupingFunc) -> Result<(Expr, DataType), DbError> {
        if let AggCtx::NotAllowed(clause) = self.agg {
            let e = DbError::new(
                SqlState::GroupingError,
                format!("grouping operations are not allowed in {clause}"),
            );
            return Err(err_at(e, self.text, g.location));
        }
        if g.args.len() > 31 {
            let e = DbError::new(
                SqlState::TooManyArguments,
                "GROUPING must have fewer than 32 arguments",
            );
            return Err(err_at(e, self.text, g.location));
        }
        let mut args = Vec::with_capacity(g.args.len());
        for a in &g.args {
            args.push(self.bind(a)?.0);
        }
        Ok((Expr::Grouping(args), DataType::Int4))
    }

    fn bind_agg(
        &mut self,
        func: AggFunc,
        name: &str,
        f: &pb::FuncCall,
    ) -> Result<(Expr, DataType), DbError> {
        // Where this level refuses aggregates, only an aggregate of an
        // outer level (bind/outer_agg.rs) may stand; anything else wrong
        // with the call is reported as the refusal, as before.
        let refused = match self.agg {
            AggCtx::NotAllowed(clause) => Some(clause),
            AggCtx::Allowed => None,
        };
        let mark = self.outer_uses.len();
        let parts = self.bind_agg_parts(func, name, f);
        let (arg, at, delimiter, order, filter) = match (parts, refused) {
            (Ok(p), _) => p,
            (Err(_), Some(clause)) => return Err(outer_agg::refusal(clause)),
            (Err(e), None) => return Err(e),
        };
        let mut parts: Vec<&Expr> = arg.iter().chain(filter.as_ref()).collect();
        parts.extend(order.iter().map(|o| &o.key));
        let level = self.agg_level(&parts, mark);
        if level == self.level() {
            if let Some(clause) = refused {
                return Err(outer_agg::refusal(clause));
            }
        }
        let func = refine_agg(func, at);
        let ty = agg_type(func, at, name)?;
        let arg = self.coerce_agg_arg(func, arg, at, ty)?;
        let order = distinct_order(func, f.agg_distinct, arg.as_ref(), order);
        let call = AggCall {
            func,
            arg,
            delimiter,
            distinct: f.agg_distinct,
            ty,
            order,
            filter,
            direct: Vec::new(),
            user: None,
        };
        if level < self.level() {
            return Ok((self.outer_agg(call, level, mark, f.location)?, ty));
        }
        Ok((Expr::Agg(Box::new(call)), ty))
    }

    /// A built-in aggregate call's argument (its type, string_agg's
    /// constant delimiter), ORDER BY keys and FILTER, checked for arity.
    #[allow(clippy::type_complexity)]
    fn bind_agg_parts(
        &mut self,
        func: AggFunc,
        name: &str,
        f: &pb::FuncCall,
    ) -> Result<
        (
            Option<Expr>,
            DataType,
            Option<Value>,
            Vec<AggOrder>,
            Option<Expr>,
        ),
        DbError,
    > {
        let want = match func {
            AggFunc::CountStar => 0,
            AggFunc::StringAgg | AggFunc::JsonObjectAgg { .. } => 2,
            // Checked with the argument types (bind_regr_args).
            AggFunc::Regr(_) => f.args.len(),
            _ => 1,
        };
        parameterless(func, f, self.text)?;
        if f.args.len() != want {
            return Err(DbError::new(
                SqlState::UndefinedFunction,
                format!(
                    "function {name} with {} arguments does not exist",
                    f.args.len()
                ),
            ));
        }
        let ((arg, at, delimiter), order, filter) = self.in_agg_args(|b| {
            let mut written = Vec::with_capacity(f.args.len());
            for a in &f.args {
                written.push(b.bind(a)?);
            }
            let order = b.bind_order_typed(&f.agg_order)?;
            if f.agg_distinct && !order.is_empty() {
                // Against the arguments as written (agg_args coerces them).
                let refs: Vec<(&Expr, DataType)> = written.iter().map(|(e, t)| (e, *t)).collect();
                distinct_order_in_args(&refs, &order, f, b.text)?;
            }
            let args = b.agg_args(func, written)?;
            let order: Vec<AggOrder> = order.into_iter().map(|(o, _)| o).collect();
            let filter = match &f.agg_filter {
                Some(n) => Some(b.bind_agg_filter(n)?),
                None => None,
            };
            Ok((args, order, filter))
        })?;
        Ok((arg, at, delimiter, order, filter))
    }

    /// A call of a CREATE AGGREGATE aggregate (`name(*)` for one of no
    /// arguments); None when none of that name takes the arguments.
    fn bind_user_agg(
        &mut self,
        name: &str,
        f: &pb::FuncCall,
    ) -> Result<Option<(Expr, DataType)>, DbError> {
        if f.agg_star != f.args.is_empty() {
            return Ok(None);
        }
        if let AggCtx::NotAllowed(clause) = self.agg {
            let message = if clause == AGG_ARGS {
                "aggregate function calls cannot be nested".to_string()
            } else {
                format!("aggregate functions are not allowed in {clause}")
            };
            return Err(err_at(
                DbError::new(SqlState::GroupingError, message),
                self.text,
                f.location,
            ));
        }
        let mark = self.outer_uses.len();
        let (bound, order, filter) = self.in_agg_args(|b| {
            let mut bound = Vec::with_capacity(f.args.len());
            for a in &f.args {
                bound.push(b.bind(a)?);
            }
            let order = b.bind_order_typed(&f.agg_order)?;
            let filter = match &f.agg_filter {
                Some(n) => Some(b.bind_agg_filter(n)?),
                None => None,
            };
            Ok((bound, order, filter))
        })?;
        if f.agg_distinct {
            let written: Vec<(&Expr, DataType)> = bound.iter().map(|(e, t)| (e, *t)).collect();
            distinct_order_in_args(&written, &order, f, self.text)?;
        }
        let order: Vec<AggOrder> = order.into_iter().map(|(o, _)| o).collect();
        let types: Vec<DataType> = bound.iter().map(|(_, t)| *t).collect();
        let Some((user, want)) = self.user_aggregate(name, &types)? else {
            return Ok(None);
        };
        let mut args = Vec::with_capacity(bound.len());
        for ((e, t), w) in bound.into_iter().zip(want) {
            args.push(self.coerce(e, t, w)?);
        }
        // Several arguments travel as one record (user_agg's header).
        let arg = match args.len() {
            0 => None,
            1 => args.pop(),
            _ => Some(Expr::Func(Func::RowCtor, args)),
        };
        let mut parts: Vec<&Expr> = arg.iter().chain(filter.as_ref()).collect();
        parts.extend(order.iter().map(|o| &o.key));
        let level = self.agg_level(&parts, mark);
        let mut order = order;
        if f.agg_distinct {
            // DISTINCT sorts its rows: by the ORDER BY keys, then by the
            // arguments, as PostgreSQL's sort for it does.
            if let Some(a) = &arg {
                order.push(AggOrder {
                    key: a.clone(),
                    desc: false,
                    nulls_first: false,
                });
            }
        }
        let ty = user.steps.result;
        let call = AggCall {
            func: AggFunc::User,
            arg,
            delimiter: None,
            distinct: f.agg_distinct,
            ty,
            order,
            filter,
            direct: Vec::new(),
            user: Some(user),
        };
        if level < self.level() {
            return Ok(Some((self.outer_agg(call, level, mark, f.location)?, ty)));
        }
        Ok(Some((Expr::Agg(Box::new(call)), ty)))
    }

    /// `f(args) OVER window`: a window function, or an aggregate over the
    /// window frame.
    fn bind_window(
        &mut self,
        name: &str,
        f: &pb::FuncCall,
        over: &pb::WindowDef,
    ) -> Result<(Expr, DataType), DbError> {
        if let WinCtx::NotAllowed(msg, code) = self.window {
            return Err(err_at(DbError::new(code, msg), self.text, f.location));
        }
        // PostgreSQL's own refusals (0A000), positioned at the call.
        let not_impl = |m: &str| {
            err_at(
                DbError::new(SqlState::FeatureNotSupported, m.to_string()),
                self.text,
                f.location,
            )
        };
        if f.agg_distinct {
            return Err(not_impl("DISTINCT is not implemented for window functions"));
        }
        if !f.agg_order.is_empty() {
            return Err(not_impl(
                "aggregate ORDER BY is not implemented for window functions",
            ));
        }
        let def = self
            .window_def(over)
            .map_err(|e| err_at(e, self.text, over.location))?;
        self.without_windows("window function calls cannot be nested", |b| {
            b.bind_window_parts(name, f, &def)
        })
    }

    /// The window an OVER clause means: its own definition, or a named
    /// one of the WINDOW clause, possibly with ORDER BY and frame added.
    fn window_def(&self, over: &pb::WindowDef) -> Result<pb::WindowDef, DbError> {
        let named = |n: &str| {
            self.windows
                .iter()
                .rev()
                .find(|(w, _)| w == n)
                .map(|(_, d)| d.clone())
                .ok_or_else(|| {
                    DbError::new(
                        SqlState::UndefinedObject,
                        format!("window \"{n}\" does not exist"),
                    )
                })
        };
        if !over.name.is_empty() {
            return named(&over.name);
        }
        if over.refname.is_empty() {
            return Ok(over.clone());
        }
        let base = named(&over.refname)?;
        if !base.order_clause.is_empty() && !over.order_clause.is_empty() {
            return Err(DbError::new(
                SqlState::WindowingError,
                format!(
                    "cannot override ORDER BY clause of window \"{}\"",
                    over.refname
                ),
            ));
        }
        let mut def = over.clone();
        def.partition_clause = base.partition_clause;
        if def.order_clause.is_empty() {
            def.order_clause = base.order_clause;
        }
        Ok(def)
    }

    fn bind_window_parts(
        &mut self,
        name: &str,
        f: &pb::FuncCall,
        def: &pb::WindowDef,
    ) -> Result<(Expr, DataType), DbError> {
        let saved = std::mem::replace(
            &mut self.window,
            WinCtx::NotAllowed(
                "window functions are not allowed in window definitions",
                SqlState::WindowingError,
            ),
        );
        let defined = (|| -> Result<_, DbError> {
            let mut partition = Vec::with_capacity(def.partition_clause.len());
            for p in &def.partition_clause {
                partition.push(self.bind(p)?.0);
            }
            let typed = self.bind_order_typed(&def.order_clause)?;
            let order_types: Vec<DataType> = typed.iter().map(|(_, t)| *t).collect();
            let order: Vec<AggOrder> = typed.into_iter().map(|(o, _)| o).collect();
            let frame = self.window_frame(def, &order_types)?;
            Ok((partition, order, frame))
        })();
        self.window = saved;
        let (partition, order, frame) = defined?;
        let nargs = f.args.len();
        let arity = |ok: bool| {
            if ok {
                Ok(())
            } else {
                Err(DbError::new(
                    SqlState::UndefinedFunction,
                    format!("function {name} with {nargs} arguments does not exist"),
                ))
            }
        };
        let mut user = None;
        let (func, args, ty) = match name {
            "row_number" | "rank" | "dense_rank" | "percent_rank" | "cume_dist" => {
                arity(nargs == 0)?;
                let (func, ty) = match name {
                    "row_number" => (WinFunc::RowNumber, DataType::Int8),
                    "rank" => (WinFunc::Rank, DataType::Int8),
                    "dense_rank" => (WinFunc::DenseRank, DataType::Int8),
                    "percent_rank" => (WinFunc::PercentRank, DataType::Float8),
                    _ => (WinFunc::CumeDist, DataType::Float8),
                };
                (func, Vec::new(), ty)
            }
            "ntile" => {
                arity(nargs == 1)?;
                let (e, t) = self.bind(&f.args[0])?;
                (
                    WinFunc::Ntile,
                    vec![self.coerce(e, t, DataType::Int4)?],
                    DataType::Int4,
                )
            }
            "lag" | "lead" | "first_value" | "last_value" | "nth_value" => {
                let range = match name {
                    "lag" | "lead" => 1..=3,
                    "nth_value" => 2..=2,
                    _ => 1..=1,
                };
                arity(range.contains(&nargs))?;
                let (v, vt0) = self.bind(&f.args[0])?;
                let mut vt = vt0.resolve_unknown();
                // lag/lead(anycompatible, integer, anycompatible): the
                // value and the default share their common type.
                let default = match nargs {
                    3 => {
                        let (d, dt) = self.bind(&f.args[2])?;
                        vt = unify(vt, dt).ok_or_else(|| {
                            err_at(
                                DbError::new(
                                    SqlState::UndefinedFunction,
                                    format!(
                                        "function {name}({}, integer, {}) does not exist",
                                        vt.name(),
                                        dt.name()
                                    ),
                                )
                                .with_hint(
                                    "No function matches the given name and argument types. You might need to add explicit type casts.",
                                ),
                                self.text,
                                f.location,
                            )
                        })?;
                        Some((d, dt))
                    }
                    _ => None,
                };
                let v = self.coerce(v, vt0, vt)?;
                let mut args = vec![v];
                if nargs >= 2 {
                    let (o, ot) = self.bind(&f.args[1])?;
                    args.push(self.coerce(o, ot, DataType::Int4)?);
                }
                if let Some((d, dt)) = default {
                    args.push(self.coerce(d, dt, vt)?);
                }
                let func = match name {
                    "lag" => WinFunc::Lag,
                    "lead" => WinFunc::Lead,
                    "first_value" => WinFunc::FirstValue,
                    "last_value" => WinFunc::LastValue,
                    _ => WinFunc::NthValue,
                };
                (func, args, vt)
            }
            _ if agg_func(name, f.agg_star).is_none()
                && nargs == 1
                && !user_agg::aggregates(self.catalog, name).is_empty() =>
            {
                let (e, t) = self.bind(&f.args[0])?;
                let Some((u, want)) = self.user_aggregate(name, &[t])? else {
                    return Err(err_at(
                        DbError::new(
                            SqlState::UndefinedFunction,
                            format!("function {name}({}) does not exist", t.name()),
                        ),
                        self.text,
                        f.location,
                    ));
                };
                let e = self.coerce(e, t, want[0])?;
                let ty = u.steps.result;
                user = Some(u);
                (WinFunc::Agg(AggFunc::User), vec![e], ty)
            }
            _ => {
                if let Some(agg) = agg_func(name, f.agg_star) {
                    parameterless(agg, f, self.text)?;
                }
                let Some(agg) = agg_func(name, f.agg_star) else {
                    return Err(err_at(
                        DbError::new(
                            SqlState::WrongObjectType,
                            format!(
                                "OVER specified, but {name} is not a window function nor an aggregate function"
                            ),
                        ),
                        self.text,
                        f.location,
                    ));
                };
                // The arguments are evaluated on the query's (grouped)
                // rows, so they may hold the query's own aggregates
                // (`sum(sum(x)) OVER (...)`), as the window's keys may.
                let (arg, at, delimiter) = self.bind_agg_args(agg, &f.args)?;
                let agg = refine_agg(agg, at);
                let ty = agg_type(agg, at, name)?;
                let arg = self.coerce_agg_arg(agg, arg, at, ty)?;
                let mut args: Vec<Expr> = arg.into_iter().collect();
                if let Some(d) = delimiter {
                    args.push(Expr::Const(d));
                }
                (WinFunc::Agg(agg), args, ty)
            }
        };
        let filter = match &f.agg_filter {
            None => None,
            Some(_) if !matches!(func, WinFunc::Agg(_)) => {
                return Err(err_at(
                    DbError::new(
                        SqlState::FeatureNotSupported,
                        "FILTER is not implemented for non-aggregate window functions",
                    ),
                    self.text,
                    f.location,
                ))
            }
            Some(n) => {
                let saved = std::mem::replace(&mut self.agg, AggCtx::NotAllowed("FILTER"));
                let bound = self.bind_bool(n, "FILTER");
                self.agg = saved;
                Some(bound?)
            }
        };
        Ok((
            Expr::Window(Box::new(WinCall {
                filter,
                func,
                args,
                partition,
                order,
                frame,
                ty,
                user,
            })),
            ty,
        ))
    }

    /// The frame of a window definition (PostgreSQL's FRAMEOPTION_* bits;
    /// the grammar has already refused impossible bound combinations).
    /// `order`: the types of the ORDER BY keys, which a RANGE offset is
    /// added to.
    fn window_frame(
        &mut self,
        def: &pb::WindowDef,
        order: &[DataType],
    ) -> Result<WinFrame, DbError> {
        const NONDEFAULT: i32 = 0x1;
        const RANGE: i32 = 0x2;
        const ROWS: i32 = 0x4;
        const GROUPS: i32 = 0x8;
        const START_UNBOUNDED_PRECEDING: i32 = 0x20;
        const END_UNBOUNDED_PRECEDING: i32 = 0x40;
        const START_UNBOUNDED_FOLLOWING: i32 = 0x80;
        const END_UNBOUNDED_FOLLOWING: i32 = 0x100;
        const START_CURRENT_ROW: i32 = 0x200;
        const START_OFFSET_PRECEDING: i32 = 0x800;
        const END_OFFSET_PRECEDING: i32 = 0x1000;
        const START_OFFSET_FOLLOWING: i32 = 0x2000;
        const END_OFFSET_FOLLOWING: i32 = 0x4000;
        const EXCLUDE_CURRENT_ROW: i32 = 0x8000;
        const EXCLUDE_GROUP: i32 = 0x10000;
        const EXCLUDE_TIES: i32 = 0x20000;
        let o = def.frame_options;
        if o & NONDEFAULT == 0 {
            return Ok(WinFrame::default_frame());
        }
        let mode = if o & ROWS != 0 {
            FrameMode::Rows
        } else if o & GROUPS != 0 {
            FrameMode::Groups
        } else {
            let _ = RANGE;
            FrameMode::Range
        };
        let exclude = if o & EXCLUDE_CURRENT_ROW != 0 {
            FrameExclude::CurrentRow
        } else if o & EXCLUDE_GROUP != 0 {
            FrameExclude::Group
        } else if o & EXCLUDE_TIES != 0 {
            FrameExclude::Ties
        } else {
            FrameExclude::NoOthers
        };
        let offsets = START_OFFSET_PRECEDING
            | END_OFFSET_PRECEDING
            | START_OFFSET_FOLLOWING
            | END_OFFSET_FOLLOWING;
        let text = self.text;
        let windowing = |m: &str| DbError::new(SqlState::WindowingError, m.to_string());
        let at_def = |e: DbError| err_at(e, text, def.location);
        let offset_loc = |n: &Option<Box<Node>>| {
            n.as_deref()
                .and_then(|n| n.node.as_ref())
                .map_or(-1, expr_location)
        };
        let first_offset_loc = if o & (START_OFFSET_PRECEDING | START_OFFSET_FOLLOWING) != 0 {
            offset_loc(&def.start_offset)
        } else {
            offset_loc(&def.end_offset)
        };
        // transformFrameOffset's checks, in its order.
        let offset_type = match mode {
            _ if o & offsets == 0 => None,
            FrameMode::Rows | FrameMode::Groups => Some(DataType::Int8),
            FrameMode::Range => {
                if order.len() != 1 {
                    return Err(at_def(windowing(
                        "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column",
                    )));
                }
                Some(range_offset_type(order[0]).map_err(|e| err_at(e, text, first_offset_loc))?)
            }
        };
        if mode == FrameMode::Groups && order.is_empty() {
            return Err(at_def(windowing("GROUPS mode requires an ORDER BY clause")));
        }
        let what = match mode {
            FrameMode::Rows => "ROWS",
            FrameMode::Range => "RANGE",
            FrameMode::Groups => "GROUPS",
        };
        let key = order.first().copied();
        let mut offset = |n: &Option<Box<Node>>| -> Result<Expr, DbError> {
            let n = n
                .as_deref()
                .ok_or_else(|| DbError::internal("frame offset missing"))?;
            let loc = n.node.as_ref().map_or(-1, expr_location);
            let (e, t) = self.bind(n)?;
            // Constants, parameters and uncorrelated subqueries (computed
            // once), as PostgreSQL's "must not contain variables".
            let mut variables = false;
            e.walk(&mut |x| match x {
                Expr::Col(_) | Expr::Outer { .. } | Expr::Agg(_) | Expr::Window(_) => {
                    variables = true
                }
                Expr::Sub(s) if s.correlated => variables = true,
                _ => {}
            });
            if variables {
                return Err(err_at(
                    windowing(&format!("argument of {what} must not contain variables")),
                    text,
                    loc,
                ));
            }
            let want = offset_type.unwrap_or(DataType::Int8);
            let fits = match want {
                DataType::Int8 => t.is_integer() || t == DataType::Unknown,
                DataType::Float8 => t.is_numeric() || t == DataType::Unknown,
                DataType::Numeric(_) => {
                    t.is_integer() || matches!(t, DataType::Numeric(_) | DataType::Unknown)
                }
                DataType::Interval(_) => matches!(t, DataType::Interval(_) | DataType::Unknown),
                _ => false,
            };
            if !fits && mode == FrameMode::Range {
                return Err(err_at(DbError::new(
                    SqlState::FeatureNotSupported,
                    format!(
                        "RANGE with offset PRECEDING/FOLLOWING is not supported for column type {} and offset type {}",
                        key.map_or("unknown", DataType::name),
                        t.name()
                    ),
                )
                .with_hint("Cast the offset value to an appropriate type."), text, loc));
            }
            self.coerce(e, t, want)
        };
        let start = if o & START_UNBOUNDED_PRECEDING != 0 {
            FrameBound::UnboundedPreceding
        } else if o & START_CURRENT_ROW != 0 {
            FrameBound::CurrentRow
        } else if o & START_OFFSET_PRECEDING != 0 {
            FrameBound::Preceding(offset(&def.start_offset)?)
        } else if o & START_OFFSET_FOLLOWING != 0 {
            FrameBound::Following(offset(&def.start_offset)?)
        } else if o & START_UNBOUNDED_FOLLOWING != 0 {
            return Err(windowing("frame start cannot be UNBOUNDED FOLLOWING"));
        } else {
            FrameBound::UnboundedPreceding
        };
        let end = if o & END_UNBOUNDED_FOLLOWING != 0 {
            FrameBound::UnboundedFollowing
        } else if o & END_OFFSET_PRECEDING != 0 {
            FrameBound::Preceding(offset(&def.end_offset)?)
        } else if o & END_OFFSET_FOLLOWING != 0 {
            FrameBound::Following(offset(&def.end_offset)?)
        } else if o & END_UNBOUNDED_PRECEDING != 0 {
            return Err(windowing("frame end cannot be UNBOUNDED PRECEDING"));
        } else {
            FrameBound::CurrentRow
        };
        Ok(WinFrame {
            mode,
            start,
            end,
            exclude,
        })
    }

    /// The select-list set-returning function `f` calls, if it is one.
    pub(crate) fn srf_kind(&self, f: &pb::FuncCall) -> Option<functions::SrfKind> {
        if f.over.is_some() || f.agg_star || !f.agg_order.is_empty() {
            return None;
        }
        Some(match function_name(f).as_str() {
            "unnest" => functions::SrfKind::Unnest,
            "generate_subscripts" => functions::SrfKind::GenerateSubscripts,
            "generate_series" => functions::SrfKind::GenerateSeries,
            "information_schema._pg_expandarray" => functions::SrfKind::ExpandArray,
            "jsonb_path_query" => functions::SrfKind::JsonbPathQuery,
            name => {
                if let Some((json, base, true)) = nestor_types::set_fns::populate_kind(name) {
                    // The record type is the base argument's (bind_srf).
                    return Some(functions::SrfKind::Set(
                        nestor_types::set_fns::SetFn::Populate {
                            rt: nestor_types::datatype::record_type(Vec::new()),
                            json,
                            base,
                            set: true,
                        },
                    ));
                }
                return nestor_types::set_fns::SetFn::by_name(name).map(functions::SrfKind::Set);
            }
        })
    }

    /// A set-returning function as a whole select-list item.
    pub(crate) fn bind_srf(&mut self, f: &pb::FuncCall) -> Result<(Expr, DataType), DbError> {
        let mut kind = self.srf_kind(f).expect("checked by the caller");
        if kind == functions::SrfKind::JsonbPathQuery {
            // Its items as a jsonb[], unnested.
            let allowed = std::mem::replace(&mut self.srf_allowed, false);
            let args = self.bind_jsonpath_args("jsonb_path_query", f);
            self.srf_allowed = allowed;
            let items = Expr::Func(Func::Library(nestor_types::jsonpath::query_set_fn()), args?);
            return Ok((
                Expr::Func(Func::Srf(functions::SrfKind::Unnest), vec![items]),
                DataType::Jsonb,
            ));
        }
        let mut args = Vec::with_capacity(f.args.len());
        let mut types = Vec::with_capacity(f.args.len());
        // No set-returning function inside another's arguments.
        let allowed = std::mem::replace(&mut self.srf_allowed, false);
        for a in &f.args {
            let r = self.bind(a);
            let (e, t) = match r {
                Ok(x) => x,
                Err(e) => {
                    self.srf_allowed = allowed;
                    return Err(e);
                }
            };
            args.push(e);
            types.push(t);
        }
        self.srf_allowed = allowed;
        let name = function_name(f);
        let text = self.text;
        let bad = || {
            let list: Vec<&str> = types.iter().map(|t| t.resolve_unknown().name()).collect();
            let e = DbError::new(
                SqlState::UndefinedFunction,
                format!("function {name}({}) does not exist", list.join(", ")),
            )
            .with_hint("No function matches the given name and argument types. You might need to add explicit type casts.");
            err_at(e, text, f.location)
        };
        if kind == functions::SrfKind::Unnest && types == [DataType::TsVector] {
            kind = functions::SrfKind::Set(nestor_types::set_fns::SetFn::TsUnnest);
        }
        // The checks each populated record needs (its domains').
        let mut populate_checks = None;
        let ty = match kind {
            functions::SrfKind::Set(nestor_types::set_fns::SetFn::Populate {
                json,
                base,
                set,
                ..
            }) => {
                if !base {
                    return Err(err_at(functions::record_context(), self.text, f.location));
                }
                let first = types.first().copied().unwrap_or(DataType::Unknown);
                let rt = functions::populate_base(&name, first)
                    .map_err(|e| err_at(e, self.text, f.location))?;
                let set_fn = nestor_types::set_fns::SetFn::Populate {
                    rt,
                    json,
                    base,
                    set,
                };
                kind = functions::SrfKind::Set(set_fn);
                populate_checks = match domain::base_domain(args.first()) {
                    Some(c) => Some(c),
                    None => domain::contained_checks(
                        self.catalog,
                        self.eval,
                        self.plan_query,
                        DataType::Record(rt),
                    )?,
                };
                let (params, _) = set_fn
                    .bind(&types)
                    .map_err(|e| err_at(e, self.text, f.location))?;
                let mut coerced = Vec::with_capacity(args.len());
                for ((e, from), want) in args.into_iter().zip(&types).zip(params) {
                    coerced.push(self.coerce(e, *from, want)?);
                }
                args = coerced;
                DataType::Record(rt)
            }
            functions::SrfKind::Set(set_fn) => {
                let (params, out) = set_fn
                    .bind(&types)
                    .map_err(|e| err_at(e, self.text, f.location))?;
                let mut coerced = Vec::with_capacity(args.len());
                for ((e, from), want) in args.into_iter().zip(&types).zip(params) {
                    coerced.push(self.coerce(e, *from, want)?);
                }
                args = coerced;
                match out.as_slice() {
                    [(_, ty)] => *ty,
                    _ => DataType::Record(nestor_types::datatype::record_type(
                        out.iter().map(|(n, t)| (n.to_string(), *t)).collect(),
                    )),
                }
            }
            functions::SrfKind::JsonbPathQuery => {
                return Err(DbError::internal("jsonb_path_query is bound above"))
            }
            // information_schema._pg_expandarray(anyarray): each element
            // with its 1-based position, as a record (x, n).
            functions::SrfKind::ExpandArray => match types.as_slice() {
                [t] if t.is_array() => DataType::Record(nestor_types::datatype::record_type(vec![
                    ("x".into(), t.element().expect("an array")),
                    ("n".into(), DataType::Int4),
                ])),
                _ => return Err(bad()),
            },
            functions::SrfKind::Unnest => match types.as_slice() {
                [t] if t.is_array() => t.element().expect("an array"),
                _ => return Err(bad()),
            },
            functions::SrfKind::GenerateSubscripts => {
                if !(2..=3).contains(&types.len()) || !types[0].is_array() {
                    return Err(bad());
                }
                let dim = args.remove(1);
                let dim = self.coerce(dim, types[1], DataType::Int4)?;
                args.insert(1, dim);
                if types.len() == 3 {
                    let rev = args.remove(2);
                    args.push(self.coerce(rev, types[2], DataType::Bool)?);
                }
                DataType::Int4
            }
            functions::SrfKind::GenerateSeries => {
                if !(2..=3).contains(&types.len()) {
                    return Err(bad());
                }
                // Over timestamps: the series as an array, unnested.
                if let Some(t) = functions::timestamp_series_type(&types) {
                    let wants = [t, t, DataType::Interval(None)];
                    let mut coerced = Vec::with_capacity(args.len());
                    for ((e, from), want) in args.into_iter().zip(types.iter()).zip(wants) {
                        coerced.push(self.coerce(e, *from, want)?);
                    }
                    let series = Func::Library(nestor_types::datetime_fns::timestamp_series_fn());
                    let array = Expr::Func(series, coerced);
                    return Ok((
                        Expr::Func(Func::Srf(functions::SrfKind::Unnest), vec![array]),
                        t,
                    ));
                }
                let t = functions::series_type(self.common_type(&types, "generate_series")?)?;
                let mut coerced = Vec::with_capacity(args.len());
                for (e, from) in args.into_iter().zip(types.iter()) {
                    coerced.push(self.coerce(e, *from, t)?);
                }
                args = coerced;
                t
            }
        };
        let call = Expr::Func(Func::Srf(kind), args);
        Ok(match populate_checks {
            Some(checks) => (
                Expr::Domain(Box::new(crate::ir::DomainCoerce {
                    arg: call,
                    checks,
                    at: None,
                })),
                ty,
            ),
            None => (call, ty),
        })
    }

    /// Run `f` where window functions are refused with `msg` (42P20),
    /// the window context restored after.
    pub(crate) fn without_windows<T>(
        &mut self,
        msg: &'static str,
        f: impl FnOnce(&mut Self) -> Result<T, DbError>,
    ) -> Result<T, DbError> {
        let saved = std::mem::replace(
            &mut self.window,
            WinCtx::NotAllowed(msg, SqlState::WindowingError),
        );
        let r = f(self);
        self.window = saved;
        r
    }

    /// Run `f` where an aggregate's arguments are bound: aggregates and
    /// window functions may not appear there (42803).
    pub(crate) fn in_agg_args<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, DbError>,
    ) -> Result<T, DbError> {
        let saved = std::mem::replace(&mut self.agg, AggCtx::NotAllowed(AGG_ARGS));
        let saved_window = std::mem::replace(
            &mut self.window,
            WinCtx::NotAllowed(
                "aggregate function calls cannot contain window function calls",
                SqlState::GroupingError,
            ),
        );
        let bound = f(self);
        self.agg = saved;
        self.window = saved_window;
        bound
    }

    /// An aggregate's FILTER condition, where aggregates of this level are
    /// "not allowed in FILTER" (PostgreSQL's message, not the nesting one).
    fn bind_agg_filter(&mut self, n: &Node) -> Result<Expr, DbError> {
        let saved = std::mem::replace(&mut self.agg, AggCtx::NotAllowed("FILTER"));
        let bound = self.bind_bool(n, "FILTER");
        self.agg = saved;
        bound
    }

    /// `ORDER BY` inside an aggregate call (or a window), with each key's
    /// type.
    fn bind_order_typed(&mut self, keys: &[Node]) -> Result<Vec<(AggOrder, DataType)>, DbError> {
        let mut out = Vec::with_capacity(keys.len());
        for k in keys {
            let NodeEnum::SortBy(sb) = node(k)? else {
                return Err(unsupported_node(node(k)?));
            };
            let (key, ty) = self.bind(req(&sb.node)?)?;
            let desc = if sb.use_op.is_empty() {
                sb.sortby_dir == pb::SortByDir::SortbyDesc as i32
            } else {
                using_descending(&names(&sb.use_op), ty)?
            };
            let nulls_first = match pb::SortByNulls::try_from(sb.sortby_nulls) {
                Ok(pb::SortByNulls::SortbyNullsFirst) => true,
                Ok(pb::SortByNulls::SortbyNullsLast) => false,
                _ => desc,
            };
            out.push((
                AggOrder {
                    key,
                    desc,
                    nulls_first,
                },
                ty,
            ));
        }
        Ok(out)
    }

    /// The bound argument of an aggregate (None for count(*)), its type,
    /// and string_agg's constant delimiter.
    fn bind_agg_args(
        &mut self,
        func: AggFunc,
        args: &[Node],
    ) -> Result<(Option<Expr>, DataType, Option<Value>), DbError> {
        let mut bound = Vec::with_capacity(args.len());
        for a in args {
            bound.push(self.bind(a)?);
        }
        self.agg_args(func, bound)
    }

    /// [`Binder::bind_agg_args`] over arguments already bound (as
    /// written, before the aggregate's coercions).
    fn agg_args(
        &mut self,
        func: AggFunc,
        bound: Vec<(Expr, DataType)>,
    ) -> Result<(Option<Expr>, DataType, Option<Value>), DbError> {
        if let AggFunc::Regr(agg) = func {
            return self.regr_args(agg, bound);
        }
        let mut rest = bound.into_iter();
        let Some((e, t)) = rest.next() else {
            return Ok((None, DataType::Int8, None));
        };
        match func {
            // The value as json(b), as to_json / to_jsonb make it.
            AggFunc::JsonAgg { binary, .. } => {
                // A record is an object of its fields (row_to_json).
                if let DataType::Record(rt) = t {
                    let obj = Expr::Func(Func::RowToJson(rt, binary), vec![e]);
                    return Ok((Some(obj), t, None));
                }
                let single = Func::JsonBuild {
                    object: false,
                    binary,
                    single: true,
                    json_args: 0,
                };
                return Ok((Some(Expr::Func(single, vec![e])), t, None));
            }
            // The pair as jsonb_build_array(key, value).
            AggFunc::JsonObjectAgg { .. } => {
                let Some((v, _)) = rest.next() else {
                    return Err(DbError::new(
                        SqlState::UndefinedFunction,
                        "function json_object_agg with 1 argument does not exist",
                    ));
                };
                let pair = Func::JsonBuild {
                    object: false,
                    binary: true,
                    single: false,
                    json_args: 0,
                };
                return Ok((Some(Expr::Func(pair, vec![e, v])), t, None));
            }
            AggFunc::StringAgg => {}
            _ => return Ok((Some(e), t, None)),
        }
        // string_agg(text, text) or string_agg(bytea, bytea).
        let (d, dt) = rest
            .next()
            .ok_or_else(|| DbError::internal("string_agg without its delimiter"))?;
        let st = match (t, dt) {
            (DataType::Bytea, DataType::Bytea | DataType::Unknown)
            | (DataType::Unknown, DataType::Bytea) => DataType::Bytea,
            (a, b)
                if [a, b]
                    .iter()
                    .all(|x| x.is_string() || *x == DataType::Unknown) =>
            {
                DataType::Text
            }
            _ => {
                return Err(DbError::new(
                    SqlState::UndefinedFunction,
                    format!(
                        "function string_agg({}, {}) does not exist",
                        t.name(),
                        dt.name()
                    ),
                )
                .with_hint("No function matches the given name and argument types. You might need to add explicit type casts."))
            }
        };
        let e = self.coerce(e, t, st)?;
        match self.coerce(d, dt, st)? {
            Expr::Const(v) => Ok((Some(e), st, Some(v))),
            // Each row's own delimiter: the pair (value, delimiter).
            d => Ok((Some(Expr::Func(Func::RowCtor, vec![e, d])), st, None)),
        }
    }

    /// The `(y, x)` of regr_* and the other binary aggregates: two
    /// arguments that pass as float8, as the record of the two float8s.
    fn regr_args(
        &mut self,
        agg: RegrAgg,
        bound: Vec<(Expr, DataType)>,
    ) -> Result<(Option<Expr>, DataType, Option<Value>), DbError> {
        let float = |t: DataType| t.base().is_numeric() || t == DataType::Unknown;
        if bound.len() != 2 || !bound.iter().all(|(_, t)| float(*t)) {
            let types: Vec<&str> = bound.iter().map(|(_, t)| t.name()).collect();
            return Err(DbError::new(
                SqlState::UndefinedFunction,
                format!("function {}({}) does not exist", agg.name(), types.join(", ")),
            )
            .with_hint("No function matches the given name and argument types. You might need to add explicit type casts."));
        }
        let mut pair = Vec::with_capacity(2);
        for (e, t) in bound {
            pair.push(self.coerce(e, t, DataType::Float8)?);
        }
        let row = Expr::Func(Func::RowCtor, pair);
        Ok((Some(row), DataType::Float8, None))
    }

    fn bind_sublink(&mut self, s: &pb::SubLink) -> Result<(Expr, DataType), DbError> {
        let kind = pb::SubLinkType::try_from(s.sub_link_type).unwrap_or(pb::SubLinkType::Undefined);
        let lhs = match (&s.testexpr, kind) {
            (Some(t), pb::SubLinkType::AnySublink | pb::SubLinkType::AllSublink) => {
                Some(self.bind(t)?)
            }
            _ => None,
        };
        let mark = self.outer_uses.len();
        let (mut plan, cols, correlated) = self.plan_sublink_query(s)?;
        let cur = self.level();
        let id = self.fresh_id();
        if correlated {
            let mut reads: Vec<usize> = self.outer_uses[mark..]
                .iter()
                .filter(|(l, _)| *l == cur)
                .map(|(_, c)| *c)
                .collect();
            reads.sort_unstable();
            reads.dedup();
            self.sub_reads.insert(id, reads);
        }
        let (kind, ty) = match kind {
            pb::SubLinkType::ExistsSublink => (SubKind::Exists, DataType::Bool),
            pb::SubLinkType::ExprSublink if cols.len() == 1 => (SubKind::Scalar, cols[0].ty),
            pb::SubLinkType::ExprSublink => {
                return Err(DbError::new(
                    SqlState::SyntaxError,
                    "subquery must return only one column",
                ))
            }
            pb::SubLinkType::AnySublink | pb::SubLinkType::AllSublink => {
                let lhs = lhs.ok_or_else(|| DbError::internal("ANY without left operand"))?;
                let all = kind == pb::SubLinkType::AllSublink;
                (
                    self.quantified(s, lhs, &cols, &mut plan, all)?,
                    DataType::Bool,
                )
            }
            pb::SubLinkType::ArraySublink if cols.len() == 1 => {
                let t = cols[0].ty.resolve_unknown();
                if let Some(elem) = t.element().filter(|_| t.is_array()) {
                    // Arrays stack into one of a dimension more.
                    (
                        SubKind::Array {
                            elem,
                            of_arrays: true,
                        },
                        t,
                    )
                } else {
                    let at = t.array_of().ok_or_else(|| no_array_type(t))?;
                    (
                        SubKind::Array {
                            elem: t.base(),
                            of_arrays: false,
                        },
                        at,
                    )
                }
            }
            pb::SubLinkType::ArraySublink => {
                return Err(DbError::new(
                    SqlState::SyntaxError,
                    "subquery must return only one column",
                ))
            }
            pb::SubLinkType::RowcompareSublink => {
                // (a, b) op (SELECT x, y): the row against the subquery's
                // single row (NULL when there is none).
                let (le, lt) = match &s.testexpr {
                    Some(t) => self.bind(t)?,
                    None => return Err(DbError::internal("row comparison without left operand")),
                };
                let Expr::Func(Func::RowCtor, fields) = le else {
                    return Err(DbError::unsupported("row comparison with a subquery"));
                };
                let op = names(&s.oper_name)
                    .last()
                    .cloned()
                    .unwrap_or_else(|| "=".into());
                let cmp = row_cmp_op(&op)?;
                let (lhs, projected) = self.row_against_subquery(fields, lt, &cols, &op)?;
                let sub = Expr::Sub(Arc::new(SubQuery {
                    kind: SubKind::Scalar,
                    plan: Arc::new(Plan::Project {
                        input: Box::new(plan),
                        exprs: vec![projected],
                    }),
                    level: cur,
                    correlated,
                    id,
                    remap: None,
                }));
                return Ok((
                    Expr::Func(Func::RowCompare(cmp), vec![lhs, sub]),
                    DataType::Bool,
                ));
            }
            _ => return Err(DbError::unsupported("row subqueries")),
        };
        Ok((
            Expr::Sub(Arc::new(SubQuery {
                kind,
                plan: Arc::new(plan),
                level: cur,
                correlated,
                id,
                remap: None,
            })),
            ty,
        ))
    }

    /// The query of a sublink, planned one level down: its plan, output
    /// columns and whether it reads the enclosing query's columns.
    fn plan_sublink_query(
        &mut self,
        s: &pb::SubLink,
    ) -> Result<(Plan, Vec<OutCol>, bool), DbError> {
        let sel = match node(req(&s.subselect)?)? {
            NodeEnum::SelectStmt(sel) => sel,
            other => return Err(unsupported_node(other)),
        };
        let saved_agg = self.agg;
        let saved_window = self.window;
        let saved_windows = std::mem::take(&mut self.windows);
        let planned = (self.plan_query)(self, sel);
        self.agg = saved_agg;
        self.window = saved_window;
        self.windows = saved_windows;
        let correlated = self.last_correlated;
        let (plan, cols) = planned?;
        Ok((plan, cols, correlated))
    }

    /// `UPDATE ... SET (a, b, ...) = (SELECT x, y, ...)`: the subquery's
    /// single row as a record (NULL without a row; 21000 for more than
    /// one) and its columns' types; 42601 unless it has `n` columns.
    pub(crate) fn bind_multiassign_sublink(
        &mut self,
        s: &pb::SubLink,
        n: usize,
    ) -> Result<(Expr, Vec<DataType>), DbError> {
        let (plan, cols, correlated) = self.plan_sublink_query(s)?;
        if cols.len() != n {
            let e = DbError::new(
                SqlState::SyntaxError,
                "number of columns does not match number of values",
            );
            return Err(err_at(e, self.text, s.location));
        }
        let level = self.level();
        let id = self.fresh_id();
        let row = Expr::Func(Func::RowCtor, (0..n).map(Expr::Col).collect());
        let sub = Expr::Sub(Arc::new(SubQuery {
            kind: SubKind::Scalar,
            plan: Arc::new(Plan::Project {
                input: Box::new(plan),
                exprs: vec![row],
            }),
            level,
            correlated,
            id,
            remap: None,
        }));
        Ok((sub, cols.iter().map(|c| c.ty).collect()))
    }

    /// A row constructor's fields against a subquery's columns: the row
    /// with each field coerced to the common type with its column, and
    /// the record of the columns coerced alike (an expression over the
    /// subquery's output row).
    fn row_against_subquery(
        &mut self,
        fields: Vec<Expr>,
        lt: DataType,
        cols: &[OutCol],
        op: &str,
    ) -> Result<(Expr, Expr), DbError> {
        let DataType::Record(r) = lt else {
            return Err(DbError::internal("row constructor without a record type"));
        };
        if fields.len() != cols.len() {
            return Err(DbError::new(
                SqlState::SyntaxError,
                if fields.len() < cols.len() {
                    "subquery has too many columns"
                } else {
                    "subquery has too few columns"
                },
            ));
        }
        let (mut lefts, mut rights) = (Vec::new(), Vec::new());
        for (i, (e, c)) in fields.into_iter().zip(cols).enumerate() {
            let ft = r.fields[i].1;
            let (le, re, _) = self.cmp_operands(e, ft, Expr::Col(i), c.ty, op, false)?;
            lefts.push(le);
            rights.push(re);
        }
        Ok((
            Expr::Func(Func::RowCtor, lefts),
            Expr::Func(Func::RowCtor, rights),
        ))
    }

    /// `lhs op ANY/ALL (subquery)`: the operator and the left operand
    /// coerced to the common type with the subquery's column.
    fn quantified(
        &mut self,
        s: &pb::SubLink,
        (le, lt): (Expr, DataType),
        cols: &[OutCol],
        plan: &mut Plan,
        all: bool,
    ) -> Result<SubKind, DbError> {
        let op = names(&s.oper_name)
            .last()
            .cloned()
            .unwrap_or_else(|| "=".into());
        if let Expr::Func(Func::RowCtor, fields) = le {
            let cmp = row_cmp_op(&op)?;
            let (lhs, projected) = self.row_against_subquery(fields, lt, cols, &op)?;
            let input = std::mem::replace(plan, Plan::Single);
            *plan = Plan::Project {
                input: Box::new(input),
                exprs: vec![projected],
            };
            return Ok(SubKind::Any {
                lhs: Box::new(lhs),
                op: cmp,
                all,
            });
        }
        if cols.len() != 1 {
            return Err(DbError::new(
                SqlState::SyntaxError,
                "subquery has too many columns",
            ));
        }
        let cmp = match op.as_str() {
            "=" => Cmp::Eq,
            "<>" => Cmp::Ne,
            "<" => Cmp::Lt,
            "<=" => Cmp::Le,
            ">" => Cmp::Gt,
            ">=" => Cmp::Ge,
            _ => {
                return Err(DbError::unsupported(format!(
                    "operator {op} with a subquery"
                )))
            }
        };
        let st = cols[0].ty;
        let ty = unify(lt, st).ok_or_else(|| no_operator(&op, lt, st))?;
        let same_char = matches!(lt, DataType::Char(Some(_))) && lt == st;
        if matches!(ty, DataType::Char(_)) && !(same_char && matches!(cmp, Cmp::Eq | Cmp::Ne)) {
            // bpchar comparison (see bpchar_pair): both sides without
            // their trailing blanks.
            let le = self.coerce(le, lt, DataType::Char(None))?;
            let le = self.coerce(le, DataType::Char(None), DataType::Text)?;
            let input = std::mem::replace(plan, Plan::Single);
            *plan = Plan::Project {
                input: Box::new(input),
                exprs: vec![Expr::Func(Func::BpcharToText, vec![Expr::Col(0)])],
            };
            return Ok(SubKind::Any {
                lhs: Box::new(le),
                op: cmp,
                all,
            });
        }
        let le = if lt.is_integer() && st.is_integer() {
            le
        } else {
            self.coerce(le, lt, ty)?
        };
        Ok(SubKind::Any {
            lhs: Box::new(le),
            op: cmp,
            all,
        })
    }
}

/// The operator with its operands swapped (`<` for `>`).
fn flip_op(op: &str) -> &str {
    match op {
        "<" => ">",
        ">" => "<",
        "<=" => ">=",
        ">=" => "<=",
        o => o,
    }
}

/// Whether pg_cast has an assignment (or implicit) cast between the two
/// types, for the types whose casts are only known there (money, time with
/// time zone).
/// Whether a value of type `from` may be assigned to `to` by the
/// built-in casts (PostgreSQL's COERCION_ASSIGNMENT, user casts aside).
pub fn assignment_compatible(from: DataType, to: DataType) -> bool {
    from == DataType::Unknown
        || from.base() == to.base()
        || (from.is_numeric() && to.is_numeric())
        || (from.is_string() && to.is_string())
        || unify(from, to).is_some()
        || to.is_string()
        || assignment_cast(from, to)
}

fn assignment_cast(from: DataType, to: DataType) -> bool {
    use nestor_types::cast::{coercion, Coercion};
    let listed = |t: DataType| matches!(t, DataType::Money | DataType::TimeTz(_));
    (listed(from) || listed(to)) && coercion(from, to).is_some_and(|c| c <= Coercion::Assignment)
}

/// The type a RANGE frame offset takes for an ORDER BY key of type `key`
/// (the offset argument of PostgreSQL's in_range support functions).
fn range_offset_type(key: DataType) -> Result<DataType, DbError> {
    use DataType as T;
    Ok(match key {
        T::Int2 | T::Int4 | T::Int8 => T::Int8,
        T::Float4 | T::Float8 => T::Float8,
        T::Numeric(_) => T::NUMERIC,
        T::Date
        | T::Timestamp(_)
        | T::TimestampTz(_)
        | T::Time(_)
        | T::TimeTz(_)
        | T::Interval(_) => T::Interval(None),
        t => {
            // Named by its B-tree operator class's type (text_ops for
            // varchar).
            let opclass_type = match t {
                T::Varchar(_) => T::Text,
                t => t,
            };
            return Err(DbError::new(
                SqlState::FeatureNotSupported,
                format!(
                    "RANGE with offset PRECEDING/FOLLOWING is not supported for column type {}",
                    opclass_type.name()
                ),
            ));
        }
    })
}

/// The name a relation in FROM or a modified relation goes by: its alias,
/// else `name`.
pub(crate) fn alias_or(rv: &pb::RangeVar, name: &str) -> String {
    rv.alias
        .as_ref()
        .map_or_else(|| name.to_string(), |a| a.aliasname.clone())
}

/// `(case-insensitive, negated)` of a LIKE operator's name.
fn like_operator(op: &str) -> Option<(bool, bool)> {
    Some(match op {
        "~~" => (false, false),
        "~~*" => (true, false),
        "!~~" => (false, true),
        "!~~*" => (true, true),
        _ => return None,
    })
}

/// The regular-expression match operators: (case-insensitive, negated).
fn regex_operator(op: &str) -> Option<(bool, bool)> {
    Some(match op {
        "~" => (false, false),
        "~*" => (true, false),
        "!~" => (false, true),
        "!~*" => (true, true),
        _ => return None,
    })
}

/// The comparison an operator name stands for, if it is one of the six.
fn cmp_of(op: &str) -> Option<Cmp> {
    Some(match op {
        "=" => Cmp::Eq,
        "<>" | "!=" => Cmp::Ne,
        "<" => Cmp::Lt,
        "<=" => Cmp::Le,
        ">" => Cmp::Gt,
        ">=" => Cmp::Ge,
        _ => return None,
    })
}

/// The comparison a row operator names (PostgreSQL: 42883 for others).
fn row_cmp_op(op: &str) -> Result<Cmp, DbError> {
    cmp_of(op).ok_or_else(|| DbError::unsupported(format!("operator {op} between rows")))
}

/// `count()`: PostgreSQL's 42809 (only count(*) takes no argument).
/// The clause name an aggregate's own arguments are bound under: another
/// aggregate there is PostgreSQL's "cannot be nested".
const AGG_ARGS: &str = "aggregate function calls";

/// `ORDER BY key USING op` in an aggregate: whether `op` orders
/// descending. `<` and `>` are every type's B-tree orderings; `~<~` and
/// `~>~` the text pattern ones, which are the same here, where text
/// compares bytewise (the C collation). Others are 0A000.
fn using_descending(op: &[String], ty: DataType) -> Result<bool, DbError> {
    let op = op.last().map(String::as_str).unwrap_or("");
    let text = ty.is_string() || ty == DataType::Unknown;
    match op {
        "<" => Ok(false),
        ">" => Ok(true),
        "~<~" if text => Ok(false),
        "~>~" if text => Ok(true),
        _ => Err(DbError::unsupported(format!(
            "ORDER BY USING operator {op} in an aggregate"
        ))),
    }
}

/// `agg(DISTINCT args ORDER BY keys)`: each key must be one of the
/// arguments as written, before their coercion to the aggregate's types
/// (42P10, as PostgreSQL's transformAggregateCall), since the rows
/// DISTINCT keeps are ordered by them. The error points at the key.
fn distinct_order_in_args(
    args: &[(&Expr, DataType)],
    order: &[(AggOrder, DataType)],
    f: &pb::FuncCall,
    text: &str,
) -> Result<(), DbError> {
    // A cast to the type the value has is no cast (PostgreSQL's parser
    // drops it): `c::text` of a text `c` is `c`.
    let same = |(a, at): &(&Expr, DataType), (k, kt): (&Expr, DataType)| {
        *a == k || matches!(a, Expr::Cast(inner, t) if **inner == *k && *t == kt && *at == kt)
    };
    let Some(i) = order
        .iter()
        .position(|(o, t)| !args.iter().any(|a| same(a, (&o.key, *t))))
    else {
        return Ok(());
    };
    let at = match f.agg_order.get(i).and_then(|n| n.node.as_ref()) {
        Some(NodeEnum::SortBy(sb)) => sb
            .node
            .as_deref()
            .and_then(|n| n.node.as_ref())
            .map_or(-1, nestor_parser::ast::expr_location),
        _ => -1,
    };
    Err(err_at(
        DbError::new(
            SqlState::InvalidColumnReference,
            "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list",
        ),
        text,
        at,
    ))
}

fn parameterless(func: AggFunc, f: &pb::FuncCall, text: &str) -> Result<(), DbError> {
    if func == AggFunc::Count && f.args.is_empty() && !f.agg_star {
        return Err(err_at(
            DbError::new(
                SqlState::WrongObjectType,
                "count(*) must be used to call a parameterless aggregate function",
            ),
            text,
            f.location,
        ));
    }
    Ok(())
}

/// The fields of a row constructor (`ROW(a, b)`, `(a, b)`).
/// A row constructor compared with a composite value (record_eq and
/// friends): the fields' types must be the same (an unknown literal is
/// `unknown`, as PostgreSQL leaves it in a ROW()), and so must their
/// number (42804).
fn check_record_operands(l: &Node, lt: DataType, r: &Node, rt: DataType) -> Result<(), DbError> {
    let (DataType::Record(a), DataType::Record(b)) = (lt, rt) else {
        return Ok(());
    };
    let field_types = |n: &Node, t: &nestor_types::datatype::RecordType| -> Vec<DataType> {
        match row_args(n) {
            Some(args) => args
                .iter()
                .zip(&t.fields)
                .map(|(a, (_, ft))| match a.node.as_ref() {
                    Some(NodeEnum::AConst(_)) if *ft == DataType::Text => DataType::Unknown,
                    _ => *ft,
                })
                .collect(),
            None => t.fields.iter().map(|(_, ft)| *ft).collect(),
        }
    };
    same_field_types(&field_types(l, a), &field_types(r, b))
}

/// record_eq's check of two records' fields: as many, of the same types.
fn same_field_types(x: &[DataType], y: &[DataType]) -> Result<(), DbError> {
    let mismatch = |m: String| DbError::new(SqlState::DatatypeMismatch, m).unpositioned();
    if x.len() != y.len() {
        return Err(mismatch(
            "cannot compare record types with different numbers of columns".into(),
        ));
    }
    for (i, (p, q)) in x.iter().zip(y).enumerate() {
        if p.oid() != q.oid() {
            return Err(mismatch(format!(
                "cannot compare dissimilar column types {} and {} at record column {}",
                p.name(),
                q.name(),
                i + 1
            )));
        }
    }
    Ok(())
}

fn row_args(n: &Node) -> Option<&[Node]> {
    match n.node.as_ref() {
        Some(NodeEnum::RowExpr(r)) => Some(&r.args),
        _ => None,
    }
}

/// An A_Const as a bound constant.
/// A `B'0101'` / `X'1F'` constant is a `bit` value (the parser gives it
/// as `b0101` / `x1F`); its digits are checked here (22P02).
pub(crate) fn bind_const(c: &pb::AConst) -> Result<(Expr, DataType), DbError> {
    if c.isnull {
        return Ok((Expr::Const(Value::Null), DataType::Unknown));
    }
    if let Some(a_const::Val::Bsval(b)) = &c.val {
        let bits = nestor_types::bits::parse(&b.bsval)?;
        return Ok((Expr::Const(bits.value()), DataType::Bit(None)));
    }
    Ok(match &c.val {
        Some(a_const::Val::Ival(i)) => (Expr::Const(Value::Int4(i.ival)), DataType::Int4),
        Some(a_const::Val::Fval(f)) => {
            if let Ok(i) = f.fval.parse::<i64>() {
                // As PostgreSQL's make_const: an oversize integer literal
                // that fits in int4 after all (-2147483648) is an int4.
                if let Ok(i) = i32::try_from(i) {
                    return Ok((Expr::Const(Value::Int4(i)), DataType::Int4));
                }
                return Ok((Expr::Const(Value::Int8(i)), DataType::Int8));
            }
            match nestor_types::Numeric::parse(&f.fval) {
                Ok(n) => (Expr::Const(valops::numeric_value(n)), DataType::NUMERIC),
                Err(_) => (Expr::Const(Value::Null), DataType::NUMERIC),
            }
        }
        Some(a_const::Val::Boolval(b)) => (Expr::Const(Value::Bool(b.boolval)), DataType::Bool),
        Some(a_const::Val::Sval(s)) => (
            Expr::Const(Value::Text(Arc::from(s.sval.as_str()))),
            DataType::Unknown,
        ),
        Some(a_const::Val::Bsval(_)) | None => (Expr::Const(Value::Null), DataType::Unknown),
    })
}

/// The comparison a text_pattern_ops operator stands for.
fn pattern_cmp(op: &str) -> Option<Cmp> {
    Some(match op {
        "~<~" => Cmp::Lt,
        "~<=~" => Cmp::Le,
        "~>=~" => Cmp::Ge,
        "~>~" => Cmp::Gt,
        _ => return None,
    })
}

/// A function call's name, schema-qualified names of pg_catalog stripped.
fn function_name(f: &pb::FuncCall) -> String {
    let parts = names(&f.funcname);
    match parts.as_slice() {
        [s, n] if s == "pg_catalog" => n.clone(),
        [n] => n.clone(),
        _ => parts.join("."),
    }
}

/// Whether `name` is an aggregate function.
/// The output function that names the objects of a reg* type, or of an
/// array of one (where such a value becomes text).
pub(crate) fn reg_name_fn(t: DataType) -> Option<Func> {
    match t {
        DataType::Reg(k) => Some(Func::Catalog(CatalogFn::RegName(k))),
        DataType::Array(DataType::Reg(k)) => Some(Func::Catalog(CatalogFn::RegNames(*k))),
        _ => None,
    }
}

pub(crate) fn is_aggregate(name: &str) -> bool {
    agg_func(name, false).is_some() || ordered_set::by_name(name).is_some()
}

fn agg_func(name: &str, star: bool) -> Option<AggFunc> {
    Some(match name {
        "count" if star => AggFunc::CountStar,
        "count" => AggFunc::Count,
        "sum" => AggFunc::Sum,
        "avg" => AggFunc::Avg,
        "min" => AggFunc::Min,
        "max" => AggFunc::Max,
        "bool_and" | "every" => AggFunc::BoolAnd,
        "bool_or" => AggFunc::BoolOr,
        "range_intersect_agg" => AggFunc::RangeIntersect,
        "bit_and" => AggFunc::Bitwise(b'&'),
        "bit_or" => AggFunc::Bitwise(b'|'),
        "bit_xor" => AggFunc::Bitwise(b'#'),
        "string_agg" => AggFunc::StringAgg,
        "array_agg" => AggFunc::ArrayAgg,
        "json_agg" | "jsonb_agg" => AggFunc::JsonAgg {
            binary: name == "jsonb_agg",
            structured: false,
        },
        "json_object_agg" | "jsonb_object_agg" => AggFunc::JsonObjectAgg {
            binary: name == "jsonb_object_agg",
        },
        _ => match RegrAgg::by_name(name) {
            Some(agg) => AggFunc::Regr(agg),
            None => AggFunc::Moment(nestor_types::moments::MomentAgg::by_name(name)?),
        },
    })
}

fn agg_type(f: AggFunc, arg: DataType, name: &str) -> Result<DataType, DbError> {
    use DataType as T;
    let bad = || {
        DbError::new(
            SqlState::UndefinedFunction,
            format!("function {name}({}) does not exist", arg.resolve_unknown().name()),
        )
        .with_hint("No function matches the given name and argument types. You might need to add explicit type casts.")
    };
    Ok(match f {
        AggFunc::CountStar | AggFunc::Count => T::Int8,
        AggFunc::Sum => match arg.base() {
            T::Int2 | T::Int4 => T::Int8,
            T::Int8 | T::Numeric(_) => T::NUMERIC,
            T::Float4 => T::Float4,
            T::Float8 | T::Unknown => T::Float8,
            T::Interval(_) | T::Time(_) => T::Interval(None),
            T::Money => T::Money,
            _ => return Err(bad()),
        },
        AggFunc::Avg => match arg.base() {
            T::Int2 | T::Int4 | T::Int8 | T::Numeric(_) => T::NUMERIC,
            T::Float4 | T::Float8 | T::Unknown => T::Float8,
            T::Interval(_) | T::Time(_) => T::Interval(None),
            _ => return Err(bad()),
        },
        // Ranges have no max/min (PostgreSQL has no such aggregates).
        AggFunc::Min | AggFunc::Max if matches!(arg, T::Range(_)) => return Err(bad()),
        // Bit strings have no min/max (no such aggregates in PostgreSQL).
        AggFunc::Min | AggFunc::Max if nestor_types::bits::is_bits(arg) => return Err(bad()),
        AggFunc::Min | AggFunc::Max => arg.resolve_unknown(),
        AggFunc::BoolAnd | AggFunc::BoolOr => T::Bool,
        // bit_and(bit) and friends: a varbit casts to bit.
        AggFunc::Bitwise(_) => match arg.base() {
            t @ (T::Int2 | T::Int4 | T::Int8) => t,
            T::Bit(_) | T::VarBit(_) => T::Bit(None),
            // An untyped literal fits each of its argument types.
            T::Unknown => {
                return Err(DbError::new(
                    SqlState::AmbiguousFunction,
                    format!("function {name}(unknown) is not unique"),
                )
                .with_hint("Could not choose a best candidate function. You might need to add explicit type casts."))
            }
            _ => return Err(bad()),
        },
        AggFunc::StringAgg if arg == T::Bytea => T::Bytea,
        AggFunc::StringAgg => T::Text,
        AggFunc::ArrayAgg | AggFunc::ArrayAggArrays if arg.is_array() => arg,
        AggFunc::ArrayAgg | AggFunc::ArrayAggArrays => {
            arg.resolve_unknown().array_of().ok_or_else(bad)?
        }
        AggFunc::JsonAgg { binary: true, .. } | AggFunc::JsonObjectAgg { binary: true } => T::Jsonb,
        AggFunc::JsonAgg { .. } | AggFunc::JsonObjectAgg { .. } => T::Json,
        AggFunc::Moment(_) => match arg.base() {
            T::Int2 | T::Int4 | T::Int8 | T::Numeric(_) => T::NUMERIC,
            T::Float4 | T::Float8 | T::Unknown => T::Float8,
            _ => return Err(bad()),
        },
        AggFunc::Regr(agg) => agg.result_type(),
        AggFunc::RangeIntersect if matches!(arg, T::Range(_)) => arg,
        AggFunc::RangeIntersect => return Err(bad()),
        // Bound by bind::ordered_set, never through here.
        AggFunc::PercentileCont { .. }
        | AggFunc::PercentileDisc { .. }
        | AggFunc::Mode
        | AggFunc::Hypothetical(_)
        | AggFunc::User => return Err(bad()),
    })
}

/// What the argument's type tells an aggregate: json_agg lays out arrays
/// differently.
/// A DISTINCT aggregate without ORDER BY reads its input sorted, as
/// PostgreSQL's does (it sorts to find the duplicates): `array_agg(DISTINCT
/// x)` is `{a,b}` whatever order the rows come in, and a float sum adds in
/// that order. Aggregates whose result does not depend on the order keep
/// their hashed, unsorted path.
fn distinct_order(
    func: AggFunc,
    distinct: bool,
    arg: Option<&Expr>,
    order: Vec<AggOrder>,
) -> Vec<AggOrder> {
    let sensitive = matches!(
        func,
        AggFunc::StringAgg
            | AggFunc::ArrayAgg
            | AggFunc::ArrayAggArrays
            | AggFunc::Sum
            | AggFunc::Avg
            | AggFunc::Moment(_)
            | AggFunc::Regr(_)
    );
    match arg {
        Some(key) if distinct && sensitive && order.is_empty() => vec![AggOrder {
            key: key.clone(),
            desc: false,
            nulls_first: false,
        }],
        _ => order,
    }
}

fn refine_agg(f: AggFunc, arg: DataType) -> AggFunc {
    match f {
        AggFunc::JsonAgg { binary, .. } => AggFunc::JsonAgg {
            binary,
            structured: arg.is_array() || matches!(arg, DataType::Record(_)),
        },
        AggFunc::ArrayAgg if arg.is_array() => AggFunc::ArrayAggArrays,
        f => f,
    }
}

/// What errorMissingColumn's hint names (`Binder::missing_column`).
#[derive(Debug, PartialEq)]
enum Fuzzy {
    None,
    /// A column of exactly that name in this FROM item, not visible.
    Exact(String),
    /// The closest column (item, column).
    One(String, String),
    /// Two equally close ones.
    Two((String, String), (String, String)),
}

/// The farthest a suggested column (with its item's name) may be.
const FUZZY_DISTANCE_MAX: usize = 3;

/// PostgreSQL's searchRangeTableForCol and updateFuzzyAttrMatchState over
/// the FROM items of `scopes` (innermost level first; an item is the run of
/// columns of one range-variable name): the Levenshtein distance of each
/// column name to `name`, plus that of the item's name to `rel` when one
/// was given (items farther than FUZZY_DISTANCE_MAX skipped); at most two
/// equally close columns, none more than half of `name` away.
fn fuzzy_column(scopes: &[Scope], rel: Option<&str>, name: &str) -> Fuzzy {
    let mut distance = FUZZY_DISTANCE_MAX + 1;
    let mut first: Option<(String, String)> = None;
    let mut second: Option<(String, String)> = None;
    let mut first_is_match = false;
    for scope in scopes.iter().rev() {
        let mut at = 0;
        while at < scope.cols.len() {
            let item = scope.cols[at].rel.clone();
            let end = at
                + scope.cols[at..]
                    .iter()
                    .take_while(|c| c.rel == item)
                    .count();
            let cols = &scope.cols[at..end];
            at = end;
            if item.is_empty() {
                continue;
            }
            let penalty = rel.map_or(0, |r| levenshtein(r, &item));
            if penalty > FUZZY_DISTANCE_MAX {
                continue;
            }
            // The item's own columns (a JOIN USING copy included), not its
            // system columns or dropped ones.
            let own = cols
                .iter()
                .filter(|c| (!c.hidden || c.merged) && !c.name.is_empty());
            let mut exact = false;
            for c in own {
                exact |= c.name == name;
                if penalty > distance {
                    continue;
                }
                let d = levenshtein(&c.name, name);
                if d > name.chars().count() / 2 {
                    continue;
                }
                let d = d + penalty;
                let here = (item.clone(), c.name.clone());
                if d < distance {
                    distance = d;
                    (first, second, first_is_match) = (Some(here), None, true);
                } else if d == distance {
                    if second.is_some() {
                        // Too many equally close: none of them, and a
                        // closer one is needed.
                        (first, second, first_is_match) = (None, None, false);
                        distance = d - 1;
                    } else if first_is_match {
                        second = Some(here);
                    } else if distance <= FUZZY_DISTANCE_MAX {
                        (first, first_is_match) = (Some(here), true);
                    }
                }
            }
            if exact && penalty == 0 {
                return Fuzzy::Exact(item);
            }
        }
    }
    match (first, second) {
        (Some(a), Some(b)) => Fuzzy::Two(a, b),
        (Some((i, c)), None) => Fuzzy::One(i, c),
        _ => Fuzzy::None,
    }
}

/// The Levenshtein distance of two names (insertions, deletions and
/// substitutions each cost 1), in characters.
fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The fields of a whole-row reference (`Binder::whole_row`): a row
/// constructor, maybe under the CASE that makes a NULL-extended row NULL.
fn whole_row_fields(e: &Expr) -> Option<&[Expr]> {
    let row = match e {
        Expr::Case {
            operand: None,
            whens,
            else_: Some(row),
        } if whens.len() == 1 => row,
        e => e,
    };
    match row {
        Expr::Func(Func::RowCtor, fields) => Some(fields),
        _ => None,
    }
}

/// A reference from a LATERAL item of an UPDATE's FROM (a DELETE's
/// USING) to the target table `rel` (see [`Scope::lateral_target`]).
fn lateral_target_ref(rel: &str) -> DbError {
    DbError::new(
        SqlState::InvalidColumnReference,
        format!("invalid reference to FROM-clause entry for table \"{rel}\""),
    )
    .with_hint(format!(
        "There is an entry for table \"{rel}\", but it cannot be referenced from this part of the query."
    ))
}

/// A column of the FROM list the expression may not see (a JOIN's ON
/// clause referring to an earlier comma-separated item), worded as
/// PostgreSQL's errorMissingRTE.
fn unreachable_entry(rel: Option<&str>, name: &str, table: &str) -> DbError {
    match rel {
        Some(r) => DbError::new(
            SqlState::UndefinedTable,
            format!("invalid reference to FROM-clause entry for table \"{r}\""),
        )
        .with_hint(format!(
            "There is an entry for table \"{r}\", but it cannot be referenced from this part of the query."
        )),
        None => DbError::new(
            SqlState::UndefinedColumn,
            format!("column \"{name}\" does not exist"),
        )
        .with_hint(format!(
            "There is a column named \"{name}\" in table \"{table}\", but it cannot be referenced from this part of the query."
        )),
    }
}

/// A view's row type (see [`Binder::table_row_type`]): its columns, its
/// OID the view's.
fn view_row_type(v: &nestor_catalog::ViewDef, tn: &pb::TypeName) -> Result<DataType, DbError> {
    if !tn.array_bounds.is_empty() {
        return Err(DbError::unsupported(format!(
            "arrays of the row type of view {}",
            v.name
        )));
    }
    let def = nestor_types::composites::CompositeDef {
        oid: v.oid.0,
        array_oid: 0,
        relid: v.oid.0,
        name: v.name.clone(),
        owner: 0,
        attrs: v.columns.clone(),
        domains: vec![None; v.columns.len()],
    };
    Ok(nestor_types::composites::note_row_type(def).data_type())
}

/// The row type of FROM item `name` when it is a table whose row type
/// has fields of `types` (PostgreSQL's whole-row Var of a relation is of
/// the table's type, its fields named as the table's columns whatever
/// the alias calls them: `pg_typeof(t)` is the table, and a function
/// taking the table's row type takes it).
fn table_row_type(scope: &Scope, name: &str, types: &[DataType]) -> Option<(u32, DataType)> {
    let oid = scope.cols[scope.floor..]
        .iter()
        .find(|c| c.hidden && c.attnum == -1 && c.table_oid != 0 && c.rel == name)?
        .table_oid;
    let def = nestor_types::composites::lookup(oid).filter(|d| d.relid == oid)?;
    let same =
        def.attrs.len() == types.len() && def.attrs.iter().zip(types).all(|((_, t), u)| t == u);
    same.then(|| (oid, def.data_type()))
}

/// The type a reference `rel.col` (or unqualified) reads a JOIN USING
/// column as, when it means the merged column and that column's type
/// differs ([`ScopeCol::using_cast`]); None for `own.col` itself.
pub(crate) fn using_cast(col: &ScopeCol, rel: Option<&str>) -> Option<DataType> {
    let (to, own) = col.using_cast.as_ref()?;
    let own_ref = rel == Some(own.as_str()) && col.rel == *own;
    (!own_ref).then_some(*to)
}

/// `tableoid` of a plain table in `scope` (named `rel`, or the only one):
/// its OID, a constant, so table rows carry no such column (an
/// inheritance tree's scan has a real one, `select::inherit`).
fn plain_tableoid(scope: &Scope, rel: Option<&str>) -> Option<u32> {
    let mut tables = scope.cols[scope.floor..].iter().filter(|c| {
        c.hidden && c.attnum == -1 && c.table_oid != 0 && rel.is_none_or(|r| c.rel == r)
    });
    let first = tables.next()?;
    tables.next().is_none().then_some(first.table_oid)
}

/// PostgreSQL's parameter names (and defaults) of the built-ins that take
/// named arguments through `Binder::bind_named_library_args`.
fn library_param_names(name: &str) -> Option<&'static [(&'static str, Option<Value>)]> {
    use std::sync::LazyLock;
    static SET: LazyLock<Vec<(&str, Option<Value>)>> = LazyLock::new(|| {
        vec![
            ("jsonb_in", None),
            ("path", None),
            ("replacement", None),
            ("create_if_missing", Some(Value::Bool(true))),
            (
                "null_value_treatment",
                Some(Value::Text(Arc::from("use_json_null"))),
            ),
        ]
    });
    static INSERT: LazyLock<Vec<(&str, Option<Value>)>> = LazyLock::new(|| {
        vec![
            ("jsonb_in", None),
            ("path", None),
            ("replacement", None),
            ("insert_after", Some(Value::Bool(false))),
        ]
    });
    match name {
        "jsonb_set" => Some(&SET[..4]),
        "jsonb_set_lax" => Some(&SET[..]),
        "jsonb_insert" => Some(&INSERT[..]),
        _ => None,
    }
}

/// Whether `l op r` is a geometric operator's business: an operand is
/// geometric, or both are untyped literals around an operator only the
/// geometric types have (`'(0,0)' <-> '(1,1)'`).
fn geometric_operands(op: &str, l: DataType, r: DataType) -> bool {
    use nestor_types::geometry::catalog::is_geometric_operator;
    matches!(l, DataType::Geo(_))
        || matches!(r, DataType::Geo(_))
        || (l == DataType::Unknown && r == DataType::Unknown && is_geometric_operator(op))
}

/// The element type of a geometric type's raw subscripting, if it has one.
fn geo_element(t: DataType) -> Option<DataType> {
    match t {
        DataType::Geo(k) => nestor_types::geometry::catalog::subscript_element(k),
        _ => None,
    }
}

/// The first geometric field type of a record type (nested records
/// included), if any.
pub(crate) fn geo_field(t: DataType) -> Option<DataType> {
    match t {
        DataType::Record(r) => r.fields.iter().find_map(|(_, f)| match f {
            DataType::Geo(_) => Some(*f),
            f => geo_field(*f),
        }),
        _ => None,
    }
}
