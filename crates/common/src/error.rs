//! The error a client sees: SQLSTATE, message and the optional fields of
//! PostgreSQL's ErrorResponse. Layers build these only through their own
//! error enums' exhaustive mapping, or directly for SQL-level errors.

use std::fmt;

/// SQLSTATE codes Nestor raises, named as in PostgreSQL's errcodes.txt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SqlState {
    SuccessfulCompletion,
    Warning,
    /// 01007 / 01006: GRANT / REVOKE that changed less than asked.
    PrivilegeNotGranted,
    PrivilegeNotRevoked,
    // 0A
    FeatureNotSupported,
    // 08
    ProtocolViolation,
    ConnectionException,
    // 21
    CardinalityViolation,
    // 22
    DataException,
    StringDataRightTruncation,
    NumericValueOutOfRange,
    /// 22026: bit strings of the wrong or of differing lengths.
    StringDataLengthMismatch,
    SubstringError,
    InvalidTextRepresentation,
    InvalidDatetimeFormat,
    DatetimeFieldOverflow,
    /// 22015: an interval field too large for its part.
    IntervalFieldOverflow,
    /// 22009: a numeric time zone beyond +-15:59:59.
    InvalidTimeZoneDisplacementValue,
    DivisionByZero,
    InvalidParameterValue,
    InvalidBinaryRepresentation,
    BadCopyFileFormat,
    CharacterNotInRepertoire,
    UntranslatableCharacter,
    InvalidEscapeSequence,
    NonstandardUseOfEscapeCharacter,
    InvalidUseOfEscapeCharacter,
    NullValueNotAllowed,
    ZeroLengthCharacterString,
    InvalidArgumentForNtileFunction,
    InvalidArgumentForNthValueFunction,
    InvalidPrecedingOrFollowingSize,
    InvalidRegularExpression,
    /// 2201E: ln/log of zero or of a negative number.
    InvalidArgumentForLogarithm,
    /// 2201F: power's undefined and complex cases, sqrt of a negative.
    InvalidArgumentForPowerFunction,
    /// 2201G: width_bucket's count and bounds.
    InvalidArgumentForWidthBucketFunction,
    /// 2201W: a negative LIMIT, a NULL row count of FETCH FIRST ... WITH TIES.
    InvalidRowCountInLimitClause,
    /// 2201X: a negative OFFSET.
    InvalidRowCountInResultOffsetClause,
    ArraySubscriptError,
    // 2203x: SQL/JSON path evaluation (jsonpath)
    InvalidSqlJsonSubscript,
    NonNumericSqlJsonItem,
    SingletonSqlJsonItemRequired,
    SqlJsonArrayNotFound,
    SqlJsonMemberNotFound,
    SqlJsonNumberNotFound,
    SqlJsonObjectNotFound,
    // 0Z, 20, 2D, 2F
    StackedDiagnosticsAccessedWithoutActiveHandler,
    CaseNotFound,
    InvalidTransactionTermination,
    FunctionExecutedNoReturnStatement,
    // 23
    NotNullViolation,
    ForeignKeyViolation,
    UniqueViolation,
    CheckViolation,
    WithCheckOptionViolation,
    // 25
    ActiveSqlTransaction,
    NoActiveSqlTransaction,
    InFailedSqlTransaction,
    ReadOnlySqlTransaction,
    InvalidTransactionState,
    IdleInTransactionSessionTimeout,
    // 24, 26, 34
    InvalidCursorState,
    InvalidSqlStatementName,
    InvalidCursorName,
    // 28
    InvalidPassword,
    InvalidAuthorizationSpecification,
    // 3B
    InvalidSavepointSpecification,
    // 3D, 3F
    InvalidCatalogName,
    InvalidSchemaName,
    // 40
    SerializationFailure,
    DeadlockDetected,
    // 42
    SyntaxError,
    InsufficientPrivilege,
    UndefinedColumn,
    UndefinedFunction,
    UndefinedTable,
    UndefinedObject,
    UndefinedParameter,
    DuplicateColumn,
    DuplicateTable,
    /// 42P06.
    DuplicateSchema,
    /// 42P04.
    DuplicateDatabase,
    DuplicateObject,
    /// 42939: a name reserved for the system (role names starting with pg_).
    ReservedName,
    /// 0LP01: a GRANT that would make a membership loop.
    InvalidGrantOperation,
    DuplicateAlias,
    /// 42P09: a table reference two FROM items answer to.
    AmbiguousAlias,
    DuplicatePreparedStatement,
    DuplicateCursor,
    AmbiguousColumn,
    AmbiguousFunction,
    DuplicateFunction,
    InvalidFunctionDefinition,
    DatatypeMismatch,
    CannotCoerce,
    WrongObjectType,
    InvalidColumnReference,
    InvalidCursorDefinition,
    GroupingError,
    WindowingError,
    InvalidTableDefinition,
    InvalidColumnDefinition,
    InvalidSchemaDefinition,
    IndeterminateDatatype,
    InvalidForeignKey,
    InvalidName,
    NameTooLong,
    // 53
    TooManyConnections,
    OutOfMemory,
    ConfigurationLimitExceeded,
    // 54
    ProgramLimitExceeded,
    StatementTooComplex,
    TooManyArguments,
    // 55
    ObjectInUse,
    LockNotAvailable,
    ObjectNotInPrerequisiteState,
    UnsafeNewEnumValueUsage,
    // 57
    QueryCanceled,
    AdminShutdown,
    // 58
    IoError,
    UndefinedFile,
    DuplicateFile,
    // 38: a COPY program that failed
    ExternalRoutineException,
    // 39: an extension's function that failed (pgcrypto)
    ExternalRoutineInvocationException,
    // 27
    TriggeredDataChangeViolation,
    // 42P17
    InvalidObjectDefinition,
    InvalidRecursion,
    DependentObjectsStillExist,
    GeneratedAlways,
    // P0
    PlpgsqlError,
    RaiseException,
    NoDataFound,
    TooManyRows,
    AssertFailure,
    // XX
    InternalError,
    DataCorrupted,
}

impl SqlState {
    /// The five-character code sent to clients.
    pub fn code(self) -> &'static str {
        use SqlState::*;
        match self {
            SuccessfulCompletion => "00000",
            Warning => "01000",
            PrivilegeNotGranted => "01007",
            PrivilegeNotRevoked => "01006",
            FeatureNotSupported => "0A000",
            ProtocolViolation => "08P01",
            ConnectionException => "08000",
            CardinalityViolation => "21000",
            DataException => "22000",
            StringDataRightTruncation => "22001",
            NumericValueOutOfRange => "22003",
            StringDataLengthMismatch => "22026",
            SubstringError => "22011",
            InvalidTextRepresentation => "22P02",
            InvalidDatetimeFormat => "22007",
            DatetimeFieldOverflow => "22008",
            IntervalFieldOverflow => "22015",
            InvalidTimeZoneDisplacementValue => "22009",
            DivisionByZero => "22012",
            InvalidParameterValue => "22023",
            InvalidBinaryRepresentation => "22P03",
            BadCopyFileFormat => "22P04",
            CharacterNotInRepertoire => "22021",
            UntranslatableCharacter => "22P05",
            InvalidEscapeSequence => "22025",
            NonstandardUseOfEscapeCharacter => "22P06",
            InvalidUseOfEscapeCharacter => "2200C",
            NullValueNotAllowed => "22004",
            ZeroLengthCharacterString => "2200F",
            InvalidArgumentForNtileFunction => "22014",
            InvalidArgumentForNthValueFunction => "22016",
            InvalidPrecedingOrFollowingSize => "22013",
            InvalidSqlJsonSubscript => "22033",
            NonNumericSqlJsonItem => "22036",
            SingletonSqlJsonItemRequired => "22038",
            SqlJsonArrayNotFound => "22039",
            SqlJsonMemberNotFound => "2203A",
            SqlJsonNumberNotFound => "2203B",
            SqlJsonObjectNotFound => "2203C",
            InvalidRegularExpression => "2201B",
            InvalidArgumentForLogarithm => "2201E",
            InvalidArgumentForPowerFunction => "2201F",
            InvalidArgumentForWidthBucketFunction => "2201G",
            InvalidRowCountInLimitClause => "2201W",
            InvalidRowCountInResultOffsetClause => "2201X",
            ArraySubscriptError => "2202E",
            NotNullViolation => "23502",
            ForeignKeyViolation => "23503",
            UniqueViolation => "23505",
            CheckViolation => "23514",
            WithCheckOptionViolation => "44000",
            ActiveSqlTransaction => "25001",
            NoActiveSqlTransaction => "25P01",
            InFailedSqlTransaction => "25P02",
            ReadOnlySqlTransaction => "25006",
            InvalidTransactionState => "25000",
            IdleInTransactionSessionTimeout => "25P03",
            InvalidCursorState => "24000",
            InvalidSqlStatementName => "26000",
            InvalidCursorName => "34000",
            InvalidPassword => "28P01",
            InvalidAuthorizationSpecification => "28000",
            InvalidSavepointSpecification => "3B001",
            InvalidCatalogName => "3D000",
            InvalidSchemaName => "3F000",
            SerializationFailure => "40001",
            DeadlockDetected => "40P01",
            SyntaxError => "42601",
            InsufficientPrivilege => "42501",
            UndefinedColumn => "42703",
            UndefinedFunction => "42883",
            UndefinedTable => "42P01",
            UndefinedObject => "42704",
            UndefinedParameter => "42P02",
            DuplicateColumn => "42701",
            DuplicateTable => "42P07",
            DuplicateSchema => "42P06",
            DuplicateDatabase => "42P04",
            DuplicateObject => "42710",
            ReservedName => "42939",
            InvalidGrantOperation => "0LP01",
            DuplicateAlias => "42712",
            AmbiguousAlias => "42P09",
            DuplicatePreparedStatement => "42P05",
            DuplicateCursor => "42P03",
            AmbiguousColumn => "42702",
            AmbiguousFunction => "42725",
            DuplicateFunction => "42723",
            InvalidFunctionDefinition => "42P13",
            CaseNotFound => "20000",
            StackedDiagnosticsAccessedWithoutActiveHandler => "0Z002",
            FunctionExecutedNoReturnStatement => "2F005",
            InvalidTransactionTermination => "2D000",
            TriggeredDataChangeViolation => "27000",
            InvalidObjectDefinition => "42P17",
            InvalidRecursion => "42P19",
            DependentObjectsStillExist => "2BP01",
            GeneratedAlways => "428C9",
            PlpgsqlError => "P0000",
            RaiseException => "P0001",
            NoDataFound => "P0002",
            TooManyRows => "P0003",
            AssertFailure => "P0004",
            DatatypeMismatch => "42804",
            CannotCoerce => "42846",
            WrongObjectType => "42809",
            InvalidColumnReference => "42P10",
            InvalidCursorDefinition => "42P11",
            GroupingError => "42803",
            WindowingError => "42P20",
            InvalidTableDefinition => "42P16",
            InvalidColumnDefinition => "42611",
            InvalidSchemaDefinition => "42P15",
            IndeterminateDatatype => "42P18",
            InvalidForeignKey => "42830",
            InvalidName => "42602",
            NameTooLong => "42622",
            TooManyConnections => "53300",
            OutOfMemory => "53200",
            ConfigurationLimitExceeded => "53400",
            ProgramLimitExceeded => "54000",
            StatementTooComplex => "54001",
            TooManyArguments => "54023",
            ObjectInUse => "55006",
            LockNotAvailable => "55P03",
            ObjectNotInPrerequisiteState => "55000",
            UnsafeNewEnumValueUsage => "55P04",
            QueryCanceled => "57014",
            AdminShutdown => "57P01",
            IoError => "58030",
            UndefinedFile => "58P01",
            DuplicateFile => "58P02",
            ExternalRoutineException => "38000",
            ExternalRoutineInvocationException => "39000",
            InternalError => "XX000",
            DataCorrupted => "XX001",
        }
    }
}

/// Severity of a message sent to the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Fatal,
    Warning,
    Notice,
    /// RAISE INFO: always sent to the client.
    Info,
    /// RAISE LOG: the server log only (client_min_messages NOTICE).
    Log,
    /// RAISE DEBUG: not sent (client_min_messages NOTICE).
    Debug,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "ERROR",
            Severity::Fatal => "FATAL",
            Severity::Warning => "WARNING",
            Severity::Notice => "NOTICE",
            Severity::Info => "INFO",
            Severity::Log => "LOG",
            Severity::Debug => "DEBUG",
        }
    }
}

/// An error (or notice) as the client will see it: its fields
/// ([`ErrorData`]) behind one pointer, so a `Result<Value, DbError>` — what
/// every expression evaluation returns — stays the size of a value and is
/// not copied through a hundred-odd bytes of error fields on each call.
#[derive(Clone, PartialEq, Eq)]
pub struct DbError(Box<ErrorData>);

impl std::ops::Deref for DbError {
    type Target = ErrorData;
    fn deref(&self) -> &ErrorData {
        &self.0
    }
}

impl std::ops::DerefMut for DbError {
    fn deref_mut(&mut self) -> &mut ErrorData {
        &mut self.0
    }
}

impl fmt::Debug for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

/// The fields of a [`DbError`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorData {
    pub severity: Severity,
    pub code: SqlState,
    pub message: String,
    pub detail: Option<String>,
    pub hint: Option<String>,
    /// 1-based character position in the statement text, for `LINE 1: ^`.
    pub position: Option<u32>,
    /// Raised while evaluating (not analysing) the statement, as by
    /// PostgreSQL's constant folding: no node position is attached to it.
    pub unpositioned: bool,
    /// Where the error happened (the W field, psql's `CONTEXT:`), e.g.
    /// `COPY t, line 2, column id: "x"`.
    pub context: Option<String>,
    /// The object fields of PostgreSQL's ErrorResponse (s, t, c, n), boxed
    /// to keep the error small.
    pub object: Option<Box<ErrorObject>>,
    /// A SQLSTATE raised by user code (PL/pgSQL `RAISE ... USING ERRCODE`)
    /// that none of Nestor's own conditions has; `code` is then
    /// `RaiseException`, so nothing in the server acts on it.
    pub custom_code: Option<[u8; 5]>,
    /// A statement run by server-side code that the error's position
    /// points into (the p and q fields, psql's `QUERY:`): PL/pgSQL's
    /// expressions and statements, as PostgreSQL's SPI reports them.
    pub internal: Option<Box<InternalQuery>>,
}

/// The p and q fields of an ErrorResponse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InternalQuery {
    /// 1-based character position in `query`.
    pub position: u32,
    pub query: String,
}

/// The schema, table, column and constraint an error is about.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ErrorObject {
    pub schema: Option<String>,
    pub table: Option<String>,
    pub column: Option<String>,
    pub constraint: Option<String>,
}

impl DbError {
    pub fn new(code: SqlState, message: impl Into<String>) -> DbError {
        DbError(Box::new(ErrorData {
            severity: Severity::Error,
            code,
            message: message.into(),
            detail: None,
            hint: None,
            position: None,
            unpositioned: false,
            context: None,
            object: None,
            custom_code: None,
            internal: None,
        }))
    }

    /// An error with any well-formed SQLSTATE (user code raising one):
    /// the PL/pgSQL family maps to its own variants, every other code is
    /// carried as is.
    pub fn with_sqlstate(code: &str, message: impl Into<String>) -> DbError {
        let known = match code {
            "P0000" => Some(SqlState::PlpgsqlError),
            "P0001" => Some(SqlState::RaiseException),
            "P0002" => Some(SqlState::NoDataFound),
            "P0003" => Some(SqlState::TooManyRows),
            "P0004" => Some(SqlState::AssertFailure),
            _ => None,
        };
        let mut e = DbError::new(known.unwrap_or(SqlState::RaiseException), message);
        if known.is_none() {
            let mut b = [b'0'; 5];
            for (d, s) in b.iter_mut().zip(code.bytes()) {
                *d = s;
            }
            e.custom_code = Some(b);
        }
        e
    }

    /// The fields, unboxed (to move several out).
    pub fn into_data(self) -> ErrorData {
        *self.0
    }

    /// The message alone.
    pub fn into_message(self) -> String {
        self.0.message
    }

    /// The five-character SQLSTATE the client sees.
    pub fn sqlstate(&self) -> &str {
        match &self.custom_code {
            Some(b) => std::str::from_utf8(b).unwrap_or("P0001"),
            None => self.code.code(),
        }
    }

    /// 0A000 naming the construct that is not supported.
    pub fn unsupported(construct: impl fmt::Display) -> DbError {
        DbError::new(
            SqlState::FeatureNotSupported,
            format!("{construct} is not supported"),
        )
    }

    /// 22021 for text that is not UTF-8 from `bad` on: the bytes of the
    /// bad character as its lead byte announces it (PostgreSQL's
    /// report_invalid_encoding with pg_utf_mblen). `bad` is not empty.
    pub fn invalid_utf8(bad: &[u8]) -> DbError {
        let mblen = match bad[0] {
            0x00..=0x7f => 1,
            b if b & 0xe0 == 0xc0 => 2,
            b if b & 0xf0 == 0xe0 => 3,
            b if b & 0xf8 == 0xf0 => 4,
            _ => 1,
        };
        let shown: Vec<String> = bad
            .iter()
            .take(mblen)
            .map(|x| format!("0x{x:02x}"))
            .collect();
        DbError::new(
            SqlState::CharacterNotInRepertoire,
            format!(
                "invalid byte sequence for encoding \"UTF8\": {}",
                shown.join(" ")
            ),
        )
    }

    pub fn internal(message: impl Into<String>) -> DbError {
        DbError::new(SqlState::InternalError, message)
    }

    pub fn with_detail(mut self, detail: impl Into<String>) -> DbError {
        self.detail = Some(detail.into());
        self
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> DbError {
        self.hint = Some(hint.into());
        self
    }

    pub fn with_position(mut self, position: u32) -> DbError {
        self.position = Some(position);
        self
    }

    pub fn with_context(mut self, context: impl Into<String>) -> DbError {
        self.context = Some(context.into());
        self
    }

    /// Mark the error as raised at evaluation time: binders attach no
    /// node position to it.
    pub fn unpositioned(mut self) -> DbError {
        self.unpositioned = true;
        self
    }

    /// The table (in schema `public`) the error is about.
    pub fn with_table(mut self, table: impl Into<String>) -> DbError {
        let o = self.object.get_or_insert_with(Default::default);
        o.schema = Some("public".into());
        o.table = Some(table.into());
        self
    }

    /// The schema of the table the error is about (after `with_table`).
    pub fn with_schema(mut self, schema: impl Into<String>) -> DbError {
        let o = self.object.get_or_insert_with(Default::default);
        o.schema = Some(schema.into());
        self
    }

    pub fn with_column(mut self, column: impl Into<String>) -> DbError {
        self.object.get_or_insert_with(Default::default).column = Some(column.into());
        self
    }

    pub fn with_constraint(mut self, constraint: impl Into<String>) -> DbError {
        self.object.get_or_insert_with(Default::default).constraint = Some(constraint.into());
        self
    }

    pub fn with_severity(mut self, severity: Severity) -> DbError {
        self.severity = severity;
        self
    }
}

impl fmt::Display for DbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} ({})",
            self.severity.as_str(),
            self.message,
            self.code.code()
        )
    }
}

impl std::error::Error for DbError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_five_characters() {
        for s in [
            SqlState::FeatureNotSupported,
            SqlState::SerializationFailure,
            SqlState::InvalidSavepointSpecification,
            SqlState::LockNotAvailable,
        ] {
            assert_eq!(s.code().len(), 5);
        }
        assert_eq!(SqlState::DeadlockDetected.code(), "40P01");
    }

    /// One errcodes.txt entry and the class of the section it is listed in.
    #[derive(Debug)]
    struct PgCode {
        sqlstate: &'static str,
        kind: &'static str,
        spec_name: Option<&'static str>,
        section_class: &'static str,
    }

    /// errcodes.txt by macro name (several macros may share a SQLSTATE).
    fn pg_codes() -> std::collections::HashMap<&'static str, PgCode> {
        let mut out = std::collections::HashMap::new();
        let mut class = "";
        for line in crate::errcodes::PG_ERRCODES
            .lines()
            .filter(|l| !l.is_empty())
        {
            if let Some(rest) = line.strip_prefix("Section: Class ") {
                class = &rest[..2];
                continue;
            }
            let f: Vec<&str> = line.split(' ').collect();
            assert!(f.len() == 3 || f.len() == 4, "{line}");
            let code = PgCode {
                sqlstate: f[0],
                kind: f[1],
                spec_name: f.get(3).copied(),
                section_class: class,
            };
            assert!(out.insert(f[2], code).is_none(), "macro twice: {line}");
        }
        assert!(out.len() > 250, "the whole of errcodes.txt");
        out
    }

    /// Lists every variant once, with the errcodes.txt macro it stands for,
    /// and builds from that one list both an exhaustive match (no wildcard
    /// arm: a new SqlState variant does not compile until it is listed here;
    /// one listed twice is an unreachable pattern, an error under clippy -D
    /// warnings) and the array of all variants.
    macro_rules! every_sqlstate {
        ($($variant:ident => $pg_macro:literal,)*) => {
            fn pg_macro(s: SqlState) -> &'static str {
                match s {
                    $(SqlState::$variant => $pg_macro,)*
                }
            }
            const ALL: &[SqlState] = &[$(SqlState::$variant,)*];
        };
    }

    every_sqlstate! {
        SuccessfulCompletion => "ERRCODE_SUCCESSFUL_COMPLETION",
        Warning => "ERRCODE_WARNING",
        PrivilegeNotGranted => "ERRCODE_WARNING_PRIVILEGE_NOT_GRANTED",
        PrivilegeNotRevoked => "ERRCODE_WARNING_PRIVILEGE_NOT_REVOKED",
        FeatureNotSupported => "ERRCODE_FEATURE_NOT_SUPPORTED",
        ProtocolViolation => "ERRCODE_PROTOCOL_VIOLATION",
        ConnectionException => "ERRCODE_CONNECTION_EXCEPTION",
        CardinalityViolation => "ERRCODE_CARDINALITY_VIOLATION",
        DataException => "ERRCODE_DATA_EXCEPTION",
        StringDataRightTruncation => "ERRCODE_STRING_DATA_RIGHT_TRUNCATION",
        NumericValueOutOfRange => "ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE",
        StringDataLengthMismatch => "ERRCODE_STRING_DATA_LENGTH_MISMATCH",
        SubstringError => "ERRCODE_SUBSTRING_ERROR",
        InvalidTextRepresentation => "ERRCODE_INVALID_TEXT_REPRESENTATION",
        InvalidDatetimeFormat => "ERRCODE_INVALID_DATETIME_FORMAT",
        DatetimeFieldOverflow => "ERRCODE_DATETIME_FIELD_OVERFLOW",
        IntervalFieldOverflow => "ERRCODE_INTERVAL_FIELD_OVERFLOW",
        InvalidTimeZoneDisplacementValue => "ERRCODE_INVALID_TIME_ZONE_DISPLACEMENT_VALUE",
        DivisionByZero => "ERRCODE_DIVISION_BY_ZERO",
        InvalidParameterValue => "ERRCODE_INVALID_PARAMETER_VALUE",
        InvalidBinaryRepresentation => "ERRCODE_INVALID_BINARY_REPRESENTATION",
        BadCopyFileFormat => "ERRCODE_BAD_COPY_FILE_FORMAT",
        CharacterNotInRepertoire => "ERRCODE_CHARACTER_NOT_IN_REPERTOIRE",
        UntranslatableCharacter => "ERRCODE_UNTRANSLATABLE_CHARACTER",
        InvalidEscapeSequence => "ERRCODE_INVALID_ESCAPE_SEQUENCE",
        NonstandardUseOfEscapeCharacter => "ERRCODE_NONSTANDARD_USE_OF_ESCAPE_CHARACTER",
        InvalidUseOfEscapeCharacter => "ERRCODE_INVALID_USE_OF_ESCAPE_CHARACTER",
        NullValueNotAllowed => "ERRCODE_NULL_VALUE_NOT_ALLOWED",
        ZeroLengthCharacterString => "ERRCODE_ZERO_LENGTH_CHARACTER_STRING",
        InvalidArgumentForNtileFunction => "ERRCODE_INVALID_ARGUMENT_FOR_NTILE",
        InvalidArgumentForNthValueFunction => "ERRCODE_INVALID_ARGUMENT_FOR_NTH_VALUE",
        InvalidPrecedingOrFollowingSize => "ERRCODE_INVALID_PRECEDING_OR_FOLLOWING_SIZE",
        InvalidSqlJsonSubscript => "ERRCODE_INVALID_SQL_JSON_SUBSCRIPT",
        NonNumericSqlJsonItem => "ERRCODE_NON_NUMERIC_SQL_JSON_ITEM",
        SingletonSqlJsonItemRequired => "ERRCODE_SINGLETON_SQL_JSON_ITEM_REQUIRED",
        SqlJsonArrayNotFound => "ERRCODE_SQL_JSON_ARRAY_NOT_FOUND",
        SqlJsonMemberNotFound => "ERRCODE_SQL_JSON_MEMBER_NOT_FOUND",
        SqlJsonNumberNotFound => "ERRCODE_SQL_JSON_NUMBER_NOT_FOUND",
        SqlJsonObjectNotFound => "ERRCODE_SQL_JSON_OBJECT_NOT_FOUND",
        InvalidRegularExpression => "ERRCODE_INVALID_REGULAR_EXPRESSION",
        InvalidArgumentForLogarithm => "ERRCODE_INVALID_ARGUMENT_FOR_LOG",
        InvalidArgumentForPowerFunction => "ERRCODE_INVALID_ARGUMENT_FOR_POWER_FUNCTION",
        InvalidArgumentForWidthBucketFunction => "ERRCODE_INVALID_ARGUMENT_FOR_WIDTH_BUCKET_FUNCTION",
        InvalidRowCountInLimitClause => "ERRCODE_INVALID_ROW_COUNT_IN_LIMIT_CLAUSE",
        InvalidRowCountInResultOffsetClause => "ERRCODE_INVALID_ROW_COUNT_IN_RESULT_OFFSET_CLAUSE",
        ArraySubscriptError => "ERRCODE_ARRAY_SUBSCRIPT_ERROR",
        NotNullViolation => "ERRCODE_NOT_NULL_VIOLATION",
        ForeignKeyViolation => "ERRCODE_FOREIGN_KEY_VIOLATION",
        UniqueViolation => "ERRCODE_UNIQUE_VIOLATION",
        CheckViolation => "ERRCODE_CHECK_VIOLATION",
        WithCheckOptionViolation => "ERRCODE_WITH_CHECK_OPTION_VIOLATION",
        ActiveSqlTransaction => "ERRCODE_ACTIVE_SQL_TRANSACTION",
        NoActiveSqlTransaction => "ERRCODE_NO_ACTIVE_SQL_TRANSACTION",
        InFailedSqlTransaction => "ERRCODE_IN_FAILED_SQL_TRANSACTION",
        ReadOnlySqlTransaction => "ERRCODE_READ_ONLY_SQL_TRANSACTION",
        InvalidTransactionState => "ERRCODE_INVALID_TRANSACTION_STATE",
        IdleInTransactionSessionTimeout => "ERRCODE_IDLE_IN_TRANSACTION_SESSION_TIMEOUT",
        InvalidCursorState => "ERRCODE_INVALID_CURSOR_STATE",
        InvalidSqlStatementName => "ERRCODE_INVALID_SQL_STATEMENT_NAME",
        InvalidCursorName => "ERRCODE_INVALID_CURSOR_NAME",
        InvalidPassword => "ERRCODE_INVALID_PASSWORD",
        InvalidAuthorizationSpecification => "ERRCODE_INVALID_AUTHORIZATION_SPECIFICATION",
        InvalidSavepointSpecification => "ERRCODE_S_E_INVALID_SPECIFICATION",
        InvalidCatalogName => "ERRCODE_INVALID_CATALOG_NAME",
        InvalidSchemaName => "ERRCODE_INVALID_SCHEMA_NAME",
        SerializationFailure => "ERRCODE_T_R_SERIALIZATION_FAILURE",
        DeadlockDetected => "ERRCODE_T_R_DEADLOCK_DETECTED",
        SyntaxError => "ERRCODE_SYNTAX_ERROR",
        InsufficientPrivilege => "ERRCODE_INSUFFICIENT_PRIVILEGE",
        UndefinedColumn => "ERRCODE_UNDEFINED_COLUMN",
        UndefinedFunction => "ERRCODE_UNDEFINED_FUNCTION",
        UndefinedTable => "ERRCODE_UNDEFINED_TABLE",
        UndefinedObject => "ERRCODE_UNDEFINED_OBJECT",
        UndefinedParameter => "ERRCODE_UNDEFINED_PARAMETER",
        DuplicateColumn => "ERRCODE_DUPLICATE_COLUMN",
        DuplicateTable => "ERRCODE_DUPLICATE_TABLE",
        DuplicateSchema => "ERRCODE_DUPLICATE_SCHEMA",
        DuplicateDatabase => "ERRCODE_DUPLICATE_DATABASE",
        DuplicateObject => "ERRCODE_DUPLICATE_OBJECT",
        ReservedName => "ERRCODE_RESERVED_NAME",
        InvalidGrantOperation => "ERRCODE_INVALID_GRANT_OPERATION",
        DuplicateAlias => "ERRCODE_DUPLICATE_ALIAS",
        AmbiguousAlias => "ERRCODE_AMBIGUOUS_ALIAS",
        DuplicatePreparedStatement => "ERRCODE_DUPLICATE_PSTATEMENT",
        DuplicateCursor => "ERRCODE_DUPLICATE_CURSOR",
        AmbiguousColumn => "ERRCODE_AMBIGUOUS_COLUMN",
        AmbiguousFunction => "ERRCODE_AMBIGUOUS_FUNCTION",
        DuplicateFunction => "ERRCODE_DUPLICATE_FUNCTION",
        InvalidFunctionDefinition => "ERRCODE_INVALID_FUNCTION_DEFINITION",
        CaseNotFound => "ERRCODE_CASE_NOT_FOUND",
        StackedDiagnosticsAccessedWithoutActiveHandler => "ERRCODE_STACKED_DIAGNOSTICS_ACCESSED_WITHOUT_ACTIVE_HANDLER",
        FunctionExecutedNoReturnStatement => "ERRCODE_S_R_E_FUNCTION_EXECUTED_NO_RETURN_STATEMENT",
        InvalidTransactionTermination => "ERRCODE_INVALID_TRANSACTION_TERMINATION",
        TriggeredDataChangeViolation => "ERRCODE_TRIGGERED_DATA_CHANGE_VIOLATION",
        InvalidObjectDefinition => "ERRCODE_INVALID_OBJECT_DEFINITION",
        InvalidRecursion => "ERRCODE_INVALID_RECURSION",
        DependentObjectsStillExist => "ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST",
        GeneratedAlways => "ERRCODE_GENERATED_ALWAYS",
        PlpgsqlError => "ERRCODE_PLPGSQL_ERROR",
        RaiseException => "ERRCODE_RAISE_EXCEPTION",
        NoDataFound => "ERRCODE_NO_DATA_FOUND",
        TooManyRows => "ERRCODE_TOO_MANY_ROWS",
        AssertFailure => "ERRCODE_ASSERT_FAILURE",
        DatatypeMismatch => "ERRCODE_DATATYPE_MISMATCH",
        CannotCoerce => "ERRCODE_CANNOT_COERCE",
        WrongObjectType => "ERRCODE_WRONG_OBJECT_TYPE",
        InvalidColumnReference => "ERRCODE_INVALID_COLUMN_REFERENCE",
        InvalidCursorDefinition => "ERRCODE_INVALID_CURSOR_DEFINITION",
        GroupingError => "ERRCODE_GROUPING_ERROR",
        WindowingError => "ERRCODE_WINDOWING_ERROR",
        InvalidTableDefinition => "ERRCODE_INVALID_TABLE_DEFINITION",
        InvalidColumnDefinition => "ERRCODE_INVALID_COLUMN_DEFINITION",
        InvalidSchemaDefinition => "ERRCODE_INVALID_SCHEMA_DEFINITION",
        IndeterminateDatatype => "ERRCODE_INDETERMINATE_DATATYPE",
        InvalidForeignKey => "ERRCODE_INVALID_FOREIGN_KEY",
        InvalidName => "ERRCODE_INVALID_NAME",
        NameTooLong => "ERRCODE_NAME_TOO_LONG",
        TooManyConnections => "ERRCODE_TOO_MANY_CONNECTIONS",
        OutOfMemory => "ERRCODE_OUT_OF_MEMORY",
        ConfigurationLimitExceeded => "ERRCODE_CONFIGURATION_LIMIT_EXCEEDED",
        ProgramLimitExceeded => "ERRCODE_PROGRAM_LIMIT_EXCEEDED",
        StatementTooComplex => "ERRCODE_STATEMENT_TOO_COMPLEX",
        TooManyArguments => "ERRCODE_TOO_MANY_ARGUMENTS",
        ObjectInUse => "ERRCODE_OBJECT_IN_USE",
        LockNotAvailable => "ERRCODE_LOCK_NOT_AVAILABLE",
        ObjectNotInPrerequisiteState => "ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE",
        UnsafeNewEnumValueUsage => "ERRCODE_UNSAFE_NEW_ENUM_VALUE_USAGE",
        QueryCanceled => "ERRCODE_QUERY_CANCELED",
        AdminShutdown => "ERRCODE_ADMIN_SHUTDOWN",
        IoError => "ERRCODE_IO_ERROR",
        UndefinedFile => "ERRCODE_UNDEFINED_FILE",
        DuplicateFile => "ERRCODE_DUPLICATE_FILE",
        ExternalRoutineException => "ERRCODE_EXTERNAL_ROUTINE_EXCEPTION",
        ExternalRoutineInvocationException => "ERRCODE_EXTERNAL_ROUTINE_INVOCATION_EXCEPTION",
        InternalError => "ERRCODE_INTERNAL_ERROR",
        DataCorrupted => "ERRCODE_DATA_CORRUPTED",
    }

    /// `InFailedSqlTransaction` -> `in_failed_sql_transaction`.
    fn snake_case(name: &str) -> String {
        let mut out = String::new();
        for (i, c) in name.chars().enumerate() {
            if c.is_ascii_uppercase() && i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        }
        out
    }

    /// Each variant's code is PostgreSQL's for the condition the variant is
    /// named after (the enum's naming rule: named as in errcodes.txt).
    #[test]
    fn every_sqlstate_is_postgresqls_code_of_the_same_name() {
        let pg = pg_codes();
        for &s in ALL {
            let m = pg_macro(s);
            let entry = pg
                .get(m)
                .unwrap_or_else(|| panic!("{s:?}: {m} is not in PostgreSQL's errcodes.txt"));
            assert_eq!(s.code(), entry.sqlstate, "{s:?} ({m})");
            assert_eq!(
                entry.spec_name,
                Some(snake_case(&format!("{s:?}")).as_str()),
                "{s:?} is not named after PostgreSQL's condition name for {m}"
            );
        }
    }

    /// errcodes.txt's rules: five digits or upper-case letters; the first
    /// two are the class, every class has a generic `000` code; class 00 is
    /// success, 01 and 02 warnings, every other class errors.
    #[test]
    fn sqlstates_follow_the_class_rules() {
        let pg = pg_codes();
        let defined: std::collections::HashSet<&str> = pg.values().map(|c| c.sqlstate).collect();
        let mut seen = std::collections::HashMap::new();
        for &s in ALL {
            let code = s.code();
            assert_eq!(code.len(), 5, "{s:?}: {code}");
            assert!(
                code.bytes()
                    .all(|b| b.is_ascii_digit() || b.is_ascii_uppercase()),
                "{s:?}: {code}"
            );
            let class = &code[..2];
            let entry = &pg[pg_macro(s)];
            assert_eq!(
                entry.section_class, class,
                "{s:?}: {code} listed in another class"
            );
            assert!(
                defined.contains(format!("{class}000").as_str()),
                "{s:?}: class {class} has no generic {class}000"
            );
            let kind = match class {
                "00" => "S",
                "01" | "02" => "W",
                _ => "E",
            };
            assert_eq!(entry.kind, kind, "{s:?}: {code}");
            if let Some(other) = seen.insert(code, s) {
                panic!("{other:?} and {s:?} are both {code}");
            }
        }
        assert_eq!(seen.len(), ALL.len());
    }
}
