package script_test

import (
	"testing"
	"testing/fstest"

	"github.com/dop251/goja"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/script"
)

// TestEngine_Bundle_completionValue checks that a bundle, run as a plain
// script by another JavaScript host, ends in the declaration object.
func TestEngine_Bundle_completionValue(t *testing.T) {
	e := script.NewEngine(script.Options{
		ParseType: ptf.ParseType,
		Stdlib:    fstest.MapFS{"greet.js": {Data: []byte(`export const hi = (n) => "Hi " + n;`)}},
	})
	defer e.Close()
	for _, tc := range []struct{ name, src string }{
		{"script", `({ output: "STRING", eval(ctx) { ctx.collect("Hi Bob"); } })`},
		{"esm", `import { hi } from "ptfsh/greet"; export default { output: "STRING", eval(ctx) { ctx.collect(hi("Bob")); } };`},
		{"cjs", `module.exports = { output: "STRING", eval(ctx) { ctx.collect("Hi Bob"); } };`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, err := e.Bundle("F", "", tc.src)
			if err != nil {
				t.Fatal(err)
			}
			vm := goja.New()
			v, err := vm.RunString(code)
			if err != nil {
				t.Fatalf("%v\n%s", err, code)
			}
			decl := v.ToObject(vm)
			if got := decl.Get("output").String(); got != "STRING" {
				t.Fatalf("output = %q, want STRING", got)
			}
			var got string
			ctx := vm.NewObject()
			_ = ctx.Set("collect", func(s string) { got = s })
			eval, _ := goja.AssertFunction(decl.Get("eval"))
			if _, err := eval(decl, ctx); err != nil {
				t.Fatal(err)
			}
			if got != "Hi Bob" {
				t.Errorf("collected %q, want %q", got, "Hi Bob")
			}
		})
	}
}
