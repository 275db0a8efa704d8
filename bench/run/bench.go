package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

// result is an engine's runs of one workload.
type result struct {
	engine string
	runs   []measurement
}

// bench runs each workload's engines round-robin for c.rounds rounds
// (round r starts with engine r, so that no engine always goes first) and
// prints the table.
func bench(c config, e *env, ws []workload, stdout, stderr io.Writer) error {
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer devNull.Close()
	started := time.Now()
	tables := make([][]result, len(ws))
	for wi, w := range ws {
		dir, err := prepare(c, e, w)
		if err != nil {
			return err
		}
		var engines []engine
		for _, en := range w.engines {
			if en.available(e) {
				engines = append(engines, en)
			}
		}
		results := make([]result, len(engines))
		for i, en := range engines {
			results[i].engine = en.name
		}
		for r := range c.rounds {
			for k := range engines {
				i := (r + k) % len(engines)
				m, err := runOnce(c, e, w, engines[i], dir, devNull)
				if err != nil {
					return err
				}
				results[i].runs = append(results[i].runs, m)
				fmt.Fprintf(stderr, "%-8s round %d/%d  %-44s %7.2f s  %9s rows/s  %6.2f s CPU  %5.0f MiB\n", w.name, r+1, c.rounds,
					engines[i].name, m.wall.Seconds(), rate(float64(e.rowsOf(c, w))/m.wall.Seconds()), m.cpu.Seconds(), float64(m.rssKiB)/1024)
			}
		}
		tables[wi] = results
	}
	fmt.Fprintf(stdout, "ptfsh benchmark, %s: %s input rows per workload, %d round(s), users %s (skew %g, seed %d); %s/%s, %d CPUs, load average %s at the end, %s, node %s, duckdb %s; took %s\n\n",
		started.Format("2006-01-02"), thousands(c.rows), c.rounds, thousands(c.keys), c.skew, c.seed,
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), loadAverage(), e.goVersion, orNone(e.nodeVersion), orNone(e.duckdbVersion), time.Since(started).Round(time.Second))
	fmt.Fprintln(stdout, "| workload | engine | rows/s (median) | min–max | peak RSS (median) | ratio | paired ratio (min–max) | CPU s (median) | CPU paired ratio |")
	fmt.Fprintln(stdout, "|---|---|---:|---:|---:|---:|---:|---:|---:|")
	for wi, w := range ws {
		rows := e.rowsOf(c, w)
		var ref *result
		for i, r := range tables[wi] {
			if r.engine == w.ref {
				ref = &tables[wi][i]
			}
		}
		for _, r := range tables[wi] {
			rates := r.rates(rows)
			ratio, paired, cpuPaired := "–", "–", "–"
			if ref != nil && r.engine != ref.engine {
				ratio = fmt.Sprintf("%.2f× %s", r.median(rows)/ref.median(rows), shortRef(w.ref))
				if ps := r.paired(*ref); len(ps) > 0 {
					paired = fmt.Sprintf("%.2f× (%.2f–%.2f)", median(ps), slices.Min(ps), slices.Max(ps))
				}
				if ps := r.cpuPaired(*ref); len(ps) > 0 {
					cpuPaired = fmt.Sprintf("%.2f× (%.2f–%.2f)", median(ps), slices.Min(ps), slices.Max(ps))
				}
			}
			title := w.title
			if r.engine != tables[wi][0].engine {
				title = "" // the workload's first row names it
			}
			fmt.Fprintf(stdout, "| %s | %s | %s | %s–%s | %.0f MiB | %s | %s | %.2f | %s |\n", title, r.engine,
				rate(median(rates)), rate(slices.Min(rates)), rate(slices.Max(rates)), r.medianRSS()/1024, ratio, paired, r.medianCPU(), cpuPaired)
		}
	}
	return nil
}

// paired returns r's speed against ref's round by round: in each round
// the two ran a few seconds apart, so a machine whose speed drifts over
// the minutes of a run moves both alike, and the ratio of one round
// holds where the ratio of the medians, taken from runs far apart, does
// not. Rounds missing on either side are skipped.
func (r result) paired(ref result) []float64 {
	var ps []float64
	for i := range min(len(r.runs), len(ref.runs)) {
		if a, b := r.runs[i].wall, ref.runs[i].wall; a > 0 && b > 0 {
			ps = append(ps, b.Seconds()/a.Seconds())
		}
	}
	return ps
}

// cpuPaired is r's CPU time over ref's, round by round (above 1: r
// takes more CPU).
func (r result) cpuPaired(ref result) []float64 {
	var ps []float64
	for i := range min(len(r.runs), len(ref.runs)) {
		if a, b := r.runs[i].cpu, ref.runs[i].cpu; a > 0 && b > 0 {
			ps = append(ps, a.Seconds()/b.Seconds())
		}
	}
	return ps
}

func (r result) medianCPU() float64 {
	var cs []float64
	for _, m := range r.runs {
		cs = append(cs, m.cpu.Seconds())
	}
	return median(cs)
}

// loadAverage is the machine's load over the last minute ("?" where
// /proc/loadavg is missing).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "?"
}

func (r result) rates(rows int) []float64 {
	var rs []float64
	for _, m := range r.runs {
		rs = append(rs, float64(rows)/m.wall.Seconds())
	}
	return rs
}

func (r result) median(rows int) float64 { return median(r.rates(rows)) }

func (r result) medianRSS() float64 {
	var rs []float64
	for _, m := range r.runs {
		rs = append(rs, float64(m.rssKiB))
	}
	return median(rs)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// rate prints rows per second: 245k, 2.67M.
func rate(r float64) string {
	switch {
	case r >= 1e6:
		return fmt.Sprintf("%.2fM", r/1e6)
	case r >= 1e3:
		return fmt.Sprintf("%.0fk", r/1e3)
	}
	return fmt.Sprintf("%.0f", r)
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func shortRef(ref string) string {
	switch ref {
	case "node":
		return "node"
	case "ptfsh":
		return "1 worker"
	case "duckdb":
		return "duckdb"
	}
	return "default"
}

func orNone(s string) string {
	if s == "" {
		return "not found"
	}
	return s
}
