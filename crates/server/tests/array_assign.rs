//! Assignment through subscripts, through the wire: `UPDATE ... SET
//! a[i] = v` / `a[lo:hi] = v`, `INSERT INTO t (a[i])`, PL/pgSQL
//! `arr[i] := v`, with PostgreSQL's results (NULL-filled extension, new
//! lower bounds, NULL and empty arrays) and errors with their SQLSTATEs,
//! in simple (psql) and extended (tokio-postgres, parameters) protocol.

mod common;

use common::*;
use tokio_postgres::NoTls;

#[test]
fn update_and_insert_through_subscripts() {
    let srv = Server::start();
    ok(
        &srv,
        "CREATE TABLE t (id int PRIMARY KEY, a int[], m int[]);
         INSERT INTO t VALUES (1, '{1,2,3}', '{{1,2},{3,4}}'), (2, NULL, NULL)",
    );
    ok(&srv, "UPDATE t SET a[2] = 20, a[5] = 5 WHERE id = 1");
    assert_eq!(
        ok(&srv, "SELECT a, array_dims(a) FROM t WHERE id = 1"),
        "{1,20,3,NULL,5}|[1:5]"
    );
    ok(&srv, "UPDATE t SET a[-1:0] = '{8,9}' WHERE id = 1");
    assert_eq!(
        ok(&srv, "SELECT a FROM t WHERE id = 1"),
        "[-1:5]={8,9,1,20,3,NULL,5}"
    );
    ok(
        &srv,
        "UPDATE t SET m[2][1] = 30, m[1:1][1:2] = '{{5,6}}' WHERE id = 1",
    );
    assert_eq!(ok(&srv, "SELECT m FROM t WHERE id = 1"), "{{5,6},{30,4}}");
    // A NULL array is assigned into as an empty one.
    ok(&srv, "UPDATE t SET a[3] = 7, m[2:3] = '{1,2}' WHERE id = 2");
    assert_eq!(
        ok(&srv, "SELECT a, m FROM t WHERE id = 2"),
        "[3:3]={7}|[2:3]={1,2}"
    );
    ok(&srv, "INSERT INTO t (id, a[1], a[3]) VALUES (3, 10, 30)");
    assert_eq!(ok(&srv, "SELECT a FROM t WHERE id = 3"), "{10,NULL,30}");
    ok(&srv, "INSERT INTO t (id, a[2:3]) SELECT 4, ARRAY[4, 5]");
    assert_eq!(ok(&srv, "SELECT a FROM t WHERE id = 4"), "[2:3]={4,5}");
    assert_eq!(
        ok(
            &srv,
            "SELECT m[1:2][2], m[2:][:1], a[:1] FROM t WHERE id = 1"
        ),
        "{{5,6},{30,4}}|{{30}}|{8,9,1}"
    );
    for (sql, msg) in [
        (
            "UPDATE t SET m[3][1] = 1",
            "ERROR:  array subscript out of range",
        ),
        (
            "UPDATE t SET m[1] = 1 WHERE id = 1",
            "ERROR:  wrong number of array subscripts",
        ),
        (
            "UPDATE t SET a[1:3] = '{1}' WHERE id = 1",
            "ERROR:  source array too small",
        ),
        (
            "UPDATE t SET a[NULL] = 1",
            "ERROR:  array subscript in assignment must not be null",
        ),
        (
            "UPDATE t SET a = '{}'; UPDATE t SET a[:2] = '{1,2}'",
            "ERROR:  array slice subscript must provide both boundaries",
        ),
        (
            "UPDATE t SET a = '{1}', a[2] = 2",
            "ERROR:  multiple assignments to same column \"a\"",
        ),
        (
            "UPDATE t SET id[1] = 1",
            "ERROR:  cannot subscript type integer because it does not support subscripting",
        ),
    ] {
        let e = err(&srv, sql);
        assert!(e.starts_with(msg), "{sql}: {e}");
    }
}

#[tokio::test]
async fn subscripts_as_parameters_and_sqlstates() {
    let srv = Server::start();
    let (client, conn) = tokio_postgres::connect(&srv.conn_str("postgres", None), NoTls)
        .await
        .expect("connect");
    let task = tokio::spawn(conn);
    client
        .batch_execute(
            "CREATE TABLE p (id int PRIMARY KEY, a text[], m int[]);
             INSERT INTO p VALUES (1, '{x}', '{{1,2},{3,4}}')",
        )
        .await
        .unwrap();
    let set = client
        .prepare("UPDATE p SET a[$1] = $2 WHERE id = $3 RETURNING a::text")
        .await
        .unwrap();
    let row = client.query_one(&set, &[&3i32, &"z", &1i32]).await.unwrap();
    assert_eq!(row.get::<_, String>(0), "{x,NULL,z}");
    let slice = client
        .prepare("UPDATE p SET a[$1:$2] = $3 WHERE id = 1 RETURNING a::text")
        .await
        .unwrap();
    let v: Vec<&str> = vec!["p", "q"];
    let row = client.query_one(&slice, &[&0i32, &1i32, &v]).await.unwrap();
    assert_eq!(row.get::<_, String>(0), "[0:3]={p,q,NULL,z}");
    let ins = client
        .prepare("INSERT INTO p (id, a[$1]) VALUES ($2, $3) RETURNING a::text")
        .await
        .unwrap();
    let row = client.query_one(&ins, &[&2i32, &2i32, &"b"]).await.unwrap();
    assert_eq!(row.get::<_, String>(0), "[2:2]={b}");
    for (sql, code) in [
        ("UPDATE p SET m[9][1] = 0", "2202E"),
        ("UPDATE p SET a[NULL::int] = 'a'", "22004"),
        ("UPDATE p SET m[1] = now()", "42804"),
        ("UPDATE p SET m[1][2][3][4][5][6][7] = 1", "54000"),
        ("UPDATE p SET m[1] = DEFAULT", "0A000"),
        ("UPDATE p SET m.f = 1", "42804"),
    ] {
        let e = client.batch_execute(sql).await.unwrap_err();
        assert_eq!(e.code().map(|c| c.code()), Some(code), "{sql}: {e}");
    }
    drop(client);
    let _ = task.await;
}

#[test]
fn plpgsql_element_assignment() {
    let srv = Server::start();
    ok(
        &srv,
        "CREATE FUNCTION fill(n int) RETURNS int[] LANGUAGE plpgsql AS $$
         DECLARE r int[]; m int[] := '{{0,0},{0,0}}';
         BEGIN
           FOR i IN 1..n LOOP r[i] := i * i; END LOOP;
           r[n + 2] := -1;
           r[1:2] := ARRAY[7, 8];
           m[2][2] := 5;
           RETURN r || m[2][2];
         END $$",
    );
    assert_eq!(ok(&srv, "SELECT fill(3)"), "{7,8,9,NULL,-1,5}");
    let e = err(
        &srv,
        "DO $$ DECLARE m int[] := '{{1}}'; BEGIN m[2][1] := 1; END $$",
    );
    assert!(e.starts_with("ERROR:  array subscript out of range"), "{e}");
}
