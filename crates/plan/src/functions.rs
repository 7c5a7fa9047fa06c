//! Scalar functions: resolution by name and argument types at bind time.
//!
//! [`lookup`] maps a (lower-cased, schema-stripped) name and the argument
//! types to a [`Func`], the types the arguments must be coerced to, and the
//! result type. The executor calls the resolved [`Func`]
//! (`nestor_exec::functions`); functions that need the statement's state
//! (now(), nextval(), txid_current(), pg_sleep(), set_config() ...) read it
//! there.

use nestor_common::DbError;
use nestor_types::datatype::DataType;
use nestor_types::functions::{self, ScalarFn, Volatility};

/// The object kind of a has_*_privilege function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrivFn {
    Table,
    Sequence,
    Function,
    Schema,
    Database,
    /// has_column_privilege (table, column, privilege): the table's
    /// privilege or the column's.
    Column,
    /// has_any_column_privilege (table, privilege): the table's privilege
    /// or any column's.
    AnyColumn,
}

/// A resolved function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    /// A pure built-in of the types crate's library (abs, lower, substr,
    /// lpad, md5, ...), resolved to its implementation.
    Library(ScalarFn),
    /// pg_current_wal_lsn(): the WAL's next LSN.
    CurrentWalLsn,
    /// pg_is_in_recovery(): true on a replica until it is promoted.
    IsInRecovery,
    /// pg_last_wal_receive_lsn() / pg_last_wal_replay_lsn(): a replica's
    /// positions (NULL on a primary).
    LastWalReceiveLsn,
    LastWalReplayLsn,
    /// pg_last_xact_replay_timestamp().
    LastXactReplayTimestamp,
    /// pg_promote([wait [, wait_seconds]]).
    Promote,
    /// pg_stat_statements_reset([userid [, dbid [, queryid]]]).
    StatStatementsReset,
    /// pg_stat_reset(): the database's pg_stat_database and
    /// pg_stat_all_tables counters.
    StatReset,
    /// nestor_wait_sampling_reset_profile().
    WaitSamplingReset,
    /// pg_stat_force_next_flush(): nothing to do (counts are visible as
    /// soon as they are made, `nestor_exec::stats`).
    StatForceNextFlush,
    Now,
    StatementTimestamp,
    ClockTimestamp,
    CurrentDate,
    LocalTimestamp,
    PgSleep,
    /// pg_notify(channel, payload): NOTIFY as a function.
    PgNotify,
    /// pg_sleep_for(interval given as text).
    PgSleepFor,
    Random,
    Version,
    CurrentDatabase,
    /// current_user (SET ROLE's role, else the session user).
    CurrentUser,
    SessionUser,
    CurrentSchema,
    /// enum_first / enum_last / enum_range of the enum type (its OID):
    /// they read only their arguments' type, and the range's bounds.
    EnumFirst(u32),
    EnumLast(u32),
    EnumRange(u32),
    BackendPid,
    TriggerDepth,
    TxidCurrent,
    TxidCurrentIfAssigned,
    CurrentSnapshot,
    SnapshotXmin,
    SnapshotXmax,
    XactStatus,
    CurrentSetting,
    SetConfig,
    CancelBackend,
    IsolationTestSessionIsBlocked,
    /// pg_blocking_pids(pid): the sessions whose locks block pid's wait.
    BlockingPids,
    /// The pg_advisory_* family.
    Advisory(AdvisoryFn),
    TerminateBackend,
    Nextval,
    Currval,
    Setval,
    Lastval,
    /// `'name'::regclass` for a non-constant name.
    Regclass,
    FormatType,
    /// obj_description(oid [, catalog]) and shobj_description: the
    /// object's comment (pg_description).
    ObjDescription,
    /// col_description(table, column).
    ColDescription,
    TableIsVisible,
    PgEncodingToChar,
    /// has_table_privilege and friends: which kind of object.
    HasPrivilege(PrivFn),
    /// json_build_object / json_build_array (`object`), their jsonb forms
    /// (`binary`), to_json / to_jsonb (`single`): SQL values as JSON.
    JsonBuild {
        object: bool,
        binary: bool,
        single: bool,
        /// Bit i: argument i is json (its text embedded as written).
        json_args: u128,
    },
    /// array_to_json(array [, pretty]): the array as JSON, `pretty`
    /// putting each top-level element after the first on a line of its
    /// own.
    ArrayToJson,
    /// json[b]_build_object / json[b]_build_array(VARIADIC array): the
    /// array's elements are the arguments (a NULL array: NULL).
    JsonBuildVariadic {
        object: bool,
        binary: bool,
    },
    /// format(fmt, VARIADIC array): the array's elements are the
    /// arguments after the format (a NULL array: none).
    FormatVariadic,
    /// Integer bit operators: `&`, `|`, `#` (xor), `<<`, `>>`, and prefix
    /// `~` (one argument), in the result's integer type.
    Bitwise(u8, DataType),
    /// A set-returning function that is a whole select-list item (run by
    /// `Plan::ProjectSet`).
    Srf(SrfKind),
    /// A function over the system catalog (pg_get_indexdef and friends,
    /// `nestor_exec::pg_catalog`).
    Catalog(CatalogFn),
    /// Assignment cast to a column type (length checks raise 22001).
    AssignCast(DataType),
    /// A user cast WITHOUT FUNCTION: the value's binary form read as the
    /// target type's.
    BinaryCoerce {
        from: DataType,
        to: DataType,
    },
    /// `ctid` text `(row,1)` from the hidden row-id column.
    CtidText,
    /// character(n) to text: trailing spaces are not significant.
    BpcharToText,
    /// `ARRAY[a, b, ...]` of `elem` values; `nested`: the arguments are
    /// arrays themselves (`ARRAY[[1,2],[3,4]]`), giving one more dimension.
    ArrayCtor {
        elem: DataType,
        nested: bool,
    },
    /// `array_fill(value, dims [, lower bounds])`: an array of `elem`
    /// (not strict: the value may be NULL).
    ArrayFill {
        elem: DataType,
    },
    /// `array[i][j]...`: the array, then one int4 subscript per dimension.
    Subscript,
    /// `(record).field`: the field at this position of a record.
    FieldSelect(usize),
    /// The new value of a record assigned through a field (`SET c.f = v`,
    /// PostgreSQL's FieldStore): the record (NULL: a record of `fields`
    /// NULLs), then the value for the field at position `field`.
    FieldStore {
        field: usize,
        fields: usize,
    },
    /// `ROW(a, b, ...)` / `(a, b, ...)`: a record of the arguments (NULLs
    /// included).
    RowCtor,
    /// A row comparison: the two arguments are records of the same arity
    /// (see `valops::row_compare`).
    RowCompare(crate::valops::Cmp),
    /// row_to_json(record), to_json / to_jsonb of a record (`true`:
    /// jsonb): a JSON object of the record's fields, named as its type
    /// says.
    RowToJson(&'static nestor_types::datatype::RecordType, bool),
    /// json[b]_populate_record(base, doc): a record of type `rt` from a
    /// JSON object (`nestor_types::json_populate`).
    PopulateRecord {
        rt: &'static nestor_types::datatype::RecordType,
        json: bool,
    },
    /// `array[lo:hi]...`: the array, then a (lower, upper) pair per
    /// dimension; `omitted` marks the bounds left out (`[:hi]`, `[lo:]`;
    /// bit 2k lower, 2k+1 upper of dimension k), whose argument is a NULL
    /// placeholder (`bind/subscripts.rs`).
    Slice {
        omitted: u16,
    },
    /// The new value of an array column assigned through subscripts
    /// (`SET a[i] = v`, `SET a[lo:hi] = v`): the array (NULL: empty), the
    /// value, then the subscripts as for `Subscript` or `Slice`. A
    /// geometric column's raw subscripts (`SET p[0] = v`) have the column's
    /// own geometric type as `elem`.
    ArrayAssign {
        elem: DataType,
        slice: bool,
        omitted: u16,
    },
    /// The new value of a jsonb column assigned through subscripts (`SET
    /// j['a'][0] = v`): the column (NULL: `[]` if `expect_array`, the
    /// first subscript being an integer, else `{}`), the jsonb value,
    /// then the subscripts as text (`nestor_types::jsonb_edit`).
    JsonbAssign {
        expect_array: bool,
    },
    /// `x op ANY/ALL (array)`: the left operand, then the array.
    AnyArray {
        op: crate::valops::Cmp,
        all: bool,
    },
    /// `x [NOT] [I]LIKE ANY/ALL (array)` (`~~`, `~~*`, `!~~`, `!~~*`), or
    /// with `regex` `x ~ ANY/ALL (array)` (`~`, `~*`, `!~`, `!~*`): the
    /// text operand, then the text[] of patterns.
    LikeAny {
        ci: bool,
        negated: bool,
        all: bool,
        regex: bool,
    },
    /// `x op ANY/ALL (array)` for an operator that is a library function
    /// returning boolean (text search's `@@`): the left operand, then the
    /// array.
    LibraryAny {
        func: ScalarFn,
        all: bool,
    },
}

impl Func {
    /// Volatile functions are not evaluated at plan time.
    pub(crate) fn is_volatile(self) -> bool {
        match self {
            Func::Library(f) => f.volatility == Volatility::Volatile,
            Func::AssignCast(_)
            | Func::BinaryCoerce { .. }
            | Func::CtidText
            | Func::BpcharToText
            | Func::ArrayCtor { .. }
            | Func::ArrayFill { .. }
            | Func::Subscript
            | Func::FieldSelect(_)
            | Func::FieldStore { .. }
            | Func::RowCtor
            | Func::RowCompare(_)
            | Func::RowToJson(..)
            | Func::PopulateRecord { .. }
            | Func::Slice { .. }
            | Func::ArrayAssign { .. }
            | Func::JsonbAssign { .. }
            | Func::AnyArray { .. }
            | Func::LikeAny { .. }
            | Func::JsonBuild { .. }
            | Func::JsonBuildVariadic { .. }
            | Func::FormatVariadic
            | Func::ArrayToJson
            | Func::Bitwise(..) => false,
            Func::LibraryAny { func, .. } => func.volatility == Volatility::Volatile,
            Func::Srf(_) => true,
            _ => true,
        }
    }
}

/// The set-returning functions a select list may call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SrfKind {
    /// unnest(array).
    Unnest,
    /// generate_subscripts(array, dim [, reverse]).
    GenerateSubscripts,
    /// generate_series(start, stop [, step]) over integers.
    GenerateSeries,
    /// regexp_matches, jsonb_each and the other built-in set-returning
    /// functions over values: their one column, or a record of them.
    Set(nestor_types::set_fns::SetFn),
    /// information_schema._pg_expandarray(array): a record (x, n) per
    /// element, x the element and n its 1-based position (PostgreSQL
    /// defines it in SQL over generate_series; pgjdbc's metadata queries
    /// call it).
    ExpandArray,
    /// jsonb_path_query(target, path [, vars, silent]): bound as `unnest`
    /// of its items (`nestor_types::jsonpath::query_set_fn`), so it never
    /// reaches the executor under this name.
    JsonbPathQuery,
}

/// The catalog functions tools call (PostgreSQL's ruleutils and friends).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CatalogFn {
    /// pg_get_indexdef(index [, column, pretty]).
    IndexDef,
    /// pg_get_constraintdef(constraint [, pretty]).
    ConstraintDef,
    /// pg_get_expr(pg_node_tree, relation [, pretty]): the stored SQL text.
    Expr,
    /// pg_get_partkeydef(table): `RANGE (a, b)`.
    PartKeyDef,
    /// row_security_active(table): whether its policies apply to the
    /// current role (name, or OID as text).
    RowSecurityActive,
    /// pg_get_partition_constraintdef(table): a partition's constraint.
    PartitionConstraintDef,
    /// pg_partition_root(rel): the top of its partition tree.
    PartitionRoot,
    /// satisfies_hash_partition(parent, modulus, remainder, k key
    /// values, then their k type OIDs: `bind/hash_partition.rs`).
    SatisfiesHashPartition,
    /// The same called with VARIADIC array: (parent, modulus, remainder,
    /// array, element type OID).
    SatisfiesHashPartitionVariadic,
    /// pg_get_triggerdef(trigger [, pretty]).
    TriggerDef,
    /// pg_get_viewdef(view [, pretty]): there are no views, NULL.
    ViewDef,
    /// pg_get_ruledef(oid [, pretty]): a view's _RETURN rule.
    RuleDef,
    /// pg_relation_is_updatable(relation, include_triggers): PostgreSQL's
    /// bit mask of the events a table or automatically updatable view
    /// takes (4 UPDATE, 8 INSERT, 16 DELETE).
    RelationIsUpdatable,
    /// pg_column_is_updatable(relation, attnum, include_triggers).
    ColumnIsUpdatable,
    /// pg_get_function_sqlbody(function): NULL, bodies are kept as text
    /// (prosrc), not as SQL-standard BEGIN ATOMIC bodies.
    FunctionSqlBody,
    /// pg_get_function_result(function).
    FunctionResult,
    /// pg_get_function_arguments(function).
    FunctionArguments,
    /// pg_get_function_identity_arguments(function).
    FunctionIdentityArguments,
    /// pg_get_statisticsobjdef_columns: there are no statistics objects.
    StatisticsColumns,
    /// pg_relation_is_publishable(relation).
    RelationIsPublishable,
    /// pg_relation_size / pg_table_size / pg_total_relation_size /
    /// pg_indexes_size (relation): bytes the relation holds in memory.
    RelationSize,
    /// pg_size_pretty(bigint or numeric).
    SizePretty,
    /// quote_ident(text).
    QuoteIdent,
    /// quote_literal(text).
    QuoteLiteral,
    /// quote_nullable(text): quote_literal, or the word NULL.
    QuoteNullable,
    /// pg_get_serial_sequence(table, column): the sequence a serial or
    /// identity column takes its values from, schema-qualified.
    SerialSequence,
    /// current_schemas(include_implicit).
    CurrentSchemas,
    /// pg_get_userbyid(role) with the role's name.
    UserById,
    /// acldefault(kind, owner): the privileges an object has without
    /// GRANTs. With one superuser and no GRANT, none are recorded: `{}`.
    AclDefault,
    /// A sequence read as a relation (`SELECT last_value, is_called FROM
    /// s`): its last value (`true`) or is_called (`false`), by OID.
    SequenceState(bool),
    /// The output function of a reg* type: the object's name.
    RegName(nestor_types::datatype::RegKind),
    /// The output function of an array of a reg* type: the text of the
    /// array of the objects' names (`{integer,"character varying"}`).
    RegNames(nestor_types::datatype::RegKind),
    /// The input function of a reg* type other than regclass for a
    /// non-constant name.
    RegInput(nestor_types::datatype::RegKind),
    /// pg_typeof(x): the argument's type, decided when it was bound.
    TypeOf(u32),
    /// to_regclass/to_regtype/to_regnamespace/to_regproc(text): the
    /// object's OID, NULL when there is none.
    ToReg(nestor_types::datatype::RegKind),
}

/// How a function was resolved: the coercions of its arguments (None =
/// keep) and its result type.
pub struct Resolved {
    pub func: Func,
    pub arg_types: Vec<Option<DataType>>,
    pub ret: DataType,
}

impl Func {
    /// The name EXPLAIN shows.
    pub fn explain_name(&self) -> String {
        match self {
            Func::Advisory(a) => a.name(),
            Func::Library(f) => f.name.to_string(),
            f => format!("{f:?}").to_lowercase(),
        }
    }
}

/// What one pg_advisory_* function does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AdvisoryFn {
    pub op: AdvisoryOp,
    /// The _shared variants.
    pub shared: bool,
    /// The _xact_ variants: held until the transaction ends.
    pub xact: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdvisoryOp {
    /// pg_advisory[_xact]_lock[_shared]: wait; returns void.
    Lock,
    /// pg_try_advisory[_xact]_lock[_shared]: no wait; returns whether it
    /// got the lock.
    TryLock,
    /// pg_advisory_unlock[_shared]: returns whether it was held.
    Unlock,
    /// pg_advisory_unlock_all().
    UnlockAll,
}

impl AdvisoryFn {
    /// The SQL name, e.g. pg_try_advisory_xact_lock_shared.
    pub fn name(&self) -> String {
        let shared = if self.shared { "_shared" } else { "" };
        let xact = if self.xact { "xact_" } else { "" };
        match self.op {
            AdvisoryOp::Lock => format!("pg_advisory_{xact}lock{shared}"),
            AdvisoryOp::TryLock => format!("pg_try_advisory_{xact}lock{shared}"),
            AdvisoryOp::Unlock => format!("pg_advisory_unlock{shared}"),
            AdvisoryOp::UnlockAll => "pg_advisory_unlock_all".into(),
        }
    }
}

/// The pg_advisory_* function named `name`, if it is one.
fn advisory(name: &str) -> Option<AdvisoryFn> {
    let (op, rest) = if let Some(r) = name.strip_prefix("pg_try_advisory_") {
        (AdvisoryOp::TryLock, r)
    } else if name == "pg_advisory_unlock_all" {
        return Some(AdvisoryFn {
            op: AdvisoryOp::UnlockAll,
            shared: false,
            xact: false,
        });
    } else if let Some(r) = name.strip_prefix("pg_advisory_unlock") {
        (AdvisoryOp::Unlock, r)
    } else {
        (AdvisoryOp::Lock, name.strip_prefix("pg_advisory_")?)
    };
    let (xact, rest) = match rest.strip_prefix("xact_") {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let rest = if op == AdvisoryOp::Unlock {
        rest
    } else {
        rest.strip_prefix("lock")?
    };
    let shared = match rest {
        "" => false,
        "_shared" => true,
        _ => return None,
    };
    if op == AdvisoryOp::Unlock && xact {
        return None;
    }
    Some(AdvisoryFn { op, shared, xact })
}

/// enum_first(anyenum), enum_last(anyenum), enum_range(anyenum) and
/// enum_range(anyenum, anyenum): the enum type comes from the arguments
/// (none has one: 42883, as PostgreSQL finds no candidate).
fn enum_fn(name: &str, args: &[DataType]) -> Result<Resolved, DbError> {
    use nestor_common::SqlState;
    let oid = args.iter().find_map(|t| match t {
        DataType::Enum(o) => Some(*o),
        _ => None,
    });
    let no_fn = || {
        let list: Vec<&str> = args.iter().map(|t| t.name()).collect();
        DbError::new(
            SqlState::UndefinedFunction,
            format!("function {name}({}) does not exist", list.join(", ")),
        )
        .with_hint(
            "No function matches the given name and argument types. You might need to add explicit type casts.",
        )
    };
    let Some(oid) = oid else {
        return Err(no_fn());
    };
    let t = DataType::Enum(oid);
    if args.iter().any(|a| *a != t && *a != DataType::Unknown) {
        return Err(no_fn());
    }
    let (func, ret) = match (name, args.len()) {
        ("enum_first", 1) => (Func::EnumFirst(oid), t),
        ("enum_last", 1) => (Func::EnumLast(oid), t),
        ("enum_range", _) => (Func::EnumRange(oid), t.array_of().ok_or_else(no_fn)?),
        _ => return Err(no_fn()),
    };
    Ok(Resolved {
        func,
        arg_types: vec![Some(t); args.len()],
        ret,
    })
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
    if let ("enum_first" | "enum_last" | "enum_range", 1 | 2) = (name, n) {
        return enum_fn(name, args);
    }
    match (name, n) {
        ("now" | "transaction_timestamp", 0) => r(Func::Now, none(), T::TimestampTz(None)),
        ("statement_timestamp", 0) => r(Func::StatementTimestamp, none(), T::TimestampTz(None)),
        ("clock_timestamp", 0) => r(Func::ClockTimestamp, none(), T::TimestampTz(None)),
        ("pg_sleep", 1) => r(Func::PgSleep, vec![Some(T::Float8)], T::Void),
        ("pg_notify", 2) => r(Func::PgNotify, vec![Some(T::Text), Some(T::Text)], T::Void),
        ("random", 0) => r(Func::Random, none(), T::Float8),
        ("version", 0) => r(Func::Version, none(), T::Text),
        ("current_database", 0) => r(Func::CurrentDatabase, none(), T::Name),
        ("current_user" | "user" | "current_role", 0) => r(Func::CurrentUser, none(), T::Name),
        ("session_user", 0) => r(Func::SessionUser, none(), T::Name),
        ("current_schema", 0) => r(Func::CurrentSchema, none(), T::Name),
        ("pg_backend_pid", 0) => r(Func::BackendPid, none(), T::Int4),
        ("pg_trigger_depth", 0) => r(Func::TriggerDepth, none(), T::Int4),
        ("pg_current_wal_lsn" | "pg_current_wal_insert_lsn", 0) => {
            r(Func::CurrentWalLsn, none(), T::PgLsn)
        }
        ("pg_is_in_recovery", 0) => r(Func::IsInRecovery, none(), T::Bool),
        ("pg_last_wal_receive_lsn", 0) => r(Func::LastWalReceiveLsn, none(), T::PgLsn),
        ("pg_last_wal_replay_lsn", 0) => r(Func::LastWalReplayLsn, none(), T::PgLsn),
        ("pg_last_xact_replay_timestamp", 0) => {
            r(Func::LastXactReplayTimestamp, none(), T::TimestampTz(None))
        }
        ("pg_stat_statements_reset", 0..=3) => r(
            Func::StatStatementsReset,
            [Some(T::Oid), Some(T::Oid), int8][..n].to_vec(),
            T::Void,
        ),
        ("pg_stat_reset", 0) => r(Func::StatReset, none(), T::Void),
        ("pg_stat_force_next_flush", 0) => r(Func::StatForceNextFlush, none(), T::Void),
        ("nestor_wait_sampling_reset_profile", 0) => r(Func::WaitSamplingReset, none(), T::Void),
        ("pg_promote", 0) => r(Func::Promote, none(), T::Bool),
        ("pg_promote", 1) => r(Func::Promote, vec![Some(T::Bool)], T::Bool),
        ("pg_promote", 2) => r(Func::Promote, vec![Some(T::Bool), Some(T::Int4)], T::Bool),
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
        (name, 0..=2) if advisory(name).is_some() => {
            let a = advisory(name).expect("checked");
            let arg_types = match (a.op, n) {
                (AdvisoryOp::UnlockAll, 0) => Vec::new(),
                (AdvisoryOp::UnlockAll, _) | (_, 0) => return library(name, args),
                (_, 1) => vec![int8],
                _ => vec![Some(T::Int4), Some(T::Int4)],
            };
            let ret = match a.op {
                AdvisoryOp::Lock | AdvisoryOp::UnlockAll => T::Void,
                AdvisoryOp::TryLock | AdvisoryOp::Unlock => T::Bool,
            };
            r(Func::Advisory(a), arg_types, ret)
        }
        // The second argument is integer[] in PostgreSQL; until arrays exist
        // it is taken in its text form ('{1,2,3}').
        ("pg_blocking_pids", 1) => r(
            Func::BlockingPids,
            vec![Some(T::Int4)],
            T::Int4.array_of().expect("int4 has an array type"),
        ),
        ("pg_isolation_test_session_is_blocked", 2) => r(
            Func::IsolationTestSessionIsBlocked,
            vec![Some(T::Int4), text],
            T::Bool,
        ),
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
        ("format_type", 2) => r(Func::FormatType, vec![int8, Some(T::Int4)], T::Text),
        ("col_description", 2) => r(
            Func::ColDescription,
            vec![Some(T::Oid), Some(T::Int4)],
            T::Text,
        ),
        ("obj_description" | "shobj_description", 1 | 2) => {
            r(Func::ObjDescription, vec![None; n], T::Text)
        }
        (
            "pg_table_is_visible"
            | "pg_type_is_visible"
            | "pg_function_is_visible"
            | "pg_collation_is_visible"
            | "pg_opclass_is_visible"
            | "pg_operator_is_visible"
            | "pg_conversion_is_visible"
            | "pg_statistics_obj_is_visible",
            1,
        ) => r(Func::TableIsVisible, vec![None], T::Bool),
        ("pg_encoding_to_char", 1) => r(Func::PgEncodingToChar, vec![None], T::Name),
        (
            "has_table_privilege"
            | "has_any_column_privilege"
            | "has_sequence_privilege"
            | "has_function_privilege"
            | "has_schema_privilege"
            | "has_database_privilege",
            2 | 3,
        )
        | ("has_column_privilege", 3 | 4) => {
            let kind = match name {
                "has_sequence_privilege" => PrivFn::Sequence,
                "has_function_privilege" => PrivFn::Function,
                "has_schema_privilege" => PrivFn::Schema,
                "has_database_privilege" => PrivFn::Database,
                "has_column_privilege" => PrivFn::Column,
                "has_any_column_privilege" => PrivFn::AnyColumn,
                _ => PrivFn::Table,
            };
            r(Func::HasPrivilege(kind), vec![None; n], T::Bool)
        }
        ("pg_get_userbyid", 1) => r(
            Func::Catalog(CatalogFn::UserById),
            vec![Some(T::Oid)],
            T::Name,
        ),
        ("pg_get_indexdef", 1 | 3) => r(
            Func::Catalog(CatalogFn::IndexDef),
            vec![Some(T::Oid), Some(T::Int4), Some(T::Bool)][..n].to_vec(),
            T::Text,
        ),
        // pg_get_viewdef(text) is PostgreSQL's older form, a view by name;
        // an untyped literal picks it, as the string category wins there.
        // pg_get_viewdef(oid, int) wraps at that column instead (by OID
        // only, as in PostgreSQL: a name there is an invalid oid).
        ("pg_get_viewdef", 2) if args.get(1).is_some_and(|t| t.is_integer()) => r(
            Func::Catalog(CatalogFn::ViewDef),
            vec![Some(T::Oid), Some(T::Int4)],
            T::Text,
        ),
        ("pg_get_viewdef", 1 | 2) => r(
            Func::Catalog(CatalogFn::ViewDef),
            vec![regclass_arg(args), Some(T::Bool)][..n].to_vec(),
            T::Text,
        ),
        ("pg_get_constraintdef" | "pg_get_triggerdef" | "pg_get_ruledef", 1 | 2) => r(
            Func::Catalog(match name {
                "pg_get_constraintdef" => CatalogFn::ConstraintDef,
                "pg_get_triggerdef" => CatalogFn::TriggerDef,
                _ => CatalogFn::RuleDef,
            }),
            vec![Some(T::Oid), Some(T::Bool)][..n].to_vec(),
            T::Text,
        ),
        ("pg_get_expr", 2 | 3) => r(
            Func::Catalog(CatalogFn::Expr),
            vec![text, Some(T::Oid), Some(T::Bool)][..n].to_vec(),
            T::Text,
        ),
        ("row_security_active", 1) => r(
            Func::Catalog(CatalogFn::RowSecurityActive),
            vec![text],
            T::Bool,
        ),
        ("pg_get_partkeydef", 1) => r(
            Func::Catalog(CatalogFn::PartKeyDef),
            vec![Some(T::Oid)],
            T::Text,
        ),
        ("pg_partition_root", 1) => r(
            Func::Catalog(CatalogFn::PartitionRoot),
            vec![Some(T::Reg(nestor_types::datatype::RegKind::Class))],
            T::Reg(nestor_types::datatype::RegKind::Class),
        ),
        ("pg_get_partition_constraintdef", 1) => r(
            Func::Catalog(CatalogFn::PartitionConstraintDef),
            vec![Some(T::Oid)],
            T::Text,
        ),
        ("pg_relation_is_updatable", 2) => r(
            Func::Catalog(CatalogFn::RelationIsUpdatable),
            vec![Some(T::Oid), Some(T::Bool)],
            T::Int4,
        ),
        ("pg_column_is_updatable", 3) => r(
            Func::Catalog(CatalogFn::ColumnIsUpdatable),
            vec![Some(T::Oid), Some(T::Int2), Some(T::Bool)],
            T::Bool,
        ),
        ("pg_get_function_sqlbody", 1) => r(
            Func::Catalog(CatalogFn::FunctionSqlBody),
            vec![Some(T::Oid)],
            T::Text,
        ),
        ("pg_get_function_result", 1) => r(
            Func::Catalog(CatalogFn::FunctionResult),
            vec![Some(T::Oid)],
            T::Text,
        ),
        ("pg_get_function_arguments", 1) => r(
            Func::Catalog(CatalogFn::FunctionArguments),
            vec![Some(T::Oid)],
            T::Text,
        ),
        ("pg_get_function_identity_arguments", 1) => r(
            Func::Catalog(CatalogFn::FunctionIdentityArguments),
            vec![Some(T::Oid)],
            T::Text,
        ),
        ("pg_get_statisticsobjdef_columns", 1) => r(
            Func::Catalog(CatalogFn::StatisticsColumns),
            vec![Some(T::Oid)],
            T::Text,
        ),
        ("pg_relation_is_publishable", 1) => r(
            Func::Catalog(CatalogFn::RelationIsPublishable),
            vec![regclass_arg(args)],
            T::Bool,
        ),
        (
            "pg_relation_size" | "pg_table_size" | "pg_total_relation_size" | "pg_indexes_size",
            1,
        ) => r(
            Func::Catalog(CatalogFn::RelationSize),
            vec![regclass_arg(args)],
            T::Int8,
        ),
        // pg_relation_size(rel, fork): the main fork is the rows, the
        // others (fsm, vm, init) are empty.
        ("pg_relation_size", 2) => r(
            Func::Catalog(CatalogFn::RelationSize),
            vec![regclass_arg(args), text],
            T::Int8,
        ),
        ("pg_size_pretty", 1) => r(
            Func::Catalog(CatalogFn::SizePretty),
            vec![Some(if matches!(args[0], T::Numeric(_)) {
                T::NUMERIC
            } else {
                T::Int8
            })],
            T::Text,
        ),
        ("acldefault", 2) => r(
            Func::Catalog(CatalogFn::AclDefault),
            vec![text, Some(T::Oid)],
            T::Text.array_of().expect("text[]"),
        ),
        (
            "json_build_object" | "jsonb_build_object" | "json_build_array" | "jsonb_build_array",
            _,
        )
        | ("to_json" | "to_jsonb", 1) => {
            if let (true, [T::Record(rt)]) = (name.starts_with("to_"), args) {
                let rt = *rt;
                let binary = name == "to_jsonb";
                return r(
                    Func::RowToJson(rt, binary),
                    vec![None],
                    if binary { T::Jsonb } else { T::Json },
                );
            }
            let binary = name.starts_with("jsonb") || name == "to_jsonb";
            // A json argument is embedded as JSON, not quoted as text: the
            // builder knows it by its bit.
            let json_args = args
                .iter()
                .enumerate()
                .filter(|(i, t)| **t == T::Json && *i < 128)
                .fold(0u128, |m, (i, _)| m | 1 << i);
            let arg_types = args
                .iter()
                .map(|t| match t {
                    T::Unknown => Some(T::Text),
                    _ => None,
                })
                .collect();
            r(
                Func::JsonBuild {
                    object: name.ends_with("object"),
                    binary,
                    single: name.starts_with("to_"),
                    json_args,
                },
                arg_types,
                if binary { T::Jsonb } else { T::Json },
            )
        }
        ("array_to_json", 1 | 2) if args[0].is_array() => r(
            Func::ArrayToJson,
            vec![None, Some(T::Bool)][..n].to_vec(),
            T::Json,
        ),
        ("row_to_json", 1 | 2) => match args[0] {
            T::Record(rt) => r(
                Func::RowToJson(rt, false),
                vec![None, Some(T::Bool)][..n].to_vec(),
                T::Json,
            ),
            _ => Err(DbError::new(
                nestor_common::SqlState::UndefinedFunction,
                format!(
                    "function row_to_json({}) does not exist",
                    args.iter().map(|a| a.resolve_unknown().name()).collect::<Vec<_>>().join(", ")
                ),
            )
            .with_hint("No function matches the given name and argument types. You might need to add explicit type casts.")),
        },
        ("json_populate_record" | "jsonb_populate_record", 2) => {
            let json = name.starts_with("json_");
            let doc = if json { T::Json } else { T::Jsonb };
            let rt = populate_base(name, args[0])?;
            r(
                Func::PopulateRecord { rt, json },
                vec![Some(T::Record(rt)), Some(doc)],
                T::Record(rt),
            )
        }
        ("json_to_record" | "jsonb_to_record", 1) => Err(record_context()),
        ("pg_typeof", 1) => r(
            Func::Catalog(CatalogFn::TypeOf(args[0].oid())),
            vec![None],
            T::Reg(nestor_types::datatype::RegKind::Type),
        ),
        // (text), and (anyelement): another type goes as it is, printed
        // through its cast to text when called.
        ("quote_literal" | "quote_nullable", 1) => r(
            Func::Catalog(if name == "quote_literal" {
                CatalogFn::QuoteLiteral
            } else {
                CatalogFn::QuoteNullable
            }),
            vec![if args[0].is_string() || args[0] == T::Unknown {
                text
            } else {
                None
            }],
            T::Text,
        ),
        ("to_regclass" | "to_regtype" | "to_regnamespace" | "to_regproc", 1) => {
            use nestor_types::datatype::RegKind as K;
            let kind = match name {
                "to_regclass" => K::Class,
                "to_regtype" => K::Type,
                "to_regnamespace" => K::Namespace,
                _ => K::Proc,
            };
            r(
                Func::Catalog(CatalogFn::ToReg(kind)),
                vec![text],
                T::Reg(kind),
            )
        }
        ("quote_ident", 1) => r(Func::Catalog(CatalogFn::QuoteIdent), vec![text], T::Text),
        ("pg_get_serial_sequence", 2) => r(
            Func::Catalog(CatalogFn::SerialSequence),
            vec![text, text],
            T::Text,
        ),
        ("array_fill", 2 | 3) => {
            let elem = match args[0] {
                T::Unknown => {
                    return Err(DbError::new(
                        nestor_common::SqlState::DatatypeMismatch,
                        "could not determine polymorphic type because input has type unknown",
                    )
                    .unpositioned())
                }
                t => t,
            };
            let at = elem.array_of().ok_or_else(|| {
                DbError::new(
                    nestor_common::SqlState::UndefinedObject,
                    format!("could not find array type for data type {}", elem.name()),
                )
            })?;
            let ints = Some(T::Int4.array_of().expect("int4[]"));
            r(
                Func::ArrayFill { elem },
                vec![Some(elem), ints, ints][..n].to_vec(),
                at,
            )
        }
        ("current_schemas", 1) => r(
            Func::Catalog(CatalogFn::CurrentSchemas),
            vec![Some(T::Bool)],
            T::Name.array_of().expect("name[]"),
        ),
        _ => library(name, args),
    }
}

/// A regclass argument: an OID stays one, a name (text) is looked up.
fn regclass_arg(args: &[DataType]) -> Option<DataType> {
    match args.first() {
        Some(t) if t.is_integer() || t.base() == DataType::Oid => Some(DataType::Oid),
        _ => Some(DataType::Text),
    }
}

/// A sequence function's regclass argument: an OID (`'s'::regclass`, as
/// stored defaults say) stays one; anything else is a name as text.
fn regclass(args: &[DataType]) -> Option<DataType> {
    match args.first() {
        Some(t) if t.base() == DataType::Oid => None,
        _ => Some(DataType::Text),
    }
}

/// PostgreSQL built-ins Nestor does not have yet: calling one is 0A000
/// naming it, not 42883 "does not exist" (it does, in PostgreSQL).
const NOT_YET: &[&str] = &[
    "unnest",
    "pg_database_size",
    "pg_visible_in_snapshot",
    "txid_visible_in_snapshot",
    "setseed",
    "generate_subscripts",
];

/// The record type of a populate function's base argument (0A000 for a
/// record of unknown fields, 22023 for a value that is not a record).
pub fn populate_base(
    name: &str,
    t: DataType,
) -> Result<&'static nestor_types::datatype::RecordType, DbError> {
    match t {
        DataType::Record(rt) if !rt.fields.is_empty() => Ok(rt),
        DataType::Record(_) => Err(DbError::new(
            nestor_common::SqlState::FeatureNotSupported,
            format!("could not determine row type for result of {name}"),
        )
        .with_hint("Provide a non-null record argument, or call the function in the FROM clause using a column definition list.")
        .unpositioned()),
        _ => Err(DbError::new(
            nestor_common::SqlState::InvalidParameterValue,
            format!("first argument of {name} must be a row type"),
        )),
    }
}

/// A function returning `record` where no column definition list can say
/// what its fields are.
pub fn record_context() -> DbError {
    DbError::new(
        nestor_common::SqlState::FeatureNotSupported,
        "function returning record called in context that cannot accept type record",
    )
}

/// The types crate's library of pure functions.
fn library(name: &str, args: &[DataType]) -> Result<Resolved, DbError> {
    let r = functions::resolve(name, args).map_err(|e| {
        if NOT_YET.contains(&name) {
            DbError::unsupported(format!("function {name}"))
        } else {
            e
        }
    })?;
    Ok(Resolved {
        func: Func::Library(r.func),
        arg_types: r.arg_types.into_iter().map(Some).collect(),
        ret: r.ret,
    })
}

/// The element type of generate_series(start, stop [, step]) over the
/// arguments' common type `ty`: int4 (for int2 too), int8 or numeric;
/// 0A000 for the others.
pub fn series_type(ty: DataType) -> Result<DataType, DbError> {
    match ty {
        DataType::Int2 | DataType::Int4 => Ok(DataType::Int4),
        DataType::Int8 => Ok(DataType::Int8),
        DataType::Numeric(_) => Ok(DataType::NUMERIC),
        t => Err(DbError::unsupported(format!(
            "generate_series({})",
            t.name()
        ))),
    }
}

/// The element type of generate_series(start, stop, step) over
/// timestamps: `timestamp` when both bounds are, else `timestamptz` (a
/// date reads as one, as PostgreSQL's implicit casts pick); None if the
/// arguments are not (timestamp-ish, timestamp-ish, interval). Both the
/// select-list and the FROM-clause forms resolve with this.
pub fn timestamp_series_type(types: &[DataType]) -> Option<DataType> {
    use DataType as T;
    let [a, b, step] = types else {
        return None;
    };
    let ts = |t: &T| {
        matches!(
            t,
            T::Timestamp(_) | T::TimestampTz(_) | T::Date | T::Unknown
        )
    };
    if !ts(a) || !ts(b) || !matches!(step, T::Interval(_) | T::Unknown) {
        return None;
    }
    if *a == T::Unknown && *b == T::Unknown {
        return None;
    }
    let plain = |t: &T| matches!(t, T::Timestamp(_) | T::Unknown);
    Some(if plain(a) && plain(b) {
        T::Timestamp(None)
    } else {
        T::TimestampTz(None)
    })
}

/// The handle of a library function for these argument types (the binder
/// builds some calls itself: string_agg's separator, `^`).
pub(crate) fn library_call(name: &str, args: &[DataType]) -> Result<Func, DbError> {
    Ok(Func::Library(functions::resolve(name, args)?.func))
}
