//! `nestor`: the Nestor server process. Parses flags, sets up logging, the
//! data directory, the engine and the tokio runtime, then hands over to
//! `server::run`. Wire protocol: `conn.rs` (message loop), `startup.rs`
//! (startup and authentication), `codec.rs` (bytes <-> messages),
//! `scram.rs` (SCRAM-SHA-256), `tls.rs` (TLS with rustls).

#![deny(unsafe_code)]

mod codec;
mod conn;
mod hba;
mod io;
mod log_layer;
mod metrics;
mod repl_wire;
mod scram;
mod server;
mod shared;
mod sock;
mod startup;
mod stream;
mod tls;
mod unix_socket;
mod walreceiver;
mod walsender;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use nestor_common::limits::{
    self, CONNECTIONS_MAX_DEFAULT, SAVEPOINT_DEPTH_MAX, SUPERUSER_RESERVED_CONNECTIONS_DEFAULT,
    TXN_LOCKS_MAX, TXN_UNDO_ENTRIES_MAX,
};
use nestor_durable::{Engine, EngineConfig};

/// Nestor: a PostgreSQL-compatible database server.
#[derive(Parser, Debug)]
#[command(name = "nestor", version, args_override_self = true)]
struct Cli {
    /// Data directory (created if missing).
    #[arg(long, default_value = "./nestor-data")]
    data_dir: PathBuf,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    listen: String,
    /// TCP port (0: pick a free one; the log line tells which).
    #[arg(long, default_value_t = 5433)]
    port: u16,
    /// Directories for the Unix-domain socket `.s.PGSQL.<port>`,
    /// comma-separated; empty for none (PostgreSQL's
    /// unix_socket_directories). One that cannot be used is a warning.
    #[arg(long, default_value = "/var/run/postgresql")]
    unix_socket_directories: String,
    /// Maximum number of client sessions.
    #[arg(long, default_value_t = CONNECTIONS_MAX_DEFAULT)]
    max_connections: usize,
    /// Connection slots (of --max-connections) only superusers may take,
    /// as PostgreSQL's superuser_reserved_connections.
    #[arg(long, default_value_t = SUPERUSER_RESERVED_CONNECTIONS_DEFAULT)]
    superuser_reserved_connections: usize,
    /// A superuser role created at start when missing (repeat for
    /// several). Besides these the server always has `postgres` (OID 10,
    /// PostgreSQL's bootstrap superuser) and, on a data directory that has
    /// no roles yet, a superuser named after the operating-system user
    /// running it (as initdb does), so `psql` without -U works.
    #[arg(long = "superuser", value_name = "NAME")]
    superusers: Vec<String>,
    /// Savepoints one transaction may have open at once (54000 past it).
    #[arg(long, default_value_t = SAVEPOINT_DEPTH_MAX)]
    savepoint_depth_max: usize,
    /// Undo-log entries (rows written plus locks taken) one transaction
    /// may hold (54000 past it).
    #[arg(long, default_value_t = TXN_UNDO_ENTRIES_MAX)]
    txn_undo_entries_max: usize,
    /// Row and advisory locks one transaction may hold at once (53200 out
    /// of shared memory past it).
    #[arg(long, default_value_t = TXN_LOCKS_MAX)]
    txn_locks_max: usize,
    /// Disk space of one transaction's redo file (e.g. 10GB): a statement
    /// whose rows would make it larger fails with 53400. Default: none
    /// (--memory-limit bounds what a redo can hold).
    #[arg(long, value_parser = parse_size)]
    txn_redo_file_max: Option<usize>,
    /// Require this password (SCRAM-SHA-256) from every role that has no
    /// password of its own; without it (or when empty) every connection is
    /// trusted. --hba-file decides per connection instead.
    #[arg(long, env = "NESTOR_PASSWORD", hide_env_values = true)]
    password: Option<String>,
    /// Redo a committing transaction keeps in memory (e.g. 8MB); a larger
    /// one is written to its own redo file in the WAL directory, made
    /// durable before the commit is sequenced.
    #[arg(long, value_parser = parse_size, default_value = "8MB")]
    txn_redo_memory_max: usize,
    /// Run as a read-only replica of the primary at HOST:PORT: an empty
    /// data directory is filled with a base image copied from it, then
    /// its WAL is streamed and applied (docs/replication.md).
    #[arg(long, value_name = "HOST:PORT")]
    replica_of: Option<String>,
    /// The (superuser) name a replica logs in to its primary with.
    #[arg(long, default_value = "postgres")]
    replica_user: String,
    /// The password a replica logs in to its primary with.
    #[arg(long, env = "NESTOR_REPLICA_PASSWORD", hide_env_values = true)]
    replica_password: Option<String>,
    /// The replica's name on its primary (application_name in
    /// pg_stat_replication, and what the primary keeps WAL for).
    #[arg(long, default_value = "walreceiver")]
    replica_name: String,
    /// WAL a primary keeps for replicas that have not confirmed it yet
    /// (e.g. 1GB); a replica further behind must copy a new base image.
    #[arg(long, value_parser = parse_size, default_value = "1GB")]
    replica_wal_keep_max: usize,
    /// Replicas whose confirmation a commit waits for, in PostgreSQL's
    /// synchronous_standby_names syntax (`r1`, `FIRST 1 (r1, r2)`,
    /// `ANY 2 (r1, r2, r3)`, `*`), by --replica-name; how far it waits is
    /// each session's synchronous_commit (remote_write, on, remote_apply).
    #[arg(long, default_value = "")]
    synchronous_standby_names: String,
    /// Replication connections a primary serves at once (max_wal_senders).
    #[arg(long, default_value_t = limits::WAL_SENDERS_MAX)]
    max_wal_senders: usize,
    /// Promote the replica running on --data-dir to a primary, and exit
    /// (what `pg_ctl promote` does; SELECT pg_promote() does the same).
    #[arg(long)]
    promote: bool,
    /// Server certificate (PEM; the certificate first, then any
    /// intermediates): with --tls-key, clients may use TLS (sslmode=require
    /// and up), as with PostgreSQL's ssl=on and ssl_cert_file.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The certificate's private key (PEM: PKCS#8, PKCS#1 RSA or SEC1 EC),
    /// as PostgreSQL's ssl_key_file.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Refuse connections that do not use TLS (FATAL 28000, as a pg_hba
    /// of `hostssl` lines only does). Needs --tls-cert and --tls-key.
    #[arg(long, requires = "tls_cert")]
    tls_required: bool,
    /// Client authentication rules in pg_hba.conf's format (TCP lines:
    /// host, hostssl, hostnossl; methods trust, reject, scram-sha-256, md5):
    /// the first line matching a connection decides, none refuses it.
    #[arg(long, value_name = "FILE")]
    hba_file: Option<PathBuf>,
    /// Allow --listen on an address other than loopback while some
    /// connection from another machine would be trusted without a password
    /// (refused by default).
    #[arg(long)]
    allow_remote_trust: bool,
    /// Memory the server may use (e.g. 256MB, 8GB): past it, writes fail
    /// with 53200 out of memory (reads go on). Default: 80 % of the
    /// machine's memory or of the cgroup's limit, whichever is smaller.
    #[arg(long, value_parser = parse_size)]
    memory_limit: Option<usize>,
    /// Serve Prometheus metrics at http://ADDR:PORT/metrics (text format
    /// 0.0.4; port 0 picks a free one, the log line tells which). Off by
    /// default. The endpoint has no authentication: listen on an address
    /// only the monitoring system reaches.
    #[arg(long, value_name = "ADDR:PORT")]
    metrics_listen: Option<String>,
    /// How often the built-in wait sampler samples every session's wait
    /// event (nestor_wait_sampling_profile); 0 turns it off.
    #[arg(long, default_value_t = nestor_common::limits::WAIT_SAMPLING_PERIOD_MS)]
    wait_sampling_period_ms: u64,
    /// The server log's format on standard error, as PostgreSQL's
    /// log_destination: `stderr` (text lines) or `jsonlog` (one JSON object
    /// per line with PostgreSQL 15's jsonlog keys).
    #[arg(long, default_value = "stderr", value_parser = ["stderr", "jsonlog"])]
    log_destination: String,
}

fn parse_size(text: &str) -> Result<usize, String> {
    let n = nestor_common::units::parse_bytes(text)?;
    usize::try_from(n).map_err(|_| format!("invalid size \"{text}\": out of range"))
}

#[cfg(all(feature = "alloc-mimalloc", feature = "alloc-jemalloc"))]
compile_error!("choose one allocator feature: alloc-mimalloc or alloc-jemalloc");

#[cfg(all(feature = "alloc-mimalloc", not(feature = "alloc-jemalloc")))]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[cfg(feature = "alloc-jemalloc")]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    nestor_common::log::mark_process_start();
    let filter = tracing_subscriber::EnvFilter::try_from_env("NESTOR_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    if cli.log_destination == "jsonlog" {
        use tracing_subscriber::layer::SubscriberExt as _;
        use tracing_subscriber::util::SubscriberInitExt as _;
        nestor_common::log::set_format(nestor_common::log::Format::Json);
        tracing_subscriber::registry()
            .with(filter)
            .with(log_layer::JsonLog)
            .init();
        // A panic (a session's is caught and reported as XX000) is a JSON
        // line too, not Rust's text.
        std::panic::set_hook(Box::new(|info| {
            let message = format!("panic: {info}");
            let mut line = nestor_common::log::Line::new("ERROR", &message);
            line.state_code = Some("XX000");
            nestor_common::log::write(&line);
        }));
    } else {
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .with_target(false)
            .init();
    }
    // On a session's stack, not the main thread's: recovery replays and
    // re-indexes rows as sessions wrote them, and a computed index's key
    // (a jsonb document parsed JSON_NESTING_MAX deep) needs the stack a
    // session had when it wrote the row.
    let served = std::thread::Builder::new()
        .name("nestor-main".into())
        .stack_size(nestor_common::limits::SESSION_STACK_BYTES)
        .spawn(move || serve(cli))
        .map_err(|e| format!("cannot start: {e}"))
        .and_then(|t| t.join().map_err(|_| "startup panicked".to_string()))
        .and_then(|r| r);
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e}");
            ExitCode::FAILURE
        }
    }
}

/// `nestor --promote`: leave the signal a running replica looks for.
fn promote(dir: &std::path::Path) -> Result<(), String> {
    if !dir.join(nestor_durable::STANDBY_SIGNAL).exists() {
        return Err(format!(
            "cannot promote: data directory \"{}\" is not a replica's",
            dir.display()
        ));
    }
    std::fs::write(dir.join(walreceiver::PROMOTE_SIGNAL), b"")
        .map_err(|e| format!("cannot promote: {e}"))?;
    eprintln!("server promoting");
    Ok(())
}

/// `--replica-of HOST:PORT` as a walreceiver configuration.
fn replica_config(cli: &Cli) -> Result<Option<walreceiver::Config>, String> {
    let Some(spec) = &cli.replica_of else {
        return Ok(None);
    };
    let (host, port) = spec
        .rsplit_once(':')
        .and_then(|(h, p)| Some((h.to_string(), p.parse::<u16>().ok()?)))
        .ok_or_else(|| format!("--replica-of wants HOST:PORT, not \"{spec}\""))?;
    Ok(Some(walreceiver::Config {
        host,
        port,
        user: cli.replica_user.clone(),
        password: cli.replica_password.clone().filter(|p| !p.is_empty()),
        application_name: cli.replica_name.clone(),
    }))
}

fn serve(cli: Cli) -> Result<(), String> {
    if cli.promote {
        return promote(&cli.data_dir);
    }
    let replica = replica_config(&cli)?;
    // Before anything is created: a bad file is the operator's to fix.
    let tls = match (&cli.tls_cert, &cli.tls_key) {
        (Some(cert), Some(key)) => Some(tls::load_config(cert, key)?),
        _ => None,
    };
    if cli.superuser_reserved_connections >= cli.max_connections {
        return Err(format!(
            "superuser_reserved_connections ({}) must be less than max_connections ({})",
            cli.superuser_reserved_connections, cli.max_connections
        ));
    }
    if let Some(file_max) = cli.txn_redo_file_max {
        if file_max < cli.txn_redo_memory_max {
            return Err(format!(
                "--txn-redo-file-max ({file_max} bytes) must not be less than --txn-redo-memory-max ({} bytes)",
                cli.txn_redo_memory_max
            ));
        }
    }
    limits::configure(limits::Configured {
        savepoint_depth_max: cli.savepoint_depth_max,
        txn_undo_entries_max: cli.txn_undo_entries_max,
        txn_locks_max: cli.txn_locks_max,
        txn_redo_file_bytes_max: cli.txn_redo_file_max.map_or(u64::MAX, |b| b as u64),
    });
    restrict_file_modes();
    let limit = cli
        .memory_limit
        .map(|b| b as u64)
        .unwrap_or_else(default_memory_limit);
    nestor_common::memory::configure(limit, memory_probe());
    tracing::info!(
        "memory limit {} MB ({})",
        limit >> 20,
        nestor_common::memory::source()
    );
    raise_fd_limit(cli.max_connections);
    match &replica {
        // Before any signal handler: SIGTERM during the first copy ends
        // the process (the image is renamed into place only when whole).
        Some(cfg) => walreceiver::prepare_data_dir(&cli.data_dir, cfg, Arc::new(|| false))?,
        None if cli.data_dir.join(nestor_durable::STANDBY_SIGNAL).exists() => {
            return Err(format!(
                "data directory \"{}\" is a replica's ({} is there): start it with --replica-of HOST:PORT, or promote it with --promote while it runs",
                cli.data_dir.display(),
                nestor_durable::STANDBY_SIGNAL
            ));
        }
        None => {}
    }
    let engine = Engine::new(EngineConfig {
        txn_redo_memory_bytes_max: cli.txn_redo_memory_max,
        superuser_reserved_connections: cli.superuser_reserved_connections,
        superusers: cli.superusers.clone(),
        bootstrap_superusers: os_user_name().into_iter().collect(),
        replica: replica.is_some(),
        replica_wal_keep_bytes_max: cli.replica_wal_keep_max as u64,
        wal_senders_max: cli.max_wal_senders,
        wait_sampling_period: (cli.wait_sampling_period_ms > 0)
            .then(|| Duration::from_millis(cli.wait_sampling_period_ms)),
        ..EngineConfig::durable(cli.data_dir.clone(), cli.max_connections)
    })
    .map_err(|e| {
        let mut m = format!("cannot start: {}", e.message);
        for (label, text) in [("DETAIL", &e.detail), ("HINT", &e.hint)] {
            if let Some(t) = text {
                m.push_str(&format!("\n{label}:  {t}"));
            }
        }
        m
    })?;
    // The data directory is ours now: empty its temporary files' directory.
    nestor_exec::spill::init(&cli.data_dir).map_err(|e| {
        format!(
            "cannot start: could not empty \"{}\": {e}",
            cli.data_dir.join("pgsql_tmp").display()
        )
    })?;
    let engine_for_shutdown = engine.clone();
    let sync = nestor_exec::replication::SyncStandbys::parse(&cli.synchronous_standby_names)
        .map_err(|e| format!("invalid --synchronous-standby-names: {e}"))?;
    engine.replication.set_sync_standbys(sync);
    let receiver = match replica {
        Some(cfg) => {
            let e = engine.clone();
            let stopping: Arc<dyn Fn() -> bool + Send + Sync> = Arc::new(move || e.is_stopping());
            Some(
                walreceiver::start(engine.clone(), cfg, stopping)
                    .map_err(|e| format!("cannot start the walreceiver: {e}"))?,
            )
        }
        None => None,
    };
    let verifier = cli
        .password
        .as_deref()
        .filter(|p| !p.is_empty())
        .map(scram::Verifier::new);
    let hba = match &cli.hba_file {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read --hba-file {}: {e}", path.display()))?;
            hba::Hba::parse(&text)
                .map_err(|e| format!("invalid --hba-file {}: {e}", path.display()))?
        }
        None => hba::Hba::default_rules(verifier.is_some()),
    };
    if hba.trusts_remote() && !listens_on_loopback_only(&cli.listen) && !cli.allow_remote_trust {
        return Err(format!(
            "refusing to listen on {} with trust authentication for other machines: set --password, \
             give an --hba-file, or pass --allow-remote-trust",
            cli.listen
        ));
    }
    let tls_on = tls.is_some();
    let metrics_engine = engine.clone();
    let shared = Arc::new(
        shared::Shared::new(engine, verifier, cli.max_connections)
            .with_tls(tls, cli.tls_required)
            .with_hba(hba),
    );

    // Every session may be blocked in `Session::handle` at once (lock waits
    // on one another): the blocking pool must never be the bottleneck, or a
    // lock holder's COMMIT could queue behind its own waiters.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("nestor")
        .max_blocking_threads(cli.max_connections + shared::SOCKETS_RESERVE)
        .thread_stack_size(nestor_common::limits::SESSION_STACK_BYTES)
        .build()
        .map_err(|e| format!("cannot start runtime: {e}"))?;
    let result = runtime.block_on(async {
        let signals = server::Signals::install()
            .map_err(|e| format!("cannot install signal handlers: {e}"))?;
        let listener = tokio::net::TcpListener::bind((cli.listen.as_str(), cli.port))
            .await
            .map_err(|e| format!("cannot listen on {}:{}: {e}", cli.listen, cli.port))?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        if let Some(at) = &cli.metrics_listen {
            // Bound before the "listening on" line: whoever waits for that
            // line can scrape at once.
            let metrics = tokio::net::TcpListener::bind(at.as_str())
                .await
                .map_err(|e| format!("cannot listen on --metrics-listen {at}: {e}"))?;
            let maddr = metrics.local_addr().map_err(|e| e.to_string())?;
            tracing::info!("serving metrics on http://{maddr}/metrics");
            tokio::spawn(metrics::serve(metrics, metrics_engine));
        }
        if tls_on {
            tracing::info!(
                "TLS enabled{}",
                if cli.tls_required {
                    " and required"
                } else {
                    ""
                }
            );
        }
        // The sockets before the "listening on" line: whoever waits for it
        // can connect either way.
        let (unix, socket_files): (Vec<_>, Vec<_>) =
            unix_socket::bind_all(&cli.unix_socket_directories, addr.port(), &cli.data_dir)
                .into_iter()
                .unzip();
        tracing::info!("listening on {addr}");
        server::run(listener, unix, shared, signals).await;
        drop(socket_files);
        Ok(())
    });
    // Sessions stuck in a blocking call must not keep the process alive.
    runtime.shutdown_timeout(Duration::from_secs(1));
    // A shutdown checkpoint: the next start replays (almost) no WAL.
    engine_for_shutdown.begin_shutdown();
    if let Some(r) = receiver {
        let _ = r.join();
    }
    engine_for_shutdown.shutdown();
    result
}

/// 80 % of the smaller of the machine's memory (MemTotal) and the memory
/// limit of the cgroup this process runs in; no limit if neither can be
/// read.
fn default_memory_limit() -> u64 {
    let read = |p: &str| std::fs::read_to_string(p).ok();
    let mem_total = read("/proc/meminfo").and_then(|m| {
        m.lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map(|kb| kb * 1024)
    });
    let cgroup = read("/proc/self/cgroup")
        .and_then(|c| cgroup_memory_limit(&c, std::path::Path::new("/sys/fs/cgroup")));
    match [mem_total, cgroup].into_iter().flatten().min() {
        Some(bytes) => bytes / 10 * 8,
        None => u64::MAX,
    }
}

/// The memory limit of the cgroup `proc_self_cgroup` (the text of
/// /proc/self/cgroup) names, under the cgroup file systems at `root`: the
/// smallest limit on the way from the process's own group up to the root
/// (a parent's limit binds its children), cgroup v2 (`0::/path`,
/// memory.max; also under `unified/` on hybrid hosts) or v1 (the `memory`
/// controller's line, memory.limit_in_bytes). A group that is not visible
/// (another cgroup namespace) counts from the mount's root.
fn cgroup_memory_limit(proc_self_cgroup: &str, root: &std::path::Path) -> Option<u64> {
    let mut dirs: Vec<(std::path::PathBuf, &str, &str)> = Vec::new();
    for line in proc_self_cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(id), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let rel = path.trim_start_matches('/');
        if id == "0" && controllers.is_empty() {
            for base in [root.to_path_buf(), root.join("unified")] {
                dirs.push((base, rel, "memory.max"));
            }
        } else if controllers.split(',').any(|c| c == "memory") {
            dirs.push((root.join("memory"), rel, "memory.limit_in_bytes"));
        }
    }
    let limit_in = |dir: &std::path::Path, file: &str| -> Option<u64> {
        let text = std::fs::read_to_string(dir.join(file)).ok()?;
        // "max" (v2) or a huge number (v1's page-rounded i64::MAX): none.
        text.trim()
            .parse::<u64>()
            .ok()
            .filter(|&b| b < (1u64 << 62))
    };
    let mut best: Option<u64> = None;
    for (base, rel, file) in dirs {
        if !base.join(file).exists() && !base.join(rel).join(file).exists() {
            continue;
        }
        let mut dir = base.join(rel);
        if !dir.exists() {
            dir = base.clone();
        }
        loop {
            if let Some(b) = limit_in(&dir, file) {
                best = Some(best.map_or(b, |x| x.min(b)));
            }
            if dir == base || !dir.pop() {
                break;
            }
        }
    }
    best
}

/// How the memory budget measures the process: jemalloc's count of
/// allocated bytes, or the resident set with another allocator.
fn memory_probe() -> nestor_common::memory::Probe {
    #[cfg(feature = "alloc-jemalloc")]
    {
        nestor_common::memory::Probe {
            source: "jemalloc stats.allocated",
            read: || {
                tikv_jemalloc_ctl::epoch::advance().ok()?;
                tikv_jemalloc_ctl::stats::allocated::read()
                    .ok()
                    .map(|b| b as u64)
            },
        }
    }
    #[cfg(not(feature = "alloc-jemalloc"))]
    {
        nestor_common::memory::Probe {
            source: "resident set",
            read: || {
                let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
                let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
                Some(pages * 4096)
            },
        }
    }
}

/// Whether every address `--listen` names is a loopback one.
fn listens_on_loopback_only(listen: &str) -> bool {
    listen.split(',').map(str::trim).all(|a| {
        a == "localhost"
            || a.trim_matches(|c| c == '[' || c == ']')
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    })
}

/// The name of the user running the server (getpwuid, as libpq's default
/// user name).
#[allow(unsafe_code)]
fn os_user_name() -> Option<String> {
    // SAFETY: getpwuid returns a pointer into static storage (or null);
    // pw_name is a NUL-terminated string in it, copied before returning.
    unsafe {
        let pw = libc::getpwuid(libc::geteuid());
        if pw.is_null() || (*pw).pw_name.is_null() {
            return None;
        }
        std::ffi::CStr::from_ptr((*pw).pw_name)
            .to_str()
            .ok()
            .map(str::to_owned)
    }
}

/// Files and directories the server creates are its user's alone (0600,
/// 0700): the data directory holds every row of every table. PostgreSQL
/// sets the same umask (PG_MODE_MASK_OWNER).
#[allow(unsafe_code)]
fn restrict_file_modes() {
    // SAFETY: umask only sets the process's file mode creation mask.
    unsafe {
        libc::umask(0o077);
    }
}

/// Each connection is a file descriptor: raise the soft limit to the hard
/// one, and warn if even that cannot hold `max_connections`.
#[allow(unsafe_code)]
fn raise_fd_limit(max_connections: usize) {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit only read/write the struct we pass.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return;
        }
        if lim.rlim_cur < lim.rlim_max {
            let want = libc::rlimit {
                rlim_cur: lim.rlim_max,
                rlim_max: lim.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &want) == 0 {
                lim.rlim_cur = lim.rlim_max;
            }
        }
    }
    let needed = (max_connections + shared::SOCKETS_RESERVE + 64) as libc::rlim_t;
    if lim.rlim_cur < needed {
        tracing::warn!(
            "open file limit {} is below what --max-connections {} needs ({needed})",
            lim.rlim_cur,
            max_connections
        );
    }
}

#[cfg(test)]
mod cgroup_tests {
    use super::cgroup_memory_limit;

    #[test]
    fn the_memory_limit_is_the_process_own_cgroup_s_or_a_parent_s() {
        let root = std::env::temp_dir().join(format!("nestor-cgroup-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let put = |rel: &str, file: &str, text: &str| {
            let d = root.join(rel);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join(file), text).unwrap();
        };
        // cgroup v2: the group's own limit, tighter than the root's "max".
        put("", "memory.max", "max\n");
        put("app.slice/db.scope", "memory.max", "1073741824\n");
        put("app.slice", "memory.max", "max\n");
        let v2 = "0::/app.slice/db.scope\n";
        assert_eq!(cgroup_memory_limit(v2, &root), Some(1 << 30));
        // A parent's limit binds when it is smaller.
        put("app.slice", "memory.max", "536870912\n");
        assert_eq!(cgroup_memory_limit(v2, &root), Some(1 << 29));
        // cgroup v1, the memory controller's line; "unlimited" is a huge number.
        put("memory", "memory.limit_in_bytes", "9223372036854771712\n");
        put("memory/api/42", "memory.limit_in_bytes", "268435456\n");
        let v1 = "4:memory:/api/42\n3:cpuset:/\n";
        assert_eq!(cgroup_memory_limit(v1, &root), Some(1 << 28));
        // Not visible from here (another namespace): the mount's root.
        assert_eq!(cgroup_memory_limit("4:memory:/elsewhere\n", &root), None);
        assert_eq!(cgroup_memory_limit("", &root), None);
        let _ = std::fs::remove_dir_all(&root);
    }
}
