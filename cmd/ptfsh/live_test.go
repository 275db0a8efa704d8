package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The tests of live statements run the ptfsh binary as a shell script
// does: rows through pipes, signals, exit statuses.

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// ptfshBinary builds the command once for the package's tests.
func ptfshBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the test builds ptfsh and runs it")
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ptfsh-bin")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "ptfsh")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// timedLine is a line of output and when it came.
type timedLine struct {
	at   time.Time
	text string
}

// readLines reads lines from r as they come, until it ends.
func readLines(r *os.File) <-chan timedLine {
	ch := make(chan timedLine, 1024)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			ch <- timedLine{time.Now(), sc.Text()}
		}
	}()
	return ch
}

// TestLive_resultsAsTheyHappen runs a paced datagen query (5 rows a
// second) in every result format through a pipe and checks that each row
// arrives when it is made, not when the statement ends: the gap between a
// row's due time and its arrival (its lag) stays small, then SIGTERM stops
// the statement with exit status 0.
// startLines starts cmd with its standard output on a pipe, and returns
// the lines it writes there as they come and what it writes to stderr.
func startLines(t *testing.T, cmd *exec.Cmd) (<-chan timedLine, *bytes.Buffer) {
	t.Helper()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = pw
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	return readLines(pr), stderr
}

// appendFile appends s to the file at path, as a log's writer does.
func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func TestLive_resultsAsTheyHappen(t *testing.T) {
	bin := ptfshBinary(t)
	for _, format := range []string{"tableau", "changelog", "rows", "csv", "json"} {
		t.Run(format, func(t *testing.T) {
			q := "CREATE TABLE g (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '5', 'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '1000000');" +
				"SELECT n FROM g;"
			cmd := exec.Command(bin, "--format", format, "-e", q)
			lines, stderr := startLines(t, cmd)
			var rows []timedLine
			deadline := time.After(20 * time.Second)
			for len(rows) < 6 {
				select {
				case l, ok := <-lines:
					if !ok {
						t.Fatalf("the output ended after %d rows; stderr:\n%s", len(rows), stderr.String())
					}
					if strings.ContainsAny(l.text, "0123456789") && !strings.Contains(l.text, "EXPR") && !strings.HasPrefix(l.text, "+-") {
						rows = append(rows, l)
					}
				case <-deadline:
					t.Fatalf("only %d rows within 20 s", len(rows))
				}
			}
			cmd.Process.Signal(syscall.SIGTERM)
			if err := cmd.Wait(); err != nil {
				t.Errorf("after SIGTERM: %v; want exit status 0; stderr:\n%s", err, stderr.String())
			}
			// Row k is due 200 ms after row k-1: its lag is how much later
			// than that it came, measured from the first row.
			var worst time.Duration
			for k := 1; k < len(rows); k++ {
				due := rows[0].at.Add(time.Duration(k) * 200 * time.Millisecond)
				worst = max(worst, rows[k].at.Sub(due))
			}
			span := rows[len(rows)-1].at.Sub(rows[0].at)
			t.Logf("%s: %d rows over %v, worst lag %v", format, len(rows), span, worst)
			if span < 700*time.Millisecond {
				t.Errorf("%d rows came within %v: they were held back, not shown as made", len(rows), span)
			}
			if worst > 300*time.Millisecond {
				t.Errorf("a row came %v after it was due (want within 100 ms; 300 ms allowed on a loaded machine)", worst)
			}
		})
	}
}

// TestLive_pipelines runs the live examples over fixed input through a
// pipe and compares what they print.
func TestLive_pipelines(t *testing.T) {
	bin := ptfshBinary(t)
	cases := []struct {
		name, input, script string
		args                []string
		want                string
	}{
		{"words", "The cat saw the dog.\nA dog.\n", "../../examples/live/words.sql", []string{"--format", "rows"},
			"+I[the, 1]\n+I[cat, 1]\n+I[saw, 1]\n-U[the, 1]\n+U[the, 2]\n+I[dog, 1]\n+I[a, 1]\n-U[dog, 1]\n+U[dog, 2]\n"},
		{"alerts", "", "../../examples/live/alerts.sql", []string{"--format", "rows"},
			"+I[checkout, no recovery within a minute: payment gateway timeout, 2025-03-27T12:00:20Z, 2025-03-27T12:01:20Z]\n" +
				"+I[search, no recovery within a minute: index unavailable, 2025-03-27T12:02:00Z, 2025-03-27T12:03:00Z]\n"},
		{"sum", "a,1\nb,2\na,5\n", "", []string{"--format", "rows", "-e", "CREATE TABLE t (name STRING, n INT) WITH ('connector' = 'stdin', 'format' = 'csv'); SELECT name, SUM(n) FROM t GROUP BY name;"},
			"+I[a, 1]\n+I[b, 2]\n-U[a, 1]\n+U[a, 6]\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := c.args
			if c.script != "" {
				args = append(args, "-f", c.script)
			}
			cmd := exec.Command(bin, args...)
			if c.input != "" {
				cmd.Stdin = strings.NewReader(c.input)
			} else {
				f, err := os.Open("../../examples/live/app.log")
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				cmd.Stdin = f
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v; stderr:\n%s", err, stderr.String())
			}
			if string(out) != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", out, c.want)
			}
		})
	}
}

// TestLive_followStopResume follows a file that grows, stops the
// statement with SIGTERM and runs it again over the same state file: the
// second run goes on after the rows the first read, and their outputs
// together are what one run over the whole file prints.
func TestLive_followStopResume(t *testing.T) {
	bin := ptfshBinary(t)
	dir := t.TempDir()
	appendTo := func(s string) { appendFile(t, filepath.Join(dir, "f.csv"), s) }
	q := "CREATE TABLE f (name STRING) WITH ('connector' = 'filesystem', 'path' = 'f.csv', 'format' = 'csv', 'source.monitor-interval' = '1 s');" +
		"SELECT name, COUNT(*) AS n FROM f GROUP BY name;"
	// start runs the statement and returns a function that waits until
	// the output holds want, then stops it and returns its stderr.
	start := func() (wait func(want string) string) {
		cmd := exec.Command(bin, "--state", "s.db", "--format", "rows", "-e", q)
		cmd.Dir = dir
		lines, stderr := startLines(t, cmd)
		var got []string
		return func(want string) string {
			deadline := time.After(20 * time.Second)
			for strings.Join(got, "") != want {
				select {
				case l, ok := <-lines:
					if !ok {
						t.Fatalf("the output ended: %q; want %q; stderr:\n%s", got, want, stderr.String())
					}
					got = append(got, l.text+"\n")
				case <-deadline:
					t.Fatalf("after 20 s the output is %q; want %q", strings.Join(got, ""), want)
				}
			}
			cmd.Process.Signal(syscall.SIGTERM)
			if err := cmd.Wait(); err != nil {
				t.Fatalf("after SIGTERM: %v; stderr:\n%s", err, stderr.String())
			}
			return stderr.String()
		}
	}
	appendTo("a\nb\n")
	wait := start()
	time.Sleep(300 * time.Millisecond)
	appendTo("a\n")
	errs := wait("+I[a, 1]\n+I[b, 1]\n-U[a, 1]\n+U[a, 2]\n")
	if !strings.Contains(errs, "note: stopping: the statement ends with a checkpoint") {
		t.Errorf("no note of the stop on stderr:\n%s", errs)
	}
	appendTo("c\na\n")
	errs = start()("+I[c, 1]\n-U[a, 2]\n+U[a, 3]\n")
	if !strings.Contains(errs, "goes on after row 3") {
		t.Errorf("the second run does not say where it went on:\n%s", errs)
	}
}

// TestLive_exitStatus: a script whose statements failed exits 1, also
// when SET 'ptfsh.on-error' = 'continue' ran the rest, and says which.
func TestLive_exitStatus(t *testing.T) {
	bin := ptfshBinary(t)
	cmd := exec.Command(bin, "--format", "rows", "-e", "SET 'ptfsh.on-error' = 'continue';\nSELECT nope FROM nowhere;\nSELECT 1;\nSELECT 1 / 0;\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v; want status 1; stderr:\n%s", err, stderr.String())
	}
	if string(out) != "+I[1]\n" {
		t.Errorf("stdout %q; want the statement between the failures", out)
	}
	if !strings.Contains(stderr.String(), "2 statements failed (SET 'ptfsh.on-error' = 'continue' ran the rest): line 2, line 4") {
		t.Errorf("stderr does not name the failed statements:\n%s", stderr.String())
	}
}

// TestLive_procTimeWindows runs a TUMBLE window over PROCTIME() on a paced
// datagen table on the wall clock: each one-second window is emitted
// when the clock passes its end, with the rows made in it.
func TestLive_procTimeWindows(t *testing.T) {
	bin := ptfshBinary(t)
	q := "CREATE TABLE g (n BIGINT, pt AS PROCTIME()) WITH ('connector' = 'datagen', 'rows-per-second' = '10', 'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '1000000');" +
		"SELECT window_end, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE g, DESCRIPTOR(pt), INTERVAL '1' SECOND)) GROUP BY window_start, window_end;"
	cmd := exec.Command(bin, "--format", "csv", "-e", q)
	lines, stderr := startLines(t, cmd)
	var rows []timedLine
	deadline := time.After(20 * time.Second)
	for len(rows) < 3 {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the output ended; stderr:\n%s", stderr.String())
			}
			if strings.Contains(l.text, ",") && !strings.HasPrefix(l.text, "window_end") {
				rows = append(rows, l)
			}
		case <-deadline:
			t.Fatalf("%d windows within 20 s", len(rows))
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	for _, r := range rows[1:] { // the first window may have begun before the first row
		end, count, _ := strings.Cut(r.text, ",")
		c, err := strconv.Atoi(count)
		if err != nil {
			t.Fatalf("row %q: %v", r.text, err)
		}
		at, err := time.Parse("2006-01-02 15:04:05", strings.Replace(end, "T", " ", 1))
		if err != nil {
			t.Fatalf("window_end %q: %v", end, err)
		}
		late := r.at.Sub(at)
		t.Logf("window ending %s: %d rows, emitted %v after its end", end, c, late)
		if c < 5 || c > 15 {
			t.Errorf("window ending %s counts %d rows; at 10 rows a second, want about 10", end, c)
		}
		if late < -time.Millisecond || late > time.Second {
			t.Errorf("window ending %s was emitted %v after its end", end, late)
		}
	}
}

// TestLive_rerunNote: a script that read a file to its end, run again
// with the same state file, reads it from its start again and says so
// (its sink would hold the rows twice); one session reading a table twice
// says nothing.
func TestLive_rerunNote(t *testing.T) {
	bin := ptfshBinary(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.csv"), []byte("a\nb\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	q := "CREATE TABLE f (name STRING) WITH ('connector' = 'filesystem', 'path' = 'f.csv', 'format' = 'csv');" +
		"SELECT name FROM f;"
	run := func(args ...string) (string, string) {
		cmd := exec.Command(bin, append([]string{"--format", "rows"}, args...)...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v; stderr:\n%s", args, err, stderr.String())
		}
		return string(out), stderr.String()
	}
	const note = "note: table 'f' reads 'f.csv' from its start again: an earlier run with this state file read it to its end (2 rows); to go on after what a run read, stop it with SET 'ptfsh.end-of-input' = 'false' or follow the file with 'source.monitor-interval'\n"
	out, errs := run("--state", "s.db", "-e", q)
	if out != "+I[a]\n+I[b]\n" || strings.Contains(errs, "from its start again") {
		t.Fatalf("first run: stdout %q, stderr:\n%s", out, errs)
	}
	out, errs = run("--state", "s.db", "-e", q)
	if out != "+I[a]\n+I[b]\n" || !strings.Contains(errs, note) {
		t.Errorf("second run: stdout %q; want the rows again and on stderr %q; stderr:\n%s", out, note, errs)
	}
	out, errs = run("-e", q+"SELECT name FROM f;")
	if out != "+I[a]\n+I[b]\n+I[a]\n+I[b]\n" || strings.Contains(errs, "from its start again") {
		t.Errorf("one session, two reads: stdout %q, stderr:\n%s", out, errs)
	}
}

// TestLive_stopKeepsStateWhole: a stopped statement whose state goes on
// in the next run never goes on with part of it. An OVER window over a
// followed file is stopped with SIGTERM; the next run's last row holds
// the sum over every row, whether the operator's state was in the final
// checkpoint or the statement started again from its beginning (and then
// said so).
func TestLive_stopKeepsStateWhole(t *testing.T) {
	bin := ptfshBinary(t)
	dir := t.TempDir()
	appendTo := func(s string) { appendFile(t, filepath.Join(dir, "f.csv"), s) }
	q := "CREATE TABLE f (name STRING, n INT, pt AS PROCTIME()) WITH ('connector' = 'filesystem', 'path' = 'f.csv', 'format' = 'csv', 'source.monitor-interval' = '100 ms');" +
		"SELECT name, n, SUM(n) OVER (PARTITION BY name ORDER BY pt) AS s FROM f;"
	// run runs the statement until its output ends with last, then stops
	// it and returns its stderr.
	run := func(last string) string {
		cmd := exec.Command(bin, "--state", "s.db", "--format", "rows", "-e", q)
		cmd.Dir = dir
		lines, stderr := startLines(t, cmd)
		var got []string
		deadline := time.After(20 * time.Second)
		for len(got) == 0 || got[len(got)-1] != last {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("the output ended: %q; stderr:\n%s", got, stderr.String())
				}
				got = append(got, l.text)
			case <-deadline:
				t.Fatalf("after 20 s the output is %q; want it to end with %q", got, last)
			}
		}
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("after SIGTERM: %v; stderr:\n%s", err, stderr.String())
		}
		return stderr.String()
	}
	appendTo("a,1\nb,2\na,5\n")
	errs := run("+I[a, 5, 6]")
	appendTo("a,7\n")
	errs += run("+I[a, 7, 13]")
	t.Logf("stderr:\n%s", errs)
	if strings.Contains(errs, "stopping without a checkpoint") && !strings.Contains(errs, "starts the statement again from its beginning") {
		t.Errorf("a stop without a checkpoint does not say what the next run does:\n%s", errs)
	}
}

// TestLive_killLeavesNoScratch: a run without a state file keeps its
// state in a scratch file that is gone from the temporary folder while
// the run goes on (the run keeps it open), so that a run killed with
// SIGKILL leaves nothing there; its GROUP BY, with a cache of a few keys,
// keeps working out of the removed file.
func TestLive_killLeavesNoScratch(t *testing.T) {
	bin := ptfshBinary(t)
	tmp := t.TempDir()
	q := "SET 'state.cache-size' = '2';" +
		"CREATE TABLE g (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '200', 'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '1000000');" +
		"SELECT n % 7 AS k, COUNT(*) AS c FROM g GROUP BY n % 7;"
	cmd := exec.Command(bin, "--format", "rows", "-e", q)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	lines, stderr := startLines(t, cmd)
	defer cmd.Process.Kill()
	// Row 30 of the sequence is the fifth of key 2: its count went
	// through the store, the cache holding two keys of seven.
	deadline := time.After(20 * time.Second)
	for seen := false; !seen; {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the output ended; stderr:\n%s", stderr.String())
			}
			seen = l.text == "+U[2, 5]"
		case <-deadline:
			t.Fatalf("no +U[2, 5] within 20 s; stderr:\n%s", stderr.String())
		}
	}
	left := func() []string {
		names, err := filepath.Glob(filepath.Join(tmp, "ptfsh-state-*"))
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	if names := left(); len(names) > 0 {
		t.Errorf("while the run goes on, the temporary folder holds %v", names)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if names := left(); len(names) > 0 {
		t.Errorf("after SIGKILL, the temporary folder holds %v", names)
	}
}
