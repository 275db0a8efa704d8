package spell

import "testing"

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"clickcount", "click_count", 1},
		{"zoë", "zoe", 1}, {"state.cache_sise", "state.cache-size", 2},
	}
	for _, tc := range tests {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	names := []string{"url", "click_count", "Greeting"}
	for _, tc := range []struct {
		name  string
		limit int
		want  string
	}{
		{"clickcount", 3, "click_count"},
		{"greting", 3, "Greeting"},
		{"nothing", 3, ""},
		{"ur", 1, ""},
	} {
		if got := Closest(tc.name, names, tc.limit); got != tc.want {
			t.Errorf("Closest(%q, %d) = %q, want %q", tc.name, tc.limit, got, tc.want)
		}
	}
}
