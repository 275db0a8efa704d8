package ptfsh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * Runs a SQL script against Kafka on a Flink mini cluster (streaming mode,
 * parallelism 1, UTC) and prints the rows of each query as Row.toString
 * does, one a line, flushed as they come, so that a reader can follow an
 * unbounded query. Arguments: the script, then optionally the number of
 * rows after which a query is cancelled (0: read it to its end). INSERT
 * statements are waited for. SET 'key' = 'value' sets the configuration
 * of the statements after it. A failing statement prints "ERROR: " and the
 * message of its deepest cause.
 */
public class RunKafka {
    private static final Pattern SET = Pattern.compile("(?is)SET\\s+'([^']*)'\\s*=\\s*'([^']*)'");

    public static void main(String[] args) throws Exception {
        long maxRows = args.length > 1 ? Long.parseLong(args[1]) : 0;
        Configuration conf = new Configuration();
        conf.setString("parallelism.default", "1");
        conf.setString("table.local-time-zone", "UTC");
        TableEnvironment env = TableEnvironment.create(
                EnvironmentSettings.newInstance().inStreamingMode().withConfiguration(conf).build());
        StringBuilder stmt = new StringBuilder();
        for (String line : Files.readString(Path.of(args[0])).split("\n")) {
            if (line.trim().startsWith("--")) {
                continue;
            }
            stmt.append(line).append('\n');
            if (line.trim().endsWith(";")) {
                String s = stmt.toString().trim();
                run(env, s.substring(0, s.length() - 1), maxRows);
                stmt.setLength(0);
            }
        }
        System.exit(0);
    }

    static void run(TableEnvironment env, String stmt, long maxRows) {
        String head = stmt.toUpperCase();
        try {
            Matcher set = SET.matcher(stmt);
            if (set.matches()) {
                env.getConfig().getConfiguration().setString(set.group(1), set.group(2));
                return;
            }
            TableResult r = env.executeSql(stmt);
            if (head.startsWith("INSERT") || head.startsWith("EXECUTE")) {
                r.await();
                return;
            }
            if (!head.startsWith("SELECT") && !head.startsWith("WITH")) {
                return;
            }
            long n = 0;
            try (CloseableIterator<Row> it = r.collect()) {
                while ((maxRows == 0 || n < maxRows) && it.hasNext()) {
                    System.out.println(it.next());
                    System.out.flush();
                    n++;
                }
            }
        } catch (Throwable t) {
            Throwable c = t;
            while (c.getCause() != null) {
                c = c.getCause();
            }
            System.out.println("ERROR: " + String.valueOf(c.getMessage()).replace('\n', ' '));
        }
    }
}
