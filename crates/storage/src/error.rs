//! Storage-layer errors and their mapping to SQLSTATE.

use nestor_common::{DbError, SqlState};
use nestor_txn::TxnError;
use nestor_types::Value;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StorageError {
    /// A conflict, wait failure or limit from the transaction layer.
    Txn(TxnError),
    /// A committed (or own) live row already has this key.
    UniqueViolation {
        schema: String,
        table: String,
        constraint: String,
        columns: Vec<String>,
        key: Vec<Value>,
    },
    /// A computed index's key expression failed on the row (its error).
    Eval(DbError),
}

impl From<TxnError> for StorageError {
    fn from(e: TxnError) -> Self {
        StorageError::Txn(e)
    }
}

impl StorageError {
    /// Map to the client error. `render` formats a key value as SQL text
    /// (the SQL layer passes its output function) for the 23505 DETAIL.
    pub fn into_db(self, render: &dyn Fn(&Value) -> String) -> DbError {
        match self {
            StorageError::Txn(e) => e.into(),
            StorageError::Eval(e) => e,
            StorageError::UniqueViolation {
                schema,
                table,
                constraint,
                columns,
                key,
            } => {
                let values: Vec<String> = key.iter().map(render).collect();
                DbError::new(
                    SqlState::UniqueViolation,
                    format!("duplicate key value violates unique constraint \"{constraint}\""),
                )
                .with_detail(format!(
                    "Key ({})=({}) already exists.",
                    columns.join(", "),
                    values.join(", ")
                ))
                .with_table(table)
                .with_schema(schema)
                .with_constraint(constraint)
            }
        }
    }
}
