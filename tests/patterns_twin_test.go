package tests

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The patterns of ptfsh/patterns beside the SQL that computes the same
// (their twins), on shared rows that come out of order and late: both
// must give the same rows (as multisets: the two emit in different
// orders). rateLimit, changeDetection and thresholdWithReset have none:
// they read rows in order through ORDER BY, which drops a row that comes
// at or before the watermark, where a window Top-N keeps it while its
// window is open and OVER (LAG) while its key has not read a later time.

// twinEvents: keys a, b, c and d; values; ids; times with a watermark 2
// minutes behind the largest time seen. Out of order: a4, a6, a8, b3, a9,
// d2. Late (at or before the watermark when they come): a4, a6, a8, b3,
// a9. a3 is exactly the gap after a2 (sessions of 10 minutes).
const twinEvents = `a,5,a1,2025-03-27 12:00:00
a,3,a2,2025-03-27 12:04:00
b,7,b1,2025-03-27 12:01:00
a,9,a3,2025-03-27 12:14:00
a,2,a4,2025-03-27 12:02:00
b,4,b2,2025-03-27 12:30:00
a,6,a5,2025-03-27 12:40:00
a,1,a6,2025-03-27 12:20:00
a,8,a7,2025-03-27 12:55:00
a,4,a8,2025-03-27 12:47:00
b,5,b3,2025-03-27 12:36:00
c,3,c1,2025-03-27 13:10:00
d,6,d1,2025-03-27 13:11:00
d,2,d2,2025-03-27 13:10:30
a,7,a9,2025-03-27 13:02:00
b,6,b4,2025-03-27 13:20:00
c,9,c2,2025-03-27 13:19:00
c,1,c3,2025-03-27 13:29:00
`

const twinEventsTable = `CREATE TABLE ev (k STRING, v INT, id STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' MINUTE)
WITH ('connector' = 'filesystem', 'path' = 'events.csv', 'format' = 'csv');
`

// githubMarch is github.csv's commits per hour of 13 to 18 March 2015
// (runtime/format/testdata has its first rows): in order, with a row
// exactly 4 hours after the one before (15 March, 12:00 and 16:00).
const githubMarch = `2015/03/13 06:00:00,1
2015/03/13 12:00:00,1
2015/03/13 19:00:00,1
2015/03/13 20:00:00,1
2015/03/13 23:00:00,2
2015/03/14 13:00:00,2
2015/03/14 15:00:00,1
2015/03/14 16:00:00,6
2015/03/14 23:00:00,1
2015/03/15 05:00:00,54
2015/03/15 07:00:00,2
2015/03/15 08:00:00,1
2015/03/15 10:00:00,3
2015/03/15 11:00:00,5
2015/03/15 12:00:00,1
2015/03/15 16:00:00,2
2015/03/15 17:00:00,2
2015/03/15 22:00:00,1
2015/03/16 02:00:00,1
2015/03/16 03:00:00,2
2015/03/16 08:00:00,4
2015/03/16 15:00:00,1
`

// twinOrders and twinRates: orders and the tier valid for each key from
// its time on. The first two orders of x are released by one watermark
// advance and need gold, and so are z's last two at the end of input,
// which need plain; orders 5, 9 and 13 are late, and 13 comes when w has
// had no order since its versions a and b (b is all the join keeps then);
// the rate x,iron at 10:08 is a late version, y,green an out-of-order one.
const twinOrders = `x,1,2025-03-27 10:04:30
x,2,2025-03-27 10:05:00
y,3,2025-03-27 10:06:00
x,4,2025-03-27 10:30:00
x,5,2025-03-27 10:10:00
y,6,2025-03-27 10:50:00
z,7,2025-03-27 10:51:00
x,8,2025-03-27 11:00:00
x,9,2025-03-27 10:35:00
x,14,2025-03-27 10:36:00
w,13,2025-03-27 10:20:00
y,10,2025-03-27 11:30:00
z,11,2025-03-27 11:40:30
z,12,2025-03-27 11:41:00
`

const twinRates = `x,gold,2025-03-27 10:03:00
y,red,2025-03-27 10:00:00
x,silver,2025-03-27 10:20:00
x,bronze,2025-03-27 10:40:00
y,blue,2025-03-27 10:45:00
y,green,2025-03-27 10:41:00
x,iron,2025-03-27 10:08:00
x,steel,2025-03-27 10:58:00
w,a,2025-03-27 10:00:00
w,b,2025-03-27 10:30:00
x,late,2025-03-27 10:35:00
z,plain,2025-03-27 11:39:00
z,gold,2025-03-27 11:42:00
`

const twinJoinTables = `CREATE TABLE orders (k STRING, id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE)
WITH ('connector' = 'filesystem', 'path' = 'orders.csv', 'format' = 'csv');
CREATE TABLE rates (k STRING, tier STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'rates.csv', 'format' = 'csv');
CREATE TABLE rates_versioned (k STRING, tier STRING, ts TIMESTAMP(3), PRIMARY KEY (k) NOT ENFORCED, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'rates.csv', 'format' = 'csv');
`

type twinCase struct {
	name    string
	files   map[string]string
	setup   string // tables, shared by both sides
	pattern string // the function and the query of the pattern
	sql     string // the query of its twin
	// disorder names the data file whose rows must come out of order and
	// late, with its watermark delay, so that the case tests them.
	disorder string
	delay    time.Duration
	timeCol  int
}

var twinCases = []twinCase{
	{
		name: "sessionize vs SESSION", files: map[string]string{"events.csv": twinEvents}, setup: twinEventsTable,
		pattern: `CREATE FUNCTION Sessions LANGUAGE JAVASCRIPT AS $$
import { sessionize } from "ptfsh/patterns";
export default sessionize({ gap: "10 min", aggregates: { total: "sum(v)", most: "max(v)", least: "min(v)" },
  output: "ROW<session_start TIMESTAMP(3), session_end TIMESTAMP(3), events BIGINT, total INT, most INT, least INT>" });
$$;
SELECT k, session_start, session_end, events, total, most, least, rowtime FROM Sessions(input => TABLE ev PARTITION BY k, on_time => DESCRIPTOR(ts));`,
		sql: `SELECT k, window_start, window_end, COUNT(*), SUM(v), MAX(v), MIN(v), window_time
FROM TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '10' MINUTE)) GROUP BY k, window_start, window_end, window_time;`,
		disorder: "events.csv", delay: 2 * time.Minute, timeCol: 3,
	},
	{
		name: "sessionize vs SESSION on github.csv", files: map[string]string{"github.csv": githubMarch},
		setup: `CREATE TABLE gh (ts TIMESTAMP(3), n INT, WATERMARK FOR ts AS ts)
WITH ('connector' = 'filesystem', 'path' = 'github.csv', 'format' = 'csv', 'timestamp-format.pattern' = 'yyyy/MM/dd HH:mm:ss');
CREATE VIEW commits AS SELECT 'all' AS k, ts, n FROM gh;
`,
		pattern: `CREATE FUNCTION Sessions LANGUAGE JAVASCRIPT AS $$
import { sessionize } from "ptfsh/patterns";
export default sessionize({ gap: "4 hours", aggregates: { commits: "sum(n)" },
  output: "ROW<session_start TIMESTAMP(3), session_end TIMESTAMP(3), events BIGINT, commits INT>" });
$$;
SELECT k, session_start, session_end, events, commits FROM Sessions(input => TABLE commits PARTITION BY k, on_time => DESCRIPTOR(ts));`,
		sql: `SELECT k, window_start, window_end, COUNT(*), SUM(n)
FROM TABLE(SESSION(TABLE commits PARTITION BY k, DESCRIPTOR(ts), INTERVAL '4' HOUR)) GROUP BY k, window_start, window_end;`,
	},
	{
		name: "enrich vs LEFT JOIN FOR SYSTEM_TIME AS OF", files: map[string]string{"orders.csv": twinOrders, "rates.csv": twinRates}, setup: twinJoinTables,
		pattern: `CREATE FUNCTION Enrich LANGUAGE JAVASCRIPT AS $$
import { enrich } from "ptfsh/patterns";
export default enrich({ output: "ROW<id INT, ts TIMESTAMP(3), tier STRING>" });
$$;
SELECT k, id, ts, tier, rowtime FROM Enrich(input => TABLE orders PARTITION BY k, reference => TABLE rates PARTITION BY k, on_time => DESCRIPTOR(ts));`,
		sql:      `SELECT o.k, o.id, o.ts, r.tier, o.ts FROM orders AS o LEFT JOIN rates_versioned FOR SYSTEM_TIME AS OF o.ts AS r ON o.k = r.k;`,
		disorder: "orders.csv", delay: time.Minute, timeCol: 2,
	},
	{
		name: "enrich inner vs JOIN FOR SYSTEM_TIME AS OF", files: map[string]string{"orders.csv": twinOrders, "rates.csv": twinRates}, setup: twinJoinTables,
		pattern: `CREATE FUNCTION Enrich LANGUAGE JAVASCRIPT AS $$
import { enrich } from "ptfsh/patterns";
export default enrich({ inner: true, output: "ROW<id INT, ts TIMESTAMP(3), tier STRING>" });
$$;
SELECT k, id, ts, tier FROM Enrich(input => TABLE orders PARTITION BY k, reference => TABLE rates PARTITION BY k, on_time => DESCRIPTOR(ts));`,
		sql:      `SELECT o.k, o.id, o.ts, r.tier FROM orders AS o JOIN rates_versioned FOR SYSTEM_TIME AS OF o.ts AS r ON o.k = r.k;`,
		disorder: "rates.csv", delay: 0, timeCol: 2,
	},
	{
		name: "dedup vs ROW_NUMBER", files: map[string]string{"events.csv": twinEvents}, setup: twinEventsTable,
		pattern: `CREATE FUNCTION Dedup LANGUAGE JAVASCRIPT AS $$
import { dedup } from "ptfsh/patterns";
export default dedup({ by: "time", within: "36500 days", output: "ROW<v INT, id STRING, ts TIMESTAMP(3), window_end TIMESTAMP(3)>" });
$$;
SELECT k, v, id, ts FROM Dedup(input => TABLE ev PARTITION BY k, on_time => DESCRIPTOR(ts));`,
		sql:      `SELECT k, v, id, ts FROM (SELECT k, v, id, ts, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) AS rn FROM ev) WHERE rn = 1;`,
		disorder: "events.csv", delay: 2 * time.Minute, timeCol: 3,
	},
	{
		name: "topN vs window Top-N", files: map[string]string{"events.csv": twinEvents}, setup: twinEventsTable,
		pattern: `CREATE FUNCTION Top2 LANGUAGE JAVASCRIPT AS $$
import { topN } from "ptfsh/patterns";
export default topN({ n: 2, value: "v", label: "id", size: "10 min",
  output: "ROW<window_end TIMESTAMP(3), place BIGINT, label STRING, score INT>" });
$$;
SELECT k, window_end, place, label, score, rowtime FROM Top2(input => TABLE ev PARTITION BY k, on_time => DESCRIPTOR(ts));`,
		sql: `SELECT k, window_end, rn, id, v, window_time FROM (
  SELECT k, window_end, window_time, id, v, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY v DESC) AS rn
  FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' MINUTE))) WHERE rn <= 2;`,
		disorder: "events.csv", delay: 2 * time.Minute, timeCol: 3,
	},
}

// TestPatterns_twins runs each pattern and its SQL twin over the same
// rows and compares their rows.
func TestPatterns_twins(t *testing.T) {
	for _, c := range twinCases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range c.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if c.disorder != "" {
				outOfOrder, late := disorder(t, c.files[c.disorder], c.timeCol, c.delay)
				if outOfOrder == 0 || late == 0 {
					t.Fatalf("%s: %d rows out of order, %d late: the case tests neither", c.disorder, outOfOrder, late)
				}
			}
			head := "SET 'ptfsh.format' = 'rows';\n" + c.setup
			got := twinRows(t, RunScript(t, dir, head+c.pattern))
			want := twinRows(t, RunScript(t, dir, head+c.sql))
			if len(want) == 0 {
				t.Fatal("the SQL twin gives no rows")
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the pattern and its SQL twin differ (-sql +pattern):\n%s", diff)
			}
		})
	}
}

// twinRows takes the rows of a run's output, sorted; a line that is not a
// row (an error, a note) fails the test.
func twinRows(t *testing.T, out string) []string {
	t.Helper()
	var rows []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, "note: ") {
			continue
		}
		if len(l) < 3 || l[0] != '+' && l[0] != '-' || !strings.HasSuffix(l, "]") {
			t.Fatalf("not a row: %q in\n%s", l, out)
		}
		rows = append(rows, l)
	}
	sort.Strings(rows)
	return rows
}

// disorder counts the rows of a CSV file that come earlier in time than a
// row before them, and those at or before the watermark (the largest time
// seen minus delay) when they come.
func disorder(t *testing.T, csv string, col int, delay time.Duration) (outOfOrder, late int) {
	t.Helper()
	var most time.Time
	for i, l := range strings.Split(strings.TrimSpace(csv), "\n") {
		f := strings.Split(l, ",")
		ts, err := time.Parse("2006-01-02 15:04:05", f[col])
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if i > 0 && ts.Before(most) {
			outOfOrder++
			if !ts.After(most.Add(-delay)) {
				late++
			}
		}
		if i == 0 || ts.After(most) {
			most = ts
		}
	}
	return outOfOrder, late
}
