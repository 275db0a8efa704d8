package script

import (
	"bytes"
	"slices"
	"testing"

	"github.com/dop251/goja"
	"github.com/ptfsh/ptfsh/runtime/ptf"
)

// TestRecord_encodesAsPlainObject checks that a record, changed by the
// function in each way below, encodes to the very bytes the same changes
// to a plain object give, through the fast path (primitives only) and
// through the object (a field holding an object), and decodes back to a
// record with the same fields.
func TestRecord_encodesAsPlainObject(t *testing.T) {
	in := stateInstance(t, "{ n: 0, name: \"x\", on: true, z: null, u: undefined }")
	changes := []string{
		``,
		`s.n = 41.5; s.name = "héllo"`,
		`s.n = -0; s.on = NaN; s.z = Infinity`,
		`s[7] = "seven"; s[1] = 1; s.after = 2`,
		`delete s.name; s.name = "back"`,
		`s.big = 12345678901234567890n`,
		`s.list = [1, {a: 2}]; s.when = new Date(5)`,
		`s["4294967295"] = "not an index"; s["01"] = "nor this"`,
		`s.n = 2**53 + 2; s.on = false; s.name = "\uD800 lone, 😀 pair"`,
		`s.n = -5; s.name = "y".repeat(5000)`,
		`s.o = {}; Object.defineProperty(s.o, "g", { get() { return 1 }, enumerable: true })`,
	}
	// Which changes leave only primitives, encoded without a node tree
	// (appendRecordBin); the others must fall back to snapRecord.
	fast := map[string]bool{``: true, `s.n = 41.5; s.name = "héllo"`: true, `s.n = -0; s.on = NaN; s.z = Infinity`: true,
		`delete s.name; s.name = "back"`: true, `s["4294967295"] = "not an index"; s["01"] = "nor this"`: true,
		`s.n = 2**53 + 2; s.on = false; s.name = "\uD800 lone, 😀 pair"`: true}
	for _, change := range changes {
		v, err := in.NewState(0)
		if err != nil {
			t.Fatal(err)
		}
		r, ok := v.(*record)
		if !ok {
			t.Fatalf("NewState gave a %T, want a record", v)
		}
		vm := in.e.vm
		plain, err := vm.RunString(`({ n: 0, name: "x", on: true, z: null, u: undefined })`)
		if err != nil {
			t.Fatal(err)
		}
		for _, obj := range []goja.Value{r.object(vm), plain} {
			if err := vm.Set("s", obj); err != nil {
				t.Fatal(err)
			}
			if _, err := vm.RunString(change); err != nil {
				t.Fatalf("%s: %v", change, err)
			}
		}
		got, err := in.AppendState(nil, 0, r)
		if err != nil {
			t.Fatalf("%s: %v", change, err)
		}
		if _, ok := appendRecordBin(nil, r); ok != fast[change] {
			t.Errorf("%s: appendRecordBin ok = %v, want %v", change, ok, fast[change])
		}
		want, err := in.AppendState(nil, 0, plain)
		if err != nil {
			t.Fatalf("%s: %v", change, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: record encodes as\n %q, a plain object as\n %q", change, got, want)
		}
		back, err := in.DecodeState(0, got)
		if err != nil {
			t.Fatal(err)
		}
		checkDecodeRecordBin(t, in, change, got)
		again, err := in.AppendState(nil, 0, back)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, want) {
			t.Errorf("%s: decoded and encoded again: %q, want %q", change, again, want)
		}
		if gotKeys, wantKeys := r.object(vm).Keys(), plain.(*goja.Object).Keys(); !equalStrings(gotKeys, wantKeys) {
			t.Errorf("%s: keys %q, a plain object's %q", change, gotKeys, wantKeys)
		}
		// Decoded with the default's fields in its order, a record shares
		// the default's keys, as one made from the default does.
		if br, ok := back.(*record); ok {
			sameShape := equalStrings(br.keys, in.d.initial[0].record)
			if br.shared != sameShape {
				t.Errorf("%s: decoded record with keys %q: shared = %v, want %v", change, br.keys, br.shared, sameShape)
			}
		}
	}
	// Adding a field to a decoded record that shares the default's keys
	// leaves the default's shape alone.
	enc, err := in.AppendState(nil, 0, mustState(t, in))
	if err != nil {
		t.Fatal(err)
	}
	back, err := in.DecodeState(0, enc)
	if err != nil {
		t.Fatal(err)
	}
	vm := in.e.vm
	if err := vm.Set("s", back.(*record).object(vm)); err != nil {
		t.Fatal(err)
	}
	if _, err := vm.RunString(`s.extra = 1; delete s.n`); err != nil {
		t.Fatal(err)
	}
	if got, want := mustState(t, in).(*record).keys, []string{"n", "name", "on", "z", "u"}; !equalStrings(got, want) {
		t.Errorf("after a decoded record changed its fields, the default's are %q, want %q", got, want)
	}
}

// checkDecodeRecordBin checks that the record decodeRecordBin makes of
// enc holds the values the node tree gives, and that it takes every
// record with the default's fields in its order and primitives only.
func checkDecodeRecordBin(t *testing.T, in *instance, change string, enc []byte) {
	t.Helper()
	def := in.d.initial[0].record
	n, err := decodeBin(enc[1:])
	if err != nil {
		t.Fatal(err)
	}
	keys, isRec := recordShape(n)
	// recordShape takes arrays of primitives too; the fast decoder only
	// primitives.
	want := isRec && equalStrings(keys, def) && !slices.ContainsFunc(n.(objNode).vals, primitiveArray)
	fast, ok := in.e.decodeRecordBin(enc[1:], def)
	if ok != want {
		t.Fatalf("%s: decodeRecordBin ok = %v, want %v", change, ok, want)
	}
	if !ok {
		return
	}
	slow, err := in.e.newRecord(def, n.(objNode), true)
	if err != nil {
		t.Fatal(err)
	}
	if !fast.shared || !equalStrings(fast.keys, slow.keys) {
		t.Errorf("%s: decodeRecordBin keys %q shared %v, want %q shared", change, fast.keys, fast.shared, slow.keys)
	}
	for i, v := range slow.vals {
		if !fast.vals[i].SameAs(v) || fast.vals[i].ExportType() != v.ExportType() {
			t.Errorf("%s: field %q: decodeRecordBin gives %v (%v), the node %v (%v)", change, def[i], fast.vals[i], fast.vals[i].ExportType(), v, v.ExportType())
		}
	}
}

func mustState(t *testing.T, in *instance) any {
	t.Helper()
	v, err := in.NewState(0)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRecord_arrayDefault: a default with an array of primitives beside
// primitives makes records, which encode, changed as the function changes
// them, to the bytes a plain object gives (state files written before
// such defaults made records read and compare the same), and decode back
// to records while their fields are primitives or arrays of them.
func TestRecord_arrayDefault(t *testing.T) {
	in := stateInstance(t, "{ start: null, delays: [] }")
	for _, c := range []struct {
		change string
		rec    bool // decodes to a record: primitives and arrays of them only
	}{
		{``, true},
		{`s.delays.push(45); s.start = 7`, true},
		{`s.delays.push(45); s.start = new Date(5)`, false}, // a Date: a plain object, as before
		{`s.delays = [1, "a", null]; s.extra = 1`, true},
		{`s.delays = [[1]]`, false},
		{`s.delays = []; delete s.start`, true},
	} {
		change := c.change
		v := mustState(t, in)
		r, ok := v.(*record)
		if !ok {
			t.Fatalf("NewState gave a %T, want a record", v)
		}
		vm := in.e.vm
		plain, err := vm.RunString(`({ start: null, delays: [] })`)
		if err != nil {
			t.Fatal(err)
		}
		for _, obj := range []goja.Value{r.object(vm), plain} {
			if err := vm.Set("s", obj); err != nil {
				t.Fatal(err)
			}
			if _, err := vm.RunString(change); err != nil {
				t.Fatalf("%s: %v", change, err)
			}
		}
		got, err := in.AppendState(nil, 0, r)
		if err != nil {
			t.Fatal(err)
		}
		want, err := in.AppendState(nil, 0, plain)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: record encodes as\n %q, a plain object as\n %q", change, got, want)
		}
		back, err := in.DecodeState(0, got)
		if err != nil {
			t.Fatal(err)
		}
		checkDecodeRecordBin(t, in, change, got)
		if _, isRec := back.(*record); isRec != c.rec {
			t.Errorf("%s: decoded as a %T, record %v", change, back, c.rec)
		}
		again, err := in.AppendState(nil, 0, back)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, want) {
			t.Errorf("%s: decoded and encoded again: %q, want %q", change, again, want)
		}
	}
}

// FuzzDecodeRecordBin feeds damaged state bytes to the record decoder
// that skips the node tree: it never panics, takes nothing the general
// decoder refuses, and what it takes holds the values the node tree
// gives (checkDecodeRecordBin).
func FuzzDecodeRecordBin(f *testing.F) {
	in := stateInstance(f, "{ n: 0, name: \"x\", on: true, z: null, u: undefined }")
	vm := in.e.vm
	for _, change := range []string{``, `s.n = 2**53 + 2; s.name = "héllo"; s.on = false`, `s.n = -0.5; s.z = "z"`, `s.extra = 1`} {
		v, err := in.NewState(0)
		if err != nil {
			f.Fatal(err)
		}
		if err := vm.Set("s", v.(*record).object(vm)); err != nil {
			f.Fatal(err)
		}
		if _, err := vm.RunString(change); err != nil {
			f.Fatal(err)
		}
		enc, err := in.AppendState(nil, 0, v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(enc[1:])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := decodeBin(data); err != nil {
			if _, ok := in.e.decodeRecordBin(data, in.d.initial[0].record); ok {
				t.Fatalf("%x: the general decoder refuses it (%v), the record decoder takes it", data, err)
			}
			return
		}
		checkDecodeRecordBin(t, in, "fuzz", append([]byte{stateBinary}, data...))
	})
}

// stateInstance is an instance of a function whose one state entry, s,
// has the default def (a JavaScript object literal).
func stateInstance(tb testing.TB, def string) *instance {
	tb.Helper()
	e := testEngine(tb)
	d, err := e.Load("rec", "rec.js", `export default {
  output: "STRING",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { s: { default: `+def+` } },
  eval() {},
};`)
	if err != nil {
		tb.Fatal(err)
	}
	p, err := d.New(ptf.CallSpec{})
	if err != nil {
		tb.Fatal(err)
	}
	return p.(*instance)
}
