package connector

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/faker"
	"github.com/ptfsh/ptfsh/runtime/textparse"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// The 'faker' connector generates rows from flink-faker's column
// expressions (Java Faker's expression language, package runtime/faker),
// with flink-faker's options:
//
//	CREATE TABLE server_logs (
//	  client_ip STRING, status_code STRING, size INT, log_time TIMESTAMP(3),
//	  WATERMARK FOR log_time AS log_time - INTERVAL '15' SECONDS
//	) WITH (
//	  'connector' = 'faker',
//	  'fields.client_ip.expression' = '#{Internet.publicIpV4Address}',
//	  'fields.status_code.expression' = '#{regexify ''(200|201|204|400|401|403){1}''}',
//	  'fields.size.expression' = '#{number.numberBetween ''100'',''10000000''}',
//	  'fields.size.null-rate' = '0.1',
//	  'fields.log_time.expression' = '#{date.past ''15'',''5'',''SECONDS''}',
//	  'number-of-rows' = '1000',         -- without it the table is unbounded
//	  'rows-per-second' = '100',         -- the pace; 10000 when not given
//	  'seed' = '42'                      -- ptfsh: the random seed
//	);
//
// Every physical column needs an expression: fields.NAME.expression, for a
// MAP fields.NAME.key.expression and fields.NAME.value.expression, for a
// ROW fields.NAME.FIELD.expression for each field. fields.NAME.length is
// the number of elements of an ARRAY or MAP (default 1);
// fields.NAME.null-rate (0 to 1) makes the column NULL in that share of
// rows. An expression given for a computed column is not used, as in
// flink-faker. The text an expression makes is converted to the column's
// type as flink-faker converts it (a TIMESTAMP from 'yyyy-MM-dd
// HH:mm:ss[.fff]', numbers as written).
//
// Where flink-faker is random without end, ptfsh repeats: values come from
// a generator seeded by the table's 'seed' option, else SET 'ptfsh.seed',
// else 0, each column from its own stream. date.past and date.future are
// relative to the processing-time clock when the row is made: the wall
// clock, or SET 'ptfsh.processing-time'. rows-per-second paces the rows in
// processing time: with the clock fixed by 'ptfsh.processing-time' no
// time passes, and the rows come as fast as they are made.

// fakerOptions lists the options of the faker connector; '#' stands for a
// column name (or a nested field's path).
var fakerOptions = []string{"connector", "number-of-rows", "rows-per-second", "seed",
	"fields.#.expression", "fields.#.null-rate", "fields.#.length", "fields.#.key.expression", "fields.#.value.expression",
	"fields.#.FIELD.expression"}

// fakerDefaultRate is flink-faker's default rows-per-second.
const fakerDefaultRate = 10000

// fakerSpec is a faker table's options, read and checked.
type fakerSpec struct {
	rows    int64 // number-of-rows; -1 unbounded
	rate    int64
	seed    int64
	hasSeed bool
	cols    []*fakerCol
}

// fakerCol makes one column's values.
type fakerCol struct {
	name     string
	typ      types.Type
	nullRate float32
	length   int
	// exprs: one for a scalar, ARRAY or MULTISET; key and value for a
	// MAP; one for each field of a ROW.
	exprs []*faker.Expr
	// tm and num are the expression's value without text, for a time or
	// number column whose expression is one directive of that kind.
	tm, num func(*faker.Gen) int64
}

// maxSeen bounds a column's cache of values by text.
const maxSeen = 4096

// parseFaker reads the options of a faker table. Every physical column
// (the table's schema here: the planner hands a connector the physical
// columns) needs an expression.
func parseFaker(t *catalog.Table) (*fakerSpec, error) {
	used := map[string]bool{"connector": true}
	get := func(k string) (string, bool) {
		v, ok := t.Options[k]
		used[k] = true
		return v, ok
	}
	spec := &fakerSpec{rows: -1, rate: fakerDefaultRate}
	if v, ok := get("number-of-rows"); ok {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 0 {
			return nil, optErr("number-of-rows", "option 'number-of-rows' needs a whole number of at least 0, not '%s'", v)
		}
		spec.rows = n
	}
	if v, ok := get("rows-per-second"); ok {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 1 || n > maxRowsPerSecond {
			return nil, optErr("rows-per-second", "option 'rows-per-second' needs a whole number from 1 to %d (the pace of the rows; flink-faker's default is %d), not '%s'", maxRowsPerSecond, fakerDefaultRate, v)
		}
		spec.rate = n
	}
	if v, ok := get("seed"); ok {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return nil, optErr("seed", "option 'seed' needs a whole number (a 64-bit integer), not '%s'", v)
		}
		spec.seed, spec.hasSeed = n, true
	}
	expr := func(col, key string) (*faker.Expr, error) {
		v, ok := get(key)
		if !ok {
			return nil, optErr("", "column '%s' needs an expression: '%s' = '#{...}' (for example '#{Name.firstName}' or '#{number.numberBetween ''1'',''100''}')", col, key)
		}
		e, err := faker.Parse(v)
		if err != nil {
			return nil, optErr(key, "option '%s': the expression '%s' %s", key, v, err)
		}
		return e, nil
	}
	for _, c := range t.Schema.Columns {
		fc := &fakerCol{name: c.Name, typ: c.Type, length: 1}
		base := "fields." + c.Name
		if v, ok := get(base + ".null-rate"); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 32)
			if err != nil || f < 0 || f > 1 {
				return nil, optErr(base+".null-rate", "option '%s.null-rate' needs a number from 0 to 1, not '%s'", base, v)
			}
			fc.nullRate = float32(f)
		}
		collection := c.Type.Kind == types.KindArray || c.Type.Kind == types.KindMap
		if v, ok := get(base + ".length"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			switch {
			case err != nil || n < 1 || n > 1<<16:
				return nil, optErr(base+".length", "option '%s.length' needs a whole number from 1 to %d, not '%s'", base, 1<<16, v)
			case !collection:
				return nil, optErr(base+".length", "option '%s.length' is the size of an ARRAY or MAP; column '%s' is %s", base, c.Name, c.Type)
			}
			fc.length = n
		}
		switch c.Type.Kind {
		case types.KindMap:
			k, err := expr(c.Name, base+".key.expression")
			if err != nil {
				return nil, err
			}
			v, err := expr(c.Name, base+".value.expression")
			if err != nil {
				return nil, err
			}
			fc.exprs = []*faker.Expr{k, v}
		case types.KindRow:
			for _, f := range c.Type.Fields {
				e, err := expr(c.Name, base+"."+f.Name+".expression")
				if err != nil {
					return nil, err
				}
				fc.exprs = append(fc.exprs, e)
			}
		default:
			if !fakerType(c.Type.Kind) {
				return nil, optErr(base+".expression", "column '%s': the faker connector cannot make %s values", c.Name, c.Type)
			}
			e, err := expr(c.Name, base+".expression")
			if err != nil {
				return nil, err
			}
			fc.exprs = []*faker.Expr{e}
			switch c.Type.Kind {
			case types.KindTimestamp, types.KindTimestampLTZ, types.KindDate:
				fc.tm, _ = e.Time()
			case types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt, types.KindFloat, types.KindDouble:
				fc.num, _ = e.Int()
			}
		}
		spec.cols = append(spec.cols, fc)
	}
	var unused []string
	for k := range t.Options {
		if !used[k] {
			unused = append(unused, k)
		}
	}
	sort.Strings(unused)
	for _, k := range unused {
		if err := fakerUnused(t, k); err != nil {
			return nil, err
		}
	}
	return spec, nil
}

// fakerType reports whether flink-faker makes values of kind k from one
// expression.
func fakerType(k types.Kind) bool {
	switch k {
	case types.KindBoolean, types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt,
		types.KindFloat, types.KindDouble, types.KindDecimal, types.KindChar, types.KindVarChar,
		types.KindDate, types.KindTime, types.KindTimestamp, types.KindTimestampLTZ, types.KindArray:
		return true
	}
	return false
}

// fakerUnused checks an option that no physical column read: an
// expression of a computed column is allowed (flink-faker ignores it),
// anything else is an error that says what is known.
func fakerUnused(t *catalog.Table, k string) error {
	if !strings.HasPrefix(k, "fields.") {
		return optErr(k, "unsupported option '%s' for connector 'faker'; supported: %s", k, strings.Join(fakerOptions, ", "))
	}
	for _, c := range t.Computed {
		if k == "fields."+c.Name+".expression" {
			return nil
		}
	}
	rest := strings.TrimPrefix(k, "fields.")
	for _, c := range t.Schema.Columns {
		if strings.HasPrefix(rest, c.Name+".") {
			return optErr(k, "option '%s' does not apply to column '%s' (%s); a column takes fields.%s.expression, .null-rate and (ARRAY, MAP) .length; a MAP .key.expression and .value.expression; a ROW .FIELD.expression",
				k, c.Name, c.Type, c.Name)
		}
	}
	return optErr(k, "option '%s' names no column of %s %s", k, t.Name, t.Schema.ColumnList())
}

// CheckFakerOptions validates the WITH options of a faker table at CREATE
// TABLE, pointing at the option in error.
func CheckFakerOptions(t *catalog.Table, ct *sqlmini.CreateTable) error {
	if _, err := parseFaker(t); err != nil {
		pos := ct.Pos
		if oe, ok := err.(*datagenOptionError); ok && oe.key != "" {
			pos = optionPos(ct, oe.key)
		}
		return sqlmini.Errorf(pos, "%w", err)
	}
	return nil
}

// fakerNode reads a faker table.
type fakerNode struct {
	t     *catalog.Table
	spec  *fakerSpec
	seed  int64
	fixed bool // the processing-time clock is fixed: no pace
	every int64
	rows  int64 // number-of-rows, or the session's bound for an unbounded table
}

// NewFakerNode reads the table's options (checked at CREATE TABLE) and the
// session's seed and clock.
func NewFakerNode(t *catalog.Table, env Env) (exec.Node, error) {
	spec, err := parseFaker(t)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", t.Name, err)
	}
	n := &fakerNode{t: t, spec: spec, seed: spec.seed, fixed: env.HasProcessingTime, every: env.WatermarkEvery, rows: spec.rows}
	if env.HasSeed && !spec.hasSeed {
		if n.seed, err = strconv.ParseInt(strings.TrimSpace(env.Seed), 10, 64); err != nil {
			return nil, fmt.Errorf("SET '%s' needs a whole number (a 64-bit integer), not '%s'", SetSeed, env.Seed)
		}
	}
	if n.rows < 0 && env.GeneratedRows > 0 {
		n.rows = env.GeneratedRows
	}
	return n, nil
}

func (n *fakerNode) Schema() types.Schema           { return n.t.Schema }
func (n *fakerNode) Changelog() types.ChangelogMode { return types.InsertOnly }
func (n *fakerNode) Children() []exec.Node          { return nil }
func (n *fakerNode) Explain() string {
	rows := "unbounded"
	if n.rows >= 0 {
		rows = strconv.FormatInt(n.rows, 10)
	}
	return "TableSourceScan(table=[[" + n.t.Name + "]], fields=" + n.t.Schema.ColumnList() + ", faker=[rows=" + rows +
		", seed=" + strconv.FormatInt(n.seed, 10) + ", rows-per-second=" + strconv.FormatInt(n.spec.rate, 10) + "])"
}

func (n *fakerNode) Open(ex *exec.Execution) (exec.Stream, error) {
	ex.NoCheckpoints("a faker source has no position to resume from")
	if n.rows < 0 {
		ex.Live().AddSource() // it does not end: Ctrl-C stops it
	}
	s := &fakerStream{n: n, ex: ex, genRows: genRows{left: n.rows, wm: exec.NewWMGen(n.t.Watermark, n.every)}}
	if !n.fixed {
		ex.Paced = true
		s.pace = &pacer{rate: n.spec.rate}
	}
	for _, c := range n.spec.cols {
		h := fnv.New64a()
		h.Write([]byte("fields." + c.name))
		s.gens = append(s.gens, faker.NewGen(uint64(n.seed), h.Sum64(), ex.Now))
		s.seen = append(s.seen, map[string]any{})
	}
	return s, nil
}

type fakerStream struct {
	n    *fakerNode
	ex   *exec.Execution
	gens []*faker.Gen
	genRows
	pace  *pacer // nil: no pace
	count int64
	buf   []byte
	// seen holds, by column, values already made from a text, boxed, so
	// that a column of few distinct values (regexify over alternatives, a
	// list) does not allocate a string and a box for each row; each stops
	// growing at maxSeen entries.
	seen []map[string]any
}

func (s *fakerStream) Next() (exec.Event, error) {
	if ev, ok := s.before(); ok {
		return ev, nil
	}
	if s.ex.Stopping() {
		return exec.Event{Kind: exec.EvEnd}, nil // stopped (Ctrl-C, SIGTERM): it ends here
	}
	if s.pace != nil && !s.pace.ready(s.ex) {
		return exec.Event{Kind: exec.EvIdle}, nil
	}
	if s.count++; s.count&1023 == 0 {
		if err := s.ex.CheckCancelled(); err != nil {
			return exec.Event{}, err
		}
	}
	f := make([]any, len(s.gens))
	for i, c := range s.n.spec.cols {
		v, err := s.value(i, c, s.gens[i])
		if err != nil {
			return exec.Event{}, fmt.Errorf("table %s, row %d, column %s: %w", s.n.t.Name, s.count, c.name, err)
		}
		f[i] = v
	}
	return s.row(s.ex, f), nil
}

func (s *fakerStream) Close() error { return nil }

// value makes one column's value: NULL at its null rate, else from its
// expressions.
func (s *fakerStream) value(col int, c *fakerCol, g *faker.Gen) (any, error) {
	if c.nullRate > 0 && g.Float32() < c.nullRate {
		return nil, nil
	}
	t := c.typ
	switch {
	case c.tm != nil:
		ms := c.tm(g)
		if t.Kind == types.KindDate {
			return types.Date(floorDiv(ms, 86_400_000)), nil
		}
		return textparse.MakeTimestamp(truncMillis(ms, t.Length), 0, t.Kind == types.KindTimestampLTZ), nil
	case c.num != nil:
		v := c.num(g)
		switch t.Kind {
		case types.KindFloat:
			return float64(float32(v)), nil
		case types.KindDouble:
			return float64(v), nil
		}
		if lo, hi := t.Kind.IntegerRange(); v < lo || v > hi {
			return nil, fmt.Errorf("the expression '%s' gave %d, which is out of the range of %s", c.exprs[0], v, t)
		}
		return v, nil
	}
	switch t.Kind {
	case types.KindArray:
		a := make([]any, c.length)
		for i := range a {
			v, err := s.convert(c.exprs[0], g, *t.Elem)
			if err != nil {
				return nil, err
			}
			a[i] = v
		}
		return a, nil
	case types.KindMap:
		m := &types.Map{}
		seen := map[string]bool{}
		for range c.length {
			k, err := s.convert(c.exprs[0], g, *t.Key)
			if err != nil {
				return nil, err
			}
			v, err := s.convert(c.exprs[1], g, *t.Elem)
			if err != nil {
				return nil, err
			}
			addMapEntry(m, seen, k, v, *t.Key)
		}
		return m, nil
	case types.KindRow:
		f := make([]any, len(c.exprs))
		for i, e := range c.exprs {
			v, err := s.convert(e, g, t.Fields[i].Type)
			if err != nil {
				return nil, err
			}
			f[i] = v
		}
		return types.Row{Kind: types.Insert, Fields: f}, nil
	}
	s.buf = c.exprs[0].Append(s.buf[:0], g)
	seen := s.seen[col]
	if v, ok := seen[string(s.buf)]; ok {
		return v, nil
	}
	v, err := s.read(c.exprs[0], t)
	if err != nil {
		return nil, err
	}
	if len(seen) < maxSeen {
		seen[string(s.buf)] = v
	}
	return v, nil
}

// convert runs an expression and reads its text as type t.
func (s *fakerStream) convert(e *faker.Expr, g *faker.Gen, t types.Type) (any, error) {
	s.buf = e.Append(s.buf[:0], g)
	return s.read(e, t)
}

// read reads the text in s.buf, which e made, as type t.
func (s *fakerStream) read(e *faker.Expr, t types.Type) (any, error) {
	switch t.Kind {
	case types.KindChar, types.KindVarChar:
		return string(s.buf), nil
	}
	v, err := textparse.Value(string(s.buf), t, textparse.Options{})
	if err != nil {
		return nil, fmt.Errorf("the expression '%s' gave '%s': %w", e, s.buf, err)
	}
	return v, nil
}

var _ exec.Lookuper = (*fakerNode)(nil)

// OpenLookup answers a lookup join as flink-faker's lookup function does:
// for each key one row, its key columns set to the key and the others
// made from their expressions. The values come from streams of their own
// (not the scan's), so a lookup gives the same rows on every run with the
// same seed and the same probes.
func (n *fakerNode) OpenLookup(ex *exec.Execution, cols []int) (exec.LookupFunc, bool, error) {
	s := &fakerStream{n: n, ex: ex}
	for _, c := range n.spec.cols {
		h := fnv.New64a()
		h.Write([]byte("lookup.fields." + c.name))
		s.gens = append(s.gens, faker.NewGen(uint64(n.seed), h.Sum64(), ex.Now))
		s.seen = append(s.seen, map[string]any{})
	}
	isKey := make([]bool, len(n.spec.cols))
	for _, c := range cols {
		isKey[c] = true
	}
	return func(key []any) ([][]any, error) {
		s.count++
		f := make([]any, len(s.gens))
		for i, c := range n.spec.cols {
			if isKey[i] {
				continue
			}
			v, err := s.value(i, c, s.gens[i])
			if err != nil {
				return nil, fmt.Errorf("table %s, lookup %d, column %s: %w", n.t.Name, s.count, c.name, err)
			}
			f[i] = v
		}
		for j, c := range cols {
			f[c] = key[j]
		}
		return [][]any{f}, nil
	}, true, nil
}
