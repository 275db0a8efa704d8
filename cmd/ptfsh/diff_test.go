package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// lcsLen is the length of a longest common subsequence of a and b, by the
// quadratic table (small inputs only).
func lcsLen(a, b []string) int {
	t := make([][]int, len(a)+1)
	for i := range t {
		t[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	return t[0][0]
}

// checkDiff runs diffLines over a and b and checks that its lines are a
// (the ' ' and '-' ones) and b (the ' ' and '+' ones) in order; it
// returns how many lines were common.
func checkDiff(t *testing.T, a, b []string) int {
	t.Helper()
	var gotA, gotB []string
	same := 0
	diffLines(a, b, func(op byte, line string) {
		switch op {
		case ' ':
			gotA, gotB = append(gotA, line), append(gotB, line)
			same++
		case '-':
			gotA = append(gotA, line)
		case '+':
			gotB = append(gotB, line)
		default:
			t.Fatalf("op %q", op)
		}
	})
	if strings.Join(gotA, "\n") != strings.Join(a, "\n") || len(gotA) != len(a) {
		t.Fatalf("the diff's old lines are not a:\n%q\n%q", gotA, a)
	}
	if strings.Join(gotB, "\n") != strings.Join(b, "\n") || len(gotB) != len(b) {
		t.Fatalf("the diff's new lines are not b:\n%q\n%q", gotB, b)
	}
	return same
}

// TestDiffLines_minimal: on inputs that differ in a few places, the lines
// diffLines keeps in common are a longest common subsequence, and the
// removed and added lines of each change come in that order.
func TestDiffLines_minimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "b", "c", "d", "e", "f", ""}
	for n := range 400 {
		a := make([]string, rng.IntN(30))
		for i := range a {
			a[i] = words[rng.IntN(len(words))]
		}
		b := append([]string(nil), a...)
		for range rng.IntN(5) {
			switch i := rng.IntN(len(b) + 1); {
			case rng.IntN(3) == 0 && i < len(b):
				b = append(b[:i], b[i+1:]...)
			case rng.IntN(2) == 0 && i < len(b):
				b[i] = words[rng.IntN(len(words))]
			default:
				b = append(b[:i], append([]string{words[rng.IntN(len(words))]}, b[i:]...)...)
			}
		}
		if same, want := checkDiff(t, a, b), lcsLen(a, b); same != want {
			t.Fatalf("case %d: %d lines in common, want %d\na=%q\nb=%q", n, same, want, a, b)
		}
	}
	var ops []string
	diffLines([]string{"h", "a", "f"}, []string{"h", "b", "f"}, func(op byte, line string) {
		ops = append(ops, string(op)+line)
	})
	if got := strings.Join(ops, " "); got != " h -a +b  f" {
		t.Errorf("ops %q, want %q", got, " h -a +b  f")
	}
}

// TestDiffLines_large: two outputs of 200,000 lines that differ on every
// line but a few give a correct diff without a table of lines times lines
// (which would take 160 GB), and one change in a long output is found as
// one change.
func TestDiffLines_large(t *testing.T) {
	const n = 200_000
	a, b := make([]string, n), make([]string, n)
	for i := range n {
		a[i], b[i] = fmt.Sprint("old ", i), fmt.Sprint("new ", i)
		if i%50_000 == 0 {
			b[i] = a[i]
		}
	}
	if same := checkDiff(t, a, b); same > 4 {
		t.Errorf("%d lines in common, want at most 4", same)
	}
	c := append([]string(nil), a...)
	c[n/2] = "changed"
	changes := 0
	diffLines(a, c, func(op byte, _ string) {
		if op != ' ' {
			changes++
		}
	})
	if changes != 2 {
		t.Errorf("%d lines changed, want 2", changes)
	}
}
