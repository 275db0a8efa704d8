package main

import (
	"context"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/assembly"
	"github.com/ptfsh/ptfsh/runtime/session"
)

// TestExtensionSummary runs a script with ptfsh's extensions under the
// default dialect: nothing is said while it runs, and the summary the
// command prints at a terminal names each extension once, where it is.
func TestExtensionSummary(t *testing.T) {
	var out, errs strings.Builder
	sh, err := assembly.New(assembly.Options{Out: &out, Err: &errs, Memory: true, BaseDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer sh.Close()
	src := "CREATE TABLE a (x INT) WITH ('connector' = 'filesystem', 'path' = 'a.csv', 'format' = 'csv', 'csv.header' = 'true');\n" +
		"CREATE TABLE b (x INT) WITH ('connector' = 'filesystem', 'path' = 'b.csv', 'format' = 'csv', 'csv.header' = 'true');\n" +
		"CREATE STREAM s (x INT);\n" +
		"CREATE VIEW v(x) AS VALUES (1);\n"
	if err := sh.Session.Exec(context.Background(), "x.sql", src); err != nil {
		t.Fatal(err)
	}
	if errs.Len() != 0 {
		t.Errorf("the ptfsh dialect said something while the script ran: %q", errs.String())
	}
	got := session.ExtensionSummary(sh.Session.Extensions())
	want := "note: used here, ptfsh extensions that Flink SQL lacks: 'csv.header' (x.sql:1:94), CREATE STREAM (x.sql:3:1); " +
		"--dialect warn explains each and what to write for Flink, --dialect flink refuses them\n"
	if got != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got, want)
	}
	if again := sh.Session.Extensions(); len(again) != 0 {
		t.Errorf("Extensions did not forget: %q", again)
	}
	if s := session.ExtensionSummary(nil); s != "" {
		t.Errorf("summary of nothing: %q", s)
	}
	if s := session.ExtensionSummary([]string{"a (1)", "b (2)", "c (3)", "d (4)", "e (5)"}); !strings.Contains(s, "a (1), b (2), c (3) and 2 more;") {
		t.Errorf("summary of five: %q", s)
	}
}
