package connector

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

func followTable(dir, path string) *catalog.Table {
	return &catalog.Table{Name: "f", Kind: catalog.TableConnector, BaseDir: dir,
		Schema:  types.Schema{Columns: []types.Column{{Name: "name", Type: types.TypeString}, {Name: "n", Type: types.Type{Kind: types.KindInt}}}},
		Options: map[string]string{"connector": "filesystem", "path": path, "format": "csv", OptMonitorInterval: "50 ms"}}
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// names reads rows until the source is idle with nothing new, and returns
// their names.
func names(t *testing.T, ex *exec.Execution, s exec.Stream) []string {
	t.Helper()
	var got []string
	for {
		ev, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Kind {
		case exec.EvRow:
			got = append(got, ev.Row.Fields[0].(string))
		case exec.EvIdle:
			return got
		case exec.EvEnd:
			t.Fatal("a followed file ended")
		}
	}
}

func openFollowed(t *testing.T, tb *catalog.Table, st state.Store) (*exec.Execution, exec.Stream) {
	t.Helper()
	ex := exec.NewExecution(context.Background(), st, exec.DefaultOptions())
	s, err := NewFileNode(tb, 0, stdinPos).Open(ex)
	if err != nil {
		t.Fatal(err)
	}
	if !ex.Live().HasSources() {
		t.Fatal("a followed file is not a live source")
	}
	return ex, s
}

// TestFollow_file reads what is appended to a followed file, line by
// line as lines are completed, and ends at a stop.
func TestFollow_file(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.csv")
	appendFile(t, path, "a,1\nb,2\n")
	ex, s := openFollowed(t, followTable(dir, "f.csv"), state.NewMem())
	defer s.Close()
	if got := names(t, ex, s); strings.Join(got, ",") != "a,b" {
		t.Fatalf("first read %q", got)
	}
	appendFile(t, path, "c,3\nd,")
	if got := names(t, ex, s); strings.Join(got, ",") != "c" {
		t.Fatalf("after appending: %q; want c (d's line is not complete)", got)
	}
	appendFile(t, path, "4\n")
	if got := names(t, ex, s); strings.Join(got, ",") != "d" {
		t.Fatalf("after completing d: %q", got)
	}
	ex.Live().Stop()
	ex.BeginStop() // the driver does, between two events
	if ev, err := s.Next(); err != nil || ev.Kind != exec.EvEnd {
		t.Fatalf("after a stop: %+v, %v; want EvEnd", ev, err)
	}
}

// TestFollow_changed refuses a followed file that was cut shorter or
// replaced.
func TestFollow_changed(t *testing.T) {
	for _, how := range []string{"truncated", "replaced", "removed"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "f.csv")
			appendFile(t, path, "a,1\nb,2\n")
			ex, s := openFollowed(t, followTable(dir, "f.csv"), state.NewMem())
			defer s.Close()
			names(t, ex, s)
			switch how {
			case "truncated":
				os.WriteFile(path, []byte("a,1\n"), 0o644)
			case "replaced":
				os.WriteFile(path+".new", []byte("a,1\nb,2\nc,3\n"), 0o644)
				os.Rename(path+".new", path)
			case "removed":
				os.Remove(path)
			}
			_, err := s.Next()
			want := map[string]string{"truncated": "was cut shorter", "replaced": "was replaced by another file", "removed": "is gone"}[how]
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("after the file was %s: %v; want an error that says it %s", how, err, want)
			}
		})
	}
}

// TestFollow_folder reads the files added to a followed folder, each
// once, and a restart goes on after the last checkpoint.
func TestFollow_folder(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "in")
	os.Mkdir(folder, 0o755)
	appendFile(t, filepath.Join(folder, "1.csv"), "a,1\n")
	st := state.NewMem()
	tb := followTable(dir, "in")
	ex, s := openFollowed(t, tb, st)
	if got := names(t, ex, s); strings.Join(got, ",") != "a" {
		t.Fatalf("first read %q", got)
	}
	appendFile(t, filepath.Join(folder, "2.csv"), "b,2\nc,3\n")
	appendFile(t, filepath.Join(folder, ".3.csv"), "hidden,0\n")
	time.Sleep(60 * time.Millisecond) // the folder's interval
	if got := names(t, ex, s); strings.Join(got, ",") != "b,c" {
		t.Fatalf("after adding a file: %q", got)
	}
	// A checkpoint, then a new run: it reads only what came after.
	if err := st.Update(func(tx state.Tx) error {
		for _, src := range ex.Sources {
			if err := src.Checkpoint(tx, false, true); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	appendFile(t, filepath.Join(folder, "4.csv"), "d,4\n")
	ex2, s2 := openFollowed(t, tb, st)
	defer s2.Close()
	if got := names(t, ex2, s2); strings.Join(got, ",") != "d" {
		t.Fatalf("the next run read %q; want only d", got)
	}
}
