package connector

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
	"github.com/ptfsh/ptfsh/state"
)

func stdinTable(format string, cols ...types.Column) *catalog.Table {
	return &catalog.Table{Name: "in", Kind: catalog.TableConnector,
		Schema: types.Schema{Columns: cols}, Options: map[string]string{"connector": "stdin", "format": format}}
}

// next calls Next until it returns something other than EvIdle, waiting
// for the source's wake-up in between, at most d in all.
func nextLive(t *testing.T, ex *exec.Execution, s exec.Stream, d time.Duration) exec.Event {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		ev, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind != exec.EvIdle {
			return ev
		}
		if time.Now().After(deadline) {
			t.Fatalf("no event within %v", d)
		}
		ex.Live().Wait(50*time.Millisecond, nil)
	}
}

// TestStdin_pipe reads rows as a pipe gives them: nothing blocks, a row
// comes when its line is whole, and the end of the pipe ends the table.
func TestStdin_pipe(t *testing.T) {
	pr, pw := io.Pipe()
	pump := NewStdinPump(pr)
	tb := stdinTable("csv", types.Column{Name: "name", Type: types.TypeString}, types.Column{Name: "n", Type: types.Type{Kind: types.KindInt}})
	node, err := stdinConnector{}.Scan(tb, Env{Stdin: pump}, stdinPos)
	if err != nil {
		t.Fatal(err)
	}
	ex := exec.NewExecution(context.Background(), state.NewMem(), exec.DefaultOptions())
	s, err := node.Open(ex)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if ev, err := s.Next(); err != nil || ev.Kind != exec.EvIdle {
		t.Fatalf("before any line: %v, %v; want EvIdle", ev, err)
	}
	if !ex.Live().HasSources() {
		t.Error("a stdin table is not a live source")
	}
	go pw.Write([]byte("bob,1\nal"))
	ev := nextLive(t, ex, s, 5*time.Second)
	if ev.Kind != exec.EvRow || ev.Row.Fields[0] != "bob" || ev.Row.Fields[1] != int64(1) {
		t.Fatalf("first event %+v; want the row of bob", ev)
	}
	if ev, _ := s.Next(); ev.Kind != exec.EvIdle {
		t.Fatalf("half a line gave %+v; want EvIdle", ev)
	}
	go func() { pw.Write([]byte("ice,2\n")); pw.Close() }()
	ev = nextLive(t, ex, s, 5*time.Second)
	if ev.Kind != exec.EvRow || ev.Row.Fields[0] != "alice" {
		t.Fatalf("second event %+v; want the row of alice", ev)
	}
	if ev := nextLive(t, ex, s, 5*time.Second); ev.Kind != exec.EvEnd {
		t.Fatalf("after the pipe closed: %+v; want EvEnd", ev)
	}
}

// TestStdin_stop ends a table at a stop, and the lines not read stay for
// the next statement.
func TestStdin_stop(t *testing.T) {
	pump := NewStdinPump(strings.NewReader("a\nb\nc\n"))
	tb := stdinTable("raw", types.Column{Name: "line", Type: types.TypeString})
	node, _ := stdinConnector{}.Scan(tb, Env{Stdin: pump}, stdinPos)
	ex := exec.NewExecution(context.Background(), state.NewMem(), exec.DefaultOptions())
	s, err := node.Open(ex)
	if err != nil {
		t.Fatal(err)
	}
	if ev := nextLive(t, ex, s, 5*time.Second); ev.Kind != exec.EvRow || ev.Row.Fields[0] != "a" {
		t.Fatalf("first event %+v", ev)
	}
	if _, err := node.Open(exec.NewExecution(context.Background(), state.NewMem(), exec.DefaultOptions())); err == nil || !strings.Contains(err.Error(), "read once per statement") {
		t.Errorf("a second reader at once: %v", err)
	}
	ex.Live().Stop()
	ex.BeginStop() // the driver does, between two events
	if ev, err := s.Next(); err != nil || ev.Kind != exec.EvEnd {
		t.Fatalf("after the stop: %+v, %v; want EvEnd", ev, err)
	}
	s.Close()
	ex2 := exec.NewExecution(context.Background(), state.NewMem(), exec.DefaultOptions())
	s2, err := node.Open(ex2)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	var got []string
	for {
		ev := nextLive(t, ex2, s2, 5*time.Second)
		if ev.Kind == exec.EvEnd {
			break
		}
		got = append(got, ev.Row.Fields[0].(string))
	}
	if strings.Join(got, ",") != "b,c" {
		t.Errorf("the next statement read %q; want the lines the first did not", got)
	}
}

// TestStdin_validate refuses what the connector cannot read.
func TestStdin_validate(t *testing.T) {
	cases := []struct {
		format string
		cols   []types.Column
		want   string
	}{
		{"raw", []types.Column{{Name: "a", Type: types.TypeString}, {Name: "b", Type: types.TypeString}}, "exactly one STRING or BYTES column"},
		{"raw", []types.Column{{Name: "a", Type: types.Type{Kind: types.KindInt}}}, "exactly one STRING or BYTES column"},
		{"parquet", []types.Column{{Name: "a", Type: types.TypeString}}, "unsupported format 'parquet'"},
		{"", []types.Column{{Name: "a", Type: types.TypeString}}, "needs a 'format' option"},
	}
	for _, c := range cases {
		tb := stdinTable(c.format, c.cols...)
		if c.format == "" {
			delete(tb.Options, "format")
		}
		err := stdinConnector{}.Validate(tb, stdinCreate())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("format %q: %v; want %q", c.format, err, c.want)
		}
	}
}

var stdinPos = sqlmini.Pos{Filename: "t.sql", Line: 1, Column: 1}

func stdinCreate() *sqlmini.CreateTable { return &sqlmini.CreateTable{Pos: stdinPos} }
