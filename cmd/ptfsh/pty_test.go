package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestREPL_terminal drives the ptfsh binary in a real terminal (tmux)
// the way a person does, and reads the screen: the rc file, tab
// completion, a statement of several lines recalled from history with
// Up, Ctrl-C on a query over an endless datagen table, a hot reload of an
// edited function, a pager, and QUIT. It needs tmux and is left out of -short.
func TestREPL_terminal(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the terminal test builds ptfsh and drives it in tmux")
	}
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed (apt-get install tmux)")
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "ptfsh")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	home := filepath.Join(tmp, "home")
	work := filepath.Join(tmp, "work")
	for _, d := range []string{home, work} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	greet := func(word string) {
		t.Helper()
		src := `export default {
  output: "STRING",
  args: [{ name: "input", traits: ["ROW_SEMANTIC_TABLE"] }],
  eval(ctx, state, { input }) { ctx.collect("` + word + ` " + input.name); },
};
`
		p := filepath.Join(work, "greet.js")
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		// A new modification time even on a file system with coarse times.
		at := time.Now().Add(time.Duration(len(word)) * time.Minute)
		os.Chtimes(p, at, at)
	}
	greet("Hello")
	if err := os.WriteFile(filepath.Join(home, ".ptfshrc"), []byte("SET 'ptfsh.format' = 'rows';\nCREATE VIEW v(name) AS VALUES ('Bob');\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	sock := filepath.Join(os.TempDir(), fmt.Sprintf("ptfsh-tmux-%d", os.Getpid()))
	term := &terminal{t: t, tmux: tmux, sock: sock}
	shell := fmt.Sprintf("cd %q && HOME=%q %q; echo \"[exited $?]\"; sleep 60", work, home, bin)
	term.run("-f", "/dev/null", "new-session", "-d", "-s", "t", "-x", "120", "-y", "50", shell)
	t.Cleanup(func() { exec.Command(tmux, "-S", sock, "kill-server").Run(); os.Remove(sock) })
	term.waitFor("ptfsh> ")

	// Tab completes a keyword; [INFO] says a statement without a result
	// succeeded, as the Flink SQL client does.
	term.typeText("CREATE FUNC")
	term.keys("Tab")
	term.waitFor("ptfsh> CREATE FUNCTION")
	term.line(" greet AS 'greet.js';")
	term.waitFor("[INFO] Execute statement succeeded.")

	// A statement of several lines, a function name completed on the
	// second; the view comes from ~/.ptfshrc.
	term.line("SELECT *")
	term.typeText("FROM gree") // "gre" is also GREATEST
	term.keys("Tab")
	term.waitFor("     > FROM greet")
	term.line("(TABLE v);")
	term.waitFor("+I[Hello Bob]")

	// Up recalls it as one line; Enter runs it again.
	term.clear()
	term.keys("Up")
	term.waitFor("ptfsh> SELECT * FROM greet(TABLE v);")
	term.keys("Enter")
	term.waitFor("+I[Hello Bob]")

	// Edit the function: the next statement reloads it.
	greet("Howdy")
	term.clear()
	term.keys("Up")
	term.waitFor("ptfsh> SELECT * FROM greet(TABLE v);")
	term.keys("Enter")
	term.waitFor("note: reloaded greet.js")
	term.waitFor("+I[Howdy Bob]")

	// Ctrl-C stops a query over an endless table; the shell goes on.
	// Without a state file there is no next run to go on from, and the
	// note does not promise one.
	term.line("CREATE TABLE g (name STRING) WITH ('connector' = 'datagen');")
	term.clear()
	term.line("SELECT * FROM greet(TABLE g) WHERE EXPR$0 = 'none';")
	time.Sleep(700 * time.Millisecond)
	if s := term.screen(); strings.Contains(s, "stopping") || strings.HasSuffix(strings.TrimSpace(s), "ptfsh>") {
		t.Fatalf("the endless query ended by itself:\n%s", s)
	}
	term.keys("C-c")
	term.waitFor("note: stopping (Ctrl-C again cancels it)")
	term.line("SELECT * FROM greet(TABLE v);")
	term.waitFor("+I[Howdy Bob]")

	// A paced table's rows show at the prompt as they are made: each within
	// a tenth of a second of the one before's 200 ms, not when the query
	// ends.
	term.line("CREATE TABLE paced (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '5', 'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '1000');")
	term.clear()
	term.line("SELECT n FROM paced;")
	var seen []time.Time
	for n := 1; n <= 4; n++ {
		row := fmt.Sprintf("+I[%d]", n)
		deadline := time.Now().Add(5 * time.Second)
		for !strings.Contains(term.screen(), row) {
			if time.Now().After(deadline) {
				t.Fatalf("row %s did not show within 5 s:\n%s", row, term.screen())
			}
			time.Sleep(10 * time.Millisecond)
		}
		seen = append(seen, time.Now())
	}
	for k := 1; k < len(seen); k++ {
		gap := seen[k].Sub(seen[k-1])
		t.Logf("row %d showed %v after row %d", k+1, gap, k)
		if gap < 100*time.Millisecond || gap > 500*time.Millisecond {
			t.Errorf("row %d showed %v after the one before; rows made every 200 ms must show as they are made", k+1, gap)
		}
	}
	term.keys("C-c")
	term.waitFor("note: stopping")

	// The table mode redraws its table in place while the query runs, as
	// the Flink SQL client's does: the count grows on the same line.
	term.line("SET 'ptfsh.format' = 'tableau';")
	term.line("SET 'sql-client.execution.result-mode' = 'table';")
	term.clear()
	term.line("SELECT COUNT(*) AS c FROM paced;")
	term.waitFor("|                    2 |")
	term.waitFor("|                    4 |")
	if s := term.screen(); strings.Count(s, "| c ") != 1 && strings.Count(s, "|                    c |") != 1 {
		t.Errorf("the table is drawn more than once, not redrawn in place:\n%s", s)
	}
	term.keys("C-c")
	term.waitFor("note: stopping")
	term.line("SET 'sql-client.execution.result-mode' = 'tableau';")
	term.line("SET 'ptfsh.format' = 'rows';")

	// Ctrl-C on a statement being typed drops it.
	term.clear()
	term.line("SELECT *")
	term.keys("C-c")
	term.line("SHOW VIEWS;")
	term.waitFor("| view name |")

	// A pager: the rows through it, and the count after them. One that
	// ends before the result does (q in less; head here) stops an endless
	// query without an error, and the prompt comes back.
	term.line("SET 'ptfsh.pager' = 'sed s/^/P:/';")
	term.clear()
	term.line("SELECT * FROM greet(TABLE v);")
	term.waitFor("P:+I[Howdy Bob]")
	term.line("SET 'ptfsh.pager' = 'head -n 3';") // the columns, then two rows
	term.clear()
	term.line("SELECT * FROM greet(TABLE g);")
	term.waitFor("+I[Howdy ")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.HasSuffix(strings.TrimSpace(term.screen()), "ptfsh>") {
		if time.Now().After(deadline) {
			t.Fatalf("the prompt did not come back after the pager ended:\n%s", term.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if s := term.screen(); strings.Contains(s, "cancelled") || strings.Contains(s, "pipe") || strings.Count(s, "+I[Howdy ") != 2 || !strings.Contains(s, "columns: EXPR$0 STRING") {
		t.Errorf("after the pager ended:\n%s", s)
	}
	term.line("SET 'ptfsh.pager' = 'off';")

	term.line("QUIT;")
	term.waitFor("[exited 0]")

	hist, err := os.ReadFile(filepath.Join(home, ".ptfsh_history"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(hist), "\nSELECT * FROM greet(TABLE v);\n") {
		t.Errorf("history:\n%s", hist)
	}
}

// terminal is a tmux session on its own server (socket sock).
type terminal struct {
	t          *testing.T
	tmux, sock string
}

func (term *terminal) run(args ...string) string {
	term.t.Helper()
	out, err := exec.Command(term.tmux, append([]string{"-S", term.sock}, args...)...).CombinedOutput()
	if err != nil {
		term.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// typeText types text as it is. tmux reads a semicolon that ends an
// argument as the end of its command: it goes as \;.
func (term *terminal) typeText(text string) {
	term.t.Helper()
	if strings.HasSuffix(text, ";") {
		text = strings.TrimSuffix(text, ";") + `\;`
	}
	term.run("send-keys", "-t", "t", "-l", "--", text)
}

// line types text and Enter.
func (term *terminal) line(text string) {
	term.t.Helper()
	term.typeText(text)
	term.keys("Enter")
}

func (term *terminal) keys(keys ...string) {
	term.t.Helper()
	term.run(append([]string{"send-keys", "-t", "t"}, keys...)...)
}

// screen is what the terminal shows, wrapped lines joined.
func (term *terminal) screen() string {
	term.t.Helper()
	return term.run("capture-pane", "-p", "-J", "-t", "t")
}

// clear empties the screen and its scrollback, so that waitFor sees only
// what comes next.
func (term *terminal) clear() {
	term.t.Helper()
	term.run("send-keys", "-t", "t", "-R")
	term.run("clear-history", "-t", "t")
	term.keys("C-l")
	time.Sleep(100 * time.Millisecond)
}

// waitFor waits until the screen shows text.
func (term *terminal) waitFor(text string) {
	term.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := term.screen()
		if strings.Contains(s, text) {
			return
		}
		if time.Now().After(deadline) {
			term.t.Fatalf("the screen does not show %q:\n%s", text, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
