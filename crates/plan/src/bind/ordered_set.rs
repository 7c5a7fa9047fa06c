//! Ordered-set aggregates in the binder: `percentile_cont`,
//! `percentile_disc`, `mode` and the hypothetical-set `rank`,
//! `dense_rank`, `percent_rank`, `cume_dist`, called with
//! `WITHIN GROUP (ORDER BY ...)` (parse_func.c's ordered-set arm).
//!
//! A call binds to an ordinary [`AggCall`]: the WITHIN GROUP keys are its
//! `order` (so the executor buffers and sorts them as it does for
//! `array_agg(x ORDER BY y)`), the arguments before WITHIN GROUP its
//! `direct` arguments, evaluated once per group. The aggregated value is
//! the first key itself, coerced to what the aggregate takes:
//!
//! ```text
//!   percentile_cont(0.5) WITHIN GROUP (ORDER BY i)   direct [0.5::float8], order [i::float8]
//!   rank(3, 'x') WITHIN GROUP (ORDER BY a, b DESC)   direct [3, 'x'], order [a, b DESC],
//!                                                     each pair unified to one type
//! ```
//!
//! The direct arguments may read grouped columns only; the planner checks
//! them as it checks the select list (select::agg_rewrite). Ordered-set
//! aggregates are not window functions (0A000, as PostgreSQL).

use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_types::DataType;

use super::{err_at, expr_location, node, AggCtx, Binder, AGG_ARGS};
use crate::ir::{AggCall, AggFunc, AggOrder, Expr, HypotheticalRank};

/// The ordered-set aggregate a function name names: the kind, with
/// `array` left false (the direct argument's type decides it).
pub(crate) fn by_name(name: &str) -> Option<AggFunc> {
    Some(match name {
        "percentile_cont" => AggFunc::PercentileCont { array: false },
        "percentile_disc" => AggFunc::PercentileDisc { array: false },
        "mode" => AggFunc::Mode,
        "rank" => AggFunc::Hypothetical(HypotheticalRank::Rank),
        "dense_rank" => AggFunc::Hypothetical(HypotheticalRank::DenseRank),
        "percent_rank" => AggFunc::Hypothetical(HypotheticalRank::PercentRank),
        "cume_dist" => AggFunc::Hypothetical(HypotheticalRank::CumeDist),
        _ => return None,
    })
}

/// Bound direct arguments and WITHIN GROUP keys, each with its type and
/// source location.
struct Parts {
    direct: Vec<(Expr, DataType, i32)>,
    order: Vec<(AggOrder, DataType, i32)>,
    filter: Option<Expr>,
}

impl Binder<'_> {
    /// `name(direct) WITHIN GROUP (ORDER BY keys)` of an ordered-set
    /// aggregate `func` (see the module header).
    pub(super) fn bind_ordered_set(
        &mut self,
        func: AggFunc,
        name: &str,
        f: &pb::FuncCall,
    ) -> Result<(Expr, DataType), DbError> {
        let at = |e: DbError, b: &Binder| err_at(e, b.text, f.location);
        if !f.agg_within_group {
            // Only a call whose arguments would fit the aggregate's direct
            // and aggregated ones together finds it (else 42883).
            let arity = if func == AggFunc::Mode { 1 } else { 2 };
            if f.args.len() + f.agg_order.len() != arity {
                return Err(self.no_function_error(name, f));
            }
            let e = DbError::new(
                SqlState::WrongObjectType,
                format!("WITHIN GROUP is required for ordered-set aggregate {name}"),
            );
            return Err(at(e, self));
        }
        if f.over.is_some() {
            let e = DbError::new(
                SqlState::FeatureNotSupported,
                format!("OVER is not supported for ordered-set aggregate {name}"),
            );
            return Err(at(e, self));
        }
        if let AggCtx::NotAllowed(clause) = self.agg {
            let message = if clause == AGG_ARGS {
                "aggregate function calls cannot be nested".to_string()
            } else {
                format!("aggregate functions are not allowed in {clause}")
            };
            return Err(at(DbError::new(SqlState::GroupingError, message), self));
        }
        let mark = self.outer_uses.len();
        let parts = self.bind_ordered_set_parts(f)?;
        let keys: Vec<AggOrder> = parts.order.iter().map(|o| o.0.clone()).collect();
        lower_level_direct_check(&parts, &keys).map_err(|(e, loc)| err_at(e, self.text, loc))?;
        // An ordered-set aggregate of an outer level is not built.
        let read: Vec<&Expr> = keys
            .iter()
            .map(|o| &o.key)
            .chain(parts.filter.as_ref())
            .collect();
        if self.agg_level(&read, mark) < self.level() {
            let e = DbError::unsupported(
                "aggregate functions whose arguments refer only to columns of outer queries",
            );
            return Err(at(e, self));
        }
        let types: Vec<DataType> = parts
            .direct
            .iter()
            .map(|d| d.1)
            .chain(parts.order.iter().map(|o| o.1))
            .collect();
        let no_function = |hint: String| {
            let list: Vec<&str> = types.iter().map(|t| t.name()).collect();
            DbError::new(
                SqlState::UndefinedFunction,
                format!("function {name}({}) does not exist", list.join(", ")),
            )
            .with_hint(hint)
        };
        let no_match = || {
            no_function(
                "No function matches the given name and argument types. You might need to add explicit type casts."
                    .into(),
            )
        };
        let (ndirect, nordered) = (parts.direct.len(), parts.order.len());
        let Parts {
            direct,
            mut order,
            filter,
        } = parts;
        let mut direct_out = Vec::with_capacity(ndirect);
        let ty = match func {
            AggFunc::Hypothetical(kind) => {
                if ndirect != nordered {
                    return Err(at(
                        no_function(format!(
                            "To use the hypothetical-set aggregate {name}, the number of hypothetical direct arguments (here {ndirect}) must match the number of ordering columns (here {nordered})."
                        )),
                        self,
                    ));
                }
                for ((d, dt, dloc), (o, ot, oloc)) in direct.into_iter().zip(order.iter_mut()) {
                    let common =
                        self.common_type_at(&[(*ot, *oloc), (dt, dloc)], "WITHIN GROUP")?;
                    let key = std::mem::replace(&mut o.key, Expr::Const(nestor_types::Value::Null));
                    o.key = self.coerce(key, *ot, common)?;
                    direct_out.push(
                        self.coerce(d, dt, common)
                            .map_err(|e| err_at(e, self.text, dloc))?,
                    );
                }
                match kind {
                    HypotheticalRank::Rank | HypotheticalRank::DenseRank => DataType::Int8,
                    _ => DataType::Float8,
                }
            }
            AggFunc::Mode => {
                if ndirect != 0 || nordered != 1 {
                    return Err(at(no_match(), self));
                }
                order[0].1.resolve_unknown()
            }
            _ => {
                if nordered != 1 || ndirect + nordered != 2 {
                    return Err(at(no_match(), self));
                }
                if ndirect != 1 {
                    return Err(at(
                        no_function(format!(
                            "There is an ordered-set aggregate {name}, but it requires 1 direct arguments, not {ndirect}."
                        )),
                        self,
                    ));
                }
                let (d, dt, _) = direct.into_iter().next().expect("one direct argument");
                let array = dt.is_array();
                let want = if array {
                    DataType::Float8.array_of().expect("float8[]")
                } else {
                    DataType::Float8
                };
                let numeric = |t: DataType| t == DataType::Unknown || t.is_numeric();
                if !(numeric(dt) || dt.element().is_some_and(numeric)) {
                    return Err(at(no_match(), self));
                }
                direct_out.push(self.coerce(d, dt, want)?);
                let (o, ot, _) = &mut order[0];
                let elem = match func {
                    AggFunc::PercentileCont { .. } => match ot.base() {
                        DataType::Interval(_) => DataType::Interval(None),
                        t if t.is_numeric() || t == DataType::Unknown => DataType::Float8,
                        _ => return Err(at(no_match(), self)),
                    },
                    _ => ot.resolve_unknown(),
                };
                let key = std::mem::replace(&mut o.key, Expr::Const(nestor_types::Value::Null));
                o.key = self.coerce(key, *ot, elem)?;
                if !array {
                    elem
                } else {
                    elem.array_of().ok_or_else(|| {
                        at(
                            DbError::unsupported(format!("{name} over arrays of {}", elem.name())),
                            self,
                        )
                    })?
                }
            }
        };
        let func = match func {
            AggFunc::PercentileCont { .. } => AggFunc::PercentileCont {
                array: ty.is_array(),
            },
            AggFunc::PercentileDisc { .. } => AggFunc::PercentileDisc {
                array: ty.is_array(),
            },
            other => other,
        };
        let call = AggCall {
            func,
            arg: None,
            delimiter: None,
            distinct: false,
            ty,
            order: order.into_iter().map(|(o, ..)| o).collect(),
            filter,
            direct: direct_out,
            user: None,
        };
        Ok((Expr::Agg(Box::new(call)), ty))
    }

    /// The direct arguments, WITHIN GROUP keys and FILTER, bound where
    /// aggregates and window functions may not be.
    fn bind_ordered_set_parts(&mut self, f: &pb::FuncCall) -> Result<Parts, DbError> {
        self.in_agg_args(|this| {
            let mut direct = Vec::with_capacity(f.args.len());
            for a in &f.args {
                let loc = expr_location(node(a)?);
                let (e, t) = this.bind(a)?;
                direct.push((e, t, loc));
            }
            let typed = this.bind_order_typed(&f.agg_order)?;
            let mut order = Vec::with_capacity(typed.len());
            for ((o, t), k) in typed.into_iter().zip(&f.agg_order) {
                let loc = match node(k)? {
                    nestor_parser::NodeEnum::SortBy(sb) => match &sb.node {
                        Some(n) => expr_location(node(n)?),
                        None => sb.location,
                    },
                    _ => -1,
                };
                order.push((o, t, loc));
            }
            let filter = match &f.agg_filter {
                Some(n) => Some(this.bind_bool(n, "FILTER")?),
                None => None,
            };
            Ok(Parts {
                direct,
                order,
                filter,
            })
        })
    }
}

/// Keys reading only outer queries' columns make the aggregate one of an
/// outer query, whose direct arguments then may not read this query's
/// columns (PostgreSQL's 42803; Nestor refuses such ordered-set aggregates
/// anyway, but names this case as PostgreSQL does).
fn lower_level_direct_check(parts: &Parts, keys: &[AggOrder]) -> Result<(), (DbError, i32)> {
    let (mut local, mut outer) = (false, false);
    for e in keys.iter().map(|o| &o.key).chain(parts.filter.as_ref()) {
        e.walk(&mut |x| match x {
            Expr::Col(_) => local = true,
            Expr::Outer { .. } => outer = true,
            _ => {}
        });
    }
    if local || !outer {
        return Ok(());
    }
    for (d, _, loc) in &parts.direct {
        let mut reads_local = false;
        d.walk(&mut |x| reads_local |= matches!(x, Expr::Col(_)));
        if reads_local {
            let e = DbError::new(
                SqlState::GroupingError,
                "outer-level aggregate cannot contain a lower-level variable in its direct arguments",
            );
            return Err((e, *loc));
        }
    }
    Ok(())
}

impl Binder<'_> {
    /// WITHIN GROUP on a function that is no ordered-set aggregate.
    /// PostgreSQL resolves the direct arguments and the keys as one
    /// argument list: a normal aggregate or a plain function taking them
    /// is 42809 naming what it is, anything else 42883 with that list.
    pub(super) fn within_group_misuse(&mut self, name: &str, f: &pb::FuncCall) -> DbError {
        let types = match self.ordered_set_arg_types(f) {
            Ok(t) => t,
            Err(e) => return e,
        };
        let wrong = |m: String| {
            err_at(
                DbError::new(SqlState::WrongObjectType, m),
                self.text,
                f.location,
            )
        };
        if let Some(agg) = super::agg_func(name, false) {
            let arity = match agg {
                AggFunc::StringAgg | AggFunc::JsonObjectAgg { .. } => 2,
                _ => 1,
            };
            if types.len() == arity {
                return wrong(format!(
                    "{name} is not an ordered-set aggregate, so it cannot have WITHIN GROUP"
                ));
            }
        } else if crate::functions::lookup(name, &types).is_ok() {
            return wrong(format!(
                "WITHIN GROUP specified, but {name} is not an aggregate function"
            ));
        }
        no_function_at(name, &types, self.text, f.location)
    }

    /// 42883 for a call of `name` with its arguments and keys.
    fn no_function_error(&mut self, name: &str, f: &pb::FuncCall) -> DbError {
        match self.ordered_set_arg_types(f) {
            Ok(types) => no_function_at(name, &types, self.text, f.location),
            Err(e) => e,
        }
    }

    /// The types of a call's arguments followed by its keys.
    fn ordered_set_arg_types(&mut self, f: &pb::FuncCall) -> Result<Vec<DataType>, DbError> {
        let p = self.bind_ordered_set_parts(f)?;
        Ok(p.direct
            .iter()
            .map(|d| d.1)
            .chain(p.order.iter().map(|o| o.1))
            .collect())
    }
}

/// 42883 "function name(types) does not exist" at `location`.
pub(crate) fn no_function_at(name: &str, types: &[DataType], text: &str, location: i32) -> DbError {
    let list: Vec<&str> = types.iter().map(|t| t.name()).collect();
    {
        err_at(
            DbError::new(
                SqlState::UndefinedFunction,
                format!("function {name}({}) does not exist", list.join(", ")),
            )
            .with_hint(
                "No function matches the given name and argument types. You might need to add explicit type casts.",
            ),
            text,
            location,
        )
    }
}
