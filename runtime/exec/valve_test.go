package exec_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/exec"
)

// TestValve runs scripts of watermarks, idleness and ends against a
// valve and checks what it emits after each step: the combined
// watermark when it moved, "-" when it did not, and "idle" when the valve
// is idle. The rules are Flink's StatusWatermarkValve's.
func TestValve(t *testing.T) {
	runValveCases(t, exec.NewValve, []valveCase{
		{"the least of the inputs", 2, "0:5 1:3 1:7 0:9", "- 3 5 7"},
		{"never backwards", 2, "0:5 1:5 0:3 1:4", "- 5 - -"},
		{"an idle input holds nothing back", 2, "0:5 1:idle 0:8", "- 5 8"},
		{"an idle input's watermarks are ignored", 2, "0:5 1:idle 1:100 0:8", "- 5 - 8"},
		{"all idle: the greatest", 3, "0:5 1:9 2:2 0:idle 1:idle 2:idle", "- - 2 - - 9,idle"},
		{"back from idle behind: not aligned until it catches up", 2,
			"0:5 1:5 1:idle 0:10 1:active 1:7 0:12 1:11 1:13 0:14", "- 5 - 10 - - 12 - - 13"},
		{"back from idle ahead: aligned at once", 2, "0:5 1:8 1:idle 0:6 1:active 0:20", "- 5 - 6 - 8"},
		{"an idle valve wakes up with the first active input", 2, "0:1 1:1 0:idle 1:idle 0:active 0:4", "- 1 - 1,idle - 4"},
		{"an ended input holds nothing back", 2, "0:5 1:3 1:end 0:9", "- 3 5 9"},
		{"all ended: the greatest", 2, "0:5 1:3 0:end 1:end", "- 3 - 5"},
		{"one input", 1, "0:4 0:2 0:idle 0:active 0:6", "4 - 4,idle - 6"},
	})
}

// TestValve_split runs such scripts against a valve of the splits of one
// source: the rules are those of Flink's per-split watermarks
// (WatermarkOutputMultiplexer over CombinedWatermarkStatus).
func TestValve_split(t *testing.T) {
	runValveCases(t, exec.NewSplitValve, []valveCase{
		{"the least of the splits", 3, "0:5 1:3 2:9 1:7 0:9", "- - 3 5 7"},
		{"a split without a watermark holds it back", 2, "0:5 0:8", "- -"},
		{"an idle split holds nothing back", 2, "0:5 1:idle 0:8", "- 5 8"},
		{"back from idle behind: it holds the watermark back at once", 2,
			"0:5 1:5 1:idle 0:10 1:active 0:12 1:11 0:14 1:13", "- 5 - 10 - - 11 - 13"},
		{"its watermark makes an idle split active", 2, "0:5 1:5 1:idle 0:10 1:7 0:12 1:11", "- 5 - 10 - - 11"},
		{"all idle: the watermark stays", 3, "0:5 1:9 2:2 0:idle 1:idle 2:idle", "- - 2 - - 2,idle"},
		{"an idle source wakes up with a split's watermark", 2, "0:1 1:1 0:idle 1:idle 0:4", "- 1 - 1,idle 4"},
		{"an ended split holds nothing back", 2, "0:5 1:3 1:end 0:9", "- 3 5 9"},
		{"all ended: the watermark stays", 2, "0:5 1:3 0:end 1:end", "- 3 - -"},
	})
}

// valveCase is a script of steps against a valve of some inputs and what
// it emits after each.
type valveCase struct {
	name   string
	inputs int
	steps  string // i:wm (watermark), i:idle, i:active, i:end
	want   string
}

func runValveCases(t *testing.T, newValve func(int) *exec.Valve, cases []valveCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := newValve(c.inputs)
			var got []string
			for _, step := range strings.Fields(c.steps) {
				var i int
				var what string
				if _, err := fmt.Sscanf(strings.Replace(step, ":", " ", 1), "%d %s", &i, &what); err != nil {
					t.Fatal(err)
				}
				var wm int64
				var moved bool
				switch what {
				case "idle":
					wm, moved = v.SetIdle(i, true)
				case "active":
					wm, moved = v.SetIdle(i, false)
				case "end":
					wm, moved = v.Finish(i)
				default:
					var w int64
					fmt.Sscan(what, &w)
					wm, moved = v.Watermark(i, w)
				}
				s := "-"
				if moved {
					s = fmt.Sprint(wm)
				}
				if v.Idle() {
					if s == "-" {
						s = fmt.Sprint(v.Current())
					}
					s += ",idle"
				}
				got = append(got, s)
			}
			if g := strings.Join(got, " "); g != c.want {
				t.Errorf("steps %s\n got %s\nwant %s", c.steps, g, c.want)
			}
		})
	}
}

// TestValve_add adds an input while the valve runs: it holds the
// watermark where it is until it sends its own.
func TestValve_add(t *testing.T) {
	v := exec.NewValve(1)
	v.Watermark(0, 10)
	i := v.Add()
	if wm, moved := v.Watermark(0, 20); moved {
		t.Errorf("a new input did not hold the watermark: %d", wm)
	}
	if wm, moved := v.Watermark(i, 15); !moved || wm != 15 {
		t.Errorf("after the new input's watermark: %d, %v; want 15", wm, moved)
	}
}
