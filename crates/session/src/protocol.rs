//! The contract between the wire layer (`nestor-server`) and the session.
//!
//! The wire layer decodes bytes into [`FrontendMsg`], hands each to
//! [`crate::Session::handle`], and encodes the [`BackendMsg`]s it gets back.
//! All meaning (transaction-block state, the extended protocol's
//! skip-until-Sync after an error, portals, COPY sub-protocol state) lives in
//! the session; the wire layer owns only sockets, startup, authentication and
//! cancel requests. `ReadyForQuery` is emitted by the session itself, carrying
//! the status of its transaction block.

use nestor_common::DbError;

/// Format code of a parameter or result column: 0 = text, 1 = binary.
pub type FormatCode = i16;

/// Messages from the client after startup.
#[derive(Clone, Debug, PartialEq)]
pub enum FrontendMsg {
    /// Simple query protocol: one string, possibly several statements.
    Query(String),
    Parse {
        name: String,
        query: String,
        /// OIDs the client specified; 0 = infer.
        param_types: Vec<u32>,
    },
    Bind {
        portal: String,
        statement: String,
        param_formats: Vec<FormatCode>,
        /// `None` = SQL NULL.
        params: Vec<Option<Vec<u8>>>,
        result_formats: Vec<FormatCode>,
    },
    /// `kind` is b'S' (statement) or b'P' (portal).
    Describe {
        kind: u8,
        name: String,
    },
    Execute {
        portal: String,
        /// 0 = no limit.
        max_rows: u32,
    },
    Sync,
    Flush,
    Close {
        kind: u8,
        name: String,
    },
    CopyData(Vec<u8>),
    CopyDone,
    CopyFail(String),
    /// A message that was framed correctly but whose content could not be
    /// read (e.g. a string that is not UTF-8): reported as an ERROR where
    /// the message stood, and the session goes on, as in PostgreSQL.
    /// `query`: it was a Query (answered with ReadyForQuery), else an
    /// extended-protocol message (the rest up to Sync is skipped).
    Invalid {
        error: nestor_common::DbError,
        query: bool,
    },
}

/// One column of a RowDescription.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDesc {
    pub name: String,
    pub table_oid: u32,
    pub column_id: i16,
    pub type_oid: u32,
    pub type_size: i16,
    pub type_modifier: i32,
    pub format: FormatCode,
}

/// Transaction status byte of ReadyForQuery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxnStatus {
    /// 'I': not in a transaction block.
    Idle,
    /// 'T': in a transaction block.
    InBlock,
    /// 'E': in a failed transaction block.
    Failed,
}

impl TxnStatus {
    pub fn as_byte(self) -> u8 {
        match self {
            TxnStatus::Idle => b'I',
            TxnStatus::InBlock => b'T',
            TxnStatus::Failed => b'E',
        }
    }
}

/// Messages to the client, in the order they must be sent.
#[derive(Clone, Debug, PartialEq)]
pub enum BackendMsg {
    RowDescription(Vec<FieldDesc>),
    NoData,
    /// One value per column, already encoded in the column's format.
    DataRow(Vec<Option<Vec<u8>>>),
    CommandComplete(nestor_exec::CommandTag),
    EmptyQueryResponse,
    /// An ERROR (severity is in the error).
    Error(DbError),
    /// NOTICE or WARNING.
    Notice(DbError),
    ParseComplete,
    BindComplete,
    CloseComplete,
    ParameterDescription(Vec<u32>),
    PortalSuspended,
    ReadyForQuery(TxnStatus),
    /// Overall format (0 text, 1 binary) and per-column formats.
    CopyInResponse {
        format: i8,
        column_formats: Vec<FormatCode>,
    },
    CopyOutResponse {
        format: i8,
        column_formats: Vec<FormatCode>,
    },
    CopyData(Vec<u8>),
    CopyDone,
    /// A run-time parameter changed (e.g. after SET application_name).
    ParameterStatus(String, String),
    /// NotificationResponse: a NOTIFY from session `pid`.
    Notification {
        pid: i32,
        channel: String,
        payload: String,
    },
}
