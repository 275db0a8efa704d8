package sqlop_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/runtime/exec/sqlop"
)

// TestWindowSpec_Assign: the windows of one row, in the order Flink 2.3.0's
// window table functions emit them (the oracle's rows in
// tests/testdata/sql/windows.txtar), and Java's remainder before 1970.
func TestWindowSpec_Assign(t *testing.T) {
	const min = 60_000
	at := func(m int64) int64 { return m * min } // minutes after 08:00, as offsets from 0
	for _, tc := range []struct {
		name string
		spec sqlop.WindowSpec
		t    int64
		want [][2]int64
	}{
		{"tumble", sqlop.WindowSpec{Kind: sqlop.Tumble, Size: 10 * min}, at(5), [][2]int64{{0, at(10)}}},
		{"tumble on a bound", sqlop.WindowSpec{Kind: sqlop.Tumble, Size: 10 * min}, at(10), [][2]int64{{at(10), at(20)}}},
		{"tumble offset", sqlop.WindowSpec{Kind: sqlop.Tumble, Size: 10 * min, Offset: min}, at(5), [][2]int64{{at(1), at(11)}}},
		{"tumble before 1970", sqlop.WindowSpec{Kind: sqlop.Tumble, Size: 10 * min}, -1, [][2]int64{{at(-10), 0}}},
		{"hop latest first", sqlop.WindowSpec{Kind: sqlop.Hop, Size: 10 * min, Slide: 5 * min}, at(7), [][2]int64{{at(5), at(15)}, {0, at(10)}}},
		{"hop size not a multiple", sqlop.WindowSpec{Kind: sqlop.Hop, Size: 10 * min, Slide: 3 * min}, at(5), [][2]int64{{at(3), at(13)}, {0, at(10)}, {at(-3), at(7)}}},
		{"hop gap between windows", sqlop.WindowSpec{Kind: sqlop.Hop, Size: 5 * min, Slide: 10 * min}, at(5), nil},
		{"cumulate", sqlop.WindowSpec{Kind: sqlop.Cumulate, Size: 10 * min, Slide: 2 * min}, at(5), [][2]int64{{0, at(6)}, {0, at(8)}, {0, at(10)}}},
		{"cumulate last step", sqlop.WindowSpec{Kind: sqlop.Cumulate, Size: 10 * min, Slide: 2 * min}, at(9), [][2]int64{{0, at(10)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.spec.Assign(tc.t)); diff != "" {
				t.Errorf("Assign(%d) (-want +got):\n%s", tc.t, diff)
			}
		})
	}
}

func TestWindowSpec_Text(t *testing.T) {
	for _, tc := range []struct {
		spec sqlop.WindowSpec
		want string
	}{
		{sqlop.WindowSpec{Kind: sqlop.Tumble, Size: 600_000}, "TUMBLE(size=[10 min])"},
		{sqlop.WindowSpec{Kind: sqlop.Hop, Size: 3_600_000, Slide: 1500, Offset: 1000}, "HOP(size=[1 h], slide=[1500 ms], offset=[1 s])"},
		{sqlop.WindowSpec{Kind: sqlop.Cumulate, Size: 86_400_000, Slide: 3_600_000}, "CUMULATE(max_size=[1 d], step=[1 h])"},
		{sqlop.WindowSpec{Kind: sqlop.Session, Gap: 2}, "SESSION(gap=[2 ms])"},
	} {
		if got := tc.spec.Text(); got != tc.want {
			t.Errorf("Text() = %q, want %q", got, tc.want)
		}
	}
}
