package ptfsh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.connector.source.DynamicTableSource;
import org.apache.flink.table.connector.source.LookupTableSource;
import org.apache.flink.table.connector.source.lookup.LookupFunctionProvider;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.factories.DynamicTableSourceFactory;
import org.apache.flink.table.functions.LookupFunction;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

/** A lookup-only table over a small CSV file (INT and STRING columns), for checking lookup joins. */
public class CsvLookupFactory implements DynamicTableSourceFactory {
    static final ConfigOption<String> PATH = ConfigOptions.key("path").stringType().noDefaultValue();

    public String factoryIdentifier() { return "csv-lookup"; }
    public Set<ConfigOption<?>> requiredOptions() { Set<ConfigOption<?>> s = new HashSet<>(); s.add(PATH); return s; }
    public Set<ConfigOption<?>> optionalOptions() { return new HashSet<>(); }

    public DynamicTableSource createDynamicTableSource(Context ctx) {
        String path = ctx.getCatalogTable().getOptions().get("path");
        List<LogicalType> types = new ArrayList<>();
        ctx.getPhysicalRowDataType().getChildren().forEach(d -> types.add(d.getLogicalType()));
        return new Src(path, types);
    }

    static class Src implements LookupTableSource {
        final String path; final List<LogicalType> types;
        Src(String path, List<LogicalType> types) { this.path = path; this.types = types; }
        public LookupRuntimeProvider getLookupRuntimeProvider(LookupContext c) { return LookupFunctionProvider.of(new Fn(path, types, c.getKeys())); }
        public DynamicTableSource copy() { return new Src(path, types); }
        public String asSummaryString() { return "csv-lookup"; }
    }

    public static class Fn extends LookupFunction {
        final String path; final List<LogicalType> types; final int[][] keys;
        public Fn(String path, List<LogicalType> types, int[][] keys) { this.path = path; this.types = types; this.keys = keys; }
        public Collection<RowData> lookup(RowData key) throws IOException {
            List<RowData> out = new ArrayList<>();
            for (String line : Files.readAllLines(Path.of(path))) {
                String[] f = line.split(",", -1);
                GenericRowData r = new GenericRowData(types.size());
                for (int i = 0; i < types.size(); i++) {
                    if (f[i].isEmpty()) { r.setField(i, null); continue; }
                    r.setField(i, types.get(i).getTypeRoot() == LogicalTypeRoot.INTEGER ? (Object) Integer.valueOf(f[i]) : StringData.fromString(f[i]));
                }
                boolean ok = true;
                for (int k = 0; k < keys.length; k++) {
                    int c = keys[k][0];
                    Object want = types.get(c).getTypeRoot() == LogicalTypeRoot.INTEGER ? (Object) key.getInt(k) : key.getString(k);
                    ok = ok && !key.isNullAt(k) && want.equals(r.getField(c));
                }
                if (ok) out.add(r);
            }
            return out;
        }
    }
}
