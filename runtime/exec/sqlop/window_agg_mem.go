package sqlop

import (
	"maps"
	"slices"
	"unsafe"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// The window aggregation of a bounded statement without a state file.
//
// A statement whose input ends and whose state store no later run opens
// takes no checkpoint before its end, so its window aggregation need not
// keep its windows in the store (window_agg.go): it keeps them in memory,
// fused with its TUMBLE or HOP window table function, and gives the same
// rows in the same order. Per input row it hashes the group key once (the
// window is found among the key's few open windows by its end), adds to
// accumulators that keep numbers unboxed (COUNT, SUM and AVG of integers
// and floating-point numbers, and MIN and MAX as one value, since an
// insert-only input never takes a value back), and makes no intermediate
// row per window. Every other aggregate call keeps its Accumulator.
// Statements with a state file, over live inputs, or that stop to go on
// later keep the store's windows, which checkpoints save.

// memWindowAggOK reports whether n can run in memory, fused with its
// window table function (memWindowAggStream): a TUMBLE or HOP on event
// time directly under it, and GROUP BY columns that are input columns or
// window_start and window_end.
func memWindowAggOK(n *WindowAggregateNode) (*WindowTVFNode, bool) {
	tvf, ok := n.In.(*WindowTVFNode)
	if !ok || n.ProcTime || tvf.ProcTime || !tvf.DropLate || (tvf.Spec.Kind != Tumble && tvf.Spec.Kind != Hop) {
		return nil, false
	}
	width := tvf.Sch.Len()
	for _, g := range n.Groups {
		c, ok := g.(*expr.Column)
		if !ok || c.Index == width-1 || c.Index >= width {
			return nil, false // window_time, or computed: the store's way
		}
	}
	return tvf, true
}

// memAccKind is how a memAcc adds.
type memAccKind uint8

const (
	memCount    memAccKind = iota // COUNT(x): non-NULL values; COUNT(*): rows
	memSumInt                     // SUM of integers: n values, sum i, wrapping as the argument's type
	memSumFloat                   // SUM of FLOAT or DOUBLE: n values, sum f
	memAvgInt                     // AVG of integers: n values, sum i in a long
	memAvgFloat                   // AVG of FLOAT or DOUBLE: n values, sum f
	memMin                        // MIN: the least value v
	memMax                        // MAX: the greatest value v
	memOther                      // any other call: an Accumulator
)

// memCall is an aggregate call of a memWindowAggStream.
type memCall struct {
	c    *AggCall
	kind memAccKind
	star bool       // COUNT(*), or COUNT of a constant under FILTER: no argument to evaluate
	arg  types.Kind // the argument's kind
	col  int        // the argument is this column, read without Eval; -1: it is not one
	x    expr.Expr  // else the argument to evaluate
	// cond is the condition of the call's FILTER (WHERE cond), evaluated
	// before x, for a call other than memOther, whose Accumulator takes
	// the FilteredArg's Skip.
	cond expr.Expr
}

// newMemCall returns how call c adds in memory.
func newMemCall(c *AggCall) memCall {
	mc := memCall{c: c, kind: memKindOf(c), arg: c.ArgType.Kind, col: -1, x: c.Arg}
	if mc.kind == memCount && c.Star {
		mc.star = true
	}
	if mc.kind != memOther {
		if f, ok := mc.x.(*FilteredArg); ok {
			mc.cond, mc.x = f.Cond, f.Arg
			if mc.kind == memCount && f.Arg.IsConstant() {
				// COUNT(*) FILTER counts a constant, which is not NULL.
				v, err := f.Arg.Eval(nil)
				mc.star = err == nil && v != nil
			}
		}
		if x, ok := expr.IntegerCastOperand(mc.x); ok {
			mc.x = x // SUM(CAST(delay AS BIGINT)): delay as it is
		}
	}
	if col, ok := mc.x.(*expr.Column); ok {
		mc.col = col.Index
	}
	return mc
}

// memKindOf is how call c adds in memory: memOther for a call that goes
// through its Accumulator.
func memKindOf(c *AggCall) memAccKind {
	if c.Distinct {
		return memOther
	}
	isInt, isFloat := c.ArgType.IsInteger(), c.ArgType.Kind == types.KindFloat || c.ArgType.Kind == types.KindDouble
	switch c.Fn {
	case "COUNT":
		return memCount
	case "SUM":
		switch {
		case isInt:
			return memSumInt
		case isFloat:
			return memSumFloat
		}
	case "AVG":
		switch {
		case isInt:
			return memAvgInt
		case isFloat:
			return memAvgFloat
		}
	case "MIN":
		return memMin
	case "MAX":
		return memMax
	}
	return memOther
}

// memAcc is the running state of one call in one window: n is the count
// of values added (rows, for COUNT(*)), i and f the sums, v the extreme
// value of MIN and MAX (i holds it too when it is an int64, vInt), acc
// the Accumulator of a memOther call.
type memAcc struct {
	n    int64
	i    int64
	f    float64
	v    any
	vInt bool
	acc  Accumulator
}

// add adds value v (Skip: a row the call's FILTER leaves out) as the
// call's Accumulator would (aggregate_acc.go), which value gives.
func (a *memAcc) add(c *memCall, v any) {
	if c.kind == memOther {
		a.acc.Add(v)
		return
	}
	if c.star {
		a.n++ // COUNT(*): the row
		return
	}
	if v == nil || v == Skip {
		return
	}
	switch c.kind {
	case memCount:
		a.n++
	case memSumInt, memSumFloat, memAvgInt, memAvgFloat:
		// sumAcc.Step: every non-NULL value counts; integers wrap as the
		// argument's type (AVG sums in a long), FLOAT rounds to float32.
		a.n++
		switch x := v.(type) {
		case int64:
			if c.kind == memAvgInt || c.kind == memAvgFloat {
				a.i += x
			} else {
				a.i = wrapInt(a.i+x, c.arg)
			}
		case float64:
			a.f += x
			if c.arg == types.KindFloat {
				a.f = float64(float32(a.f))
			}
		}
	case memMin, memMax:
		x, isInt := v.(int64)
		if a.n == 0 {
			a.n, a.v, a.i, a.vInt = 1, v, x, isInt
			return
		}
		var cmp int
		if isInt && a.vInt {
			cmp = compareInt(x, a.i)
		} else {
			cmp = expr.CompareValues(v, a.v)
		}
		// The first of equal values stays, as in the multiset of
		// extremeAcc.
		if (c.kind == memMax && cmp > 0) || (c.kind == memMin && cmp < 0) {
			a.v, a.i, a.vInt = v, x, isInt
		}
	}
}

func compareInt(x, y int64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// value is the call's result, as its Accumulator's Value would be.
func (a *memAcc) value(c *memCall) any {
	switch c.kind {
	case memOther:
		return a.acc.Value()
	case memCount:
		return a.n
	}
	if a.n <= 0 {
		return nil
	}
	switch c.kind {
	case memSumInt:
		return a.i
	case memSumFloat:
		return a.f
	case memAvgInt:
		return wrapInt(a.i/a.n, c.arg)
	case memAvgFloat:
		if c.arg == types.KindFloat {
			return float64(float32(a.f / float64(a.n)))
		}
		return a.f / float64(a.n)
	}
	return a.v // memMin, memMax
}

// memWindow is one open window of one key.
type memWindow struct {
	key  *memKey
	end  int64
	vals []any // the GROUP BY values
	accs []memAcc
}

// memKey is a group key (the GROUP BY values but the window's) and its
// open windows, a few at most.
type memKey struct {
	key  string
	str  bool // key is the string itself, in strKeys
	idle bool // its windows fired, and none is open
	wins []*memWindow
}

// memEnd is the windows that end at end, in the order they appeared.
type memEnd struct {
	end  int64
	wins []*memWindow
}

// boxedWindow is the window columns of [start, end), boxed once.
type boxedWindow struct {
	start, end int64
	v          [3]any
}

type memWindowAggStream struct {
	n     *WindowAggregateNode
	tvf   *WindowTVFNode
	in    exec.Stream // the window table function's input
	ex    *exec.Execution
	wm    int64
	out   exec.Queue
	calls []memCall
	// keyCols are the GROUP BY columns that are input columns, in order;
	// groupAt says where each GROUP BY value comes from: an input column
	// (>= 0), window_start (-1) or window_end (-2).
	keyCols []int
	groupAt []int
	width   int                // the input's columns
	keys    map[string]*memKey // by encoded key
	strKeys map[string]*memKey // by the key's one string
	ends    []memEnd           // the open ends, ascending; ends[head:] are live
	head    int
	free    []*memWindow // windows that fired, for reuse
	spare   []*memWindow // the array of the last end that fired, for reuse
	idle    int          // keys without an open window
	late    int64
	ws      [][2]int64 // the windows of the row at hand
	kbuf    []byte
	row     []any // the input row with a window's columns
	grow    []any // a group row for Outs
	boxes   []boxedWindow
	rowBox  *[3]any       // the window columns row holds (box), nil: none known
	strSeen exec.StrCache // strKeys (*memKey) by the string's address (key)
}

func (s *memWindowAggStream) Next() (exec.Event, error) { return s.out.Next(s.in, s) }

func (s *memWindowAggStream) Close() error { return s.in.Close() }

// openMemWindowAgg opens n in memory over its window table function's
// input in.
func openMemWindowAgg(n *WindowAggregateNode, tvf *WindowTVFNode, in exec.Stream, ex *exec.Execution) *memWindowAggStream {
	s := &memWindowAggStream{n: n, tvf: tvf, in: in, ex: ex, wm: exec.MinWatermark, keys: map[string]*memKey{}, strKeys: map[string]*memKey{}}
	s.width = tvf.Sch.Len() - 3
	for _, c := range n.Calls {
		s.calls = append(s.calls, newMemCall(c))
	}
	for _, g := range n.Groups {
		i := g.(*expr.Column).Index
		switch i {
		case s.width:
			s.groupAt = append(s.groupAt, -1)
		case s.width + 1:
			s.groupAt = append(s.groupAt, -2)
		default:
			s.groupAt = append(s.groupAt, i)
			s.keyCols = append(s.keyCols, i)
		}
	}
	s.row = make([]any, s.width+3)
	return s
}

// Time fires the windows the watermark or the end of input passed.
func (s *memWindowAggStream) Time(ev *exec.Event) error {
	switch ev.Kind {
	case exec.EvWatermark:
		s.wm = max(s.wm, ev.Wm)
		if ev.Restored() {
			return nil // what came after it waits for the next one
		}
		return s.fire(ev.Wm)
	case exec.EvEnd:
		if s.late > 0 {
			s.ex.Notes = append(s.ex.Notes, "note: "+s.tvf.Spec.Kind.String()+" dropped "+exec.Plural(s.late, "late row")+", whose windows the watermark had passed when they arrived, as Flink does")
		}
		if s.ex.Opts.EndOfInput {
			return s.fire(exec.MaxWatermark)
		}
	}
	return nil
}

// Row adds one input row to each of its windows that has not fired. A
// row without a time is dropped, as Flink's window operators drop a NULL
// rowtime.
func (s *memWindowAggStream) Row(r types.Row) error {
	t, ok := types.TimeMillis(r.Fields[s.tvf.Time])
	if !ok {
		return nil
	}
	if len(s.ws) != 1 || t < s.ws[0][0] || t >= s.ws[0][1] || s.tvf.Spec.Kind != Tumble {
		// A TUMBLE window holds every time from its start to its end:
		// a row of the window of the row before (most, in time order)
		// takes it again, without the division that finds it.
		s.ws = s.tvf.Spec.AppendWindows(s.ws[:0], t)
	}
	var k *memKey
	copied := false
	for i, w := range s.ws {
		if w[1]-1 <= s.wm {
			continue // late for this window: its result is out already
		}
		if k == nil {
			k = s.key(r.Fields)
		}
		win := k.window(w[1])
		if win == nil {
			win = s.newWindow(k, r.Fields, w)
		}
		if !copied {
			copy(s.row, r.Fields)
			copied = true
		}
		if b := s.box(i, w); b != s.rowBox {
			// The window columns of the row before are those of the
			// same window, most often: copied once for its rows.
			copy(s.row[s.width:], b[:])
			s.rowBox = b
		}
		for j := range s.calls {
			c := &s.calls[j]
			if c.cond != nil {
				ok, err := c.cond.Eval(s.row)
				if err != nil {
					return err
				}
				if ok != true {
					continue // as the Skip of a FilteredArg: not added
				}
			}
			var v any
			switch {
			case c.star:
			case c.col >= 0:
				v = s.row[c.col]
			default:
				var err error
				if v, err = c.x.Eval(s.row); err != nil {
					return err
				}
			}
			win.accs[j].add(c, v)
		}
	}
	if k == nil && len(s.ws) > 0 {
		s.late++
	}
	return nil
}

// key returns the group key of the row with fields f, hashed once. A
// key of one string is looked up as it is, without its encoding.
func (s *memWindowAggStream) key(f []any) *memKey {
	if len(s.keyCols) == 1 {
		if str, ok := f[s.keyCols[0]].(string); ok {
			// A reader that takes its strings from a dictionary (Parquet)
			// hands out the same string for every row of a key: found by
			// its address, without hashing it.
			if k := (*memKey)(s.strSeen.Get(str)); k != nil {
				return k
			}
			k := s.strKeys[str]
			if k == nil {
				k = &memKey{key: str, str: true}
				s.strKeys[str] = k
			}
			s.strSeen.Put(str, unsafe.Pointer(k))
			return k
		}
	}
	b := s.kbuf[:0]
	for _, i := range s.keyCols {
		b = keycodec.AppendValue(b, f[i])
	}
	s.kbuf = b
	k := s.keys[string(b)]
	if k == nil {
		k = &memKey{key: string(b)}
		s.keys[k.key] = k
	}
	return k
}

// window returns the key's open window that ends at end, or nil.
func (k *memKey) window(end int64) *memWindow {
	for _, w := range k.wins {
		if w.end == end {
			return w
		}
	}
	return nil
}

// box returns the window columns of window w, the i-th of the row at
// hand: boxed once while the rows keep falling in the same windows.
func (s *memWindowAggStream) box(i int, w [2]int64) *[3]any {
	if i >= len(s.boxes) {
		s.boxes = append(s.boxes, make([]boxedWindow, i+1-len(s.boxes))...)
	}
	b := &s.boxes[i]
	if b.v[0] == nil || b.start != w[0] || b.end != w[1] {
		*b = boxedWindow{start: w[0], end: w[1], v: windowColumns(s.tvf.Sch, w[0], w[1])}
		if s.rowBox == &b.v {
			s.rowBox = nil // changed: s.row has the old window's columns
		}
	}
	return &b.v
}

// newWindow opens the window w of key k, whose first row has fields f.
func (s *memWindowAggStream) newWindow(k *memKey, f []any, w [2]int64) *memWindow {
	var win *memWindow
	if n := len(s.free); n > 0 {
		win, s.free = s.free[n-1], s.free[:n-1]
		clear(win.accs)
	} else {
		win = &memWindow{vals: make([]any, len(s.groupAt)), accs: make([]memAcc, len(s.calls))}
	}
	win.key, win.end = k, w[1]
	for i, at := range s.groupAt {
		switch at {
		case -1:
			win.vals[i] = types.LocalDateTime{Millis: w[0]}
		case -2:
			win.vals[i] = types.LocalDateTime{Millis: w[1]}
		default:
			win.vals[i] = f[at]
		}
	}
	for i := range s.calls {
		if s.calls[i].kind == memOther {
			win.accs[i].acc = NewAccumulator(s.calls[i].c)
		}
	}
	if k.idle {
		k.idle = false
		s.idle--
	}
	k.wins = append(k.wins, win)
	// The ends are few (the windows the watermark has not passed), and a
	// new one is most often the greatest.
	at := len(s.ends)
	for at > s.head && s.ends[at-1].end > w[1] {
		at--
	}
	if at > s.head && s.ends[at-1].end == w[1] {
		s.ends[at-1].wins = append(s.ends[at-1].wins, win)
	} else {
		s.ends = slices.Insert(s.ends, at, memEnd{end: w[1], wins: append(s.spare, win)})
		s.spare = nil
	}
	return win
}

// fire emits each window whose end - 1 is at or before t, by end and
// then in the order the windows appeared, and forgets it.
func (s *memWindowAggStream) fire(t int64) error {
	for s.head < len(s.ends) && s.ends[s.head].end-1 <= t {
		e := &s.ends[s.head]
		for _, win := range e.wins {
			if err := s.emit(win); err != nil {
				return err
			}
			k := win.key
			k.wins = slices.DeleteFunc(k.wins, func(w *memWindow) bool { return w == win })
			if len(k.wins) == 0 {
				k.idle = true
				s.idle++
			}
			win.key = nil
			clear(win.vals)
			s.free = append(s.free, win)
		}
		clear(e.wins)
		s.spare = e.wins[:0]
		*e = memEnd{}
		s.head++
	}
	if s.idle > maxIdleKeys {
		s.dropIdleKeys()
	}
	if s.head == len(s.ends) {
		s.ends, s.head = s.ends[:0], 0
	} else if s.head > 64 && s.head > len(s.ends)/2 {
		n := copy(s.ends, s.ends[s.head:])
		clear(s.ends[n:])
		s.ends, s.head = s.ends[:n], 0
	}
	return nil
}

// maxIdleKeys is how many keys without an open window stay in memory,
// so that a key that comes back in the next window costs no allocation.
const maxIdleKeys = 4096

// dropIdleKeys forgets the keys without an open window.
func (s *memWindowAggStream) dropIdleKeys() {
	for _, m := range []map[string]*memKey{s.keys, s.strKeys} {
		maps.DeleteFunc(m, func(_ string, k *memKey) bool { return k.idle })
	}
	s.strSeen.Reset()
	s.idle = 0
}

// emit hands on the result of a window that fired.
func (s *memWindowAggStream) emit(win *memWindow) error {
	g := append(s.grow[:0], win.vals...)
	for i := range s.calls {
		g = append(g, win.accs[i].value(&s.calls[i]))
	}
	s.grow = g
	out := make([]any, len(s.n.Outs))
	for i, x := range s.n.Outs {
		v, err := x.Eval(g)
		if err != nil {
			return err
		}
		out[i] = v
	}
	clear(g)
	s.out.PushRow(types.Insert, out)
	return nil
}
