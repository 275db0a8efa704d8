package script

import (
	"reflect"
	"testing"

	"github.com/dop251/goja"
)

// TestRegExp_fastPath: wrapping RegExp.prototype.exec must not cost goja
// its fast path for regular expressions (keepFastPath puts its guard
// back), and a function that replaces exec itself still gets the
// specified behaviour: String.prototype.replace calls its exec.
func TestRegExp_fastPath(t *testing.T) {
	rt := testEngine(t)
	proto := rt.vm.Get("RegExp").ToObject(rt.vm).Get("prototype").ToObject(rt.vm)
	self := reflect.ValueOf(proto).Elem().FieldByName("self")
	if got := self.Elem().Type().String(); got != "*goja.guardedObject" {
		t.Errorf("RegExp.prototype is a %s after wrapping: goja's regular expressions lost their fast path", got)
	}
	v, err := rt.vm.RunString(`
const plain = "a-b-c".replace(/-/g, "+") + " " + /b/.test("abc") + " " + /(?=b)b/.exec("abc")[0] + " " + [..."aXbX".matchAll(/X/g)].length;
let calls = 0;
const orig = RegExp.prototype.exec;
RegExp.prototype.exec = function (s) { calls++; return orig.call(this, s); };
plain + " " + "a-b".replace(/-/g, "+") + " " + calls;`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.String(), "a+b+c true b 2 a+b 2"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func compileForTest(src string) (*goja.Program, error) { return goja.Compile("bench.js", src, false) }

func newBareRuntime() *goja.Runtime { return goja.New() }
