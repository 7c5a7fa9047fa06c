//! COPY's server-side ends: `COPY t FROM 'file'`, `COPY t TO 'file'`,
//! `FROM PROGRAM 'cmd'` and `TO PROGRAM 'cmd'`.
//!
//! PostgreSQL lets superusers (and members of the predefined roles
//! pg_read_server_files, pg_write_server_files, pg_execute_server_program)
//! make the server process itself read or write the data. Nestor does the
//! same through the paths COPY FROM STDIN / TO STDOUT already take, so
//! formats, options, triggers and errors are shared:
//!
//! ```text
//!   COPY t FROM '/data/x.csv' CSV
//!     copy_from ── CopyInState (as for STDIN, no CopyInResponse sent)
//!        │  read 64 kB chunks of the file ──▶ Session::copy_data
//!        └─ end of file ──▶ Session::copy_finish ──▶ "COPY n"
//!
//!   COPY t TO '/tmp/x.csv'
//!     copy_to ── the rows' CopyData payloads ──▶ written to the file
//!                (not sent), then "COPY n"
//! ```
//!
//! A program runs as `sh -c CMD` (PostgreSQL's popen), its standard output
//! read for FROM and its standard input written for TO; a non-zero exit is
//! `program "CMD" failed` with the exit status as DETAIL. A relative path is
//! the data directory's (the server's working directory in PostgreSQL) for
//! reading, and refused for writing ("relative path not allowed for COPY to
//! file"), as in PostgreSQL.
//!
//! Left out: the progress view (pg_stat_progress_copy), and COPY FROM a
//! file in the extended query protocol's describe-only paths (a file COPY
//! runs whole at Execute).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use nestor_common::{DbError, SqlState};
use nestor_parser::pb::CopyStmt;

use super::Session;

/// Bytes read from a file or program per call into the COPY parser.
const COPY_READ_CHUNK_BYTES: usize = 64 * 1024;

/// Where a server-side COPY reads or writes its data.
pub(crate) enum ServerEnd {
    File(String),
    Program(String),
}

impl ServerEnd {
    /// The statement's server-side end; None for STDIN/STDOUT.
    pub(crate) fn of(c: &CopyStmt) -> Option<ServerEnd> {
        if c.is_program {
            Some(ServerEnd::Program(c.filename.clone()))
        } else if !c.filename.is_empty() {
            Some(ServerEnd::File(c.filename.clone()))
        } else {
            None
        }
    }
}

const COPY_HINT: &str =
    "Anyone can COPY to stdout or from stdin. psql's \\copy command also works for anyone.";

/// PostgreSQL's check in DoCopy: superuser, or the privileges of the
/// predefined role that grants this kind of server-side access (those
/// roles are not created yet — catalog/src/role.rs — so today only
/// superusers pass).
pub(crate) fn check_privilege(s: &Session, end: &ServerEnd, is_from: bool) -> Result<(), DbError> {
    let (role, msg) = match (end, is_from) {
        (ServerEnd::Program(_), _) => (
            "pg_execute_server_program",
            "must be superuser or have privileges of the pg_execute_server_program role to COPY to or from an external program",
        ),
        (ServerEnd::File(_), true) => (
            "pg_read_server_files",
            "must be superuser or have privileges of the pg_read_server_files role to COPY from a file",
        ),
        (ServerEnd::File(_), false) => (
            "pg_write_server_files",
            "must be superuser or have privileges of the pg_write_server_files role to COPY to a file",
        ),
    };
    let me = s.role_ctx();
    if me.superuser {
        return Ok(());
    }
    let granted = s
        .catalog
        .role(role)
        .is_some_and(|r| s.catalog.has_privs_of_role(me.oid, r.oid));
    if granted {
        return Ok(());
    }
    Err(DbError::new(SqlState::InsufficientPrivilege, msg).with_hint(COPY_HINT))
}

/// An open source of COPY FROM data.
pub(crate) enum Source {
    File(std::fs::File),
    Program(Child, String),
}

impl Source {
    pub(crate) fn open(s: &Session, end: &ServerEnd) -> Result<Source, DbError> {
        match end {
            ServerEnd::File(name) => {
                let path = resolve(s, name);
                let file = std::fs::File::open(&path).map_err(|e| open_error(&e, name, true))?;
                let meta = file
                    .metadata()
                    .map_err(|e| file_error(&e, format!("could not stat file \"{name}\"")))?;
                if meta.is_dir() {
                    return Err(is_directory(name));
                }
                Ok(Source::File(file))
            }
            ServerEnd::Program(cmd) => {
                let child = shell(cmd)
                    .stdin(Stdio::null())
                    .stdout(Stdio::piped())
                    .spawn()
                    .map_err(|e| file_error(&e, format!("could not execute command \"{cmd}\"")))?;
                Ok(Source::Program(child, cmd.clone()))
            }
        }
    }

    /// Read up to one chunk; an empty vector at the end.
    pub(crate) fn read_chunk(&mut self) -> Result<Vec<u8>, DbError> {
        let mut buf = vec![0u8; COPY_READ_CHUNK_BYTES];
        let n = match self {
            Source::File(f) => f.read(&mut buf),
            Source::Program(child, _) => match child.stdout.as_mut() {
                Some(out) => out.read(&mut buf),
                None => Ok(0),
            },
        }
        .map_err(|e| file_error(&e, "could not read from COPY file".to_string()))?;
        buf.truncate(n);
        Ok(buf)
    }

    /// Close the source: a program must have exited with status 0. After
    /// a failed COPY (`abandon`) a program still writing is killed rather
    /// than waited for, since nothing reads its output any more.
    pub(crate) fn close(self, abandon: bool) -> Result<(), DbError> {
        match self {
            Source::File(_) => Ok(()),
            Source::Program(mut child, cmd) => {
                if abandon {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Ok(());
                }
                wait_program(child, &cmd)
            }
        }
    }
}

/// Write COPY TO's data (the CopyData payloads, in order) to a file or a
/// program's standard input.
pub(crate) fn write_all(end: &ServerEnd, chunks: &[Vec<u8>]) -> Result<(), DbError> {
    match end {
        ServerEnd::File(name) => {
            if !Path::new(name).is_absolute() {
                return Err(DbError::new(
                    SqlState::InvalidName,
                    "relative path not allowed for COPY to file",
                ));
            }
            if Path::new(name).is_dir() {
                return Err(is_directory(name));
            }
            let mut file = std::fs::File::create(name).map_err(|e| open_error(&e, name, false))?;
            for c in chunks {
                file.write_all(c)
                    .map_err(|e| file_error(&e, "could not write to COPY file".to_string()))?;
            }
            file.flush()
                .map_err(|e| file_error(&e, "could not write to COPY file".to_string()))
        }
        ServerEnd::Program(cmd) => {
            let mut child = shell(cmd)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .spawn()
                .map_err(|e| file_error(&e, format!("could not execute command \"{cmd}\"")))?;
            if let Some(mut input) = child.stdin.take() {
                for c in chunks {
                    if let Err(e) = input.write_all(c) {
                        // A program that stops reading early: PostgreSQL
                        // reports the write failure.
                        let _ = child.kill();
                        let _ = child.wait();
                        return Err(file_error(
                            &e,
                            "could not write to COPY program".to_string(),
                        ));
                    }
                }
            }
            wait_program(child, cmd)
        }
    }
}

/// A relative file name read by COPY FROM is the data directory's.
fn resolve(s: &Session, name: &str) -> PathBuf {
    let p = Path::new(name);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        s.engine.config.data_dir.join(p)
    }
}

fn shell(cmd: &str) -> Command {
    let mut c = Command::new("sh");
    c.arg("-c").arg(cmd).stderr(Stdio::inherit());
    c
}

/// Wait for a COPY program; a failure is PostgreSQL's `program "…"
/// failed` with wait_result_to_str's DETAIL.
fn wait_program(mut child: Child, cmd: &str) -> Result<(), DbError> {
    let status = child.wait().map_err(|e| {
        file_error(
            &e,
            format!("could not close pipe to external command \"{cmd}\""),
        )
    })?;
    if status.success() {
        return Ok(());
    }
    let detail = match status.code() {
        Some(126) => "command not executable".to_string(),
        Some(127) => "command not found".to_string(),
        Some(n) => format!("child process exited with exit code {n}"),
        None => {
            use std::os::unix::process::ExitStatusExt;
            match status.signal() {
                Some(sig) => format!("child process was terminated by signal {sig}"),
                None => "child process exited with unrecognized status".to_string(),
            }
        }
    };
    Err(DbError::new(
        SqlState::ExternalRoutineException,
        format!("program \"{cmd}\" failed"),
    )
    .with_detail(detail))
}

/// A file COPY could not open; a missing file or a refused one gets
/// PostgreSQL's hint about psql's \copy.
fn open_error(e: &std::io::Error, name: &str, reading: bool) -> DbError {
    let (how, verb, what) = if reading {
        ("reading", "read", "COPY FROM")
    } else {
        ("writing", "write", "COPY TO")
    };
    let err = file_error(e, format!("could not open file \"{name}\" for {how}"));
    match e.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied => err.with_hint(format!(
            "{what} instructs the PostgreSQL server process to {verb} a file. You may want a client-side facility such as psql's \\copy."
        )),
        _ => err,
    }
}

fn is_directory(name: &str) -> DbError {
    DbError::new(
        SqlState::WrongObjectType,
        format!("\"{name}\" is a directory"),
    )
}

/// PostgreSQL's errcode_for_file_access and `%m`.
fn file_error(e: &std::io::Error, what: String) -> DbError {
    let code = match e.kind() {
        std::io::ErrorKind::NotFound => SqlState::UndefinedFile,
        std::io::ErrorKind::PermissionDenied => SqlState::InsufficientPrivilege,
        std::io::ErrorKind::AlreadyExists => SqlState::DuplicateFile,
        _ => SqlState::IoError,
    };
    DbError::new(code, format!("{what}: {}", strerror(e)))
}

/// The C library's message for an I/O error, without Rust's
/// " (os error N)" suffix.
fn strerror(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}
