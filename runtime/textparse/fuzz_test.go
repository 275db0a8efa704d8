package textparse_test

import (
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/textparse"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// FuzzValue: any text read as any of these types, with or without a
// timestamp pattern, gives a value or a one-line error, never a panic;
// and a string is its text.
func FuzzValue(f *testing.F) {
	for _, s := range []string{"42", "-9223372036854775808", "1e309", "NaN", "12.345", "2025-03-27 12:00:05.123",
		"2025-03-27T12:00:05Z", "12:30:05", "+1 02:03:04.000", "P1Y2M", `[1, null, 3]`, `{"a": 1}`, `{"k": [1, 2]}`, "dHJ1ZQ==", "true", " "} {
		f.Add(s, uint8(0), false)
	}
	typs := []types.Type{types.TypeBoolean, types.TypeInt, types.TypeBigInt, types.TypeDouble,
		{Kind: types.KindTinyInt}, {Kind: types.KindFloat}, {Kind: types.KindDecimal, Length: 10, Scale: 2},
		types.TypeString, {Kind: types.KindVarBinary}, {Kind: types.KindDate}, {Kind: types.KindTime, Length: 3},
		types.TypeTimestamp3, types.TypeTimestampLTZ, {Kind: types.KindIntervalDayTime}, {Kind: types.KindIntervalYearMonth},
		types.ArrayOf(types.TypeInt), types.MapOf(types.TypeString, types.ArrayOf(types.TypeBigInt)),
		types.NewRowType(types.Field{Name: "a", Type: types.TypeInt}, types.Field{Name: "b", Type: types.TypeString})}
	f.Fuzz(func(t *testing.T, text string, which uint8, pattern bool) {
		typ := typs[int(which)%len(typs)]
		opts := textparse.Options{}
		if pattern {
			opts.TimestampPattern = "yyyy/MM/dd HH:mm"
		}
		v, err := textparse.Value(text, typ, opts)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("Value(%q, %s): an error of several lines: %q", text, typ, err)
			}
			return
		}
		if typ.IsString() && v != text {
			t.Fatalf("Value(%q, %s) = %v: a string is not its text", text, typ, v)
		}
	})
}
