package script_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptfsh/ptfsh/runtime/exec/ptfop"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// progGen makes a small program of the compiled subset, and rows, from
// fuzz bytes: each byte picks the next choice.
type progGen struct {
	b []byte
	i int
}

func (g *progGen) pick(n int) int {
	if g.i >= len(g.b) {
		return 0
	}
	v := int(g.b[g.i]) % n
	g.i++
	return v
}

var (
	fuzzNums = []string{"0", "1", "-1", "2.5", "7", "1e21", "0.1", "-0", "9007199254740993", "3", "-2147483649", "0.5"}
	fuzzStrs = []string{`""`, `"a"`, `"/p/"`, `"10"`, `"é"`, `"-0"`}
	fuzzBin  = []string{"+", "-", "*", "/", "%", "<", "<=", ">", ">=", "===", "!==", "==", "!=", "&&", "||"}
	fuzzVals = []string{"a", "b", "c", "s.n", "s.t", "input.url", "input.view_time", "true", "false", "null", "s.l.length", "K", "input.url.length"}
)

func (g *progGen) expr(depth int) string {
	k := g.pick(9)
	if depth <= 0 {
		k %= 3
	}
	switch k {
	case 0:
		return fuzzNums[g.pick(len(fuzzNums))]
	case 1:
		return fuzzStrs[g.pick(len(fuzzStrs))]
	case 2:
		return fuzzVals[g.pick(len(fuzzVals))]
	case 3, 4:
		return "(" + g.expr(depth-1) + " " + fuzzBin[g.pick(len(fuzzBin))] + " " + g.expr(depth-1) + ")"
	case 5:
		return []string{"!", "-", "+"}[g.pick(3)] + "(" + g.expr(depth-1) + ")"
	case 6:
		return "(" + g.expr(depth-1) + " ? " + g.expr(depth-1) + " : " + g.expr(depth-1) + ")"
	case 7:
		return "`x${" + g.expr(depth-1) + "}y${" + g.expr(depth-1) + "}`"
	default:
		return g.expr(depth - 1)
	}
}

func (g *progGen) stmt(depth int, inLoop bool) string {
	k := g.pick(10)
	if depth <= 0 {
		k %= 5
	}
	switch k {
	case 0:
		return []string{"a", "b", "c"}[g.pick(3)] + " = " + g.expr(2) + ";"
	case 1:
		return []string{"s.n", "s.t"}[g.pick(2)] + " = " + g.expr(2) + ";"
	case 2:
		return []string{"a", "s.n", "c"}[g.pick(3)] + []string{" += ", " -= ", " *= ", " %= "}[g.pick(4)] + g.expr(1) + ";"
	case 3:
		return []string{"s.n++;", "a--;", "++c;"}[g.pick(3)]
	case 4:
		return "ctx.collect({ a: " + g.expr(1) + ", b: " + g.expr(1) + ", c: " + g.expr(1) + " });"
	case 5:
		s := "if (" + g.expr(2) + ") { " + g.stmts(depth-1, inLoop) + " }"
		if g.pick(2) == 1 {
			s += " else { " + g.stmts(depth-1, inLoop) + " }"
		}
		return s
	case 6:
		return "for (let i = 0; i < " + fmt.Sprint(g.pick(4)) + "; i++) { " + g.stmts(depth-1, true) + " }"
	case 7:
		if inLoop {
			return []string{"break;", "continue;"}[g.pick(2)]
		}
		return "ctx.collect(" + g.expr(1) + ");"
	case 8:
		switch g.pick(3) {
		case 0:
			return "s.l.push(" + g.expr(1) + ");"
		case 1:
			return "s.l = [" + g.expr(1) + ", " + g.expr(1) + "];"
		}
		return "{ let d = " + g.expr(1) + "; c = d; }"
	default:
		return "{ let w = 0; while (w < 3) { w++; " + g.stmts(depth-1, true) + " } }"
	}
}

func (g *progGen) stmts(depth int, inLoop bool) string {
	n := 1 + g.pick(3)
	var parts []string
	for range n {
		parts = append(parts, g.stmt(depth, inLoop))
	}
	return strings.Join(parts, " ")
}

func (g *progGen) rows() []types.Row {
	n := 1 + g.pick(6)
	urls := []any{"/p/1", "/p/10", nil, "", "é"}
	vts := []any{int64(0), int64(500), nil, int64(-3), int64(1 << 40)}
	var rows []types.Row
	for range n {
		rows = append(rows, types.NewRow(fmt.Sprintf("u%d", g.pick(3)), urls[g.pick(len(urls))], vts[g.pick(len(vts))]))
	}
	return rows
}

// FuzzCompile runs random programs of the compiled subset over random
// rows on goja and compiled: rows, errors and state bytes must be the
// same (a program that does not compile runs on goja both times).
func FuzzCompile(f *testing.F) {
	for _, seed := range []string{
		"\x04\x03\x00\x01\x02\x05",
		"\x06\x03\x01\x04\x02\x02\x03\x07\x01\x09\x00\x02\x01",
		"\x05\x04\x0a\x03\x02\x05\x06\x07\x08\x09\x01\x02\x03",
		"\x07\x02\x08\x01\x04\x03\x03\x05\x02\x06\x01\x01\x09\x00",
		"\x09\x02\x06\x02\x04\x04\x01\x03\x06\x02\x07\x00\x04\x01",
		"\x02\x04\x03\x05\x06\x07\x00\x0b\x01\x02\x05\x0e\x03\x04",
		"\x01\x01\x03\x04\x05\x0c\x02\x03\x04\x07\x08\x09\x0a\x05\x06",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &progGen{b: data}
		body := "let a = 0, b = \"\", c = 1;\n" + g.stmts(3, false)
		src := `const K = ` + fuzzNums[g.pick(len(fuzzNums))] + `;
export default {
  output: "ROW<a STRING, b BIGINT, c DOUBLE>",
  args: [{ name: "input", traits: ["SET_SEMANTIC_TABLE"] }],
  state: { s: { default: { n: 0, t: "", l: [] } } },
  eval(ctx, { s }, { input }) {
` + body + `
  },
};`
		batches := [][]types.Row{g.rows(), g.rows()}
		opts := ptfop.HarnessOptions{PartitionBy: []string{"user_id"}, UID: "f"}
		want := runPath(t, false, "f.js", src, clickSchema(), opts, state.NewMem(), batches)
		got := runPath(t, true, "f.js", src, clickSchema(), opts, state.NewMem(), batches)
		for i := range want.out {
			if want.out[i] != got.out[i] {
				t.Fatalf("%s\nbatch %d:\ngoja:\n%s\ncompiled:\n%s", body, i, want.out[i], got.out[i])
			}
		}
		if want.state != got.state {
			t.Fatalf("%s\nstate:\ngoja:\n%s\ncompiled:\n%s", body, want.state, got.state)
		}
	})
}
