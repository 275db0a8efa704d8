package expr_test

import (
	"testing"

	"github.com/ptfsh/ptfsh/runtime/expr"
)

// draws compiles src with scope and evaluates it n times.
func draws(t *testing.T, src string, sc *expr.Scope, n int) []any {
	t.Helper()
	c := compileIn(t, sc, src)
	var out []any
	for range n {
		v, err := c.Eval(nil)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// TestRandSeeded: RAND() and RAND_INTEGER(bound) without a seed of their
// own repeat their numbers under the same Scope.Seed, differ under
// another, and each call of a statement draws its own numbers.
func TestRandSeeded(t *testing.T) {
	one, two := int64(1), int64(2)
	for _, src := range []string{"RAND()", "RAND_INTEGER(1000000)"} {
		a := draws(t, src, &expr.Scope{Seed: &one}, 5)
		b := draws(t, src, &expr.Scope{Seed: &one}, 5)
		c := draws(t, src, &expr.Scope{Seed: &two}, 5)
		if !equalAny(a, b) {
			t.Errorf("%s under the same seed: %v, then %v", src, a, b)
		}
		if equalAny(a, c) {
			t.Errorf("%s under seeds 1 and 2: both %v", src, a)
		}
		// The same call further on in a statement: another generator.
		d := draws(t, "0 + "+src, &expr.Scope{Seed: &one}, 5)
		if equalAny(a, d) {
			t.Errorf("%s at two places of a statement: both %v", src, a)
		}
	}
}

func equalAny(a, b []any) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}
