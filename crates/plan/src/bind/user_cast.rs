//! User casts (CREATE CAST) where the binder converts a value: explicit
//! casts (`x::t`, `CAST`), assignment (INSERT/UPDATE values) and the
//! implicit conversion of a function's arguments, each only as far as the
//! cast's context allows (PostgreSQL's `find_coercion_pathway`, where a
//! pg_cast row comes before the automatic I/O conversion).
//!
//! ```text
//!   CREATE CAST (mood AS int4) WITH FUNCTION mood_rank(mood) AS ASSIGNMENT
//!   'ok'::mood::int4              UserFunc(mood_rank, ['ok'])
//!   INSERT INTO t(i) VALUES ('ok'::mood)   the same (assignment context)
//!   SELECT f_of_int('ok'::mood)   no: the cast is not implicit
//! ```
//!
//! A built-in function no built-in takes as called is tried again with
//! arguments converted by implicit user casts (one argument at a time,
//! then all; an argument whose type has several implicit casts is not
//! converted): a simplified form of PostgreSQL's candidate selection.
//! Operators do not consider user casts.
//!
//! WITH FUNCTION calls the user function (with the target's typmod and
//! whether the cast is explicit when it takes them); WITH INOUT prints
//! the value and reads the text as the target type; WITHOUT FUNCTION
//! reads the value's binary form as the target type's.

use std::sync::Arc;

use nestor_catalog::cast::{CastDef, CastMethod};
use nestor_catalog::Returns;
use nestor_common::DbError;
use nestor_types::cast::Coercion;
use nestor_types::datatype::DataType;
use nestor_types::Value;

use super::Binder;
use crate::functions::Func;
use crate::ir::{Expr, UserFn};

impl Binder<'_> {
    /// The user cast from `from` to `to`, if there is one.
    pub(crate) fn user_cast(&self, from: DataType, to: DataType) -> Option<Arc<CastDef>> {
        if from == DataType::Unknown || from.oid() == to.oid() {
            return None;
        }
        self.catalog.cast(from.oid(), to.oid())
    }

    /// Whether a user cast converts `from` to `to` in `context`.
    pub(crate) fn user_cast_allows(&self, from: DataType, to: DataType, context: Coercion) -> bool {
        self.user_cast(from, to)
            .is_some_and(|c| c.context <= context)
    }

    /// The one type an implicit user cast takes `from` to (None: none, or
    /// several, which PostgreSQL would have to choose among).
    fn implicit_target(&self, from: DataType) -> Option<(DataType, Arc<CastDef>)> {
        if from == DataType::Unknown {
            return None;
        }
        let mut found = self
            .catalog
            .casts()
            .into_iter()
            .filter(|c| c.source == from.oid() && c.context == Coercion::Implicit);
        let c = found.next()?;
        if found.next().is_some() {
            return None;
        }
        Some((DataType::from_oid(c.target)?, c))
    }

    /// A built-in function call no built-in takes as written, bound with
    /// implicit user casts of its arguments (`length(x)` for `x` of a
    /// type with an implicit cast to text). None when that finds none.
    pub(crate) fn library_call_through_user_casts(
        &mut self,
        name: &str,
        args: &[(Expr, DataType)],
    ) -> Result<Option<(Expr, DataType)>, DbError> {
        let targets: Vec<Option<(DataType, Arc<CastDef>)>> =
            args.iter().map(|(_, t)| self.implicit_target(*t)).collect();
        // One argument converted (each in turn), then all of them.
        let castable: Vec<usize> = (0..args.len()).filter(|&i| targets[i].is_some()).collect();
        let mut choices: Vec<Vec<usize>> = castable.iter().map(|&i| vec![i]).collect();
        if castable.len() > 1 {
            choices.push(castable.clone());
        }
        let found = choices.into_iter().find_map(|chosen| {
            let types: Vec<DataType> = args
                .iter()
                .enumerate()
                .map(|(i, (_, t))| match &targets[i] {
                    Some((to, _)) if chosen.contains(&i) => *to,
                    _ => *t,
                })
                .collect();
            let res = crate::functions::lookup(name, &types).ok()?;
            Some((chosen, types, res))
        });
        let Some((chosen, types, res)) = found else {
            return Ok(None);
        };
        let casts: Vec<Option<(DataType, Arc<CastDef>)>> = targets
            .into_iter()
            .enumerate()
            .map(|(i, c)| c.filter(|_| chosen.contains(&i)))
            .collect();
        let mut out = Vec::with_capacity(args.len());
        for (((e, t), c), want) in args.iter().zip(&casts).zip(res.arg_types.iter()) {
            let (e, t) = match c {
                Some((to, cast)) => (self.apply_user_cast(e.clone(), *t, *to, cast, false)?, *to),
                None => (e.clone(), *t),
            };
            out.push(match want {
                Some(w) => self.coerce_arg(e, t, *w, name, &types)?,
                None => e,
            });
        }
        Ok(Some((Expr::Func(res.func, out), res.ret.resolve_unknown())))
    }

    /// `e` (of type `from`) converted to `to` by the user cast `cast`.
    pub(crate) fn apply_user_cast(
        &mut self,
        e: Expr,
        from: DataType,
        to: DataType,
        cast: &CastDef,
        explicit: bool,
    ) -> Result<Expr, DbError> {
        match &cast.method {
            CastMethod::Function { oid, name } => {
                let def = self
                    .catalog
                    .functions(name)
                    .into_iter()
                    .find(|f| f.oid.0 == *oid)
                    .ok_or_else(|| {
                        DbError::internal(format!("cast function {name} ({oid}) is missing"))
                    })?;
                let nargs = def.input_types().len();
                let mut args = vec![e];
                if nargs > 1 {
                    args.push(Expr::Const(Value::Int4(to.typmod())));
                }
                if nargs > 2 {
                    args.push(Expr::Const(Value::Bool(explicit)));
                }
                let ret = match &def.returns {
                    Returns::Scalar(t) => *t,
                    _ => to,
                };
                let call = Expr::UserFunc(UserFn(def), args);
                if ret == to {
                    return Ok(call);
                }
                // A binary-coercible result (text for varchar(n)): the
                // target's typmod applied.
                self.coerce(call, ret, to)
            }
            CastMethod::InOut => {
                let text = Expr::Cast(Box::new(e), DataType::Text);
                Ok(Expr::Cast(Box::new(text), to))
            }
            CastMethod::Binary => Ok(Expr::Func(Func::BinaryCoerce { from, to }, vec![e])),
        }
    }
}
