package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestWriteDiff(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want string
	}{
		{"same", "x\ny", "x\ny", "   (no change: 2 lines)\n"},
		{"changed_middle", "h\na\nb\nf", "h\na\nc\nf", "- b\n+ c\n   (3 lines unchanged)\n"},
		{"added", "h\nf", "h\nn\nf", "+ n\n   (2 lines unchanged)\n"},
		{"removed_all", "a\nb", "", "- a\n- b\n   (0 lines unchanged)\n"},
		{"reordered", "a\nb\nc", "c\na\nb", "+ c\n- c\n   (2 lines unchanged)\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			writeDiff(&b, splitLines(tc.a), splitLines(tc.b))
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}

// syncBuffer is a bytes.Buffer for one writer goroutine and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestWatch edits a function, then the data, then breaks the function,
// and checks that each save reruns the script with the output's diff.
func TestWatch(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		// A later modification time than the last run saw, even on a file
		// system with coarse times.
		later := time.Now().Add(time.Duration(len(text)) * time.Second)
		os.Chtimes(p, later, later)
	}
	fn := func(greeting string) string {
		return `export default {
  output: "ROW<msg STRING>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  eval(ctx, state, { input }) { ctx.collect({ msg: "` + greeting + ` " + input.name }); },
};`
	}
	write("f.js", fn("hello"))
	write("people.csv", "Ann\nBob\n")
	write("s.sql", `CREATE FUNCTION Greet AS 'f.js';
CREATE TABLE people (name STRING) WITH ('connector' = 'filesystem', 'path' = 'people.csv', 'format' = 'csv');
SELECT msg FROM Greet(input => TABLE people PARTITION BY name);
`)
	var out, errs syncBuffer
	w := &watcher{script: filepath.Join(dir, "s.sql"), out: &out, err: &errs}
	w.opts.Format = "csv"
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() { done <- w.loop(ctx, 20*time.Millisecond) }()
	waitFor := func(what string) {
		t.Helper()
		for i := 0; i < 500; i++ {
			if strings.Contains(out.String(), what) || strings.Contains(errs.String(), what) {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
		t.Fatalf("no %q in\n%s\n-- stderr:\n%s", what, out.String(), errs.String())
	}
	waitFor("-- watching s.sql (3 files)")
	write("f.js", fn("hi"))
	waitFor("-- run 2, f.js changed")
	write("people.csv", "Ann\nBob\nCy\n")
	waitFor("-- run 3, people.csv changed")
	write("f.js", "export default {")
	waitFor("-- the script failed")
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit status %d", code)
	}
	got := out.String()
	got = got[:strings.Index(got, "-- run 4")] // its time varies
	for _, l := range []string{"-- run 2", "-- run 3"} {
		i := strings.Index(got, l)
		j := strings.Index(got[i:], "(")
		k := strings.Index(got[i:], "):")
		got = got[:i+j] + "(T" + got[i+k:]
	}
	want := `msg
hello Ann
hello Bob
-- run 2, f.js changed (T):
- hello Ann
- hello Bob
+ hi Ann
+ hi Bob
   (1 lines unchanged)
-- run 3, people.csv changed (T):
+ hi Cy
   (3 lines unchanged)
`
	if got != want {
		t.Errorf("output\n%s\nwant\n%s", got, want)
	}
}
