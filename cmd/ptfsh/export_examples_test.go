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
	"CheckoutProcessor (checkout_processor.sql)",
	"CustomAggregation (custom_aggregation.sql)",
	"DelayStreak (flights.sql)",
	"Greeting (quickstart.sql)",
	"GreetingWithFollowUp (greeting_with_follow_up.sql)",
	"GreetingWithMemory (quickstart.sql)",
	"NoDepartureAlert (flights.sql)",
	"OrderedProcessor (ordered_processor.sql)",
	"PingLater (ping_later.sql)",
	"SecondEvent (second_event.sql)",
	"TableFilter (quickstart.sql)",
	"ToChangelogFunction (to_changelog_function.sql)",
	"TypedState (typed_state.sql)",
	"ValueKinds (values.sql)",
	"ViewState (views.sql)",
	"count_clicks (quickstart.sql)",
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
	var exported, refused []string
	root := t.TempDir()
	var projects []exportedProject
	for i, p := range pairs {
		label := p.name + " (" + filepath.Base(p.script) + ")"
		proj := filepath.Join(root, fmt.Sprint(i))
		var out, errb bytes.Buffer
		code := run([]string{"export", "flink", p.js, "--script", p.script, "-o", proj}, nil, &out, &errb)
		if code != 0 {
			msg := strings.TrimSpace(errb.String())
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
		exported = append(exported, label)
		projects = append(projects, exportedProject{dir: proj, prefix: fmt.Sprintf("p%02d_", i), cases: names})
	}
	sort.Strings(exported)
	if got, want := strings.Join(exported, "\n"), strings.Join(exportedExamples, "\n"); got != want {
		t.Errorf("exported with cases:\n%s\nwant:\n%s", got, want)
	}
	t.Logf("refused:\n%s", strings.Join(refused, "\n"))
	if os.Getenv("PTFSH_FLINK") == "" {
		t.Skip("runs Maven and a Flink mini cluster: set PTFSH_FLINK=1")
	}
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		t.Skip("mvn is not on PATH")
	}
	// Projects merge into one Maven project (one build, one JVM) unless
	// two of them have a class of one name (two scripts export different
	// files under one function name): then a second project, and so on.
	var batches [][]exportedProject
	for _, p := range projects {
		placed := false
		for i, b := range batches {
			if !classClash(t, b, p) {
				batches[i] = append(b, p)
				placed = true
				break
			}
		}
		if !placed {
			batches = append(batches, []exportedProject{p})
		}
	}
	for i, b := range batches {
		merged := filepath.Join(root, fmt.Sprintf("merged%d", i))
		n := mergeProjects(t, b, merged, i == 0)
		start := time.Now()
		cmd := exec.Command(mvn, "-B", "-q", "test")
		cmd.Dir = merged
		out, err := cmd.CombinedOutput()
		t.Logf("project %d: mvn test: %d cases in %s", i, n, time.Since(start).Round(time.Second))
		failed, total := surefireFailures(t, merged)
		want := []string{}
		if i == 0 {
			want = []string{"planted"}
		}
		if total != n || strings.Join(failed, ",") != strings.Join(want, ",") || (err == nil) != (len(want) == 0) {
			t.Errorf("project %d: mvn -B -q test: %v; %d of %d cases ran; failed %q, want %q\n%s", i, err, total, n, failed, want, tail(string(out), 8000))
		}
	}
}

type exportedProject struct {
	dir, prefix string
	cases       []string
}

// classClash reports whether p has a Java class or script that a project
// of b has with other content.
func classClash(t *testing.T, b []exportedProject, p exportedProject) bool {
	files := func(dir string) map[string]string {
		m := map[string]string{}
		for _, sub := range []string{"src/main/java/ptfsh/flink", "src/main/resources/ptfsh"} {
			ents, _ := os.ReadDir(filepath.Join(dir, sub))
			for _, e := range ents {
				if e.Name() == "register.sql" {
					continue
				}
				c, err := os.ReadFile(filepath.Join(dir, sub, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				m[sub+"/"+e.Name()] = string(c)
			}
		}
		return m
	}
	mine := files(p.dir)
	for _, q := range b {
		for name, c := range files(q.dir) {
			if m, ok := mine[name]; ok && m != c {
				return true
			}
		}
	}
	return false
}

// mergeProjects writes one Maven project into merged with the classes,
// scripts, registrations, data and cases (renamed by prefix) of ps, and
// the connectors of their poms; plant adds a case "planted": the first
// case with a row ptfsh did not give, which must fail. It returns the
// number of cases.
func mergeProjects(t *testing.T, ps []exportedProject, merged string, plant bool) int {
	provided := map[string]bool{}
	var index, regs []string
	seen := map[string]bool{}
	casesOut := filepath.Join(merged, "src/test/resources/ptfsh/cases")
	for _, p := range ps {
		for _, sub := range []string{"src/main/java", "src/main/resources/ptfsh", "data"} {
			copyTree(t, filepath.Join(p.dir, sub), filepath.Join(merged, sub), func(name string) bool {
				return name != "register.sql"
			})
		}
		reg, err := os.ReadFile(filepath.Join(p.dir, "src/main/resources/ptfsh/register.sql"))
		if err != nil {
			t.Fatal(err)
		}
		if !seen[string(reg)] {
			seen[string(reg)] = true
			regs = append(regs, string(reg))
		}
		for _, n := range p.cases {
			for _, ext := range []string{".sql", ".out"} {
				b, err := os.ReadFile(filepath.Join(p.dir, "src/test/resources/ptfsh/cases", n+ext))
				if err != nil {
					t.Fatal(err)
				}
				writeFile(t, filepath.Join(casesOut, p.prefix+n+ext), string(b))
			}
			index = append(index, p.prefix+n)
		}
		pom, err := os.ReadFile(filepath.Join(p.dir, "pom.xml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range providedRE.FindAllStringSubmatch(string(pom), -1) {
			provided[m[1]] = true
		}
		if _, err := os.Stat(filepath.Join(merged, "pom.xml")); err != nil {
			copyTree(t, filepath.Join(p.dir, "src/test/java"), filepath.Join(merged, "src/test/java"), nil)
			writeFile(t, filepath.Join(merged, "pom.xml"), providedRE.ReplaceAllString(string(pom), ""))
		}
	}
	writeFile(t, filepath.Join(merged, "src/main/resources/ptfsh/register.sql"), strings.Join(regs, ""))
	if plant {
		first := index[0]
		for _, ext := range []string{".sql", ".out"} {
			b, err := os.ReadFile(filepath.Join(casesOut, first+ext))
			if err != nil {
				t.Fatal(err)
			}
			if ext == ".out" {
				b = append(b, "+I[a row ptfsh did not give]\n"...)
			}
			writeFile(t, filepath.Join(casesOut, "planted"+ext), string(b))
		}
		index = append(index, "planted")
	}
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
	pom, err := os.ReadFile(filepath.Join(merged, "pom.xml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(merged, "pom.xml"), strings.Replace(string(pom), "  </dependencies>", deps.String()+"  </dependencies>", 1))
	return len(index)
}

var providedRE = regexp.MustCompile(`(?s)\n?\s*<!-- The script's tables use it[^>]*-->\s*<dependency>\s*<groupId>org.apache.flink</groupId>\s*<artifactId>([a-z-]+)</artifactId>.*?</dependency>`)

// surefireFailures returns the names of the failed cases in the
// project's surefire reports (ExportedCasesTest starts each failure's
// message with the case's name), and the number of cases run.
func surefireFailures(t *testing.T, proj string) ([]string, int) {
	reports, _ := filepath.Glob(filepath.Join(proj, "target/surefire-reports/TEST-*.xml"))
	if len(reports) == 0 {
		t.Errorf("no surefire report in %s", proj)
		return nil, 0
	}
	type problem struct {
		Message string `xml:"message,attr"`
	}
	var failed []string
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
				failed = append(failed, name)
			}
		}
	}
	sort.Strings(failed)
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
