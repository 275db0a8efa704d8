package script

import "testing"

// BenchmarkRegExp runs common regular-expression operations in a realm
// (with the timed wrappers of regex.go) and in a bare goja runtime.
func BenchmarkRegExp(b *testing.B) {
	const src = `(() => {
const s = "the quick brown fox jumps over the lazy dog ".repeat(20);
let n = 0;
for (let i = 0; i < 200; i++) {
  n += s.replace(/o/g, "0").length;
  n += /fox/.test(s) ? 1 : 0;
  n += s.split(/ /).length;
  const m = /(\w+) (\w+)/.exec(s); n += m[1].length;
  n += (s.match(/o/g) || []).length;
  n += /x(?=y)/.test("xy") ? 1 : 0;
}
return n;
})()`
	rt := testEngine(b)
	prg, err := compileForTest(src)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("realm", func(b *testing.B) {
		for b.Loop() {
			if _, err := rt.vm.RunProgram(prg); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("goja", func(b *testing.B) {
		vm := newBareRuntime()
		for b.Loop() {
			if _, err := vm.RunProgram(prg); err != nil {
				b.Fatal(err)
			}
		}
	})
}
