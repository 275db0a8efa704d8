package state_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/state"
)

// TestOpenBolt_label: a store opened with a label is called by it, never
// by its path, in the errors of opening it and of using it.
func TestOpenBolt_label(t *testing.T) {
	const label = "the scratch state"
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("not a state file ", 300)), 0o600); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.db")
	st, err := state.OpenBolt(good, state.BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	for _, tc := range []struct {
		name, path string
		opts       state.BoltOptions
		use        func(state.Store) error
		want       string
		is         error
	}{
		{name: "a folder", path: dir, want: "state: open the scratch state: is a directory"},
		{name: "not a state file", path: garbage, want: "the scratch state is corrupt: ", is: state.ErrCorrupt},
		{name: "no folder", path: filepath.Join(dir, "none", "state.db"), want: "state: open the scratch state: no such file or directory"},
		{
			name: "read-only", path: good, opts: state.BoltOptions{ReadOnly: true},
			use:  func(st state.Store) error { return st.Update(func(state.Tx) error { return nil }) },
			want: "state: update the scratch state: state is read-only", is: state.ErrReadOnly,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Label = label
			st, err := state.OpenBolt(tc.path, tc.opts)
			if err == nil {
				defer st.Close()
				err = tc.use(st)
			}
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to start with %q", err, tc.want)
			}
			if strings.Contains(err.Error(), dir) {
				t.Errorf("error %q names the file's path", err)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
		})
	}
}
