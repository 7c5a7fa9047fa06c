//! The Unix-domain sockets: `<dir>/.s.PGSQL.<port>` in each directory of
//! `--unix-socket-directories` (PostgreSQL's unix_socket_directories;
//! default `/var/run/postgresql`, where Debian's libpq and psql look), so
//! `psql -p 5433` with no host reaches the server.
//!
//! Property: a socket file is only ever removed by the server that created
//! it, or when the server that created it is gone. Rule, as PostgreSQL's:
//! beside each socket is a lock file `.s.PGSQL.<port>.lock` holding the
//! creator's PID; it is created exclusively before the socket is bound. A
//! lock file naming a live process other than this one means that
//! directory is in use: it is skipped with a WARNING. A lock file naming
//! a dead process (a crash) is stale: it and the socket are removed and
//! made anew. At shutdown both files are removed ([`SocketFiles`]' drop).
//!
//! ```text
//!   /var/run/postgresql/.s.PGSQL.5433        socket, mode 0777
//!   /var/run/postgresql/.s.PGSQL.5433.lock   "4242\n/path/to/data\n"
//! ```
//!
//! Differs from PostgreSQL: a directory where the socket cannot be made
//! (missing, not writable, in use) is a WARNING, not a start-up failure,
//! as long as TCP listens: the embedded default must start on a machine
//! without `/var/run/postgresql`. Left out: unix_socket_group and
//! unix_socket_permissions (the socket is 0777; the directory's own mode
//! is what restricts it), abstract-namespace sockets (`@name`).

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use tokio::net::UnixListener;

/// The files one socket owns, removed when dropped (at shutdown).
pub struct SocketFiles {
    socket: PathBuf,
    lock: PathBuf,
}

impl Drop for SocketFiles {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.socket);
        let _ = fs::remove_file(&self.lock);
    }
}

/// The socket's path in `dir` for `port`.
pub fn socket_path(dir: &Path, port: u16) -> PathBuf {
    dir.join(format!(".s.PGSQL.{port}"))
}

/// Bind a socket in each of the comma-separated `dirs` (empty: none).
/// Directories that fail are logged and skipped. Must run inside the
/// runtime.
pub fn bind_all(dirs: &str, port: u16, data_dir: &Path) -> Vec<(UnixListener, SocketFiles)> {
    dirs.split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .filter_map(|d| match bind(Path::new(d), port, data_dir) {
            Ok(l) => Some(l),
            Err(e) => {
                tracing::warn!("could not create Unix-domain socket in directory \"{d}\": {e}");
                None
            }
        })
        .collect()
}

fn bind(dir: &Path, port: u16, data_dir: &Path) -> Result<(UnixListener, SocketFiles), String> {
    let socket = socket_path(dir, port);
    let lock = dir.join(format!(".s.PGSQL.{port}.lock"));
    take_lock(&lock, &socket, data_dir)?;
    // From here the files are ours: a failure below removes them.
    let files = SocketFiles { socket, lock };
    match fs::remove_file(&files.socket) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(format!("could not remove old socket file: {e}")),
    }
    let listener = UnixListener::bind(&files.socket).map_err(|e| e.to_string())?;
    fs::set_permissions(&files.socket, fs::Permissions::from_mode(0o777))
        .map_err(|e| format!("could not set permissions of the socket: {e}"))?;
    tracing::info!("Unix-domain socket \"{}\"", files.socket.display());
    Ok((listener, files))
}

/// Create the lock file exclusively, first removing a stale one (its PID
/// is not a running process) together with its socket.
fn take_lock(lock: &Path, socket: &Path, data_dir: &Path) -> Result<(), String> {
    for _ in 0..2 {
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(lock)
        {
            Ok(mut f) => {
                let body = format!("{}\n{}\n", std::process::id(), data_dir.display());
                return f
                    .write_all(body.as_bytes())
                    .map_err(|e| format!("could not write lock file \"{}\": {e}", lock.display()));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let text = fs::read_to_string(lock).unwrap_or_default();
                let pid = text
                    .lines()
                    .next()
                    .and_then(|l| l.trim().parse::<u32>().ok());
                if let Some(pid) = pid.filter(|p| process_alive(*p)) {
                    return Err(format!(
                        "lock file \"{}\" already exists; is another server (PID {pid}) using socket file \"{}\"?",
                        lock.display(),
                        socket.display()
                    ));
                }
                let _ = fs::remove_file(socket);
                let _ = fs::remove_file(lock);
            }
            Err(e) => {
                return Err(format!(
                    "could not create lock file \"{}\": {e}",
                    lock.display()
                ))
            }
        }
    }
    Err(format!(
        "could not create lock file \"{}\": it keeps reappearing",
        lock.display()
    ))
}

/// Whether `pid` names a running process (this one included: a lock file
/// this process wrote is never stale).
fn process_alive(pid: u32) -> bool {
    pid == std::process::id() || Path::new(&format!("/proc/{pid}")).exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("nestor-unix-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[tokio::test]
    async fn a_stale_lock_is_replaced_and_a_live_one_kept() {
        let d = dir("stale");
        // A PID that cannot be running: above the kernel's pid_max limit.
        fs::write(d.join(".s.PGSQL.7.lock"), "4194305\n/x\n").unwrap();
        fs::write(d.join(".s.PGSQL.7"), "").unwrap();
        let bound = bind_all(d.to_str().unwrap(), 7, Path::new("/data"));
        assert_eq!(bound.len(), 1);
        let lock = fs::read_to_string(d.join(".s.PGSQL.7.lock")).unwrap();
        assert_eq!(lock, format!("{}\n/data\n", std::process::id()));
        // A second bind in the same directory and port: our own live PID.
        assert!(bind(&d, 7, Path::new("/data")).is_err());
        drop(bound);
        assert!(!d.join(".s.PGSQL.7").exists());
        assert!(!d.join(".s.PGSQL.7.lock").exists());
        // A missing directory is skipped, not fatal.
        assert!(bind_all(d.join("missing").to_str().unwrap(), 7, Path::new("/d")).is_empty());
        fs::remove_dir_all(&d).unwrap();
    }
}
