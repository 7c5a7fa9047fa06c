//! Authentication with a real client (tokio-postgres): trust by default,
//! SCRAM-SHA-256 with `--password` or NESTOR_PASSWORD.

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
    let srv = Server::start();
    connect(&srv, None).await.expect("trust connect");
}

#[tokio::test]
async fn scram_right_password_succeeds_wrong_fails_28p01() {
    let srv = Server::start_with(&["--password", "s3cret pw"], &[]);
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
    let srv = Server::start_with(&[], &[("NESTOR_PASSWORD", "envpw")]);
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
