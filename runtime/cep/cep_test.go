package cep_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/cep"
)

// letters is a Conds over rows named by letters: variable v matches the
// rows whose letter is in accept[v] (a variable with "" matches all).
type letters struct {
	rows   []string
	accept []string
}

func (l letters) Cond(v int, _ []cep.Step, ev cep.Event) (bool, error) {
	a := l.accept[v]
	return a == "" || strings.Contains(a, l.rows[ev.ID][:1]), nil
}

// run feeds rows (one a millisecond) and prints each match as
// "var:row var:row", the matches separated by " | ". The state goes
// through its encoding after every row, as it goes to the state store
// between two rows of its partition.
func run(t *testing.T, spec cep.Spec, accept []string, rows ...string) string {
	t.Helper()
	n, err := cep.Compile(spec)
	if err != nil {
		t.Fatal(err)
	}
	st := n.NewState()
	c := letters{rows: rows, accept: accept}
	var out []string
	for i := range rows {
		ms, err := n.Process(st, cep.Event{ID: int64(i), TS: int64(i)}, c)
		if err != nil {
			return "error: " + err.Error()
		}
		st = roundTrip(t, n, st)
		for _, m := range ms {
			var parts []string
			for _, s := range m {
				parts = append(parts, spec.Vars[s.Var].Name+":"+rows[s.Event.ID])
			}
			out = append(out, strings.Join(parts, " "))
		}
	}
	return strings.Join(out, " | ")
}

// roundTrip returns st decoded from its encoding, which must be what the
// decoded state encodes to, followed by nothing.
func roundTrip(t *testing.T, n *cep.NFA, st *cep.State) *cep.State {
	t.Helper()
	b := st.AppendState([]byte("head"))
	got, rest, err := n.ReadState(b[4:])
	if err != nil || len(rest) != 0 {
		t.Fatalf("ReadState: %v, %d bytes left", err, len(rest))
	}
	if again := got.AppendState(nil); string(again) != string(b[4:]) {
		t.Fatalf("the decoded state encodes to %x, want %x", again, b[4:])
	}
	return got
}

func vars(spec string) []cep.Var {
	var vs []cep.Var
	for _, f := range strings.Fields(spec) {
		v := cep.Var{Name: f[:1], Min: 1, Max: 1}
		q := f[1:]
		if strings.HasSuffix(q, "?") && len(q) > 1 {
			v.Reluctant, q = true, q[:len(q)-1]
		}
		switch q {
		case "*":
			v.Min, v.Max = 0, -1
		case "+":
			v.Min, v.Max = 1, -1
		case "?":
			v.Min, v.Max = 0, 1
		case "{2}":
			v.Min, v.Max = 2, 2
		case "{2,}":
			v.Min, v.Max = 2, -1
		case "{1,3}":
			v.Min, v.Max = 1, 3
		case "{0,2}":
			v.Min, v.Max = 0, 2
		}
		vs = append(vs, v)
	}
	return vs
}

func TestNFA_Process(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		skip    cep.SkipKind
		skipVar string
		accept  []string
		rows    []string
		want    string
	}{
		{"sequence", "A B C", cep.SkipToNextRow, "", []string{"a", "b", "c"},
			[]string{"a1", "z2", "b3", "c4", "d5", "a6", "b7", "c8", "h9"}, "A:a6 B:b7 C:c8"},
		{"one or more reluctant then end", "A+? B", cep.SkipToNextRow, "", []string{"a", "b"},
			[]string{"a1", "a2", "b3"}, "A:a1 A:a2 B:b3 | A:a2 B:b3"},
		{"past last row", "A+? B", cep.SkipPastLastRow, "", []string{"a", "b"},
			[]string{"a1", "a2", "b3"}, "A:a1 A:a2 B:b3"},
		{"greedy one or more", "A+ B", cep.SkipPastLastRow, "", []string{"ab", "b"},
			[]string{"a1", "b2", "b3", "c4"}, ""},
		{"greedy stops where the next takes", "A+ B", cep.SkipPastLastRow, "", []string{"a", "ab"},
			[]string{"a1", "a2", "b3"}, "A:a1 A:a2 B:b3"},
		{"optional", "A B? C", cep.SkipPastLastRow, "", []string{"a", "b", "c"},
			[]string{"a1", "c2", "a3", "b4", "c5"}, "A:a1 C:c2 | A:a3 B:b4 C:c5"},
		{"times", "A{2} B", cep.SkipPastLastRow, "", []string{"a", "b"},
			[]string{"a1", "b2", "a3", "a4", "a5", "b6"}, "A:a4 A:a5 B:b6"},
		{"times or more", "A{2,} B", cep.SkipToNextRow, "", []string{"a", "b"},
			[]string{"a1", "a2", "a3", "b4"}, "A:a1 A:a2 A:a3 B:b4 | A:a2 A:a3 B:b4"},
		{"skip to last", "A B+? C", cep.SkipToLast, "B", []string{"a", "ab", "c"},
			[]string{"a1", "a2", "b3", "c4"}, "A:a1 B:a2 B:b3 C:c4"},
		{"skip to first of the first", "A B", cep.SkipToFirst, "A", []string{"a", "b"},
			[]string{"a1", "b2"}, "error: Could not skip to first element of a match."},
		{"star", "A B* C", cep.SkipPastLastRow, "", []string{"a", "b", "c"},
			[]string{"a1", "c2", "a3", "b4", "b5", "c6"}, "A:a1 C:c2 | A:a3 B:b4 B:b5 C:c6"},
		{"between one and three", "A{1,3} B", cep.SkipToNextRow, "", []string{"a", "b"},
			[]string{"a1", "a2", "a3", "a4", "b5"}, "A:a2 A:a3 A:a4 B:b5 | A:a3 A:a4 B:b5 | A:a4 B:b5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, cep.Spec{Vars: vars(tt.pattern), Skip: tt.skip, SkipVar: tt.skipVar}, tt.accept, tt.rows...)
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestCompile_errors(t *testing.T) {
	tests := []struct {
		pattern string
		want    error
	}{
		{"A B?? C", cep.ErrReluctantOptional},
		{"A*", cep.ErrEmptyMatches},
		{"A? B*", cep.ErrEmptyMatches},
		{"A B+", cep.ErrGreedyLast},
		{"A B{2,}", cep.ErrGreedyLast},
		{"A B{1,3}", cep.ErrGreedyLast},
		{"A A", cep.ErrNotUnique},
	}
	for _, tt := range tests {
		_, err := cep.Compile(cep.Spec{Vars: vars(tt.pattern)})
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.pattern, err, tt.want)
		}
	}
	if _, err := cep.Compile(cep.Spec{Vars: vars("A B"), Skip: cep.SkipToLast, SkipVar: "C"}); !errors.Is(err, cep.ErrSkipVar) {
		t.Errorf("skip to an unknown variable: got %v", err)
	}
	for _, ok := range []string{"A B+?", "A B{2}", "A? B", "A* B", "A B{1,3}?"} {
		if _, err := cep.Compile(cep.Spec{Vars: vars(ok)}); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

func TestNFA_AdvanceTime(t *testing.T) {
	n, err := cep.Compile(cep.Spec{Vars: vars("A B"), Skip: cep.SkipPastLastRow, Within: 10})
	if err != nil {
		t.Fatal(err)
	}
	st := n.NewState()
	c := letters{rows: []string{"a", "b"}, accept: []string{"a", "b"}}
	if _, err := n.Process(st, cep.Event{ID: 0, TS: 0}, c); err != nil {
		t.Fatal(err)
	}
	if st.Idle() {
		t.Fatal("a partial match should be open")
	}
	if _, err := n.AdvanceTime(st, 10); err != nil {
		t.Fatal(err)
	}
	if !st.Idle() {
		t.Fatal("WITHIN 10 ms should have timed the partial match out at 10")
	}
	ms, err := n.Process(st, cep.Event{ID: 1, TS: 10}, c)
	if err != nil || len(ms) != 0 {
		t.Fatalf("a row after the timeout completed %v (%v)", ms, err)
	}
}
