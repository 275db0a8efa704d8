package ptfsh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.TableResult;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;

/**
 * Runs a SQL script on a Flink mini cluster (streaming mode, parallelism 1,
 * watermarks emitted as soon as they move) and prints each query's rows as
 * Row.toString does, one a line, and each failing statement as "ERROR: "
 * and the message of its deepest cause. Statements are split at semicolons
 * that end a line; SET 'ptfsh.…' statements are skipped. A SET of
 * 'execution.runtime-mode' starts a new environment in that mode (Flink
 * takes the mode only when an environment is made, as its SQL client does)
 * and runs the CREATE statements seen so far in it again.
 */
public class RunSql {
    public static void main(String[] args) throws Exception {
        TableEnvironment env = newEnv(false);
        List<String> ddl = new ArrayList<>();
        for (String stmt : split(Files.readString(Path.of(args[0])))) {
            String head = stmt.trim().toUpperCase();
            if (head.startsWith("SET 'PTFSH.")) {
                continue;
            }
            if (head.startsWith("SET 'EXECUTION.RUNTIME-MODE'")) {
                env = newEnv(head.contains("'BATCH'"));
                for (String d : ddl) {
                    env.executeSql(d);
                }
                continue;
            }
            try {
                TableResult r = env.executeSql(stmt);
                if (head.startsWith("CREATE")) {
                    ddl.add(stmt);
                }
                if (head.startsWith("SELECT") || head.startsWith("WITH")) {
                    try (CloseableIterator<Row> it = r.collect()) {
                        while (it.hasNext()) {
                            System.out.println(it.next());
                        }
                    }
                }
            } catch (Throwable t) {
                Throwable c = t;
                while (c.getCause() != null) {
                    c = c.getCause();
                }
                System.out.println("ERROR: " + c.getMessage().replace('\n', ' '));
            }
        }
        System.exit(0);
    }

    static TableEnvironment newEnv(boolean batch) {
        Configuration conf = new Configuration();
        conf.setString("parallelism.default", "1");
        conf.setString("pipeline.auto-watermark-interval", "1 ms");
        conf.setString("table.local-time-zone", "UTC");
        EnvironmentSettings.Builder b = EnvironmentSettings.newInstance();
        if (batch) {
            b.inBatchMode();
        } else {
            b.inStreamingMode();
        }
        return TableEnvironment.create(b.withConfiguration(conf).build());
    }

    static List<String> split(String src) {
        List<String> out = new ArrayList<>();
        StringBuilder b = new StringBuilder();
        for (String line : src.split("\n")) {
            if (line.trim().startsWith("--")) {
                continue;
            }
            b.append(line).append('\n');
            if (line.trim().endsWith(";")) {
                String s = b.toString().trim();
                out.add(s.substring(0, s.length() - 1));
                b.setLength(0);
            }
        }
        if (b.toString().trim().length() > 0) {
            out.add(b.toString().trim());
        }
        return out;
    }
}
