//! System views (names and columns; the executor computes their rows when
//! scanned): pg_stat_activity (from the session
//! registry), nestor_stat_savepoints (savepoint counters per session),
//! pg_stat_wal (the WAL's counters), nestor_memory (the memory budget),
//! pg_sequences, pg_prepared_statements (the session's own named prepared
//! statements, which it publishes in the registry), pg_stat_statements and
//! pg_stat_statements_info (`nestor_exec::stat_statements`), and the pg_catalog
//! relations (`crate::pg_catalog`).

use nestor_types::datatype::DataType;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    StatActivity,
    StatSavepoints,
    StatWal,
    StatReplication,
    StatWalReceiver,
    Memory,
    Sequences,
    PreparedStatements,
    StatSsl,
    StatStatements,
    StatStatementsInfo,
    /// A pg_catalog relation (`crate::pg_catalog`).
    Catalog(crate::pg_catalog::Rel),
}

impl View {
    pub(crate) fn by_name(name: &str) -> Option<View> {
        Some(match name {
            "pg_stat_activity" => View::StatActivity,
            "nestor_stat_savepoints" => View::StatSavepoints,
            "pg_stat_wal" => View::StatWal,
            "pg_stat_replication" => View::StatReplication,
            "pg_stat_wal_receiver" => View::StatWalReceiver,
            "nestor_memory" => View::Memory,
            "pg_sequences" => View::Sequences,
            "pg_prepared_statements" => View::PreparedStatements,
            "pg_stat_ssl" => View::StatSsl,
            "pg_stat_statements" => View::StatStatements,
            "pg_stat_statements_info" => View::StatStatementsInfo,
            name => View::Catalog(crate::pg_catalog::by_name(name)?),
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            View::StatActivity => "pg_stat_activity",
            View::StatSavepoints => "nestor_stat_savepoints",
            View::StatWal => "pg_stat_wal",
            View::StatReplication => "pg_stat_replication",
            View::StatWalReceiver => "pg_stat_wal_receiver",
            View::Memory => "nestor_memory",
            View::Sequences => "pg_sequences",
            View::PreparedStatements => "pg_prepared_statements",
            View::StatSsl => "pg_stat_ssl",
            View::StatStatements => "pg_stat_statements",
            View::StatStatementsInfo => "pg_stat_statements_info",
            View::Catalog(r) => r.name(),
        }
    }

    pub fn columns(self) -> Vec<(&'static str, DataType)> {
        use DataType as T;
        match self {
            View::StatActivity => vec![
                ("datid", T::Oid),
                ("datname", T::Name),
                ("pid", T::Int4),
                ("usename", T::Name),
                ("application_name", T::Text),
                ("client_addr", T::Text),
                ("backend_start", T::TimestampTz),
                ("xact_start", T::TimestampTz),
                ("query_start", T::TimestampTz),
                ("state_change", T::TimestampTz),
                ("wait_event_type", T::Text),
                ("wait_event", T::Text),
                ("state", T::Text),
                ("backend_xid", T::Int8),
                ("backend_xmin", T::Int8),
                ("query", T::Text),
                ("backend_type", T::Text),
            ],
            View::StatSavepoints => vec![
                ("pid", T::Int4),
                ("depth", T::Int8),
                ("savepoints_defined", T::Int8),
                ("rollbacks_to", T::Int8),
            ],
            View::Memory => vec![
                ("used_bytes", T::Int8),
                ("limit_bytes", T::Int8),
                ("source", T::Text),
                ("writes_refused", T::Bool),
                ("table_versions_bytes", T::Int8),
                ("indexes_bytes", T::Int8),
                ("undo_logs_bytes", T::Int8),
                ("redo_buffers_bytes", T::Int8),
                ("sessions_bytes", T::Int8),
                ("query_working_memory_bytes", T::Int8),
            ],
            View::StatWal => vec![
                ("wal_records", T::Int8),
                ("wal_fpi", T::Int8),
                ("wal_bytes", T::Numeric(None)),
                ("wal_buffers_full", T::Int8),
                ("wal_write", T::Int8),
                ("wal_sync", T::Int8),
                ("wal_write_time", T::Float8),
                ("wal_sync_time", T::Float8),
                ("stats_reset", T::TimestampTz),
            ],
            // LSNs as text 'X/Y' (no pg_lsn type yet), as
            // pg_current_wal_lsn() gives them.
            View::StatReplication => vec![
                ("pid", T::Int4),
                ("usesysid", T::Oid),
                ("usename", T::Name),
                ("application_name", T::Text),
                ("client_addr", T::Text),
                ("client_hostname", T::Text),
                ("client_port", T::Int4),
                ("backend_start", T::TimestampTz),
                ("backend_xmin", T::Int8),
                ("state", T::Text),
                ("sent_lsn", T::Text),
                ("write_lsn", T::Text),
                ("flush_lsn", T::Text),
                ("replay_lsn", T::Text),
                ("write_lag", T::Interval),
                ("flush_lag", T::Interval),
                ("replay_lag", T::Interval),
                ("sync_priority", T::Int4),
                ("sync_state", T::Text),
                ("reply_time", T::TimestampTz),
            ],
            View::StatWalReceiver => vec![
                ("pid", T::Int4),
                ("status", T::Text),
                ("receive_start_lsn", T::Text),
                ("receive_start_tli", T::Int4),
                ("written_lsn", T::Text),
                ("flushed_lsn", T::Text),
                ("received_tli", T::Int4),
                ("last_msg_send_time", T::TimestampTz),
                ("last_msg_receipt_time", T::TimestampTz),
                ("latest_end_lsn", T::Text),
                ("latest_end_time", T::TimestampTz),
                ("slot_name", T::Text),
                ("sender_host", T::Text),
                ("sender_port", T::Int4),
                ("conninfo", T::Text),
            ],
            View::Sequences => vec![
                ("schemaname", T::Name),
                ("sequencename", T::Name),
                ("start_value", T::Int8),
                ("increment_by", T::Int8),
                ("last_value", T::Int8),
            ],
            View::StatSsl => vec![
                ("pid", T::Int4),
                ("ssl", T::Bool),
                ("version", T::Text),
                ("cipher", T::Text),
                ("bits", T::Int4),
                ("client_dn", T::Text),
                ("client_serial", T::Numeric(None)),
                ("issuer_dn", T::Text),
            ],
            View::PreparedStatements => vec![
                ("name", T::Text),
                ("statement", T::Text),
                ("prepare_time", T::TimestampTz),
                (
                    "parameter_types",
                    T::Reg(nestor_types::datatype::RegKind::Type)
                        .array_of()
                        .expect("regtype[]"),
                ),
                ("from_sql", T::Bool),
                ("generic_plans", T::Int8),
                ("custom_plans", T::Int8),
            ],
            // PostgreSQL 15's (pg_stat_statements 1.10), then Nestor's
            // savepoints.
            View::StatStatements => vec![
                ("userid", T::Oid),
                ("dbid", T::Oid),
                ("toplevel", T::Bool),
                ("queryid", T::Int8),
                ("query", T::Text),
                ("plans", T::Int8),
                ("total_plan_time", T::Float8),
                ("min_plan_time", T::Float8),
                ("max_plan_time", T::Float8),
                ("mean_plan_time", T::Float8),
                ("stddev_plan_time", T::Float8),
                ("calls", T::Int8),
                ("total_exec_time", T::Float8),
                ("min_exec_time", T::Float8),
                ("max_exec_time", T::Float8),
                ("mean_exec_time", T::Float8),
                ("stddev_exec_time", T::Float8),
                ("rows", T::Int8),
                ("shared_blks_hit", T::Int8),
                ("shared_blks_read", T::Int8),
                ("shared_blks_dirtied", T::Int8),
                ("shared_blks_written", T::Int8),
                ("local_blks_hit", T::Int8),
                ("local_blks_read", T::Int8),
                ("local_blks_dirtied", T::Int8),
                ("local_blks_written", T::Int8),
                ("temp_blks_read", T::Int8),
                ("temp_blks_written", T::Int8),
                ("blk_read_time", T::Float8),
                ("blk_write_time", T::Float8),
                ("temp_blk_read_time", T::Float8),
                ("temp_blk_write_time", T::Float8),
                ("wal_records", T::Int8),
                ("wal_fpi", T::Int8),
                ("wal_bytes", T::Numeric(None)),
                ("jit_functions", T::Int8),
                ("jit_generation_time", T::Float8),
                ("jit_inlining_count", T::Int8),
                ("jit_inlining_time", T::Float8),
                ("jit_optimization_count", T::Int8),
                ("jit_optimization_time", T::Float8),
                ("jit_emission_count", T::Int8),
                ("jit_emission_time", T::Float8),
                ("savepoints", T::Int8),
            ],
            View::StatStatementsInfo => vec![("dealloc", T::Int8), ("stats_reset", T::TimestampTz)],
            View::Catalog(r) => crate::pg_catalog::columns(r),
        }
    }
}
