//! # nestor-settings: run-time parameters (GUCs)
//!
//! Definitions, value parsing and canonical spelling, and the transactional
//! behaviour of SET for one session.
//!
//! Every parameter has one canonical text value (what SHOW prints and what
//! [`Settings`] hands the query engine): `statement_timeout = 5000` is kept
//! as `5s`, `DateStyle = 'iso'` as `ISO, MDY`. Typed readers
//! ([`SessionSettings::duration`]) parse the canonical text back, so there is
//! exactly one representation to keep consistent.
//!
//! SET is transactional, as in PostgreSQL:
//!
//! ```text
//!   session values   <- SET (survive COMMIT, revert on ROLLBACK)
//!   local overrides  <- SET LOCAL (dropped at transaction end)
//!   frames[0]        =  state at transaction start      (lazily saved)
//!   frames[1..]      =  state at each open savepoint    (lazily saved)
//! ```
//!
//! A frame is saved only when the first SET happens while it is the
//! innermost one; until then it is `None`, meaning "nothing changed since this
//! frame began". So a transaction or a savepoint that sets nothing costs one
//! `None` push, which matters for workloads with very many savepoints.
//! Restoring to frame `i` uses the first saved frame at or above `i`: any
//! frame between them that is `None` saw no change, so that saved state is
//! also the state at frame `i`'s start.
//!
//! `transaction_isolation`, `transaction_read_only` and
//! `transaction_deferrable` are per-transaction
//! and live in the transaction block; the session mirrors them into the view
//! with [`SessionSettings::set_virtual`] so SHOW and current_setting see them.
//!
//! Parameters marked `report` are sent to the client as ParameterStatus when
//! their effective value changes, just before ReadyForQuery (PostgreSQL 14+
//! batches them the same way), so a SET that a ROLLBACK reverts is reported
//! back too.

#![forbid(unsafe_code)]

use std::collections::BTreeMap;

use nestor_common::{DbError, SqlState};
use nestor_types::datestyle::{DateStyle, IntervalStyle};
use nestor_types::datetime::TimeZone;

/// The settings a statement executes under, as the engine reads them: the
/// canonical text of every parameter (SHOW, current_setting) and typed
/// values parsed once, when a value changes (see
/// [`SessionSettings::view`]).
#[derive(Clone, Debug)]
pub struct Settings {
    values: BTreeMap<String, String>,
    pub time_zone: TimeZone,
    pub extra_float_digits: i8,
    pub date_style: DateStyle,
    pub interval_style: IntervalStyle,
    /// bytea_output = escape.
    pub bytea_escape: bool,
    /// default_text_search_config, as the configuration's OID.
    pub ts_config: u32,
    /// standard_conforming_strings: off makes `'…'` take backslash
    /// escapes (nestor_parser::nonstandard).
    pub standard_conforming_strings: bool,
    /// escape_string_warning: warn of backslashes in `'…'` when off.
    pub escape_string_warning: bool,
    /// plpgsql.extra_warnings and plpgsql.extra_errors: the checks
    /// (`PLPGSQL_CHECK_*` bits) that warn, and those that fail.
    pub plpgsql_extra_warnings: u8,
    pub plpgsql_extra_errors: u8,
    pub statement_timeout_ms: u64,
    pub lock_timeout_ms: u64,
    pub deadlock_timeout_ms: u64,
    pub idle_in_transaction_session_timeout_ms: u64,
    pub default_transaction_read_only: bool,
    /// synchronous_commit is not `off`.
    pub synchronous_commit: bool,
    /// For pg_stat_activity, read at every statement boundary.
    pub application_name: String,
    /// nestor.query_memory_max in bytes; None (-1): the server's default,
    /// a share of its memory limit.
    pub query_memory_max_bytes: Option<u64>,
    /// work_mem in bytes: what one sort or hash table may hold before it
    /// spills to temporary files.
    pub work_mem_bytes: usize,
    /// temp_file_limit in bytes (None: -1, unlimited): what one
    /// statement's temporary files may hold at once.
    pub temp_file_limit_bytes: Option<u64>,
    /// max_stack_depth in bytes.
    pub max_stack_depth_bytes: usize,
    /// pg_stat_statements.track is not `none`.
    pub track_statements: bool,
    /// pg_stat_statements.track_utility (and track not `none`).
    pub track_utility: bool,
    /// pg_stat_statements.track is `all`: statements run by functions
    /// count too.
    pub track_nested: bool,
    /// log_min_duration_statement in milliseconds (None: -1, off).
    pub log_min_duration_ms: Option<u64>,
    /// log_lock_waits: log a wait that outlasts deadlock_timeout.
    pub log_lock_waits: bool,
    /// log_min_messages as a rank in [`LOG_LEVELS`]: a message of a
    /// severity ranked below it is not logged.
    pub log_min_messages: u8,
    /// log_min_error_statement as a rank in [`LOG_LEVELS`]: a logged
    /// message ranked at or above it carries its statement.
    pub log_min_error_statement: u8,
    /// nestor.long_transaction_warning in milliseconds (0: off).
    pub long_transaction_warning_ms: u64,
    /// default_transaction_isolation, one of its canonical names ("read
    /// committed", ...), read when each transaction starts.
    pub default_transaction_isolation: &'static str,
    /// default_transaction_deferrable.
    pub default_transaction_deferrable: bool,
}

/// The server log's levels, lowest first, as log_min_messages and
/// log_min_error_statement take them (PostgreSQL ranks LOG between ERROR
/// and FATAL for the server log).
pub const LOG_LEVELS: &[&str] = &[
    "debug5", "debug4", "debug3", "debug2", "debug1", "info", "notice", "warning", "error", "log",
    "fatal", "panic",
];

/// The rank of a level name (or a message's severity, any case) in
/// [`LOG_LEVELS`]; DEBUG is debug1's rank, an unknown name panic's.
pub fn log_level_rank(level: &str) -> u8 {
    let level = if level.eq_ignore_ascii_case("debug") {
        "debug1"
    } else {
        level
    };
    LOG_LEVELS
        .iter()
        .position(|l| l.eq_ignore_ascii_case(level))
        .unwrap_or(LOG_LEVELS.len() - 1) as u8
}

/// [`log_level_rank`] of LOG: the level of log_min_duration_statement's
/// and log_lock_waits' lines.
pub const LOG_RANK: u8 = 9;

impl Settings {
    /// Every parameter at its default.
    pub fn defaults() -> Settings {
        let values = DEFS
            .iter()
            .map(|d| (d.name.to_ascii_lowercase(), d.default.to_string()))
            .collect();
        Settings::from_values(values)
    }

    /// Typed values from canonical text. Every value was checked when it
    /// was set, so a parse failure here is a broken invariant.
    fn from_values(values: BTreeMap<String, String>) -> Settings {
        let text = |name: &str| values.get(name).map(String::as_str).unwrap_or("");
        let millis = |name: &str| {
            let d = find_def(name).expect("a defined duration parameter");
            let ms = parse_millis(d.name, text(name), 0).expect("canonical duration");
            u64::try_from(ms).expect("durations are not negative")
        };
        let time_zone = TimeZone::parse(text("timezone")).expect("canonical TimeZone");
        let extra: i8 = text("extra_float_digits")
            .parse()
            .expect("canonical extra_float_digits");
        Settings {
            time_zone,
            extra_float_digits: extra,
            date_style: text("datestyle").parse().expect("canonical DateStyle"),
            interval_style: IntervalStyle::from_setting(text("intervalstyle"))
                .expect("canonical IntervalStyle"),
            bytea_escape: text("bytea_output") == "escape",
            ts_config: nestor_types::tsearch::config::config_oid(text(
                "default_text_search_config",
            ))
            .expect("canonical default_text_search_config"),
            standard_conforming_strings: text("standard_conforming_strings") == "on",
            escape_string_warning: text("escape_string_warning") == "on",
            plpgsql_extra_warnings: plpgsql_extra_checks(text("plpgsql.extra_warnings"))
                .expect("checked when set"),
            plpgsql_extra_errors: plpgsql_extra_checks(text("plpgsql.extra_errors"))
                .expect("checked when set"),
            statement_timeout_ms: millis("statement_timeout"),
            lock_timeout_ms: millis("lock_timeout"),
            deadlock_timeout_ms: millis("deadlock_timeout"),
            idle_in_transaction_session_timeout_ms: millis("idle_in_transaction_session_timeout"),
            default_transaction_read_only: text("default_transaction_read_only") == "on",
            default_transaction_isolation: ISOLATIONS
                .iter()
                .find(|c| **c == text("default_transaction_isolation"))
                .expect("canonical default_transaction_isolation"),
            default_transaction_deferrable: text("default_transaction_deferrable") == "on",
            synchronous_commit: text("synchronous_commit") != "off",
            application_name: text("application_name").to_string(),
            track_statements: text("pg_stat_statements.track") != "none",
            track_utility: text("pg_stat_statements.track") != "none"
                && text("pg_stat_statements.track_utility") == "on",
            track_nested: text("pg_stat_statements.track") == "all",
            long_transaction_warning_ms: millis("nestor.long_transaction_warning"),
            log_lock_waits: text("log_lock_waits") == "on",
            log_min_messages: log_level_rank(text("log_min_messages")),
            log_min_error_statement: log_level_rank(text("log_min_error_statement")),
            log_min_duration_ms: parse_millis(
                "log_min_duration_statement",
                text("log_min_duration_statement"),
                -1,
            )
            .ok()
            .and_then(|ms| u64::try_from(ms).ok()),
            query_memory_max_bytes: parse_kilobytes(
                "nestor.query_memory_max",
                text("nestor.query_memory_max"),
                -1,
                64,
            )
            .expect("canonical memory size")
            .and_then(|kb| u64::try_from(kb).ok())
            .map(|kb| kb.saturating_mul(1024)),
            work_mem_bytes: parse_kilobytes("work_mem", text("work_mem"), 64, 64)
                .expect("canonical memory size")
                .map_or(usize::MAX, |kb| {
                    usize::try_from(kb)
                        .unwrap_or(usize::MAX)
                        .saturating_mul(1024)
                }),
            temp_file_limit_bytes: parse_kilobytes(
                "temp_file_limit",
                text("temp_file_limit"),
                -1,
                0,
            )
            .expect("canonical memory size")
            .and_then(|kb| u64::try_from(kb).ok())
            .map(|kb| kb.saturating_mul(1024)),
            max_stack_depth_bytes: parse_kilobytes(
                "max_stack_depth",
                text("max_stack_depth"),
                100,
                100,
            )
            .expect("canonical memory size")
            .map_or(nestor_common::limits::STACK_DEPTH_BYTES_MAX, |kb| {
                usize::try_from(kb)
                    .unwrap_or(usize::MAX)
                    .saturating_mul(1024)
            }),
            values,
        }
    }

    /// Every parameter for pg_settings: name, canonical value, vartype
    /// (`bool`, `integer`, `real`, `string`, `enum`), context (`user`, or
    /// `internal` for those fixed at start) and description, by name.
    pub fn all(&self) -> Vec<SettingRow> {
        let mut rows: Vec<SettingRow> = DEFS
            .iter()
            .map(|d| SettingRow {
                name: d.name,
                value: self.get(d.name).unwrap_or_default().to_string(),
                vartype: match d.kind {
                    Kind::Bool => "bool",
                    Kind::Int { .. }
                    | Kind::Millis { .. }
                    | Kind::Kilobytes { .. }
                    | Kind::StackDepth => "integer",
                    Kind::Real { .. } => "real",
                    Kind::Enum(_) => "enum",
                    _ => "string",
                },
                context: if d.read_only { "internal" } else { "user" },
                desc: d.desc,
            })
            .collect();
        rows.sort_by_key(|r| r.name.to_ascii_lowercase());
        rows
    }

    /// A parameter's canonical text (names are case-insensitive).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }
}

/// A `set_config()` call made by a statement: the engine checks the value
/// with [`canonicalize`] and records the change; the session applies it
/// when the statement succeeds.
#[derive(Clone, Debug, PartialEq, Eq)]
/// One parameter as pg_settings shows it ([`Settings::all`]).
pub struct SettingRow {
    pub name: &'static str,
    pub value: String,
    pub vartype: &'static str,
    pub context: &'static str,
    pub desc: &'static str,
}

pub struct SettingChange {
    pub name: String,
    /// Canonical value (from [`canonicalize`]).
    pub value: String,
    pub is_local: bool,
}

/// How a parameter's value is parsed and spelled.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Bool,
    Int {
        min: i64,
        max: i64,
    },
    /// A floating-point value (the planner's cost constants).
    Real {
        min: f64,
        max: f64,
    },
    /// A duration in milliseconds (units us, ms, s, min, h, d accepted).
    Millis {
        min: i64,
    },
    /// A memory size in kB (units B, kB, MB, GB, TB accepted): at least
    /// `least`, or -1 where `min` is -1.
    Kilobytes {
        min: i64,
        least: i64,
    },
    /// max_stack_depth: kB, at most the stack sessions run on allows.
    StackDepth,
    Enum(&'static [&'static str]),
    /// A locale name (lc_messages and the like): Nestor formats numbers,
    /// money and dates only as the C locale does, so only C and POSIX
    /// (with or without an encoding suffix) are accepted.
    Locale,
    Str,
    DateStyle,
    TimeZone,
    Encoding,
    SearchPath,
}

/// One parameter definition.
struct Def {
    name: &'static str,
    default: &'static str,
    kind: Kind,
    /// Sent as ParameterStatus.
    report: bool,
    /// Fixed at server start (SET fails with 55P02 in PostgreSQL).
    read_only: bool,
    desc: &'static str,
}

const ISOLATIONS: &[&str] = &[
    "serializable",
    "repeatable read",
    "read committed",
    "read uncommitted",
];

/// The version string reported to clients (drivers parse the leading number).
pub(crate) const SERVER_VERSION: &str = "15.0 (Nestor 0.1.0)";

const fn def(name: &'static str, default: &'static str, kind: Kind, desc: &'static str) -> Def {
    Def {
        name,
        default,
        kind,
        report: false,
        read_only: false,
        desc,
    }
}

const fn reported(mut d: Def) -> Def {
    d.report = true;
    d
}

const fn fixed(mut d: Def) -> Def {
    d.read_only = true;
    d
}

const MS: Kind = Kind::Millis { min: 0 };

static DEFS: &[Def] = &[
    reported(def(
        "application_name",
        "",
        Kind::Str,
        "Sets the application name to be reported in statistics and logs.",
    )),
    reported(def(
        "client_encoding",
        "UTF8",
        Kind::Encoding,
        "Sets the client's character set encoding.",
    )),
    def(
        "client_min_messages",
        "notice",
        Kind::Enum(&[
            "debug5", "debug4", "debug3", "debug2", "debug1", "log", "notice", "warning", "error",
        ]),
        "Sets the message levels that are sent to the client.",
    ),
    reported(def(
        "DateStyle",
        "ISO, MDY",
        Kind::DateStyle,
        "Sets the display format for date and time values.",
    )),
    def(
        "deadlock_timeout",
        "1s",
        Kind::Millis { min: 1 },
        "Sets the time to wait on a lock before checking for deadlock.",
    ),
    reported(def(
        "default_transaction_read_only",
        "off",
        Kind::Bool,
        "Sets the default read-only status of new transactions.",
    )),
    def(
        "default_transaction_deferrable",
        "off",
        Kind::Bool,
        "Sets the default deferrable status of new transactions.",
    ),
    def(
        "default_transaction_isolation",
        "read committed",
        Kind::Enum(ISOLATIONS),
        "Sets the transaction isolation level of each new transaction.",
    ),
    def(
        "extra_float_digits",
        "1",
        Kind::Int { min: -15, max: 3 },
        "Sets the number of digits displayed for floating-point values.",
    ),
    def(
        "idle_in_transaction_session_timeout",
        "0",
        MS,
        "Sets the maximum allowed idle time between queries, when in a transaction.",
    ),
    reported(fixed(def(
        "in_hot_standby",
        "off",
        Kind::Bool,
        "Shows whether hot standby is currently active.",
    ))),
    reported(fixed(def(
        "integer_datetimes",
        "on",
        Kind::Bool,
        "Shows whether datetimes are integer based.",
    ))),
    reported(def(
        "IntervalStyle",
        "postgres",
        Kind::Enum(&["postgres", "postgres_verbose", "sql_standard", "iso_8601"]),
        "Sets the display format for interval values.",
    )),
    reported(fixed(def(
        "is_superuser",
        "on",
        Kind::Bool,
        "Shows whether the current user is a superuser.",
    ))),
    def(
        "log_lock_waits",
        "off",
        Kind::Bool,
        "Logs long lock waits.",
    ),
    def(
        "log_min_duration_statement",
        "-1",
        Kind::Millis { min: -1 },
        "Sets the minimum execution time above which all statements will be logged.",
    ),
    def(
        "log_min_error_statement",
        "error",
        Kind::Enum(LOG_LEVELS),
        "Causes all statements generating error at or above this level to be logged.",
    ),
    def(
        "log_min_messages",
        "warning",
        Kind::Enum(LOG_LEVELS),
        "Sets the message levels that are logged.",
    ),
    // Fixed for a session: the server's --log-destination, which the
    // session mirrors in (set_virtual) when it is not the default.
    fixed(def(
        "log_destination",
        "stderr",
        Kind::Enum(&["stderr", "jsonlog"]),
        "Sets the destination for server log output.",
    )),
    def(
        "lock_timeout",
        "0",
        MS,
        "Sets the maximum allowed duration of any wait for a lock.",
    ),
    fixed(def(
        "max_identifier_length",
        "63",
        Kind::Int { min: 63, max: 63 },
        "Shows the maximum identifier length.",
    )),
    fixed(def(
        "max_function_args",
        "100",
        Kind::Int { min: 100, max: 100 },
        "Shows the maximum number of function arguments.",
    )),
    fixed(def(
        "max_index_keys",
        "32",
        Kind::Int { min: 32, max: 32 },
        "Shows the maximum number of index keys.",
    )),
    def(
        "nestor.long_transaction_warning",
        "1h",
        MS,
        "Logs a warning once when a transaction has been open this long (0: never).",
    ),
    def(
        "nestor.query_memory_max",
        "-1",
        Kind::Kilobytes { min: -1, least: 64 },
        "Sets the maximum memory one statement's sorts, hash tables and materialized results may hold (-1: a quarter of the server's memory limit).",
    ),
    def(
        "temp_file_limit",
        "-1",
        Kind::Kilobytes { min: -1, least: 0 },
        "Limits the total size of all temporary files used by each process.",
    ),
    def(
        "work_mem",
        "4MB",
        Kind::Kilobytes { min: 64, least: 64 },
        "Sets the maximum memory to be used for query workspaces.",
    ),
    fixed(def(
        "pg_stat_statements.max",
        "5000",
        Kind::Int {
            min: 5000,
            max: 5000,
        },
        "Sets the maximum number of statements tracked by pg_stat_statements.",
    )),
    def(
        "pg_stat_statements.track",
        "top",
        Kind::Enum(&["top", "all", "none"]),
        "Selects which statements are tracked by pg_stat_statements.",
    ),
    def(
        "pg_stat_statements.track_utility",
        "on",
        Kind::Bool,
        "Selects whether utility commands are tracked by pg_stat_statements.",
    ),
    def(
        "search_path",
        "\"$user\", public",
        Kind::SearchPath,
        "Sets the schema search order for names that are not schema-qualified.",
    ),
    reported(fixed(def(
        "server_encoding",
        "UTF8",
        Kind::Encoding,
        "Shows the server (database) character set encoding.",
    ))),
    reported(fixed(def(
        "server_version",
        SERVER_VERSION,
        Kind::Str,
        "Shows the server version.",
    ))),
    fixed(def(
        "server_version_num",
        "150000",
        Kind::Str,
        "Shows the server version as an integer.",
    )),
    reported(fixed(def(
        "session_authorization",
        "",
        Kind::Str,
        "Sets the session user name.",
    ))),
    // Set through SET ROLE, which the session checks (membership).
    def(
        "role",
        "none",
        Kind::Str,
        "Sets the current role.",
    ),
    reported(def(
        "standard_conforming_strings",
        "on",
        Kind::Bool,
        "Causes '...' strings to treat backslashes literally.",
    )),
    def(
        "statement_timeout",
        "0",
        MS,
        "Sets the maximum allowed duration of any statement.",
    ),
    def(
        "synchronous_commit",
        "on",
        Kind::Enum(&["local", "remote_write", "remote_apply", "on", "off"]),
        "Sets the current transaction's synchronization level.",
    ),
    reported(def(
        "TimeZone",
        "UTC",
        Kind::TimeZone,
        "Sets the time zone for displaying and interpreting time stamps.",
    )),
    def(
        "max_stack_depth",
        if cfg!(debug_assertions) {
            "512MB"
        } else {
            "128MB"
        },
        Kind::StackDepth,
        "Sets the maximum stack depth, in kilobytes.",
    ),
    def(
        "check_function_bodies",
        "on",
        Kind::Bool,
        "Check routine bodies during CREATE FUNCTION and CREATE PROCEDURE.",
    ),
    // Parameters pg_dump and its dumps set. Their effect is Nestor's
    // behaviour anyway (no row security policies, no tablespaces, one
    // table access method, scans do not synchronize, XML is not a type),
    // so only the values that mean that are accepted where others exist.
    def(
        "synchronize_seqscans",
        "on",
        Kind::Bool,
        "Enable synchronized sequential scans.",
    ),
    def(
        "row_security",
        "on",
        Kind::Bool,
        "Enable row security.",
    ),
    def(
        "quote_all_identifiers",
        "off",
        Kind::Bool,
        "When generating SQL fragments, quote all identifiers.",
    ),
    def(
        "xmloption",
        "content",
        Kind::Enum(&["content", "document"]),
        "Sets whether XML data in implicit parsing and serialization operations is to be considered as documents or content fragments.",
    ),
    def(
        "default_tablespace",
        "",
        Kind::Enum(&["", "pg_default"]),
        "Sets the default tablespace to create tables and indexes in.",
    ),
    def(
        "default_table_access_method",
        "heap",
        Kind::Enum(&["heap"]),
        "Sets the default table access method for new tables.",
    ),
    // Accepted for pg_dump and scripts; Nestor does not compress values.
    def(
        "default_toast_compression",
        "pglz",
        Kind::Enum(&["pglz", "lz4"]),
        "Sets the default compression method for compressible values.",
    ),
    // The configuration the one-argument to_tsvector and to_tsquery
    // forms use (Nestor has simple and english).
    def(
        "default_text_search_config",
        "pg_catalog.english",
        Kind::Str,
        "Sets default text search configuration.",
    ),
    def(
        "bytea_output",
        "hex",
        Kind::Enum(&["escape", "hex"]),
        "Sets the output format for bytea.",
    ),
    // Which triggers fire (pg_trigger.tgenabled): origin and local fire
    // those enabled (O) and ALWAYS, replica those enabled REPLICA and
    // ALWAYS. Nestor has no rewrite rules it would affect.
    def(
        "session_replication_role",
        "origin",
        Kind::Enum(&["origin", "replica", "local"]),
        "Sets the session's behavior for triggers and rewrite rules.",
    ),
    def(
        "escape_string_warning",
        "on",
        Kind::Bool,
        "Warn about backslash escapes in ordinary string literals.",
    ),
    def(
        "array_nulls",
        "on",
        Kind::Enum(&["on"]),
        "Enable input of NULL elements in arrays.",
    ),
    // PL/pgSQL's own parameters (PostgreSQL defines them when plpgsql is
    // loaded, which every database does).
    def(
        "plpgsql.variable_conflict",
        "error",
        Kind::Enum(&["error", "use_variable", "use_column"]),
        "Sets handling of conflicts between PL/pgSQL variable names and table column names.",
    ),
    def(
        "plpgsql.print_strict_params",
        "off",
        Kind::Bool,
        "Print information about parameters in the DETAIL portion of the error messages generated on INTO ... STRICT failures.",
    ),
    def(
        "plpgsql.extra_warnings",
        "none",
        Kind::Str,
        "List of programming constructs that should produce a warning.",
    ),
    def(
        "plpgsql.extra_errors",
        "none",
        Kind::Str,
        "List of programming constructs that should produce an error.",
    ),
    def(
        "plpgsql.check_asserts",
        "on",
        Kind::Bool,
        "Perform checks given in ASSERT statements.",
    ),
    // The planner's method switches and cost constants. Nestor's planner
    // chooses by the shape of the query, not by costs, so these are
    // accepted and shown (tools and test suites set them) but change no
    // plan.
    def("enable_bitmapscan", "on", Kind::Bool, "Enables the planner's use of bitmap-scan plans."),
    def("enable_gathermerge", "on", Kind::Bool, "Enables the planner's use of gather merge plans."),
    def("enable_hashagg", "on", Kind::Bool, "Enables the planner's use of hashed aggregation plans."),
    def("enable_hashjoin", "on", Kind::Bool, "Enables the planner's use of hash join plans."),
    def("enable_incremental_sort", "on", Kind::Bool, "Enables the planner's use of incremental sort steps."),
    def("enable_indexonlyscan", "on", Kind::Bool, "Enables the planner's use of index-only-scan plans."),
    def("enable_indexscan", "on", Kind::Bool, "Enables the planner's use of index-scan plans."),
    def("enable_material", "on", Kind::Bool, "Enables the planner's use of materialization."),
    def("enable_memoize", "on", Kind::Bool, "Enables the planner's use of memoization."),
    def("enable_mergejoin", "on", Kind::Bool, "Enables the planner's use of merge join plans."),
    def("enable_nestloop", "on", Kind::Bool, "Enables the planner's use of nested-loop join plans."),
    def("enable_seqscan", "on", Kind::Bool, "Enables the planner's use of sequential-scan plans."),
    def("enable_sort", "on", Kind::Bool, "Enables the planner's use of explicit sort steps."),
    def("enable_tidscan", "on", Kind::Bool, "Enables the planner's use of TID scan plans."),
    def(
        "cpu_index_tuple_cost",
        "0.005",
        Kind::Real {
            min: 0.0,
            max: f64::MAX,
        },
        "Sets the planner's estimate of the cost of processing each index entry during an index scan.",
    ),
    def(
        "cpu_operator_cost",
        "0.0025",
        Kind::Real {
            min: 0.0,
            max: f64::MAX,
        },
        "Sets the planner's estimate of the cost of processing each operator or function call.",
    ),
    def(
        "cpu_tuple_cost",
        "0.01",
        Kind::Real {
            min: 0.0,
            max: f64::MAX,
        },
        "Sets the planner's estimate of the cost of processing each tuple (row).",
    ),
    def(
        "parallel_setup_cost",
        "1000",
        Kind::Real {
            min: 0.0,
            max: f64::MAX,
        },
        "Sets the planner's estimate of the cost of starting up worker processes for parallel query.",
    ),
    def(
        "parallel_tuple_cost",
        "0.1",
        Kind::Real {
            min: 0.0,
            max: f64::MAX,
        },
        "Sets the planner's estimate of the cost of passing each tuple (row) from worker to leader backend.",
    ),
    def(
        "random_page_cost",
        "4",
        Kind::Real {
            min: 0.0,
            max: f64::MAX,
        },
        "Sets the planner's estimate of the cost of a nonsequentially fetched disk page.",
    ),
    def(
        "seq_page_cost",
        "1",
        Kind::Real {
            min: 0.0,
            max: f64::MAX,
        },
        "Sets the planner's estimate of the cost of a sequentially fetched disk page.",
    ),
    def(
        "force_parallel_mode",
        "off",
        Kind::Enum(&["off", "on", "regress"]),
        "Forces use of parallel query facilities.",
    ),
    def(
        "parallel_leader_participation",
        "on",
        Kind::Bool,
        "Controls whether Gather and Gather Merge also run subplans.",
    ),
    def(
        "max_parallel_workers",
        "8",
        Kind::Int { min: 0, max: 1024 },
        "Sets the maximum number of parallel workers that can be active at one time.",
    ),
    def(
        "max_parallel_workers_per_gather",
        "2",
        Kind::Int { min: 0, max: 1024 },
        "Sets the maximum number of parallel processes per executor node.",
    ),
    // Accepted and shown; they steer nothing here: Nestor has no JIT, no
    // parallel query, no genetic join search, no constraint exclusion
    // setting (partitions are always pruned) and no separate maintenance
    // memory (CREATE INDEX sorts within work_mem, spilling past it).
    def(
        "jit",
        "off",
        Kind::Bool,
        "Allow JIT compilation.",
    ),
    def(
        "jit_above_cost",
        "100000",
        Kind::Real {
            min: -1.0,
            max: f64::MAX,
        },
        "Perform JIT compilation if query is more expensive.",
    ),
    def(
        "jit_inline_above_cost",
        "500000",
        Kind::Real {
            min: -1.0,
            max: f64::MAX,
        },
        "Perform JIT inlining if query is more expensive.",
    ),
    def(
        "jit_optimize_above_cost",
        "500000",
        Kind::Real {
            min: -1.0,
            max: f64::MAX,
        },
        "Optimize JIT-compiled functions if query is more expensive.",
    ),
    def(
        "min_parallel_table_scan_size",
        "8MB",
        Kind::Kilobytes { min: 0, least: 0 },
        "Sets the minimum amount of table data for a parallel scan.",
    ),
    def(
        "min_parallel_index_scan_size",
        "512kB",
        Kind::Kilobytes { min: 0, least: 0 },
        "Sets the minimum amount of index data for a parallel scan.",
    ),
    def(
        "maintenance_work_mem",
        "64MB",
        Kind::Kilobytes {
            min: 1024,
            least: 1024,
        },
        "Sets the maximum memory to be used for maintenance operations.",
    ),
    def(
        "constraint_exclusion",
        "partition",
        Kind::Enum(&["partition", "on", "off"]),
        "Enables the planner to use constraints to optimize queries.",
    ),
    def("geqo", "on", Kind::Bool, "Enables genetic query optimization."),
    def(
        "geqo_threshold",
        "12",
        Kind::Int {
            min: 2,
            max: i32::MAX as i64,
        },
        "Sets the threshold of FROM items beyond which GEQO is used.",
    ),
    def(
        "lo_compat_privileges",
        "off",
        Kind::Bool,
        "Enables backward compatibility mode for privilege checks on large objects.",
    ),
    def(
        "lc_messages",
        "C",
        Kind::Locale,
        "Sets the language in which messages are displayed.",
    ),
    def(
        "lc_monetary",
        "C",
        Kind::Locale,
        "Sets the locale for formatting monetary amounts.",
    ),
    def(
        "lc_numeric",
        "C",
        Kind::Locale,
        "Sets the locale for formatting numbers.",
    ),
    def(
        "lc_time",
        "C",
        Kind::Locale,
        "Sets the locale for formatting date and time values.",
    ),
    def(
        "default_statistics_target",
        "100",
        Kind::Int { min: 1, max: 10000 },
        "Sets the default statistics target.",
    ),
    def(
        "transaction_deferrable",
        "off",
        Kind::Bool,
        "Whether to defer a read-only serializable transaction until it can be executed with no possible serialization failures.",
    ),
    def(
        "transaction_isolation",
        "read committed",
        Kind::Enum(ISOLATIONS),
        "Sets the current transaction's isolation level.",
    ),
    def(
        "transaction_read_only",
        "off",
        Kind::Bool,
        "Sets the current transaction's read-only status.",
    ),
];

fn find_def(name: &str) -> Option<&'static Def> {
    DEFS.iter().find(|d| d.name.eq_ignore_ascii_case(name))
}

/// The canonical (SHOW) spelling of a parameter name, e.g. `DateStyle`.
pub fn canonical_name(name: &str) -> Result<&'static str, DbError> {
    find_def(name).map(|d| d.name).ok_or_else(|| unknown(name))
}

fn unknown(name: &str) -> DbError {
    DbError::new(
        SqlState::UndefinedObject,
        format!("unrecognized configuration parameter \"{name}\""),
    )
}

fn invalid(name: &str, value: &str) -> DbError {
    DbError::new(
        SqlState::InvalidParameterValue,
        format!("invalid value for parameter \"{name}\": \"{value}\""),
    )
}

/// Check and canonicalize `value` for parameter `name` (what SET stores and
/// what `set_config` returns). Errors as PostgreSQL words them.
pub fn canonicalize(name: &str, value: &str) -> Result<String, DbError> {
    let d = find_def(name).ok_or_else(|| unknown(name))?;
    if d.read_only {
        return Err(DbError::new(
            SqlState::ObjectNotInPrerequisiteState,
            format!("parameter \"{}\" cannot be changed", d.name),
        ));
    }
    canonical_value(d, value)
}

/// [`canonicalize`] for a SET in a session whose settings are `current`:
/// a DateStyle value names only what it changes, the rest is kept.
pub fn canonicalize_from(current: &Settings, name: &str, value: &str) -> Result<String, DbError> {
    let c = canonicalize(name, value)?;
    match find_def(name).map(|d| d.kind) {
        Some(Kind::DateStyle) => datestyle_from(current.date_style, value),
        _ => Ok(c),
    }
}

fn canonical_value(d: &Def, value: &str) -> Result<String, DbError> {
    match d.kind {
        Kind::Bool => parse_bool(value)
            .map(|b| if b { "on" } else { "off" }.to_string())
            .ok_or_else(|| {
                DbError::new(
                    SqlState::InvalidParameterValue,
                    format!("parameter \"{}\" requires a Boolean value", d.name),
                )
            }),
        Kind::Int { min, max } => parse_int(d.name, value, min, max).map(|v| v.to_string()),
        Kind::Real { min, max } => parse_real(d.name, value, min, max).map(format_g),
        Kind::Millis { min } => parse_millis(d.name, value, min).map(format_millis),
        Kind::Kilobytes { min, least } => parse_kilobytes(d.name, value, min, least)
            .map(|kb| kb.map_or("-1".into(), format_kilobytes)),
        Kind::StackDepth => {
            let kb = parse_kilobytes(d.name, value, 100, 100)?.unwrap_or(0);
            let max = (nestor_common::limits::STACK_DEPTH_BYTES_MAX / 1024) as i64;
            if kb > max {
                return Err(invalid(d.name, value)
                    .with_detail(format!("\"max_stack_depth\" must not exceed {max}kB."))
                    .with_hint(
                        "Nestor runs statements on threads with twice this much stack \
                         (SESSION_STACK_BYTES); the limit is STACK_DEPTH_BYTES_MAX.",
                    ));
            }
            Ok(format_kilobytes(kb))
        }
        Kind::Enum(choices) => parse_enum(d, value, choices),
        Kind::Locale => parse_locale(d.name, value),
        Kind::Str if d.name == "default_text_search_config" => {
            nestor_types::tsearch::config::setting_value(value)
                .ok_or_else(|| invalid(d.name, value))
        }
        Kind::Str if d.name.starts_with("plpgsql.extra_") => plpgsql_extra_checks(value)
            .map(|_| value.to_string())
            .map_err(|detail| invalid(d.name, value).with_detail(detail)),
        Kind::Str => Ok(value.to_string()),
        Kind::DateStyle => datestyle_from(DateStyle::ISO_MDY, value),
        Kind::TimeZone => parse_timezone(value).ok_or_else(|| invalid(d.name, value)),
        Kind::Encoding => parse_encoding(d.name, value),
        Kind::SearchPath => Ok(value.to_string()),
    }
}

/// PL/pgSQL's extra checks (plpgsql.extra_warnings / extra_errors).
pub const PLPGSQL_CHECK_SHADOWED_VARIABLES: u8 = 1;
pub const PLPGSQL_CHECK_TOO_MANY_ROWS: u8 = 2;
pub const PLPGSQL_CHECK_STRICT_MULTI_ASSIGNMENT: u8 = 4;

/// The checks a plpgsql.extra_warnings / extra_errors value names
/// (check_plpgsql_extra_checks): `all`, `none`, or a comma list of
/// shadowed_variables, too_many_rows, strict_multi_assignment, names
/// folded as identifiers; Err is the DETAIL of the invalid value.
pub fn plpgsql_extra_checks(value: &str) -> Result<u8, String> {
    let items = search_path_items(value);
    let mut bits = 0;
    for item in &items {
        bits |= match item.as_str() {
            "all" | "none" if items.len() > 1 => {
                return Err(format!(
                    "Key word \"{item}\" cannot be combined with other key words."
                ))
            }
            "all" => {
                PLPGSQL_CHECK_SHADOWED_VARIABLES
                    | PLPGSQL_CHECK_TOO_MANY_ROWS
                    | PLPGSQL_CHECK_STRICT_MULTI_ASSIGNMENT
            }
            "none" => 0,
            "shadowed_variables" => PLPGSQL_CHECK_SHADOWED_VARIABLES,
            "too_many_rows" => PLPGSQL_CHECK_TOO_MANY_ROWS,
            "strict_multi_assignment" => PLPGSQL_CHECK_STRICT_MULTI_ASSIGNMENT,
            other => return Err(format!("Unrecognized key word: \"{other}\".")),
        };
    }
    Ok(bits)
}

/// The schema names of a search_path value, in order: items split at
/// commas outside double quotes, a quoted item taken as written (`""` a
/// quote), an unquoted one trimmed and in lower case (PostgreSQL's
/// SplitIdentifierString); `"$user"` stays `$user`.
pub fn search_path_items(value: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                cur.push('"');
            }
            '"' => {
                quoted = !quoted;
                cur.push('\0');
            }
            ',' if !quoted => items.push(std::mem::take(&mut cur)),
            c if quoted => cur.push(c),
            c => cur.extend(c.to_lowercase()),
        }
    }
    items.push(cur);
    items
        .into_iter()
        .map(|i| i.trim().replace('\0', ""))
        .filter(|i| !i.is_empty())
        .collect()
}

fn parse_bool(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" | "t" | "y" => Some(true),
        "off" | "false" | "no" | "0" | "f" | "n" => Some(false),
        _ => None,
    }
}

fn parse_real(name: &str, value: &str, min: f64, max: f64) -> Result<f64, DbError> {
    let v: f64 = value
        .trim()
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite())
        .ok_or_else(|| invalid(name, value))?;
    if v < min || v > max {
        let (v, min, max) = (format_g(v), format_g(min), format_g(max));
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            format!("{v} is outside the valid range for parameter \"{name}\" ({min} .. {max})"),
        ));
    }
    Ok(v)
}

/// C's `%g`: six significant digits, trailing zeros dropped, an exponent
/// below 1e-4 or from 1e6 (how PostgreSQL shows real parameters).
fn format_g(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let exp = v.abs().log10().floor() as i32;
    let trim = |t: String| -> String {
        if t.contains('.') {
            t.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            t
        }
    };
    // Rounding to six digits may carry into the next power of ten.
    let mantissa = v / 10f64.powi(exp);
    let (mantissa, exp) = if format!("{:.5}", mantissa.abs()).starts_with("10") {
        (mantissa / 10.0, exp + 1)
    } else {
        (mantissa, exp)
    };
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(format!("{mantissa:.5}")), exp.abs())
    } else {
        trim(format!("{v:.*}", (5 - exp) as usize))
    }
}

#[cfg(test)]
mod observability_tests {
    use super::*;

    #[test]
    fn statement_statistics_parameters() {
        let s = Settings::defaults();
        // SHOW pg_stat_statements.max tells the limit the store applies.
        assert_eq!(
            s.get("pg_stat_statements.max"),
            Some(
                nestor_common::limits::STAT_STATEMENTS_MAX
                    .to_string()
                    .as_str()
            )
        );
        assert!(s.track_statements);
        assert!(s.track_utility);
        assert!(!s.track_nested);
        assert_eq!(s.log_min_messages, log_level_rank("WARNING"));
        assert_eq!(s.log_min_error_statement, log_level_rank("error"));
        assert!(log_level_rank("ERROR") < log_level_rank("LOG"));
        assert!(log_level_rank("LOG") < log_level_rank("FATAL"));
        assert_eq!(log_level_rank("DEBUG"), log_level_rank("debug1"));
        assert_eq!(log_level_rank("LOG"), LOG_RANK);
        assert_eq!(s.log_min_duration_ms, None);
        assert_eq!(s.long_transaction_warning_ms, 3_600_000);
        assert_eq!(
            canonicalize("log_min_duration_statement", "-1").unwrap(),
            "-1"
        );
        assert_eq!(
            canonicalize("log_min_duration_statement", "250").unwrap(),
            "250ms"
        );
        assert!(canonicalize("log_min_duration_statement", "-2").is_err());
        assert!(canonicalize("pg_stat_statements.track", "sometimes").is_err());
    }
}

#[cfg(test)]
mod format_g_tests {
    #[test]
    fn real_parameters_print_as_c_percent_g() {
        for (v, t) in [
            (0.1, "0.1"),
            (4.0, "4"),
            (0.0025, "0.0025"),
            (1000.0, "1000"),
            (1e10, "1e+10"),
            (f64::MAX, "1.79769e+308"),
            (-1.0, "-1"),
            (0.00001, "1e-05"),
            (999999.5, "1e+06"),
            (123456.7, "123457"),
        ] {
            assert_eq!(super::format_g(v), t, "{v}");
        }
    }
}

fn parse_int(name: &str, value: &str, min: i64, max: i64) -> Result<i64, DbError> {
    let v: i64 = value.trim().parse().map_err(|_| {
        DbError::new(
            SqlState::InvalidParameterValue,
            format!("invalid value for parameter \"{name}\": \"{value}\""),
        )
    })?;
    if v < min || v > max {
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            format!("{v} is outside the valid range for parameter \"{name}\" ({min} .. {max})"),
        ));
    }
    Ok(v)
}

/// Parse a duration: a number with an optional unit (default ms).
fn parse_millis(name: &str, value: &str, min: i64) -> Result<i64, DbError> {
    let s = value.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
        .unwrap_or(s.len());
    let (num, unit) = (s[..split].trim(), s[split..].trim());
    let n: f64 = num.parse().map_err(|_| invalid(name, value))?;
    let factor = match unit {
        "" | "ms" => 1.0,
        "us" => 0.001,
        "s" => 1_000.0,
        "min" => 60_000.0,
        "h" => 3_600_000.0,
        "d" => 86_400_000.0,
        _ => return Err(invalid(name, value).with_hint(
            "Valid units for this parameter are \"us\", \"ms\", \"s\", \"min\", \"h\", and \"d\".",
        )),
    };
    let ms = (n * factor).round();
    let max = i32::MAX as i64;
    if !(min as f64..=max as f64).contains(&ms) {
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            format!("{ms} ms is outside the valid range for parameter \"{name}\" ({min} .. {max})"),
        ));
    }
    Ok(ms as i64)
}

/// Parse a memory size as PostgreSQL's memory parameters take it: a number
/// of kB, or a number with a unit (B, kB, MB, GB, TB; case-sensitive).
/// -1 (None) where `min` allows it. Returns kB.
/// A memory size in kB: -1 (None) where `min` allows it, else at least
/// `least` (the range the error names runs from `min`).
fn parse_kilobytes(name: &str, value: &str, min: i64, least: i64) -> Result<Option<i64>, DbError> {
    let v = value.trim();
    if v == "-1" && min < 0 {
        return Ok(None);
    }
    let digits = v.strip_prefix('-').unwrap_or(v);
    let kb = if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        v.parse::<i64>().map_err(|_| invalid(name, value))?
    } else {
        let bytes = nestor_common::units::parse_bytes(v).map_err(|_| {
            invalid(name, value).with_hint(
                "Valid units for this parameter are \"B\", \"kB\", \"MB\", \"GB\", and \"TB\".",
            )
        })?;
        // PostgreSQL rounds to the parameter's unit.
        i64::try_from(bytes.div_ceil(1024)).map_err(|_| invalid(name, value))?
    };
    let max = i32::MAX as i64;
    if !(least..=max).contains(&kb) {
        return Err(DbError::new(
            SqlState::InvalidParameterValue,
            format!("{kb} kB is outside the valid range for parameter \"{name}\" ({min} .. {max})"),
        ));
    }
    Ok(Some(kb))
}

/// PostgreSQL's spelling of a memory size: the largest unit that divides it.
fn format_kilobytes(kb: i64) -> String {
    if kb == 0 {
        return "0".into();
    }
    for (unit, size) in [("TB", 1i64 << 30), ("GB", 1 << 20), ("MB", 1 << 10)] {
        if kb.rem_euclid(size) == 0 {
            return format!("{}{unit}", kb / size);
        }
    }
    format!("{kb}kB")
}

/// PostgreSQL's spelling of a duration: the largest unit that divides it.
fn format_millis(ms: i64) -> String {
    // -1 is "off" where a parameter allows it (log_min_duration_statement).
    if ms <= 0 {
        return ms.to_string();
    }
    for (unit, size) in [
        ("d", 86_400_000),
        ("h", 3_600_000),
        ("min", 60_000),
        ("s", 1_000),
    ] {
        if ms.rem_euclid(size) == 0 {
            return format!("{}{unit}", ms / size);
        }
    }
    format!("{ms}ms")
}

fn parse_enum(d: &Def, value: &str, choices: &[&str]) -> Result<String, DbError> {
    let v = value.trim().to_ascii_lowercase();
    let v = match (d.name, v.as_str()) {
        ("synchronous_commit", other) => match parse_bool(other) {
            Some(b) => if b { "on" } else { "off" }.to_string(),
            None => v,
        },
        _ => v,
    };
    if choices.contains(&v.as_str()) {
        return Ok(v);
    }
    // PostgreSQL names the parameter as the SET statement spelled it (an
    // identifier, so lower case) for enum values.
    let name = d.name.to_ascii_lowercase();
    Err(invalid(&name, value).with_hint(format!("Available values: {}.", choices.join(", "))))
}

/// A locale Nestor has: C or POSIX, optionally with an encoding
/// (`C.UTF-8`); empty means the server's, C. Others are 22023, as a
/// locale PostgreSQL's server does not have.
fn parse_locale(name: &str, value: &str) -> Result<String, DbError> {
    let base = value.split('.').next().unwrap_or("");
    if value.is_empty() {
        return Ok("C".into());
    }
    if base == "C" || base == "POSIX" {
        return Ok(value.to_string());
    }
    Err(invalid(name, value))
}

/// check_datestyle: `value` applied on top of `base` (`SET datestyle =
/// 'dmy'` keeps the output style), in canonical form (`Postgres, DMY`).
/// `default` in the list is `ISO, MDY`, the built-in default.
fn datestyle_from(base: DateStyle, value: &str) -> Result<String, DbError> {
    DateStyle::parse_setting(base, DateStyle::ISO_MDY, value)
        .map(|s| s.to_string())
        .map_err(|detail| invalid("DateStyle", value).with_detail(detail))
}

/// Time zones the types crate can apply (UTC names and fixed offsets);
/// named zones are refused rather than silently treated as UTC.
fn parse_timezone(value: &str) -> Option<String> {
    let v = value.trim();
    nestor_types::datetime::TimeZone::parse(v)?;
    let upper = v.to_ascii_uppercase();
    Some(match upper.as_str() {
        "UTC" | "GMT" | "ETC/UTC" | "UCT" | "Z" | "ZULU" => "UTC".to_string(),
        _ => v.to_string(),
    })
}

fn parse_encoding(name: &str, value: &str) -> Result<String, DbError> {
    // asyncpg sends client_encoding='utf-8' quoted in its startup packet.
    let v = value
        .trim()
        .trim_matches('\'')
        .to_ascii_uppercase()
        .replace(['-', '_'], "");
    if v == "UTF8" || v == "UNICODE" {
        return Ok("UTF8".into());
    }
    if v == "SQLASCII" && name == "client_encoding" {
        return Ok("UTF8".into());
    }
    Err(DbError::new(
        SqlState::FeatureNotSupported,
        format!("conversion between {value} and UTF8 is not supported"),
    ))
}

/// Saved state of a transaction or savepoint frame.
#[derive(Clone, Debug, Default)]
struct Frame {
    session: BTreeMap<String, String>,
    local: BTreeMap<String, String>,
}

/// One session's parameters with transactional SET (see module header).
#[derive(Debug)]
pub struct SessionSettings {
    cur: Frame,
    /// Per-transaction values (transaction_isolation, transaction_read_only).
    virt: BTreeMap<String, String>,
    /// frames[0]: transaction start; frames[i]: savepoint level i.
    frames: Vec<Option<Box<Frame>>>,
    view: Settings,
    /// Bumped whenever the view is rebuilt (any value may have changed).
    generation: u64,
    /// `generation` when the reported values were last compared.
    reported_generation: Option<u64>,
    reported: BTreeMap<String, String>,
    /// Values from the startup packet: what RESET goes back to (PostgreSQL's
    /// reset_val), instead of the built-in default.
    startup: BTreeMap<String, String>,
}

impl SessionSettings {
    /// Defaults, with `session_authorization` set to the connecting user.
    pub fn new(user: &str) -> SessionSettings {
        let mut session: BTreeMap<String, String> = DEFS
            .iter()
            .map(|d| (d.name.to_ascii_lowercase(), d.default.to_string()))
            .collect();
        session.insert("session_authorization".into(), user.to_string());
        let mut s = SessionSettings {
            cur: Frame {
                session,
                local: BTreeMap::new(),
            },
            virt: BTreeMap::new(),
            frames: Vec::new(),
            view: Settings::defaults(),
            generation: 0,
            reported_generation: None,
            reported: BTreeMap::new(),
            startup: BTreeMap::new(),
        };
        s.rebuild_view();
        s
    }

    /// Apply a startup-packet parameter (`options` may carry `-c k=v`).
    pub fn apply_startup(&mut self, name: &str, value: &str) -> Result<(), DbError> {
        if name == "options" {
            for (k, v) in parse_options(value) {
                self.apply_startup(&k, &v)?;
            }
            return Ok(());
        }
        let d = find_def(name).ok_or_else(|| unknown(name))?;
        let v = match d.kind {
            Kind::DateStyle => datestyle_from(self.view.date_style, value)?,
            _ => canonical_value(d, value)?,
        };
        let key = d.name.to_ascii_lowercase();
        self.startup.insert(key.clone(), v.clone());
        self.cur.session.insert(key, v);
        self.rebuild_view();
        Ok(())
    }

    /// The effective values, as the query engine reads them.
    pub fn view(&self) -> &Settings {
        &self.view
    }

    /// Effective value of `name` (any case); 42704 if unknown.
    pub fn show(&self, name: &str) -> Result<String, DbError> {
        let d = find_def(name).ok_or_else(|| unknown(name))?;
        Ok(self
            .view
            .get(d.name)
            .map(str::to_string)
            .unwrap_or_default())
    }

    /// `(name, setting, description)` for SHOW ALL, sorted by name.
    pub fn show_all(&self) -> Vec<(String, String, String)> {
        let mut rows: Vec<_> = DEFS
            .iter()
            .map(|d| {
                let v = self.view.get(d.name).unwrap_or_default().to_string();
                (d.name.to_string(), v, d.desc.to_string())
            })
            .collect();
        rows.sort_by_key(|r| r.0.to_ascii_lowercase());
        rows
    }

    /// SET [LOCAL] name = value (value already canonical: see
    /// [`canonicalize`]).
    pub fn set(&mut self, name: &str, canonical: String, local: bool) {
        self.save_frame();
        let key = name.to_ascii_lowercase();
        if local {
            self.cur.local.insert(key, canonical);
        } else {
            self.cur.local.remove(&key);
            self.cur.session.insert(key, canonical);
        }
        self.rebuild_view();
    }

    /// What RESET sets `d` to: its startup-packet value, else the default.
    fn reset_value(&self, d: &Def) -> String {
        self.startup
            .get(&d.name.to_ascii_lowercase())
            .cloned()
            .unwrap_or_else(|| d.default.to_string())
    }

    /// RESET name / SET name TO DEFAULT.
    pub fn reset(&mut self, name: &str, local: bool) -> Result<(), DbError> {
        let d = find_def(name).ok_or_else(|| unknown(name))?;
        if d.read_only {
            return Err(DbError::new(
                SqlState::ObjectNotInPrerequisiteState,
                format!("parameter \"{}\" cannot be changed", d.name),
            ));
        }
        let v = self.reset_value(d);
        self.set(d.name, v, local);
        Ok(())
    }

    /// RESET ALL.
    pub fn reset_all(&mut self) {
        self.save_frame();
        for d in DEFS.iter().filter(|d| !d.read_only) {
            let key = d.name.to_ascii_lowercase();
            let v = self.reset_value(d);
            self.cur.local.remove(&key);
            self.cur.session.insert(key, v);
        }
        self.rebuild_view();
    }

    /// Mirror a per-transaction value (transaction_isolation, ...) into the
    /// view. Cheap when unchanged.
    pub fn set_virtual(&mut self, name: &str, value: &str) {
        if self.virt.get(name).map(String::as_str) != Some(value) {
            self.virt.insert(name.to_string(), value.to_string());
            self.rebuild_view();
        }
    }

    /// A duration parameter in milliseconds (0 = disabled).
    pub fn begin_txn(&mut self) {
        self.frames.clear();
        self.frames.push(None);
    }

    /// A savepoint was defined.
    pub fn savepoint(&mut self) {
        self.frames.push(None);
    }

    /// ROLLBACK TO the savepoint at nesting `level` (1-based; it stays).
    pub fn rollback_to(&mut self, level: usize) {
        if level < self.frames.len() {
            self.restore_from(level);
            self.frames.truncate(level + 1);
            self.frames[level] = None;
        }
    }

    /// RELEASE of the savepoint at nesting `level` and all inner ones.
    pub fn release(&mut self, level: usize) {
        if level == 0 || level >= self.frames.len() {
            return;
        }
        let first = self.frames.drain(level..).flatten().next();
        if self.frames[level - 1].is_none() {
            self.frames[level - 1] = first;
        }
    }

    /// The transaction committed: SET values stay, SET LOCAL ones go.
    pub fn commit_txn(&mut self) {
        self.frames.clear();
        if !self.cur.local.is_empty() {
            self.cur.local.clear();
            self.rebuild_view();
        }
    }

    /// The transaction rolled back: everything set in it reverts.
    pub fn rollback_txn(&mut self) {
        if !self.frames.is_empty() {
            self.restore_from(0);
        }
        self.frames.clear();
        if !self.cur.local.is_empty() {
            self.cur.local.clear();
            self.rebuild_view();
        }
    }

    /// Every reported parameter with its current value (after startup).
    pub fn reported_values(&self) -> Vec<(String, String)> {
        DEFS.iter()
            .filter(|d| d.report)
            .map(|d| {
                (
                    d.name.to_string(),
                    self.view.get(d.name).unwrap_or_default().to_string(),
                )
            })
            .collect()
    }

    /// ParameterStatus pairs for reported parameters whose value changed
    /// since the last call (all of them on the first call).
    pub fn changed_reports(&mut self) -> Vec<(String, String)> {
        // Called at every ReadyForQuery: nothing to compare unless a value
        // changed since the last call.
        if self.reported_generation == Some(self.generation) {
            return Vec::new();
        }
        self.reported_generation = Some(self.generation);
        let mut out = Vec::new();
        for d in DEFS.iter().filter(|d| d.report) {
            let v = self.view.get(d.name).unwrap_or_default();
            if self.reported.get(d.name).map(String::as_str) != Some(v) {
                self.reported.insert(d.name.to_string(), v.to_string());
                out.push((d.name.to_string(), v.to_string()));
            }
        }
        out
    }

    fn save_frame(&mut self) {
        if let Some(last) = self.frames.last_mut() {
            if last.is_none() {
                *last = Some(Box::new(self.cur.clone()));
            }
        }
    }

    fn restore_from(&mut self, level: usize) {
        let saved = self.frames[level..].iter().flatten().next().cloned();
        if let Some(f) = saved {
            self.cur = *f;
            self.rebuild_view();
        }
    }

    /// Bumped by every change of a value (SET, RESET, the end of a
    /// transaction that changed one): a cache of what values imply
    /// compares it.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    fn rebuild_view(&mut self) {
        let mut values = self.cur.session.clone();
        for (k, v) in self.cur.local.iter().chain(self.virt.iter()) {
            values.insert(k.clone(), v.clone());
        }
        self.view = Settings::from_values(values);
        self.generation += 1;
    }
}

/// The words of the startup `options` as PostgreSQL's pg_split_opts
/// splits them: whitespace separates, a backslash takes the next character
/// literally (`-c default_transaction_isolation=repeatable\ read`).
fn split_options(options: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut chars = options.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.peek().is_none() {
            return words;
        }
        let mut w = String::new();
        while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
            if c == '\\' {
                if let Some(next) = chars.next() {
                    w.push(next);
                }
            } else {
                w.push(c);
            }
        }
        words.push(w);
    }
}

/// `-c name=value` and `--name=value` items of the startup `options`.
fn parse_options(options: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let words = split_options(options);
    let mut words = words.iter().map(String::as_str);
    while let Some(w) = words.next() {
        let item = match w {
            "-c" => words.next().unwrap_or(""),
            _ => w
                .strip_prefix("--")
                .or_else(|| w.strip_prefix("-c"))
                .unwrap_or(""),
        };
        if let Some((k, v)) = item.split_once('=') {
            out.push((k.replace('-', "_"), v.to_string()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reported_parameters_are_reported_once_per_change() {
        let mut s = SessionSettings::new("u");
        s.changed_reports(); // startup sends them all
        assert_eq!(s.changed_reports(), []);
        s.set("application_name", "a".into(), false);
        assert_eq!(
            s.changed_reports(),
            [("application_name".to_string(), "a".to_string())]
        );
        assert_eq!(s.changed_reports(), []);
        // A change of an unreported parameter reports nothing.
        s.set(
            "statement_timeout",
            canonicalize("statement_timeout", "1s").unwrap(),
            false,
        );
        assert_eq!(s.changed_reports(), []);
        // Rolled back SET LOCAL: the old value is reported again.
        s.begin_txn();
        s.set("application_name", "b".into(), true);
        assert_eq!(s.changed_reports().len(), 1);
        s.rollback_txn();
        assert_eq!(
            s.changed_reports(),
            [("application_name".to_string(), "a".to_string())]
        );
        assert_eq!(s.view().application_name, "a");
    }

    #[test]
    fn typed_values_follow_set() {
        let mut s = SessionSettings::new("u");
        assert_eq!(s.view().statement_timeout_ms, 0);
        s.set(
            "statement_timeout",
            canonicalize("statement_timeout", "2min").unwrap(),
            false,
        );
        s.set(
            "extra_float_digits",
            canonicalize("extra_float_digits", "-2").unwrap(),
            false,
        );
        s.set(
            "synchronous_commit",
            canonicalize("synchronous_commit", "false").unwrap(),
            false,
        );
        assert_eq!(s.view().statement_timeout_ms, 120_000);
        assert_eq!(s.view().extra_float_digits, -2);
        assert!(!s.view().synchronous_commit);
        s.begin_txn();
        s.set(
            "TimeZone",
            canonicalize("timezone", "+02:00").unwrap(),
            true,
        );
        assert_ne!(s.view().time_zone, TimeZone::UTC);
        s.commit_txn();
        assert_eq!(
            s.view().time_zone,
            TimeZone::UTC,
            "SET LOCAL ends with the transaction"
        );
    }

    #[test]
    fn work_mem_and_temp_file_limit_take_postgres_sizes_and_ranges() {
        assert_eq!(Settings::defaults().work_mem_bytes, 4 << 20);
        assert_eq!(Settings::defaults().temp_file_limit_bytes, None);
        assert_eq!(canonicalize("work_mem", "64kB").unwrap(), "64kB");
        assert_eq!(canonicalize("work_mem", "100000").unwrap(), "100000kB");
        assert_eq!(
            canonicalize("work_mem", "63").unwrap_err().message,
            "63 kB is outside the valid range for parameter \"work_mem\" (64 .. 2147483647)"
        );
        assert_eq!(canonicalize("temp_file_limit", "0").unwrap(), "0");
        assert_eq!(canonicalize("temp_file_limit", "10").unwrap(), "10kB");
        assert_eq!(canonicalize("temp_file_limit", "-1").unwrap(), "-1");
        assert_eq!(
            canonicalize("temp_file_limit", "-2").unwrap_err().message,
            "-2 kB is outside the valid range for parameter \"temp_file_limit\" (-1 .. 2147483647)"
        );
        assert_eq!(
            canonicalize("nestor.query_memory_max", "10").unwrap_err().message,
            "10 kB is outside the valid range for parameter \"nestor.query_memory_max\" (-1 .. 2147483647)"
        );
        let mut s = SessionSettings::new("u");
        s.set("work_mem", canonicalize("work_mem", "64kB").unwrap(), false);
        s.set(
            "temp_file_limit",
            canonicalize("temp_file_limit", "1MB").unwrap(),
            false,
        );
        assert_eq!(s.view().work_mem_bytes, 64 << 10);
        assert_eq!(s.view().temp_file_limit_bytes, Some(1 << 20));
    }

    #[test]
    fn durations_round_trip_in_postgres_spelling() {
        assert_eq!(canonicalize("statement_timeout", "5s").unwrap(), "5s");
        assert_eq!(canonicalize("statement_timeout", "1500").unwrap(), "1500ms");
        assert_eq!(canonicalize("statement_timeout", "1min").unwrap(), "1min");
        assert_eq!(canonicalize("lock_timeout", "100 ms").unwrap(), "100ms");
        assert_eq!(canonicalize("lock_timeout", "0").unwrap(), "0");
        let e = canonicalize("lock_timeout", "abc").unwrap_err();
        assert_eq!(
            e.message,
            "invalid value for parameter \"lock_timeout\": \"abc\""
        );
        assert_eq!(e.code, SqlState::InvalidParameterValue);
    }

    #[test]
    fn unknown_and_fixed_parameters() {
        let e = canonicalize("foo", "1").unwrap_err();
        assert_eq!(e.code.code(), "42704");
        assert_eq!(e.message, "unrecognized configuration parameter \"foo\"");
        assert!(canonicalize("server_version", "1").is_err());
    }

    #[test]
    fn savepoint_frames_revert_lazily() {
        let mut s = SessionSettings::new("u");
        s.begin_txn();
        s.savepoint(); // level 1
        s.savepoint(); // level 2
        s.set("application_name", "b".into(), false);
        s.rollback_to(1);
        assert_eq!(s.show("application_name").unwrap(), "");
        s.set("application_name", "c".into(), false);
        s.release(1);
        assert_eq!(s.show("application_name").unwrap(), "c");
        s.rollback_txn();
        assert_eq!(s.show("application_name").unwrap(), "");
    }

    #[test]
    fn set_local_dropped_at_commit() {
        let mut s = SessionSettings::new("u");
        s.begin_txn();
        s.set("statement_timeout", "5s".into(), false);
        s.set("lock_timeout", "1s".into(), true);
        assert_eq!(s.view().lock_timeout_ms, 1000);
        s.commit_txn();
        assert_eq!(s.view().lock_timeout_ms, 0);
        assert_eq!(s.view().statement_timeout_ms, 5000);
    }

    #[test]
    fn datestyle_and_options() {
        assert_eq!(canonicalize("datestyle", "iso").unwrap(), "ISO, MDY");
        assert_eq!(canonicalize("DateStyle", "mdy, iso").unwrap(), "ISO, MDY");
        assert_eq!(canonicalize("DateStyle", "German").unwrap(), "German, DMY");
        assert_eq!(canonicalize("DateStyle", "sql, dmy").unwrap(), "SQL, DMY");
        let e = canonicalize("DateStyle", "postgres,iso").unwrap_err();
        assert_eq!(e.code, SqlState::InvalidParameterValue);
        assert_eq!(
            e.detail.as_deref(),
            Some("Conflicting \"datestyle\" specifications.")
        );
        // A partial value keeps the other half of the current setting.
        let mut s = SessionSettings::new("u");
        s.set(
            "DateStyle",
            canonicalize("DateStyle", "postgres").unwrap(),
            false,
        );
        let c = canonicalize_from(s.view(), "datestyle", "dmy").unwrap();
        assert_eq!(c, "Postgres, DMY");
        assert_eq!(
            canonicalize("IntervalStyle", "iso_8601").unwrap(),
            "iso_8601"
        );
        assert_eq!(
            canonicalize("IntervalStyle", "POSTGRES").unwrap(),
            "postgres"
        );
        assert_eq!(
            canonicalize("DateStyle", "Klingon").unwrap_err().code,
            SqlState::InvalidParameterValue
        );
        assert_eq!(
            search_path_items(r#""$user", Public,"My ""S""" , x"#),
            vec!["$user", "public", "My \"S\"", "x"]
        );
        assert!(search_path_items("").is_empty());
        assert_eq!(
            parse_options("-c search_path=x --statement-timeout=5s"),
            vec![
                ("search_path".to_string(), "x".to_string()),
                ("statement_timeout".to_string(), "5s".to_string())
            ]
        );
        assert_eq!(
            parse_options(
                r"-c default_transaction_isolation=repeatable\ read  -capplication_name=a\\b"
            ),
            vec![
                (
                    "default_transaction_isolation".to_string(),
                    "repeatable read".to_string()
                ),
                ("application_name".to_string(), r"a\b".to_string())
            ]
        );
    }
}
