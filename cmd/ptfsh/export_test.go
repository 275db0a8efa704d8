package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/export/flink"
	"github.com/ptfsh/ptfsh/sqlmini"
)

func TestRunExport_errors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no target", []string{}, 2, "usage: ptfsh export flink"},
		{"unknown target", []string{"spark", "f.js"}, 2, "usage: ptfsh export flink"},
		{"no file", []string{"flink"}, 2, "usage: ptfsh export flink"},
		{"map state", []string{"flink", "testdata/flink/map_state_refused.js", "-o", filepath.Join(dir, "p")}, 1,
			`ptfsh: testdata/flink/map_state_refused.js: export flink: MapView state of type MAP<STRING, MAP<STRING, INT>> (state "seen"`},
		{"a name Flink cannot write", []string{"flink", "../../examples/greeting.js", "-o", filepath.Join(dir, "p"), "--name", "a\n'b"}, 1,
			`ptfsh: ../../examples/greeting.js: export flink: the function name "a\n'b" cannot be written in Flink SQL`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(append([]string{"export"}, tc.args...), nil, &out, &errb); code != tc.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.code, errb.String())
			}
			if !strings.Contains(errb.String(), tc.want) {
				t.Errorf("stderr %q, want it to contain %q", errb.String(), tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "p")); err == nil {
		t.Errorf("a failed export wrote a project")
	}
}

// TestRunExport_flinkEndToEnd exports greeting_with_memory.js with a
// script and runs the project's tests on a Flink mini cluster: once as
// it is, once under a name and with data that hold quotes, semicolons and
// comment starts (Flink must read register.sql and the case as ptfsh
// wrote them). Maven reads Flink 2.3, GraalJS and its plugins from ~/.m2
// and downloads only what is missing there (the first run on a fresh
// machine needs the network).
//
// It is opt-in (PTFSH_FLINK=1, as .ci/run sets it), so that the default
// go test ./... needs neither Maven nor the network.
func TestRunExport_flinkEndToEnd(t *testing.T) {
	if os.Getenv("PTFSH_FLINK") == "" {
		t.Skip("runs Maven and a Flink mini cluster: set PTFSH_FLINK=1")
	}
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		t.Skip("mvn is not on PATH")
	}
	for _, tc := range []struct{ test, name, alice, uid string }{
		{"plain", "GreetingWithMemory", "Alice", ""},
		{"crafted", "Greeting`With; 'Memory' --/*", "Al;ice' --", ", uid => 'g'"},
	} {
		t.Run(tc.test, func(t *testing.T) {
			dir := t.TempDir()
			sql := filepath.Join(dir, "script.sql")
			q := sqlmini.QuoteIdent(tc.name)
			err := os.WriteFile(sql, []byte(`CREATE FUNCTION `+q+` AS '`+abs(t, "../../examples/greeting_with_memory.js")+`';
CREATE VIEW people (name) AS VALUES ('Bob'), (`+sqlmini.QuoteString(tc.alice)+`), ('Bob');
SELECT * FROM `+q+`(input => TABLE people PARTITION BY name`+tc.uid+`);
`), 0o644)
			if err != nil {
				t.Fatal(err)
			}
			proj := filepath.Join(dir, "proj")
			var out, errb bytes.Buffer
			if code := run([]string{"export", "flink", "../../examples/greeting_with_memory.js", "-o", proj, "--script", sql}, nil, &out, &errb); code != 0 {
				t.Fatalf("export: exit %d: %s", code, errb.String())
			}
			rows, err := os.ReadFile(filepath.Join(proj, "src/test/resources/ptfsh/cases/case01.out"))
			if err != nil {
				t.Fatal(err)
			}
			want := "+I[Bob, Hello Bob, your 1 time?]\n+I[" + tc.alice + ", Hello " + tc.alice + ", your 1 time?]\n+I[Bob, Hello Bob, your 2 time?]\n"
			if string(rows) != want {
				t.Errorf("case01.out = %q, want %q", rows, want)
			}
			cmd := exec.Command(mvn, "-B", "-q", "test")
			cmd.Dir = proj
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("mvn -B -q test: %v\n%s", err, b)
			}
		})
	}
}

func abs(t *testing.T, path string) string {
	t.Helper()
	p, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunExport_skipsOtherFunctions exports one function with the
// quickstart, which calls five: only the SELECT of the exported function
// becomes a case (with the views it needs), and each SELECT of another
// function is named in a note.
func TestRunExport_skipsOtherFunctions(t *testing.T) {
	proj := filepath.Join(t.TempDir(), "p")
	var out, errb bytes.Buffer
	args := []string{"export", "flink", "../../examples/greeting_with_memory.js", "-o", proj, "--script", "../../examples/quickstart.sql"}
	if code := run(args, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	cases := filepath.Join(proj, "src/test/resources/ptfsh/cases")
	sql, err := os.ReadFile(filepath.Join(cases, "case01.sql"))
	if err != nil {
		t.Fatal(err)
	}
	wantSQL := "CREATE VIEW Names(name) AS VALUES ('Bob'), ('Alice'), ('Bob');\nSELECT * FROM GreetingWithMemory(TABLE Names PARTITION BY name);\n"
	if string(sql) != wantSQL {
		t.Errorf("case01.sql = %q, want %q", sql, wantSQL)
	}
	if _, err := os.Stat(filepath.Join(cases, "case02.sql")); err == nil {
		t.Errorf("a SELECT of another function became case02")
	}
	notes := errb.String()
	if n := strings.Count(notes, "which is not exported with GreetingWithMemory"); n != 7 {
		t.Errorf("%d skip notes, want 7:\n%s", n, notes)
	}
	if want := "note: ../../examples/quickstart.sql:14: skipped, it calls Greeting,"; !strings.Contains(notes, want) {
		t.Errorf("notes lack %q:\n%s", want, notes)
	}
}

// TestRunExport_craftedNames exports a function under names that try to
// break out of SQL and Java: declared by the script, and given by --name
// to a script that only calls it (which the export registers itself).
// (A name with a line break is refused: TestRunExport_errors.)
// register.sql holds one statement registering the very name, the case
// files hold the script's statements, and the Java class name is plain.
func TestRunExport_craftedNames(t *testing.T) {
	for _, tc := range []struct {
		name    string
		declare bool
	}{
		{"f`; DROP TABLE x; --", true},
		{"it's'); DROP TABLE y; --", false},
		{"g\"); System.exit(1); //\\u000a /*", true},
	} {
		dir := t.TempDir()
		js := filepath.Join(dir, "g.js")
		if err := os.WriteFile(js, []byte(`export default { output: "STRING", args: [{ name: "input", traits: ["ROW_SEMANTIC_TABLE"] }],
  eval(ctx, s, { input }) { ctx.collect("Hello " + input.name); } };
`), 0o644); err != nil {
			t.Fatal(err)
		}
		q := sqlmini.QuoteIdent(tc.name)
		view := "CREATE VIEW v(name) AS VALUES ('Bob')"
		sel := "SELECT * FROM " + q + "(TABLE v)"
		src := view + ";\n" + sel + ";\n"
		args := []string{"export", "flink", js, "-o", filepath.Join(dir, "p"), "--script", filepath.Join(dir, "s.sql")}
		if tc.declare {
			src = "CREATE FUNCTION " + q + " AS 'g.js';\n" + src
		} else {
			args = append(args, "--name", tc.name)
		}
		if err := os.WriteFile(filepath.Join(dir, "s.sql"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		if code := run(args, nil, &out, &errb); code != 0 {
			t.Fatalf("%q: exit %d: %s", tc.name, code, errb.String())
		}
		read := func(name string) string {
			b, err := os.ReadFile(filepath.Join(dir, "p", name))
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		reg := read("src/main/resources/ptfsh/register.sql")
		stmts, err := sqlmini.Parse("register.sql", reg)
		if err != nil || len(stmts) != 1 || stmts[0].Create == nil || stmts[0].Create.Function == nil {
			t.Fatalf("%q: register.sql %q is not one CREATE FUNCTION (%v)", tc.name, reg, err)
		}
		cls := flink.ClassName(tc.name)
		f := stmts[0].Create.Function
		if string(f.Name.Value) != tc.name || string(*f.Path) != "ptfsh.flink."+cls {
			t.Errorf("%q: register.sql %q", tc.name, reg)
		}
		if got, want := read("src/test/resources/ptfsh/cases/case01.sql"), view+";\n"+sel+";\n"; got != want {
			t.Errorf("%q: case01.sql = %q, want %q", tc.name, got, want)
		}
		if got := read("src/test/resources/ptfsh/cases/case01.out"); got != "+I[Hello Bob]\n" {
			t.Errorf("%q: case01.out = %q", tc.name, got)
		}
		java := read("src/main/java/ptfsh/flink/" + cls + ".java")
		if !strings.Contains(java, "public class "+cls+" extends") || strings.Contains(java, "System.exit") {
			t.Errorf("%q: %s.java:\n%s", tc.name, cls, java)
		}
	}
}

// TestRunExport_flinkClearAll settles how Flink runs ctx.clearAll() after
// clearTimer while another key has timers pending
// (testdata/flink/clear_all): the exported function and the same function
// written in Java by hand (ClearAllJavaTest.java) must give Flink the same
// rows, and these differ from ptfsh's as ptf.FlinkClearAllTimers says
// (Flink's clearAllTimers leaves the call on another key: b loses its
// state and timers, a's cleared unnamed timer fires). The export notes
// it. Opt-in: PTFSH_FLINK=1.
func TestRunExport_flinkClearAll(t *testing.T) {
	if os.Getenv("PTFSH_FLINK") == "" {
		t.Skip("runs Maven and a Flink mini cluster: set PTFSH_FLINK=1")
	}
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		t.Skip("mvn is not on PATH")
	}
	proj := filepath.Join(t.TempDir(), "proj")
	var out, errb bytes.Buffer
	if code := run([]string{"export", "flink", "testdata/flink/clear_all/clear_all.js", "--script", "testdata/flink/clear_all/clear_all.sql", "-o", proj}, nil, &out, &errb); code != 0 {
		t.Fatalf("export: %s", errb.String())
	}
	if !strings.Contains(errb.String(), "note: testdata/flink/clear_all/clear_all.js: the function calls clearAllTimers() or clearAll(): on Flink 2.3.0") {
		t.Errorf("the export says nothing of clearAll: %s", errb.String())
	}
	java, err := os.ReadFile("testdata/flink/clear_all/ClearAllJavaTest.java")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(proj, "src/test/java/ptfsh/flink/ClearAllJavaTest.java"), string(java))
	cmd := exec.Command(mvn, "-B", "-q", "test", "-Dtest=ClearAllJavaTest")
	cmd.Dir = proj
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("mvn test: %v\n%s", err, tail(string(b), 4000))
	}
	rows := func(path string) []string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r := strings.Fields(strings.ReplaceAll(string(b), " ", "_"))
		sort.Strings(r)
		return r
	}
	js, byHand := rows(filepath.Join(proj, "target/clearall-js.out")), rows(filepath.Join(proj, "target/clearall-java.out"))
	ptfsh := rows(filepath.Join(proj, "src/test/resources/ptfsh/cases/case01.out"))
	if strings.Join(js, "\n") != strings.Join(byHand, "\n") {
		t.Errorf("the exported function gives Flink other rows than the same function in Java:\nexported:\n%s\nJava:\n%s", strings.Join(js, "\n"), strings.Join(byHand, "\n"))
	}
	for _, want := range []string{"+I[b,_count,_1,_2025-01-01T00:00:03]", "+I[a,_timer_unnamed,_1,_2025-01-01T00:03:20]"} {
		if !slices.Contains(byHand, want) {
			t.Errorf("Flink's rows (a function in Java) lack %s, which ptf.FlinkClearAllTimers describes:\n%s", want, strings.Join(byHand, "\n"))
		}
	}
	if strings.Join(js, "\n") == strings.Join(ptfsh, "\n") {
		t.Errorf("Flink gives ptfsh's rows: the difference that docs/flink.md and the dialect's note describe is gone:\n%s", strings.Join(js, "\n"))
	}
}
