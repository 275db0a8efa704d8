package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// sqlClientExports are the exported scripts whose job.sql runs in Flink's
// SQL client in TestRunExport_flinkSQLClient: a view and set semantics
// (quickstart), a JSON data file with a watermark and timers (flights), an
// updating input whose -U/+U rows the client prints (to_changelog_function),
// and a table of TIMESTAMP_LTZ with on_time (ping_later).
var sqlClientExports = []exportPair{
	{js: "../../examples/greeting_with_memory.js", script: "../../examples/quickstart.sql"},
	{js: "../../examples/no_departure_alert.js", script: "../../examples/flights.sql"},
	{js: "../../examples/to_changelog_function.js", script: "../../examples/to_changelog_function.sql"},
	{js: "../../examples/ping_later.js", script: "testdata/flink/ping_later.sql"},
}

// TestRunExport_flinkSQLClient exports each of sqlClientExports, builds its
// jar (mvn package) and runs its job.sql in Flink 2.3's SQL client, as the
// docs/flink.md says (sql-client/pom.xml: the client from Maven artifacts on a
// local mini cluster); ptfsh runs the same job.sql (its registration of the
// Java class replaced by the JS file's). The client must run every
// statement, and each result it prints must hold ptfsh's rows, as a
// multiset. Opt-in: PTFSH_FLINK=1; PTFSH_SQLCLIENT=all runs every
// function of every example script (and of testdata/flink) that exports
// with a case, about 25 s each.
func TestRunExport_flinkSQLClient(t *testing.T) {
	if os.Getenv("PTFSH_FLINK") == "" {
		t.Skip("runs Maven and Flink's SQL client: set PTFSH_FLINK=1")
	}
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		t.Skip("mvn is not on PATH")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("java is not on PATH")
	}
	root := t.TempDir()
	pairs := sqlClientExports
	if os.Getenv("PTFSH_SQLCLIENT") == "all" {
		pairs = exportPairs(t, "../../examples", "testdata/flink")
	}
	for i, p := range pairs {
		label := filepath.Base(p.js) + " (" + filepath.Base(p.script) + ")"
		proj := filepath.Join(root, fmt.Sprint(i))
		var out, errb bytes.Buffer
		if code := run([]string{"export", "flink", p.js, "--script", p.script, "-o", proj}, nil, &out, &errb); code != 0 {
			if len(pairs) != len(sqlClientExports) {
				t.Logf("%s: does not export", label)
				continue
			}
			t.Fatalf("%s: export: %s", label, errb.String())
		}
		if idx, _ := os.ReadFile(filepath.Join(proj, "src/test/resources/ptfsh/cases/index.txt")); len(idx) == 0 {
			t.Logf("%s: exports no case", label)
			continue
		}
		job, err := os.ReadFile(filepath.Join(proj, "job.sql"))
		if err != nil {
			t.Fatal(err)
		}
		jar := jobJarRE.FindStringSubmatch(string(job))
		if jar == nil {
			t.Fatalf("%s: job.sql names no jar:\n%s", label, job)
		}
		// ptfsh's rows: job.sql itself, the function registered from its
		// file and the Flink-only setting left out.
		js, err := filepath.Abs(p.js)
		if err != nil {
			t.Fatal(err)
		}
		ptfshJob := registerRE.ReplaceAllString(string(job), "CREATE FUNCTION $1 AS '"+strings.ReplaceAll(js, "'", "''")+"';")
		ptfshJob = strings.Replace(ptfshJob, "SET 'pipeline.auto-watermark-interval' = '0 ms';\n", "", 1)
		if ptfshJob == string(job) {
			t.Fatalf("%s: job.sql has no registration to replace:\n%s", label, job)
		}
		writeFile(t, filepath.Join(proj, "ptfsh-job.sql"), ptfshJob)
		out.Reset()
		errb.Reset()
		if code := run([]string{"-f", filepath.Join(proj, "ptfsh-job.sql"), "--format", "tableau"}, nil, &out, &errb); code != 0 {
			t.Errorf("%s: ptfsh -f job.sql: %s", label, errb.String())
			continue
		}
		want := tableauResults(out.String())
		n := len(want)
		if n == 0 || len(want[0].rows) == 0 {
			t.Errorf("%s: ptfsh printed no result, or no row in its first:\n%s", label, out.String())
			continue
		}
		// The commands of docs/flink.md, job.sql in Flink's SQL client.
		start := time.Now()
		for _, args := range [][]string{
			{mvn, "-B", "-q", "package", "-DskipTests"},
			{mvn, "-B", "-q", "-f", "sql-client/pom.xml", "dependency:build-classpath", "-Dmdep.outputFile=classpath.txt"},
		} {
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Dir = proj
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %s: %v\n%s", label, strings.Join(args[1:], " "), err, tail(string(b), 4000))
			}
		}
		built := time.Since(start)
		cp, err := os.ReadFile(filepath.Join(proj, "sql-client/classpath.txt"))
		if err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(java, "-cp", strings.TrimSpace(string(cp)), "org.apache.flink.table.client.SqlClient",
			"-j", jar[1], "-f", "job.sql", "-hist", filepath.Join(root, "history"))
		cmd.Dir = proj
		cmd.Env = append(os.Environ(), "FLINK_CONF_DIR=sql-client")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start = time.Now()
		err = cmd.Run()
		t.Logf("%s: mvn package and classpath %s, SQL client %s, %d results", label, built.Round(time.Second), time.Since(start).Round(time.Second), n)
		client := stdout.String()
		// The client reports a failing statement and stops, exit code 0.
		if err != nil || strings.Contains(client, "[ERROR]") {
			t.Errorf("%s: SQL client: %v\n%s\n%s", label, err, tail(client, 4000), tail(stderr.String(), 2000))
			continue
		}
		got := tableauResults(client)
		if msg := compareResults(got, want); msg != "" {
			t.Errorf("%s: the SQL client's rows are not ptfsh's: %s\nSQL client:\n%s\nptfsh:\n%s", label, msg, tail(client, 6000), out.String())
		}
		// A planted difference, ptfsh's first row dropped, must be seen.
		planted := append([]tableauResult(nil), want...)
		planted[0].rows = planted[0].rows[1:]
		if compareResults(got, planted) == "" {
			t.Errorf("%s: a missing row is not seen", label)
		}
	}
}

// jobJarRE finds the jar that job.sql's comment names; registerRE its
// registration of the Java class.
var (
	jobJarRE   = regexp.MustCompile(`sql-client\.sh -j (target/\S+\.jar) -f job\.sql`)
	registerRE = regexp.MustCompile("(?m)^CREATE TEMPORARY SYSTEM FUNCTION (`(?:[^`]|``)*`) AS '[^']*';$")
)

// tableauResult is one result printed in tableau form: its header and
// its rows, each as its cells without the padding.
type tableauResult struct {
	header string
	rows   []string
}

// tableauResults reads the results of a script's output in tableau form,
// as Flink's SQL client and ptfsh print them: a header line with an op
// column, then a line per row, "| +I | a | b |". Other lines (borders,
// counts, prompts, echoed statements) are skipped; a header may follow a
// prompt on its line, as the client prints it after the statement.
func tableauResults(out string) []tableauResult {
	var rs []tableauResult
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, " \r")
		if i := strings.Index(line, "| op |"); i >= 0 {
			rs = append(rs, tableauResult{header: tableauCells(line[i:])})
			continue
		}
		if len(rs) == 0 || !tableauRowRE.MatchString(line) {
			continue
		}
		rs[len(rs)-1].rows = append(rs[len(rs)-1].rows, tableauCells(line))
	}
	return rs
}

var tableauRowRE = regexp.MustCompile(`^\| [+-][IUD] \|.*\|$`)

func tableauCells(line string) string {
	cells := strings.Split(strings.Trim(line, "|"), "|")
	for i, c := range cells {
		cells[i] = strings.TrimSpace(c)
	}
	return strings.Join(cells, " | ")
}

// compareResults says how got differs from want, result by result (the
// rows of each as a multiset), or "" when they agree.
func compareResults(got, want []tableauResult) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d results, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].header != want[i].header {
			return fmt.Sprintf("result %d: columns %q, want %q", i+1, got[i].header, want[i].header)
		}
		g := append([]string(nil), got[i].rows...)
		w := append([]string(nil), want[i].rows...)
		sort.Strings(g)
		sort.Strings(w)
		if strings.Join(g, "\n") != strings.Join(w, "\n") {
			return fmt.Sprintf("result %d (%s): rows\n%s\nwant\n%s", i+1, want[i].header, strings.Join(g, "\n"), strings.Join(w, "\n"))
		}
	}
	return ""
}

// TestCompareResults checks the comparison of the SQL client's output
// with ptfsh's on outputs as each prints them: rows in another order
// agree; a changed, missing or extra row, or a missing result, does not.
func TestCompareResults(t *testing.T) {
	client := "Flink SQL> SELECT * FROM f(TABLE t PARTITION BY name)+----+-------+-------------+\n" +
		"| op |  name |           n |\n+----+-------+-------------+\n" +
		"| +I |   Bob |           1 |\n| +I | Alice |           1 |\n| -U |   Bob |           1 |\n| +U |   Bob |           2 |\n" +
		"+----+-------+-------------+\nReceived a total of 4 rows (2.86 seconds)\n\nFlink SQL> \nShutting down the session...\n"
	ptfsh := "+----+-------+-------------+\n| op |  name |           n |\n+----+-------+-------------+\n" +
		"| +I | Alice |           1 |\n| +I |   Bob |           1 |\n| -U |   Bob |           1 |\n| +U |   Bob |           2 |\n" +
		"+----+-------+-------------+\n4 rows in set\n"
	got, want := tableauResults(client), tableauResults(ptfsh)
	if len(got) != 1 || len(got[0].rows) != 4 || got[0].header != "op | name | n" || got[0].rows[3] != "+U | Bob | 2" {
		t.Fatalf("tableauResults = %q", got)
	}
	if msg := compareResults(got, want); msg != "" {
		t.Errorf("the same rows in another order differ: %s", msg)
	}
	for name, bad := range map[string]string{
		"a changed row":  strings.Replace(ptfsh, "|           2 |", "|           3 |", 1),
		"a changed kind": strings.Replace(ptfsh, "| +U |", "| +I |", 1),
		"a missing row":  strings.Replace(ptfsh, "| +I | Alice |           1 |\n", "", 1),
		"an extra row":   strings.Replace(ptfsh, "| +I | Alice |           1 |\n", "| +I | Alice |           1 |\n| +I | Alice |           1 |\n", 1),
		"two results":    ptfsh + ptfsh,
		"a column":       strings.Replace(ptfsh, "|           n |", "|           m |", 1),
	} {
		if compareResults(got, tableauResults(bad)) == "" {
			t.Errorf("%s is not seen", name)
		}
	}
}
