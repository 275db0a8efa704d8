package connector

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"math/big"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/textparse"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// The 'datagen' connector generates rows, as Flink's DataGen SQL connector
// does, with the same options:
//
//	CREATE TABLE orders (
//	  id BIGINT, amount DECIMAL(10, 2), buyer STRING, ts TIMESTAMP(3),
//	  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND
//	) WITH (
//	  'connector' = 'datagen',
//	  'number-of-rows' = '100',              -- bounded; without it (and without
//	                                         -- a sequence) the table is unbounded
//	  'fields.id.kind' = 'sequence',         -- random (the default) or sequence
//	  'fields.id.start' = '1', 'fields.id.end' = '1000',
//	  'fields.amount.min' = '1', 'fields.amount.max' = '500',
//	  'fields.buyer.length' = '4',           -- random strings are hex digits
//	  'fields.buyer.null-rate' = '0.1',
//	  'fields.ts.kind' = 'sequence',         -- ptfsh: a sequence of epoch milliseconds
//	  'fields.ts.start' = '2025-03-27 12:00:00', 'fields.ts.step' = '1 s',
//	  'seed' = '42'                          -- ptfsh: the random seed
//	);
//
// Options, as in Flink: number-of-rows; rows-per-second (a pace a class
// can watch: the rows come at that rate of wall-clock time, without it as
// fast as ptfsh can make them; with the processing-time clock fixed by SET
// 'ptfsh.processing-time' no time passes and there is no pace); fields.NAME.kind = random | sequence; for random numbers
// (TINYINT to BIGINT, FLOAT, DOUBLE, DECIMAL, INTERVALs) fields.NAME.min and
// .max, inclusive, defaulting to Flink's bounds; for random strings and
// bytes fields.NAME.length (default the declared length, 100 for STRING and
// BYTES) and fields.NAME.var-len (a length between 1 and length); for
// random collections fields.NAME.length (default 3) and the element's
// options under fields.NAME.element (ARRAY), fields.NAME.key and
// fields.NAME.value (MAP), fields.NAME.FIELD (ROW); fields.NAME.null-rate
// (0 to 1) for every random field; for sequences fields.NAME.start and
// fields.NAME.end, both required and inclusive: the table ends when the
// first sequence ends (or after number-of-rows, whichever comes first).
//
// Where Flink reads the machine's clock, ptfsh is deterministic:
//
//   - Random values come from a generator seeded by the table's 'seed'
//     option, else SET 'ptfsh.seed', else 0; each column (and nested
//     field) draws from its own stream, so adding a column does not change
//     the others.
//   - Random TIMESTAMP and TIMESTAMP_LTZ values lie in the window
//     (base - max-past, base], where base is SET 'ptfsh.processing-time'
//     when set and 2025-01-01 00:00:00 UTC otherwise; random DATE and TIME
//     values are the base's date and time of day (Flink: today and now).
//     With rows-per-second the base moves with the pace, as Flink's clock
//     does: row k's is k/rate seconds after the first row's, so that a
//     paced table's timestamps advance (with max-past 0, the default, row
//     k is at exactly base + k/rate s), also on a fixed processing-time
//     clock, which makes no wait.
//   - A timestamp may also be a sequence (a ptfsh extension):
//     fields.NAME.start (epoch milliseconds or '2025-03-27 12:00:00'),
//     optional fields.NAME.end (inclusive), and fields.NAME.step (Flink's
//     duration syntax, default '1 ms'), so that a WATERMARK clause makes
//     event time advance row by row.
//
// A WATERMARK clause works as on a file table: after each row, the largest
// time seen minus the delay (SET 'ptfsh.watermark.every-rows' thins them).
// Without number-of-rows and without a sequence that ends, the table is
// unbounded, as in Flink: read it with LIMIT, or cancel the statement (a
// session can bound every such table: Env.GeneratedRows).

// SetSeed is the session's seed for datagen tables without a 'seed' option.
const SetSeed = "ptfsh.seed"

// DatagenEpoch ends the window of random timestamps when
// 'ptfsh.processing-time' is not set: 2025-01-01 00:00:00 UTC.
const DatagenEpoch = 1735689600000

// DatagenOptions lists the options of the datagen connector; '#' stands
// for a column name (or a nested field's path).
var DatagenOptions = []string{"connector", "number-of-rows", "rows-per-second", "seed",
	"fields.#.kind", "fields.#.min", "fields.#.max", "fields.#.max-past", "fields.#.length", "fields.#.var-len",
	"fields.#.null-rate", "fields.#.start", "fields.#.end", "fields.#.step"}

// sequenceTypes names the types a sequence generator supports.
const sequenceTypes = "TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DECIMAL, CHAR, VARCHAR, STRING, BINARY, VARBINARY, BYTES, TIMESTAMP, TIMESTAMP_LTZ"

// CheckDatagenOptions validates the WITH options of a datagen table at
// CREATE TABLE, pointing at the option in error.
func CheckDatagenOptions(t *catalog.Table, ct *sqlmini.CreateTable) error {
	if _, err := parseDatagen(t); err != nil {
		pos := ct.Pos
		if oe, ok := err.(*datagenOptionError); ok {
			for _, o := range ct.Options {
				if string(o.Key) == oe.key {
					pos = o.Pos
				}
			}
		}
		return sqlmini.Errorf(pos, "%w", err)
	}
	return nil
}

// datagenOptionError is a bad option; key names it (empty: the table).
type datagenOptionError struct {
	key string
	msg string
}

func (e *datagenOptionError) Error() string { return e.msg }

func optErr(key, format string, args ...any) error {
	return &datagenOptionError{key: key, msg: fmt.Sprintf(format, args...)}
}

// datagenSpec is a datagen table's options, read and checked.
type datagenSpec struct {
	rows    int64 // number-of-rows; -1 unbounded
	rate    int64 // rows-per-second; 0: as fast as possible
	seed    int64
	hasSeed bool
	fields  []*genSpec
}

// genSpec generates the values of one column or nested field.
type genSpec struct {
	path     string // "fields.a", "fields.a.element", ...
	typ      types.Type
	seq      bool
	nullRate float64
	// random numbers: [lo, hi] (integers, intervals) or [flo, fhi].
	lo, hi   int64
	flo, fhi float64
	// random strings, bytes and collections.
	length int
	varLen bool
	// random timestamps: the window before the base.
	maxPast int64
	// sequences: start, end (inclusive; hasEnd false: none), step.
	start, end, step int64
	hasEnd           bool
	// nested generators: ARRAY element, MAP key and value, ROW fields.
	elem, key, val *genSpec
	sub            []*genSpec
}

// optionReader hands out a table's options and remembers which were read.
type optionReader struct {
	opts map[string]string
	used map[string]bool
	// accepts lists, by column, the options that apply to it.
	accepts map[string][]string
}

func (o *optionReader) get(key string) (string, bool) {
	v, ok := o.opts[key]
	o.used[key] = true
	return v, ok
}

func (o *optionReader) accept(col string, keys ...string) {
	o.accepts[col] = append(o.accepts[col], keys...)
}

// parseDatagen reads the options of a datagen table.
func parseDatagen(t *catalog.Table) (*datagenSpec, error) {
	o := &optionReader{opts: t.Options, used: map[string]bool{"connector": true}, accepts: map[string][]string{}}
	spec := &datagenSpec{rows: -1}
	if v, ok := o.get("number-of-rows"); ok {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 0 {
			return nil, optErr("number-of-rows", "option 'number-of-rows' needs a whole number of at least 0, not '%s'", v)
		}
		spec.rows = n
	}
	if v, ok := o.get("rows-per-second"); ok {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 1 || n > maxRowsPerSecond {
			return nil, optErr("rows-per-second", "option 'rows-per-second' needs a whole number from 1 to %d (the pace of the rows; leave it out for as fast as possible), not '%s'", maxRowsPerSecond, v)
		}
		spec.rate = n
	}
	if v, ok := o.get("seed"); ok {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return nil, optErr("seed", "option 'seed' needs a whole number (a 64-bit integer), not '%s'", v)
		}
		spec.seed, spec.hasSeed = n, true
	}
	for _, c := range t.Schema.Columns {
		path := "fields." + c.Name
		kind := "random"
		if v, ok := o.get(path + ".kind"); ok {
			kind = v
		}
		o.accept(c.Name, path+".kind")
		var g *genSpec
		var err error
		switch kind {
		case "random":
			g, err = o.random(c.Name, path, c.Type)
		case "sequence":
			g, err = o.sequence(c.Name, path, c.Type)
		default:
			return nil, optErr(path+".kind", "option '%s.kind' must be 'random' or 'sequence', not '%s'", path, kind)
		}
		if err != nil {
			return nil, err
		}
		spec.fields = append(spec.fields, g)
	}
	if err := o.unused(t); err != nil {
		return nil, err
	}
	return spec, nil
}

// unused reports the first option (in sorted order) that nothing read.
func (o *optionReader) unused(t *catalog.Table) error {
	var keys []string
	for k := range o.opts {
		if !o.used[k] {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	sort.Strings(keys)
	k := keys[0]
	if !strings.HasPrefix(k, "fields.") {
		return optErr(k, "unsupported option '%s' for connector 'datagen'; supported: %s", k, strings.Join(DatagenOptions, ", "))
	}
	// The column whose name is the longest prefix of the key.
	col := ""
	for _, c := range t.Schema.Columns {
		if strings.HasPrefix(k, "fields."+c.Name+".") && len(c.Name) > len(col) {
			col = c.Name
		}
	}
	if col == "" {
		if c := strings.TrimPrefix(k, "fields."); t.Schema.Index(c) >= 0 {
			return optErr(k, "option '%s' names no property of column '%s'; its options: %s", k, c, strings.Join(o.accepts[c], ", "))
		}
		return optErr(k, "option '%s' names no column of %s %s", k, t.Name, t.Schema.ColumnList())
	}
	ci := t.Schema.Index(col)
	kind := "random"
	if v := o.opts["fields."+col+".kind"]; v != "" {
		kind = v
	}
	return optErr(k, "option '%s' does not apply to column '%s' (%s, kind %s); its options: %s",
		k, col, t.Schema.Columns[ci].Type.Nullable(), kind, strings.Join(o.accepts[col], ", "))
}

// nullRate reads fields.X.null-rate.
func (o *optionReader) nullRate(col, path string, t types.Type) (float64, error) {
	key := path + ".null-rate"
	o.accept(col, key)
	v, ok := o.get(key)
	if !ok {
		return 0, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 || f > 1 || math.IsNaN(f) {
		return 0, optErr(key, "option '%s' needs a number between 0 and 1, not '%s'", key, v)
	}
	if f > 0 && t.NotNull {
		return 0, optErr(key, "option '%s' makes NULLs, but the column is %s", key, t)
	}
	return f, nil
}

// intOption reads an integer option in [lo, hi]; what names the range.
func (o *optionReader) intOption(key string, lo, hi int64, what string) (int64, bool, error) {
	v, ok := o.get(key)
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, false, optErr(key, "option '%s' needs %s, not '%s'", key, what, v)
	}
	return n, true, nil
}

// random reads the options of a random generator for type t at path.
func (o *optionReader) random(col, path string, t types.Type) (*genSpec, error) {
	g := &genSpec{path: path, typ: t}
	var err error
	if g.nullRate, err = o.nullRate(col, path, t); err != nil {
		return nil, err
	}
	minKey, maxKey := path+".min", path+".max"
	switch t.Kind {
	case types.KindBoolean, types.KindDate, types.KindTime:
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt, types.KindIntervalYearMonth, types.KindIntervalDayTime:
		o.accept(col, minKey, maxKey)
		lo, hi := t.Kind.IntegerRange()
		what := fmt.Sprintf("a whole number between %d and %d (%s)", lo, hi, t.Nullable())
		if t.Kind == types.KindIntervalYearMonth {
			lo, hi, what = math.MinInt32, math.MaxInt32, "a whole number of months"
		} else if t.Kind == types.KindIntervalDayTime {
			what = "a whole number of milliseconds"
		}
		g.lo, g.hi = lo, hi
		if t.Kind == types.KindIntervalYearMonth {
			g.lo, g.hi = 0, 120000 // Flink's defaults
		}
		if n, ok, err := o.intOption(minKey, lo, hi, what); err != nil {
			return nil, err
		} else if ok {
			g.lo = n
		}
		if n, ok, err := o.intOption(maxKey, lo, hi, what); err != nil {
			return nil, err
		} else if ok {
			g.hi = n
		}
		if g.lo > g.hi {
			return nil, optErr(minKey, "option '%s' (%d) is larger than '%s' (%d)", minKey, g.lo, maxKey, g.hi)
		}
	case types.KindFloat, types.KindDouble, types.KindDecimal:
		o.accept(col, minKey, maxKey)
		// Flink's defaults: the smallest positive number to the largest.
		g.flo, g.fhi = math.SmallestNonzeroFloat64, math.MaxFloat64
		if t.Kind == types.KindFloat {
			g.flo, g.fhi = math.SmallestNonzeroFloat32, math.MaxFloat32
		}
		for _, k := range []string{minKey, maxKey} {
			v, ok := o.get(k)
			if !ok {
				continue
			}
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
				return nil, optErr(k, "option '%s' needs a number, not '%s'", k, v)
			}
			if k == minKey {
				g.flo = f
			} else {
				g.fhi = f
			}
		}
		if g.flo > g.fhi {
			return nil, optErr(minKey, "option '%s' (%g) is larger than '%s' (%g)", minKey, g.flo, maxKey, g.fhi)
		}
		if t.Kind == types.KindDecimal {
			p, s := textparse.DecimalPrecision(&t)
			largest := math.Pow(10, float64(p-s)) - math.Pow(10, -float64(s))
			g.flo, g.fhi = math.Max(g.flo, -largest), math.Min(g.fhi, largest)
			if g.flo > g.fhi {
				return nil, optErr(minKey, "options '%s' and '%s' leave no value of %s", minKey, maxKey, t.Nullable())
			}
		}
	case types.KindChar, types.KindBinary:
		g.length = t.Length
	case types.KindVarChar, types.KindVarBinary:
		lenKey, varKey := path+".length", path+".var-len"
		o.accept(col, lenKey, varKey)
		g.length = t.Length
		if t.Length == types.MaxLength {
			g.length = 100
		}
		if n, ok, err := o.intOption(lenKey, 0, int64(t.Length), fmt.Sprintf("a whole number between 0 and %d (%s)", t.Length, t.Nullable())); err != nil {
			return nil, err
		} else if ok {
			g.length = int(n)
		}
		if g.length > 1<<20 {
			return nil, optErr(lenKey, "option '%s' is %d: at most %d for generated values", lenKey, g.length, 1<<20)
		}
		if v, ok := o.get(varKey); ok {
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "true":
				g.varLen = true
			case "false":
			default:
				return nil, optErr(varKey, "option '%s' must be 'true' or 'false', not '%s'", varKey, v)
			}
		}
	case types.KindTimestamp, types.KindTimestampLTZ:
		key := path + ".max-past"
		o.accept(col, key)
		if v, ok := o.get(key); ok {
			d, err := types.ParseDuration(v)
			if err != nil {
				return nil, optErr(key, "option '%s': %v", key, err)
			}
			g.maxPast = d.Milliseconds()
		}
	case types.KindArray, types.KindMap:
		lenKey := path + ".length"
		o.accept(col, lenKey)
		g.length = 3
		if n, ok, err := o.intOption(lenKey, 0, 10000, "a whole number between 0 and 10000"); err != nil {
			return nil, err
		} else if ok {
			g.length = int(n)
		}
		if t.Kind == types.KindArray {
			if g.elem, err = o.random(col, path+".element", *t.Elem); err != nil {
				return nil, err
			}
		} else {
			if g.key, err = o.random(col, path+".key", *t.Key); err != nil {
				return nil, err
			}
			if g.val, err = o.random(col, path+".value", *t.Elem); err != nil {
				return nil, err
			}
		}
	case types.KindRow:
		for _, f := range t.Fields {
			s, err := o.random(col, path+"."+f.Name, f.Type)
			if err != nil {
				return nil, err
			}
			g.sub = append(g.sub, s)
		}
	default:
		return nil, optErr(path+".kind", "column '%s': the datagen connector cannot generate %s", col, t)
	}
	return g, nil
}

// sequence reads the options of a sequence generator for column col.
func (o *optionReader) sequence(col, path string, t types.Type) (*genSpec, error) {
	g := &genSpec{path: path, typ: t, seq: true, step: 1}
	startKey, endKey := path+".start", path+".end"
	o.accept(col, startKey, endKey)
	if t.IsTime() {
		stepKey := path + ".step"
		o.accept(col, stepKey)
		v, ok := o.get(startKey)
		if !ok {
			return nil, optErr(path+".kind", "a sequence needs option '%s' (epoch milliseconds or a time such as '2025-03-27 12:00:00')", startKey)
		}
		var err error
		if g.start, err = textparse.TimeSetting(strings.TrimSpace(v)); err != nil {
			return nil, optErr(startKey, "option '%s': %v", startKey, err)
		}
		if v, ok := o.get(endKey); ok {
			if g.end, err = textparse.TimeSetting(strings.TrimSpace(v)); err != nil {
				return nil, optErr(endKey, "option '%s': %v", endKey, err)
			}
			g.hasEnd = true
		}
		if v, ok := o.get(stepKey); ok {
			d, err := types.ParseDuration(v)
			if err != nil {
				return nil, optErr(stepKey, "option '%s': %v", stepKey, err)
			}
			if g.step = d.Milliseconds(); g.step < 1 {
				return nil, optErr(stepKey, "option '%s' needs at least 1 ms, not '%s'", stepKey, v)
			}
		}
	} else {
		lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
		what := "a whole number"
		switch t.Kind {
		case types.KindTinyInt, types.KindSmallInt, types.KindInt:
			lo, hi = t.Kind.IntegerRange()
			what = fmt.Sprintf("a whole number between %d and %d (%s)", lo, hi, t.Nullable())
		case types.KindDecimal:
			p, s := textparse.DecimalPrecision(&t)
			if p-s < 19 {
				hi = int64(math.Pow10(p-s)) - 1
				lo = -hi
			}
			what = fmt.Sprintf("a whole number between %d and %d (%s)", lo, hi, t.Nullable())
		case types.KindBigInt, types.KindFloat, types.KindDouble, types.KindChar, types.KindVarChar, types.KindBinary, types.KindVarBinary:
		default:
			return nil, optErr(path+".kind", "column '%s' is %s, which has no sequence generator: kind 'sequence' works for %s", col, t.Nullable(), sequenceTypes)
		}
		for _, k := range []string{startKey, endKey} {
			n, ok, err := o.intOption(k, lo, hi, what)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, optErr(path+".kind", "a sequence needs options '%s' and '%s'; '%s' is missing", startKey, endKey, k)
			}
			if k == startKey {
				g.start = n
			} else {
				g.end = n
			}
		}
		g.hasEnd = true
	}
	if g.hasEnd && g.start > g.end {
		return nil, optErr(startKey, "option '%s' is after '%s': a sequence counts up from start to end", startKey, endKey)
	}
	return g, nil
}

// datagenNode reads a datagen table.
type datagenNode struct {
	t     *catalog.Table
	spec  *datagenSpec
	seed  int64
	base  int64 // the end of the window of random times
	every int64
	fixed bool // the processing-time clock is fixed: no pace
}

// NewDatagenNode reads the table's options (checked at CREATE TABLE) and
// the session's seed and clock.
func NewDatagenNode(t *catalog.Table, env Env) (exec.Node, error) {
	spec, err := parseDatagen(t)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.Name, err)
	}
	n := &datagenNode{t: t, spec: spec, seed: spec.seed, base: DatagenEpoch, every: env.WatermarkEvery}
	if env.HasSeed && !spec.hasSeed {
		if n.seed, err = strconv.ParseInt(strings.TrimSpace(env.Seed), 10, 64); err != nil {
			return nil, fmt.Errorf("SET '%s' needs a whole number (a 64-bit integer), not '%s'", SetSeed, env.Seed)
		}
	}
	if spec.rows < 0 && env.GeneratedRows > 0 && !hasSequence(spec) {
		spec.rows = env.GeneratedRows
	}
	if env.HasProcessingTime {
		n.fixed = true
		if n.base, err = textparse.TimeSetting(env.ProcessingTime); err != nil {
			return nil, fmt.Errorf("SET '%s': %w", "ptfsh.processing-time", err)
		}
	}
	return n, nil
}

func (n *datagenNode) Schema() types.Schema           { return n.t.Schema }
func (n *datagenNode) Changelog() types.ChangelogMode { return types.InsertOnly }
func (n *datagenNode) Children() []exec.Node          { return nil }
func (n *datagenNode) Explain() string {
	rows := "unbounded"
	if n.spec.rows >= 0 {
		rows = strconv.FormatInt(n.spec.rows, 10)
	}
	pace := ""
	if n.spec.rate > 0 {
		pace = ", rows-per-second=" + strconv.FormatInt(n.spec.rate, 10)
	}
	return "TableSourceScan(table=[[" + n.t.Name + "]], fields=" + n.t.Schema.ColumnList() + ", datagen=[rows=" + rows + ", seed=" + strconv.FormatInt(n.seed, 10) + pace + "])"
}

func (n *datagenNode) Open(ex *exec.Execution) (exec.Stream, error) {
	ex.NoCheckpoints("a datagen source has no position to resume from")
	if n.spec.rows < 0 {
		ex.Live().AddSource() // it does not end: Ctrl-C stops it
	}
	s := &datagenStream{n: n, ex: ex, genRows: genRows{left: n.spec.rows, wm: exec.NewWMGen(n.t.Watermark, n.every)}}
	if n.spec.rate > 0 && !n.fixed {
		ex.Paced = true
		s.pace = &pacer{rate: n.spec.rate}
	}
	for _, g := range n.spec.fields {
		s.gens = append(s.gens, newGenState(g, n.seed))
	}
	return s, nil
}

// hasSequence reports whether a column of the table is a sequence, which
// bounds the table.
func hasSequence(spec *datagenSpec) bool {
	for _, f := range spec.fields {
		if f.seq {
			return true
		}
	}
	return false
}

// genState is a running generator: its random stream and, for a
// sequence, the next value.
type genState struct {
	spec           *genSpec
	r              *rand.Rand
	next           int64
	done           bool
	elem, key, val *genState
	sub            []*genState
}

func newGenState(g *genSpec, seed int64) *genState {
	h := fnv.New64a()
	h.Write([]byte(g.path))
	st := &genState{spec: g, r: rand.New(rand.NewPCG(uint64(seed), h.Sum64())), next: g.start}
	if g.elem != nil {
		st.elem = newGenState(g.elem, seed)
	}
	if g.key != nil {
		st.key, st.val = newGenState(g.key, seed), newGenState(g.val, seed)
	}
	for _, s := range g.sub {
		st.sub = append(st.sub, newGenState(s, seed))
	}
	return st
}

type datagenStream struct {
	n    *datagenNode
	ex   *exec.Execution
	gens []*genState
	genRows
	count int64
	pace  *pacer // nil: as fast as the rows are made
}

// maxRowsPerSecond is the fastest pace rows-per-second takes.
const maxRowsPerSecond = 1_000_000_000

func (s *datagenStream) Next() (exec.Event, error) {
	if ev, ok := s.before(); ok {
		return ev, nil
	}
	if s.ex.RowsIn&1023 == 0 {
		if err := s.ex.CheckCancelled(); err != nil {
			return exec.Event{}, err
		}
	}
	for _, g := range s.gens { // the first sequence to end ends the table
		if g.spec.seq && g.done {
			return exec.Event{Kind: exec.EvEnd}, nil
		}
	}
	if s.ex.Stopping() {
		return exec.Event{Kind: exec.EvEnd}, nil // stopped (Ctrl-C, SIGTERM): it ends here
	}
	if s.pace != nil && !s.pace.ready(s.ex) {
		return exec.Event{Kind: exec.EvIdle}, nil
	}
	if s.count++; s.count&1023 == 0 && s.ex.Ctx != nil {
		if err := s.ex.Ctx.Err(); err != nil {
			return exec.Event{}, err
		}
	}
	// With a pace, "now" moves with it: row k is made k/rate seconds after
	// the first, as Flink's clock moves while it makes rows at that pace.
	base := s.n.base
	if rate := s.n.spec.rate; rate > 0 {
		base += (s.count - 1) * 1000 / rate // s.count counts this row
	}
	f := make([]any, len(s.gens))
	for i, g := range s.gens {
		f[i] = g.value(base)
	}
	return s.row(s.ex, f), nil
}

func (s *datagenStream) Close() error { return nil }

// value makes the generator's next value.
func (g *genState) value(base int64) any {
	sp := g.spec
	if sp.seq {
		return g.sequenceValue()
	}
	if sp.nullRate > 0 && g.r.Float64() < sp.nullRate {
		return nil
	}
	t := sp.typ
	switch t.Kind {
	case types.KindBoolean:
		return g.r.IntN(2) == 1
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		return randInt(g.r, sp.lo, sp.hi)
	case types.KindIntervalYearMonth:
		return types.Period(randInt(g.r, sp.lo, sp.hi))
	case types.KindIntervalDayTime:
		return types.Duration(randInt(g.r, sp.lo, sp.hi))
	case types.KindFloat:
		return float64(float32(randFloat(g.r, sp.flo, sp.fhi)))
	case types.KindDouble:
		return randFloat(g.r, sp.flo, sp.fhi)
	case types.KindDecimal:
		r := new(big.Rat).SetFloat64(randFloat(g.r, sp.flo, sp.fhi))
		p, s := textparse.DecimalPrecision(&t)
		d, err := expr.RatToDecimal(r, types.Type{Kind: types.KindDecimal, Length: p, Scale: s})
		if err != nil { // cannot happen: the bounds fit the precision
			return nil
		}
		return d
	case types.KindChar, types.KindVarChar:
		return randHex(g.r, g.length())
	case types.KindBinary, types.KindVarBinary:
		b := make([]byte, g.length())
		for i := range b {
			b[i] = byte(g.r.Uint32())
		}
		return b
	case types.KindDate:
		return types.Date(floorDiv(base, 86400000))
	case types.KindTime:
		ms := base - floorDiv(base, 86400000)*86400000
		return types.TimeOfDay(truncMillis(ms, t.Length) * 1e6)
	case types.KindTimestamp, types.KindTimestampLTZ:
		ms := base
		if sp.maxPast > 0 {
			ms -= g.r.Int64N(sp.maxPast)
		}
		return textparse.MakeTimestamp(truncMillis(ms, t.Length), 0, t.Kind == types.KindTimestampLTZ)
	case types.KindArray:
		a := make([]any, sp.length)
		for i := range a {
			a[i] = g.elem.value(base)
		}
		return a
	case types.KindMap:
		m := &types.Map{}
		seen := map[string]bool{}
		for i := 0; i < sp.length; i++ {
			k, v := g.key.value(base), g.val.value(base)
			addMapEntry(m, seen, k, v, *t.Key)
		}
		return m
	case types.KindRow:
		f := make([]any, len(g.sub))
		for i, s := range g.sub {
			f[i] = s.value(base)
		}
		return types.Row{Kind: types.Insert, Fields: f}
	}
	return nil
}

// length is the length of the next random string or byte string.
func (g *genState) length() int {
	n := g.spec.length
	if g.spec.varLen && n > 1 {
		return 1 + g.r.IntN(n)
	}
	return n
}

// sequenceValue returns the sequence's next value and moves on.
func (g *genState) sequenceValue() any {
	sp := g.spec
	v := g.next
	// v <= end, so the unsigned difference is exact.
	if sp.hasEnd && uint64(sp.end)-uint64(v) < uint64(sp.step) || v > math.MaxInt64-sp.step {
		g.done = true
	} else {
		g.next = v + sp.step
	}
	t := sp.typ
	switch t.Kind {
	case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt:
		return v
	case types.KindFloat:
		return float64(float32(v))
	case types.KindDouble:
		return float64(v)
	case types.KindDecimal:
		_, s := textparse.DecimalPrecision(&t)
		u := new(big.Int).Mul(big.NewInt(v), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(s)), nil))
		return types.Decimal{Unscaled: u, Scale: s}
	case types.KindChar, types.KindVarChar:
		return strconv.FormatInt(v, 10)
	case types.KindBinary, types.KindVarBinary:
		return binary.BigEndian.AppendUint64(nil, uint64(v))
	case types.KindTimestamp, types.KindTimestampLTZ:
		return textparse.MakeTimestamp(truncMillis(v, t.Length), 0, t.Kind == types.KindTimestampLTZ)
	}
	return nil
}

// randInt returns a number in [lo, hi].
func randInt(r *rand.Rand, lo, hi int64) int64 {
	span := uint64(hi) - uint64(lo)
	if span == math.MaxUint64 {
		return int64(r.Uint64())
	}
	return int64(uint64(lo) + r.Uint64N(span+1))
}

// randFloat returns a number in [lo, hi] without overflowing hi - lo.
func randFloat(r *rand.Rand, lo, hi float64) float64 {
	f := r.Float64()
	return lo*(1-f) + hi*f
}

const hexDigits = "0123456789abcdef"

// randHex returns n random lowercase hex digits, as Flink's random strings.
func randHex(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = hexDigits[r.IntN(16)]
	}
	return string(b)
}

// truncMillis truncates epoch milliseconds to a precision of p digits of
// a second (p >= 3 keeps them).
func truncMillis(ms int64, p int) int64 {
	if p >= 3 {
		return ms
	}
	unit := int64(math.Pow10(3 - p))
	return floorDiv(ms, unit) * unit
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
