package script_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/runtime/exec/ptfop"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/script"
)

// scalarHarness loads a function without table arguments and returns a
// harness that calls it once per Process.
func scalarHarness(t *testing.T, e *script.Engine, src string) *ptfop.Harness {
	t.Helper()
	def, err := e.Load("f", "f.js", src)
	if err != nil {
		t.Fatal(err)
	}
	h, err := ptfop.NewHarness(def, types.Schema{}, ptfop.HarnessOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func TestEngine_Set(t *testing.T) {
	e := newEvalEngine(t)
	tests := []struct {
		key, value string
		err        string
	}{
		{"ptf.eval-timeout", "10 s", ""},
		{"ptf.eval-timeout", "1m30s", ""},
		{"ptf.eval-timeout", "0", ""},
		{"ptf.eval-timeout", "-1 s", `invalid duration "-1 s"`},
		{"ptf.max-memory", "1 gb", ""},
		{"ptf.max-memory", "1048576", ""},
		{"ptf.max-memory", "64MB", ""},
		{"ptf.max-memory", "0", ""},
		{"ptf.max-memory", "1.5 gb", `invalid size "1.5 gb"`},
		{"ptf.max-memory", "99999999999 tb", `invalid size "99999999999 tb": too large`},
		{"ptf.max-rows-per-call", "1000", ""},
		{"ptf.max-rows-per-call", "many", `invalid number of rows "many"`},
		{"ptf.max-call-depth", "100001", `invalid call depth "100001": want a whole number from 1 to 100000`},
		{"ptf.max-call-depth", "5000", ""},
		{"ptfsh.seed", "9223372036854775807", ""},
		{"ptfsh.seed", "1.5", `invalid seed "1.5"`},
		{"some.other.key", "anything", ""},
	}
	for _, tc := range tests {
		err := e.Set(tc.key, tc.value)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("Set(%q, %q) = %v", tc.key, tc.value, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("Set(%q, %q) = %v, want %s", tc.key, tc.value, err, tc.err)
		}
	}
}

func TestEngine_SetMaxRowsPerCall(t *testing.T) {
	e := newEvalEngine(t)
	h := scalarHarness(t, e, `export default {
  output: "INT",
  eval(ctx) { for (let i = 0; i < 5; i++) ctx.collect(i); },
};`)
	e.SetMaxRowsPerCall(5)
	if got := process(t, h); got != "+I[0]\n+I[1]\n+I[2]\n+I[3]\n+I[4]" {
		t.Errorf("at the limit: %s", got)
	}
	e.SetMaxRowsPerCall(4)
	_, err := h.Process()
	want := "f.js:3:47: f: call collected more than 4 rows; to allow more, SET 'ptf.max-rows-per-call' to a larger number ('0' for no limit)"
	if err == nil || err.Error() != want || !errors.Is(err, ptf.ErrLimit) {
		t.Errorf("over the limit: %v\nwant %s", err, want)
	}
	// The count starts again with each call.
	e.SetMaxRowsPerCall(0)
	for range 2 {
		if _, err := h.Process(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestEngine_SetMaxCallDepth(t *testing.T) {
	e := newEvalEngine(t)
	h := scalarHarness(t, e, `function depth(n) { return n === 0 ? 0 : 1 + depth(n - 1); }
export default { output: "INT", eval(ctx) { ctx.collect(depth(300)); } };`)
	if got := process(t, h); got != "+I[300]" {
		t.Errorf("got %s", got)
	}
	e.SetMaxCallDepth(200)
	_, err := h.Process()
	var se *script.Error
	if !errors.As(err, &se) || !errors.Is(err, ptf.ErrLimit) || !strings.Contains(se.Msg, "exceeded 200 nested calls") {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(se.Stack, " more frames\n") || strings.Count(se.Stack, "\n") != 16 {
		t.Errorf("stack not cut to 16 frames and a count:\n%s", se.Stack)
	}
	if line, col, ok := se.SourceLine(); !ok || col != 46 || !strings.HasPrefix(line, "function depth(n)") {
		t.Errorf("SourceLine() = %q, %d, %v", line, col, ok)
	}
}

// TestEngine_SetMaxMemory stops a call that keeps more than the limit, and
// leaves alone one that makes as much garbage but keeps little.
func TestEngine_SetMaxMemory(t *testing.T) {
	e := script.NewEngine(script.Options{ParseType: script.ParseTypeForTest, EvalTimeout: time.Minute, MaxMemory: 16 << 20})
	defer e.Close()
	keep := scalarHarness(t, e, `export default {
  output: "INT",
  eval(ctx) {
    const kept = [];
    for (;;) kept.push("x".repeat(1 << 16) + kept.length);
  },
};`)
	_, err := keep.Process()
	if !errors.Is(err, ptf.ErrLimit) || !strings.Contains(err.Error(), "call kept more than 16 mb of new memory; to allow more, SET 'ptf.max-memory'") {
		t.Fatalf("err = %v", err)
	}
	garbage := scalarHarness(t, e, `export default {
  output: "INT",
  eval(ctx) {
    let n = 0;
    for (let i = 0; i < 3000; i++) n += ("x".repeat(1 << 16) + i).length;
    ctx.collect(n > 0 ? 1 : 0);
  },
};`)
	if got := process(t, garbage); got != "+I[1]" {
		t.Errorf("garbage: %s", got)
	}
}

func TestEngine_SetSeed(t *testing.T) {
	draw := func(seed int64) string {
		e := newEvalEngine(t)
		e.SetSeed(seed)
		h := scalarHarness(t, e, `export default {
  output: "STRING",
  eval(ctx) { ctx.collect([Math.random(), Math.random(), Date.now(), new Date().getTime(), Date()].join(" ")); },
};`)
		return process(t, h)
	}
	a, b, c := draw(1), draw(1), draw(2)
	if a != b || a == c {
		t.Errorf("seed 1: %s and %s; seed 2: %s", a, b, c)
	}
	ms := script.SeededNow.UnixMilli()
	if want := " 1735689600000 1735689600000 "; ms != 1735689600000 || !strings.Contains(a, want) {
		t.Errorf("the seeded clock: %s, want %s", a, want)
	}
}
