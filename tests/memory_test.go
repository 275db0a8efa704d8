package tests

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// memoryTables are two generated tables of 400,000 keys each, none in
// common: a join of them keeps every row, and with a 1,000-character
// string per row that is about a gigabyte.
const memoryTables = `CREATE TABLE a (k INT) WITH ('connector' = 'datagen', 'number-of-rows' = '400000', 'fields.k.kind' = 'sequence', 'fields.k.start' = '1', 'fields.k.end' = '400000');
CREATE TABLE b (k INT) WITH ('connector' = 'datagen', 'number-of-rows' = '400000', 'fields.k.kind' = 'sequence', 'fields.k.start' = '400001', 'fields.k.end' = '800000');
CREATE VIEW wide_a AS SELECT k, REPEAT('x', 1000) AS s FROM a;
CREATE VIEW wide_b AS SELECT k, REPEAT('y', 1000) AS s FROM b;
`

const (
	memoryJoin  = "SELECT COUNT(*) FROM wide_a AS x JOIN wide_b AS y ON x.k = y.k;\n"
	memoryTable = "SET 'sql-client.execution.result-mode' = 'table';\nSET 'sql-client.execution.max-table-result.rows' = '0';\nSELECT k, MAX(s) || REPEAT('z', 2000) AS s FROM wide_a GROUP BY k;\n"
)

// longOnly skips a test that takes most of a core for half a minute or
// more unless PTFSH_LONG=1 (the long set, which .ci/run runs), so that
// go test ./... stays quick enough to run often.
func longOnly(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("PTFSH_LONG") != "1" {
		t.Skip("PTFSH_LONG=1 runs it: it " + what)
	}
}

// runMemoryScript runs script in a new folder with the ptfsh binary, under
// an address-space limit of cap bytes when cap > 0 (ulimit -v), and
// returns its exit status and what it wrote.
func runMemoryScript(t *testing.T, script string, cap int64) (int, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "job.sql"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := ptfshBinary(t)
	var cmd *exec.Cmd
	if cap > 0 {
		cmd = exec.Command("sh", "-c", fmt.Sprintf("ulimit -v %d && exec %s --format rows -f job.sql", cap>>10, bin))
	} else {
		cmd = exec.Command(bin, "--format", "rows", "-f", "job.sql")
	}
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String()
}

// checkMemoryError checks that a run stopped at the memory limit with the
// error that names what keeps the rows and the setting, and did not crash.
func checkMemoryError(t *testing.T, code, wantCode int, out string, held ...string) {
	t.Helper()
	if strings.Contains(out, "fatal error") || strings.Contains(out, "goroutine ") {
		t.Fatalf("the run crashed:\n%.2000s", out)
	}
	want := append([]string{"job.sql:", "limit exceeded: the statement stopped before the process ran out of memory", "SET 'ptfsh.memory-limit'"}, held...)
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("the output lacks %q:\n%.2000s", w, out)
		}
	}
	if code != wantCode {
		t.Errorf("exit status %d, want %d", code, wantCode)
	}
}

// TestMemoryLimit_join: the table result mode, which keeps the result's
// rows in memory, stops with an error naming what keeps them and the
// setting once they pass SET 'ptfsh.memory-limit'; the memory goes back,
// and the next statement of the script (with 'ptfsh.on-error' =
// 'continue') runs (the script exits 1: a statement failed). A regular
// join of the same rows keeps them in the state store behind its cache,
// and ends under the same limit.
func TestMemoryLimit_join(t *testing.T) {
	longOnly(t, "runs ptfsh until a gigabyte-sized result passes its memory limit, and a join of a gigabyte")
	code, out := runMemoryScript(t, "SET 'ptfsh.memory-limit' = '100 mb';\nSET 'ptfsh.on-error' = 'continue';\n"+memoryTables+memoryTable+"SET 'sql-client.execution.result-mode' = 'tableau';\nSELECT 'alive';\n", 0)
	checkMemoryError(t, code, 1, out, "past SET 'ptfsh.memory-limit' = '100 mb'", "the table result mode keeps the result's rows")
	if !strings.Contains(out, "alive") {
		t.Errorf("the statement after the stopped one did not run:\n%s", out)
	}
	code, out = runMemoryScript(t, "SET 'ptfsh.memory-limit' = '100 mb';\n"+memoryTables+memoryJoin, 0)
	if code != 0 || strings.Contains(out, "limit exceeded") {
		t.Errorf("a regular join of 400k rows a side under a 100 mb limit: exit status %d, want 0:\n%.2000s", code, out)
	}
}

// TestMemoryLimit_addressSpaceCap: under an address-space limit (ulimit
// -v) a gigabyte more than ptfsh takes at rest, the default limit (auto)
// stops the table result mode over a GROUP BY of every key (3,000
// characters a row), with an error that names what keeps the rows, where
// Go would end the process with "fatal error: out of memory".
func TestMemoryLimit_addressSpaceCap(t *testing.T) {
	longOnly(t, "runs ptfsh under an address-space limit until it passes its memory limit")
	cap := restingAddressSpace(t) + 1<<30
	t.Run("table_mode", func(t *testing.T) {
		code, out := runMemoryScript(t, memoryTables+memoryTable, cap)
		if strings.Contains(out, "mmap allocate error") {
			// The GROUP BY's groups (5 KB each, in the state store) can
			// outgrow the state file's mapping first: the store's error
			// stops the statement as cleanly, at its position, and says
			// what ran out.
			if strings.Contains(out, "fatal error") || strings.Contains(out, "goroutine ") || code != 1 ||
				!strings.Contains(out, "job.sql:7:1: ") || !strings.Contains(out, "the state file no longer fits in the memory the process may map") {
				t.Fatalf("exit status %d; want 1 and the store's error at the statement:\n%.2000s", code, out)
			}
			return
		}
		checkMemoryError(t, code, 1, out, "'auto'", "the table result mode keeps the result's rows")
	})
}

// restingAddressSpace is the address space a ptfsh shell takes while it
// waits for a statement (its state file's map, Go's reservations).
func restingAddressSpace(t *testing.T) int64 {
	t.Helper()
	cmd := exec.Command(ptfshBinary(t))
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cmd.Wait() }()
	var size int64
	for range 20 { // the largest over a second: the shell opens its store first
		time.Sleep(50 * time.Millisecond)
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
		if err != nil {
			t.Skipf("no /proc: %v", err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmSize:" {
				n, _ := strconv.ParseInt(f[1], 10, 64)
				size = max(size, n<<10)
			}
		}
	}
	if size == 0 {
		t.Skip("the shell's address space is not known")
	}
	return size
}
