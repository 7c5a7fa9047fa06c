//! Scalar functions: resolution by name and argument types at bind time.
//!
//! [`lookup`] maps a (lower-cased, schema-stripped) name and the argument
//! types to a [`Func`], the types the arguments must be coerced to, and the
//! result type. The executor calls the resolved [`Func`]
//! (`nestor_exec::functions`); functions that need the statement's state
//! (now(), nextval(), txid_current(), pg_sleep(), set_config() ...) read it
//! there.

use nestor_common::{DbError, SqlState};
use nestor_types::datatype::DataType;

/// A resolved function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    /// A pure function of the types crate's library
    /// (`nestor_types::functions::NAMES[i]`), e.g. repeat, lpad, split_part.
    Library(u16),
    /// pg_current_wal_lsn(): the WAL's next LSN, as text 'X/Y'.
    CurrentWalLsn,
    Now,
    StatementTimestamp,
    ClockTimestamp,
    CurrentDate,
    PgSleep,
    Random,
    Version,
    CurrentDatabase,
    CurrentUser,
    CurrentSchema,
    BackendPid,
    TxidCurrent,
    TxidCurrentIfAssigned,
    CurrentSnapshot,
    SnapshotXmin,
    SnapshotXmax,
    XactStatus,
    CurrentSetting,
    SetConfig,
    CancelBackend,
    TerminateBackend,
    Nextval,
    Currval,
    Setval,
    Lastval,
    Abs,
    Lower,
    Upper,
    Length,
    Substr,
    Round,
    Floor,
    Ceil,
    Mod,
    Concat,
    Trim,
    Replace,
    Sqrt,
    Power,
    GenRandomUuid,
    ToCharSimple,
    FormatType,
    PgGetExpr,
    ObjDescription,
    TableIsVisible,
    PgEncodingToChar,
    HasPrivilege,
    PgGetUserbyid,
    Left,
    Right,
    Strpos,
    Int8FromText,
    /// Assignment cast to a column type (length checks raise 22001).
    AssignCast(DataType),
    /// `ctid` text `(row,1)` from the hidden row-id column.
    CtidText,
    /// `'name'::regclass` for a non-constant name.
    Regclass,
    LocalTimestamp,
    /// pg_sleep_for(interval given as text).
    PgSleepFor,
    /// character(n) to text: trailing spaces are not significant.
    BpcharToText,
    /// length(bytea): the number of bytes.
    ByteaLength,
}

impl Func {
    /// Volatile functions are not evaluated at plan time.
    pub fn is_volatile(self) -> bool {
        !matches!(
            self,
            Func::Abs
                | Func::Lower
                | Func::Upper
                | Func::Length
                | Func::Substr
                | Func::Round
                | Func::Floor
                | Func::Ceil
                | Func::Mod
                | Func::Concat
                | Func::Trim
                | Func::Replace
                | Func::Sqrt
                | Func::Power
                | Func::Left
                | Func::Right
                | Func::Strpos
                | Func::Library(_)
                | Func::Int8FromText
                | Func::AssignCast(_)
                | Func::CtidText
                | Func::BpcharToText
                | Func::ByteaLength
        )
    }
}

/// How a function was resolved: the coercions of its arguments (None =
/// keep) and its result type.
pub struct Resolved {
    pub func: Func,
    pub arg_types: Vec<Option<DataType>>,
    pub ret: DataType,
}

fn undefined(name: &str, args: &[DataType]) -> DbError {
    let list: Vec<&str> = args.iter().map(|t| t.resolve_unknown().name()).collect();
    DbError::new(
        SqlState::UndefinedFunction,
        format!("function {}({}) does not exist", name, list.join(", ")),
    )
    .with_hint(
        "No function matches the given name and argument types. You might need to add explicit type casts.",
    )
}

fn numeric_result(t: DataType) -> DataType {
    match t {
        DataType::Unknown => DataType::Float8,
        t if t.is_numeric() => t.base(),
        _ => DataType::Float8,
    }
}

/// Resolve `name(args)`.
pub fn lookup(name: &str, args: &[DataType]) -> Result<Resolved, DbError> {
    use DataType as T;
    let n = args.len();
    let text = Some(T::Text);
    let int8 = Some(T::Int8);
    let r = |func, arg_types: Vec<Option<DataType>>, ret| {
        Ok(Resolved {
            func,
            arg_types,
            ret,
        })
    };
    let none = Vec::new;
    match (name, n) {
        ("now" | "transaction_timestamp", 0) => r(Func::Now, none(), T::TimestampTz),
        ("statement_timestamp", 0) => r(Func::StatementTimestamp, none(), T::TimestampTz),
        ("clock_timestamp", 0) => r(Func::ClockTimestamp, none(), T::TimestampTz),
        ("pg_sleep", 1) => r(Func::PgSleep, vec![Some(T::Float8)], T::Unknown),
        ("random", 0) => r(Func::Random, none(), T::Float8),
        ("version", 0) => r(Func::Version, none(), T::Text),
        ("current_database", 0) => r(Func::CurrentDatabase, none(), T::Name),
        ("current_user" | "session_user" | "user" | "current_role", 0) => {
            r(Func::CurrentUser, none(), T::Name)
        }
        ("current_schema", 0) => r(Func::CurrentSchema, none(), T::Name),
        ("pg_backend_pid", 0) => r(Func::BackendPid, none(), T::Int4),
        ("pg_current_wal_lsn" | "pg_current_wal_insert_lsn", 0) => {
            r(Func::CurrentWalLsn, none(), T::Text)
        }
        ("txid_current" | "pg_current_xact_id", 0) => r(Func::TxidCurrent, none(), T::Int8),
        ("txid_current_if_assigned" | "pg_current_xact_id_if_assigned", 0) => {
            r(Func::TxidCurrentIfAssigned, none(), T::Int8)
        }
        ("pg_current_snapshot" | "txid_current_snapshot", 0) => {
            r(Func::CurrentSnapshot, none(), T::Text)
        }
        ("pg_snapshot_xmin" | "txid_snapshot_xmin", 1) => {
            r(Func::SnapshotXmin, vec![text], T::Int8)
        }
        ("pg_snapshot_xmax" | "txid_snapshot_xmax", 1) => {
            r(Func::SnapshotXmax, vec![text], T::Int8)
        }
        ("pg_xact_status" | "txid_status", 1) => r(Func::XactStatus, vec![int8], T::Text),
        ("current_setting", 1) => r(Func::CurrentSetting, vec![text], T::Text),
        ("current_setting", 2) => r(Func::CurrentSetting, vec![text, Some(T::Bool)], T::Text),
        ("set_config", 3) => r(Func::SetConfig, vec![text, text, Some(T::Bool)], T::Text),
        ("pg_cancel_backend", 1) => r(Func::CancelBackend, vec![Some(T::Int4)], T::Bool),
        ("pg_terminate_backend", 1 | 2) => r(
            Func::TerminateBackend,
            vec![Some(T::Int4), int8][..n].to_vec(),
            T::Bool,
        ),
        ("nextval", 1) => r(Func::Nextval, vec![regclass(args)], T::Int8),
        ("currval", 1) => r(Func::Currval, vec![regclass(args)], T::Int8),
        ("setval", 2) => r(Func::Setval, vec![regclass(args), int8], T::Int8),
        ("setval", 3) => r(
            Func::Setval,
            vec![regclass(args), int8, Some(T::Bool)],
            T::Int8,
        ),
        ("lastval", 0) => r(Func::Lastval, none(), T::Int8),
        ("abs", 1) => {
            let t = numeric_result(args[0]);
            r(Func::Abs, vec![Some(t)], t)
        }
        ("lower", 1) => r(Func::Lower, vec![text], T::Text),
        ("upper", 1) => r(Func::Upper, vec![text], T::Text),
        ("length" | "octet_length", 1) if args[0] == T::Bytea => {
            r(Func::ByteaLength, vec![None], T::Int4)
        }
        ("length" | "char_length" | "character_length", 1) => r(Func::Length, vec![text], T::Int4),
        ("substr" | "substring", 2) => r(Func::Substr, vec![text, Some(T::Int8)], T::Text),
        ("substr" | "substring", 3) => r(Func::Substr, vec![text, int8, int8], T::Text),
        ("round", 1) => {
            let t = numeric_result(args[0]);
            r(Func::Round, vec![Some(t)], t)
        }
        ("round", 2) => r(
            Func::Round,
            vec![Some(T::NUMERIC), Some(T::Int4)],
            T::NUMERIC,
        ),
        ("floor", 1) => {
            let t = numeric_result(args[0]);
            r(Func::Floor, vec![Some(t)], t)
        }
        ("ceil" | "ceiling", 1) => {
            let t = numeric_result(args[0]);
            r(Func::Ceil, vec![Some(t)], t)
        }
        ("mod", 2) => {
            let t = if args.iter().all(|a| a.is_integer()) {
                T::Int8
            } else {
                T::NUMERIC
            };
            r(Func::Mod, vec![Some(t), Some(t)], t)
        }
        ("concat", _) => r(Func::Concat, vec![None; n], T::Text),
        ("btrim" | "trim", 1) => r(Func::Trim, vec![text], T::Text),
        ("replace", 3) => r(Func::Replace, vec![text, text, text], T::Text),
        ("sqrt", 1) => r(Func::Sqrt, vec![Some(T::Float8)], T::Float8),
        ("power" | "pow", 2) => r(
            Func::Power,
            vec![Some(T::Float8), Some(T::Float8)],
            T::Float8,
        ),
        ("gen_random_uuid", 0) => r(Func::GenRandomUuid, none(), T::Uuid),
        ("format_type", 2) => r(Func::FormatType, vec![int8, Some(T::Int4)], T::Text),
        ("pg_get_expr", 2 | 3) => r(Func::PgGetExpr, vec![None; n], T::Text),
        ("obj_description" | "col_description" | "shobj_description", 1 | 2) => {
            r(Func::ObjDescription, vec![None; n], T::Text)
        }
        ("pg_table_is_visible" | "pg_type_is_visible" | "pg_function_is_visible", 1) => {
            r(Func::TableIsVisible, vec![None], T::Bool)
        }
        ("pg_encoding_to_char", 1) => r(Func::PgEncodingToChar, vec![None], T::Name),
        ("has_table_privilege" | "has_schema_privilege" | "has_database_privilege", 2 | 3) => {
            r(Func::HasPrivilege, vec![None; n], T::Bool)
        }
        ("pg_get_userbyid", 1) => r(Func::PgGetUserbyid, vec![None], T::Name),
        ("left", 2) => r(Func::Left, vec![text, int8], T::Text),
        ("right", 2) => r(Func::Right, vec![text, int8], T::Text),
        ("strpos", 2) => r(Func::Strpos, vec![text, text], T::Int4),
        ("to_char", _) => r(Func::ToCharSimple, vec![None; n], T::Text),
        _ => library(name, args),
    }
}

/// A sequence function's regclass argument: an OID (`'s'::regclass`, as
/// stored defaults say) stays one; anything else is a name as text.
fn regclass(args: &[DataType]) -> Option<DataType> {
    match args.first() {
        Some(DataType::Oid) => None,
        _ => Some(DataType::Text),
    }
}

/// Fall back to the types crate's library of pure functions.
fn library(name: &str, args: &[DataType]) -> Result<Resolved, DbError> {
    use nestor_types::functions as lib;
    let Some(i) = lib::NAMES.iter().position(|n| *n == name) else {
        return Err(undefined(name, args));
    };
    let ret = lib::scalar_return_type(name, args).map_err(|_| undefined(name, args))?;
    Ok(Resolved {
        func: Func::Library(i as u16),
        arg_types: vec![None; args.len()],
        ret,
    })
}
