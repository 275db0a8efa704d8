package plan

import (
	"strconv"
	"strings"
)

func itoa(i int) string { return strconv.Itoa(i) }

func joinStrings(s []string) string { return strings.Join(s, ", ") }

// uniqueNames makes names unique as Flink does: the second and later
// occurrences of a name get the suffixes 0, 1, ... (skipping names taken).
func uniqueNames(in []string) []string {
	out := make([]string, len(in))
	seen := map[string]bool{}
	for i, n := range in {
		if !seen[n] {
			out[i] = n
			seen[n] = true
			continue
		}
		for k := 0; ; k++ {
			c := n + strconv.Itoa(k)
			if !seen[c] {
				out[i] = c
				seen[c] = true
				break
			}
		}
	}
	return out
}
