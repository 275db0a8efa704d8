package connector

import (
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// TestKafkaSink_encode: records encoded one after another into the sink's
// blocks keep their bytes when later records are encoded, a record larger
// than a block gets bytes of its own, and a null raw key stays null while
// an empty one stays empty.
func TestKafkaSink_encode(t *testing.T) {
	str := types.Type{Kind: types.KindVarChar, Length: types.MaxLength}
	sch := types.Schema{Columns: []types.Column{{Name: "s", Type: str}}}
	json := &jsonCodec{sch: sch}
	raw := &rawCodec{typ: str}
	k := &KafkaSink{}
	row := func(v any) types.Row { return types.Row{Kind: types.Insert, Fields: []any{v}} }
	var got [][]byte
	var want []string
	for i := range 3000 {
		v := strings.Repeat("x", i%97)
		if i == 1500 {
			v = strings.Repeat("y", 3*sinkBlock)
		}
		b, err := k.encode(json, row(v))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b)
		want = append(want, `{"s":"`+v+`"}`)
		if cap(b) != len(b) {
			t.Fatalf("record %d: cap %d > len %d: appending to it would write over the next", i, cap(b), len(b))
		}
	}
	for i := range got {
		if string(got[i]) != want[i] {
			t.Fatalf("record %d = %.40q, want %.40q", i, got[i], want[i])
		}
	}
	if b, err := k.encode(raw, row(nil)); err != nil || b != nil {
		t.Errorf("null raw key = %q, %v; want nil", b, err)
	}
	if b, err := k.encode(raw, row("")); err != nil || b == nil || len(b) != 0 {
		t.Errorf("empty raw key = %q (nil: %v), %v; want empty, not nil", b, b == nil, err)
	}
}
