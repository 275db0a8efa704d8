package exec

import (
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// Plural counts n of a noun for a note: "1 row", "3 rows".
func Plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(n, 10) + " " + noun + "s"
}

// FormatKey shows the values of a key as notes and errors give them:
// "Bob, 3" (the caller adds the brackets).
func FormatKey(vals []any) string {
	s := make([]string, len(vals))
	for i, v := range vals {
		s[i] = types.FormatValue(v, types.Type{})
	}
	return strings.Join(s, ", ")
}
