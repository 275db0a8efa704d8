package session

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/runtime/connector"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/textparse"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// dgRun runs SQL statements in a new session with the rows format and
// returns what it printed, or the first error.
func dgRun(t *testing.T, src string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	s, err := NewSession(Config{Out: &out, Err: &out, Format: "rows"})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Exec(context.Background(), "", src)
	return out.String(), err
}

func dgMust(t *testing.T, src string) []string {
	t.Helper()
	out, err := dgRun(t, src)
	if err != nil {
		t.Fatalf("%v\noutput so far:\n%s", err, out)
	}
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n")
}

// dgEvents opens the datagen table named name of a session and returns
// its events: rows as +I[...] and watermarks as WM <millis>.
func dgEvents(t *testing.T, s *Session, name string) []string {
	t.Helper()
	tb, ok := s.cat.Table(name)
	if !ok {
		t.Fatalf("no table %s", name)
	}
	n, err := connector.NewDatagenNode(tb, s.sourceEnv())
	if err != nil {
		t.Fatal(err)
	}
	st, err := n.Open(exec.NewExecution(context.Background(), state.NewMem(), exec.DefaultOptions()))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var evs []string
	for {
		ev, err := st.Next()
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Kind {
		case exec.EvEnd:
			return evs
		case exec.EvWatermark:
			evs = append(evs, "WM "+strconv.FormatInt(ev.Wm, 10))
		default:
			evs = append(evs, types.FormatRow(ev.Row, n.Schema()))
		}
	}
}

func newDGSession(t *testing.T, src string) *Session {
	t.Helper()
	s, err := NewSession(Config{Format: "rows"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Exec(context.Background(), "", src); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestDatagenSequenceEndsTheTable(t *testing.T) {
	got := dgMust(t, `CREATE TABLE g (id INT, name STRING) WITH ('connector' = 'datagen',
		'fields.id.kind' = 'sequence', 'fields.id.start' = '3', 'fields.id.end' = '6', 'fields.name.length' = '4');
		SELECT id FROM g;`)
	if want := []string{"+I[3]", "+I[4]", "+I[5]", "+I[6]"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("got %v, want %v", got, want)
	}
	// number-of-rows first, or the first sequence to end.
	got = dgMust(t, `CREATE TABLE g (a BIGINT, b STRING, c DECIMAL(5, 2)) WITH ('connector' = 'datagen', 'number-of-rows' = '3',
		'fields.a.kind' = 'sequence', 'fields.a.start' = '-1', 'fields.a.end' = '100',
		'fields.b.kind' = 'sequence', 'fields.b.start' = '7', 'fields.b.end' = '8',
		'fields.c.kind' = 'sequence', 'fields.c.start' = '10', 'fields.c.end' = '20');
		SELECT * FROM g;`)
	if want := []string{"+I[-1, 7, 10.00]", "+I[0, 8, 11.00]"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("got %v, want %v", got, want)
	}
	got = dgMust(t, `CREATE TABLE g (a TINYINT) WITH ('connector' = 'datagen', 'number-of-rows' = '2',
		'fields.a.kind' = 'sequence', 'fields.a.start' = '126', 'fields.a.end' = '127');
		SELECT * FROM g;`)
	if want := []string{"+I[126]", "+I[127]"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("got %v, want %v", got, want)
	}
	got = dgMust(t, `CREATE TABLE g (a BIGINT) WITH ('connector' = 'datagen',
		'fields.a.kind' = 'sequence', 'fields.a.start' = '9223372036854775806', 'fields.a.end' = '9223372036854775807');
		SELECT * FROM g;`)
	if want := []string{"+I[9223372036854775806]", "+I[9223372036854775807]"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("got %v, want %v", got, want)
	}
	got = dgMust(t, `CREATE TABLE g (a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '0');
		SELECT * FROM g;`)
	if len(got) != 1 || got[0] != "" {
		t.Errorf("number-of-rows 0: got %q", got)
	}
}

func TestDatagenDeterministicUnderSeed(t *testing.T) {
	table := func(seed string) string {
		return `CREATE TABLE g (a INT, s STRING, d DOUBLE) WITH ('connector' = 'datagen', 'number-of-rows' = '20'` + seed + `);
		SELECT * FROM g;`
	}
	a, b := dgMust(t, table("")), dgMust(t, table(""))
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatalf("two runs differ:\n%v\n%v", a, b)
	}
	if len(a) != 20 {
		t.Fatalf("got %d rows, want 20", len(a))
	}
	zero := dgMust(t, table(", 'seed' = '0'"))
	if strings.Join(a, "\n") != strings.Join(zero, "\n") {
		t.Errorf("the default seed is not 0")
	}
	seven := dgMust(t, table(", 'seed' = '7'"))
	if strings.Join(a, "\n") == strings.Join(seven, "\n") {
		t.Errorf("seeds 0 and 7 give the same rows")
	}
	// SET 'ptfsh.seed' is the default of tables without a 'seed'.
	session := dgMust(t, "SET 'ptfsh.seed' = '7';\n"+table(""))
	if strings.Join(session, "\n") != strings.Join(seven, "\n") {
		t.Errorf("SET 'ptfsh.seed' = '7' differs from 'seed' = '7'")
	}
	// ... and the table's option wins.
	both := dgMust(t, "SET 'ptfsh.seed' = '7';\n"+table(", 'seed' = '0'"))
	if strings.Join(both, "\n") != strings.Join(a, "\n") {
		t.Errorf("the table's 'seed' does not override SET 'ptfsh.seed'")
	}
	// A column draws from its own stream: adding one changes no other.
	wide := dgMust(t, `CREATE TABLE g (x BOOLEAN, a INT, s STRING, d DOUBLE, y ARRAY<INT>) WITH ('connector' = 'datagen', 'number-of-rows' = '20');
		SELECT a, s, d FROM g;`)
	if strings.Join(wide, "\n") != strings.Join(a, "\n") {
		t.Errorf("adding columns changed the others:\n%v\n%v", a, wide)
	}
}

func TestDatagenRandomRanges(t *testing.T) {
	s := newDGSession(t, `CREATE TABLE g (
		i INT, ti TINYINT, b BIGINT, f FLOAT, d DOUBLE, dec DECIMAL(4, 1), s STRING, v VARCHAR(6), vl STRING, c CHAR(4), bs BYTES,
		ym INTERVAL YEAR TO MONTH, n INT, ts TIMESTAMP(3), lt TIMESTAMP_LTZ(0), dt DATE, tm TIME(0), bo BOOLEAN
	) WITH ('connector' = 'datagen', 'number-of-rows' = '2000',
		'fields.i.min' = '-3', 'fields.i.max' = '3', 'fields.b.min' = '9223372036854775806',
		'fields.f.min' = '-1.5', 'fields.f.max' = '1.5', 'fields.d.min' = '10', 'fields.d.max' = '10.5',
		'fields.dec.min' = '-1000000', 'fields.s.length' = '5', 'fields.vl.length' = '4', 'fields.vl.var-len' = 'true',
		'fields.bs.length' = '3', 'fields.ym.min' = '12', 'fields.ym.max' = '24', 'fields.n.null-rate' = '0.25',
		'fields.ts.max-past' = '10 min', 'fields.lt.max-past' = '1 h');`)
	tb, _ := s.cat.Table("g")
	n, err := connector.NewDatagenNode(tb, s.sourceEnv())
	if err != nil {
		t.Fatal(err)
	}
	st, _ := n.Open(exec.NewExecution(context.Background(), state.NewMem(), exec.DefaultOptions()))
	seenI, seenLen, seenBool := map[int64]bool{}, map[int]bool{}, map[bool]bool{}
	nulls, rows := 0, 0
	for {
		ev, err := st.Next()
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == exec.EvEnd {
			break
		}
		if ev.Kind != exec.EvRow {
			t.Fatalf("a watermark without a WATERMARK clause")
		}
		rows++
		f := ev.Row.Fields
		check := func(ok bool, col string) {
			if !ok {
				t.Fatalf("row %d: %s out of range: %s", rows, col, types.FormatRow(ev.Row, n.Schema()))
			}
		}
		i := f[0].(int64)
		check(i >= -3 && i <= 3, "i")
		seenI[i] = true
		check(f[1].(int64) >= -128 && f[1].(int64) <= 127, "ti")
		check(f[2].(int64) >= 9223372036854775806, "b")
		check(f[3].(float64) >= -1.5 && f[3].(float64) <= 1.5, "f")
		check(f[4].(float64) >= 10 && f[4].(float64) <= 10.5, "d")
		dec := f[5].(types.Decimal)
		check(dec.Scale == 1 && dec.Unscaled.Int64() >= -9999 && dec.Unscaled.Int64() <= 9999, "dec")
		hex := func(v any, n int) bool {
			s := v.(string)
			return len(s) == n && strings.Trim(s, "0123456789abcdef") == ""
		}
		check(hex(f[6], 5), "s")
		check(hex(f[7], 6), "v")
		vl := f[8].(string)
		check(len(vl) >= 1 && len(vl) <= 4 && hex(vl, len(vl)), "vl")
		seenLen[len(vl)] = true
		check(hex(f[9], 4), "c")
		check(len(f[10].([]byte)) == 3, "bs")
		check(f[11].(types.Period) >= 12 && f[11].(types.Period) <= 24, "ym")
		if f[12] == nil {
			nulls++
		}
		ts := f[13].(types.LocalDateTime).Millis
		check(ts > connector.DatagenEpoch-600000 && ts <= connector.DatagenEpoch, "ts")
		lt := f[14].(types.Instant).Millis
		check(lt > connector.DatagenEpoch-3600000 && lt <= connector.DatagenEpoch && lt%1000 == 0, "lt (TIMESTAMP_LTZ(0) has whole seconds)")
		check(f[15].(types.Date) == types.Date(connector.DatagenEpoch/86400000), "dt")
		check(f[16].(types.TimeOfDay) == 0, "tm")
		seenBool[f[17].(bool)] = true
	}
	if rows != 2000 {
		t.Errorf("got %d rows, want 2000", rows)
	}
	if len(seenI) != 7 {
		t.Errorf("INT between -3 and 3: saw %v", seenI)
	}
	if len(seenLen) != 4 {
		t.Errorf("var-len lengths 1..4: saw %v", seenLen)
	}
	if len(seenBool) != 2 {
		t.Errorf("BOOLEAN: saw %v", seenBool)
	}
	if nulls < 400 || nulls > 600 {
		t.Errorf("null-rate 0.25: %d NULLs in 2000 rows", nulls)
	}
}

func TestDatagenTimeBaseIsTheProcessingTime(t *testing.T) {
	got := dgMust(t, `SET 'ptfsh.processing-time' = '2025-03-27 12:00:00';
		CREATE TABLE g (ts TIMESTAMP_LTZ(3), d DATE, tm TIME(3)) WITH ('connector' = 'datagen', 'number-of-rows' = '2');
		SELECT * FROM g;`)
	want := []string{"+I[2025-03-27T12:00:00Z, 2025-03-27, 12:00]", "+I[2025-03-27T12:00:00Z, 2025-03-27, 12:00]"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestDatagenTimestampSequenceAndWatermarks(t *testing.T) {
	s := newDGSession(t, `CREATE TABLE g (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) WITH (
		'connector' = 'datagen', 'number-of-rows' = '3',
		'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '10',
		'fields.ts.kind' = 'sequence', 'fields.ts.start' = '2025-03-27 12:00:00', 'fields.ts.step' = '1 s');`)
	got := dgEvents(t, s, "g")
	want := []string{
		"+I[1, 2025-03-27T12:00]", "WM 1743076798000",
		"+I[2, 2025-03-27T12:00:01]", "WM 1743076799000",
		"+I[3, 2025-03-27T12:00:02]", "WM 1743076800000",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Epoch milliseconds, an end, the default step of 1 ms; every-rows.
	s = newDGSession(t, `SET 'ptfsh.watermark.every-rows' = '2';
		CREATE TABLE g (ts TIMESTAMP_LTZ(3), WATERMARK FOR ts AS ts) WITH (
		'connector' = 'datagen', 'fields.ts.kind' = 'sequence', 'fields.ts.start' = '1000', 'fields.ts.end' = '1003');`)
	got = dgEvents(t, s, "g")
	want = []string{
		"+I[1970-01-01T00:00:01Z]", "+I[1970-01-01T00:00:01.001Z]", "WM 1001",
		"+I[1970-01-01T00:00:01.002Z]", "+I[1970-01-01T00:00:01.003Z]", "WM 1003",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Random times out of order: the watermark only moves forward.
	s = newDGSession(t, `CREATE TABLE g (ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE) WITH (
		'connector' = 'datagen', 'number-of-rows' = '200', 'fields.ts.max-past' = '1 h');`)
	last, rowMax := int64(-1<<63), int64(-1<<63)
	for _, e := range dgEvents(t, s, "g") {
		if w, ok := strings.CutPrefix(e, "WM "); ok {
			ms, _ := strconv.ParseInt(w, 10, 64)
			if ms <= last || ms != rowMax-60000 {
				t.Fatalf("watermark %d after %d, max time %d", ms, last, rowMax)
			}
			last = ms
			continue
		}
		v, err := textparse.Value(strings.TrimSuffix(strings.TrimPrefix(e, "+I["), "]"), types.TypeTimestamp3, textparse.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ms, _ := types.TimeMillis(v)
		rowMax = max(rowMax, ms)
	}
	if last == int64(-1<<63) {
		t.Fatal("no watermark")
	}
}

func TestDatagenUnboundedStopsAtLimitAndCancel(t *testing.T) {
	got := dgMust(t, `CREATE TABLE g (a INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen', 'fields.a.min' = '1', 'fields.a.max' = '1',
		'fields.ts.kind' = 'sequence', 'fields.ts.start' = '0');
		SELECT a FROM g LIMIT 3;`)
	if strings.Join(got, ",") != "+I[1],+I[1],+I[1]" {
		t.Errorf("got %v", got)
	}
	s := newDGSession(t, `CREATE TABLE g (a INT) WITH ('connector' = 'datagen');`)
	tb, _ := s.cat.Table("g")
	n, _ := connector.NewDatagenNode(tb, s.sourceEnv())
	ctx, cancel := context.WithCancel(context.Background())
	st, _ := n.Open(exec.NewExecution(ctx, state.NewMem(), exec.DefaultOptions()))
	for i := 0; i < 5000; i++ {
		if _, err := st.Next(); err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	for i := 0; i < 5000; i++ {
		if _, err := st.Next(); err != nil {
			return
		}
	}
	t.Error("a cancelled datagen stream keeps going")
}

func TestDatagenEveryType(t *testing.T) {
	got := dgMust(t, `SET 'ptfsh.seed' = '3';
		CREATE TABLE g (
		bo BOOLEAN, ti TINYINT, si SMALLINT, i INT, bi BIGINT, f FLOAT, d DOUBLE, dec DECIMAL(6, 2),
		c CHAR(3), v VARCHAR(4), s STRING, bin BINARY(2), vb VARBINARY(3), bs BYTES,
		dt DATE, tm TIME, ts TIMESTAMP(3), lt TIMESTAMP_LTZ(3), ym INTERVAL YEAR TO MONTH, dts INTERVAL DAY TO SECOND,
		arr ARRAY<STRING>, m MAP<INT, BOOLEAN>, r ROW<x INT, y ARRAY<TINYINT>>
	) WITH ('connector' = 'datagen', 'number-of-rows' = '1', 'fields.s.length' = '3', 'fields.bs.length' = '2',
		'fields.arr.length' = '2', 'fields.arr.element.length' = '2', 'fields.m.length' = '2', 'fields.m.key.min' = '0', 'fields.m.key.max' = '99',
		'fields.r.y.length' = '1', 'fields.r.y.element.min' = '5', 'fields.r.y.element.max' = '5', 'fields.dts.min' = '0', 'fields.dts.max' = '1000');
		SELECT * FROM g;`)
	if len(got) != 1 || strings.Contains(got[0], "null") {
		t.Fatalf("got %v", got)
	}
	t.Log(got[0])
	if !strings.Contains(got[0], ", +I[") || !strings.HasSuffix(got[0], ", [5]]]") {
		t.Errorf("nested option fields.r.y.element not applied: %s", got[0])
	}
}

func TestDatagenErrors(t *testing.T) {
	for _, tc := range []struct{ ddl, want string }{
		{`(a INT) WITH ('connector' = 'datagen', 'fields.a.kind' = 'sequential')`,
			`1:55: option 'fields.a.kind' must be 'random' or 'sequence', not 'sequential'`},
		{`(a INT) WITH ('connector' = 'datagen', 'fields.a.kind' = 'sequence', 'fields.a.start' = '1')`,
			`a sequence needs options 'fields.a.start' and 'fields.a.end'; 'fields.a.end' is missing`},
		{`(a BOOLEAN) WITH ('connector' = 'datagen', 'fields.a.kind' = 'sequence')`,
			`column 'a' is BOOLEAN, which has no sequence generator: kind 'sequence' works for TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DECIMAL, CHAR, VARCHAR, STRING, BINARY, VARBINARY, BYTES, TIMESTAMP, TIMESTAMP_LTZ`},
		{`(a INT) WITH ('connector' = 'datagen', 'fields.a.kind' = 'sequence', 'fields.a.start' = '5', 'fields.a.end' = '1')`,
			`option 'fields.a.start' is after 'fields.a.end'`},
		{`(a TINYINT) WITH ('connector' = 'datagen', 'fields.a.kind' = 'sequence', 'fields.a.start' = '0', 'fields.a.end' = '300')`,
			`option 'fields.a.end' needs a whole number between -128 and 127 (TINYINT), not '300'`},
		{`(ts TIMESTAMP(3)) WITH ('connector' = 'datagen', 'fields.ts.kind' = 'sequence')`,
			`a sequence needs option 'fields.ts.start' (epoch milliseconds or a time such as '2025-03-27 12:00:00')`},
		{`(ts TIMESTAMP(3)) WITH ('connector' = 'datagen', 'fields.ts.kind' = 'sequence', 'fields.ts.start' = '0', 'fields.ts.step' = 'fast')`,
			`option 'fields.ts.step': invalid duration "fast"`},
		{`(a INT) WITH ('connector' = 'datagen', 'fields.a.min' = '10', 'fields.a.max' = '1')`,
			`option 'fields.a.min' (10) is larger than 'fields.a.max' (1)`},
		{`(a INT) WITH ('connector' = 'datagen', 'fields.a.max' = 'lots')`,
			`option 'fields.a.max' needs a whole number between -2147483648 and 2147483647 (INT), not 'lots'`},
		{`(a DOUBLE) WITH ('connector' = 'datagen', 'fields.a.min' = 'x')`,
			`option 'fields.a.min' needs a number, not 'x'`},
		{`(a INT) WITH ('connector' = 'datagen', 'fields.a.length' = '3')`,
			`option 'fields.a.length' does not apply to column 'a' (INT, kind random); its options: fields.a.kind, fields.a.null-rate, fields.a.min, fields.a.max`},
		{`(a INT) WITH ('connector' = 'datagen', 'fields.b.min' = '3')`,
			`option 'fields.b.min' names no column of g [a]`},
		{`(a INT) WITH ('connector' = 'datagen', 'fields.a' = '3')`,
			`option 'fields.a' names no property of column 'a'; its options: fields.a.kind, fields.a.null-rate, fields.a.min, fields.a.max`},
		{`(a INT) WITH ('connector' = 'datagen', 'rows' = '3')`,
			`unsupported option 'rows' for connector 'datagen'; supported: connector, number-of-rows, rows-per-second, seed, fields.#.kind`},
		{`(a INT) WITH ('connector' = 'datagen', 'number-of-rows' = '-1')`,
			`option 'number-of-rows' needs a whole number of at least 0, not '-1'`},
		{`(a INT) WITH ('connector' = 'datagen', 'rows-per-second' = 'fast')`,
			`option 'rows-per-second' needs a whole number from 1 to 1000000000 (the pace of the rows; leave it out for as fast as possible), not 'fast'`},
		{`(a INT) WITH ('connector' = 'datagen', 'seed' = 'abc')`,
			`option 'seed' needs a whole number (a 64-bit integer), not 'abc'`},
		{`(a INT) WITH ('connector' = 'datagen', 'fields.a.null-rate' = '2')`,
			`option 'fields.a.null-rate' needs a number between 0 and 1, not '2'`},
		{`(a INT NOT NULL) WITH ('connector' = 'datagen', 'fields.a.null-rate' = '0.5')`,
			`option 'fields.a.null-rate' makes NULLs, but the column is INT NOT NULL`},
		{`(a VARCHAR(3)) WITH ('connector' = 'datagen', 'fields.a.length' = '4')`,
			`option 'fields.a.length' needs a whole number between 0 and 3 (VARCHAR(3)), not '4'`},
		{`(a STRING) WITH ('connector' = 'datagen', 'fields.a.var-len' = 'yes')`,
			`option 'fields.a.var-len' must be 'true' or 'false', not 'yes'`},
		{`(a ARRAY<INT>) WITH ('connector' = 'datagen', 'fields.a.element.length' = '2')`,
			`option 'fields.a.element.length' does not apply to column 'a' (ARRAY<INT>, kind random); its options: fields.a.kind, fields.a.null-rate, fields.a.length, fields.a.element.null-rate, fields.a.element.min, fields.a.element.max`},
		{`(ts TIMESTAMP(3)) WITH ('connector' = 'datagen', 'fields.ts.max-past' = 'long')`,
			`option 'fields.ts.max-past': invalid duration "long"`},
		{`(a INT) WITH ('connector' = 'datagn')`,
			`unsupported connector 'datagn'; available: blackhole, datagen, faker, filesystem`},
	} {
		_, err := dgRun(t, "CREATE TABLE g "+tc.ddl+";")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.ddl, err, tc.want)
		}
	}
	_, err := dgRun(t, `SET 'ptfsh.seed' = 'x'; CREATE TABLE g (a INT) WITH ('connector' = 'datagen'); SELECT * FROM g;`)
	if err == nil || !strings.Contains(err.Error(), `SET 'ptfsh.seed' needs a whole number (a 64-bit integer), not 'x'`) {
		t.Errorf("bad SET 'ptfsh.seed': %v", err)
	}
}

// TestDatagenRowsPerSecondPaces: rows-per-second is a pace a class can
// watch: 20 rows at 40 a second take about half a second (row k comes k/40
// s after the first), and a statement cancelled during a wait stops.
func TestDatagenRowsPerSecondPaces(t *testing.T) {
	start := time.Now()
	got := dgMust(t, `CREATE TABLE g (a INT) WITH ('connector' = 'datagen', 'rows-per-second' = '40', 'number-of-rows' = '20');
		SELECT * FROM g;`)
	took := time.Since(start)
	if len(got) != 20 {
		t.Errorf("got %d rows", len(got))
	}
	if took < 450*time.Millisecond || took > 20*time.Second {
		t.Errorf("20 rows at 40 a second took %v, want about 0.475 s", took)
	}

	// One row a second, unbounded: Ctrl-C during the wait stops at once.
	var out bytes.Buffer
	s, err := NewSession(Config{Out: &out, Err: &out, Format: "rows"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	start = time.Now()
	err = s.Exec(ctx, "", `CREATE TABLE slow (a INT) WITH ('connector' = 'datagen', 'rows-per-second' = '1');
		SELECT * FROM slow;`)
	if err == nil || !strings.Contains(err.Error(), "statement cancelled") {
		t.Errorf("got %v, want statement cancelled", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the cancelled wait took %v", took)
	}
	if n := strings.Count(out.String(), "+I["); n < 1 || n > 3 {
		t.Errorf("%d rows in 1.5 s at one a second:\n%s", n, out.String())
	}
}

// TestDatagenRowsPerSecondMovesTime: with rows-per-second, random
// timestamps move with the pace, as Flink's clock does while it makes the
// rows: row k is k/rate s after the first (with the default max-past 0,
// exactly), also on a fixed processing-time clock, which makes no wait.
func TestDatagenRowsPerSecondMovesTime(t *testing.T) {
	got := dgMust(t, `SET 'ptfsh.processing-time' = '2025-03-27 12:00:00';
		CREATE TABLE g (a INT, ts TIMESTAMP_LTZ(3)) WITH ('connector' = 'datagen', 'rows-per-second' = '40', 'number-of-rows' = '20', 'fields.a.min' = '1', 'fields.a.max' = '1');
		SELECT * FROM g;`)
	if len(got) != 20 {
		t.Fatalf("got %d rows", len(got))
	}
	for k, want := range map[int]string{0: "+I[1, 2025-03-27T12:00:00Z]", 1: "+I[1, 2025-03-27T12:00:00.025Z]", 19: "+I[1, 2025-03-27T12:00:00.475Z]"} {
		if got[k] != want {
			t.Errorf("row %d: %s, want %s", k, got[k], want)
		}
	}
}
