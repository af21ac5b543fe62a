/*
** JdbcClient.java — pgJDBC (org.postgresql:postgresql from Maven Central)
** against `sluice serve`: one case per run, the case named by the first
** argument, the JDBC URL by the second. Driven by clients_jdbc_test.py,
** which starts the server (with SCRAM users, TLS certificates) and
** compiles this file with javac at test time.
**
**   connect URL        connect, check what DatabaseMetaData and a bounded
**                      query return
**   badpass URL        the connection must fail with SQLSTATE 28P01
**   prepared URL       PreparedStatement with int8 / numeric / timestamp /
**                      text parameters, run enough times to cross
**                      prepareThreshold (the URL picks text or binary)
**   fetchsize URL      setFetchSize over an unbounded (streaming) query in
**                      a transaction: Execute with a row limit, portal
**                      suspended, closed early
**   metadata URL       getTables / getColumns / getPrimaryKeys
**   cancel URL         Statement.cancel() from another thread stops a
**                      streaming query with 57014; the connection goes on
**   warnings URL       a guarantee downgrade WARNING and the job's NOTICE
**                      arrive through Statement.getWarnings()
**
** Exit status 0 and "ok" on success; a failed check throws (status 1).
*/
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;

public class JdbcClient {
    static void check(boolean cond, String what) {
        if (!cond) throw new AssertionError(what);
    }

    static void eq(Object want, Object got, String what) {
        if (want == null ? got != null : !want.equals(got))
            throw new AssertionError(what + ": want <" + want + "> got <" + got + ">");
    }

    static Connection connect(String url) throws SQLException {
        Properties p = new Properties();
        p.setProperty("connectTimeout", "10");
        p.setProperty("socketTimeout", "60");
        return DriverManager.getConnection(url, p);
    }

    static final String UNBOUNDED =
        "CREATE TABLE s (id BIGINT, v STRING) WITH ('connector'='datagen', 'rows-per-second'='1000', "
        + "'fields.id.kind'='random', 'fields.id.min'='1', 'fields.id.max'='1000000', 'fields.v.length'='8')";

    static void caseConnect(String url) throws SQLException {
        try (Connection c = connect(url)) {
            DatabaseMetaData md = c.getMetaData();
            eq("PostgreSQL", md.getDatabaseProductName(), "product name");
            check(md.getDatabaseMajorVersion() >= 9, "server_version parses: " + md.getDatabaseProductVersion());
            try (Statement st = c.createStatement()) {
                st.execute("CREATE TABLE n (id BIGINT) WITH ('connector'='datagen', 'number-of-rows'='5', "
                           + "'fields.id.kind'='sequence', 'fields.id.start'='1', 'fields.id.end'='5')");
                long sum = 0;
                int rows = 0;
                try (ResultSet rs = st.executeQuery("SELECT id FROM n")) {
                    eq(Types.BIGINT, rs.getMetaData().getColumnType(1), "id's JDBC type");
                    while (rs.next()) { sum += rs.getLong(1); rows++; }
                }
                eq(5, rows, "rows");
                eq(15L, sum, "sum of ids");
            }
        }
    }

    static void caseBadpass(String url) {
        try (Connection c = connect(url)) {
            throw new AssertionError("connected with a wrong password");
        } catch (SQLException e) {
            eq("28P01", e.getSQLState(), "SQLSTATE of a wrong password (" + e.getMessage() + ")");
        }
    }

    static void casePrepared(String url) throws SQLException {
        try (Connection c = connect(url)) {
            try (Statement st = c.createStatement()) {
                st.execute("CREATE TABLE t (id BIGINT) WITH ('connector'='datagen', 'number-of-rows'='10', "
                           + "'fields.id.kind'='sequence', 'fields.id.start'='1', 'fields.id.end'='10')");
            }
            String sql = "SELECT id, id + ? AS n, ? AS amount, CAST(? AS TIMESTAMP(3)) AS ts, ? AS note "
                         + "FROM t WHERE id = ?";
            BigDecimal amount = new BigDecimal("-12345678901234.5678");
            Timestamp ts = Timestamp.valueOf("2024-02-29 12:34:56.789");
            try (PreparedStatement ps = c.prepareStatement(sql)) {
                // Past prepareThreshold (5) the driver switches to a named
                // statement and, where enabled, binary transfer.
                for (int i = 1; i <= 8; i++) {
                    ps.setLong(1, 1_000_000_000_000L * i);
                    ps.setBigDecimal(2, amount);
                    ps.setTimestamp(3, ts);
                    ps.setString(4, "héllo 'q' " + i);
                    ps.setLong(5, i);
                    int rows = 0;
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            rows++;
                            eq((long) i, rs.getLong("id"), "id");
                            eq(1_000_000_000_000L * i + i, rs.getLong("n"), "id + $1 (int8)");
                            check(amount.compareTo(rs.getBigDecimal("amount")) == 0,
                                  "numeric round trip: " + rs.getBigDecimal("amount"));
                            eq(ts, rs.getTimestamp("ts"), "timestamp round trip");
                            eq("héllo 'q' " + i, rs.getString("note"), "text round trip");
                        }
                    }
                    eq(1, rows, "rows of execution " + i);
                }
                // SQL NULL parameters.
                ps.setNull(1, Types.BIGINT);
                ps.setNull(2, Types.NUMERIC);
                ps.setNull(3, Types.TIMESTAMP);
                ps.setNull(4, Types.VARCHAR);
                ps.setLong(5, 2);
                try (ResultSet rs = ps.executeQuery()) {
                    check(rs.next(), "a row");
                    rs.getLong("n");
                    check(rs.wasNull(), "id + NULL is NULL");
                    check(rs.getBigDecimal("amount") == null && rs.getTimestamp("ts") == null
                          && rs.getString("note") == null, "NULL parameters come back NULL");
                }
            }
            // A parameter cannot change the statement.
            try (PreparedStatement ps = c.prepareStatement("SELECT id FROM t WHERE CAST(id AS STRING) = ?")) {
                ps.setString(1, "1' OR '1'='1");
                try (ResultSet rs = ps.executeQuery()) {
                    check(!rs.next(), "a quote in a parameter is data");
                }
            }
        }
    }

    static void caseFetchsize(String url) throws SQLException {
        try (Connection c = connect(url)) {
            try (Statement st = c.createStatement()) {
                st.execute(UNBOUNDED);
            }
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.setFetchSize(100);
                int rows = 0;
                try (ResultSet rs = st.executeQuery("SELECT id, v FROM s")) {
                    while (rows < 1000 && rs.next()) {
                        long id = rs.getLong(1);
                        check(id >= 1 && id <= 1000000, "id in range: " + id);
                        eq(8, rs.getString(2).length(), "v's length");
                        rows++;
                    }
                }
                eq(1000, rows, "rows read from the unbounded query");
            }
            c.commit();
            c.setAutoCommit(true);
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW TABLES")) {
                check(rs.next(), "the session goes on after the cursor");
            }
        }
    }

    static void caseMetadata(String url) throws SQLException {
        try (Connection c = connect(url)) {
            try (Statement st = c.createStatement()) {
                st.execute("CREATE TABLE orders (id BIGINT NOT NULL, amount DECIMAL(10, 2), note STRING, "
                           + "ts TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED) "
                           + "WITH ('connector'='datagen', 'number-of-rows'='1')");
                st.execute("CREATE TABLE users (name STRING) WITH ('connector'='datagen', 'number-of-rows'='1')");
            }
            DatabaseMetaData md = c.getMetaData();
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = md.getTables(null, null, "%", new String[] {"TABLE"})) {
                while (rs.next()) tables.add(rs.getString("TABLE_NAME"));
            }
            check(tables.contains("orders") && tables.contains("users"), "getTables: " + tables);
            List<String> cols = new ArrayList<>();
            try (ResultSet rs = md.getColumns(null, null, "orders", null)) {
                while (rs.next()) {
                    String name = rs.getString("COLUMN_NAME");
                    cols.add(name);
                    int type = rs.getInt("DATA_TYPE");
                    switch (name) {
                    case "id":
                        eq(Types.BIGINT, type, "id's DATA_TYPE");
                        eq(DatabaseMetaData.columnNoNulls, rs.getInt("NULLABLE"), "id NOT NULL");
                        break;
                    case "amount":
                        eq(Types.NUMERIC, type, "amount's DATA_TYPE");
                        eq(10, rs.getInt("COLUMN_SIZE"), "amount's precision");
                        eq(2, rs.getInt("DECIMAL_DIGITS"), "amount's scale");
                        eq(DatabaseMetaData.columnNullable, rs.getInt("NULLABLE"), "amount nullable");
                        break;
                    case "note":
                        check(type == Types.VARCHAR || type == Types.LONGVARCHAR, "note's DATA_TYPE " + type);
                        break;
                    case "ts":
                        eq(Types.TIMESTAMP, type, "ts's DATA_TYPE");
                        break;
                    default:
                        throw new AssertionError("unexpected column " + name);
                    }
                }
            }
            eq(List.of("id", "amount", "note", "ts"), cols, "getColumns in ordinal order");
            List<String> pk = new ArrayList<>();
            try (ResultSet rs = md.getPrimaryKeys(null, null, "orders")) {
                while (rs.next()) pk.add(rs.getString("COLUMN_NAME") + "#" + rs.getInt("KEY_SEQ"));
            }
            eq(List.of("id#1"), pk, "getPrimaryKeys");
            try (ResultSet rs = md.getPrimaryKeys(null, null, "users")) {
                check(!rs.next(), "users has no primary key");
            }
        }
    }

    static void caseCancel(String url) throws Exception {
        try (Connection c = connect(url)) {
            try (Statement st = c.createStatement()) {
                st.execute(UNBOUNDED);
            }
            Statement st = c.createStatement();
            AtomicReference<Exception> cancelErr = new AtomicReference<>();
            Thread canceller = new Thread(() -> {
                try {
                    Thread.sleep(1000);
                    st.cancel();
                } catch (Exception e) {
                    cancelErr.set(e);
                }
            });
            canceller.start();
            long t0 = System.nanoTime();
            try {
                st.executeQuery("SELECT id, v FROM s");
                throw new AssertionError("an unbounded query returned");
            } catch (SQLException e) {
                eq("57014", e.getSQLState(), "SQLSTATE of a cancelled query (" + e.getMessage() + ")");
            }
            canceller.join();
            check(cancelErr.get() == null, "cancel() failed: " + cancelErr.get());
            check(System.nanoTime() - t0 < 30_000_000_000L, "cancel took longer than 30 s");
            st.close();
            try (Statement st2 = c.createStatement(); ResultSet rs = st2.executeQuery("SHOW TABLES")) {
                check(rs.next(), "the connection serves after a cancel");
            }
        }
    }

    static void caseWarnings(String url) throws SQLException {
        try (Connection c = connect(url); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE nums (id BIGINT) WITH ('connector'='datagen', 'number-of-rows'='3')");
            st.execute("CREATE TABLE screen (id BIGINT) WITH ('connector'='print', "
                       + "'sink.delivery-guarantee'='exactly-once')");
            st.execute("SET 'sink.guarantee-fallback' = 'downgrade'");
            st.execute("INSERT INTO screen SELECT id FROM nums");
            List<String> msgs = new ArrayList<>();
            for (SQLWarning w = st.getWarnings(); w != null; w = w.getNextWarning())
                msgs.add(w.getSQLState() + " " + w.getMessage());
            check(msgs.stream().anyMatch(m -> m.contains("runs none, not the requested exactly-once")),
                  "the downgrade WARNING: " + msgs);
            check(msgs.stream().anyMatch(m -> m.contains("submitted")), "the job's NOTICE: " + msgs);
            st.clearWarnings();
            st.execute("SHOW TABLES");
            check(st.getWarnings() == null, "a statement without notices has no warnings");
        }
    }

    public static void main(String[] args) throws Exception {
        String c = args[0], url = args[1];
        switch (c) {
        case "connect": caseConnect(url); break;
        case "badpass": caseBadpass(url); break;
        case "prepared": casePrepared(url); break;
        case "fetchsize": caseFetchsize(url); break;
        case "metadata": caseMetadata(url); break;
        case "cancel": caseCancel(url); break;
        case "warnings": caseWarnings(url); break;
        default: throw new IllegalArgumentException("unknown case " + c);
        }
        System.out.println("ok");
    }
}
