/*
** Runner.java — the Flink side of the differential test (tests/flink/flinkdiff):
** runs SQL files in Apache Flink SQL 2.2 (streaming mode unless the file SETs
** 'execution.runtime-mode' = 'batch'; a local MiniCluster, all files in one JVM) and prints every SELECT's result as its changelog.
**
**   java [--add-opens ...] -cp CLASSPATH sluice.flinkdiff.Runner case.sql...
**
** Each file runs in a fresh table environment. Its SET 'k' = 'v' statements are
** collected first and given to the execution environment (so parallelism holds
** for every job) and also applied to the table config in order. CREATE
** statements are executed; each SELECT is collected to its end (the cases read
** bounded sources) and printed, one line per change. Output, on stdout:
**
**   #case FILE
**   #select N            (N counts the file's SELECTs from 1)
**   +I<TAB>v1<TAB>v2     (one line per change: Flink's row kind, then each value
**                         as Flink's SQL client prints it: the planner's CAST to
**                         STRING, NULL as <NULL>; control characters escaped
**                         as Sluice's shell shows them)
**   #end
**   #error MESSAGE       (a statement that failed; the file goes on)
**   #seconds X           (after each file)
*/
package sluice.flinkdiff;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.table.api.internal.TableResultInternal;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.utils.print.RowDataToStringConverter;
import org.apache.flink.util.CloseableIterator;

public final class Runner {
    private static final Pattern SET = Pattern.compile(
            "(?is)^SET\\s+'([^']*)'\\s*=\\s*'([^']*)'\\s*$");

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            System.err.println("usage: sluice.flinkdiff.Runner case.sql...");
            System.exit(2);
        }
        // One MiniCluster for every file and job: starting one per job (what a
        // local environment does) costs seconds each.
        Configuration clusterConf = new Configuration();
        clusterConf.setString("rest.bind-port", "0");
        clusterConf.setString("rest.address", "127.0.0.1");
        clusterConf.setString("taskmanager.memory.managed.size", "128m");
        clusterConf.setString("taskmanager.memory.network.min", "64m");
        clusterConf.setString("taskmanager.memory.network.max", "64m");
        MiniCluster cluster = new MiniCluster(new MiniClusterConfiguration.Builder()
                .setConfiguration(clusterConf).setNumTaskManagers(1).setNumSlotsPerTaskManager(8).build());
        cluster.start();
        URI rest = cluster.getRestAddress().get();
        for (String file : args) {
            runFile(file, rest);
        }
        System.out.flush();
        cluster.close();
        System.exit(0);
    }

    private static void runFile(String file, URI rest) throws Exception {
        long t0 = System.nanoTime();
        System.out.println("#case " + file);
        List<String> stmts = split(Files.readString(Path.of(file), StandardCharsets.UTF_8));
        Map<String, String> sets = new LinkedHashMap<>();
        for (String s : stmts) {
            Matcher m = SET.matcher(s);
            if (m.matches()) {
                sets.put(m.group(1), m.group(2));
            }
        }
        Configuration conf = Configuration.fromMap(sets);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createRemoteEnvironment(
                rest.getHost(), rest.getPort(), conf);
        /* SET 'execution.runtime-mode' = 'batch' anywhere in the file: the whole
        ** file runs in batch mode (the planner is chosen when the environment is made) */
        EnvironmentSettings.Builder mode = "batch".equalsIgnoreCase(sets.get("execution.runtime-mode"))
                ? EnvironmentSettings.newInstance().inBatchMode()
                : EnvironmentSettings.newInstance().inStreamingMode();
        StreamTableEnvironment tEnv = StreamTableEnvironment.create(
                env, mode.withConfiguration(conf).build());
        int selects = 0;
        for (String s : stmts) {
            Matcher m = SET.matcher(s);
            String head = s.stripLeading().toUpperCase(Locale.ROOT);
            boolean query = head.startsWith("SELECT") || head.startsWith("WITH") || head.startsWith("(");
            if (query) {
                System.out.println("#select " + (++selects));
            }
            try {
                if (m.matches()) {
                    tEnv.getConfig().set(m.group(1), m.group(2));
                    continue;
                }
                TableResult r = tEnv.executeSql(s);
                if (query) {
                    printChanges((TableResultInternal) r);
                } else if (head.startsWith("INSERT") || head.startsWith("EXECUTE")) {
                    r.await();
                }
            } catch (Exception e) {
                Throwable c = e;
                while (c.getCause() != null && c.getMessage() == null) {
                    c = c.getCause();
                }
                String msg = String.valueOf(c.getMessage()).replace('\n', ' ');
                System.out.println("#error " + msg);
            }
            System.out.flush();
        }
        System.out.printf(Locale.ROOT, "#seconds %.3f%n", (System.nanoTime() - t0) / 1e9);
        System.out.flush();
    }

    private static void printChanges(TableResultInternal r) throws Exception {
        RowDataToStringConverter conv = r.getRowDataToStringConverter();
        StringBuilder line = new StringBuilder();
        try (CloseableIterator<RowData> it = r.collectInternal()) {
            while (it.hasNext()) {
                RowData row = it.next();
                line.setLength(0);
                line.append(row.getRowKind().shortString());
                for (String v : conv.convert(row)) {
                    line.append('\t').append(escape(v));
                }
                System.out.println(line);
            }
        }
        System.out.println("#end");
    }

    /** Control characters as Sluice's shell shows them (\\t, \\r, \\xNN); the
     * rest as it is. A newline (a multi-line cell in Sluice) becomes \\n. */
    private static String escape(String v) {
        StringBuilder b = new StringBuilder(v.length());
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c == '\t') b.append("\\t");
            else if (c == '\r') b.append("\\r");
            else if (c == '\n') b.append("\\n");
            else if (c < 0x20 || c == 0x7f) b.append(String.format(Locale.ROOT, "\\x%02X", (int) c));
            else b.append(c);
        }
        return b.toString();
    }

    /** Splits SQL text at semicolons outside quotes and comments; drops comments and empty statements. */
    static List<String> split(String text) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        int n = text.length();
        for (int i = 0; i < n; i++) {
            char c = text.charAt(i);
            if (c == '-' && i + 1 < n && text.charAt(i + 1) == '-') {
                while (i < n && text.charAt(i) != '\n') i++;
                cur.append('\n');
            } else if (c == '/' && i + 1 < n && text.charAt(i + 1) == '*') {
                int e = text.indexOf("*/", i + 2);
                i = e < 0 ? n : e + 1;
                cur.append(' ');
            } else if (c == '\'' || c == '`' || c == '"') {
                int j = i + 1;
                while (j < n) {
                    if (text.charAt(j) == c) {
                        if (j + 1 < n && text.charAt(j + 1) == c) { j += 2; continue; }
                        break;
                    }
                    j++;
                }
                cur.append(text, i, Math.min(j + 1, n));
                i = j;
            } else if (c == ';') {
                if (!cur.toString().isBlank()) out.add(cur.toString().strip());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        if (!cur.toString().isBlank()) out.add(cur.toString().strip());
        return out;
    }
}
