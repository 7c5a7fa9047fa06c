//! satisfies_hash_partition(parent, modulus, remainder, VARIADIC "any"):
//! the function a hash partition's constraint calls (PostgreSQL's
//! partbounds.c). Its key arguments are of any type and it reports their
//! declared types, so the binder passes each one's type OID after the
//! values (`CatalogFn::SatisfiesHashPartition`: parent, modulus,
//! remainder, k values, k type OIDs); `VARIADIC array` passes the array
//! and its element type (`CatalogFn::SatisfiesHashPartitionVariadic`).
//! The executor hashes the values as the table's key does (user operator
//! classes included, `select::partition::bind_hashers`).

use nestor_common::DbError;
use nestor_parser::pb;
use nestor_types::datatype::DataType;
use nestor_types::Value;

use super::Binder;
use crate::functions::{CatalogFn, Func};
use crate::ir::Expr;

impl Binder<'_> {
    pub(super) fn bind_satisfies_hash_partition(
        &mut self,
        f: &pb::FuncCall,
    ) -> Result<(Expr, DataType), DbError> {
        let mut args = Vec::with_capacity(f.args.len() * 2);
        let mut types = Vec::new();
        for (i, a) in f.args.iter().enumerate() {
            let (e, t) = self.bind(a)?;
            let want = match i {
                0 => Some(DataType::Oid),
                1 | 2 => Some(DataType::Int4),
                _ => None,
            };
            match want {
                Some(w) => args.push(self.coerce(e, t, w)?),
                None => {
                    args.push(e);
                    types.push(t);
                }
            }
        }
        let func = if f.func_variadic {
            let elem = match types.as_slice() {
                [t] if t.is_array() => t.element(),
                _ => None,
            };
            let elem = elem.ok_or_else(|| {
                DbError::unsupported("satisfies_hash_partition with a VARIADIC non-array")
            })?;
            args.push(Expr::Const(Value::Int8(i64::from(elem.oid()))));
            CatalogFn::SatisfiesHashPartitionVariadic
        } else {
            args.extend(
                types
                    .iter()
                    .map(|t| Expr::Const(Value::Int8(i64::from(t.oid())))),
            );
            CatalogFn::SatisfiesHashPartition
        };
        Ok((Expr::Func(Func::Catalog(func), args), DataType::Bool))
    }
}
