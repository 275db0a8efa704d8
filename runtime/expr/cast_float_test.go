package expr_test

import (
	"strings"
	"testing"
)

// TestCast_stringToFloat: text that is no number fails a CAST to FLOAT as
// it fails one to DOUBLE, constant or not, and TRY_CAST gives NULL. Flink's
// own spec says so: CastFunctionITCase's testCastTo(FLOAT()) has
// failRuntime(STRING(), "Apache", NumberFormatException.class) beside
// fromCase(STRING(), "1.234", 1.234f), and the same for DOUBLE().
func TestCast_stringToFloat(t *testing.T) {
	for _, tt := range []struct{ expr, want string }{
		{`CAST('Apache' AS FLOAT)`, "!cannot cast 'Apache' to FLOAT"},
		{`CAST('Apache' AS DOUBLE)`, "!cannot cast 'Apache' to DOUBLE"},
		{`CAST(TRIM(' abc ') AS FLOAT)`, "!cannot cast 'abc' to FLOAT"},
		{`TRY_CAST('Apache' AS FLOAT)`, "null"},
		{`CAST('1.234' AS FLOAT)`, "1.234"},
		{`CAST('123' AS FLOAT)`, "123.0"},
	} {
		got, _, err := evalConst(tt.expr)
		if want, isErr := strings.CutPrefix(tt.want, "!"); isErr {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s = %s, %v; want an error containing %q", tt.expr, got, err, want)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s = %s, %v; want %s", tt.expr, got, err, tt.want)
		}
	}
}
