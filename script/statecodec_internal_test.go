package script

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/dop251/goja"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
)

const codecDecl = `export default {
  output: "STRING",
  args: [{ name: "r", traits: ["SET_SEMANTIC_TABLE"] }],
  state: {
    counter: { default: { count: 0, tags: ["a"], when: new Date(0), seen: new Map([["k", 1]]) } },
    score: { type: "ROW<s STRING, i INT>" },
    plain: {},
    list: { kind: "list", type: "ARRAY<STRING>" },
    map: { kind: "map", type: "MAP<STRING, INT>" },
    n: { default: 99 },
  },
  eval() {},
};`

// testCodec loads a function with state of each kind and returns its
// realm and an instance.
func testCodec(t *testing.T) (*realm, *instance) {
	t.Helper()
	e := testEngine(t)
	def, err := e.Load("codec", "codec.js", codecDecl)
	if err != nil {
		t.Fatal(err)
	}
	p, err := def.New(ptf.CallSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := p.(ptf.StateCodec); !ok {
		t.Fatal("instance is not a StateCodec")
	}
	return p.(*instance).e, p.(*instance)
}

func TestInstance_NewState(t *testing.T) {
	e, in := testCodec(t)
	check := func(i int, expr string) {
		t.Helper()
		v, err := in.NewState(i)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.vm.Set("s", v); err != nil {
			t.Fatal(err)
		}
		ok, err := e.vm.RunString(expr)
		if err != nil {
			t.Fatal(err)
		}
		if !ok.ToBoolean() {
			t.Errorf("state %d: %s is false for %s", i, expr, e.formatJS(v.(goja.Value)))
		}
	}
	check(0, "s.count === 0 && s.tags[0] === 'a' && s.when instanceof Date && s.seen.get('k') === 1")
	// A fresh deep copy for every key: changing one does not change the next.
	check(0, "s.count++; s.tags.push('b'); s.seen.set('k', 2); true")
	check(0, "s.count === 0 && s.tags.length === 1 && s.seen.get('k') === 1")
	check(1, "JSON.stringify(s) === '{\"s\":null,\"i\":null}'")
	check(2, "JSON.stringify(s) === '{}'")
	check(3, "Array.isArray(s) && s.length === 0")
	check(4, "s instanceof Map && s.size === 0")
	check(5, "s === 99")
	if _, err := in.NewState(6); err == nil {
		t.Error("NewState(6) did not fail")
	}
}

func TestInstance_AppendState(t *testing.T) {
	tests := []struct {
		name  string
		js    string
		check string // over the decoded value d; "" only checks the bytes
		json  string // the JSON after the version byte; "" skips
	}{
		{"counter", "({ count: 3 })", "d.count === 3", `{"count":3}`},
		{"null", "null", "d === null", `null`},
		{"undefined", "undefined", "d === undefined", `{"$u":1}`},
		{"scalars", "[true, 'x', 1.5, -2, 1e300]", "d[0] === true && d[1] === 'x' && d[4] === 1e300", `[true,"x",1.5,-2,1e+300]`},
		{"special_numbers", "[NaN, Infinity, -Infinity, -0]", "Number.isNaN(d[0]) && d[1] === Infinity && d[2] === -Infinity && Object.is(d[3], -0)", `[{"$n":"NaN"},{"$n":"Infinity"},{"$n":"-Infinity"},{"$n":"-0"}]`},
		{"bigint", "({ b: 12345678901234567890n })", "d.b === 12345678901234567890n", `{"b":{"$b":"12345678901234567890"}}`},
		{"date", "new Date(1735693200000)", "d instanceof Date && d.getTime() === 1735693200000", `{"$d":1735693200000}`},
		{"invalid_date", "new Date(NaN)", "d instanceof Date && isNaN(d.getTime())", `{"$d":null}`},
		{"map", "new Map([['a', 1], [2, { x: [1] }]])", "d instanceof Map && d.get('a') === 1 && d.get(2).x[0] === 1 && [...d.keys()][1] === 2", `{"$m":[["a",1],[2,{"x":[1]}]]}`},
		{"set", "new Set(['a', 'b'])", "d instanceof Set && d.has('b') && d.size === 2", `{"$s":["a","b"]}`},
		{"bytes", "new Uint8Array([1, 2, 255])", "d instanceof Uint8Array && d[2] === 255", `{"$y":"AQL/"}`},
		{"dollar_keys", "({ $u: 1, a: { $b: 'x' } })", "d.$u === 1 && d.a.$b === 'x'", `{"$o":{"$u":1,"a":{"$o":{"$b":"x"}}}}`},
		{"key_order", "({ z: 1, a: 2, m: 3 })", "Object.keys(d).join() === 'z,a,m'", `{"z":1,"a":2,"m":3}`},
		{"row_kind", "({ k: RowKind.UPDATE_AFTER })", "d.k === RowKind.UPDATE_AFTER", `{"k":{"$k":"UPDATE_AFTER"}}`},
		{"class_instance", "new (class P { constructor() { this.x = 1 } })()", "d.x === 1", `{"x":1}`},
		{"nested", "({ list: [{ a: [new Date(0)] }], m: new Map([['k', new Set([1])]]) })", "d.list[0].a[0].getTime() === 0 && d.m.get('k').has(1)", ""},
		{"unicode", "({ 'ключ': 'Zoë 🎉\\n\"' })", "d['ключ'] === 'Zoë 🎉\\n\"'", ""},
		{"empty", "[[], {}, new Map(), new Set()]", "d[0].length === 0 && d[2].size === 0", `[[],{},{"$m":[]},{"$s":[]}]`},
	}
	e, in := testCodec(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := e.vm.RunString(tc.js)
			if err != nil {
				t.Fatal(err)
			}
			data, err := in.AppendState(nil, 0, v)
			if err != nil {
				t.Fatal(err)
			}
			if data[0] != stateBinary {
				t.Errorf("version byte = %d", data[0])
			}
			// The tree the bytes hold, shown as the JSON encoding writes it;
			// the JSON form (written before the binary one) must read back too.
			n, err := decodeBin(data[1:])
			if err != nil {
				t.Fatal(err)
			}
			var js bytes.Buffer
			if err := encodeNode(&js, n); err != nil {
				t.Fatal(err)
			}
			if tc.json != "" && js.String() != tc.json {
				t.Errorf("encoding\n got %s\nwant %s", js.String(), tc.json)
			}
			for _, enc := range [][]byte{data, append([]byte{stateVersion}, js.Bytes()...)} {
				d, err := in.DecodeState(0, enc)
				if err != nil {
					t.Fatal(err)
				}
				if err := e.vm.Set("d", d); err != nil {
					t.Fatal(err)
				}
				if tc.check != "" {
					ok, err := e.vm.RunString(tc.check)
					if err != nil {
						t.Fatal(err)
					}
					if !ok.ToBoolean() {
						t.Errorf("version %d: %s is false for %s", enc[0], tc.check, e.formatJS(d.(goja.Value)))
					}
				}
			}
			d, err := in.DecodeState(0, data)
			if err != nil {
				t.Fatal(err)
			}
			again, err := in.AppendState(nil, 0, d)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, data) {
				t.Errorf("re-encoding differs:\n%q\n%q", data[1:], again[1:])
			}
		})
	}
}

func TestInstance_AppendState_row(t *testing.T) {
	e, in := testCodec(t)
	typ := mustType(t, "ROW<name STRING, ts TIMESTAMP_LTZ(3), n BIGINT>")
	row := e.newRowObject(schemaOfType(&typ), types.Row{Kind: types.UpdateAfter, Fields: []any{"Bob", types.Instant{Millis: 5}, int64(1) << 60}})
	data, err := in.AppendState(nil, 0, e.vm.NewArray(row))
	if err != nil {
		t.Fatal(err)
	}
	d, err := in.DecodeState(0, data)
	if err != nil {
		t.Fatal(err)
	}
	_ = e.vm.Set("d", d)
	got, err := e.vm.RunString("String(d[0]) + ' ' + d[0].getKind() + ' ' + d[0].name + ' ' + d[0].ts.getTime() + ' ' + typeof d[0].n")
	if err != nil {
		t.Fatal(err)
	}
	if want := "+U[Bob, 5, 1152921504606846976] UPDATE_AFTER Bob 5 bigint"; !strings.HasPrefix(got.String(), "+U[Bob, ") || !strings.HasSuffix(got.String(), "UPDATE_AFTER Bob 5 bigint") {
		t.Errorf("decoded row: %s, want like %s", got, want)
	}
}

func TestInstance_AppendState_errors(t *testing.T) {
	tests := []struct{ name, js, want string }{
		{"function", "({ f() {} })", `f: cannot keep a function in state`},
		{"nested", "({ a: { b: [1, { f() {} }] } })", `a.b[1].f: cannot keep a function in state`},
		{"map", "new Map([['k', { f() {} }]])", `["k"].f: cannot keep a function in state`},
		{"cycle", "(() => { const o = {}; o.self = o; return o; })()", `cannot keep a cyclic value in state`},
		{"symbol", "[Symbol('s')]", `cannot keep a symbol in state`},
		{"regexp", "/x/", `cannot keep [object RegExp] (object) in state`},
	}
	e, in := testCodec(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := e.vm.RunString(tc.js)
			if err != nil {
				t.Fatal(err)
			}
			_, err = in.AppendState(nil, 0, v)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %s", err, tc.want)
			}
		})
	}
	// Shared (not cyclic) references are fine.
	v, _ := e.vm.RunString("(() => { const a = [1]; return { x: a, y: a }; })()")
	if _, err := in.AppendState(nil, 0, v); err != nil {
		t.Errorf("shared reference: %v", err)
	}
	for _, bad := range [][]byte{nil, {2, '1'}, []byte("\x01{"), []byte("\x01{\"$b\":\"x\"}"), []byte("\x01[1] 2")} {
		if _, err := in.DecodeState(0, bad); err == nil {
			t.Errorf("DecodeState(%q) did not fail", bad)
		}
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want string
		err  bool
	}{
		{"1 hour", "1h0m0s", false},
		{"5 days", "120h0m0s", false},
		{"0", "0s", false},
		{"10 s", "10s", false},
		{"500 ms", "500ms", false},
		{"500", "500ms", false},
		{"3min", "3m0s", false},
		{"2 MINUTES", "2m0s", false},
		{"7 µs", "7µs", false},
		{"1 fortnight", "", true},
		{"-1 s", "", true},
		{"", "", true},
		{"1.5 h", "", true},
	}
	for _, tc := range tests {
		d, err := types.ParseDuration(tc.in)
		if (err != nil) != tc.err || (err == nil && d.String() != tc.want) {
			t.Errorf("runtime.ParseDuration(%q) = %v, %v; want %s (error %v)", tc.in, d, err, tc.want, tc.err)
		}
	}
}

func TestDecodeBin_damaged(t *testing.T) {
	good, err := appendBin(nil, objNode{keys: []string{"count", "tags"}, vals: []node{float64(3), arrNode{"a", nil}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodeBin(good); err != nil {
		t.Fatalf("good value: %v", err)
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "ends early"},
		{"cut", good[:len(good)-1], "ends early"},
		{"trailing", append(append([]byte{}, good...), 0), "1 bytes after its end"},
		{"unknown_tag", []byte{200}, "unknown tag 200"},
		{"huge_count", []byte{binArray, 0xff, 0xff, 0xff, 0xff, 0x0f}, "ends early"},
		{"huge_string", []byte{binString, 0x80, 0x80, 0x80, 0x80, 0x01, 'a'}, "ends early"},
		{"short_float", []byte{binFloat, 1, 2}, "ends early"},
		{"bad_kind", []byte{binKind, 9}, "bad row kind 9"},
		{"bad_big", []byte{binBig, 1, 'x'}, "bad BigInt"},
		{"int_out_of_range", binary.AppendVarint([]byte{binInt}, 1<<60), "bad integer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeBin(tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
	deep := bytes.Repeat([]byte{binArray, 1}, maxDepth+2)
	if _, err := decodeBin(append(deep, binNull)); err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Errorf("deep value: %v", err)
	}
}

// FuzzDecodeState feeds damaged bytes to the binary state decoder: it
// never panics nor allocates beyond its input, and what it accepts
// encodes again to bytes that decode to the same encoding.
func FuzzDecodeState(f *testing.F) {
	for _, n := range []node{
		nil, undefNode{}, true, float64(-7), 1.5, numNode(math.NaN()), "zoë", bigNode{big.NewInt(-12)},
		dateNode{ms: 5, valid: true}, dateNode{}, bytesNode{1, 2}, kindNode(types.Delete),
		arrNode{float64(1), arrNode{}}, setNode{"a"}, mapNode{keys: []node{"k"}, vals: []node{nil}},
		objNode{keys: []string{"$u", "a"}, vals: []node{float64(1), objNode{}}},
		rowNode{kind: types.UpdateAfter, typ: types.NewRowType(), vals: []node{}},
	} {
		b, err := appendBin(nil, n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := decodeBin(data)
		if err != nil {
			return
		}
		enc, err := appendBin(nil, n)
		if err != nil {
			t.Fatalf("decoded %q, cannot encode it again: %v", data, err)
		}
		n2, err := decodeBin(enc)
		if err != nil {
			t.Fatalf("re-encoded %q does not decode: %v", enc, err)
		}
		enc2, _ := appendBin(nil, n2)
		if !bytes.Equal(enc, enc2) {
			t.Fatalf("encodings differ:\n%q\n%q", enc, enc2)
		}
	})
}
