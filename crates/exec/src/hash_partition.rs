//! satisfies_hash_partition(): whether key values fall in a hash
//! partition (modulus, remainder) of a hash-partitioned table, hashed as
//! routing hashes them (PostgreSQL's partbounds.c, with its checks and
//! messages). The binder passes the key values with their declared type
//! OIDs (`nestor_plan::bind::hash_partition`).
//!
//! ```text
//!   satisfies_hash_partition('mchash'::regclass, 4, 0, 2, ''::text)
//!     args: [oid, 4, 0, 2, '', 23, 25]   -> key (2, '') hashed by the
//!     table's classes -> row hash % 4 == 0
//! ```

use nestor_catalog::partition::PartStrategy;
use nestor_common::{DbError, RelId, SqlState};
use nestor_plan::functions::CatalogFn;
use nestor_plan::select::partition::{bind_hashers, key_hash};
use nestor_types::datatype::DataType;
use nestor_types::Value;

use nestor_plan::ir::Expr;

use crate::context::{Ev, Outcome};

fn invalid(msg: String) -> DbError {
    DbError::new(SqlState::InvalidParameterValue, msg)
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Int2(i) => i64::from(*i),
        Value::Int4(i) => i64::from(*i),
        Value::Int8(i) => *i,
        _ => 0,
    }
}

fn type_name(oid: i64) -> String {
    u32::try_from(oid)
        .ok()
        .and_then(DataType::from_oid)
        .map_or_else(|| oid.to_string(), |t| t.to_string())
}

/// Whether a value declared `arg` passes as a key of type `key`.
fn accepts(arg: i64, key: DataType) -> bool {
    let Some(arg) = u32::try_from(arg).ok().and_then(DataType::from_oid) else {
        return false;
    };
    arg.oid() == key.oid() || (arg.is_string() && key.is_string() && key != DataType::Name)
}

/// A hasher (`select::partition::Hashers`: the support function called
/// with the value and the seed) over a one-value row, through the
/// routines table (this module sits below the executor).
fn call_hasher(e: &Expr, row: &[Value], ev: &mut Ev) -> Result<Value, DbError> {
    let Expr::UserFunc(f, args) = e else {
        return Err(DbError::internal("hash support function is not a call"));
    };
    let vals = args
        .iter()
        .map(|a| match a {
            Expr::Col(i) => row.get(*i).cloned().unwrap_or(Value::Null),
            Expr::Const(v) => v.clone(),
            _ => Value::Null,
        })
        .collect();
    match (crate::ROUTINES.call)(&f.0, vals, ev.ctx)? {
        Outcome::Value(v) => Ok(v),
        Outcome::Rows(_) => Err(DbError::internal("hash support function returned rows")),
    }
}

/// The function (`f` one of the two SatisfiesHashPartition forms).
pub(crate) fn call(f: CatalogFn, args: &[Value], ev: &mut Ev) -> Result<Value, DbError> {
    if args.len() < 3 || args[..3].iter().any(Value::is_null) {
        return Ok(Value::Bool(false));
    }
    let (parent, modulus, remainder) = (int(&args[0]), int(&args[1]), int(&args[2]));
    if modulus <= 0 {
        return Err(invalid(
            "modulus for hash partition must be an integer value greater than zero".into(),
        ));
    }
    if remainder < 0 {
        return Err(invalid(
            "remainder for hash partition must be an integer value greater than or equal to zero"
                .into(),
        ));
    }
    if remainder >= modulus {
        return Err(invalid(
            "remainder for hash partition must be less than modulus".into(),
        ));
    }
    let table = u32::try_from(parent)
        .ok()
        .and_then(|o| ev.ctx.catalog.table_by_oid(RelId(o)))
        .ok_or_else(|| {
            DbError::new(
                SqlState::InternalError,
                format!("could not open relation with OID {parent}"),
            )
        })?;
    let key = match &table.partition_key {
        Some(k) if k.strategy == PartStrategy::Hash => k,
        _ => {
            return Err(invalid(format!(
                "\"{}\" is not a hash partitioned table",
                table.name
            )))
        }
    };
    let n = key.parts.len();
    let key_type = |j: usize| key.part_type(j, &table.columns);
    let values: Vec<Value> = if f == CatalogFn::SatisfiesHashPartitionVariadic {
        let elem = args.get(4).map_or(0, int);
        for j in 0..n {
            if !accepts(elem, key_type(j)) {
                return Err(invalid(format!(
                    "column {} of the partition key has type \"{}\", but supplied value is of type \"{}\"",
                    j + 1,
                    key_type(j),
                    type_name(elem)
                )));
            }
        }
        let items = match &args[3] {
            Value::Array(a) => a.items.clone(),
            _ => Vec::new(),
        };
        if items.len() != n {
            return Err(invalid(format!(
                "number of partitioning columns ({n}) does not match number of partition keys provided ({})",
                items.len()
            )));
        }
        items
    } else {
        let k = (args.len() - 3) / 2;
        if k != n {
            return Err(invalid(format!(
                "number of partitioning columns ({n}) does not match number of partition keys provided ({k})"
            )));
        }
        for j in 0..n {
            let declared = int(&args[3 + k + j]);
            if !accepts(declared, key_type(j)) {
                return Err(invalid(format!(
                    "column {} of the partition key has type {}, but supplied value is of type {}",
                    j + 1,
                    key_type(j),
                    type_name(declared)
                )));
            }
        }
        args[3..3 + k].to_vec()
    };
    let hashers = bind_hashers(ev.ctx.catalog, &table)?.unwrap_or_default();
    let hash = key_hash(&values, &hashers, &mut |e, row| call_hasher(e, row, ev))?;
    Ok(Value::Bool(
        hash.is_some_and(|h| h % modulus as u64 == remainder as u64),
    ))
}
