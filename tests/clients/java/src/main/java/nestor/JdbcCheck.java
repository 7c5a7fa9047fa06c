package nestor;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.ByteArrayOutputStream;
import java.io.StringReader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/**
 * pgjdbc (and HikariCP) against a PostgreSQL-compatible server: types through
 * setXxx/getXxx and setArray, server-prepared statements, batches (plain and
 * reWriteBatchedInserts), transactions, savepoints, autosave=always with an
 * error mid-transaction, SQLSTATEs and server error fields, setFetchSize in
 * a transaction (portal suspension), CopyManager, DatabaseMetaData
 * (getTables/getColumns/getPrimaryKeys/getImportedKeys/getIndexInfo) and
 * ResultSetMetaData.
 *
 * <p>Connection: libpq's PGHOST/PGPORT/PGUSER/PGDATABASE. Runs every check (or
 * those named as arguments), prints "ok NAME" / "FAIL NAME: why" and exits 1
 * naming the failed ones. Run by crates/server/tests/drivers.rs; every check
 * passes on PostgreSQL 15.
 */
public final class JdbcCheck {
  static final class CheckFailed extends RuntimeException {
    CheckFailed(String m) {
      super(m);
    }
  }

  interface Check {
    void run() throws Exception;
  }

  static String env(String k, String dflt) {
    String v = System.getenv(k);
    return v == null || v.isEmpty() ? dflt : v;
  }

  static final String USER = env("PGUSER", "postgres");
  static final String URL =
      "jdbc:postgresql://"
          + env("PGHOST", "127.0.0.1")
          + ":"
          + env("PGPORT", "5432")
          + "/"
          + env("PGDATABASE", "postgres");

  static Connection connect(String... props) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", USER);
    p.setProperty("connectTimeout", "10");
    for (int k = 0; k < props.length; k += 2) {
      p.setProperty(props[k], props[k + 1]);
    }
    return DriverManager.getConnection(URL, p);
  }

  static String show(Object o) {
    if (o instanceof Object[]) {
      return Arrays.deepToString((Object[]) o);
    }
    if (o instanceof byte[]) {
      return Arrays.toString((byte[]) o);
    }
    return String.valueOf(o).replace("\n", "\\n") + (o == null ? "" : " (" + o.getClass().getSimpleName() + ")");
  }

  static void expect(String what, Object got, Object want) {
    boolean eq =
        (got instanceof Object[] && want instanceof Object[])
            ? Arrays.deepEquals((Object[]) got, (Object[]) want)
            : (got instanceof byte[] && want instanceof byte[])
                ? Arrays.equals((byte[]) got, (byte[]) want)
                : Objects.equals(got, want);
    if (!eq) {
      throw new CheckFailed(what + ": got " + show(got) + ", want " + show(want));
    }
    System.out.println("    " + what + ": " + show(got));
  }

  static void expectTrue(String what, boolean cond, Object detail) {
    if (!cond) {
      throw new CheckFailed(what + ": false (" + detail + ")");
    }
    System.out.println("    " + what);
  }

  interface Sql {
    void run() throws SQLException;
  }

  static SQLException expectState(String what, String state, Sql body) {
    try {
      body.run();
    } catch (SQLException e) {
      if (!state.equals(e.getSQLState())) {
        throw new CheckFailed(
            what + ": got SQLSTATE " + e.getSQLState() + " (" + e.getMessage() + "), want " + state);
      }
      System.out.println("    " + what + ": SQLSTATE " + e.getSQLState());
      return e;
    }
    throw new CheckFailed(what + ": succeeded, want SQLSTATE " + state);
  }

  static void setupTables(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS jdb_child");
      s.execute("DROP TABLE IF EXISTS jdb_all");
      s.execute(
          "CREATE TABLE jdb_all (id serial PRIMARY KEY, i integer, b bigint, t text UNIQUE,"
              + " n numeric(12,4), flag boolean, ts timestamp, tstz timestamptz, d date, bin bytea,"
              + " u uuid, ints integer[], texts text[])");
      s.execute(
          "CREATE TABLE jdb_child (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
              + " parent_id integer NOT NULL REFERENCES jdb_all (id) ON DELETE CASCADE,"
              + " note varchar(40) NOT NULL DEFAULT 'n')");
    }
  }

  static final LocalDateTime TS = LocalDateTime.of(2024, 2, 29, 13, 45, 6, 123456000);
  static final OffsetDateTime TSTZ = OffsetDateTime.of(TS, ZoneOffset.UTC);
  static final LocalDate DATE = LocalDate.of(2024, 2, 29);
  static final byte[] BIN = {0, 1, 2, 39, 92, (byte) 255};
  static final UUID ID = UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
  static final String TEXT = "héllo 'world' \\ \t";

  static void checkConnect() throws Exception {
    try (Connection c = connect()) {
      DatabaseMetaData md = c.getMetaData();
      expect("getDatabaseProductName", md.getDatabaseProductName(), "PostgreSQL");
      expectTrue(
          "getDatabaseMajorVersion >= 15", md.getDatabaseMajorVersion() >= 15, md.getDatabaseProductVersion());
      expect("getUserName", md.getUserName(), USER);
      expect("isValid", c.isValid(5), true);
      try (PreparedStatement ps = c.prepareStatement("SELECT ?::int + 1, current_database()")) {
        ps.setInt(1, 41);
        try (ResultSet rs = ps.executeQuery()) {
          expect("next", rs.next(), true);
          expect("SELECT ?::int + 1", rs.getInt(1), 42);
          expect("current_database", rs.getString(2), env("PGDATABASE", "postgres"));
        }
      }
    }
  }

  static void insertRow(Connection c) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO jdb_all (i, b, t, n, flag, ts, tstz, d, bin, u, ints, texts)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            new String[] {"id"})) {
      ps.setInt(1, 42);
      ps.setLong(2, 9007199254740993L);
      ps.setString(3, TEXT);
      ps.setBigDecimal(4, new BigDecimal("12345.6789"));
      ps.setBoolean(5, true);
      ps.setTimestamp(6, Timestamp.valueOf(TS));
      ps.setObject(7, TSTZ);
      ps.setObject(8, DATE);
      ps.setBytes(9, BIN);
      ps.setObject(10, ID);
      ps.setArray(11, c.createArrayOf("int4", new Integer[] {1, null, 3}));
      ps.setArray(12, c.createArrayOf("text", new String[] {"a", "b c", "q\"uote", ""}));
      expect("executeUpdate", ps.executeUpdate(), 1);
      try (ResultSet keys = ps.getGeneratedKeys()) {
        expect("generated key", keys.next() ? keys.getInt(1) : -1, 1);
      }
    }
  }

  static void checkCrudTypes() throws Exception {
    try (Connection c = connect()) {
      setupTables(c);
      insertRow(c);
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT i, b, t, n, flag, ts, tstz, d, bin, u, ints, texts FROM jdb_all WHERE id = ?")) {
        ps.setInt(1, 1);
        try (ResultSet rs = ps.executeQuery()) {
          expect("row", rs.next(), true);
          expect("getInt", rs.getInt("i"), 42);
          expect("getLong", rs.getLong("b"), 9007199254740993L);
          expect("getString", rs.getString("t"), TEXT);
          expect("getBigDecimal", rs.getBigDecimal("n"), new BigDecimal("12345.6789"));
          expect("getBoolean", rs.getBoolean("flag"), true);
          expect("getTimestamp", rs.getTimestamp("ts").toLocalDateTime(), TS);
          expect("getObject(OffsetDateTime)", rs.getObject("tstz", OffsetDateTime.class).toInstant(), TSTZ.toInstant());
          expect("getObject(LocalDate)", rs.getObject("d", LocalDate.class), DATE);
          expect("getBytes", rs.getBytes("bin"), BIN);
          expect("getObject(uuid)", rs.getObject("u"), ID);
          Array ints = rs.getArray("ints");
          expect("getArray int[] base type", ints.getBaseType(), Types.INTEGER);
          expect("getArray int[]", ints.getArray(), new Integer[] {1, null, 3});
          expect("getArray text[]", rs.getArray("texts").getArray(), new String[] {"a", "b c", "q\"uote", ""});
          expect("only one row", rs.next(), false);
        }
      }
      try (PreparedStatement ps =
          c.prepareStatement("INSERT INTO jdb_all (i, b, t, n, flag, ts, d, bin, u, ints) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
        ps.setNull(1, Types.INTEGER);
        ps.setNull(2, Types.BIGINT);
        ps.setNull(3, Types.VARCHAR);
        ps.setNull(4, Types.NUMERIC);
        ps.setNull(5, Types.BOOLEAN);
        ps.setNull(6, Types.TIMESTAMP);
        ps.setNull(7, Types.DATE);
        ps.setNull(8, Types.BINARY);
        ps.setNull(9, Types.OTHER);
        ps.setNull(10, Types.ARRAY);
        expect("insert NULLs", ps.executeUpdate(), 1);
      }
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT i, t, n, u, ints FROM jdb_all WHERE id = 2")) {
        rs.next();
        rs.getInt(1);
        expect("wasNull int", rs.wasNull(), true);
        expect("NULL text/numeric/uuid/array", Arrays.asList(rs.getString(2), rs.getBigDecimal(3), rs.getObject(4), rs.getArray(5)),
            Arrays.asList(null, null, null, null));
      }
      try (PreparedStatement ps =
          c.prepareStatement("UPDATE jdb_all SET n = n + ?, flag = NOT flag, ints = array_append(ints, ?) WHERE id = ?")) {
        ps.setBigDecimal(1, new BigDecimal("0.0001"));
        ps.setInt(2, 7);
        ps.setInt(3, 1);
        expect("UPDATE count", ps.executeUpdate(), 1);
      }
      try (PreparedStatement ps = c.prepareStatement("SELECT id FROM jdb_all WHERE id = ANY(?) ORDER BY id")) {
        ps.setArray(1, c.createArrayOf("int4", new Integer[] {1, 2, 999}));
        try (ResultSet rs = ps.executeQuery()) {
          List<Integer> ids = new ArrayList<>();
          while (rs.next()) {
            ids.add(rs.getInt(1));
          }
          expect("id = ANY(setArray)", ids, List.of(1, 2));
        }
      }
      try (PreparedStatement ps = c.prepareStatement("SELECT n, flag, ints FROM jdb_all WHERE id = ?")) {
        ps.setInt(1, 1);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          expect("after UPDATE numeric", rs.getBigDecimal(1), new BigDecimal("12345.6790"));
          expect("after UPDATE bool", rs.getBoolean(2), false);
          expect("after UPDATE array", rs.getArray(3).getArray(), new Integer[] {1, null, 3, 7});
        }
      }
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM jdb_all WHERE id = ?")) {
        ps.setInt(1, 2);
        expect("DELETE count", ps.executeUpdate(), 1);
      }
    }
  }

  static void checkPreparedStatements() throws Exception {
    // prepareThreshold=1: named server-side statements from the first use;
    // binary transfer for the types pgjdbc does in binary.
    try (Connection c = connect("prepareThreshold", "1", "binaryTransfer", "true")) {
      setupTables(c);
      insertRow(c);
      try (PreparedStatement ps = c.prepareStatement("SELECT t, n, tstz, u FROM jdb_all WHERE i = ? AND b > ?")) {
        for (int run = 0; run < 4; run++) {
          ps.setInt(1, 42);
          ps.setLong(2, run);
          try (ResultSet rs = ps.executeQuery()) {
            expect("run " + run + " has a row", rs.next(), true);
            expect("run " + run + " text", rs.getString(1), TEXT);
            expect("run " + run + " numeric", rs.getBigDecimal(2), new BigDecimal("12345.6789"));
            expect("run " + run + " tstz", rs.getObject(3, OffsetDateTime.class).toInstant(), TSTZ.toInstant());
            expect("run " + run + " uuid", rs.getObject(4), ID);
          }
        }
        expectTrue(
            "statement is server-prepared",
            ps.unwrap(org.postgresql.PGStatement.class).isUseServerPrepare(), "isUseServerPrepare");
      }
      // parameter metadata from Describe
      try (PreparedStatement ps = c.prepareStatement("SELECT * FROM jdb_all WHERE i = ? AND t = ? AND n > ?")) {
        var pmd = ps.getParameterMetaData();
        expect("parameter count", pmd.getParameterCount(), 3);
        expect(
            "parameter type names",
            List.of(pmd.getParameterTypeName(1), pmd.getParameterTypeName(2), pmd.getParameterTypeName(3)),
            List.of("int4", "text", "numeric"));
      }
    }
  }

  static void checkBatch() throws Exception {
    for (String rewrite : new String[] {"false", "true"}) {
      try (Connection c = connect("reWriteBatchedInserts", rewrite)) {
        setupTables(c);
        c.setAutoCommit(false);
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO jdb_all (i, t, n) VALUES (?, ?, ?)")) {
          for (int k = 0; k < 250; k++) {
            ps.setInt(1, k);
            ps.setString(2, "row " + k);
            ps.setBigDecimal(3, BigDecimal.valueOf(k, 2));
            ps.addBatch();
          }
          int[] counts = ps.executeBatch();
          expect("batch size (reWriteBatchedInserts=" + rewrite + ")", counts.length, 250);
          long total = 0;
          for (int n : counts) {
            total += n == Statement.SUCCESS_NO_INFO ? 1 : n;
          }
          expect("batch rows", total, 250L);
        }
        c.commit();
        try (Statement s = c.createStatement()) {
          s.addBatch("UPDATE jdb_all SET i = i + 1000 WHERE i < 10");
          s.addBatch("DELETE FROM jdb_all WHERE i >= 200 AND i < 1000");
          expect("statement batch counts", Arrays.toString(s.executeBatch()), "[10, 50]");
          try (ResultSet rs = s.executeQuery("SELECT count(*), sum(n) FROM jdb_all")) {
            rs.next();
            expect("rows after batches", rs.getLong(1), 200L);
            expect("sum(n)", rs.getBigDecimal(2), new BigDecimal("199.0000"));
          }
        }
        c.commit();
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO jdb_all (i, t) VALUES (?, ?)")) {
          ps.setInt(1, 1);
          ps.setString(2, "dup A");
          ps.addBatch();
          ps.setInt(1, 2);
          ps.setString(2, "row 5");
          ps.addBatch();
          try {
            ps.executeBatch();
            throw new CheckFailed("batch with a duplicate succeeded");
          } catch (java.sql.BatchUpdateException e) {
            expect("BatchUpdateException SQLSTATE", e.getSQLState(), "23505");
          }
        }
        c.rollback();
      }
    }
  }

  static long count(Connection c, String where) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM jdb_all " + where)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static void checkTransactions() throws Exception {
    try (Connection c = connect();
        Connection other = connect()) {
      setupTables(c);
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        s.executeUpdate("INSERT INTO jdb_all (i, t) VALUES (1, 'committed')");
        expect("uncommitted invisible", count(other, ""), 0L);
        c.commit();
        expect("committed visible", count(other, ""), 1L);
        s.executeUpdate("INSERT INTO jdb_all (i, t) VALUES (2, 'rolled back')");
        c.rollback();
        expect("after rollback", count(c, ""), 1L);
        c.commit();
        c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
        c.setReadOnly(true);
        try (ResultSet rs = s.executeQuery("SHOW transaction_isolation")) {
          rs.next();
          expect("isolation", rs.getString(1), "serializable");
        }
        expectState("insert in read-only transaction", "25006",
            () -> s.executeUpdate("INSERT INTO jdb_all (i) VALUES (3)"));
        c.rollback();
      }
    }
  }

  static void checkSavepoints() throws Exception {
    try (Connection c = connect()) {
      setupTables(c);
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        s.executeUpdate("INSERT INTO jdb_all (i, t) VALUES (1, 'a')");
        Savepoint s1 = c.setSavepoint("s1");
        s.executeUpdate("INSERT INTO jdb_all (i, t) VALUES (2, 'b')");
        Savepoint s2 = c.setSavepoint();
        s.executeUpdate("INSERT INTO jdb_all (i, t) VALUES (3, 'c')");
        c.rollback(s2);
        c.releaseSavepoint(s1);
        Savepoint s3 = c.setSavepoint("s3");
        expectState("duplicate after savepoint", "23505",
            () -> s.executeUpdate("INSERT INTO jdb_all (i, t) VALUES (4, 'a')"));
        expectState("statement in aborted transaction", "25P02", () -> s.executeQuery("SELECT 1"));
        c.rollback(s3);
        expect("rows after savepoints", count(c, ""), 2L);
        c.commit();
        expect("committed", count(c, "WHERE i IN (1, 2)"), 2L);
      }
    }
  }

  static void checkAutosave() throws Exception {
    try (Connection c = connect("autosave", "always")) {
      setupTables(c);
      c.setAutoCommit(false);
      try (PreparedStatement ins = c.prepareStatement("INSERT INTO jdb_all (i, t) VALUES (?, ?)")) {
        for (int k = 0; k < 50; k++) {
          ins.setInt(1, k);
          ins.setString(2, "row " + k);
          ins.executeUpdate();
        }
        ins.setInt(1, 999);
        ins.setString(2, "row 7");
        expectState("duplicate mid-transaction", "23505", ins::executeUpdate);
        // autosave rolled back to its savepoint: the transaction goes on
        ins.setInt(1, 50);
        ins.setString(2, "row 50");
        expect("insert after the error", ins.executeUpdate(), 1);
        try (Statement s = c.createStatement()) {
          expectState("division by zero mid-transaction", "22012", () -> s.executeQuery("SELECT 1/0"));
          try (ResultSet rs = s.executeQuery("SELECT count(*) FROM jdb_all")) {
            rs.next();
            expect("rows visible in the transaction", rs.getLong(1), 51L);
          }
        }
      }
      c.commit();
      expect("rows after commit", count(c, ""), 51L);
    }
  }

  static void checkErrors() throws Exception {
    try (Connection c = connect();
        Statement s = c.createStatement()) {
      setupTables(c);
      s.executeUpdate("INSERT INTO jdb_all (i, t) VALUES (1, 'dup')");
      SQLException e = expectState("unique violation", "23505",
          () -> s.executeUpdate("INSERT INTO jdb_all (i, t) VALUES (2, 'dup')"));
      ServerErrorMessage m = ((PSQLException) e).getServerErrorMessage();
      expect("constraint", m.getConstraint(), "jdb_all_t_key");
      expect("table", m.getTable(), "jdb_all");
      expect("schema", m.getSchema(), "public");
      expect("detail", m.getDetail(), "Key (t)=(dup) already exists.");
      expect("severity", m.getSeverity(), "ERROR");
      SQLException fk = expectState("foreign key violation", "23503",
          () -> s.executeUpdate("INSERT INTO jdb_child (parent_id) VALUES (999)"));
      expect("fk constraint", ((PSQLException) fk).getServerErrorMessage().getConstraint(), "jdb_child_parent_id_fkey");
      expectState("division by zero", "22012", () -> s.executeQuery("SELECT 1/0"));
      expectState("undefined table", "42P01", () -> s.executeQuery("SELECT * FROM jdb_missing"));
      expectState("syntax error", "42601", () -> s.executeQuery("SELEC 1"));
      expectState("not null", "23502", () -> s.executeUpdate("INSERT INTO jdb_child (parent_id) VALUES (NULL)"));
      expectState("identity GENERATED ALWAYS", "428C9",
          () -> s.executeUpdate("INSERT INTO jdb_child (id, parent_id) VALUES (5, 1)"));
      try (PreparedStatement ps = c.prepareStatement("SELECT ?::int")) {
        ps.setString(1, "x");
        expectState("bad integer text", "22P02", ps::executeQuery);
      }
      try (ResultSet rs = s.executeQuery("SELECT 7")) {
        rs.next();
        expect("usable after errors", rs.getInt(1), 7);
      }
    }
  }

  static void checkFetchSize() throws Exception {
    try (Connection c = connect()) {
      setupTables(c);
      try (Statement s = c.createStatement()) {
        s.executeUpdate("INSERT INTO jdb_all (i, t) SELECT g, 'r' || g FROM generate_series(1, 1000) g");
      }
      c.setAutoCommit(false); // pgjdbc uses a portal with a row limit only in a transaction
      try (PreparedStatement ps = c.prepareStatement("SELECT i, t FROM jdb_all WHERE i > ? ORDER BY i")) {
        ps.setFetchSize(50);
        ps.setInt(1, 100);
        try (ResultSet rs = ps.executeQuery()) {
          int n = 0;
          long sum = 0;
          int last = 0;
          while (rs.next()) {
            n++;
            sum += rs.getInt(1);
            last = rs.getInt(1);
            if (n == 75) {
              // another statement while the portal is suspended
              try (Statement s2 = c.createStatement();
                  ResultSet r2 = s2.executeQuery("SELECT count(*) FROM jdb_all")) {
                r2.next();
                expect("query while a portal is open", r2.getLong(1), 1000L);
              }
            }
          }
          expect("rows through setFetchSize(50)", n, 900);
          expect("sum", sum, 900L * (101 + 1000) / 2);
          expect("last", last, 1000);
        }
      }
      c.commit();
      try (Statement s = c.createStatement()) {
        s.execute("DECLARE jdb_cur SCROLL CURSOR FOR SELECT i FROM jdb_all ORDER BY i");
        try (ResultSet rs = s.executeQuery("FETCH ABSOLUTE 500 FROM jdb_cur")) {
          rs.next();
          expect("FETCH ABSOLUTE 500", rs.getInt(1), 500);
        }
        s.execute("CLOSE jdb_cur");
      }
      c.commit();
    }
  }

  static void checkCopy() throws Exception {
    try (Connection c = connect()) {
      setupTables(c);
      CopyManager cm = c.unwrap(PGConnection.class).getCopyAPI();
      long n = cm.copyIn("COPY jdb_all (i, t, n) FROM STDIN", new StringReader("1\tone\t1.5\n2\ttwo\\ttab\t\\N\n"));
      expect("copyIn rows", n, 2L);
      n = cm.copyIn("COPY jdb_all (i, t) FROM STDIN WITH (FORMAT csv)", new StringReader("3,\"three, q\"\n"));
      expect("copyIn csv rows", n, 1L);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      n = cm.copyOut("COPY (SELECT i, t, n FROM jdb_all ORDER BY i) TO STDOUT", out);
      expect("copyOut rows", n, 3L);
      expect("copyOut text", out.toString(StandardCharsets.UTF_8), "1\tone\t1.5000\n2\ttwo\\ttab\t\\N\n3\tthree, q\t\\N\n");
      try {
        cm.copyIn("COPY jdb_all (i) FROM STDIN", new StringReader("notanint\n"));
        throw new CheckFailed("bad COPY data accepted");
      } catch (SQLException e) {
        expect("bad COPY data SQLSTATE", e.getSQLState(), "22P02");
      }
      expect("usable after failed COPY", count(c, ""), 3L);
    }
  }

  static void checkMetaGetTables() throws Exception {
    try (Connection c = connect()) {
      setupTables(c);
      DatabaseMetaData md = c.getMetaData();
      List<String> tables = new ArrayList<>();
      try (ResultSet rs = md.getTables(null, "public", "jdb_%", new String[] {"TABLE"})) {
        while (rs.next()) {
          tables.add(rs.getString("TABLE_SCHEM") + "." + rs.getString("TABLE_NAME") + ":" + rs.getString("TABLE_TYPE"));
        }
      }
      expect("getTables", tables, List.of("public.jdb_all:TABLE", "public.jdb_child:TABLE"));
    }
  }

  static void checkMetaGetColumns() throws Exception {
    try (Connection c = connect()) {
      setupTables(c);
      DatabaseMetaData md = c.getMetaData();
      List<String> cols = new ArrayList<>();
      try (ResultSet rs = md.getColumns(null, "public", "jdb_all", "%")) {
        while (rs.next()) {
          cols.add(rs.getString("COLUMN_NAME") + ":" + rs.getString("TYPE_NAME") + ":" + rs.getInt("DATA_TYPE")
              + ":" + rs.getString("IS_NULLABLE"));
        }
      }
      expect("getColumns", cols, List.of(
          "id:serial:4:NO", "i:int4:4:YES", "b:int8:-5:YES", "t:text:12:YES", "n:numeric:2:YES",
          "flag:bool:-7:YES", "ts:timestamp:93:YES", "tstz:timestamptz:93:YES", "d:date:91:YES",
          "bin:bytea:-2:YES", "u:uuid:1111:YES", "ints:_int4:2003:YES", "texts:_text:2003:YES"));
      try (ResultSet rs = md.getColumns(null, "public", "jdb_all", "n")) {
        rs.next();
        expect("numeric(12,4) COLUMN_SIZE/DECIMAL_DIGITS", rs.getInt("COLUMN_SIZE") + "," + rs.getInt("DECIMAL_DIGITS"), "12,4");
      }
      try (ResultSet rs = md.getColumns(null, "public", "jdb_child", "%")) {
        List<String> d = new ArrayList<>();
        while (rs.next()) {
          d.add(rs.getString("COLUMN_NAME") + ":" + rs.getString("COLUMN_DEF") + ":" + rs.getString("IS_AUTOINCREMENT")
              + ":" + rs.getInt("COLUMN_SIZE"));
        }
        expect("getColumns defaults/identity", d, List.of(
            "id:null:YES:19", "parent_id:null:NO:10", "note:'n'::character varying:NO:40"));
      }
    }
  }

  static void checkMetaGetPrimaryKeys() throws Exception {
    try (Connection c = connect()) {
      setupTables(c);
      DatabaseMetaData md = c.getMetaData();
      try (ResultSet rs = md.getPrimaryKeys(null, "public", "jdb_all")) {
        expect("getPrimaryKeys has a row", rs.next(), true);
        expect("getPrimaryKeys", rs.getString("COLUMN_NAME") + ":" + rs.getInt("KEY_SEQ") + ":" + rs.getString("PK_NAME"),
            "id:1:jdb_all_pkey");
        expect("getPrimaryKeys one column", rs.next(), false);
      }
    }
  }

  static void checkMetaGetImportedKeys() throws Exception {
    try (Connection c = connect()) {
      setupTables(c);
      DatabaseMetaData md = c.getMetaData();
      try (ResultSet rs = md.getImportedKeys(null, "public", "jdb_child")) {
        expect("getImportedKeys has a row", rs.next(), true);
        expect("getImportedKeys", List.of(rs.getString("PKTABLE_NAME"), rs.getString("PKCOLUMN_NAME"),
                rs.getString("FKTABLE_NAME"), rs.getString("FKCOLUMN_NAME"), rs.getString("FK_NAME"),
                rs.getInt("DELETE_RULE"), rs.getInt("UPDATE_RULE")),
            List.of("jdb_all", "id", "jdb_child", "parent_id", "jdb_child_parent_id_fkey",
                DatabaseMetaData.importedKeyCascade, DatabaseMetaData.importedKeyNoAction));
        expect("getImportedKeys one key", rs.next(), false);
      }
      try (ResultSet rs = md.getExportedKeys(null, "public", "jdb_all")) {
        expect("getExportedKeys", rs.next() ? rs.getString("FKTABLE_NAME") : null, "jdb_child");
      }
    }
  }

  static void checkMetaGetIndexInfo() throws Exception {
    try (Connection c = connect()) {
      setupTables(c);
      DatabaseMetaData md = c.getMetaData();
      List<String> idx = new ArrayList<>();
      try (ResultSet rs = md.getIndexInfo(null, "public", "jdb_all", false, false)) {
        while (rs.next()) {
          idx.add(rs.getString("INDEX_NAME") + ":" + rs.getString("COLUMN_NAME") + ":" + rs.getBoolean("NON_UNIQUE"));
        }
      }
      idx.sort(null);
      expect("getIndexInfo", idx, List.of("jdb_all_pkey:id:false", "jdb_all_t_key:t:false"));
    }
  }

  static void checkMetaSchemasAndTypes() throws Exception {
    try (Connection c = connect()) {
      setupTables(c);
      DatabaseMetaData md = c.getMetaData();
      List<String> schemas = new ArrayList<>();
      try (ResultSet rs = md.getSchemas()) {
        while (rs.next()) {
          schemas.add(rs.getString("TABLE_SCHEM"));
        }
      }
      expectTrue("getSchemas has public", schemas.contains("public"), schemas);
      try (ResultSet rs = md.getTypeInfo()) {
        int n = 0;
        boolean uuid = false;
        while (rs.next()) {
          n++;
          uuid |= "uuid".equals(rs.getString("TYPE_NAME"));
        }
        expectTrue("getTypeInfo lists uuid", uuid && n > 20, n);
      }
    }
  }

  static void checkResultSetMetaData() throws Exception {
    try (Connection c = connect()) {
      setupTables(c);
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery(
              "SELECT a.id, a.n, a.t, a.tstz, a.ints, c.note, 1 + 1 AS two FROM jdb_all a JOIN jdb_child c ON c.parent_id = a.id")) {
        ResultSetMetaData md = rs.getMetaData();
        expect("getColumnCount", md.getColumnCount(), 7);
        List<String> got = new ArrayList<>();
        for (int k = 1; k <= 7; k++) {
          got.add(md.getColumnLabel(k) + ":" + md.getColumnType(k) + ":" + md.getColumnTypeName(k) + ":"
              + md.getTableName(k) + ":" + md.isNullable(k));
        }
        expect("columns label:type:typename:table:nullable", got, List.of(
            "id:4:serial:jdb_all:0", "n:2:numeric:jdb_all:1", "t:12:text:jdb_all:1",
            "tstz:93:timestamptz:jdb_all:1", "ints:2003:_int4:jdb_all:1", "note:12:varchar:jdb_child:0",
            "two:4:int4::2"));
        expect("numeric precision/scale", md.getPrecision(2) + "," + md.getScale(2), "12,4");
        expect("varchar(40) display size", md.getColumnDisplaySize(6), 40);
        expect("isAutoIncrement(id)", md.isAutoIncrement(1), true);
        expect("getColumnClassName(n)", md.getColumnClassName(2), "java.math.BigDecimal");
      }
    }
  }

  static void checkHikari() throws Exception {
    HikariConfig cfg = new HikariConfig();
    cfg.setJdbcUrl(URL);
    cfg.setUsername(USER);
    cfg.setMaximumPoolSize(4);
    cfg.setConnectionTimeout(10000);
    cfg.setPoolName("nestor-check");
    try (HikariDataSource ds = new HikariDataSource(cfg)) {
      ExecutorService ex = Executors.newFixedThreadPool(8);
      try {
        List<Future<Integer>> fs = new ArrayList<>();
        for (int k = 0; k < 40; k++) {
          final int v = k;
          fs.add(ex.submit(() -> {
            try (Connection c = ds.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT ?::int * 2")) {
              ps.setInt(1, v);
              try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
              }
            }
          }));
        }
        int sum = 0;
        for (Future<Integer> f : fs) {
          sum += f.get();
        }
        expect("pooled queries", sum, 2 * (39 * 40 / 2));
      } finally {
        ex.shutdown();
      }
      try (Connection c = ds.getConnection()) {
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
          s.execute("SELECT 1");
        }
        c.rollback();
        expect("pooled connection valid", c.isValid(5), true);
      }
      expectTrue("pool size bounded", ds.getHikariPoolMXBean().getTotalConnections() <= 4,
          ds.getHikariPoolMXBean().getTotalConnections());
    }
  }

  public static void main(String[] args) {
    Object[][] checks = {
      {"connect", (Check) JdbcCheck::checkConnect},
      {"crud_types", (Check) JdbcCheck::checkCrudTypes},
      {"prepared_statements", (Check) JdbcCheck::checkPreparedStatements},
      {"batch", (Check) JdbcCheck::checkBatch},
      {"transactions", (Check) JdbcCheck::checkTransactions},
      {"savepoints", (Check) JdbcCheck::checkSavepoints},
      {"autosave", (Check) JdbcCheck::checkAutosave},
      {"errors", (Check) JdbcCheck::checkErrors},
      {"fetch_size", (Check) JdbcCheck::checkFetchSize},
      {"copy", (Check) JdbcCheck::checkCopy},
      {"metadata_get_tables", (Check) JdbcCheck::checkMetaGetTables},
      {"metadata_get_columns", (Check) JdbcCheck::checkMetaGetColumns},
      {"metadata_get_primary_keys", (Check) JdbcCheck::checkMetaGetPrimaryKeys},
      {"metadata_get_imported_keys", (Check) JdbcCheck::checkMetaGetImportedKeys},
      {"metadata_get_index_info", (Check) JdbcCheck::checkMetaGetIndexInfo},
      {"metadata_schemas_and_types", (Check) JdbcCheck::checkMetaSchemasAndTypes},
      {"resultset_metadata", (Check) JdbcCheck::checkResultSetMetaData},
      {"hikari", (Check) JdbcCheck::checkHikari},
    };
    List<String> only = Arrays.asList(args);
    List<String> failed = new ArrayList<>();
    for (Object[] ch : checks) {
      String name = (String) ch[0];
      if (!only.isEmpty() && !only.contains(name)) {
        continue;
      }
      System.out.println("-- pgjdbc: " + name);
      long t0 = System.nanoTime();
      try {
        ((Check) ch[1]).run();
        System.out.printf("ok   %s (%.2fs)%n", name, (System.nanoTime() - t0) / 1e9);
      } catch (CheckFailed e) {
        System.out.println("FAIL " + name + ": " + e.getMessage());
        failed.add(name);
      } catch (Exception e) {
        String detail = e.toString();
        if (e instanceof SQLException) {
          detail += " [SQLSTATE " + ((SQLException) e).getSQLState() + "]";
        }
        for (StackTraceElement el : e.getStackTrace()) {
          if (el.getClassName().startsWith("nestor.")) {
            detail += " (at " + el + ")";
            break;
          }
        }
        System.out.println("FAIL " + name + ": " + detail);
        failed.add(name);
      }
      System.out.flush();
    }
    if (!failed.isEmpty()) {
      System.out.println("pgjdbc: " + failed.size() + " check(s) failed: " + String.join(", ", failed));
      System.exit(1);
    }
    System.out.println("pgjdbc: all checks passed");
  }
}
