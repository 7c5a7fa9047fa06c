//! Domains in the binder: a type name that names a domain, and the
//! domain's constraints bound over one value.
//!
//! A domain is its base type everywhere in the plan (see
//! `nestor_types::domains`); its constraints are checked where a value
//! becomes one: a cast (`'5'::posint`, `CAST(x AS posint)`) binds to an
//! [`Expr::Domain`] over the base-type cast, and a write of a column
//! declared with a domain gets the domain's constraints among the table's
//! checks (`modify::bind_checks`), so the table path without domain
//! columns is unchanged. The CHECK expressions are kept as SQL text over
//! `VALUE` (a column reference to the parser) and bound here with `value`
//! as the only visible column of the row, at the position the caller
//! names:
//!
//! ```text
//!   CREATE DOMAIN posint AS int CHECK (VALUE > 0)
//!   SELECT '5'::posint   Domain { arg: Const 5, checks: [posint_check: Col 0 > 0] }
//!   t(a int, n posint)   INSERT: check "posint_check" over the row: Col 1 > 0
//! ```
//!
//! Left out: the constraints of a domain used as a function's argument or
//! result type are not checked (the base type is used).

use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_types::domains::DomainDef;
use nestor_types::DataType;

use super::{names, AggCtx, Binder, QueryPlanner, Scope, ScopeCol};
use crate::ir::{DomainChecks, DomainCoerce, Expr};

/// The domain a type name names (not an array of it), if any.
pub fn domain_from_name(tn: &pb::TypeName) -> Option<std::sync::Arc<DomainDef>> {
    if !tn.array_bounds.is_empty() {
        return None;
    }
    domain_element_of(tn)
}

/// The domain of a type name, or of its elements when it is an array
/// (`posint[]`), with whether it is the array.
pub fn domain_or_array(tn: &pb::TypeName) -> Option<(std::sync::Arc<DomainDef>, bool)> {
    domain_element_of(tn).map(|d| (d, !tn.array_bounds.is_empty()))
}

fn domain_element_of(tn: &pb::TypeName) -> Option<std::sync::Arc<DomainDef>> {
    let parts = names(&tn.names);
    let name = match parts.as_slice() {
        [n] => n,
        [s, n] if s == "public" => n,
        _ => return None,
    };
    nestor_types::domains::by_name(name)
}

/// Bind `def`'s constraints over a row of `width` columns whose column
/// `col` is the value (`VALUE`).
pub fn bind_domain_checks(
    catalog: &nestor_catalog::Catalog,
    eval: nestor_types::EvalCtx,
    plan_query: QueryPlanner,
    def: &DomainDef,
    width: usize,
    col: usize,
) -> Result<DomainChecks, DbError> {
    let mut checks = Vec::with_capacity(def.checks.len());
    let mut not_null = def.not_null;
    // The levels it is over, from the registry; `def` itself as given (a
    // definition being altered is not installed yet).
    let levels = def
        .parent
        .and_then(nestor_types::domains::lookup)
        .map(|p| nestor_types::domains::lineage(&p))
        .unwrap_or_default();
    let own = std::iter::once(def);
    for level in levels.iter().map(|d| &**d).chain(own) {
        not_null |= level.not_null;
        // PostgreSQL checks a domain's constraints in name order
        // (typcache.c), a parent's before its child's.
        let mut sorted: Vec<&nestor_types::domains::DomainCheck> = level.checks.iter().collect();
        sorted.sort_by(|a, b| a.name.cmp(&b.name));
        for c in sorted {
            let node = nestor_parser::parse_expr(&c.expr)?;
            let mut b = Binder::new(catalog, eval, &c.expr, &[], plan_query);
            b.scopes.push(value_scope(def.base, width, col));
            b.outer_refs.push(None);
            b.agg = AggCtx::NotAllowed("check constraints");
            checks.push((c.name.clone(), b.bind_bool(&node, "CHECK")?));
        }
    }
    Ok(DomainChecks {
        domain: def.name.clone(),
        elements: false,
        not_null,
        checks,
    })
}

/// A row of `width` columns where only `col`, named `value`, is visible.
pub fn value_scope(base: DataType, width: usize, col: usize) -> Scope {
    let mut scope = Scope::default();
    for i in 0..width {
        scope.cols.push(ScopeCol {
            perm: None,
            rel: String::new(),
            name: if i == col {
                "value".into()
            } else {
                String::new()
            },
            ty: if i == col { base } else { DataType::Unknown },
            hidden: i != col,
            table_oid: 0,
            attnum: 0,
            merged: false,
            scalar_fn: false,
        });
    }
    scope
}

impl Binder<'_> {
    /// `e` (already of the domain's base type) coerced to the domain.
    pub(crate) fn coerce_to_domain(&mut self, e: Expr, def: &DomainDef) -> Result<Expr, DbError> {
        let checks = bind_domain_checks(self.catalog, self.eval, self.plan_query, def, 1, 0)?;
        Ok(Expr::Domain(Box::new(DomainCoerce { arg: e, checks })))
    }

    /// `e` (an array of the domain's base type) coerced to an array of
    /// the domain: each element checked.
    pub(crate) fn coerce_to_domain_array(
        &mut self,
        e: Expr,
        def: &DomainDef,
    ) -> Result<Expr, DbError> {
        Ok(domain_array_check(
            e,
            bind_domain_checks(self.catalog, self.eval, self.plan_query, def, 1, 0)?,
        ))
    }
}

/// `pg_typeof(x::d)` is the domain `d` (PostgreSQL knows an expression's
/// domain; Nestor knows it of a cast to one, not of a column).
pub(crate) fn typeof_domain(e: Expr) -> Expr {
    use crate::functions::{CatalogFn, Func};
    let Expr::Func(Func::Catalog(CatalogFn::TypeOf(_)), args) = &e else {
        return e;
    };
    let Some(Expr::Domain(d)) = args.first() else {
        return e;
    };
    let Some(def) = nestor_types::domains::by_name(&d.checks.domain) else {
        return e;
    };
    let oid = if d.checks.elements {
        def.array_oid
    } else {
        def.oid
    };
    Expr::Func(Func::Catalog(CatalogFn::TypeOf(oid)), args.clone())
}

/// `e`, an array of the domain's base type, with each element checked
/// against `checks` (bound over a one-column row).
pub fn domain_array_check(e: Expr, mut checks: DomainChecks) -> Expr {
    checks.elements = true;
    Expr::Domain(Box::new(DomainCoerce { arg: e, checks }))
}

/// The error of a value failing a domain's NOT NULL (`check` None) or
/// CHECK constraint, as PostgreSQL's domain_check_input reports it.
pub fn domain_violation(domain: &str, check: Option<&str>) -> DbError {
    match check {
        None => DbError::new(
            SqlState::NotNullViolation,
            format!("domain {domain} does not allow null values"),
        ),
        Some(c) => DbError::new(
            SqlState::CheckViolation,
            format!("value for domain {domain} violates check constraint \"{c}\""),
        )
        .with_constraint(c),
    }
}
