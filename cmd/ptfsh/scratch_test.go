package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestScratch_errorsNameNoPath: the errors of a run without a state file
// call its state "the scratch state (no --state file)", never by the path
// of the scratch file, which is gone from the temporary folder as soon
// as the run has opened it: a file size limit (as a full disk) met while
// the state grows, and a temporary folder that does not exist.
func TestScratch_errorsNameNoPath(t *testing.T) {
	bin := ptfshBinary(t)
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh for ulimit")
	}
	tmp := t.TempDir()
	q := "SET 'state.cache-size' = '2';" +
		"CREATE TABLE g (n BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '100000', 'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '100000');" +
		"SELECT COUNT(*) AS c FROM (SELECT n, COUNT(*) AS c FROM g GROUP BY n);"
	for _, tc := range []struct {
		name, tmpdir, limit, want string
	}{
		// 256 blocks of 512 bytes (dash) or 1 KiB (bash): the groups of
		// 100k keys take about 4 MiB.
		{"file size limit", tmp, "ulimit -f 256; ", "state: commit the scratch state (no --state file): file too large: the disk is full or the file reached its size limit (ulimit -f, a quota); free space in the temporary folder (or set TMPDIR to one with room), or raise the limit"},
		{"no temporary folder", filepath.Join(tmp, "none"), "", "ptfsh: state: making the scratch state (no --state file) in " + filepath.Join(tmp, "none") + ": no such file or directory; set TMPDIR to a folder that can be written, or give --state FILE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command("sh", "-c", tc.limit+`exec "$0" --format rows -e "$1" >/dev/null`, bin, q)
			cmd.Env = append(cmd.Environ(), "TMPDIR="+tc.tmpdir)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the run succeeded; output:\n%s", out)
			}
			if !strings.Contains(string(out), tc.want) {
				t.Errorf("the output does not hold %q:\n%s", tc.want, out)
			}
			if strings.Contains(string(out), "ptfsh-state-") {
				t.Errorf("the output names the scratch file:\n%s", out)
			}
		})
	}
}

// TestStateFile_sizeLimitSaysWhatToDo: a commit into a state file that
// meets a file size limit (as a full disk) says so and what to do, and
// that the file stays at its last checkpoint, which a next run opens.
func TestStateFile_sizeLimitSaysWhatToDo(t *testing.T) {
	bin := ptfshBinary(t)
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh for ulimit")
	}
	dir := t.TempDir()
	q := "CREATE TABLE g (n BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '30000', 'fields.n.kind' = 'sequence', 'fields.n.start' = '1', 'fields.n.end' = '30000');" +
		"SELECT COUNT(*) AS c FROM (SELECT n, COUNT(*) AS c FROM g GROUP BY n);"
	cmd := exec.Command("sh", "-c", `ulimit -f 256; exec "$0" --state s.db --format rows -e "$1" >/dev/null`, bin, "SET 'state.cache-size' = '2';"+q)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the run succeeded; output:\n%s", out)
	}
	want := "file too large: the disk is full or the file reached its size limit (ulimit -f, a quota); free space or raise the limit, and run again: the state file stays at its last checkpoint"
	if !strings.Contains(string(out), want) {
		t.Errorf("the output does not hold %q:\n%s", want, out)
	}
	// The file is whole: a run without the limit goes on from it.
	if out, err := exec.Command(bin, "--state", filepath.Join(dir, "s.db"), "--format", "rows", "-e", q).CombinedOutput(); err != nil || !strings.HasSuffix(string(out), "+U[30000]\n") {
		t.Errorf("the run after the failed commit: %v\n%s", err, out)
	}
}
