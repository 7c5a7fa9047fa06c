// pgx v5 against a PostgreSQL-compatible server: connect, pgxpool, every
// query exec mode, types in binary format, nested transactions (Begin on a
// Tx is a SAVEPOINT), CopyFrom (binary COPY) and text COPY through pgconn,
// arrays with = ANY($1), batches, server-side cursors (DECLARE/FETCH), and
// the metadata pgx gets from Describe (statement descriptions, field
// descriptions, LoadType).
//
// Connection: libpq's PGHOST/PGPORT/PGUSER/PGDATABASE (defaults 127.0.0.1,
// 5432, postgres, postgres). Runs every check (or those named as
// arguments), prints `ok NAME` / `FAIL NAME: why` and exits 1 naming the
// failed ones. Run by crates/server/tests/drivers.rs; every check passes on
// PostgreSQL 15.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"os"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
)

var ctx = context.Background()

type checkFailed struct{ msg string }

func (e checkFailed) Error() string { return e.msg }

// fail aborts the running check.
func fail(format string, args ...any) { panic(checkFailed{fmt.Sprintf(format, args...)}) }

func expect(what string, got, want any) {
	if !reflect.DeepEqual(got, want) {
		fail("%s: got %#v, want %#v", what, got, want)
	}
	fmt.Printf("    %s: %s\n", what, strings.ReplaceAll(fmt.Sprint(got), "\n", `\n`))
}

func expectTrue(what string, cond bool, detail any) {
	if !cond {
		fail("%s: false (%v)", what, detail)
	}
	fmt.Printf("    %s\n", what)
}

// must fails the check on a non-nil error, naming the step.
func must(what string, err error) {
	if err != nil {
		var pg *pgconn.PgError
		if errors.As(err, &pg) {
			fail("%s: %s (SQLSTATE %s)", what, pg.Message, pg.Code)
		}
		fail("%s: %v", what, err)
	}
}

// expectCode: err must be a PgError with this SQLSTATE.
func expectCode(what string, err error, code string) *pgconn.PgError {
	var pg *pgconn.PgError
	if err == nil {
		fail("%s: succeeded, want SQLSTATE %s", what, code)
	}
	if !errors.As(err, &pg) {
		fail("%s: got %v, want SQLSTATE %s", what, err, code)
	}
	if pg.Code != code {
		fail("%s: got SQLSTATE %s (%s), want %s", what, pg.Code, pg.Message, code)
	}
	fmt.Printf("    %s: SQLSTATE %s\n", what, pg.Code)
	return pg
}

func getenv(k, dflt string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return dflt
}

var user = getenv("PGUSER", "postgres")

// connString: libpq's variables with the defaults every program in
// tests/clients uses.
func connString() string {
	return fmt.Sprintf("host=%s port=%s user=%s dbname=%s", getenv("PGHOST", "127.0.0.1"),
		getenv("PGPORT", "5432"), user, getenv("PGDATABASE", "postgres"))
}

func connect() *pgx.Conn {
	c, err := pgx.Connect(ctx, connString())
	must("connect", err)
	return c
}

func exec(c *pgx.Conn, sql string, args ...any) pgconn.CommandTag {
	tag, err := c.Exec(ctx, sql, args...)
	must(sql, err)
	return tag
}

func setupTable(c *pgx.Conn) {
	exec(c, "DROP TABLE IF EXISTS gpx_all")
	exec(c, `CREATE TABLE gpx_all (
		id serial PRIMARY KEY,
		i integer, b bigint, t text UNIQUE, n numeric(12,4), flag boolean,
		ts timestamp, tstz timestamptz, d date, bin bytea, u uuid,
		ints integer[], texts text[])`)
}

func numeric(unscaled int64, exp int32) pgtype.Numeric {
	return pgtype.Numeric{Int: big.NewInt(unscaled), Exp: exp, Valid: true}
}

var (
	rowTS   = time.Date(2024, 2, 29, 13, 45, 6, 123456000, time.UTC)
	rowDate = time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)
	rowUUID = [16]byte{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}
	rowInts = []pgtype.Int4{{Int32: 1, Valid: true}, {}, {Int32: 3, Valid: true}}
	rowText = "héllo 'world' \\ \t"
	rowBin  = []byte{0, 1, 2, 39, 92, 255}
)

func checkConnect() {
	c := connect()
	defer c.Close(ctx)
	pg := c.PgConn()
	expect("server_encoding", pg.ParameterStatus("server_encoding"), "UTF8")
	expect("integer_datetimes", pg.ParameterStatus("integer_datetimes"), "on")
	expectTrue("backend pid", pg.PID() > 0, pg.PID())
	var v int32
	var cur string
	must("SELECT $1::int + 1", c.QueryRow(ctx, "SELECT $1::int + 1, current_user", 41).Scan(&v, &cur))
	expect("SELECT $1::int + 1", v, int32(42))
	expect("current_user", cur, user)
	must("Ping", c.Ping(ctx))
}

func crud(mode pgx.QueryExecMode) {
	c := connect()
	defer c.Close(ctx)
	setupTable(c)
	var id int32
	must("INSERT ... RETURNING", c.QueryRow(ctx, `INSERT INTO gpx_all (i, b, t, n, flag, ts, tstz, d, bin, u, ints, texts)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`, mode,
		int32(42), int64(9007199254740993), rowText, numeric(123456789, -4), true, rowTS, rowTS, rowDate,
		rowBin, pgtype.UUID{Bytes: rowUUID, Valid: true}, rowInts, []string{"a", "b c", `q"uote`, ""}).Scan(&id))
	expect("INSERT ... RETURNING id", id, int32(1))
	var (
		i     int32
		b     int64
		t     string
		n     pgtype.Numeric
		flag  bool
		ts    time.Time
		tstz  time.Time
		d     time.Time
		bin   []byte
		u     pgtype.UUID
		ints  []pgtype.Int4
		texts []string
		ntext string
	)
	must("SELECT all types", c.QueryRow(ctx, `SELECT i, b, t, n, flag, ts, tstz, d, bin, u, ints, texts, n::text
		FROM gpx_all WHERE id = $1`, mode, id).Scan(&i, &b, &t, &n, &flag, &ts, &tstz, &d, &bin, &u, &ints, &texts, &ntext))
	expect("int", i, int32(42))
	expect("bigint", b, int64(9007199254740993))
	expect("text", t, rowText)
	nf, _ := n.Float64Value()
	expect("numeric as float", nf.Float64, 12345.6789)
	expect("numeric::text", ntext, "12345.6789")
	expect("bool", flag, true)
	expect("timestamp", ts, rowTS)
	expectTrue("timestamptz", tstz.Equal(rowTS), tstz)
	expect("date", d, rowDate)
	expect("bytea", bin, rowBin)
	expect("uuid", u, pgtype.UUID{Bytes: rowUUID, Valid: true})
	expect("int[] with NULL", ints, rowInts)
	expect("text[]", texts, []string{"a", "b c", `q"uote`, ""})
	var nid int32
	must("INSERT NULLs", c.QueryRow(ctx, `INSERT INTO gpx_all (i, b, t, n, flag, ts, tstz, d, bin, u, ints, texts)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`, mode,
		nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil).Scan(&nid))
	var pi *int32
	var pt *string
	var pn pgtype.Numeric
	var pts pgtype.Timestamptz
	var parr []int32
	must("SELECT NULLs", c.QueryRow(ctx, "SELECT i, t, n, tstz, ints FROM gpx_all WHERE id = $1", mode, nid).Scan(&pi, &pt, &pn, &pts, &parr))
	expect("NULLs", []bool{pi == nil, pt == nil, !pn.Valid, !pts.Valid, parr == nil}, []bool{true, true, true, true, true})
	tag, err := c.Exec(ctx, "UPDATE gpx_all SET n = n + $1, flag = NOT flag, ints = array_append(ints, $2), d = $3 WHERE id = $4",
		mode, numeric(1, -4), int32(7), time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), id)
	must("UPDATE", err)
	expect("UPDATE RowsAffected", tag.RowsAffected(), int64(1))
	must("SELECT after UPDATE", c.QueryRow(ctx, "SELECT n::text, flag, ints, d FROM gpx_all WHERE id = $1", mode, id).Scan(&ntext, &flag, &ints, &d))
	expect("after UPDATE", []any{ntext, flag, len(ints), d}, []any{"12345.6790", false, 4, time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)})
	tag, err = c.Exec(ctx, "DELETE FROM gpx_all WHERE id = $1", mode, nid)
	must("DELETE", err)
	expect("DELETE RowsAffected", tag.RowsAffected(), int64(1))
}

func checkCrudCacheStatement() { crud(pgx.QueryExecModeCacheStatement) }
func checkCrudCacheDescribe()  { crud(pgx.QueryExecModeCacheDescribe) }
func checkCrudDescribeExec()   { crud(pgx.QueryExecModeDescribeExec) }
func checkCrudExec()           { crud(pgx.QueryExecModeExec) }
func checkCrudSimpleProtocol() { crud(pgx.QueryExecModeSimpleProtocol) }

func checkArrays() {
	c := connect()
	defer c.Close(ctx)
	setupTable(c)
	exec(c, "INSERT INTO gpx_all (i, b, t) SELECT g, g * 1000000000000, 'r' || g FROM generate_series(1, 10) g")
	rows, err := c.Query(ctx, "SELECT i FROM gpx_all WHERE i = ANY($1) ORDER BY i", []int32{2, 5, 99})
	must("i = ANY($1 int4[])", err)
	got, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	must("collect", err)
	expect("i = ANY([]int32)", got, []int32{2, 5})
	rows, err = c.Query(ctx, "SELECT t FROM gpx_all WHERE t = ANY($1) ORDER BY t", []string{"r3", "r10", "zz"})
	must("t = ANY($1 text[])", err)
	gots, err := pgx.CollectRows(rows, pgx.RowTo[string])
	must("collect", err)
	expect("t = ANY([]string)", gots, []string{"r10", "r3"})
	var cnt int64
	must("b = ANY($1 int8[])", c.QueryRow(ctx, "SELECT count(*) FROM gpx_all WHERE b = ANY($1)", []int64{3000000000000, 4000000000000}).Scan(&cnt))
	expect("b = ANY([]int64)", cnt, int64(2))
	must("<> ALL", c.QueryRow(ctx, "SELECT count(*) FROM gpx_all WHERE i <> ALL($1)", []int32{1, 2}).Scan(&cnt))
	expect("i <> ALL($1)", cnt, int64(8))
	var arr [][]int32
	must("2-D array", c.QueryRow(ctx, "SELECT $1::int[][]", [][]int32{{1, 2}, {3, 4}}).Scan(&arr))
	expect("2-D array round trip", arr, [][]int32{{1, 2}, {3, 4}})
	var empty []string
	must("empty array", c.QueryRow(ctx, "SELECT $1::text[]", []string{}).Scan(&empty))
	expect("empty array", empty, []string{})
}

func checkPool() {
	pool, err := pgxpool.New(ctx, connString())
	must("pgxpool.New", err)
	defer pool.Close()
	var wg sync.WaitGroup
	results := make([]int32, 20)
	errs := make([]error, 20)
	for k := 0; k < 20; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			errs[k] = pool.QueryRow(ctx, "SELECT $1::int * 2", int32(k)).Scan(&results[k])
		}(k)
	}
	wg.Wait()
	for k, e := range errs {
		must(fmt.Sprintf("pooled query %d", k), e)
	}
	want := make([]int32, 20)
	for k := range want {
		want[k] = int32(2 * k)
	}
	expect("pool concurrent queries", results, want)
	conn, err := pool.Acquire(ctx)
	must("Acquire", err)
	var s string
	must("acquired query", conn.QueryRow(ctx, "SELECT 'pooled'").Scan(&s))
	conn.Release()
	expect("acquired conn", s, "pooled")
	expectTrue("pool stat total conns", pool.Stat().TotalConns() >= 1, pool.Stat().TotalConns())
	must("BeginFunc on pool", pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, "SELECT 1")
		return err
	}))
}

func checkTransactions() {
	c := connect()
	defer c.Close(ctx)
	other := connect()
	defer other.Close(ctx)
	setupTable(c)
	count := func(conn *pgx.Conn) int64 {
		var n int64
		must("count", conn.QueryRow(ctx, "SELECT count(*) FROM gpx_all").Scan(&n))
		return n
	}
	tx, err := c.Begin(ctx)
	must("Begin", err)
	_, err = tx.Exec(ctx, "INSERT INTO gpx_all (i, t) VALUES (1, 'committed')")
	must("insert", err)
	expect("uncommitted invisible", count(other), int64(0))
	must("Commit", tx.Commit(ctx))
	expect("committed visible", count(other), int64(1))
	tx, err = c.Begin(ctx)
	must("Begin", err)
	_, err = tx.Exec(ctx, "INSERT INTO gpx_all (i, t) VALUES (2, 'rolled back')")
	must("insert", err)
	must("Rollback", tx.Rollback(ctx))
	expect("after Rollback", count(c), int64(1))
	tx, err = c.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.Serializable, AccessMode: pgx.ReadOnly})
	must("BeginTx serializable read only", err)
	var iso string
	must("SHOW", tx.QueryRow(ctx, "SHOW transaction_isolation").Scan(&iso))
	expect("isolation", iso, "serializable")
	_, err = tx.Exec(ctx, "INSERT INTO gpx_all (i) VALUES (3)")
	expectCode("INSERT in read-only tx", err, "25006")
	must("Rollback", tx.Rollback(ctx))
}

func checkNestedTransactions() {
	c := connect()
	defer c.Close(ctx)
	setupTable(c)
	tx, err := c.Begin(ctx)
	must("Begin", err)
	_, err = tx.Exec(ctx, "INSERT INTO gpx_all (i, t) VALUES (1, 'outer')")
	must("insert", err)
	sp, err := tx.Begin(ctx) // SAVEPOINT
	must("nested Begin (SAVEPOINT)", err)
	_, err = sp.Exec(ctx, "INSERT INTO gpx_all (i, t) VALUES (2, 'inner kept')")
	must("insert", err)
	must("nested Commit (RELEASE)", sp.Commit(ctx))
	sp, err = tx.Begin(ctx)
	must("nested Begin", err)
	_, err = sp.Exec(ctx, "INSERT INTO gpx_all (i, t) VALUES (3, 'outer')")
	expectCode("duplicate in nested tx", err, "23505")
	must("nested Rollback (ROLLBACK TO)", sp.Rollback(ctx))
	sp, err = tx.Begin(ctx)
	must("nested Begin", err)
	sp2, err := sp.Begin(ctx)
	must("doubly nested Begin", err)
	_, err = sp2.Exec(ctx, "INSERT INTO gpx_all (i, t) VALUES (4, 'deep')")
	must("insert", err)
	must("doubly nested Commit", sp2.Commit(ctx))
	must("nested Rollback", sp.Rollback(ctx))
	err = pgx.BeginFunc(ctx, tx, func(inner pgx.Tx) error {
		_, err := inner.Exec(ctx, "INSERT INTO gpx_all (i, t) VALUES (5, 'func')")
		return err
	})
	must("BeginFunc on a Tx", err)
	must("Commit", tx.Commit(ctx))
	rows, err := c.Query(ctx, "SELECT i FROM gpx_all ORDER BY i")
	must("select", err)
	got, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	must("collect", err)
	expect("rows after nested transactions", got, []int32{1, 2, 5})
}

func checkErrors() {
	c := connect()
	defer c.Close(ctx)
	setupTable(c)
	exec(c, "INSERT INTO gpx_all (i, t) VALUES ($1, $2)", int32(1), "dup")
	_, err := c.Exec(ctx, "INSERT INTO gpx_all (i, t) VALUES ($1, $2)", int32(2), "dup")
	pg := expectCode("unique violation", err, "23505")
	expect("ConstraintName", pg.ConstraintName, "gpx_all_t_key")
	expect("TableName", pg.TableName, "gpx_all")
	expect("SchemaName", pg.SchemaName, "public")
	expect("Severity", pg.Severity, "ERROR")
	expect("Detail", pg.Detail, "Key (t)=(dup) already exists.")
	_, err = c.Exec(ctx, "SELECT 1 / $1::int", int32(0))
	expectCode("division by zero", err, "22012")
	_, err = c.Exec(ctx, "SELECT * FROM gpx_missing")
	expectCode("undefined table", err, "42P01")
	_, err = c.Exec(ctx, "SELEC 1")
	expectCode("syntax error", err, "42601")
	_, err = c.Exec(ctx, "INSERT INTO gpx_all (id) VALUES ($1)", nil)
	expectCode("not null", err, "23502")
	_, err = c.Exec(ctx, "SELECT $1::smallint", int64(100000))
	expectTrue("smallint overflow rejected", err != nil, err)
	tx, err := c.Begin(ctx)
	must("Begin", err)
	_, err = tx.Exec(ctx, "SELECT 1/0")
	expectCode("error in tx", err, "22012")
	_, err = tx.Exec(ctx, "SELECT 1")
	expectCode("statement in aborted tx", err, "25P02")
	must("Rollback", tx.Rollback(ctx))
	var v int32
	must("usable after errors", c.QueryRow(ctx, "SELECT 7").Scan(&v))
	expect("usable after errors", v, int32(7))
}

func checkCursor() {
	c := connect()
	defer c.Close(ctx)
	setupTable(c)
	exec(c, "INSERT INTO gpx_all (i, t) SELECT g, 'r' || g FROM generate_series(1, 100) g")
	tx, err := c.Begin(ctx)
	must("Begin", err)
	_, err = tx.Exec(ctx, "DECLARE gpx_cur CURSOR FOR SELECT i, t FROM gpx_all WHERE i > $1 ORDER BY i", int32(10))
	must("DECLARE with a parameter", err)
	var all []int32
	for {
		rows, err := tx.Query(ctx, "FETCH 25 FROM gpx_cur")
		must("FETCH 25", err)
		batch, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (int32, error) {
			var i int32
			var t string
			err := r.Scan(&i, &t)
			return i, err
		})
		must("collect", err)
		if len(batch) == 0 {
			break
		}
		all = append(all, batch...)
	}
	expect("fetched through cursor", []any{len(all), all[0], all[len(all)-1]}, []any{90, int32(11), int32(100)})
	_, err = tx.Exec(ctx, "CLOSE gpx_cur")
	must("CLOSE", err)
	must("Commit", tx.Commit(ctx))
}

func checkCopyFrom() {
	c := connect()
	defer c.Close(ctx)
	setupTable(c)
	src := [][]any{
		{int32(1), int64(10), "one", numeric(15, -1), true, rowTS, rowTS, rowDate, rowBin, pgtype.UUID{Bytes: rowUUID, Valid: true}, []int32{1, 2}, []string{"a"}},
		{int32(2), nil, "two", nil, nil, nil, nil, nil, nil, nil, nil, nil},
	}
	n, err := c.CopyFrom(ctx, pgx.Identifier{"gpx_all"},
		[]string{"i", "b", "t", "n", "flag", "ts", "tstz", "d", "bin", "u", "ints", "texts"}, pgx.CopyFromRows(src))
	must("CopyFrom", err)
	expect("CopyFrom rows", n, int64(2))
	var t, ntext string
	var bin []byte
	var ints []int32
	must("select", c.QueryRow(ctx, "SELECT t, n::text, bin, ints FROM gpx_all WHERE i = 1").Scan(&t, &ntext, &bin, &ints))
	expect("copied row", []any{t, ntext, bin, ints}, []any{"one", "1.5000", rowBin, []int32{1, 2}})
}

func checkCopyText() {
	c := connect()
	defer c.Close(ctx)
	setupTable(c)
	tag, err := c.PgConn().CopyFrom(ctx, strings.NewReader("1\tone\t1.5\n2\ttwo\\ttab\t\\N\n"), "COPY gpx_all (i, t, n) FROM STDIN")
	must("COPY FROM STDIN (text)", err)
	expect("COPY FROM rows", tag.RowsAffected(), int64(2))
	var out bytes.Buffer
	tag, err = c.PgConn().CopyTo(ctx, &out, "COPY (SELECT i, t, n FROM gpx_all ORDER BY i) TO STDOUT WITH (FORMAT csv)")
	must("COPY TO STDOUT (csv)", err)
	expect("COPY TO rows", tag.RowsAffected(), int64(2))
	expect("COPY TO output", out.String(), "1,one,1.5000\n2,two\ttab,\n")
	_, err = c.PgConn().CopyFrom(ctx, strings.NewReader("x\n"), "COPY gpx_all (i) FROM STDIN")
	expectCode("bad COPY data", err, "22P02")
}

func checkBatch() {
	c := connect()
	defer c.Close(ctx)
	setupTable(c)
	b := &pgx.Batch{}
	b.Queue("INSERT INTO gpx_all (i, t) VALUES ($1, $2)", int32(1), "a")
	b.Queue("INSERT INTO gpx_all (i, t) VALUES ($1, $2)", int32(2), "b")
	b.Queue("SELECT t FROM gpx_all WHERE i = $1", int32(2))
	b.Queue("SELECT count(*) FROM gpx_all")
	br := c.SendBatch(ctx, b)
	tag, err := br.Exec()
	must("batch insert 1", err)
	expect("batch insert 1", tag.String(), "INSERT 0 1")
	_, err = br.Exec()
	must("batch insert 2", err)
	var t string
	must("batch select", br.QueryRow().Scan(&t))
	expect("batch select", t, "b")
	var n int64
	must("batch count", br.QueryRow().Scan(&n))
	expect("batch count", n, int64(2))
	must("batch Close", br.Close())
	// an error mid-batch: the implicit transaction rolls back
	b = &pgx.Batch{}
	b.Queue("INSERT INTO gpx_all (i, t) VALUES ($1, $2)", int32(3), "c")
	b.Queue("INSERT INTO gpx_all (i, t) VALUES ($1, $2)", int32(4), "a")
	b.Queue("INSERT INTO gpx_all (i, t) VALUES ($1, $2)", int32(5), "e")
	br = c.SendBatch(ctx, b)
	_, err = br.Exec()
	must("batch insert 3", err)
	_, err = br.Exec()
	expectCode("batch duplicate", err, "23505")
	_, err = br.Exec()
	expectTrue("statement after the failed one errs", err != nil, err)
	_ = br.Close()
	must("count", c.QueryRow(ctx, "SELECT count(*) FROM gpx_all").Scan(&n))
	expect("rows after failed batch (implicit transaction rolled back)", n, int64(2))
	// a batch with QueuedQuery callbacks
	b = &pgx.Batch{}
	var got []string
	b.Queue("SELECT t FROM gpx_all ORDER BY i").Query(func(rows pgx.Rows) error {
		var err error
		got, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	must("SendBatch callbacks", c.SendBatch(ctx, b).Close())
	expect("callback rows", got, []string{"a", "b"})
}

func checkPrepared() {
	c := connect()
	defer c.Close(ctx)
	setupTable(c)
	sd, err := c.Prepare(ctx, "gpx_get", "SELECT i, t, n, ints FROM gpx_all WHERE i >= $1 AND t <> $2 ORDER BY i")
	must("Prepare", err)
	expect("ParamOIDs", sd.ParamOIDs, []uint32{23, 25})
	names := []string{}
	oids := []uint32{}
	for _, f := range sd.Fields {
		names = append(names, f.Name)
		oids = append(oids, f.DataTypeOID)
	}
	expect("Fields names", names, []string{"i", "t", "n", "ints"})
	expect("Fields OIDs", oids, []uint32{23, 25, 1700, 1007})
	exec(c, "INSERT INTO gpx_all (i, t) SELECT g, 'r' || g FROM generate_series(1, 5) g")
	rows, err := c.Query(ctx, "gpx_get", int32(3), "r4")
	must("query prepared by name", err)
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (int32, error) {
		var i int32
		var t string
		var n pgtype.Numeric
		var ints []int32
		err := r.Scan(&i, &t, &n, &ints)
		return i, err
	})
	must("collect", err)
	expect("prepared rows", got, []int32{3, 5})
	must("Deallocate", c.Deallocate(ctx, "gpx_get"))
	_, err = c.Exec(ctx, "SELECT $1::int", int32(1))
	must("exec after Deallocate", err)
}

func checkMetadata() {
	c := connect()
	defer c.Close(ctx)
	setupTable(c)
	rows, err := c.Query(ctx, "SELECT i, b, t, n, flag, ts, tstz, d, bin, u, ints, texts, 1 AS one FROM gpx_all")
	must("select", err)
	// the connection reuses the slice's buffer for the next query: copy it
	fds := append([]pgconn.FieldDescription(nil), rows.FieldDescriptions()...)
	rows.Close()
	var got [][]any
	for _, f := range fds {
		got = append(got, []any{f.Name, f.DataTypeOID, f.TableAttributeNumber})
	}
	expect("FieldDescriptions", got, [][]any{
		{"i", uint32(23), uint16(2)}, {"b", uint32(20), uint16(3)}, {"t", uint32(25), uint16(4)},
		{"n", uint32(1700), uint16(5)}, {"flag", uint32(16), uint16(6)}, {"ts", uint32(1114), uint16(7)},
		{"tstz", uint32(1184), uint16(8)}, {"d", uint32(1082), uint16(9)}, {"bin", uint32(17), uint16(10)},
		{"u", uint32(2950), uint16(11)}, {"ints", uint32(1007), uint16(12)}, {"texts", uint32(1009), uint16(13)},
		{"one", uint32(23), uint16(0)}})
	var relOID uint32
	must("regclass", c.QueryRow(ctx, "SELECT 'gpx_all'::regclass::oid").Scan(&relOID))
	expect("TableOID", fds[0].TableOID, relOID)
	expect("numeric(12,4) TypeModifier", fds[3].TypeModifier, int32((12<<16|4)+4))
	expect("computed column TableOID", fds[12].TableOID, uint32(0))
	typ, err := c.LoadType(ctx, "_numeric")
	must("LoadType _numeric", err)
	expect("LoadType _numeric OID", typ.OID, uint32(1231))
	c.TypeMap().RegisterType(typ)
	var nums []pgtype.Numeric
	must("select numeric[]", c.QueryRow(ctx, "SELECT ARRAY[1.5, 2.25]::numeric[]").Scan(&nums))
	expect("numeric[] length", len(nums), 2)
	types, err := c.LoadTypes(ctx, []string{"int4", "_text"})
	must("LoadTypes", err)
	expect("LoadTypes count", len(types), 2)
}

type check struct {
	name string
	fn   func()
}

func run(c check) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			if f, ok := r.(checkFailed); ok {
				msg = f.msg
			} else {
				msg = fmt.Sprintf("panic: %v", r)
			}
		}
	}()
	c.fn()
	return ""
}

func main() {
	checks := []check{
		{"connect", checkConnect},
		{"crud_cache_statement", checkCrudCacheStatement},
		{"crud_cache_describe", checkCrudCacheDescribe},
		{"crud_describe_exec", checkCrudDescribeExec},
		{"crud_exec", checkCrudExec},
		{"crud_simple_protocol", checkCrudSimpleProtocol},
		{"arrays", checkArrays},
		{"pool", checkPool},
		{"transactions", checkTransactions},
		{"nested_transactions", checkNestedTransactions},
		{"errors", checkErrors},
		{"cursor", checkCursor},
		{"copy_from", checkCopyFrom},
		{"copy_text", checkCopyText},
		{"batch", checkBatch},
		{"prepared", checkPrepared},
		{"metadata", checkMetadata},
	}
	want := map[string]bool{}
	for _, a := range os.Args[1:] {
		want[a] = true
	}
	var failed []string
	for _, c := range checks {
		if len(want) > 0 && !want[c.name] {
			continue
		}
		fmt.Printf("-- pgx: %s\n", c.name)
		t0 := time.Now()
		if msg := run(c); msg != "" {
			fmt.Printf("FAIL %s: %s\n", c.name, msg)
			failed = append(failed, c.name)
		} else {
			fmt.Printf("ok   %s (%.2fs)\n", c.name, time.Since(t0).Seconds())
		}
	}
	if len(failed) > 0 {
		fmt.Printf("pgx: %d check(s) failed: %s\n", len(failed), strings.Join(failed, ", "))
		os.Exit(1)
	}
	fmt.Println("pgx: all checks passed")
}
