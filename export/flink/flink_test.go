package flink_test

import (
	"encoding/xml"
	"flag"
	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/export/flink"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/script"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func load(t *testing.T, name, file, src string) *ptf.FuncDef {
	t.Helper()
	e := script.NewEngine(script.Options{ParseType: ptf.ParseType})
	t.Cleanup(func() { e.Close() })
	def, err := e.Load(name, file, src)
	if err != nil {
		t.Fatal(err)
	}
	return def
}

func TestClassSource_golden(t *testing.T) {
	for _, tc := range []struct{ name, file string }{
		{"GreetingWithMemory", "greeting_with_memory.js"},
		{"TableFilter", "table_filter.js"},
		{"NoDepartureAlert", "no_departure_alert.js"},
		// A scalar function (kind: "scalar"): a ScalarFunction.
		{"Label", "../cmd/ptfsh/testdata/flink/label.js"},
		// Views of rows, decimals, timestamps and arrays: their types in
		// the hints, their kinds (ROW<name kind,...>, names escaped).
		{"ViewRows", "../cmd/ptfsh/testdata/flink/view_rows.js"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join("..", "..", "examples", tc.file)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			def := load(t, tc.name, path, string(src))
			if err := flink.Check(def, "examples/"+tc.file); err != nil {
				t.Fatal(err)
			}
			got, err := flink.ClassSource(flink.Project{Def: def, File: "examples/" + tc.file})
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", tc.name+".java")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(string(want), got); d != "" {
				t.Errorf("%s (-want +got; go test -update rewrites it):\n%s", golden, d)
			}
		})
	}
}

func TestCheck_unsupported(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"map state of maps", `({ output: "STRING", args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
			state: { seen: { kind: "map", type: "MAP<STRING, MAP<STRING, INT>>" } }, eval() {} })`, `f.js: export flink: MapView state of type MAP<STRING, MAP<STRING, INT>> (state "seen"; keys of BOOLEAN, integer, FLOAT, DOUBLE or STRING, and values of any type but MAP, are) is not supported yet`},
		{"map state of time keys", `({ output: "STRING", args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
			state: { seen: { kind: "map", type: "MAP<TIMESTAMP(3), INT>" } }, eval() {} })`, `MapView state of type MAP<TIMESTAMP(3), INT> (state "seen"`},
		{"list state of rows with maps", `({ output: "STRING", args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
			state: { seen: { kind: "list", type: "ARRAY<ROW<a INT, m MAP<STRING, INT>>>" } }, eval() {} })`, `ListView state of type ARRAY<ROW<` + "`a`" + ` INT, ` + "`m`" + ` MAP<STRING, INT>>> (state "seen"; elements of any type but MAP are)`},
		{"list state of time", `({ output: "STRING", args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
			state: { seen: { kind: "list", type: "ARRAY<TIME(0)>" } }, eval() {} })`, `ListView state of type ARRAY<TIME(0)> (state "seen"`},
		{"scalar before pass-through", `({ output: "STRING", args: [{ name: "i", type: "INT" }, { name: "r", traits: ["ROW_SEMANTIC_TABLE", "PASS_COLUMNS_THROUGH"] }],
			eval() {} })`, `a scalar argument ("i") declared before the PASS_COLUMNS_THROUGH table "r"`},
		{"output type", `({ output: "ROW<t TIME(0)>", args: [{ name: "input", traits: ["ROW_SEMANTIC_TABLE"] }],
			eval() {} })`, `the output field type TIME(0) (field "t")`},
		{"scalar type", `({ output: "STRING", args: [{ name: "input", traits: ["ROW_SEMANTIC_TABLE"] }, { name: "d", type: "MAP<STRING, INT>" }],
			eval() {} })`, `the scalar argument type MAP<STRING, INT> (argument "d")`},
		{"scalar function of a ROW", `({ kind: "scalar", output: "ROW<a INT>", args: [{ name: "x", type: "INT" }], eval(x) { return [x]; } })`,
			`f.js: export flink: the output type ROW<` + "`a`" + ` INT> of a scalar function is not supported yet`},
		{"scalar function of a TIME", `({ kind: "scalar", output: "INT", args: [{ name: "x", type: "TIME" }], eval(x) { return 1; } })`,
			`f.js: export flink: the scalar argument type TIME(0) (argument "x") of a scalar function is not supported yet`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			def := load(t, "F", "", tc.src)
			err := flink.Check(def, "f.js")
			if err == nil {
				t.Fatalf("Check: no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "f.js: ") {
				t.Errorf("Check: %v, want it to name f.js and contain %q", err, tc.want)
			}
			if err := flink.Write(t.TempDir()+"/p", flink.Project{Def: def, File: "f.js"}); err == nil {
				t.Errorf("Write: no error for an unsupported feature")
			}
		})
	}
}

// TestWrite_pom: the pom brings the connectors and formats the cases'
// tables use, as provided, and not flink-test-utils.
func TestWrite_pom(t *testing.T) {
	def := load(t, "G", "", `({ output: "STRING", args: [{ name: "input", traits: ["ROW_SEMANTIC_TABLE"] }], eval() {} })`)
	for _, tc := range []struct {
		table string
		want  []string
	}{
		{"CREATE VIEW v AS VALUES (1)", nil},
		{"CREATE TABLE v (a INT) WITH ('connector' = 'filesystem', 'path' = '/x.csv', 'format' = 'csv')", []string{"flink-connector-files", "flink-csv"}},
		{"CREATE TABLE v (a INT) WITH ('connector' = 'filesystem', 'path' = 'data/x.json', 'format' = 'json')", []string{"flink-connector-files", "flink-json"}},
	} {
		dir := t.TempDir()
		err := flink.Write(dir, flink.Project{Def: def, File: "g.js", Script: "({})", Cases: []flink.Case{{
			Name: "case01", Statements: []string{tc.table, "SELECT * FROM G(TABLE v)"}}}})
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "pom.xml"))
		if err != nil {
			t.Fatal(err)
		}
		pom := string(b)
		for _, a := range []string{"flink-connector-files", "flink-csv", "flink-json", "flink-test-utils"} {
			want := false
			for _, w := range tc.want {
				want = want || w == a
			}
			if got := strings.Contains(pom, "<artifactId>"+a+"</artifactId>"); got != want {
				t.Errorf("%s: pom has %s: %v, want %v", tc.table, a, got, want)
			}
		}
	}
}

// TestWrite_pomGraalJIT: the pom's graal-jit profile, on by itself under
// JDK 25 or later, gives the tests GraalJS's optimizing compiler (JVMCI on,
// the Graal compiler and the modules it requires on the upgrade module
// path, at GraalJS's version), and the default build has none of it, so JDK
// 17 runs interpreted. The bridge lets the interpreter's warning show in
// the function's context.
func TestWrite_pomGraalJIT(t *testing.T) {
	def := load(t, "G", "", `({ output: "STRING", args: [{ name: "input", traits: ["ROW_SEMANTIC_TABLE"] }], eval() {} })`)
	dir := t.TempDir()
	if err := flink.Write(dir, flink.Project{Def: def, File: "g.js", Script: "({})"}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "pom.xml"))
	if err != nil {
		t.Fatal(err)
	}
	type artifact struct {
		GroupID    string `xml:"groupId"`
		ArtifactID string `xml:"artifactId"`
		Version    string `xml:"version"`
	}
	type plugin struct {
		ArtifactID string `xml:"artifactId"`
		ArgLine    string `xml:"configuration>argLine"`
		Executions []struct {
			Phase     string     `xml:"phase"`
			Goals     []string   `xml:"goals>goal"`
			OutputDir string     `xml:"configuration>outputDirectory"`
			Items     []artifact `xml:"configuration>artifactItems>artifactItem"`
		} `xml:"executions>execution"`
	}
	var pom struct {
		Properties struct {
			GraalJS string `xml:"graaljs.version"`
			Target  string `xml:"maven.compiler.target"`
		} `xml:"properties"`
		Plugins  []plugin `xml:"build>plugins>plugin"`
		Profiles []struct {
			ID      string   `xml:"id"`
			JDK     string   `xml:"activation>jdk"`
			Plugins []plugin `xml:"build>plugins>plugin"`
		} `xml:"profiles>profile"`
	}
	if err := xml.Unmarshal(b, &pom); err != nil {
		t.Fatal(err)
	}
	if pom.Properties.GraalJS == "" || pom.Properties.Target != "17" {
		t.Errorf("properties: graaljs.version %q, maven.compiler.target %q; want a version and 17", pom.Properties.GraalJS, pom.Properties.Target)
	}
	for _, p := range pom.Plugins {
		if p.ArgLine != "" {
			t.Errorf("default build: %s has argLine %q; JDK 17 needs none", p.ArtifactID, p.ArgLine)
		}
	}
	if len(pom.Profiles) != 1 || pom.Profiles[0].ID != "graal-jit" || pom.Profiles[0].JDK != "[25,)" {
		t.Fatalf("profiles: %+v; want graal-jit active on JDK [25,)", pom.Profiles)
	}
	var copyDir, argLine string
	var items []string
	for _, p := range pom.Profiles[0].Plugins {
		switch p.ArtifactID {
		case "maven-dependency-plugin":
			for _, e := range p.Executions {
				if e.Phase != "process-test-resources" || len(e.Goals) != 1 || e.Goals[0] != "copy" {
					t.Errorf("dependency plugin: phase %q goals %v; want copy before the tests", e.Phase, e.Goals)
				}
				copyDir = e.OutputDir
				for _, a := range e.Items {
					if a.Version != "${graaljs.version}" {
						t.Errorf("%s:%s at %q, want ${graaljs.version}", a.GroupID, a.ArtifactID, a.Version)
					}
					items = append(items, a.GroupID+":"+a.ArtifactID)
				}
			}
		case "maven-surefire-plugin":
			argLine = p.ArgLine
		}
	}
	want := []string{"org.graalvm.compiler:compiler", "org.graalvm.truffle:truffle-compiler", "org.graalvm.sdk:collections", "org.graalvm.sdk:word"}
	if diff := cmp.Diff(want, items); diff != "" {
		t.Errorf("modules copied for the upgrade module path (-want +got):\n%s", diff)
	}
	if copyDir == "" {
		t.Fatal("graal-jit: no folder for the compiler")
	}
	wantArgs := []string{"-XX:+UnlockExperimentalVMOptions", "-XX:+EnableJVMCI", "--upgrade-module-path=" + copyDir}
	if diff := cmp.Diff(wantArgs, strings.Fields(argLine)); diff != "" {
		t.Errorf("surefire argLine (-want +got):\n%s", diff)
	}
	bridge, err := os.ReadFile(filepath.Join(dir, "src/main/java/ptfsh/flink/JsFunction.java"))
	if err != nil {
		t.Fatal(err)
	}
	// One hidden warning is left: the short context that answers Flink's
	// planner for a changelog function of the function form.
	if n := strings.Count(string(bridge), `option("engine.WarnInterpreterOnly", "false")`); n != 1 {
		t.Errorf("JsFunction.java hides the interpreter's warning %d times, want 1 (planning only)", n)
	}
}

// TestCheckScript: the bridge carries every method of ptfsh's JavaScript
// API today (ptf.d.ts), so no name is refused: the row methods, the
// timers, tableSemanticsFor and getChangelogMode pass.
func TestCheckScript(t *testing.T) {
	src := "({ eval(ctx, s, { input }) { input.getFieldAs(0); input.getKind(); ctx.timeContext().registerOnTime(1); ctx.currentTimer(); ctx.noteDropped('late'); " +
		"ctx.tableSemanticsFor('input').dataType(); ctx.getChangelogMode().isInsertOnly(); } })"
	if err := flink.CheckScript(src, "f.js"); err != nil {
		t.Errorf("CheckScript: %v", err)
	}
}

// TestClassSource_ttl: a state entry's TTL goes to its @StateHint, in
// eval and onTimer, in milliseconds.
func TestClassSource_ttl(t *testing.T) {
	def := load(t, "F", "", `({ output: "STRING", args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
		state: { s: { default: {}, ttl: "1 hour" }, off: { ttl: 0 } }, eval() {}, onTimer() {} })`)
	if err := flink.Check(def, "f.js"); err != nil {
		t.Fatal(err)
	}
	got, err := flink.ClassSource(flink.Project{Def: def, File: "f.js"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`@StateHint(name = "s", type = @DataTypeHint("ROW<json STRING>"), ttl = "3600000 ms") Row state_s`,
		`@StateHint(name = "off", type = @DataTypeHint("ROW<json STRING>"), ttl = "0 ms") Row state_off`} {
		if n := strings.Count(got, want); n != 2 {
			t.Errorf("%q appears %d times, want 2 (eval, onTimer):\n%s", want, n, got)
		}
	}
}

// TestCheckChangelog: a changelog declaration is carried (the class is a
// ChangelogFunction), a fixed mode and the function form; a scalar output
// is refused.
func TestCheckChangelog(t *testing.T) {
	row := load(t, "F", "", `({ output: "ROW<s INT>", changelog: "all", args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }], eval() {} })`)
	scalar := load(t, "F", "", `({ output: "INT", changelog: "all", args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }], eval() {} })`)
	for _, tc := range []struct {
		def  *ptf.FuncDef
		mode string
		fn   bool
		want string
	}{
		{row, "all", false, ""},
		{row, "upsert", false, ""},
		{row, "", true, ""},
		{scalar, "", true, "f.js: export flink: a changelog function with the output INT is not supported yet"},
		{scalar, "all", false, "f.js: export flink: a changelog function with the output INT is not supported yet"},
		{row, "", false, "f.js: export flink: a changelog function whose mode is not known"},
	} {
		err := flink.CheckChangelog(tc.def, tc.mode, tc.fn, "f.js")
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)) {
			t.Errorf("CheckChangelog(%q, %v) = %v, want %q", tc.mode, tc.fn, err, tc.want)
		}
	}
	got, err := flink.ClassSource(flink.Project{Def: row, File: "f.js", Changelog: "upsert"})
	if err != nil {
		t.Fatal(err)
	}
	fn, err := flink.ClassSource(flink.Project{Def: row, File: "f.js", ChangelogFunc: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := `return JsFunction.changelogMode("/ptfsh/F.js", changelogContext);`; !strings.Contains(fn, want) {
		t.Errorf("the class lacks %q:\n%s", want, fn)
	}
	for _, want := range []string{"extends ProcessTableFunction<Row> implements ChangelogFunction {",
		"return ChangelogMode.upsert(changelogContext.getRequiredChangelogMode().keyOnlyDeletes());", "ARG_TABLES, STATE_KINDS, true);"} {
		if !strings.Contains(got, want) {
			t.Errorf("the class lacks %q:\n%s", want, got)
		}
	}
}

// TestWrite_batchMode checks that job.sql sets the runtime mode where the
// cases' mode changes, and gives each statement once.
func TestWrite_batchMode(t *testing.T) {
	def := load(t, "Greeting", "", `({ output: "STRING", args: [{ name: "input", traits: ["ROW_SEMANTIC_TABLE"] }],
		eval(ctx, s, { input }) { ctx.collect("Hello " + input.name); } })`)
	dir := t.TempDir()
	const view = "CREATE VIEW v(name) AS VALUES ('Bob')"
	err := flink.Write(dir, flink.Project{Def: def, File: "g.js", Script: "({})\n", Cases: []flink.Case{
		{Name: "case01", Statements: []string{view, "SELECT * FROM Greeting(input => TABLE v)"}, Rows: []string{"+I[Hello Bob]"}},
		{Name: "case02", Statements: []string{flink.BatchMode, view, "SELECT COUNT(*) FROM v"}, Rows: []string{"+I[1]"}},
		{Name: "case03", Statements: []string{view, "SELECT name FROM v"}, Rows: []string{"+I[Bob]"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	job, err := os.ReadFile(filepath.Join(dir, "job.sql"))
	if err != nil {
		t.Fatal(err)
	}
	_, got, _ := strings.Cut(string(job), "CREATE TEMPORARY SYSTEM FUNCTION `Greeting` AS 'ptfsh.flink.Greeting';\n")
	want := view + ";\nSELECT * FROM Greeting(input => TABLE v);\n" +
		"SET 'execution.runtime-mode' = 'batch';\nSELECT COUNT(*) FROM v;\n" +
		"SET 'execution.runtime-mode' = 'streaming';\nSELECT name FROM v;\n"
	if got != want {
		t.Errorf("job.sql after the registration = %q, want %q", got, want)
	}
	c2, err := os.ReadFile(filepath.Join(dir, "src/test/resources/ptfsh/cases/case02.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if want := flink.BatchMode + ";\n" + view + ";\nSELECT COUNT(*) FROM v;\n"; string(c2) != want {
		t.Errorf("case02.sql = %q, want %q", c2, want)
	}
}

func TestWrite_files(t *testing.T) {
	def := load(t, "Greeting", "", `({ output: "STRING", args: [{ name: "input", traits: ["ROW_SEMANTIC_TABLE"] }],
		eval(ctx, s, { input }) { ctx.collect("Hello " + input.name); } })`)
	dir := t.TempDir()
	err := flink.Write(dir, flink.Project{Def: def, File: "g.js", Script: "({})\n", Cases: []flink.Case{{
		Name: "case01", Statements: []string{"CREATE VIEW v(name) AS VALUES ('Bob')", "SELECT * FROM Greeting(input => TABLE v)"},
		Rows: []string{"+I[Hello Bob]"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"src/main/resources/ptfsh/register.sql":     "CREATE TEMPORARY SYSTEM FUNCTION `Greeting` AS 'ptfsh.flink.Greeting';\n",
		"src/main/resources/ptfsh/Greeting.js":      "({})\n",
		"src/test/resources/ptfsh/cases/index.txt":  "case01\n",
		"src/test/resources/ptfsh/cases/case01.sql": "CREATE VIEW v(name) AS VALUES ('Bob');\nSELECT * FROM Greeting(input => TABLE v);\n",
		"src/test/resources/ptfsh/cases/case01.out": "+I[Hello Bob]\n",
		"sql-client/config.yaml": "# Generated by ptfsh export flink: Flink's configuration for running job.sql\n" +
			"# in the SQL client without a cluster (see pom.xml beside this file). The\n" +
			"# jobs run on a mini cluster inside the client's JVM.\nexecution.target: local\n",
		"job.sql": "-- Generated by ptfsh export flink from the script's SELECTs of Greeting, as the tests run them.\n" +
			"-- Run from this folder, after mvn package: sql-client.sh -j target/greeting-flink-1.0-SNAPSHOT.jar -f job.sql\n" +
			"-- (without a Flink distribution: see sql-client/pom.xml)\n" +
			"SET 'execution.runtime-mode' = 'streaming';\nSET 'parallelism.default' = '1';\nSET 'table.local-time-zone' = 'UTC';\n" +
			"SET 'pipeline.auto-watermark-interval' = '0 ms';\nSET 'sql-client.execution.result-mode' = 'tableau';\n" +
			"CREATE TEMPORARY SYSTEM FUNCTION `Greeting` AS 'ptfsh.flink.Greeting';\n" +
			"CREATE VIEW v(name) AS VALUES ('Bob');\nSELECT * FROM Greeting(input => TABLE v);\n",
	} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	clientPom, err := os.ReadFile(filepath.Join(dir, "sql-client/pom.xml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"-j target/greeting-flink-1.0-SNAPSHOT.jar -f job.sql", "<artifactId>flink-sql-client</artifactId>",
		"<artifactId>flink-sql-gateway</artifactId>", "<artifactId>flink-python</artifactId>", "<artifactId>flink-json</artifactId>"} {
		if !strings.Contains(string(clientPom), want) {
			t.Errorf("sql-client/pom.xml lacks %q:\n%s", want, clientPom)
		}
	}
	for _, name := range []string{"pom.xml", "src/main/java/ptfsh/flink/JsFunction.java", "src/main/java/ptfsh/flink/Greeting.java", "src/test/java/ptfsh/flink/ExportedCasesTest.java"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
}
