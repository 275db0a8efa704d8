package sqlmini

import "testing"

func TestIsFlinkReserved(t *testing.T) {
	for w, want := range map[string]bool{"sum": true, "Views": true, "VALUE": true, "year": true, "select": true, "name": false, "ts": false, "input": false, "uid": false} {
		if got := IsFlinkReserved(w); got != want {
			t.Errorf("IsFlinkReserved(%q) = %v, want %v", w, got, want)
		}
	}
	// ptfsh's reserved words are Flink's too, but for four that ptfsh's
	// grammar reserves and Flink's does not: Flink takes a column asc, map
	// or descriptor, ptfsh needs backquotes.
	notFlinks := map[string]bool{"ASC": true, "DESC": true, "DESCRIPTOR": true, "MAP": true}
	for _, w := range reserved {
		if !IsFlinkReserved(w) && !notFlinks[w] {
			t.Errorf("%s is reserved in ptfsh, not in Flink", w)
		}
	}
}
