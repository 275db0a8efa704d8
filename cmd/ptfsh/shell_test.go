package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/assembly"
)

// TestRun_testFlagsAnywhere: ptfsh test takes its flags after the paths
// too (ptfsh test x.txtar -update).
func TestRun_testFlagsAnywhere(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "one.txtar")
	archive := "-- query.sql --\nSET 'ptfsh.format' = 'rows';\nSELECT * FROM (VALUES (1)) AS T(n);\n-- want.out --\n+I[2]\n"
	if err := os.WriteFile(file, []byte(archive), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runCmd(t, "", "test", file, "-update"); code != 0 || errs != "" {
		t.Fatalf("test FILE -update: code %d\n%s%s", code, out, errs)
	}
	if code, out, _ := runCmd(t, "", "test", file); code != 0 || out != "ok    "+file+"\n1 passed, 0 failed\n" {
		t.Fatalf("after -update: code %d, output:\n%s", code, out)
	}
	if code, _, errs := runCmd(t, "", "test", file, "-bogus"); code != 2 || !strings.Contains(errs, "-bogus") {
		t.Fatalf("an unknown flag after the path: code %d, %s", code, errs)
	}
}

func TestRun_version(t *testing.T) {
	code, out, _ := runCmd(t, "", "--version")
	if code != 0 || !regexp.MustCompile(`^ptfsh \d+\.\d+\.\d+( \(.*\))? go\S+ \w+/\w+\n$`).MatchString(out) {
		t.Fatalf("code %d, output %q", code, out)
	}
}

// TestRun_quit: QUIT and EXIT end the REPL and a script (exit status 0);
// what follows does not run.
func TestRun_quit(t *testing.T) {
	for _, word := range []string{"QUIT", "exit"} {
		code, out, errs := runCmd(t, "SELECT * FROM (VALUES (1)) AS T(n);\n"+word+";\nSELECT * FROM (VALUES (2)) AS T(n);\n", "--format", "rows")
		if code != 0 || out != "+I[1]\n" || errs != "" {
			t.Errorf("REPL, %s: code %d, out %q, err %q", word, code, out, errs)
		}
		code, out, errs = runCmd(t, "", "--format", "rows", "-e", "SELECT * FROM (VALUES (1)) AS T(n); "+word+"; SELECT * FROM nowhere;")
		if code != 0 || out != "+I[1]\n" || errs != "" {
			t.Errorf("-e, %s: code %d, out %q, err %q", word, code, out, errs)
		}
	}
}

// TestRun_echo: --echo prints each statement of a script on stderr before
// its result, and the Flink SQL client's [INFO] line after one without a
// result; stdout keeps the results alone.
func TestRun_echo(t *testing.T) {
	code, out, errs := runCmd(t, "", "--echo", "--format", "rows", "-e", "CREATE VIEW v(a) AS VALUES (1);\nSELECT *\nFROM v;")
	if code != 0 || out != "+I[1]\n" {
		t.Fatalf("code %d, out %q", code, out)
	}
	want := "ptfsh> CREATE VIEW v(a) AS VALUES (1);\n[INFO] Execute statement succeeded.\nptfsh> SELECT *\n     > FROM v;\n"
	if errs != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", errs, want)
	}
	// Without --echo a script says nothing of the kind.
	if _, _, errs := runCmd(t, "", "-e", "CREATE VIEW v(a) AS VALUES (1);"); errs != "" {
		t.Errorf("stderr without --echo: %q", errs)
	}
}

// TestRunRC: the rc file's statements run before the prompt; an error
// shows the file's name and position and the next statement runs;
// relative paths resolve against its folder, and later statements against
// the shell's own folder again.
func TestRunRC(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "f.js"), []byte(`export default { output: "INT", eval(ctx) { ctx.collect(7); } };`), 0o644)
	rc := filepath.Join(home, rcFile)
	os.WriteFile(rc, []byte("SET 'ptfsh.format' = 'rows';\nCREATE FUNCTION f AS 'f.js';\nSELECT * FROM nowhere;\nCREATE VIEW v(a) AS VALUES (1);\n"), 0o644)
	var out, errs strings.Builder
	sh, err := assembly.New(assembly.Options{Out: &out, Err: &errs, Memory: true, BaseDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	if quit := runRC(sh.Session, rc, &errs); quit {
		t.Fatal("quit")
	}
	want := rc + ":3:15: Object 'nowhere' not found\n | SELECT * FROM nowhere;\n |               ^\n"
	if errs.String() != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", errs.String(), want)
	}
	errs.Reset()
	if quit := execInteractive(sh.Session, "SELECT * FROM f(); SELECT * FROM v; CREATE FUNCTION g AS 'f.js';", nil, &errs); quit {
		t.Fatal("quit")
	}
	if out.String() != "+I[7]\n+I[1]\n" || !strings.Contains(errs.String(), "cannot read function file 'f.js'") {
		t.Errorf("out %q, err %q", out.String(), errs.String())
	}
	// A missing rc file is no error; QUIT in one ends the shell.
	if quit := runRC(sh.Session, filepath.Join(home, "none"), &errs); quit {
		t.Error("a missing rc file quits")
	}
	os.WriteFile(rc, []byte("QUIT;\n"), 0o644)
	if quit := runRC(sh.Session, rc, &errs); !quit {
		t.Error("QUIT in the rc file does not quit")
	}
}
