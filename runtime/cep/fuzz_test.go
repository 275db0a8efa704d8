package cep_test

import (
	"testing"

	"github.com/ptfsh/ptfsh/runtime/cep"
)

// FuzzNFA compiles patterns of up to four variables with any quantifier
// and skip strategy, runs rows of three letters through them, and checks
// that nothing panics and that every match is one Flink could give: its
// rows are consecutive (strict contiguity), its variables come in pattern
// order, each variable holds a number of rows its quantifier allows, and
// each row satisfies its variable's condition.
//
//	go test ./runtime/cep -run '^$' -fuzz FuzzNFA -fuzztime 1m
func FuzzNFA(f *testing.F) {
	f.Add([]byte{1, 2, 3, 0}, []byte("abcabcaabbc"), byte(0), int64(0))
	f.Add([]byte{5, 1, 9}, []byte("aaabbbccc"), byte(1), int64(3))
	f.Add([]byte{13, 7}, []byte("abababab"), byte(2), int64(0))
	f.Fuzz(func(t *testing.T, pat, rows []byte, skip byte, within int64) {
		if len(pat) == 0 || len(pat) > 4 || len(rows) > 40 {
			return
		}
		quants := [][3]int{{1, 1, 0}, {0, -1, 0}, {1, -1, 0}, {0, 1, 0}, {2, 2, 0}, {2, -1, 0}, {1, 3, 0},
			{0, -1, 1}, {1, -1, 1}, {0, 1, 1}, {2, -1, 1}, {1, 3, 1}, {0, 2, 0}, {0, 2, 1}}
		spec := cep.Spec{Skip: cep.SkipKind(skip % 4), Within: within % 16}
		if spec.Within < 0 {
			spec.Within = -spec.Within
		}
		accept := make([]string, len(pat))
		for i, p := range pat {
			q := quants[int(p)%len(quants)]
			spec.Vars = append(spec.Vars, cep.Var{Name: string(rune('A' + i)), Min: q[0], Max: q[1], Reluctant: q[2] == 1})
			accept[i] = []string{"a", "b", "c", "ab", "bc", ""}[int(p/16)%6]
		}
		if spec.Skip >= cep.SkipToFirst {
			spec.SkipVar = spec.Vars[int(skip/4)%len(spec.Vars)].Name
		}
		n, err := cep.Compile(spec)
		if err != nil {
			return
		}
		names := make([]string, len(rows))
		for i, r := range rows {
			names[i] = string(rune('a' + int(r)%3))
		}
		c := letters{rows: names, accept: accept}
		st := n.NewState()
		for i := range names {
			if _, err := n.AdvanceTime(st, int64(i)); err != nil {
				t.Fatal(err)
			}
			ms, err := n.Process(st, cep.Event{ID: int64(i), TS: int64(i)}, c)
			if err != nil {
				return // a skip to a variable the match lacks: Flink's runtime error
			}
			for _, m := range ms {
				check(t, spec, c, m, int64(i))
			}
		}
	})
}

func check(t *testing.T, spec cep.Spec, c letters, m cep.Match, at int64) {
	t.Helper()
	if len(m) == 0 {
		t.Fatal("an empty match")
	}
	if m[len(m)-1].Event.ID != at {
		t.Fatalf("a match completed at row %d ends at row %d", at, m[len(m)-1].Event.ID)
	}
	counts := make([]int, len(spec.Vars))
	for i, s := range m {
		if i > 0 && (s.Event.ID != m[i-1].Event.ID+1 || s.Var < m[i-1].Var) {
			t.Fatalf("rows not consecutive or variables out of order: %v", m)
		}
		counts[s.Var]++
		if ok, _ := c.Cond(s.Var, nil, s.Event); !ok {
			t.Fatalf("row %d does not satisfy %s: %v", s.Event.ID, spec.Vars[s.Var].Name, m)
		}
	}
	for v, n := range counts {
		q := spec.Vars[v]
		if n < q.Min || (q.Max >= 0 && n > q.Max) {
			t.Fatalf("%s holds %d rows, outside {%d,%d}: %v", q.Name, n, q.Min, q.Max, m)
		}
	}
	if spec.Within > 0 && m[len(m)-1].Event.TS-m[0].Event.TS >= spec.Within {
		t.Fatalf("a match longer than WITHIN %d: %v", spec.Within, m)
	}
}

// FuzzReadState: any bytes decode to a state or an error, never a panic,
// and a state decoded goes on matching rows.
func FuzzReadState(f *testing.F) {
	spec := cep.Spec{Vars: vars("a b+ c?")}
	n, err := cep.Compile(spec)
	if err != nil {
		f.Fatal(err)
	}
	st := n.NewState()
	c := letters{rows: []string{"a", "b", "b", "a", "b"}, accept: []string{"a", "b", "c"}}
	for i := range c.rows {
		if _, err := n.Process(st, cep.Event{ID: int64(i), TS: int64(i)}, c); err != nil {
			f.Fatal(err)
		}
		f.Add(st.AppendState(nil))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		st, _, err := n.ReadState(b)
		if err != nil {
			return
		}
		rows := letters{rows: []string{"a", "b", "c"}, accept: c.accept}
		for i := range rows.rows {
			if _, err := n.AdvanceTime(st, int64(i)); err != nil {
				return
			}
			if _, err := n.Process(st, cep.Event{ID: int64(i), TS: int64(i)}, rows); err != nil {
				return
			}
		}
	})
}
