package tests

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/assembly"
)

// TestFileSink_rerun runs scripts that INSERT INTO file tables several
// times in one folder, as `ptfsh -f job.sql` does, with and without a
// state file, and checks each file, byte for byte, after each run. INSERT
// INTO adds rows, as Flink's filesystem sink adds part files: a file that
// was there keeps its rows, and a script run again adds its rows again.
// INSERT OVERWRITE replaces them. A run that resumes a script from its
// state file skips the INSERTs the run before finished, whose rows stay.
func TestFileSink_rerun(t *testing.T) {
	// run is one run of the script: with a state file or without,
	// after writing the files of before into the folder.
	type run struct {
		state   bool
		before  map[string]string
		wantErr string // a text of the error the run stops at
		want    map[string]string
	}
	const twoInserts = `CREATE TABLE o (name STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'out.csv', 'format' = 'csv');
INSERT INTO o VALUES ('a', 1), ('b', 2);
INSERT INTO o VALUES ('c', 3);
`
	const abc = "a,1\nb,2\nc,3\n"
	tests := []struct {
		name   string
		script string
		runs   []run
	}{
		{
			name:   "INSERT INTO adds the rows of each run",
			script: twoInserts,
			runs: []run{
				{want: map[string]string{"out.csv": abc}},
				{want: map[string]string{"out.csv": abc + abc}},
			},
		},
		{
			name:   "a file that was there keeps its rows",
			script: twoInserts,
			runs:   []run{{before: map[string]string{"out.csv": "old,0\n"}, want: map[string]string{"out.csv": "old,0\n" + abc}}},
		},
		{
			name: "INSERT OVERWRITE, then INSERT INTO the same file",
			script: `CREATE TABLE o (name STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'out.csv', 'format' = 'csv');
INSERT OVERWRITE o VALUES ('a', 1), ('b', 2);
INSERT INTO o VALUES ('c', 3);
`,
			runs: []run{{want: map[string]string{"out.csv": abc}}, {want: map[string]string{"out.csv": abc}}, {state: true, want: map[string]string{"out.csv": abc}}},
		},
		{
			// The second INSERT fails for want of its input; run again
			// over the same state file, the script skips the first,
			// whose rows stay, and runs the second.
			name: "a run that resumes keeps what the INSERTs it skips wrote",
			script: `CREATE TABLE o (name STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'out.csv', 'format' = 'csv');
INSERT INTO o VALUES ('a', 1), ('b', 2);
CREATE TABLE i (name STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
INSERT INTO o SELECT * FROM i;
`,
			runs: []run{
				{state: true, wantErr: "in.csv", want: map[string]string{"out.csv": "a,1\nb,2\n"}},
				{state: true, before: map[string]string{"in.csv": "c,3\n"}, want: map[string]string{"out.csv": abc}},
			},
		},
		{
			// Each run ends where its input ends for now, without
			// finishing: the next run over the state file goes on after
			// the rows read.
			name: "a run that goes on after its input's checkpointed position",
			script: `SET 'ptfsh.end-of-input' = 'false';
CREATE TABLE i (name STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'in.csv', 'format' = 'csv');
CREATE TABLE o (name STRING, n INT) WITH ('connector' = 'filesystem', 'path' = 'out.csv', 'format' = 'csv');
INSERT INTO o SELECT * FROM i;
`,
			runs: []run{
				{state: true, before: map[string]string{"in.csv": "a,1\nb,2\n"}, want: map[string]string{"out.csv": "a,1\nb,2\n"}},
				{state: true, before: map[string]string{"in.csv": abc}, want: map[string]string{"out.csv": abc}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			script := filepath.Join(dir, "job.sql")
			if err := os.WriteFile(script, []byte(tt.script), 0o644); err != nil {
				t.Fatal(err)
			}
			for i, r := range tt.runs {
				for name, text := range r.before {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				var out bytes.Buffer
				o := assembly.Options{Out: &out, BaseDir: dir}
				if r.state {
					o.StatePath = filepath.Join(dir, "state.db")
				}
				sh, err := assembly.New(o)
				if err != nil {
					t.Fatal(err)
				}
				err = sh.Session.Exec(context.Background(), script, tt.script)
				sh.Close()
				switch {
				case r.wantErr == "" && err != nil:
					t.Fatalf("run %d: %v\n%s", i+1, err, out.String())
				case r.wantErr != "" && (err == nil || !strings.Contains(err.Error(), r.wantErr)):
					t.Fatalf("run %d: error %v, want one that names %q", i+1, err, r.wantErr)
				}
				for name, want := range r.want {
					got, err := os.ReadFile(filepath.Join(dir, name))
					if err != nil {
						t.Fatalf("run %d: %v", i+1, err)
					}
					if diff := cmp.Diff(want, string(got)); diff != "" {
						t.Errorf("run %d (state file: %v): %s (-want +got):\n%s", i+1, r.state, name, diff)
					}
				}
			}
		})
	}
}
