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
//! A composite type's attributes may be of domains, and a domain may be
//! over a composite (or an array of one): a value's checks then have
//! parts ([`DomainChecks::parts`]), checked on the fields or elements of
//! a non-NULL value before the domain's own constraints, where the value
//! becomes one of the type (a cast, a column write, a populate function):
//!
//! ```text
//!   CREATE TYPE ddtest1 AS (f1 posint); CREATE DOMAIN d AS ddtest1 CHECK (...)
//!   row(-1)::ddtest1   Domain { parts: [Field 0: posint's checks] }
//!   row(1)::d          Domain { parts: [Field 0: posint's], checks: [d_check] }
//! ```
//!
//! Left out: the constraints of a domain used as a function's argument
//! type are not checked (the base type is used).

use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_types::domains::DomainDef;
use nestor_types::DataType;

use super::{names, AggCtx, Binder, QueryPlanner, Scope, ScopeCol};
use crate::ir::{DomainChecks, DomainCoerce, DomainPart, Expr};

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
    domain_checks_at(catalog, eval, plan_query, def, width, col, 0)
}

/// [`bind_domain_checks`], `depth` levels of containing types down.
fn domain_checks_at(
    catalog: &nestor_catalog::Catalog,
    eval: nestor_types::EvalCtx,
    plan_query: QueryPlanner,
    def: &DomainDef,
    width: usize,
    col: usize,
    depth: usize,
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
        parts: contained(catalog, eval, plan_query, def.base, depth + 1)?,
    })
}

/// How deep [`contained`] follows composites and arrays within each
/// other (a composite cannot contain itself, so this only bounds work).
const CONTAINED_DEPTH: usize = 32;

/// The checks a value of type `ty` needs for the domains declared inside
/// it: the attributes of a composite type declared with a domain (and
/// composites within it), each element of an array of such a composite.
/// None when it has none, so a type without them costs nothing.
///
/// ```text
///   CREATE TYPE ddtest1 AS (f1 posint)
///   ddtest1     parts [Field 0: posint's checks]
///   ddtest1[]   parts [Elements: parts [Field 0: posint's checks]]
/// ```
pub fn contained_checks(
    catalog: &nestor_catalog::Catalog,
    eval: nestor_types::EvalCtx,
    plan_query: QueryPlanner,
    ty: DataType,
) -> Result<Option<DomainChecks>, DbError> {
    let parts = contained(catalog, eval, plan_query, ty, 0)?;
    Ok((!parts.is_empty()).then(|| parts_only(String::new(), parts)))
}

/// Checks of nothing but `parts` (named `domain` for EXPLAIN).
fn parts_only(domain: String, parts: Vec<(DomainPart, DomainChecks)>) -> DomainChecks {
    DomainChecks {
        domain,
        elements: false,
        not_null: false,
        checks: Vec::new(),
        parts,
    }
}

/// `def`'s checks without its parts' (what a table write checks over
/// the row itself), and its parts' alone, if any.
pub fn split_parts(mut d: DomainChecks) -> (DomainChecks, Option<DomainChecks>) {
    let parts = std::mem::take(&mut d.parts);
    let name = d.domain.clone();
    (d, (!parts.is_empty()).then(|| parts_only(name, parts)))
}

fn contained(
    catalog: &nestor_catalog::Catalog,
    eval: nestor_types::EvalCtx,
    plan_query: QueryPlanner,
    ty: DataType,
    depth: usize,
) -> Result<Vec<(DomainPart, DomainChecks)>, DbError> {
    if depth > CONTAINED_DEPTH {
        return Ok(Vec::new());
    }
    match ty {
        DataType::Array(e) => {
            let inner = contained(catalog, eval, plan_query, *e, depth + 1)?;
            if inner.is_empty() {
                return Ok(Vec::new());
            }
            Ok(vec![(
                DomainPart::Elements,
                parts_only(String::new(), inner),
            )])
        }
        DataType::Record(rt) if rt.oid != 0 => {
            let Some(def) = nestor_types::composites::lookup(rt.oid) else {
                return Ok(Vec::new());
            };
            let mut out = Vec::new();
            for (i, (_, aty)) in def.attrs.iter().enumerate() {
                let checks = match def.attr_domain(i) {
                    Some(d) => attr_domain_checks(catalog, eval, plan_query, d, depth + 1)?,
                    None => {
                        let inner = contained(catalog, eval, plan_query, *aty, depth + 1)?;
                        (!inner.is_empty()).then(|| parts_only(String::new(), inner))
                    }
                };
                if let Some(c) = checks {
                    out.push((DomainPart::Field(i), c));
                }
            }
            Ok(out)
        }
        _ => Ok(Vec::new()),
    }
}

/// The checks of an attribute declared with domain `oid` (or with an
/// array of a domain, `oid` the array type's: each element checked).
fn attr_domain_checks(
    catalog: &nestor_catalog::Catalog,
    eval: nestor_types::EvalCtx,
    plan_query: QueryPlanner,
    oid: u32,
    depth: usize,
) -> Result<Option<DomainChecks>, DbError> {
    if let Some(def) = nestor_types::domains::lookup(oid) {
        return domain_checks_at(catalog, eval, plan_query, &def, 1, 0, depth).map(Some);
    }
    let Some(def) = nestor_types::domains::lookup_array(oid) else {
        return Ok(None);
    };
    let mut c = domain_checks_at(catalog, eval, plan_query, &def, 1, 0, depth)?;
    c.elements = true;
    Ok(Some(c))
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
            subst: None,
            using_cast: None,
        });
    }
    scope
}

impl Binder<'_> {
    /// `e` (already of the domain's base type) coerced to the domain.
    pub(crate) fn coerce_to_domain(&mut self, e: Expr, def: &DomainDef) -> Result<Expr, DbError> {
        let checks = bind_domain_checks(self.catalog, self.eval, self.plan_query, def, 1, 0)?;
        Ok(Expr::Domain(Box::new(DomainCoerce {
            arg: e,
            checks,
            at: None,
        })))
    }

    /// `e` (already of type `ty`, not a domain) with the checks of the
    /// domains declared inside `ty` (see [`contained_checks`]).
    pub(crate) fn check_contained(&mut self, e: Expr, ty: DataType) -> Result<Expr, DbError> {
        self.check_contained_at(e, ty, None)
    }

    /// [`Self::check_contained`] of a value bound from `arg`: a failure
    /// of a string literal's is reported at it, as PostgreSQL's input
    /// function reports it (`'(-1)'::ddtest1`, `VALUES ('(-1)')`).
    pub(crate) fn check_contained_from(
        &mut self,
        e: Expr,
        ty: DataType,
        arg: &pb::Node,
    ) -> Result<Expr, DbError> {
        let at = self.literal_at(arg);
        self.check_contained_at(e, ty, at)
    }

    /// The error cursor of `arg` when it is a string literal.
    fn literal_at(&self, arg: &pb::Node) -> Option<u32> {
        match arg.node.as_ref() {
            Some(pb::node::Node::AConst(c)) if matches!(c.val, Some(pb::a_const::Val::Sval(_))) => {
                nestor_parser::location_to_position(self.text, c.location)
            }
            _ => None,
        }
    }

    /// `e`, bound from `arg` for a column of type `ty` declared with
    /// `domain`: when `arg` is a string literal, the checks its input
    /// makes as PostgreSQL parses it (an array's elements of a domain,
    /// the domain attributes of a composite, not a domain's own
    /// constraints), reported at the literal.
    pub(crate) fn check_literal(
        &mut self,
        e: Expr,
        ty: DataType,
        domain: Option<u32>,
        arg: &pb::Node,
    ) -> Result<Expr, DbError> {
        let Some(at) = self.literal_at(arg) else {
            return Ok(e);
        };
        let Some(oid) = domain else {
            return self.check_contained_at(e, ty, Some(at));
        };
        let checks = if let Some(def) = nestor_types::domains::lookup_array(oid) {
            let mut c = bind_domain_checks(self.catalog, self.eval, self.plan_query, &def, 1, 0)?;
            c.elements = true;
            Some(c)
        } else if let Some(def) = nestor_types::domains::lookup(oid) {
            split_parts(bind_domain_checks(
                self.catalog,
                self.eval,
                self.plan_query,
                &def,
                1,
                0,
            )?)
            .1
        } else {
            None
        };
        Ok(match checks {
            Some(checks) => Expr::Domain(Box::new(DomainCoerce {
                arg: e,
                checks,
                at: Some(at),
            })),
            None => e,
        })
    }

    fn check_contained_at(
        &mut self,
        e: Expr,
        ty: DataType,
        at: Option<u32>,
    ) -> Result<Expr, DbError> {
        Ok(
            match contained_checks(self.catalog, self.eval, self.plan_query, ty)? {
                Some(checks) => Expr::Domain(Box::new(DomainCoerce { arg: e, checks, at })),
                None => e,
            },
        )
    }

    /// `e` with the checks its populate function's result needs, when it
    /// is one (`json_populate_record(null::jsrec, doc)`): the domains of
    /// its record type's attributes, and the domain its base argument
    /// was cast to (`null::j_ordered_pair`), as PostgreSQL's
    /// populate_record coerces its result to the base argument's type.
    pub(crate) fn populate_checks(&mut self, e: Expr, ty: DataType) -> Result<Expr, DbError> {
        use crate::functions::Func;
        let Expr::Func(Func::PopulateRecord { .. }, args) = &e else {
            return Ok(e);
        };
        match base_domain(args.first()) {
            Some(checks) => Ok(Expr::Domain(Box::new(DomainCoerce {
                arg: e,
                checks,
                at: None,
            }))),
            None => self.check_contained(e, ty),
        }
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

/// The checks of the domain a populate function's base argument was
/// cast to (`null::j_ordered_pair`), if it was.
pub fn base_domain(base: Option<&Expr>) -> Option<DomainChecks> {
    match base {
        Some(Expr::Domain(d)) if !d.checks.domain.is_empty() && !d.checks.elements => {
            Some(d.checks.clone())
        }
        _ => None,
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
    Expr::Domain(Box::new(DomainCoerce {
        arg: e,
        checks,
        at: None,
    }))
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
