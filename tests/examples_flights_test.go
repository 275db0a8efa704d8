package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/sqlmini"
)

// TestExampleFlights checks examples/flights.sql beyond its golden file:
// it runs the example's functions over the whole flights file and compares
// every row with what it computes on its own, in Go, from the JSON.
//
// The rules, as the example's comments state them:
//
//   - NoDepartureAlert: for each origin, departures t1 <= t2 <= ... in file
//     order (the file is sorted by date). An alert (origin, t_i, t_i + 2h)
//     is raised when t_{i+1} - t_i >= 2h, or for the last departure t_n
//     when the last watermark before the end of the input (the largest
//     date minus the table's one-minute delay) reaches t_n + 2h; timers
//     that only the end of the input fires raise none.
//   - DelayStreak: for each origin, in file order, a departure delayed by
//     more than 30 minutes extends the streak, any other ends it; the third
//     of a streak emits (origin, first's date, the three delays, its date).
func TestExampleFlights(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	flights := readFlights(t, filepath.Join(dir, "data", "flights-20k.json"))
	wantAlerts, wantStreaks := expectedFlightRows(flights)
	// The counts the example's comments give.
	if len(wantAlerts) != 12900 || len(wantStreaks) != 106 {
		t.Errorf("the recomputation finds %d alerts and %d streaks; flights.sql says 12,900 and 106", len(wantAlerts), len(wantStreaks))
	}

	ddl := exampleDDL(t, filepath.Join(dir, "flights.sql"))
	gotAlerts := flightRows(t, dir, ddl+
		"SELECT * FROM NoDepartureAlert(flights => TABLE flights PARTITION BY origin, on_time => DESCRIPTOR(`date`));\n")
	gotStreaks := flightRows(t, dir, ddl+
		"SELECT * FROM DelayStreak(flights => TABLE flights PARTITION BY origin, on_time => DESCRIPTOR(`date`));\n")

	// Alerts fire as the watermark passes them: in event-time order.
	for i := 1; i < len(gotAlerts); i++ {
		if lastField(gotAlerts[i]) < lastField(gotAlerts[i-1]) {
			t.Errorf("alert %d (%s) comes after a later one (%s)", i, gotAlerts[i], gotAlerts[i-1])
			break
		}
	}
	compareMultisets(t, "NoDepartureAlert", gotAlerts, wantAlerts)
	compareMultisets(t, "DelayStreak", gotStreaks, wantStreaks)

	// Per origin, streaks come out in the order of the data.
	var ord []string
	for _, s := range wantStreaks {
		if strings.HasPrefix(s, "+I[ORD, ") {
			ord = append(ord, s)
		}
	}
	var gotOrd []string
	for _, s := range gotStreaks {
		if strings.HasPrefix(s, "+I[ORD, ") {
			gotOrd = append(gotOrd, s)
		}
	}
	if !slices.Equal(gotOrd, ord) {
		t.Errorf("ORD streaks:\n got %q\nwant %q", gotOrd, ord)
	}
}

type flight struct {
	Date     string `json:"date"`
	Delay    *int   `json:"delay"`
	Distance int    `json:"distance"`
	Origin   string `json:"origin"`
	Dest     string `json:"destination"`
	at       time.Time
}

func readFlights(t *testing.T, path string) []flight {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var fs []flight
	if err := json.Unmarshal(b, &fs); err != nil {
		t.Fatal(err)
	}
	for i := range fs {
		if fs[i].at, err = time.Parse("2006/01/02 15:04", fs[i].Date); err != nil {
			t.Fatal(err)
		}
		if i > 0 && fs[i].at.Before(fs[i-1].at) {
			t.Fatalf("flights-20k.json is not sorted by date at row %d; flights.sql relies on it", i)
		}
	}
	return fs
}

// expectedFlightRows applies the rules above; rows are printed as ptfsh's
// rows format prints them.
func expectedFlightRows(fs []flight) (alerts, streaks []string) {
	const silence, wmDelay, late = 2 * time.Hour, time.Minute, 30
	byOrigin := map[string][]flight{}
	var origins []string
	var maxAt time.Time
	for _, f := range fs {
		if _, ok := byOrigin[f.Origin]; !ok {
			origins = append(origins, f.Origin)
		}
		byOrigin[f.Origin] = append(byOrigin[f.Origin], f)
		if f.at.After(maxAt) {
			maxAt = f.at
		}
	}
	lastWatermark := maxAt.Add(-wmDelay)
	for _, o := range origins {
		deps := byOrigin[o]
		for i, f := range deps {
			deadline := f.at.Add(silence)
			if i+1 < len(deps) && !deps[i+1].at.Before(deadline) || i+1 == len(deps) && !deadline.After(lastWatermark) {
				alerts = append(alerts, fmt.Sprintf("+I[%s, %s, %s]", o, javaDateTime(f.at), javaDateTime(deadline)))
			}
		}
		var streak []flight
		for _, f := range deps {
			if f.Delay == nil || *f.Delay <= late {
				streak = streak[:0]
				continue
			}
			streak = append(streak, f)
			if len(streak) == 3 {
				streaks = append(streaks, fmt.Sprintf("+I[%s, %s, [%d, %d, %d], %s]", o, javaDateTime(streak[0].at),
					*streak[0].Delay, *streak[1].Delay, *streak[2].Delay, javaDateTime(f.at)))
			}
		}
	}
	return alerts, streaks
}

// javaDateTime prints a TIMESTAMP as Java's LocalDateTime.toString.
func javaDateTime(t time.Time) string {
	if t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format("2006-01-02T15:04")
	}
	return t.Format("2006-01-02T15:04:05.999")
}

// exampleDDL returns the CREATE and SET statements of a script.
func exampleDDL(t *testing.T, path string) string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pieces, err := sqlmini.Split(filepath.Base(path), string(src))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range pieces {
		st, err := sqlmini.ParseStatement(filepath.Base(path), p.Text)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if st.Create != nil || st.Set != nil {
			b.WriteString(p.Text + ";\n")
		}
	}
	if !strings.Contains(b.String(), "'ptfsh.format' = 'rows'") {
		t.Fatalf("%s: no SET 'ptfsh.format' = 'rows'", path)
	}
	return b.String()
}

// flightRows runs a script and returns its rows; anything else fails.
func flightRows(t *testing.T, dir, script string) []string {
	t.Helper()
	out := RunScriptNamed(t, dir, "flights.sql", script)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for _, l := range lines {
		if !strings.HasPrefix(l, "+I[") {
			t.Fatalf("unexpected output line %q in\n%.2000s", l, out)
		}
	}
	return lines
}

// lastField returns the last field of a printed row (the rowtime).
func lastField(row string) string {
	i := strings.LastIndex(row, ", ")
	return strings.TrimSuffix(row[i+2:], "]")
}

func compareMultisets(t *testing.T, what string, got, want []string) {
	t.Helper()
	g, w := slices.Clone(got), slices.Clone(want)
	slices.Sort(g)
	slices.Sort(w)
	if slices.Equal(g, w) {
		return
	}
	count := map[string]int{}
	for _, s := range g {
		count[s]++
	}
	for _, s := range w {
		count[s]--
	}
	var extra, missing []string
	for s, n := range count {
		for ; n > 0; n-- {
			extra = append(extra, s)
		}
		for ; n < 0; n++ {
			missing = append(missing, s)
		}
	}
	slices.Sort(extra)
	slices.Sort(missing)
	t.Errorf("%s: %d rows from ptfsh, %d recomputed; %d unexpected, %d missing\nunexpected (first 10): %q\nmissing (first 10): %q",
		what, len(got), len(want), len(extra), len(missing), extra[:min(10, len(extra))], missing[:min(10, len(missing))])
}
