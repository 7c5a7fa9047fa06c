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
