package connector

import (
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// TestKafkaSink_encode: a record's key keeps its bytes when its value is
// encoded after it, also when the value outgrows the sink's buffer, a
// null raw key stays null while an empty one stays empty, and the parts
// cannot be appended to over each other.
func TestKafkaSink_encode(t *testing.T) {
	str := types.Type{Kind: types.KindVarChar, Length: types.MaxLength}
	sch := types.Schema{Columns: []types.Column{{Name: "s", Type: str}}}
	json := &jsonCodec{sch: sch}
	raw := &rawCodec{typ: str}
	k := &KafkaSink{}
	row := func(v any) types.Row { return types.Row{Kind: types.Insert, Fields: []any{v}} }
	for i := range 3000 {
		key := strings.Repeat("k", i%13)
		v := strings.Repeat("x", i%97)
		if i%500 == 499 {
			v = strings.Repeat("y", 1000*i)
		}
		k.buf = k.buf[:0]
		kb, err := k.encode(raw, row(key))
		if err != nil {
			t.Fatal(err)
		}
		vb, err := k.encode(json, row(v))
		if err != nil {
			t.Fatal(err)
		}
		if string(kb) != key || string(vb) != `{"s":"`+v+`"}` {
			t.Fatalf("record %d: key %.40q value %.40q, want %.40q and the value of %.40q", i, kb, vb, key, v)
		}
		if cap(kb) != len(kb) || cap(vb) != len(vb) {
			t.Fatalf("record %d: a part's cap is over its len: appending to it would write over the next", i)
		}
	}
	k.buf = k.buf[:0]
	if b, err := k.encode(raw, row(nil)); err != nil || b != nil {
		t.Errorf("null raw key = %q, %v; want nil", b, err)
	}
	if b, err := k.encode(raw, row("")); err != nil || b == nil || len(b) != 0 {
		t.Errorf("empty raw key = %q (nil: %v), %v; want empty, not nil", b, b == nil, err)
	}
}
