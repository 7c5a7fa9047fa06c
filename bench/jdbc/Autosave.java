// pgjdbc with autosave=always: the driver sends SAVEPOINT PGJDBC_AUTOSAVE
// before every statement of a transaction (and, by default, never releases
// it), so one long transaction piles up one savepoint per statement. On
// PostgreSQL each of them is a subtransaction that takes an XID when its
// statement writes, and a lock on that XID; the seeds cite this pattern
// running out of shared memory. On Nestor each is an undo-log mark.
//
// Usage: java -cp postgresql.jar Autosave.java PORT STATEMENTS RSS_PID
//   RSS_PID: the process whose VmRSS to report (0: the session's backend,
//   pg_backend_pid(), which on PostgreSQL is the backend process).
// Prints "PID p", one "CHUNK i micros rss_kb" line per 1,000 statements,
// "TOTAL_MS t" and "ROWS n".
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;

public class Autosave {
    static long rssKb(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (Exception e) {
            return -1;
        }
        return -1;
    }

    public static void main(String[] args) throws Exception {
        String url = "jdbc:postgresql://127.0.0.1:" + args[0]
                + "/postgres?user=postgres&autosave=always";
        int n = Integer.parseInt(args[1]);
        long rssPid = Long.parseLong(args[2]);
        int chunk = 1000;
        try (Connection c = DriverManager.getConnection(url)) {
            try (Statement s = c.createStatement()) {
                s.execute("DROP TABLE IF EXISTS autosave_t");
                s.execute("CREATE TABLE autosave_t (i int)");
            }
            c.setAutoCommit(false);
            try (Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT pg_backend_pid()")) {
                r.next();
                if (rssPid == 0) {
                    rssPid = r.getLong(1);
                }
            }
            System.out.println("PID " + rssPid);
            PreparedStatement ps = c.prepareStatement("INSERT INTO autosave_t VALUES (?)");
            long t0 = System.nanoTime();
            long tc = t0;
            for (int i = 1; i <= n; i++) {
                ps.setInt(1, i);
                ps.executeUpdate();
                if (i % chunk == 0) {
                    long now = System.nanoTime();
                    System.out.println("CHUNK " + i + " " + (now - tc) / 1000 + " " + rssKb(rssPid));
                    tc = now;
                }
            }
            c.commit();
            System.out.println("TOTAL_MS " + (System.nanoTime() - t0) / 1000000);
            c.setAutoCommit(true);
            try (Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT count(*) FROM autosave_t")) {
                r.next();
                System.out.println("ROWS " + r.getLong(1));
            }
        }
    }
}
