package ptfsh;

import java.io.File;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Enumeration;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import org.apache.flink.annotation.docs.Documentation;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.FallbackKey;

/**
 * Prints the keys of Flink's configuration options on the class path, one a
 * line, sorted: the public static ConfigOption fields (and their fallback
 * keys) of the classes whose names end in Options, Config or Parameters, as
 * Flink's documentation generator finds them, without those it leaves out of
 * the documentation. Only configuration classes count: the options of
 * connectors, formats, catalogs and hints are a table's, not SET's.
 * ptfsh's runtime/settings keeps this list (TestFlinkSettings).
 */
public class ListOptions {
    static final String[] PACKAGES = {
        "org.apache.flink.configuration.",
        "org.apache.flink.table.api.config.",
        "org.apache.flink.client.cli.",
        "org.apache.flink.cep.configuration.",
        "org.apache.flink.runtime.",
    };

    public static void main(String[] args) throws Exception {
        TreeSet<String> keys = new TreeSet<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.endsWith(".jar") || !new File(entry).getName().startsWith("flink-")) {
                continue;
            }
            try (JarFile jar = new JarFile(entry)) {
                for (Enumeration<JarEntry> en = jar.entries(); en.hasMoreElements(); ) {
                    String name = en.nextElement().getName();
                    if (!name.endsWith(".class") || name.contains("$")) {
                        continue;
                    }
                    String cn = name.substring(0, name.length() - 6).replace('/', '.');
                    String simple = cn.substring(cn.lastIndexOf('.') + 1);
                    if (!(simple.endsWith("Options") || simple.endsWith("Config") || simple.endsWith("Parameters"))
                            || simple.equals("LookupJoinHintOptions") || !configPackage(cn)) {
                        continue;
                    }
                    Class<?> c;
                    try {
                        c = Class.forName(cn, false, ListOptions.class.getClassLoader());
                    } catch (Throwable t) {
                        continue;
                    }
                    if (c.isAnnotationPresent(Documentation.ExcludeFromDocumentation.class)) {
                        continue;
                    }
                    for (Field f : c.getFields()) {
                        if (!Modifier.isStatic(f.getModifiers()) || !ConfigOption.class.isAssignableFrom(f.getType())
                                || f.isAnnotationPresent(Documentation.ExcludeFromDocumentation.class)) {
                            continue;
                        }
                        ConfigOption<?> o;
                        try {
                            o = (ConfigOption<?>) f.get(null);
                        } catch (Throwable t) {
                            continue;
                        }
                        keys.add(o.key());
                        for (FallbackKey fk : o.fallbackKeys()) {
                            keys.add(fk.getKey());
                        }
                    }
                }
            }
        }
        for (String k : keys) {
            // A key with a placeholder (metrics.reporter.<name>.port) or
            // without a dot is a template or a hint's, no key to SET.
            if (k.indexOf('.') > 0 && k.indexOf('<') < 0) {
                System.out.println(k);
            }
        }
    }

    static boolean configPackage(String cn) {
        for (String p : PACKAGES) {
            if (cn.startsWith(p)) {
                return true;
            }
        }
        return false;
    }
}
