//! Authentication with a real client (tokio-postgres): trust by default,
//! SCRAM-SHA-256 with `--password` or NESTOR_PASSWORD, against the role's
//! own password when it has one; roles that do not exist or may not log in
//! are refused as PostgreSQL refuses them.

mod common;

use common::*;
use tokio_postgres::error::SqlState;
use tokio_postgres::NoTls;

async fn connect(srv: &Server, password: Option<&str>) -> Result<(), tokio_postgres::Error> {
    connect_as(srv, "alice", password).await
}

async fn connect_as(
    srv: &Server,
    user: &str,
    password: Option<&str>,
) -> Result<(), tokio_postgres::Error> {
    let (client, conn) = tokio_postgres::connect(&srv.conn_str(user, password), NoTls).await?;
    let task = tokio::spawn(conn);
    // The authenticated connection is usable.
    let rows = client.simple_query("select 1").await?;
    assert!(
        rows.iter().any(|m| matches!(
            m,
            tokio_postgres::SimpleQueryMessage::Row(r) if r.get(0) == Some("1")
        )),
        "select 1 answered"
    );
    drop(client);
    let _ = task.await;
    Ok(())
}

/// What PostgreSQL sends for a wrong password: FATAL, SQLSTATE 28P01 and
/// this exact message naming the user (no hint of which part was wrong).
fn assert_password_failed(err: &tokio_postgres::Error, user: &str) {
    assert_eq!(err.code(), Some(&SqlState::INVALID_PASSWORD), "{err}");
    let db = err.as_db_error().expect("an error from the server");
    assert_eq!(db.severity(), "FATAL", "{db:?}");
    assert_eq!(
        db.message(),
        format!("password authentication failed for user \"{user}\"")
    );
}

#[tokio::test]
async fn trust_without_password() {
    let srv = Server::start_with(&["--superuser", "alice"], &[]);
    connect(&srv, None).await.expect("trust connect");
}

#[tokio::test]
async fn scram_right_password_succeeds_wrong_fails_28p01() {
    let srv = Server::start_with(&["--password", "s3cret pw", "--superuser", "alice"], &[]);
    connect(&srv, Some("s3cret pw"))
        .await
        .expect("right password");
    let err = connect(&srv, Some("wrong"))
        .await
        .expect_err("wrong password");
    assert_password_failed(&err, "alice");
    // The message names whoever tried.
    let err = connect_as(&srv, "carol", Some("s3cret pwx"))
        .await
        .expect_err("wrong password");
    assert_password_failed(&err, "carol");
    // No password at all: the server asks for SCRAM, the client has nothing
    // to answer with and gives up on its side; the server stays healthy.
    let err = connect(&srv, None).await.expect_err("no password");
    assert!(err.as_db_error().is_none(), "client-side error: {err:?}");
    let cause = std::error::Error::source(&err).map(|e| e.to_string());
    assert_eq!(cause.as_deref(), Some("password missing"), "{err:?}");
    connect(&srv, Some("s3cret pw"))
        .await
        .expect("still healthy");
}

#[tokio::test]
async fn password_from_environment() {
    let srv = Server::start_with(&["--superuser", "alice"], &[("NESTOR_PASSWORD", "envpw")]);
    connect(&srv, Some("envpw")).await.expect("right password");
    let err = connect(&srv, Some("nope"))
        .await
        .expect_err("wrong password");
    assert_password_failed(&err, "alice");
}

#[test]
fn scram_request_and_garbage_sasl_response_is_fatal() {
    let srv = Server::start_with(&["--password", "pw"], &[]);
    let mut c = srv.raw();
    c.send(&startup_packet(3, 0, &[("user", "alice")]));
    let m = c.read();
    assert_eq!(m.tag, b'R');
    assert_eq!(&m.body[0..4], &10i32.to_be_bytes()); // AuthenticationSASL
    assert_eq!(&m.body[4..], b"SCRAM-SHA-256\0\0");
    // Wrong mechanism.
    let mut body = b"PLAIN\0".to_vec();
    body.extend_from_slice(&(-1i32).to_be_bytes());
    c.send(&frame(b'p', &body));
    c.expect_fatal_and_close("08P01");
    // A query instead of a SASL response.
    let mut c = srv.raw();
    c.send(&startup_packet(3, 0, &[("user", "alice")]));
    c.read();
    c.send(&frame(b'Q', b"select 1\0"));
    c.expect_fatal_and_close("08P01");
}

/// The FATAL a refused login gets: (SQLSTATE, message).
async fn refusal(srv: &Server, user: &str, password: Option<&str>) -> (String, String) {
    let err = connect_as(srv, user, password).await.expect_err("refused");
    let db = err.as_db_error().expect("an error from the server");
    assert_eq!(db.severity(), "FATAL", "{db:?}");
    (db.code().code().to_string(), db.message().to_string())
}

/// Under trust (PostgreSQL 15 with `trust` in pg_hba.conf): an unknown
/// role and a NOLOGIN role get FATAL 28000; CONNECTION LIMIT gives 53300
/// "too many connections for role"; a dropped role cannot log in again.
#[tokio::test]
async fn roles_decide_who_logs_in_under_trust() {
    let srv = Server::start();
    ok(
        &srv,
        "CREATE ROLE app LOGIN; CREATE ROLE grp; CREATE ROLE one LOGIN CONNECTION LIMIT 1",
    );
    connect_as(&srv, "app", None).await.expect("app logs in");
    assert_eq!(
        refusal(&srv, "nobody", None).await,
        ("28000".into(), "role \"nobody\" does not exist".into())
    );
    assert_eq!(
        refusal(&srv, "grp", None).await,
        (
            "28000".into(),
            "role \"grp\" is not permitted to log in".into()
        )
    );
    // One session of "one" held open: a second is refused.
    let (held, conn) = tokio_postgres::connect(&srv.conn_str("one", None), NoTls)
        .await
        .expect("first session of one");
    let task = tokio::spawn(conn);
    assert_eq!(
        refusal(&srv, "one", None).await,
        (
            "53300".into(),
            "too many connections for role \"one\"".into()
        )
    );
    drop(held);
    let _ = task.await;
    ok(&srv, "ALTER ROLE grp LOGIN; DROP ROLE app");
    connect_as(&srv, "grp", None)
        .await
        .expect("grp may log in now");
    assert_eq!(
        refusal(&srv, "app", None).await,
        ("28000".into(), "role \"app\" does not exist".into())
    );
}

/// With a server password: a role with its own PASSWORD logs in with that
/// one only; a role without one with the server's; an unknown role fails
/// exactly like a wrong password (28P01: whether it exists is not given
/// away); VALID UNTIL in the past makes the password fail; ALTER ROLE
/// ... PASSWORD takes effect at the next login; roles survive a restart.
#[tokio::test]
async fn role_passwords_are_scram_verifiers() {
    let mut srv = Server::start_with(&["--password", "serverpw"], &[]);
    let admin = [("PGPASSWORD", "serverpw")];
    let run = |srv: &Server, sql: &str| {
        psql_port(srv.port, sql, &admin).unwrap_or_else(|e| panic!("{sql}: {e}"))
    };
    run(
        &srv,
        "CREATE ROLE alice LOGIN PASSWORD 'alicepw'; CREATE ROLE bob LOGIN; \
         CREATE ROLE old LOGIN PASSWORD 'oldpw' VALID UNTIL '2001-01-01'",
    );
    connect_as(&srv, "alice", Some("alicepw"))
        .await
        .expect("own password");
    let err = connect_as(&srv, "alice", Some("serverpw"))
        .await
        .expect_err("not the server's");
    assert_password_failed(&err, "alice");
    connect_as(&srv, "bob", Some("serverpw"))
        .await
        .expect("the server's password");
    let err = connect_as(&srv, "ghost", Some("serverpw"))
        .await
        .expect_err("unknown");
    assert_password_failed(&err, "ghost");
    let err = connect_as(&srv, "old", Some("oldpw"))
        .await
        .expect_err("expired");
    assert_password_failed(&err, "old");
    // pg_authid shows the verifier, pg_roles masks it.
    let shown = run(
        &srv,
        "SELECT rolpassword FROM pg_authid WHERE rolname = 'alice'",
    );
    assert!(shown.starts_with("SCRAM-SHA-256$4096:"), "{shown}");
    assert_eq!(
        run(
            &srv,
            "SELECT rolpassword FROM pg_roles WHERE rolname = 'alice'"
        ),
        "********"
    );
    // A verifier given as the PASSWORD is stored as is (pg_dumpall).
    run(&srv, &format!("CREATE ROLE carol LOGIN PASSWORD '{shown}'"));
    connect_as(&srv, "carol", Some("alicepw"))
        .await
        .expect("same verifier");
    run(&srv, "ALTER ROLE alice PASSWORD 'newpw'");
    let err = connect_as(&srv, "alice", Some("alicepw"))
        .await
        .expect_err("old password");
    assert_password_failed(&err, "alice");
    // Roles are logged and checkpointed: after kill -9 and recovery alice
    // (from the checkpoint's image) has the new password and dave (from the
    // WAL after it) exists.
    run(&srv, "CHECKPOINT");
    run(&srv, "CREATE ROLE dave LOGIN PASSWORD 'davepw'");
    let dir = srv.data_dir.clone();
    srv.signal_and_wait(9);
    let again = Server::start_on_with(&dir, &["--password", "serverpw"]);
    connect_as(&again, "alice", Some("newpw"))
        .await
        .expect("after recovery");
    connect_as(&again, "bob", Some("serverpw"))
        .await
        .expect("bob too");
}

/// `--hba-file`: the first matching line decides, in pg_hba.conf's format:
/// SCRAM for members of a group, `reject` and no matching line refused
/// with PostgreSQL's FATAL 28000 messages, trust for the rest.
#[tokio::test]
async fn hba_file_rules_decide_per_connection() {
    let dir = std::env::temp_dir().join(format!("nestor-hba-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("pg_hba.conf");
    std::fs::write(
        &file,
        "# TYPE DATABASE USER ADDRESS METHOD\n\
         host   all      +admins    127.0.0.1/32  scram-sha-256\n\
         host   all      blocked    all           reject\n\
         host   postgres all        127.0.0.1/32  trust\n",
    )
    .unwrap();
    let srv = Server::start_with(&["--hba-file", file.to_str().unwrap()], &[]);
    ok(
        &srv,
        "CREATE ROLE admins; CREATE ROLE boss LOGIN PASSWORD 'bosspw' IN ROLE admins; \
         CREATE ROLE blocked LOGIN; CREATE ROLE plain LOGIN",
    );
    connect_as(&srv, "plain", None).await.expect("trusted");
    connect_as(&srv, "boss", Some("bosspw"))
        .await
        .expect("scram");
    let err = connect_as(&srv, "boss", Some("nope"))
        .await
        .expect_err("wrong");
    assert_password_failed(&err, "boss");
    assert_eq!(
        refusal(&srv, "blocked", None).await,
        (
            "28000".into(),
            "pg_hba.conf rejects connection for host \"127.0.0.1\", user \"blocked\", \
             database \"postgres\", no encryption"
                .into()
        )
    );
    // No line for another database.
    let (c, conn) =
        tokio_postgres::connect(&srv.conn_str("plain", None).replace("dbname=postgres", "dbname=other"), NoTls)
            .await
            .map(|(c, conn)| (Some(c), Some(conn)))
            .unwrap_or_else(|e| {
                let db = e.as_db_error().expect("server error");
                assert_eq!(db.code().code(), "28000");
                assert_eq!(
                    db.message(),
                    "no pg_hba.conf entry for host \"127.0.0.1\", user \"plain\", database \"other\", no encryption"
                );
                (None, None)
            });
    assert!(c.is_none() && conn.is_none(), "another database is refused");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Run nestor to its exit (a start that must fail): (status ok, stderr).
fn start_fails(args: &[&str]) -> String {
    let dir = std::env::temp_dir().join(format!(
        "nestor-refuse-{}-{}",
        std::process::id(),
        args.len()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_nestor"))
        .arg("--data-dir")
        .arg(&dir)
        .args(["--port", "0"])
        .args(args)
        .env_remove("NESTOR_PASSWORD")
        .output()
        .expect("run nestor");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!out.status.success(), "nestor {args:?} started");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Listening beyond loopback while trusting other machines is refused
/// unless asked for; a bad --hba-file stops the start naming its line.
#[test]
fn remote_trust_and_bad_rules_refuse_to_start() {
    let err = start_fails(&["--listen", "0.0.0.0"]);
    assert!(
        err.contains("refusing to listen on 0.0.0.0 with trust authentication for other machines"),
        "{err}"
    );
    let dir = std::env::temp_dir().join(format!("nestor-badhba-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("hba");
    std::fs::write(&file, "host all all all trust\nhost all all all ident\n").unwrap();
    let err = start_fails(&["--hba-file", file.to_str().unwrap()]);
    assert!(
        err.contains("line 2: invalid authentication method \"ident\""),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    // Allowed when asked, or with a password.
    let srv = Server::start_with(&["--listen", "0.0.0.0", "--allow-remote-trust"], &[]);
    assert_eq!(ok(&srv, "SELECT 1"), "1");
    let srv = Server::start_with(&["--listen", "0.0.0.0", "--password", "pw"], &[]);
    assert_eq!(
        psql_port(srv.port, "SELECT 2", &[("PGPASSWORD", "pw")]).unwrap(),
        "2"
    );
}

/// SHOW of each of `names` in a new session of `user` (with `options` as
/// the startup packet's, like PGOPTIONS).
async fn shown_as(srv: &Server, user: &str, options: &str, names: &[&str]) -> Vec<String> {
    let conn_str = format!("{} options='{options}'", srv.conn_str(user, None));
    let (client, conn) = tokio_postgres::connect(&conn_str, NoTls)
        .await
        .expect("connect");
    let task = tokio::spawn(conn);
    let mut out = Vec::new();
    for n in names {
        let row = client.query_one(&format!("SHOW {n}"), &[]).await.unwrap();
        out.push(row.get::<_, String>(0));
    }
    drop(client);
    let _ = task.await;
    out
}

/// ALTER ROLE / DATABASE ... SET: a new session of the role starts with
/// the stored values (role over database), the startup packet's options
/// over both; the settings, and ALTER DEFAULT PRIVILEGES entries, are
/// logged and checkpointed like roles.
#[tokio::test]
async fn role_settings_apply_at_login_and_survive_a_crash() {
    let mut srv = Server::start();
    let names = ["TimeZone", "statement_timeout", "lock_timeout"];
    ok(
        &srv,
        "CREATE ROLE app LOGIN; \
         ALTER DATABASE postgres SET lock_timeout = '4s'; \
         ALTER DATABASE postgres SET statement_timeout = '9s'; \
         ALTER ROLE app SET timezone = 'Asia/Tokyo'",
    );
    ok(
        &srv,
        "ALTER DEFAULT PRIVILEGES FOR ROLE app GRANT SELECT ON TABLES TO PUBLIC",
    );
    ok(&srv, "CHECKPOINT");
    ok(&srv, "ALTER ROLE app SET statement_timeout = '5s'");
    ok(
        &srv,
        "ALTER DEFAULT PRIVILEGES FOR ROLE app GRANT USAGE ON SEQUENCES TO PUBLIC",
    );
    assert_eq!(
        shown_as(&srv, "app", "", &names).await,
        ["Asia/Tokyo", "5s", "4s"]
    );
    // Another role gets the database's only.
    assert_eq!(
        shown_as(&srv, "postgres", "", &names).await,
        ["UTC", "9s", "4s"]
    );
    assert_eq!(
        shown_as(&srv, "app", "-c statement_timeout=1min", &names).await,
        ["Asia/Tokyo", "1min", "4s"]
    );
    // kill -9: the first three from the checkpoint's image, the last from
    // the WAL after it.
    let dir = srv.data_dir.clone();
    srv.signal_and_wait(9);
    let again = Server::start_on_with(&dir, &[]);
    assert_eq!(
        shown_as(&again, "app", "", &names).await,
        ["Asia/Tokyo", "5s", "4s"]
    );
    // ALTER DEFAULT PRIVILEGES entries likewise (one from each).
    assert_eq!(
        ok(
            &again,
            "SELECT string_agg(defaclobjtype || ':' || array_to_string(defaclacl, ','), ' ' \
             ORDER BY defaclobjtype) FROM pg_default_acl"
        ),
        "S:app=rwU/app,=U/app r:app=arwdDxt/app,=r/app"
    );
}

/// Column privileges (pg_attribute.attacl) ride in their table's ACL
/// entry: after a crash they come back from the checkpoint and from the
/// WAL after it, and still let a role read the columns granted only.
#[test]
fn column_privileges_survive_a_crash() {
    let mut srv = Server::start();
    ok(
        &srv,
        "CREATE ROLE cp_reader; CREATE TABLE cp (a int, b int, c int); \
         INSERT INTO cp VALUES (1, 2, 3); GRANT SELECT (a, b) ON cp TO cp_reader",
    );
    ok(&srv, "CHECKPOINT");
    ok(&srv, "GRANT UPDATE (c) ON cp TO cp_reader");
    let dir = srv.data_dir.clone();
    srv.signal_and_wait(9);
    let again = Server::start_on_with(&dir, &[]);
    assert_eq!(
        ok(
            &again,
            "SELECT string_agg(attname || ':' || array_to_string(attacl, ','), ' ' \
             ORDER BY attnum) FROM pg_attribute \
             WHERE attrelid = 'cp'::regclass AND attacl IS NOT NULL"
        ),
        "a:cp_reader=r/postgres b:cp_reader=r/postgres c:cp_reader=w/postgres"
    );
    assert_eq!(ok(&again, "SET ROLE cp_reader; SELECT a + b FROM cp"), "3");
    let denied = err(&again, "SET ROLE cp_reader; SELECT c FROM cp");
    assert!(
        denied.contains("permission denied for table cp"),
        "{denied}"
    );
}
