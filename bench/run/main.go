// Command run is ptfsh's benchmark suite: it builds ptfsh and the plain Go
// baseline once, generates the input data (seeded, cached by parameters),
// runs every workload on ptfsh, the Node harness and plain Go, interleaved
// round by round, and prints a markdown table of rows per second (median
// and spread), peak RSS and the ratio to Node.
//
//	go run ./bench/run                     # 5M rows, 3 rounds
//	go run ./bench/run -rows 200000 -rounds 1 -only A,B
//	go run ./bench/run -check              # do the engines print the same rows?
//
// Each run is one child process writing CSV to /dev/null; its wall time
// (start to exit) gives rows/s over the input rows, and the kernel's
// rusage its peak RSS. Run it from the repository (it builds ./cmd/ptfsh).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

type config struct {
	rows, rounds, keys int
	skew               float64
	seed               uint64
	only               string
	check              bool
	dataDir            string
	keep               bool
	root               string // the repository
	nodeOff            bool   // run without Node even when it is installed
	flightsParquet     string // a Parquet file of flights for F-parquet
	kafka              bool   // also run K and K-p2 against a real broker
}

func main() {
	var c config
	flag.IntVar(&c.rows, "rows", 5_000_000, "input rows of every workload (-check: 20000 unless given)")
	flag.IntVar(&c.rounds, "rounds", 3, "rounds: each runs every engine of a workload once, in turn")
	flag.IntVar(&c.keys, "keys", 100_000, "distinct users of the workloads whose name gives no key count")
	flag.Float64Var(&c.skew, "skew", 1, "Zipf exponent of users and airports (0: uniform)")
	flag.Uint64Var(&c.seed, "seed", 1, "the generator's seed")
	flag.StringVar(&c.only, "only", "", "run only these workloads (comma-separated names: A, B-1k, B, B-1M, C, B-jsonl, F, B-spill, B-ckpt, L, L-map, S-group, S-join; with -flights-parquet F-parquet, workflow, window; with -kafka K, K-p2)")
	flag.BoolVar(&c.check, "check", false, "run each engine once and compare their output rows instead of timing them")
	flag.StringVar(&c.dataDir, "data", "", "keep generated data in `DIR` (default: ptfsh-bench-data in the temporary directory)")
	flag.StringVar(&c.flightsParquet, "flights-parquet", "", "also run F over this Parquet `FILE` of flights (columns date, delay, origin; e.g. a copy of the 3M U.S. flights), all its rows")
	flag.BoolVar(&c.kafka, "kafka", false, "also run K and K-p2: the keyed count from a 3-partition topic of JSON into a topic, beside the same over CSV files, on a real Apache Kafka broker the run starts (needs mvn and java)")
	flag.BoolVar(&c.keep, "keep", false, "keep the work folder (scripts, binaries, outputs) and print its path")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "run: unexpected argument %q\n", flag.Arg(0))
		os.Exit(2)
	}
	if c.check {
		rowsSet := false
		flag.Visit(func(f *flag.Flag) { rowsSet = rowsSet || f.Name == "rows" })
		if !rowsSet {
			c.rows = 20_000
		}
	}
	root, err := repoRoot()
	if err != nil {
		fmt.Fprintf(os.Stderr, "run: %v\n", err)
		os.Exit(2)
	}
	c.root = root
	if c.flightsParquet != "" {
		if _, err := os.Stat(c.flightsParquet); err != nil {
			fmt.Fprintf(os.Stderr, "run: -flights-parquet: %v\n", err)
			os.Exit(2)
		}
	}
	if err := run(c, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "run: %v\n", err)
		os.Exit(1)
	}
}

// run benchmarks (or checks) the selected workloads; the table goes to
// stdout, progress to stderr.
func run(c config, stdout, stderr io.Writer) error {
	if c.rows < 1 || c.rounds < 1 || c.keys < 1 {
		return errors.New("-rows, -rounds and -keys need 1 or more")
	}
	ws, err := selectWorkloads(c)
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "ptfsh-bench-run-")
	if err != nil {
		return err
	}
	if c.keep {
		fmt.Fprintf(stderr, "work folder: %s\n", work)
	} else {
		defer os.RemoveAll(work)
	}
	if c.dataDir == "" {
		c.dataDir = filepath.Join(os.TempDir(), "ptfsh-bench-data")
	}
	env, err := setup(c, work, ws, stderr)
	if err != nil {
		return err
	}
	if needsKafka(ws) {
		if c.check {
			return errors.New("-check compares files and stdout: it takes no -kafka")
		}
		var stop func()
		if env.kafka, stop, err = startKafka(c, env, dataSet{kind: "clicks", format: "csv"}, stderr); err != nil {
			return err
		}
		defer stop()
	}
	if c.check {
		return check(c, env, ws, stdout, stderr)
	}
	return bench(c, env, ws, stdout, stderr)
}

func selectWorkloads(c config) ([]workload, error) {
	all := workloads(c)
	if c.only == "" {
		return all, nil
	}
	var ws []workload
	for _, name := range strings.Split(c.only, ",") {
		name = strings.TrimSpace(name)
		found := false
		for _, w := range all {
			if strings.EqualFold(w.name, name) {
				ws = append(ws, w)
				found = true
			}
		}
		if !found && (strings.EqualFold(name, "K") || strings.EqualFold(name, "K-p2")) {
			return nil, fmt.Errorf("-only: %s needs -kafka (a real broker)", name)
		}
		if !found && (strings.EqualFold(name, "F-parquet") || strings.EqualFold(name, "workflow") || strings.EqualFold(name, "window")) {
			return nil, fmt.Errorf("-only: %s needs -flights-parquet FILE (a Parquet file of flights)", name)
		}
		if !found {
			var names []string
			for _, w := range all {
				names = append(names, w.name)
			}
			return nil, fmt.Errorf("-only: no workload %q (have %s)", name, strings.Join(names, ", "))
		}
	}
	return ws, nil
}

// repoRoot finds the module root of ptfsh from the working directory up.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(b), "module github.com/ptfsh/ptfsh\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run it inside the ptfsh repository (no go.mod of github.com/ptfsh/ptfsh above the working directory)")
		}
		dir = parent
	}
}

// env is what setup made: the binaries and the data files.
type env struct {
	work, ptfsh, plain, node string // node is "" without Node
	nodeVersion, goVersion   string
	python, duckdbVersion    string             // duckdbVersion is "" without pip's duckdb
	kafka                    string             // the broker's servers (-kafka)
	data                     map[dataSet]string // data set -> file
	rows                     map[dataSet]int    // data set -> its rows, when not -rows
}

// rowsOf is how many rows a workload's data set has.
func (e *env) rowsOf(c config, w workload) int {
	if n, ok := e.rows[w.data]; ok {
		return n
	}
	return c.rows
}

// setup builds ptfsh and bench/plain into the work folder, finds Node and
// generates the data the workloads need.
func setup(c config, work string, ws []workload, stderr io.Writer) (*env, error) {
	e := &env{work: work, data: map[dataSet]string{}, rows: map[dataSet]int{}}
	bin := filepath.Join(work, "bin")
	e.ptfsh = filepath.Join(bin, "ptfsh")
	e.plain = filepath.Join(bin, "plain")
	for _, b := range [][2]string{{e.ptfsh, "./cmd/ptfsh"}, {e.plain, "./bench/plain"}} {
		fmt.Fprintf(stderr, "go build -o %s %s\n", filepath.Join("$WORK", "bin", filepath.Base(b[0])), b[1])
		cmd := exec.Command("go", "build", "-o", b[0], b[1])
		cmd.Dir = c.root
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build %s: %v\n%s", b[1], err, out)
		}
	}
	if out, err := exec.Command("go", "env", "GOVERSION").Output(); err == nil {
		e.goVersion = strings.TrimSpace(string(out))
	}
	if !c.nodeOff {
		if p, err := exec.LookPath("node"); err == nil {
			e.node = p
			if out, err := exec.Command(p, "--version").Output(); err == nil {
				e.nodeVersion = strings.TrimSpace(string(out))
			}
		} else {
			fmt.Fprintln(stderr, "node not found on PATH: the Node harness is left out")
		}
	}
	if p, err := exec.LookPath("python3"); err == nil {
		if out, err := exec.Command(p, "-c", "import duckdb; print(duckdb.__version__)").Output(); err == nil {
			e.python, e.duckdbVersion = p, strings.TrimSpace(string(out))
		}
	}
	for _, w := range ws {
		for _, en := range w.engines {
			if en.kind == "duckdb" && e.duckdbVersion == "" {
				fmt.Fprintf(stderr, "python3 with duckdb not found (pip install duckdb): %s runs without DuckDB\n", w.name)
			}
		}
	}
	for _, w := range ws {
		d := c.params(w.data)
		if _, ok := e.data[w.data]; ok {
			continue
		}
		if w.data.path != "" {
			n, err := countRows(e.ptfsh, w.data.path)
			if err != nil {
				return nil, err
			}
			e.data[w.data], e.rows[w.data] = w.data.path, n
			continue
		}
		path, err := generate(c.dataDir, d, stderr)
		if err != nil {
			return nil, err
		}
		e.data[w.data] = path
	}
	return e, nil
}
