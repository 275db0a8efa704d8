package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/internal/testarchive"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// exportPair is a function file and a script that creates it.
type exportPair struct{ js, script, name string }

// exportPairs lists, for each script of dirs, the functions it creates
// from a file.
func exportPairs(t *testing.T, dirs ...string) []exportPair {
	var pairs []exportPair
	for _, dir := range dirs {
		scripts, _ := filepath.Glob(filepath.Join(dir, "*.sql"))
		for _, sql := range scripts {
			src, err := os.ReadFile(sql)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range sqlmini.ParseEach(sql, string(src)) {
				if p.Err != nil || p.Stmt.Create == nil || p.Stmt.Create.Function == nil || p.Stmt.Create.Function.Path == nil {
					continue
				}
				f := p.Stmt.Create.Function
				js := filepath.Join(filepath.Dir(sql), string(*f.Path))
				pairs = append(pairs, exportPair{js: js, script: sql, name: string(f.Name.Value)})
			}
		}
	}
	return pairs
}

// exportedExamples are the example functions that must export (with the
// script named) and give a case; the rest are refused for a feature the
// bridge lacks.
var exportedExamples = []string{
	"ChangelogFn (changelog_fn.sql)",
	"CheckoutProcessor (checkout_processor.sql)",
	"CustomAggregation (custom_aggregation.sql)",
	"DelayStreak (flights.sql)",
	"Greeting (quickstart.sql)",
	"GreetingWithFollowUp (greeting_with_follow_up.sql)",
	"GreetingWithMemory (quickstart.sql)",
	"Label (scalar.sql)",
	"NoDepartureAlert (flights.sql)",
	"OrderedProcessor (ordered_processor.sql)",
	"PingLater (ping_later.sql)",
	"Rate (scalar.sql)",
	"ReservedNames (reserved_names.sql)",
	"SecondEvent (second_event.sql)",
	"TableFilter (quickstart.sql)",
	"ToChangelogFunction (to_changelog_function.sql)",
	"TypedState (typed_state.sql)",
	"ValueKinds (values.sql)",
	"ViewRows (view_rows.sql)",
	"ViewState (views.sql)",
	"WindowSpikes (window_spikes.sql)",
	"count_clicks (quickstart.sql)",
	"count_clicks (sql_around_functions.sql)",
	"long_views (quickstart.sql)",
}

// translatedExamples are those of exportedExamples that export translated
// into Java; the others run in GraalJS (the export's note says why).
var translatedExamples = []string{
	"DelayStreak (flights.sql)",
	"Greeting (quickstart.sql)",
	"GreetingWithFollowUp (greeting_with_follow_up.sql)",
	"GreetingWithMemory (quickstart.sql)",
	"NoDepartureAlert (flights.sql)",
	"OrderedProcessor (ordered_processor.sql)",
	"PingLater (ping_later.sql)",
	"ReservedNames (reserved_names.sql)",
	"TableFilter (quickstart.sql)",
	"WindowSpikes (window_spikes.sql)",
	"count_clicks (quickstart.sql)",
	"count_clicks (sql_around_functions.sql)",
	"long_views (quickstart.sql)",
}

// TestRunExport_flinkExamples exports every function of every example
// script (and of testdata/flink, for functions whose example script has
// nothing Flink can run as ptfsh does), merges the projects into one
// Maven project (one build, one JVM), and runs every case on a Flink 2.3
// mini cluster: Flink's rows must be ptfsh's, as multisets. A planted
// case with a wrong row must fail, so that a comparison that passes
// vacuously is caught. Opt-in: PTFSH_FLINK=1 (.ci/run sets it when mvn
// is installed).
func TestRunExport_flinkExamples(t *testing.T) {
	pairs := exportPairs(t, "../../examples", "testdata/flink")
	var exported, refused, translated []string
	root := t.TempDir()
	conf := conformancePairs(t, filepath.Join(root, "conformance"))
	conformance := map[exportPair]bool{}
	for _, p := range conf {
		conformance[p] = true
	}
	pairs = append(pairs, conf...)
	var projects []exportedProject
	var confExported, confFailed []string
	for i, p := range pairs {
		label := p.name + " (" + filepath.Base(p.script) + ")"
		if conformance[p] {
			label = p.name + " (" + filepath.Base(filepath.Dir(p.script)) + ".txtar)"
		}
		proj := filepath.Join(root, fmt.Sprint(i))
		var out, errb bytes.Buffer
		code := run([]string{"export", "flink", p.js, "--script", p.script, "-o", proj}, nil, &out, &errb)
		if code != 0 {
			msg := strings.TrimSpace(errb.String())
			if conformance[p] && !strings.Contains(msg, "export flink: ") {
				// The archive's script fails in ptfsh (on purpose, as
				// many conformance archives do): nothing to export.
				confFailed = append(confFailed, label)
				continue
			}
			if !strings.Contains(msg, "is not supported yet") && !strings.Contains(msg, "does not carry yet") {
				t.Errorf("%s: export failed: %s", label, msg)
				continue
			}
			refused = append(refused, label+": "+msg[strings.LastIndex(msg, "export flink: ")+len("export flink: "):])
			continue
		}
		idx, err := os.ReadFile(filepath.Join(proj, "src/test/resources/ptfsh/cases/index.txt"))
		if err != nil {
			t.Fatal(err)
		}
		names := strings.Fields(string(idx))
		if len(names) == 0 {
			t.Logf("%s: exports, but its script gives Flink no case", label)
			continue
		}
		if conformance[p] {
			confExported = append(confExported, label)
		} else {
			exported = append(exported, label)
		}
		projects = append(projects, exportedProject{dir: proj, prefix: fmt.Sprintf("p%02d_", i), cases: names, label: label})
		if _, err := os.Stat(filepath.Join(proj, "src/main/java/ptfsh/flink/JsRt.java")); err != nil {
			continue
		}
		// Translated into Java: the same cases run in GraalJS too.
		if !conformance[p] {
			translated = append(translated, label)
		}
		graal := proj + "g"
		if code := run([]string{"export", "flink", p.js, "--script", p.script, "-o", graal, "--graaljs"}, nil, &out, &errb); code != 0 {
			t.Errorf("%s: export --graaljs failed: %s", label, errb.String())
			continue
		}
		projects = append(projects, exportedProject{dir: graal, prefix: fmt.Sprintf("g%02d_", i), cases: names, label: label + " --graaljs"})
	}
	sort.Strings(exported)
	if got, want := strings.Join(exported, "\n"), strings.Join(exportedExamples, "\n"); got != want {
		t.Errorf("exported with cases:\n%s\nwant:\n%s", got, want)
	}
	sort.Strings(translated)
	if got, want := strings.Join(translated, "\n"), strings.Join(translatedExamples, "\n"); got != want {
		t.Errorf("translated into Java:\n%s\nwant:\n%s", got, want)
	}
	t.Logf("refused:\n%s", strings.Join(refused, "\n"))
	t.Logf("conformance archives exported with cases (%d): %s", len(confExported), strings.Join(confExported, ", "))
	t.Logf("conformance archives whose script fails in ptfsh (%d): %s", len(confFailed), strings.Join(confFailed, ", "))
	if len(confExported) < 20 {
		t.Errorf("only %d conformance archives export with cases", len(confExported))
	}
	if os.Getenv("PTFSH_FLINK") == "" {
		t.Skip("runs Maven and a Flink mini cluster: set PTFSH_FLINK=1")
	}
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		t.Skip("mvn is not on PATH")
	}
	// The projects merge into one Maven project (one build, one JVM); each
	// function's class gets the project's prefix, and each case registers
	// its own function (scripts export different files under one name).
	var labels []string
	for _, p := range projects {
		labels = append(labels, p.prefix+": "+p.label)
	}
	t.Logf("cases by prefix: %s", strings.Join(labels, ", "))
	// refused.js: its case as it is, and variants that must fail on Flink
	// as they fail in ptfsh (mustFail).
	refusedDir := filepath.Join(root, "refused")
	var rout, rerr bytes.Buffer
	if code := run([]string{"export", "flink", "testdata/flink/refused/refused.js", "--script", "testdata/flink/refused/refused.sql", "-o", refusedDir}, nil, &rout, &rerr); code != 0 {
		t.Fatalf("export refused.js: %s", rerr.String())
	}
	projects = append(projects, exportedProject{dir: refusedDir, prefix: "rf_", cases: []string{"case01"}, label: "Refused (refused.sql)"})
	merged := filepath.Join(root, "merged")
	n := mergeProjects(t, projects, merged)
	n += addMustFail(t, merged, "rf_case01")
	start := time.Now()
	cmd := exec.Command(mvn, "-B", "-q", "test")
	cmd.Dir = merged
	out, err := cmd.CombinedOutput()
	t.Logf("mvn test: %d cases in %s", n, time.Since(start).Round(time.Second))
	failed, total := surefireFailures(t, merged)
	known := map[string]string{}
	for _, p := range projects {
		if why, ok := knownDifferences[p.label]; ok {
			for _, c := range p.cases {
				known[p.prefix+c] = p.label + ": " + why
			}
		}
	}
	planted := false
	failedAsInPtfsh := map[string]bool{}
	for name, msg := range failed {
		switch {
		case name == "planted":
			planted = true
		case mustFail[name] != "":
			if !strings.Contains(msg, mustFail[name]) {
				t.Errorf("%s fails on Flink, but not with %q:\n%s", name, mustFail[name], msg)
			}
			failedAsInPtfsh[name] = true
		case known[name] != "":
			t.Logf("%s fails on Flink, a known difference: %s", name, known[name])
		default:
			t.Errorf("%s fails on Flink:\n%s", name, msg)
		}
	}
	for name, want := range mustFail {
		if !failedAsInPtfsh[name] {
			t.Errorf("%s passes on Flink; it must fail with %q, as in ptfsh", name, want)
		}
	}
	if total != n || !planted || err == nil {
		t.Errorf("mvn -B -q test: %v; %d of %d cases ran; the planted case failed: %v\n%s", err, total, n, planted, tail(string(out), 4000))
	}
}

// mustFail are the variants of refused.js's case (its mode argument
// replaced) that must fail on Flink with ptfsh's message, as they fail in
// ptfsh (tests/testdata/state/typed_state_checked.txtar,
// tests/testdata/time/ontimer_args.txtar, tests/testdata/core/row_unknown_column.txtar).
var mustFail = map[string]string{
	"rf_wrong":  `state s (ROW<` + "`n`" + ` BIGINT, ` + "`note`" + ` STRING>): field "n" is BIGINT: cannot use "two" (string)`,
	"rf_extra":  `field "nte" is not declared (the type has n, note)`,
	"rf_timer":  `args.mode: onTimer gets no scalar arguments`,
	"rf_column": `the row has no column "vv" (its columns: k, v, ts)`,
}

// addMustFail adds to the merged project a case per mustFail entry: base
// with its mode 'ok' replaced by the entry's. It returns the number added.
func addMustFail(t *testing.T, merged, base string) int {
	dir := filepath.Join(merged, "src/test/resources/ptfsh/cases")
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	sql := read(base + ".sql")
	if !strings.Contains(sql, "mode => 'ok'") {
		t.Fatalf("%s.sql has no mode => 'ok': %s", base, sql)
	}
	var names []string
	for name := range mustFail {
		mode := strings.TrimPrefix(name, "rf_")
		writeFile(t, filepath.Join(dir, name+".sql"), strings.Replace(sql, "mode => 'ok'", "mode => '"+mode+"'", 1))
		writeFile(t, filepath.Join(dir, name+".out"), read(base+".out"))
		writeFile(t, filepath.Join(dir, name+".register.sql"), read(base+".register.sql"))
		names = append(names, name)
	}
	sort.Strings(names)
	writeFile(t, filepath.Join(dir, "index.txt"), read("index.txt")+strings.Join(names, "\n")+"\n")
	return len(names)
}

// knownDifferences are the conformance archives whose rows on Flink differ
// from ptfsh's for a reason outside the bridge, with the reason.
var knownDifferences = map[string]string{}

func init() {
	const epoch = "its rows are near 1970-01-01: Flink's SQL watermark assigner (for a source without watermark push-down, as the filesystem connector the case reads) starts at 0 and emits no watermark <= 0, where ptfsh (and the source of Flink's own test) emits -1 and 0"
	for _, a := range []string{"process_late_events", "process_named_timers", "process_optional_partition_by_time",
		"process_order_by", "process_pojo_state_time", "process_time_conversions"} {
		knownDifferences["f ("+a+".txtar)"] = epoch
	}
	// Both cases are master-only: Flink 2.3.0 fails on the view's
	// multi-column PARTITION BY ("Column 'test_name' not found in any
	// table"), which FLINK-40205 fixed after the 2.3 branch point. The
	// view's query itself gives Flink 2.3.0 the rows ptfsh has.
	const multiPartition = "master-only (FLINK-40205): Flink 2.3.0 cannot resolve a view's multi-column PARTITION BY (suite_name, test_name)"
	knownDifferences["f (process_multi_partition_by.txtar)"] = multiPartition
	knownDifferences["f (process_multi_partition_by_and_order_by.txtar)"] = multiPartition
}

// conformancePairs extracts the conformance archives of tests/testdata
// (but those that restore a savepoint: a case runs on a fresh Flink job)
// under dir, each with its query.sql, and lists the functions their
// scripts create.
func conformancePairs(t *testing.T, dir string) []exportPair {
	files, _ := filepath.Glob("../../tests/testdata/conformance/*.txtar")
	var pairs []exportPair
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".txtar")
		if strings.Contains(name, "restore") {
			continue
		}
		ar, err := testarchive.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		d := filepath.Join(dir, name)
		if err := ar.Extract(d); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(d, "query.sql"), ar.Query)
		pairs = append(pairs, exportPairs(t, d)...)
	}
	return pairs
}

type exportedProject struct {
	dir, prefix, label string
	cases              []string
}

// mergeProjects writes one Maven project into merged with the classes
// (renamed: the prefix added to each), scripts, data and cases (renamed
// by prefix, each with its registration) of ps, and the connectors of
// their poms; a case "planted", the first case with a row ptfsh did not
// give, must fail. It returns the number of cases.
func mergeProjects(t *testing.T, ps []exportedProject, merged string) int {
	provided := map[string]bool{}
	var index []string
	casesOut := filepath.Join(merged, "src/test/resources/ptfsh/cases")
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, p := range ps {
		javaDir := filepath.Join(p.dir, "src/main/java/ptfsh/flink")
		ents, err := os.ReadDir(javaDir)
		if err != nil {
			t.Fatal(err)
		}
		cls := ""
		for _, e := range ents {
			if n := strings.TrimSuffix(e.Name(), ".java"); n != "JsFunction" && n != "JsRt" {
				cls = n
			}
		}
		if rt, err := os.ReadFile(filepath.Join(javaDir, "JsRt.java")); err == nil {
			writeFile(t, filepath.Join(merged, "src/main/java/ptfsh/flink/JsRt.java"), string(rt))
		}
		renamed := cls + "_" + strings.TrimSuffix(p.prefix, "_")
		java := read(filepath.Join(javaDir, cls+".java"))
		java = strings.Replace(java, "public class "+cls+" extends", "public class "+renamed+" extends", 1)
		java = strings.ReplaceAll(java, `"/ptfsh/`+cls+`.js"`, `"/ptfsh/`+renamed+`.js"`)
		writeFile(t, filepath.Join(merged, "src/main/java/ptfsh/flink", renamed+".java"), java)
		writeFile(t, filepath.Join(merged, "src/main/java/ptfsh/flink/JsFunction.java"), read(filepath.Join(javaDir, "JsFunction.java")))
		writeFile(t, filepath.Join(merged, "src/main/resources/ptfsh", renamed+".js"), read(filepath.Join(p.dir, "src/main/resources/ptfsh", cls+".js")))
		reg := strings.Replace(read(filepath.Join(p.dir, "src/main/resources/ptfsh/register.sql")), "'ptfsh.flink."+cls+"'", "'ptfsh.flink."+renamed+"'", 1)
		// Data files get the prefix too (two scripts may name a table alike).
		copyTree(t, filepath.Join(p.dir, "data"), filepath.Join(merged, "data", strings.TrimSuffix(p.prefix, "_")), nil)
		for _, n := range p.cases {
			for _, ext := range []string{".sql", ".out"} {
				c := read(filepath.Join(p.dir, "src/test/resources/ptfsh/cases", n+ext))
				if ext == ".sql" {
					c = strings.ReplaceAll(c, "'path' = 'data/", "'path' = 'data/"+strings.TrimSuffix(p.prefix, "_")+"/")
				}
				writeFile(t, filepath.Join(casesOut, p.prefix+n+ext), c)
			}
			writeFile(t, filepath.Join(casesOut, p.prefix+n+".register.sql"), reg)
			index = append(index, p.prefix+n)
		}
		pom := read(filepath.Join(p.dir, "pom.xml"))
		for _, m := range providedRE.FindAllStringSubmatch(pom, -1) {
			provided[m[1]] = true
		}
		if _, err := os.Stat(filepath.Join(merged, "pom.xml")); err != nil {
			copyTree(t, filepath.Join(p.dir, "src/test/java"), filepath.Join(merged, "src/test/java"), nil)
			writeFile(t, filepath.Join(merged, "pom.xml"), providedRE.ReplaceAllString(pom, ""))
		}
	}
	first := index[0]
	for _, ext := range []string{".sql", ".out", ".register.sql"} {
		b := read(filepath.Join(casesOut, first+ext))
		if ext == ".out" {
			b += "+I[a row ptfsh did not give]\n"
		}
		writeFile(t, filepath.Join(casesOut, "planted"+ext), b)
	}
	index = append(index, "planted")
	writeFile(t, filepath.Join(casesOut, "index.txt"), strings.Join(index, "\n")+"\n")
	var deps strings.Builder
	var arts []string
	for a := range provided {
		arts = append(arts, a)
	}
	sort.Strings(arts)
	for _, a := range arts {
		fmt.Fprintf(&deps, "    <dependency>\n      <groupId>org.apache.flink</groupId>\n      <artifactId>%s</artifactId>\n      <version>${flink.version}</version>\n      <scope>provided</scope>\n    </dependency>\n", a)
	}
	pom := read(filepath.Join(merged, "pom.xml"))
	writeFile(t, filepath.Join(merged, "pom.xml"), strings.Replace(pom, "  </dependencies>", deps.String()+"  </dependencies>", 1))
	return len(index)
}

var providedRE = regexp.MustCompile(`(?s)\n?\s*<!-- The script's tables use it[^>]*-->\s*<dependency>\s*<groupId>org.apache.flink</groupId>\s*<artifactId>([a-z-]+)</artifactId>.*?</dependency>`)

// surefireFailures returns the failed cases in the project's surefire
// reports, by name (ExportedCasesTest starts each failure's message with
// the case's name) with the failure's text, and the number of cases run.
func surefireFailures(t *testing.T, proj string) (map[string]string, int) {
	reports, _ := filepath.Glob(filepath.Join(proj, "target/surefire-reports/TEST-*.xml"))
	if len(reports) == 0 {
		t.Errorf("no surefire report in %s", proj)
		return nil, 0
	}
	type problem struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
	failed := map[string]string{}
	total := 0
	for _, r := range reports {
		b, err := os.ReadFile(r)
		if err != nil {
			t.Fatal(err)
		}
		var suite struct {
			Cases []struct {
				Failure *problem `xml:"failure"`
				Error   *problem `xml:"error"`
			} `xml:"testcase"`
		}
		if err := xml.Unmarshal(b, &suite); err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		for _, c := range suite.Cases {
			total++
			p := c.Failure
			if p == nil {
				p = c.Error
			}
			if p != nil {
				name, _, _ := strings.Cut(p.Message, ":")
				var causes []string
				for _, l := range strings.Split(p.Text, "\n") {
					if strings.HasPrefix(l, "Caused by") {
						causes = append(causes, l)
					}
				}
				failed[name] = tail(p.Message, 3000) + "\n" + strings.Join(causes, "\n")
			}
		}
	}
	return failed, total
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyTree copies the files under src (if any) to dst, those whose base
// name keep accepts (nil: all).
func copyTree(t *testing.T, src, dst string, keep func(string) bool) {
	t.Helper()
	err := filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if os.IsNotExist(err) && path == src {
			return filepath.SkipDir
		}
		if err != nil || info.IsDir() || keep != nil && !keep(info.Name()) {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		writeFile(t, filepath.Join(dst, rel), string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
