//! Functions and procedures (PostgreSQL's pg_proc): what CREATE FUNCTION
//! and CREATE PROCEDURE store.
//!
//! A definition is immutable once published, like a table's; CREATE OR
//! REPLACE swaps in a new one (with the same OID) through the transaction's
//! undo log. The body is kept as the text the user wrote (PostgreSQL's
//! prosrc); the query engine compiles it on first use and keeps the
//! compiled form in [`FunctionDef::compiled`], which lives and dies with
//! the definition (a replaced function is compiled afresh).
//!
//! ```text
//!   functions: "add1" -> [ FunctionDef { oid 16390, args [(x, int4, IN)],
//!                                        returns int4, plpgsql,
//!                                        body "BEGIN RETURN x + 1; END" } ]
//!   overloads share a name and differ in their input argument types
//! ```

use std::any::Any;
use std::sync::{Arc, OnceLock};

use nestor_common::RelId;
use nestor_types::datatype::DataType;

/// How an argument passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgMode {
    In,
    Out,
    InOut,
    Variadic,
}

impl ArgMode {
    /// Whether a caller supplies it.
    pub fn is_input(self) -> bool {
        !matches!(self, ArgMode::Out)
    }

    /// Whether it is part of the result.
    pub fn is_output(self) -> bool {
        matches!(self, ArgMode::Out | ArgMode::InOut)
    }

    pub(crate) fn code(self) -> u8 {
        match self {
            ArgMode::In => b'i',
            ArgMode::Out => b'o',
            ArgMode::InOut => b'b',
            ArgMode::Variadic => b'v',
        }
    }

    pub(crate) fn from_code(c: u8) -> Option<ArgMode> {
        Some(match c {
            b'i' => ArgMode::In,
            b'o' => ArgMode::Out,
            b'b' => ArgMode::InOut,
            b'v' => ArgMode::Variadic,
            _ => return None,
        })
    }
}

/// One declared argument.
#[derive(Clone, Debug, PartialEq)]
pub struct FuncArg {
    /// Empty when the argument has no name (`$n` only).
    pub name: String,
    pub ty: DataType,
    /// The domain (pg_type OID) the argument was declared with; `ty` is its
    /// base type. A call checks the domain's constraints.
    pub domain: Option<u32>,
    pub mode: ArgMode,
    /// The DEFAULT expression as SQL text.
    pub default: Option<String>,
}

/// What a function returns.
#[derive(Clone, Debug, PartialEq)]
pub enum Returns {
    /// One value of a type (`void` is [`DataType::Void`]).
    Scalar(DataType),
    /// A row of named columns: OUT parameters, `RETURNS TABLE`, or a
    /// composite type.
    Row(Vec<(String, DataType)>),
    /// A table's row type (`RETURNS t`, `RETURNS SETOF t`): the table's
    /// columns at the time of the call, as PostgreSQL's composite types
    /// follow ALTER TABLE ([`FunctionDef::result_columns`]).
    RowType(RelId),
    /// `RETURNS trigger`.
    Trigger,
    /// `RETURNS record` without OUT parameters (column types come from the
    /// caller's column definition list).
    Record,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    Sql,
    PlPgSql,
}

impl Language {
    pub fn name(self) -> &'static str {
        match self {
            Language::Sql => "sql",
            Language::PlPgSql => "plpgsql",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Volatility {
    Immutable,
    Stable,
    Volatile,
}

impl Volatility {
    /// pg_proc.provolatile.
    pub fn code(self) -> char {
        match self {
            Volatility::Immutable => 'i',
            Volatility::Stable => 's',
            Volatility::Volatile => 'v',
        }
    }
}

/// What CREATE AGGREGATE adds to a function (PostgreSQL's pg_aggregate
/// row): the state type and the transition and final functions, kept by
/// name and resolved against the argument types at each call, as a call
/// of a function is.
#[derive(Clone, Debug, PartialEq)]
pub struct AggregateSpec {
    pub sfunc: String,
    pub stype: DataType,
    pub finalfunc: Option<String>,
    /// The initial state as text (NULL: the first non-NULL input, for a
    /// strict transition function).
    pub initcond: Option<String>,
    /// COMBINEFUNC: kept for pg_aggregate; there is no parallel
    /// aggregation to use it.
    pub combinefunc: Option<String>,
    /// FINALFUNC_EXTRA: the final function takes NULLs of the argument
    /// types after the state.
    pub finalfunc_extra: bool,
}

/// A function or procedure.
pub struct FunctionDef {
    pub oid: RelId,
    pub name: String,
    pub procedure: bool,
    pub args: Vec<FuncArg>,
    pub returns: Returns,
    /// `RETURNS SETOF ...` / `RETURNS TABLE (...)`.
    pub retset: bool,
    pub language: Language,
    /// The body as written (PostgreSQL's prosrc).
    pub body: String,
    pub volatility: Volatility,
    /// STRICT / RETURNS NULL ON NULL INPUT.
    pub strict: bool,
    /// The query engine's compiled form, made on first use (for a
    /// polymorphic function: its instances, one per resolved signature).
    pub compiled: OnceLock<Arc<dyn Any + Send + Sync>>,
    /// Set on an *instance* of a polymorphic function (a copy with its
    /// `anyelement`... types resolved for the calls of one signature):
    /// the definition as declared, whose signature messages name.
    pub declared: Option<Arc<FunctionDef>>,
    /// Set for an aggregate made by CREATE AGGREGATE (pg_proc.prokind
    /// 'a'): its arguments are the aggregated values.
    pub aggregate: Option<Arc<AggregateSpec>>,
    /// The domain (pg_type OID) a scalar result was declared with;
    /// `returns` holds its base type. A call checks the domain's
    /// constraints on the result.
    pub result_domain: Option<u32>,
}

impl Clone for FunctionDef {
    fn clone(&self) -> FunctionDef {
        FunctionDef {
            oid: self.oid,
            name: self.name.clone(),
            procedure: self.procedure,
            args: self.args.clone(),
            returns: self.returns.clone(),
            retset: self.retset,
            language: self.language,
            body: self.body.clone(),
            volatility: self.volatility,
            strict: self.strict,
            compiled: OnceLock::new(),
            declared: self.declared.clone(),
            aggregate: self.aggregate.clone(),
            result_domain: self.result_domain,
        }
    }
}

impl std::fmt::Debug for FunctionDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FunctionDef({} {})", self.oid, self.signature())
    }
}

impl FunctionDef {
    /// The types a caller passes (IN, INOUT and VARIADIC arguments).
    pub fn input_types(&self) -> Vec<DataType> {
        self.args
            .iter()
            .filter(|a| a.mode.is_input())
            .map(|a| a.ty)
            .collect()
    }

    /// `name(type, type)` as PostgreSQL prints a function in messages
    /// (input arguments only; an instance of a polymorphic function prints
    /// the declared signature, `f(anyelement)`).
    pub fn signature(&self) -> String {
        if let Some(d) = &self.declared {
            return d.signature();
        }
        format!("{}({})", self.name, self.input_type_names().join(","))
    }

    /// The input arguments' types as PostgreSQL names them in messages:
    /// a domain argument by its domain's name.
    pub fn input_type_names(&self) -> Vec<String> {
        self.args
            .iter()
            .filter(|a| a.mode.is_input())
            .map(|a| {
                let domain = a.domain.and_then(|d| {
                    nestor_types::domains::lookup(d)
                        .map(|def| def.name.clone())
                        .or_else(|| {
                            nestor_types::domains::lookup_array(d)
                                .map(|def| format!("{}[]", def.name))
                        })
                });
                domain.unwrap_or_else(|| a.ty.to_string())
            })
            .collect()
    }

    /// The result row's columns for a function whose result is a row, as
    /// they are now (a table's row type follows ALTER TABLE). Ok(None) for
    /// a scalar, trigger or `record` result.
    pub fn result_columns(
        &self,
        catalog: &crate::Catalog,
    ) -> Result<Option<Vec<(String, DataType)>>, nestor_common::DbError> {
        Ok(match &self.returns {
            Returns::Row(cols) => Some(cols.clone()),
            Returns::RowType(rel) => {
                let t = catalog.table_by_oid(*rel).ok_or_else(|| {
                    nestor_common::DbError::new(
                        nestor_common::SqlState::UndefinedObject,
                        format!("type with OID {} does not exist", rel.0),
                    )
                })?;
                Some(
                    t.columns
                        .iter()
                        .filter(|c| !c.dropped)
                        .map(|c| (c.name.clone(), c.ty))
                        .collect(),
                )
            }
            // A named composite type (CREATE TYPE ... AS): its fields.
            Returns::Scalar(DataType::Record(rt)) if rt.oid != 0 => Some(rt.fields.clone()),
            _ => None,
        })
    }

    /// Whether an argument or the result is of a polymorphic type (each
    /// call resolves them: plan's `bind/polymorphic.rs`).
    pub fn is_polymorphic(&self) -> bool {
        let poly = |t: &DataType| matches!(t, DataType::Poly(_));
        self.args.iter().any(|a| poly(&a.ty))
            || match &self.returns {
                Returns::Scalar(t) => poly(t),
                Returns::Row(cols) => cols.iter().any(|(_, t)| poly(t)),
                _ => false,
            }
    }

    /// Whether `self` and `other` have the same name and input types (one
    /// replaces the other).
    pub fn same_signature(&self, name: &str, inputs: &[DataType]) -> bool {
        self.name == name && self.input_types() == inputs
    }
}

/// Shared handle.
pub type FunctionRef = Arc<FunctionDef>;
