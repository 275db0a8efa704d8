package state_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/ptfsh/ptfsh/internal/orderedcode"
	"github.com/ptfsh/ptfsh/state"
)

// FuzzValue checks the stored form of values: a sealed value opens to the
// value it holds; changing any one byte of it makes opening fail; and
// opening arbitrary bytes never panics, and succeeds only for bytes that
// sealing the value it returns gives back exactly.
func FuzzValue(f *testing.F) {
	f.Add("state/count/counter", orderedcode.AppendString(nil, "alice"), []byte(`{"count":1000}`), []byte{}, uint(10), byte('1'^'9'))
	f.Add("__meta", []byte("version"), []byte{0, 0, 0, 2}, []byte{1, 0, 0, 0, 0}, uint(0), byte(1))
	f.Add("timers/u", orderedcode.AppendInt64(nil, -1), []byte{}, []byte{1, 0xde, 0xad, 0xbe, 0xef, 0}, uint(3), byte(0x80))
	f.Add("", []byte{}, []byte(nil), []byte{2}, uint(1<<40), byte(0xff))
	f.Fuzz(func(t *testing.T, ns string, key, value, stored []byte, at uint, x byte) {
		sum := state.NSSum(ns)
		sealed := state.SealValue(sum, key, value)
		got, err := state.OpenValue(sum, key, sealed)
		if err != nil || !bytes.Equal(got, value) {
			t.Fatalf("OpenValue(SealValue(%q)) = %q, %v", value, got, err)
		}
		if x != 0 {
			damaged := bytes.Clone(sealed)
			damaged[at%uint(len(damaged))] ^= x
			if got, err := state.OpenValue(sum, key, damaged); err == nil {
				t.Fatalf("byte %d of %x changed by ^%02x and OpenValue still gives %q", at%uint(len(damaged)), sealed, x, got)
			}
		}
		got, err = state.OpenValue(sum, key, stored)
		if err == nil && !bytes.Equal(state.SealValue(sum, key, got), stored) {
			t.Fatalf("OpenValue(%x) = %q, which seals as %x", stored, got, state.SealValue(sum, key, got))
		}
	})
}

// TestSealValue checks the stored form against the layout documented in
// value.go, computed with crc32.Checksum over the bytes it names.
func TestSealValue(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	for _, n := range []int{0, 1, 127, 128, 300, 20_000} {
		ns, key, value := string(random(n%200)), random(1+n), random(n)
		var in []byte
		in = binary.AppendUvarint(in, uint64(len(ns)))
		in = append(in, ns...)
		in = binary.AppendUvarint(in, uint64(len(key)))
		in = append(in, key...)
		in = append(in, 0x01)
		in = append(in, value...)
		want := binary.BigEndian.AppendUint32([]byte{0x01}, crc32.Checksum(in, castagnoli))
		want = append(want, value...)
		if got := state.SealValue(state.NSSum(ns), key, value); !bytes.Equal(got, want) {
			t.Errorf("SealValue of a %d-byte key and value: header %x; want %x", n, got[:5], want[:5])
		}
	}
	// The stored form is part of the file format: it must not change.
	got := state.SealValue(state.NSSum("state/count/counter"), orderedcode.AppendString(nil, "alice"), []byte(`{"count":1000}`))
	if want := "01b3ce89bc"; fmt.Sprintf("%x", got[:5]) != want {
		t.Errorf("stored header %x; want %s", got[:5], want)
	}
}

func TestDescribeNamespace(t *testing.T) {
	for _, c := range []struct{ ns, want string }{
		{"state/count/counter", `state "counter" of function uid "count" (namespace "state/count/counter")`},
		{"state/a/b/counter", `state "counter" of function uid "a/b" (namespace "state/a/b/counter")`},
		{"state/count/counter~3", `state "counter" of function uid "count" (namespace "state/count/counter~3")`},
		{"list/agg/items~meta", `list state "items" of function uid "agg" (namespace "list/agg/items~meta")`},
		{"list/agg/items", `list state "items" of function uid "agg" (namespace "list/agg/items")`},
		{"map/agg/seen", `map state "seen" of function uid "agg" (namespace "map/agg/seen")`},
		{"timers/count", `the timers of function uid "count" (namespace "timers/count")`},
		{"spill/count/counter", `the spilled values of state "counter" of function uid "count" (namespace "spill/count/counter")`},
		{"sortbuf/u/input", `the sort buffer of table argument "input" of function uid "u" (namespace "sortbuf/u/input")`},
		{"state/count", `namespace "state/count"`},
		{"state//x", `namespace "state//x"`},
		{"normalize/x", `namespace "normalize/x"`},
		{"s", `namespace "s"`},
	} {
		if got := state.DescribeNamespace(c.ns); got != c.want {
			t.Errorf("DescribeNamespace(%q) = %s; want %s", c.ns, got, c.want)
		}
	}
}

func TestDescribeKey(t *testing.T) {
	long := bytes.Repeat([]byte{0xff}, 300)
	for _, c := range []struct {
		key  []byte
		want string
	}{
		{orderedcode.AppendString(nil, "Bob"), `("Bob")`},
		{orderedcode.AppendInt64(orderedcode.AppendString(nil, "Bob"), 42), `("Bob", 42)`},
		{orderedcode.AppendString(orderedcode.AppendNull(orderedcode.AppendBool(nil, true)), "\x00timer"), `(true, NULL, "\x00timer")`},
		{orderedcode.AppendBytes(orderedcode.AppendFloat64(orderedcode.AppendUint64(nil, 7), 1.5), []byte{1, 2}), `(7, 1.5, 0x0102)`},
		{[]byte("schema/greet"), `"schema/greet"`},
		{[]byte{0x10, 1}, `0x1001`},
		{[]byte{}, `(empty key)`},
		{long, "0x" + string(bytes.Repeat([]byte("ff"), 99)) + "…"},
	} {
		if got := state.DescribeKey(c.key); got != c.want {
			t.Errorf("DescribeKey(%x) = %s; want %s", c.key, got, c.want)
		}
	}
}
