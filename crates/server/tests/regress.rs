//! PostgreSQL-style regression suite: each `tests/regress/sql/NAME.sql` is
//! run with `psql -X -a -q < NAME.sql` (echo every input line, so statements,
//! results, notices and errors interleave) against a fresh `nestor`, from
//! `tests/regress` (a script's `\copy` reads fixtures as `data/FILE`), and the
//! output must equal `tests/regress/expected/NAME.out`, which
//! `tests/regress/generate-expected` derives from PostgreSQL 15 the same
//! way. One #[test] per script; on mismatch the test prints a unified diff
//! (expected → nestor) and leaves the actual output in
//! `$CARGO_TARGET_TMPDIR/regress/NAME.out`.
//!
//! The only normalization is dropping `LOCATION:` lines (PostgreSQL source
//! file and line, printed under `\set VERBOSITY verbose`).
//!
//! `NESTOR_PSQL` chooses the psql binary (default: `psql` on PATH; the
//! expected files were made with psql 15).

mod common;

use common::*;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Generous: the slowest script takes well under a second on PostgreSQL.
const SCRIPT_TIMEOUT: Duration = Duration::from_secs(60);

fn regress_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/regress")
}

fn psql_bin() -> String {
    std::env::var("NESTOR_PSQL").unwrap_or_else(|_| "psql".to_owned())
}

fn normalize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for line in s.split_inclusive('\n') {
        if line.starts_with("LOCATION:  ") {
            continue;
        }
        out.push_str(line);
    }
    out
}

/// A unified diff from `diff -u`, or both texts if diff is unavailable.
fn unified_diff(expected: &Path, actual: &Path) -> String {
    match Command::new("diff")
        .arg("-u")
        .arg("--label=expected")
        .arg("--label=nestor")
        .arg(expected)
        .arg(actual)
        .output()
    {
        Ok(o) => String::from_utf8_lossy(&o.stdout).into_owned(),
        Err(e) => format!(
            "(diff unavailable: {e})\n--- expected\n{}\n--- nestor\n{}",
            std::fs::read_to_string(expected).unwrap_or_default(),
            std::fs::read_to_string(actual).unwrap_or_default()
        ),
    }
}

fn run_script(name: &str) {
    let dir = regress_dir();
    let sql_path = dir.join("sql").join(format!("{name}.sql"));
    let expected_path = dir.join("expected").join(format!("{name}.out"));
    let expected = std::fs::read_to_string(&expected_path)
        .unwrap_or_else(|e| panic!("read {}: {e}", expected_path.display()));

    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("regress");
    std::fs::create_dir_all(&out_dir).expect("create results dir");
    let out_path = out_dir.join(format!("{name}.out"));

    let srv = Server::start();
    // stdout and stderr share one file description, so errors and results
    // interleave in the order psql writes them (as with `> out 2>&1`).
    let out = File::create(&out_path).expect("create output file");
    let mut cmd = Command::new(psql_bin());
    cmd.args(["-X", "-a", "-q", "-h", "127.0.0.1", "-U", "postgres"])
        .args(["-p", &srv.port.to_string(), "-d", "postgres"])
        .current_dir(&dir)
        .stdin(File::open(&sql_path).expect("open script"))
        .stdout(Stdio::from(out.try_clone().expect("dup")))
        .stderr(Stdio::from(out));
    // The same client environment as generate-expected.
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("PG") {
            cmd.env_remove(&k);
        }
    }
    cmd.env("PGCONNECT_TIMEOUT", "10")
        .env("LC_ALL", "C.UTF-8")
        .env("LANG", "C.UTF-8");
    let mut child = cmd.spawn().unwrap_or_else(|e| {
        panic!(
            "cannot run {} ({e}); install the PostgreSQL client (scripts/install-deps.sh)",
            psql_bin()
        )
    });
    let deadline = Instant::now() + SCRIPT_TIMEOUT;
    let mut hung = false;
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait psql") {
            break st;
        }
        if Instant::now() > deadline && !hung {
            // Like pressing ^C: psql sends a CancelRequest for the running
            // statement and, being non-interactive, exits (flushing its
            // output, so the hanging statement shows at the end).
            hung = true;
            // SAFETY: kill() on our own child's pid.
            unsafe {
                libc::kill(child.id() as i32, libc::SIGINT);
            }
        }
        if hung && Instant::now() > deadline + Duration::from_secs(10) {
            let _ = child.kill();
            break child.wait().expect("wait psql");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(srv);

    let raw = std::fs::read(&out_path).expect("read output");
    let actual = normalize(&String::from_utf8_lossy(&raw));
    std::fs::write(&out_path, &actual).expect("write normalized output");
    if hung {
        let tail: Vec<&str> = actual.lines().rev().take(15).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        panic!(
            "{name}.sql: psql did not finish within {SCRIPT_TIMEOUT:?} (a hang?) and was \
             interrupted; last output lines:\n{}\n\nfull diff:\n{}",
            tail.join("\n"),
            unified_diff(&expected_path, &out_path)
        );
    }
    if actual != expected {
        panic!(
            "{name}.sql: output differs from expected/{name}.out (psql exit status {status}); \
             actual output in {}\n{}",
            out_path.display(),
            unified_diff(&expected_path, &out_path)
        );
    }
}

macro_rules! regress {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                run_script(stringify!($name));
            }
        )*

        /// Every script has a test above, and every test a script.
        #[test]
        fn every_script_has_a_test() {
            let mut listed = vec![$(stringify!($name)),*];
            listed.sort_unstable();
            let mut found: Vec<String> = std::fs::read_dir(regress_dir().join("sql"))
                .expect("read tests/regress/sql")
                .filter_map(|e| {
                    let p = e.ok()?.path();
                    (p.extension()? == "sql").then(|| p.file_stem()?.to_str().map(str::to_owned))?
                })
                .collect();
            found.sort_unstable();
            assert_eq!(found, listed, "tests/regress/sql and the regress! list differ");
            for name in &found {
                let exp = regress_dir().join("expected").join(format!("{name}.out"));
                assert!(exp.exists(), "missing {} (run tests/regress/generate-expected)", exp.display());
            }
        }
    };
}

regress!(
    array_assign,
    rows_from,
    timetz_type,
    money_type,
    array_typmods,
    like_bytea_similar,
    plpgsql_domain_vars,
    plpgsql_row_variables,
    plpgsql_extra_checks,
    using_join_columns,
    join_using_alias,
    join_alias_names,
    sort_peer_order,
    nonstandard_strings,
    json_records,
    domain_composites,
    cursor_deferred_errors,
    grant_sequence_usage,
    regex_any,
    array_replace,
    sequence_dependents,
    to_char_special,
    partition_privileges,
    partition_bound_exprs,
    merge_partitioned,
    default_expr_errors,
    pseudo_type_columns,
    unique_nulls_not_distinct,
    index_added_column,
    lateral_join_scope,
    star_outer_refs,
    whole_row_outer_join,
    column_hints,
    to_char_numeric_edges,
    update_moves_past_checks,
    setop_locking,
    row_type_functions,
    lateral_function_join,
    alter_function_attrs,
    regex_backrefs,
    returning_tableoid_routed,
    copy_error_context,
    view_security_options,
    fk_match_full,
    reassign_drop_owned,
    extensions_builtin,
    matview_dependents,
    select_into_table,
    drop_type_cascade_functions,
    returning_column_privileges,
    having_degenerate,
    setop_order_hint,
    default_positions,
    partition_key_detail_privileges,
    hash_index_am,
    gin_index,
    partitioned_expr_index,
    create_table_as_execute,
    create_in_pg_temp,
    execute_arg_types,
    lateral_scalar_function,
    view_column_defaults,
    view_upsert,
    jsonb_order,
    minmax_index,
    explain_details,
    unused_subquery_outputs,
    function_dependents,
    identity_alter,
    rangefunc_records,
    join_aliases,
    lateral_pullup,
    sql_function_inline,
    partition_returning_row,
    with_forward_reference,
    column_dependencies,
    gin_tsvector,
    table_storage_parameters,
    partition_key_types,
    index_range_batches,
    index_column_options,
    txn_read_only_writes,
    polymorphic_aggregates,
    internal_operator_functions,
    array_literal_syntax,
    cte_evaluation,
    operator_and_ddl_edges,
    join_using_types,
    relation_names,
    drop_index_concurrently,
    text_search,
    view_definitions,
    text_search_headline,
    constraint_using_index,
    column_storage,
    format_variadic,
    stat_aggregates,
    outer_aggregates,
    regex_flags,
    index_paths,
    reindex,
    expr_partial_index,
    tz_abbrevs,
    unistr,
    moments,
    composite,
    json_errors,
    inherit_basic,
    partitioning,
    partition_exprs,
    jsonpath_basic,
    search_path,
    schemas_psql,
    txn_blocks,
    enum_types,
    enum_owner,
    domain_basic,
    aggregate_sums,
    default_privileges,
    not_valid,
    role_settings,
    narrow_scans,
    hash_joins,
    txn_modes,
    temp,
    savepoints,
    ddl,
    dml,
    select,
    types,
    function_style_casts,
    errors,
    settings,
    prepare,
    copy,
    copy_binary,
    copy_targets,
    copy_where_triggers,
    roles,
    privileges,
    schemas,
    temp_views,
    matviews,
    sequences,
    sequence_options,
    sysfuncs,
    parse_cache,
    plpgsql,
    triggers,
    sqlsmith_found,
    arrays,
    array_containment,
    psql_describe,
    cursors,
    renames,
    create_as,
    views,
    updatable_views,
    insert_target_list,
    jsonb_ops,
    jsonb_subscript,
    jsonb_subscript_assign,
    jsonb_edit,
    json_build_args,
    window,
    interval_ops,
    comments,
    queries,
    foreign_keys,
    information_schema,
    identity,
    deferred_constraints,
    distinct_on,
    joins_outer,
    grouping_sets,
    ordered_set_aggs,
    user_aggregates,
    datetime_fns,
    string_fns,
    records,
    alter_column_type,
    function_rename,
    set_constraints,
    table_locks,
    stat_indexes,
    bpchar,
    geometric_types,
    time_type,
    row_constructors,
    cursors_sql,
    window_frames,
    order_using,
    datestyle,
    datetime_input,
    datetime_precision,
    with_modify,
    create_rules,
    jsonb_set_like_escape,
    set_fns,
    user_srf,
    polymorphic_fns,
    numeric_math,
    json_path_ops,
    sql_fns_batch,
    work_mem_spill,
    with_search_cycle,
    with_recursive_checks,
    instead_of_triggers,
    generated_columns,
    bytea_hash_fns,
    merge_stmt,
    plpgsql_cursors_foreach,
    array_fns_more,
    create_cast,
    column_privileges,
    pg_lsn_type,
    string_agg_forms,
    user_aggregates_args,
    domain_results,
    sql_standard_bodies,
    composite_assign,
    plpgsql_record_values,
    partition_triggers,
    on_conflict_triggers,
    partition_tree,
    relation_size_forks,
    operator_classes,
    range_types,
    transition_tables,
    row_security,
    bit_strings,
);
