//! The error a client sees: SQLSTATE, message and the optional fields of
//! PostgreSQL's ErrorResponse. Layers build these only through their own
//! error enums' exhaustive mapping, or directly for SQL-level errors.

use std::fmt;

/// SQLSTATE codes Nestor raises, named as in PostgreSQL's errcodes.txt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SqlState {
    SuccessfulCompletion,
    Warning,
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
    InvalidTextRepresentation,
    InvalidDatetimeFormat,
    DatetimeFieldOverflow,
    DivisionByZero,
    InvalidParameterValue,
    InvalidBinaryRepresentation,
    CharacterNotInRepertoire,
    UntranslatableCharacter,
    InvalidEscapeSequence,
    NullValueNotAllowed,
    InvalidRegularExpression,
    // 23
    NotNullViolation,
    ForeignKeyViolation,
    UniqueViolation,
    CheckViolation,
    // 25
    ActiveSqlTransaction,
    NoActiveSqlTransaction,
    InFailedSqlTransaction,
    ReadOnlySqlTransaction,
    InvalidTransactionState,
    IdleInTransactionSessionTimeout,
    // 26, 34
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
    DuplicateObject,
    DuplicateAlias,
    DuplicatePreparedStatement,
    DuplicateCursor,
    AmbiguousColumn,
    AmbiguousFunction,
    DatatypeMismatch,
    CannotCoerce,
    WrongObjectType,
    InvalidColumnReference,
    GroupingError,
    InvalidTableDefinition,
    IndeterminateDatatype,
    InvalidForeignKey,
    InvalidName,
    NameTooLong,
    // 53
    TooManyConnections,
    OutOfMemory,
    // 54
    ProgramLimitExceeded,
    StatementTooComplex,
    // 55
    ObjectInUse,
    LockNotAvailable,
    ObjectNotInPrerequisiteState,
    // 57
    QueryCanceled,
    AdminShutdown,
    // 58
    IoError,
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
            FeatureNotSupported => "0A000",
            ProtocolViolation => "08P01",
            ConnectionException => "08000",
            CardinalityViolation => "21000",
            DataException => "22000",
            StringDataRightTruncation => "22001",
            NumericValueOutOfRange => "22003",
            InvalidTextRepresentation => "22P02",
            InvalidDatetimeFormat => "22007",
            DatetimeFieldOverflow => "22008",
            DivisionByZero => "22012",
            InvalidParameterValue => "22023",
            InvalidBinaryRepresentation => "22P03",
            CharacterNotInRepertoire => "22021",
            UntranslatableCharacter => "22P05",
            InvalidEscapeSequence => "22025",
            NullValueNotAllowed => "22004",
            InvalidRegularExpression => "2201B",
            NotNullViolation => "23502",
            ForeignKeyViolation => "23503",
            UniqueViolation => "23505",
            CheckViolation => "23514",
            ActiveSqlTransaction => "25001",
            NoActiveSqlTransaction => "25P01",
            InFailedSqlTransaction => "25P02",
            ReadOnlySqlTransaction => "25006",
            InvalidTransactionState => "25000",
            IdleInTransactionSessionTimeout => "25P03",
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
            DuplicateObject => "42710",
            DuplicateAlias => "42712",
            DuplicatePreparedStatement => "42P05",
            DuplicateCursor => "42P03",
            AmbiguousColumn => "42702",
            AmbiguousFunction => "42725",
            DatatypeMismatch => "42804",
            CannotCoerce => "42846",
            WrongObjectType => "42809",
            InvalidColumnReference => "42P10",
            GroupingError => "42803",
            InvalidTableDefinition => "42P16",
            IndeterminateDatatype => "42P18",
            InvalidForeignKey => "42830",
            InvalidName => "42602",
            NameTooLong => "42622",
            TooManyConnections => "53300",
            OutOfMemory => "53200",
            ProgramLimitExceeded => "54000",
            StatementTooComplex => "54001",
            ObjectInUse => "55006",
            LockNotAvailable => "55P03",
            ObjectNotInPrerequisiteState => "55000",
            QueryCanceled => "57014",
            AdminShutdown => "57P01",
            IoError => "58030",
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
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "ERROR",
            Severity::Fatal => "FATAL",
            Severity::Warning => "WARNING",
            Severity::Notice => "NOTICE",
        }
    }
}

/// An error (or notice) as the client will see it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DbError {
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
        DbError {
            severity: Severity::Error,
            code,
            message: message.into(),
            detail: None,
            hint: None,
            position: None,
            unpositioned: false,
            context: None,
            object: None,
        }
    }

    /// 0A000 naming the construct that is not supported.
    pub fn unsupported(construct: impl fmt::Display) -> DbError {
        DbError::new(
            SqlState::FeatureNotSupported,
            format!("{construct} is not supported"),
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

pub type DbResult<T> = Result<T, DbError>;

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
}
