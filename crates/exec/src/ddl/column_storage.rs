//! ALTER COLUMN SET STORAGE / SET COMPRESSION and the COMPRESSION column
//! option: PostgreSQL's attstorage and attcompression.
//!
//! Nestor keeps rows whole in memory and neither TOASTs nor compresses,
//! so these settings change no data: they are validated as PostgreSQL
//! validates them and kept in the column's catalog record, where
//! pg_attribute (and psql's `\d+`) read them back. A column whose storage
//! was never set shows its type's (`Column::storage` is `None`). SET
//! STORAGE goes down an inheritance tree (unless ONLY), SET COMPRESSION
//! never does; a child created by INHERITS or PARTITION OF copies both
//! from its parent, LIKE copies them with INCLUDING STORAGE / INCLUDING
//! COMPRESSION.

use std::sync::Arc;

use nestor_catalog::{Column, TableDef};
use nestor_common::{DbError, SqlState};
use nestor_parser::pb;
use nestor_parser::NodeEnum;
use nestor_types::datatype::DataType;

use super::alter::existing_column;

/// Names a system column may have (refused as PostgreSQL refuses them).
const SYSTEM_COLUMNS: [&str; 6] = ["tableoid", "cmax", "xmax", "cmin", "xmin", "ctid"];

/// ALTER TABLE ... ALTER COLUMN c SET STORAGE / SET COMPRESSION on `def`.
pub(super) fn alter(
    ctx: &mut crate::context::StatementCtx,
    def: &Arc<TableDef>,
    cmd: &pb::AlterTableCmd,
    storage: bool,
) -> Result<(), DbError> {
    if SYSTEM_COLUMNS.contains(&cmd.name.as_str()) {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            format!("cannot alter system column \"{}\"", cmd.name),
        ));
    }
    let pos = existing_column(def, &cmd.name)?;
    let word = match cmd.def.as_deref().and_then(|n| n.node.as_ref()) {
        Some(NodeEnum::String(s)) => s.sval.clone(),
        _ => return Err(DbError::internal("SET STORAGE without a value")),
    };
    let mut new = (**def).clone();
    let col = &mut new.columns[pos];
    if storage {
        col.storage = storage_for(col, &word)?;
    } else {
        col.compression = compression_for(col, &word)?;
    }
    super::put_table(ctx, new)
}

/// The attstorage SET STORAGE `word` gives `col` (`None`: the type's own,
/// for DEFAULT as PostgreSQL 16 accepts it).
pub(super) fn storage_for(col: &Column, word: &str) -> Result<Option<u8>, DbError> {
    let wanted = match word.to_ascii_lowercase().as_str() {
        "plain" => b'p',
        "external" => b'e',
        "extended" => b'x',
        "main" => b'm',
        "default" => return Ok(None),
        _ => {
            return Err(DbError::new(
                SqlState::InvalidParameterValue,
                format!("invalid storage type \"{word}\""),
            ))
        }
    };
    if wanted != b'p' && type_storage(col.ty) == b'p' {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            format!(
                "column data type {} can only have storage PLAIN",
                type_name(col)
            ),
        ));
    }
    Ok(Some(wanted))
}

/// The attcompression COMPRESSION `word` gives `col` (0: the default).
pub(super) fn compression_for(col: &Column, word: &str) -> Result<u8, DbError> {
    if type_storage(col.ty) == b'p' {
        return Err(DbError::new(
            SqlState::FeatureNotSupported,
            format!(
                "column data type {} does not support compression",
                type_name(col)
            ),
        ));
    }
    match word {
        "default" => Ok(0),
        "pglz" => Ok(b'p'),
        "lz4" => Ok(b'l'),
        _ => Err(DbError::new(
            SqlState::InvalidParameterValue,
            format!("invalid compression method \"{word}\""),
        )),
    }
}

/// The column's type as error messages name it (its domain's name).
fn type_name(col: &Column) -> String {
    col.domain
        .and_then(nestor_types::domains::lookup)
        .map(|d| d.name.clone())
        .unwrap_or_else(|| col.ty.name().to_string())
}

/// The type's own storage (pg_type.typstorage).
fn type_storage(ty: DataType) -> u8 {
    crate::pg_catalog::type_storage(ty)
}
