package expr

import (
	"sync"
	"time"

	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// RAND and RAND_INTEGER draw from Java's java.util.Random, as Flink's
// generated code does: RAND(seed) and RAND_INTEGER(seed, bound) with a
// literal seed give the numbers Flink gives (one generator per call of
// the query, seeded once); a seed that is no literal seeds a new
// generator for each row, as in Flink. Without a seed Flink's generator is
// seeded by the clock; ptfsh seeds it from SET 'ptfsh.seed' (Scope.Seed)
// and the call's place in the statement, so that a run repeats, else from
// the clock.

// javaRandom is java.util.Random's linear congruential generator: the
// same seed gives the same numbers as in Java.
type javaRandom struct {
	seed int64
}

const (
	javaRandMultiplier = 0x5DEECE66D
	javaRandMask       = (1 << 48) - 1
)

func newJavaRandom(seed int64) *javaRandom {
	return &javaRandom{seed: (seed ^ javaRandMultiplier) & javaRandMask}
}

// next is Random.next(bits).
func (r *javaRandom) next(bits uint) int32 {
	r.seed = (r.seed*javaRandMultiplier + 0xB) & javaRandMask
	return int32(r.seed >> (48 - bits))
}

// nextDouble is Random.nextDouble(): a double in [0, 1).
func (r *javaRandom) nextDouble() float64 {
	return float64(int64(r.next(26))<<27+int64(r.next(27))) * (1.0 / (1 << 53))
}

// nextInt is Random.nextInt(bound), bound > 0: an int in [0, bound).
func (r *javaRandom) nextInt(bound int32) int32 {
	n := r.next(31)
	m := bound - 1
	if bound&m == 0 { // a power of two
		return int32((int64(bound) * int64(n)) >> 31)
	}
	// Java's loop, with its int arithmetic that wraps: it rejects the
	// draws of the last, partial run of bound values.
	for u := n; ; u = r.next(31) {
		n = u % bound
		if u-n+m >= 0 {
			return n
		}
	}
}

// compileRand compiles RAND([seed]) and RAND_INTEGER([seed,] bound).
func compileRand(c *call) (Expr, error) {
	integer := c.name == "RAND_INTEGER"
	lo := 0
	if integer {
		lo = 1
	}
	if err := c.plainArity(lo, lo+1); err != nil {
		return nil, err
	}
	for i := range c.args {
		if err := c.wantInteger(i); err != nil {
			return nil, err
		}
	}
	hasSeed := len(c.args) == lo+1
	t := types.TypeDouble.AsNotNull()
	if integer {
		t = types.TypeInt.AsNotNull()
	}
	for _, a := range c.args {
		if !a.Type().NotNull {
			t = t.Nullable()
		}
	}
	var bound Expr
	if integer {
		bound = c.args[len(c.args)-1]
	}
	pos := c.f.Pos
	draw := func(r *javaRandom, row []any) (any, error) {
		if !integer {
			return r.nextDouble(), nil
		}
		b, err := bound.Eval(row)
		if b == nil || err != nil {
			return nil, err
		}
		n := b.(int64)
		if n <= 0 || n > 1<<31-1 {
			return nil, sqlmini.Errorf(pos, "RAND_INTEGER: bound must be positive (and at most 2147483647), not %d", n)
		}
		return int64(r.nextInt(int32(n))), nil
	}
	if hasSeed && !c.args[0].IsConstant() {
		seedArg := c.args[0]
		return &funcExpr{t: t, f: func(row []any) (any, error) {
			s, err := seedArg.Eval(row)
			if s == nil || err != nil {
				return nil, err
			}
			return draw(newJavaRandom(int64(int32(s.(int64)))), row)
		}}, nil
	}
	var seed int64
	switch {
	case hasSeed:
		s, err := c.args[0].Eval(nil)
		if err != nil {
			return nil, err
		}
		if s == nil {
			return &Constant{t: t}, nil
		}
		seed = int64(int32(s.(int64))) // Flink's seed is an INT
	case c.sc != nil && c.sc.Seed != nil:
		// The call's place tells the RAND() calls of a statement apart.
		seed = int64(uint64(*c.sc.Seed) ^ uint64(pos.Offset)*0x9E3779B97F4A7C15)
	default:
		seed = time.Now().UnixNano()
	}
	var mu sync.Mutex // an expression may be evaluated on several workers
	r := newJavaRandom(seed)
	return &funcExpr{t: t, f: func(row []any) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		return draw(r, row)
	}}, nil
}
