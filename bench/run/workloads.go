package main

import (
	"fmt"
	"path/filepath"
)

// The benchmark's workloads and the engines that run them.

// dataSet names a generated input file.
type dataSet struct {
	kind   string // clicks or flights
	format string // csv, jsonl or parquet
	keys   int    // distinct users or airports; 0 for the run's -keys
	path   string // a file given to the run (-flights-parquet), not generated
}

// file is the name the workload scripts give the data.
func (d dataSet) file() string { return d.kind + "." + d.format }

type workload struct {
	name    string // for -only and the table
	title   string
	data    dataSet
	script  string   // the ptfsh script, in bench/workloads
	fn      string   // the function file, from the repository's root
	node    []string // the Node harness's arguments besides --fn and --input
	plain   []string // bench/plain's arguments besides the input file
	engines []engine
	ref     string // the engine the ratio column divides by
	// files are more files of bench/workloads the scripts read (linked
	// into the run folder).
	files []string
	// sinks are the files the scripts write instead of printing (every
	// engine of the workload writes them all); -check compares them.
	sinks []sink
}

// A sink is an output file of a workload. A Parquet sink is compared
// through ptfsh, which prints its rows as CSV (schema is its columns, as
// in CREATE TABLE).
type sink struct {
	file   string
	schema string // Parquet sinks only
}

// An engine is one way to run a workload: ptfsh (with flags or a
// preamble), the Node harness or the plain Go program.
type engine struct {
	name     string
	kind     string   // "ptfsh", "node", "node-tuned", "go" or "duckdb"
	flags    []string // more ptfsh flags
	preamble string   // statements run before the script (written into a copy of it)
	script   string   // another script of bench/workloads instead of the workload's (duckdb: its SQL)
	state    bool     // --state FILE, a fresh file in the run folder for every run
	sinkFile string   // the script INSERTs INTO this file instead of printing to stdout
	kafka    bool     // the script reads and writes topics of the run's broker (${KAFKA})
}

var (
	ptfsh     = engine{name: "ptfsh", kind: "ptfsh"}
	ptfshPar2 = engine{name: "ptfsh --parallelism 2", kind: "ptfsh", flags: []string{"--parallelism", "2"}}
	// ptfshGoja runs the functions on goja alone, to measure what the
	// compiled calls give (see docs/javascript.md).
	ptfshGoja = engine{name: "ptfsh, 'ptf.compile' off", kind: "ptfsh", preamble: "SET 'ptf.compile' = 'off';"}
	nodeJS    = engine{name: "node", kind: "node"}
	// nodeTuned is the workload written directly in JavaScript and tuned
	// by hand (bench/node/tuned.mjs: lines and fields split with indexOf,
	// no Date per row), the reference for what V8 does with the logic.
	nodeTuned = engine{name: "node, hand-tuned", kind: "node-tuned"}
	// duckDB runs a DuckDB form of a workload through duckdb_run.py (pip's
	// duckdb, both cores).
	duckDB  = func(script string) engine { return engine{name: "duckdb", kind: "duckdb", script: script} }
	plainGo = engine{name: "go", kind: "go"}
)

const clickColumns = "user_id:STRING,url:STRING,view_time:INT,ts:TIMESTAMP"

// workloads are the suite; B's title gives its key count (-keys).
func workloads(c config) []workload {
	keyed := func(name, title string, d dataSet) workload {
		w := workload{
			name: name, title: title, data: d,
			script: "keyed_count.sql", fn: "bench/workloads/keyed_count.js",
			node:    []string{"--columns", clickColumns, "--partition", "user_id"},
			plain:   []string{"-workload", "count"},
			engines: []engine{ptfsh, ptfshGoja, ptfshPar2, nodeJS, plainGo},
			ref:     "node",
		}
		if d.format == "csv" {
			w.engines = []engine{ptfsh, ptfshGoja, ptfshPar2, nodeJS, nodeTuned, plainGo}
		}
		if d.format == "jsonl" {
			w.script = "keyed_count_jsonl.sql"
			w.node = append(w.node, "--format", "jsonl")
			w.plain = append(w.plain, "-format", "jsonl")
		}
		return w
	}
	clicks := dataSet{kind: "clicks", format: "csv"}
	ws := []workload{
		{
			name: "A", title: "A row filter (view_time >= 500, row semantics)", data: clicks,
			script: "row_filter.sql", fn: "bench/workloads/row_filter.js",
			node:  []string{"--columns", clickColumns, "--scalar", "min_view_time=500"},
			plain: []string{"-workload", "filter"},
			// Rows with row semantics go round the workers (row k to
			// worker k mod N).
			engines: []engine{ptfsh, ptfshGoja, ptfshPar2, nodeJS, nodeTuned, plainGo},
			ref:     "node",
		},
		keyed("B-1k", "B keyed count, 1k keys", dataSet{kind: "clicks", format: "csv", keys: 1_000}),
		keyed("B", "B keyed count, "+count(c.keys)+" keys", clicks),
		keyed("B-1M", "B keyed count, 1M keys", dataSet{kind: "clicks", format: "csv", keys: 1_000_000}),
		{
			name: "C", title: "C greeting with memory", data: clicks,
			script: "greeting.sql", fn: "bench/workloads/greeting.js",
			node:    []string{"--columns", clickColumns, "--partition", "user_id"},
			plain:   []string{"-workload", "greeting"},
			engines: []engine{ptfsh, ptfshGoja, ptfshPar2, nodeJS, nodeTuned, plainGo},
			ref:     "node",
		},
		keyed("B-jsonl", "B keyed count, JSON lines input", dataSet{kind: "clicks", format: "jsonl"}),
		{
			name: "F", title: "flights no-departure alert (event time, timers)",
			data:   dataSet{kind: "flights", format: "csv"},
			script: "flights.sql", fn: "examples/no_departure_alert.js",
			node: []string{"--columns", "date:TIMESTAMP,delay:INT,distance:INT,origin:STRING,destination:STRING",
				"--partition", "origin", "--on-time", "date", "--watermark-delay", "60000"},
			plain: []string{"-workload", "alert"},
			// Watermarks go to every worker, timers stay with their key's
			// worker, the output keeps the order of one worker.
			engines: []engine{ptfsh, ptfshPar2, nodeJS, plainGo},
			ref:     "node",
		},
		{
			// The state outgrows its cache: about a tenth of it stays in
			// memory (at 1M rows, ~217k keys whose records take ~19 MB in
			// memory), the rest goes to the store's spill area and back.
			name: "B-spill", title: "B keyed count, 1M keys: state 10× its cache",
			data:   dataSet{kind: "clicks", format: "csv", keys: 1_000_000},
			script: "keyed_count.sql", fn: "bench/workloads/keyed_count.js",
			engines: []engine{
				{name: "ptfsh, all in memory (default cache)", kind: "ptfsh"},
				{name: "ptfsh, cache of 2,000 live keys and 2 MB of records", kind: "ptfsh",
					preamble: "SET 'state.cache-size' = '2000';\nSET 'state.cache-bytes' = '2 mb';\n"},
			},
			ref: "ptfsh, all in memory (default cache)",
		},
		{
			name: "B-ckpt", title: "B keyed count: checkpoints and sinks", data: clicks,
			script: "keyed_count.sql", fn: "bench/workloads/keyed_count.js",
			// Without --state, the store is scratch and a statement takes only
			// its final checkpoint; the checkpoint interval matters with a
			// state file.
			engines: []engine{
				{name: "ptfsh --state FILE (fsync), checkpoint every 100k rows (default)", kind: "ptfsh", state: true},
				{name: "ptfsh --state FILE (fsync), interval-rows 0 (only at the end)", kind: "ptfsh", state: true,
					preamble: "SET 'execution.checkpointing.interval-rows' = '0';\n"},
				{name: "ptfsh, no state file (only the final checkpoint)", kind: "ptfsh"},
				{name: "ptfsh --state FILE, INSERT INTO a csv file", kind: "ptfsh", state: true,
					script: "keyed_count_insert.sql", sinkFile: "counts.csv"},
			},
			ref: "ptfsh --state FILE (fsync), checkpoint every 100k rows (default)",
		},
		lastURLs("L", "L last urls: a ListView per user", "last_urls.sql", "bench/workloads/last_urls.js", clicks),
		lastURLs("L-map", "L-map url counts: a MapView per user", "last_urls_map.sql", "bench/workloads/last_urls_map.js", clicks),
		{
			// SQL's GROUP BY keeps its groups in the state store behind a
			// cache of 20,000 groups (state.cache-size): its peak memory
			// stays about the same from 1k keys to 1M.
			name: "G-1M", title: "GROUP BY in SQL, 1M keys: memory bounded by the cache",
			data:   dataSet{kind: "clicks", format: "csv", keys: 1_000_000},
			script: "group_by.sql",
			engines: []engine{
				{name: "ptfsh (cache of 20k groups, default)", kind: "ptfsh"},
				{name: "ptfsh, cache of 200k groups", kind: "ptfsh", preamble: "SET 'state.cache-size' = '200000';\n"},
				{name: "ptfsh --state FILE, cache of 20k groups", kind: "ptfsh", state: true},
			},
			ref: "ptfsh (cache of 20k groups, default)",
		},
		{
			// A regular join keeps both sides' rows: 2M rows in the state
			// store behind the cache.
			name: "J-1M", title: "regular join in SQL of two 1M-row inputs: memory bounded by the cache",
			data:   dataSet{kind: "clicks", format: "csv", keys: 1_000_000},
			script: "join.sql",
			engines: []engine{
				{name: "ptfsh (cache of 20k keys, default)", kind: "ptfsh"},
				{name: "ptfsh --state FILE", kind: "ptfsh", state: true},
			},
			ref: "ptfsh (cache of 20k keys, default)",
		},
		{
			// Batch mode against streaming mode over the same bounded
			// file: a hash aggregation that emits each group once at the
			// end, against the changelog of every update.
			name: "G-batch", title: "GROUP BY in SQL, " + count(c.keys) + " keys: batch mode vs streaming mode",
			data:   clicks,
			script: "group_by.sql",
			engines: []engine{
				{name: "ptfsh, streaming mode (changelog)", kind: "ptfsh"},
				{name: "ptfsh, batch mode (final rows)", kind: "ptfsh", preamble: "SET 'execution.runtime-mode' = 'batch';\n"},
			},
			ref: "ptfsh, streaming mode (changelog)",
		},
		{
			name: "G-1k", title: "GROUP BY in SQL, 1k keys",
			data:    dataSet{kind: "clicks", format: "csv", keys: 1_000},
			script:  "group_by.sql",
			engines: []engine{{name: "ptfsh (cache of 20k groups, default)", kind: "ptfsh"}},
			ref:     "ptfsh (cache of 20k groups, default)",
		},
	}
	// The SQL operators' state in the store: a GROUP BY of about one group
	// per row and a self-join keeping every row of both sides, with the
	// default cache (20,000 keys per table) and a small one; the peak RSS
	// column shows what the cache bounds.
	for _, s := range []struct{ name, title, script string }{
		{"S-group", "SQL GROUP BY, about one group per row (1M keys)", "sql_group_distinct.sql"},
		{"S-join", "SQL regular join of the input with itself (1M keys)", "sql_join.sql"},
	} {
		ws = append(ws, workload{
			name: s.name, title: s.title, data: dataSet{kind: "clicks", format: "csv", keys: 1_000_000},
			script: s.script, fn: "bench/workloads/keyed_count.js",
			engines: []engine{
				{name: "ptfsh, default cache", kind: "ptfsh"},
				{name: "ptfsh, cache of 2,000 keys", kind: "ptfsh", preamble: "SET 'state.cache-size' = '2000';\n"},
			},
			ref: "ptfsh, default cache",
		})
	}
	if c.kafka {
		ws = append(ws, kafkaWorkloads()...)
	}
	if c.flightsParquet != "" {
		// F over a real Parquet file (the flights-3m): ptfsh only,
		// since the Node harness reads no Parquet; all its rows, whatever
		// -rows says.
		ws = append(ws, workload{
			name: "F-parquet", title: "flights no-departure alert over " + filepath.Base(c.flightsParquet),
			data:   dataSet{kind: "flights", format: "parquet", path: c.flightsParquet},
			script: "flights_parquet.sql", fn: "examples/no_departure_alert.js",
			engines: []engine{ptfsh, ptfshPar2},
			ref:     "ptfsh",
		}, workload{
			// The data engineer's script: two INSERTs of one
			// statement set over the same file, a window aggregation and a
			// PTF with ORDER BY, each joined to a small table.
			name: "workflow", title: "flights workflow over " + filepath.Base(c.flightsParquet) + " (TUMBLE + GROUP BY, DelayStreak ORDER BY, joins, Parquet and CSV sinks)",
			data:   dataSet{kind: "flights", format: "parquet", path: c.flightsParquet},
			script: "flights_workflow.sql", fn: "examples/delay_streak.js",
			files:   []string{"airports.csv"},
			engines: []engine{ptfsh, ptfshGoja, duckDB("flights_workflow.duckdb.sql")},
			ref:     "duckdb",
			sinks: []sink{
				{file: "hourly.parquet", schema: "origin STRING, airport STRING, window_start TIMESTAMP(3), flights BIGINT, delayed BIGINT, total_delay BIGINT, max_delay INT"},
				{file: "streaks.csv"},
			},
		}, workload{
			name: "window", title: "window aggregation over " + filepath.Base(c.flightsParquet) + " (TUMBLE 1 hour, GROUP BY origin, one worker)",
			data:   dataSet{kind: "flights", format: "parquet", path: c.flightsParquet},
			script: "flights_window.sql", fn: "examples/delay_streak.js",
			engines: []engine{ptfsh, duckDB("flights_window.duckdb.sql")},
			ref:     "duckdb",
		})
	}
	return ws
}

// count prints a key count: 1k, 100k, 1M, 2500.
func count(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1_000 && n%1_000 == 0:
		return fmt.Sprintf("%dk", n/1_000)
	}
	return fmt.Sprint(n)
}

// lastURLs is a workload of list or map state under ptfsh only: without
// a state file (a scratch store, only the final checkpoint), with one
// (a checkpoint every 100k rows), and at two workers.
func lastURLs(name, title, script, fn string, data dataSet) workload {
	return workload{
		name: name, title: title, data: data, script: script, fn: fn,
		engines: []engine{
			{name: "ptfsh, no state file", kind: "ptfsh"},
			{name: "ptfsh --state FILE (fsync)", kind: "ptfsh", state: true},
			{name: "ptfsh --parallelism 2, no state file", kind: "ptfsh", flags: []string{"--parallelism", "2"}},
		},
		ref: "ptfsh, no state file",
	}
}
