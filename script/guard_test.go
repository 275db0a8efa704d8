package script_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"
	"github.com/ptfsh/ptfsh/runtime/exec/ptfop"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// TestEngine_LoadContext: cancelling the context of a load interrupts the
// function's top-level code (and the reading of its declaration) within a
// moment, with no eval timeout set, and the Engine loads the next
// function as before.
func TestEngine_LoadContext(t *testing.T) {
	e := newEvalEngine(t)
	for _, src := range []string{
		"for (;;) {}\nexport default { output: 'INT', eval() {} };",
		"export default { get output() { for (;;) {} }, eval() {} };",
	} {
		// The cancel must land while the loop runs, after the module is
		// compiled, which takes more than 100 ms on a loaded machine; the
		// bound checks for a hang.
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(time.Second, cancel)
		start := time.Now()
		_, err := e.LoadContext(ctx, "f", "f.js", src)
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("took %v", d)
		}
		if !errors.Is(err, ptf.ErrInterrupted) || !strings.Contains(err.Error(), "f.js:1:") {
			t.Errorf("err = %v, want an interrupt at f.js:1", err)
		}
	}
	if _, err := e.Load("g", "g.js", "export default { output: 'INT', eval() {} };"); err != nil {
		t.Fatal(err)
	}
}

// TestEngine_prototypeSetters: setters a function puts on Object.prototype
// do not run when ptfsh makes its objects (ctx, state defaults and
// decoded state, changelog modes): those are defined as
// object literals define them, and a "__proto__" key in state stays a key.
func TestEngine_prototypeSetters(t *testing.T) {
	e := newEvalEngine(t)
	src := `const keys = ["collect", "n", "q", "p"];
for (let i = 0; i < keys.length; i++)
  Object.defineProperty(Object.prototype, keys[i], { set() { for (;;) {} }, get() { return "hijacked"; }, configurable: true });
export default {
  output: "STRING",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { c: { default: { n: 0, p: { q: 1 } } }, l: { kind: "list", type: "ARRAY<INT>" } },
  eval(ctx, { c, l }, { input }) {
    c.n++;
    l.add(c.n);
    let sum = 0;
    for (const x of l) sum += x;
    ctx.collect(input.name + " " + c.n + " " + c.p.q + " " + sum);
  },
};`
	def, err := e.Load("f", "f.js", src)
	if err != nil {
		t.Fatal(err)
	}
	h, err := ptfop.NewHarness(def, names, ptfop.HarnessOptions{PartitionBy: []string{"name"}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	out, err := h.Process(types.NewRow("Bob", int64(1)), types.NewRow("Bob", int64(2)))
	if err != nil {
		t.Fatal(err)
	}
	if got := formatRows(out, types.Schema{}); got != "+I[Bob, Bob 1 1 1]\n+I[Bob, Bob 2 1 3]" {
		t.Errorf("got\n%s", got)
	}

	// Encoding and decoding state with a "__proto__" key.
	def, err = e.Load("g", "g.js", `export default { output: "INT", state: { c: {} }, eval() {} };`)
	if err != nil {
		t.Fatal(err)
	}
	p, err := def.New(ptf.CallSpec{})
	if err != nil {
		t.Fatal(err)
	}
	codec := p.(ptf.StateCodec)
	fresh, err := codec.NewState(0)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := fresh.(*goja.Object); !ok {
		t.Fatalf("NewState: %T", fresh)
	}
	data := append([]byte{1}, `{"__proto__":{"polluted":1},"a":2}`...)
	v, err := codec.DecodeState(0, data)
	if err != nil {
		t.Fatal(err)
	}
	o := v.(*goja.Object)
	if got := o.Get("polluted"); got != nil && !goja.IsUndefined(got) {
		t.Errorf("a decoded __proto__ key set the prototype: polluted = %v", got)
	}
	back, err := codec.AppendState(nil, 0, v)
	if err != nil {
		t.Fatal(err)
	}
	again, err := codec.DecodeState(0, back)
	if err != nil {
		t.Fatal(err)
	}
	if got := again.(*goja.Object).Keys(); strings.Join(got, ",") != "__proto__,a" {
		t.Errorf("encoded again, the keys are %q", got)
	}
	if got := again.(*goja.Object).Get("polluted"); got != nil && !goja.IsUndefined(got) {
		t.Errorf("a decoded __proto__ key set the prototype: polluted = %v", got)
	}
}
