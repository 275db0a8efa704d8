// Package settings is the table of every key that SET accepts: its
// default, what it does, the package that reads it, and the parser that
// checks a value and gives its typed form. SET of a key that is not in the
// table is an error that suggests the closest key, except for the Flink
// options that ptfsh accepts and ignores, which SET takes with a note:
// those with a reason of their own (Ignored) and every other option of
// Flink's documentation (flink_keys.go, by groups: IgnoredGroups). The
// tables of docs/settings.md are generated from this one:
// tests/settings_doc_test.go keeps them equal.
//
// The package is a leaf (the standard library, runtime/types and the text
// parsers of runtime/textparse only), so that any package may read the
// table.
package settings

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ptfsh/ptfsh/internal/spell"
	"github.com/ptfsh/ptfsh/runtime/textparse"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// Setting is one key of SET.
type Setting struct {
	Key string
	// Default is the value in force while the key is not set, as
	// docs/settings.md lists it; "" means none (Doc says what happens then). For
	// keys that flags of the ptfsh command also set (--format,
	// --parallelism, --trace, the limits), it is the command's default;
	// SET; shows the value in force.
	Default string
	// Doc says in one line what the setting does (the column of
	// docs/settings.md).
	Doc string
	// Owner is the package that reads the setting.
	Owner string
	// Values are the values of an enumeration (tab completion offers
	// them); nil for other settings.
	Values []string
	// Parse checks a value and returns its typed form, the type that Get
	// is asked for; nil takes any text (a string). Its error says what the
	// setting needs: a Need reads "SET 'key' <need>, not 'value'", any
	// other error "SET 'key': <error>".
	Parse func(string) (any, error)
}

// Need is a parse error that says what a setting needs, such as "is 'on'
// or 'off'": Check shows it as SET 'key' is 'on' or 'off', not 'value'.
type Need string

func (n Need) Error() string { return string(n) }

// MaxCallDepthLimit is the largest 'ptf.max-call-depth': a frame called
// through a JavaScript built-in costs Go stack too, and Go's stack is
// limited to 1 GB.
const MaxCallDepthLimit = 100_000

// formats are the result formats of runtime/format (format.FormatNames).
var formats = []string{"tableau", "changelog", "table", "rows", "csv", "json"}

// table lists every setting, sorted by key.
var table = []Setting{{
	Key:     "execution.checkpointing.interval",
	Default: "10 s",
	Doc:     "wall-clock time between checkpoints of state, source positions and file sinks while a statement runs (with a state file); 0: by rows only",
	Owner:   "runtime/session",
	Parse:   func(v string) (any, error) { return types.ParseDuration(v) },
}, {
	Key:     "execution.checkpointing.interval-rows",
	Default: "100000",
	Doc:     "source rows between checkpoints of state and file sinks; 0: only at the end of a statement",
	Owner:   "runtime/session",
	Parse:   wholeNumber[int64]("needs a whole number of rows (0: only at the end)", 0, math.MaxInt64),
}, {
	Key:     "execution.runtime-mode",
	Default: "streaming",
	Doc:     "batch: a query over bounded tables gives its final rows only (no changelog), sorted and grouped by batch operators; unbounded tables and PTF calls are refused, as in Flink (see Batch mode)",
	Owner:   "runtime/session",
	Values:  []string{"streaming", "batch"},
	Parse:   oneOf(false, "streaming", "batch"),
}, {
	Key:     "parallelism.default",
	Default: "1",
	Doc:     "how many workers a PTF call partitioned by key runs on (--parallelism; see Parallelism)",
	Owner:   "runtime/exec",
	Parse:   wholeNumber[int]("needs a whole number of at least 1", 1, math.MaxInt),
}, {
	Key:     "pipeline.auto-watermark-interval",
	Default: "200 ms",
	Doc:     "wall-clock time between the watermarks of a live source (stdin, a followed file or folder, an unbounded topic); 0: after every row, as file sources",
	Owner:   "runtime/session",
	Parse:   func(v string) (any, error) { return types.ParseDuration(v) },
}, {
	Key:     "ptf.compile",
	Default: "on",
	Doc:     "on: eval and onTimer run compiled to Go when they stay within the subset that compiles (docs/javascript.md); off: always on goja",
	Owner:   "script",
	Values:  []string{"on", "off"},
	Parse:   onOff,
}, {
	Key:     "ptf.eval-timeout",
	Default: "10 s",
	Doc:     "stops a call of eval or onTimer that runs longer; 0: no limit",
	Owner:   "script",
	Parse:   func(v string) (any, error) { return ParseEvalTimeout(v) },
}, {
	Key:     "ptf.inline-import-dir",
	Default: "",
	Doc:     "a folder whose code and data files functions written inline ($$ ... $$) may import; unset: only the stdlib",
	Owner:   "script",
	Parse:   func(v string) (any, error) { return strings.TrimSpace(v), nil },
}, {
	Key:     "ptf.max-call-depth",
	Default: "5000",
	Doc:     fmt.Sprintf("stops a call that recurses deeper (1 to %d)", MaxCallDepthLimit),
	Owner:   "script",
	Parse: func(v string) (any, error) {
		v = strings.TrimSpace(v)
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxCallDepthLimit {
			return nil, fmt.Errorf("invalid call depth %q: want a whole number from 1 to %d", v, MaxCallDepthLimit)
		}
		return n, nil
	},
}, {
	Key:     "ptf.max-memory",
	Default: "1 gb",
	Doc:     "stops a call that keeps more new memory (b, kb, mb, gb, tb); 0: no limit",
	Owner:   "script",
	Parse:   func(v string) (any, error) { return ParseSize(strings.TrimSpace(v)) },
}, {
	Key:     "ptf.max-rows-per-call",
	Default: "1000000",
	Doc:     "stops a call that collects more rows; 0: no limit",
	Owner:   "script",
	Parse: func(v string) (any, error) {
		v = strings.TrimSpace(v)
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("invalid number of rows %q: want a whole number such as 100000, or 0 for no limit", v)
		}
		return n, nil
	},
}, {
	Key:     "ptf.max-source-size",
	Default: "16 mb",
	Doc:     "the largest function file or file it imports (b, kb, mb, gb)",
	Owner:   "script",
	Parse: func(v string) (any, error) {
		n, err := ParseSize(strings.TrimSpace(v))
		if err == nil && n == 0 {
			return nil, fmt.Errorf("a function source needs some bytes (the default is 16 mb)")
		}
		return n, err
	},
}, {
	Key:     "ptfsh.dialect",
	Default: "ptfsh",
	Doc:     "flink: refuses, at its line and column, what a Flink SQL client or Flink's readers would refuse (ptfsh's options, inferred columns, shell statements, Flink's reserved words as names, ...; see Running on Flink); warn: runs it with a note; ptfsh: runs it (--dialect)",
	Owner:   "runtime/session",
	Values:  []string{"ptfsh", "warn", "flink"},
	Parse:   oneOf(false, "ptfsh", "warn", "flink"),
}, {
	Key:     "ptfsh.echo",
	Default: "off",
	Doc:     "on: a script prints each statement on stderr before its result, and the Flink SQL client's [INFO] line after a statement without one (--echo)",
	Owner:   "runtime/session",
	Values:  []string{"on", "off"},
	Parse:   onOff,
}, {
	Key:     "ptfsh.end-of-input",
	Default: "true",
	Doc:     "false: a statement ends after its input without the final watermark, and timers and state stay for the next run (Flink's stop-with-savepoint)",
	Owner:   "runtime/session",
	Values:  []string{"true", "false"},
	Parse: func(v string) (any, error) {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, Need("needs 'true' or 'false'")
		}
		return b, nil
	},
}, {
	Key:     "ptfsh.format",
	Default: "tableau",
	Doc:     "the result format: " + strings.Join(formats, ", ") + " (--format); tableau, changelog and table also set the result mode, csv and json of an updating result in tableau or changelog mode have an op column",
	Owner:   "runtime/session",
	Values:  formats,
	Parse:   parseFormat,
}, {
	Key:     "ptfsh.lineage",
	Default: "off",
	Doc:     "on: a query's result gets a last column, why, with what led a PTF call to emit each row (its input row or timer), and each call says at the end why rows did not come (late rows, ORDER BY drops, silent keys, pending timers); EXPLAIN WHY does it for one query",
	Owner:   "runtime/session",
	Values:  []string{"on", "off"},
	Parse:   onOff,
}, {
	Key:     "ptfsh.memory-limit",
	Default: "auto",
	Doc:     "stops a statement when the live heap of the process passes this size (b, kb, mb, gb, tb), with an error naming what keeps rows in memory (the state caches, the table result mode), instead of running out of memory; auto: 60 % of the memory the process may use (its cgroup's limit, the address space left under ulimit -v, the machine's memory); 0: no limit",
	Owner:   "runtime/exec",
	Parse: func(v string) (any, error) {
		if strings.EqualFold(strings.TrimSpace(v), "auto") {
			return int64(-1), nil
		}
		return ParseSize(strings.TrimSpace(v))
	},
}, {
	Key:     "ptfsh.on-error",
	Default: "stop",
	Doc:     "continue: a script prints an error and goes on with its next statement",
	Owner:   "runtime/session",
	Values:  []string{"stop", "continue"},
	Parse:   oneOf(false, "stop", "continue"),
}, {
	Key:     "ptfsh.pager",
	Default: "off",
	Doc:     "at the prompt, results go through a pager: on ($PAGER, else less -SRFX: wide rows scroll sideways, one screen prints as it is) or a command; off",
	Owner:   "cmd/ptfsh",
	Parse: func(v string) (any, error) {
		v = strings.TrimSpace(v)
		if v == "" {
			return nil, Need("is 'on', 'off' or a pager command such as 'less -S'")
		}
		return v, nil
	},
}, {
	Key:     "ptfsh.parallel.workers",
	Default: "auto",
	Doc:     "how the workers of a parallel PTF call (parallelism.default above 1) run: concurrent, each on a thread of its own; in-turn, one after the other on the statement's thread (no hand-over between threads); auto: concurrent, switching to in-turn while that hands rows out faster (a busy machine, or a function cheaper than the hand-over), measured as the statement runs (see Parallelism); the output is the same",
	Owner:   "runtime/exec",
	Values:  []string{"auto", "concurrent", "in-turn"},
	Parse:   oneOf(false, "auto", "concurrent", "in-turn"),
}, {
	Key:     "ptfsh.predict",
	Default: "off",
	Doc:     "on: at the prompt, before a step of a stream that a running query reads, the shell asks what the query will emit, then shows it and scores the guess (see Teaching)",
	Owner:   "runtime/session",
	Values:  []string{"on", "off"},
	Parse:   onOff,
}, {
	Key:   "ptfsh.processing-time",
	Doc:   "fixes the processing-time clock (state TTL, datagen) at epoch milliseconds or a time such as '2025-03-27 12:00:00'; unset: the wall clock",
	Owner: "runtime/exec",
	Parse: func(v string) (any, error) { return textparse.TimeSetting(v) },
}, {
	Key:   "ptfsh.seed",
	Doc:   "a whole number that makes Math.random, Date.now, RAND() and datagen tables deterministic (--seed seeds the functions only); unset: random",
	Owner: "script, runtime/connector",
	Parse: func(v string) (any, error) {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, Need("needs a whole number (a 64-bit integer)")
		}
		return n, nil
	},
}, {
	Key:   "ptfsh.shuffle-seed",
	Doc:   "a whole number (not 0) that reorders, with this seed, what Flink does not order: rows of different partition keys between two watermarks, the rows of a table with row semantics, and the turns of several table arguments (ptfsh test --shuffle); unset: the one order",
	Owner: "runtime/exec",
	Parse: func(v string) (any, error) {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, Need("needs a whole number (a 64-bit integer)")
		}
		return n, nil
	},
}, {
	Key:   "ptfsh.timeline",
	Doc:   "a file (.svg or .html) that each query after it draws its timeline into: rows, watermark, timers, output by key over event time (see Teaching); unset: none",
	Owner: "runtime/session",
	Parse: func(v string) (any, error) {
		v = strings.TrimSpace(v)
		if l := strings.ToLower(v); v != "" && !strings.HasSuffix(l, ".svg") && !strings.HasSuffix(l, ".html") && !strings.HasSuffix(l, ".htm") {
			return nil, Need("names a file ending in .svg or .html (the picture's format)")
		}
		return v, nil
	},
}, {
	Key:     "ptfsh.timeline.view",
	Default: "event",
	Doc:     "what EXPLAIN TIMELINE and the timeline file draw: event (event time across, a lane per key) or arrival (event time up against arrival time across, the watermark as a curve, late rows below it)",
	Owner:   "runtime/session",
	Values:  []string{"event", "arrival"},
	Parse:   oneOf(false, "event", "arrival"),
}, {
	Key:     "ptfsh.timers.max-firings",
	Default: "1000000",
	Doc:     "stops an onTimer that keeps registering past timers after this many firings, at one watermark, of timers it registered; 0: no limit",
	Owner:   "runtime/exec",
	Parse:   wholeNumber[int]("needs a whole number (0: no limit)", 0, math.MaxInt),
}, {
	Key:     "ptfsh.trace",
	Default: "off",
	Doc:     "on: shows every call of eval and onTimer on stderr (--trace)",
	Owner:   "runtime/exec",
	Values:  []string{"on", "off"},
	Parse:   onOff,
}, {
	Key:   "ptfsh.trace.function",
	Doc:   "traces only the calls of this function (as the query calls it), and turns the trace on; unset: every function",
	Owner: "runtime/exec",
	Parse: func(v string) (any, error) { return strings.TrimSpace(v), nil },
}, {
	Key:   "ptfsh.trace.key",
	Doc:   "traces only the calls for this partition key, written as the trace prints it (Bob; Bob, 3 for two columns), and turns the trace on; unset: every key",
	Owner: "runtime/exec",
	Parse: func(v string) (any, error) { return strings.TrimSpace(v), nil },
}, {
	Key:     "ptfsh.trace.late",
	Default: "off",
	Doc:     "on: traces only the calls of eval for late rows and the rows ORDER BY drops, and turns the trace on",
	Owner:   "runtime/exec",
	Values:  []string{"on", "off"},
	Parse:   onOff,
}, {
	Key:     "ptfsh.watermark.every-rows",
	Default: "1",
	Doc:     "a source with a watermark emits it after this many rows",
	Owner:   "runtime/connector",
	Parse:   wholeNumber[int64]("needs a whole number of at least 1", 1, math.MaxInt64),
}, {
	Key:     "sql-client.display.max-column-width",
	Default: "30",
	Doc:     "the width of tableau, changelog and table columns of types without a width of their own (STRING, ARRAY, ...): longer values are cut with ...",
	Owner:   "runtime/format",
	Parse:   wholeNumber[int]("needs a whole number of at least 1", 1, 1<<20),
}, {
	Key:     "sql-client.execution.max-table-result.rows",
	Default: "1000000",
	Doc:     "the most rows the table result mode keeps in memory to print a result's final table; a result with more stops with an error that says so (Flink's client drops the oldest instead); 0: no limit",
	Owner:   "runtime/session",
	Parse:   wholeNumber[int64]("needs a number of rows (0: no limit)", 0, math.MaxInt64),
}, {
	Key:     "sql-client.execution.result-mode",
	Default: "tableau",
	Doc:     "tableau and changelog print every change with its op, table materialises the final rows (in any format; memory as the final table)",
	Owner:   "runtime/session",
	Values:  resultModes,
	Parse:   parseResultMode,
}, {
	Key:     "sql-client.verbose",
	Default: "false",
	Doc:     "true: as ptfsh.echo unless that is set, a script prints each statement before its result (errors always show their position and cause chain)",
	Owner:   "runtime/session",
	Values:  []string{"true", "false"},
	Parse: func(v string) (any, error) {
		switch {
		case strings.EqualFold(v, "true"):
			return true, nil
		case strings.EqualFold(v, "false"):
			return false, nil
		}
		return nil, Need("is 'true' or 'false'")
	},
}, {
	Key:     "state.cache-bytes",
	Default: "256 mb",
	Doc:     "bytes of encoded value state a call keeps in memory for the keys not live (b, kb, mb, gb); past it they go to the store",
	Owner:   "runtime/exec",
	Parse:   func(v string) (any, error) { return ParseSize(strings.TrimSpace(v)) },
}, {
	Key:     "state.cache-size",
	Default: "20000",
	Doc:     "partition keys whose value state a call keeps live (records or JS objects); the others wait encoded in memory (256 MiB a call), then in the store",
	Owner:   "runtime/exec",
	Parse:   wholeNumber[int]("needs a number of keys of at least 1", 1, math.MaxInt),
}, {
	Key:     "state.on-incompatible",
	Default: "fail",
	Doc:     "discard: a uid whose stored state no longer fits the function's declaration starts afresh",
	Owner:   "runtime/exec",
	Values:  []string{"fail", "discard"},
	Parse:   oneOf(true, "fail", "discard"),
}, {
	Key:   "state.path",
	Doc:   "keeps state in this bbolt file from now on (as --state); unset: the store the shell started with",
	Owner: "runtime/session",
	// Parse is nil: the session opens the file.
}, {
	Key:     "state.source-positions",
	Default: "keep",
	Doc:     "reset: a file source whose file changed other than by growing starts again from the beginning instead of failing",
	Owner:   "runtime/connector",
	Values:  []string{"keep", "reset"},
	Parse: func(v string) (any, error) {
		if v != "keep" && v != "reset" {
			return nil, Need("is 'keep' (resume where the last run stopped) or 'reset'")
		}
		return v, nil
	},
}, {
	Key:     "table.exec.sink.not-null-enforcer",
	Default: "ERROR",
	Doc:     "DROP: INSERT INTO drops a row with NULL in a NOT NULL column instead of failing",
	Owner:   "runtime/connector",
	Values:  []string{"ERROR", "DROP"},
	Parse: func(v string) (any, error) {
		if u := strings.ToUpper(v); u == "ERROR" || u == "DROP" {
			return u, nil
		}
		return nil, Need("is 'ERROR' or 'DROP'")
	},
}, {
	Key:     "table.exec.source.idle-timeout",
	Default: "0 ms",
	Doc:     "a live source (stdin, a followed file or folder, an unbounded topic) with no rows for this long, on processing time, is idle: it holds no watermark back until its next row; 0: never",
	Owner:   "runtime/session",
	Parse:   func(v string) (any, error) { return types.ParseDuration(v) },
}, {
	Key:     "table.exec.state.ttl",
	Default: "0 ms",
	Doc:     "the time-to-live of state entries that declare none, on processing time; 0: kept for ever",
	Owner:   "runtime/session",
	Parse:   func(v string) (any, error) { return types.ParseDuration(v) },
}, {
	Key:     "table.local-time-zone",
	Default: "UTC",
	Doc:     "the session time zone: TIMESTAMP_LTZ values print, cast and read their fields (EXTRACT, DATE_FORMAT, FLOOR) as wall-clock times there, a TIMESTAMP or string cast to TIMESTAMP_LTZ is read there, and FROM_UNIXTIME, UNIX_TIMESTAMP(s), LOCALTIMESTAMP, CURRENT_DATE and CURRENT_TIME follow it; a zone ID (Asia/Shanghai), UTC or GMT+hh:mm",
	Owner:   "runtime/session",
	Parse:   func(v string) (any, error) { return types.LoadZone(v) },
}}

// Ignored is a Flink option that SET accepts with a note and ptfsh
// ignores.
type Ignored struct {
	Key    string
	Reason string // why ptfsh has no use for it
}

// ignored lists the Flink options ptfsh accepts and ignores, sorted by key.
var ignored = []Ignored{
	{"pipeline.name", "ptfsh runs no named jobs"},
	{"restart-strategy.type", "a failed statement stops; ptfsh does not restart it"},
	{"state.backend.type", "state lives in memory or in a bbolt file: state.path"},
	{"table.dml-sync", "INSERT INTO always runs to its end before the next statement"},
	{"table.exec.mini-batch.enabled", "ptfsh has no mini-batch aggregation"},
}

// sqlClientKeys are the options of Flink 2.3.0's SQL client
// (SqlClientOptions), whose module is not among those flinkKeys is made
// from.
var sqlClientKeys = []string{
	"sql-client.display.color-schema",
	"sql-client.display.max-column-width",
	"sql-client.display.show-line-numbers",
	"sql-client.execution.max-table-result.rows",
	"sql-client.execution.result-mode",
	"sql-client.verbose",
}

// IgnoredGroup is a group of Flink's options, by the start of their keys,
// that SET accepts with a note, for one reason.
type IgnoredGroup struct {
	Prefix string // "" for every other documented option
	Reason string
}

// ignoredGroups say why ptfsh ignores the documented Flink options that
// are neither settings nor in ignored, by the longest prefix of their key.
var ignoredGroups = []IgnoredGroup{
	{"execution.checkpointing.", "ptfsh checkpoints by source rows into its state file (execution.checkpointing.interval-rows, state.path)"},
	{"state.", "state lives in memory or in a bbolt file (state.path), not in one of Flink's state backends"},
	{"table.optimizer.", "Flink's optimizer chooses among plans; ptfsh plans each query one way"},
	{"table.exec.", "an option of how Flink runs SQL operators; ptfsh runs its own"},
	{"table.", "an option of Flink's table environment that ptfsh has no use for"},
	{"sql-client.", "an option of Flink's SQL client that ptfsh's shell has no use for"},
	{"execution.", "an option of a Flink job; ptfsh runs each statement in its own process"},
	{"pipeline.", "an option of a Flink job; ptfsh runs each statement in its own process"},
	{"restart-strategy.", "a failed statement stops; ptfsh does not restart it"},
	{"", "an option of a Flink cluster; ptfsh runs in one process, without one"},
}

// flinkKeySet holds flinkKeys and sqlClientKeys.
var flinkKeySet = func() map[string]bool {
	m := make(map[string]bool, len(flinkKeys)+len(sqlClientKeys))
	for _, k := range flinkKeys {
		m[k] = true
	}
	for _, k := range sqlClientKeys {
		m[k] = true
	}
	return m
}()

// FlinkKeys returns the keys of Flink 2.3.0's documented configuration
// options that flink_keys.go holds, sorted.
func FlinkKeys() []string { return append([]string(nil), flinkKeys...) }

// IgnoredGroups returns the groups of documented Flink options that SET
// accepts with a note, each with its reason; the last (Prefix "") is every
// other documented option.
func IgnoredGroups() []IgnoredGroup { return append([]IgnoredGroup(nil), ignoredGroups...) }

// All returns every setting, sorted by key.
func All() []Setting { return append([]Setting(nil), table...) }

// Lookup returns the setting of key.
func Lookup(key string) (Setting, bool) {
	i := sort.Search(len(table), func(i int) bool { return table[i].Key >= key })
	if i < len(table) && table[i].Key == key {
		return table[i], true
	}
	return Setting{}, false
}

// IgnoredKeys returns the Flink options ptfsh accepts and ignores, sorted
// by key.
func IgnoredKeys() []Ignored { return append([]Ignored(nil), ignored...) }

// IgnoredReason says why ptfsh ignores the Flink option key: one of
// IgnoredKeys, or any other option of Flink's documentation that is no
// setting of ptfsh (IgnoredGroups). ok is false for any other key.
func IgnoredReason(key string) (reason string, ok bool) {
	for _, ig := range ignored {
		if ig.Key == key {
			return ig.Reason, true
		}
	}
	if _, isSetting := Lookup(key); isSetting || !flinkKeySet[key] {
		return "", false
	}
	for _, g := range ignoredGroups {
		if strings.HasPrefix(key, g.Prefix) {
			return g.Reason, true
		}
	}
	return "", false // not reached: the last group takes every key
}

// Keys returns the keys SET accepts: the settings and the ignored Flink
// options, sorted.
func Keys() []string {
	keys := make([]string, 0, len(table)+len(ignored))
	for _, s := range table {
		keys = append(keys, s.Key)
	}
	for _, ig := range ignored {
		keys = append(keys, ig.Key)
	}
	sort.Strings(keys)
	return keys
}

// UnknownError is SET or RESET of a key that is neither a setting nor an
// ignored Flink option.
type UnknownError struct {
	Key        string
	Suggestion string // the closest key, or ""
}

func (e *UnknownError) Error() string {
	if e.Suggestion != "" {
		return fmt.Sprintf("unknown setting '%s' (did you mean '%s'?); SET; lists the settings", e.Key, e.Suggestion)
	}
	return fmt.Sprintf("unknown setting '%s'; SET; lists the settings", e.Key)
}

// Known returns nil for a setting or an ignored Flink option, and an
// *UnknownError, with the closest key, for any other key.
func Known(key string) error {
	if _, ok := Lookup(key); ok {
		return nil
	}
	if _, ok := IgnoredReason(key); ok {
		return nil
	}
	return &UnknownError{Key: key, Suggestion: Suggest(key)}
}

// Check checks SET 'key' = 'value' and returns the typed value: the text
// itself for a setting without a parser and for an ignored Flink option.
// The error of a bad value names the key; a key that is neither has
// Known's error.
func Check(key, value string) (any, error) {
	s, ok := Lookup(key)
	if !ok {
		if err := Known(key); err != nil {
			return nil, err
		}
		return value, nil
	}
	return s.Check(value)
}

// Check checks a value of the setting and returns its typed form.
func (s Setting) Check(value string) (any, error) {
	if s.Parse == nil {
		return value, nil
	}
	v, err := s.Parse(value)
	if err == nil {
		return v, nil
	}
	var need Need
	if errors.As(err, &need) {
		return nil, fmt.Errorf("SET '%s' %s, not '%s'", s.Key, need, value)
	}
	return nil, fmt.Errorf("SET '%s': %w", s.Key, err)
}

// Get returns the typed value of key in set (the texts SET stored, which
// Check accepted), or of its default when the key is not set; ok is false
// when it is neither set nor has a default, or when its text does not
// parse (Value says why). T must be the type the key's parser returns
// (string for a key without a parser); another type, or a key that is not
// a setting, panics: it is a mistake of the program.
func Get[T any](set map[string]string, key string) (v T, ok bool) {
	v, has, err := lookup[T](set, key)
	return v, has && err == nil
}

// Value is Get for a reader that must not take a bad text for the
// default: the typed value of key in set, else its default (the zero T
// when it has none), and Check's error, which names the key, when the text
// does not parse.
func Value[T any](set map[string]string, key string) (T, error) {
	v, _, err := lookup[T](set, key)
	return v, err
}

// lookup is Get and Value: has is false when key is neither set nor has a
// default.
func lookup[T any](set map[string]string, key string) (v T, has bool, err error) {
	s, found := Lookup(key)
	if !found {
		panic(fmt.Sprintf("settings: '%s' is not a setting", key))
	}
	text, isSet := set[key]
	if !isSet {
		if s.Default == "" {
			return v, false, nil
		}
		text = s.Default
	}
	x, err := s.Check(text)
	if err != nil {
		return v, true, err
	}
	return x.(T), true, nil
}

// Suggest returns the key closest to a misspelled one, or "" when none is
// close: an edit distance of at most 2 (3 for keys longer than 15
// characters), ignoring case, or a key that ends in ".name".
func Suggest(name string) string {
	lower := strings.ToLower(name)
	limit := 3
	if len(name) > 15 {
		limit = 4
	}
	best := spell.Closest(name, Keys(), limit)
	if best == "" && lower != "" {
		for _, k := range Keys() {
			if strings.HasSuffix(k, "."+lower) {
				return k
			}
		}
	}
	return best
}

// wholeNumber parses a whole number from lo to hi; need says what a bad
// value misses.
func wholeNumber[T int | int64](need string, lo, hi T) func(string) (any, error) {
	return func(v string) (any, error) {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || T(n) < lo || T(n) > hi || int64(T(n)) != n {
			return nil, Need(need)
		}
		return T(n), nil
	}
}

// oneOf accepts one of values (ignoring case unless exact) and returns it
// as listed.
func oneOf(exact bool, values ...string) func(string) (any, error) {
	return func(v string) (any, error) {
		for _, x := range values {
			if v == x || !exact && strings.EqualFold(v, x) {
				return x, nil
			}
		}
		quoted := make([]string, len(values))
		for i, x := range values {
			quoted[i] = "'" + x + "'"
		}
		return nil, Need("is " + strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1])
	}
}

// onOff parses 'on' or 'off' (any case) as a bool.
func onOff(v string) (any, error) {
	switch {
	case strings.EqualFold(v, "on"):
		return true, nil
	case strings.EqualFold(v, "off"):
		return false, nil
	}
	return nil, Need("is 'on' or 'off'")
}

// resultModes are the Flink SQL client's result modes.
var resultModes = []string{"tableau", "changelog", "table"}

func parseResultMode(v string) (any, error) {
	f := strings.ToLower(v)
	for _, x := range resultModes {
		if f == x {
			return f, nil
		}
	}
	if _, err := parseFormat(f); err == nil {
		return nil, fmt.Errorf("%q is a format, not a result mode (valid modes: %s): SET 'ptfsh.format' = '%s'", f, strings.Join(resultModes, ", "), f)
	}
	return nil, fmt.Errorf("unknown result mode %q (valid modes: %s)", f, strings.Join(resultModes, ", "))
}

func parseFormat(v string) (any, error) {
	f := strings.ToLower(v)
	for _, x := range formats {
		if f == x {
			return f, nil
		}
	}
	return nil, fmt.Errorf("unknown format %q (valid formats: %s)", f, strings.Join(formats, ", "))
}

// ParseEvalTimeout reads 'ptf.eval-timeout': Flink's duration syntax
// ("10 s", "500 ms", "1 min") or Go's (1m30s); "0" is no limit.
func ParseEvalTimeout(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	d, err := types.ParseDuration(v)
	if err != nil {
		if gd, gerr := time.ParseDuration(v); gerr == nil && gd >= 0 {
			return gd, nil // Go's spelling: 1m30s
		}
		return 0, fmt.Errorf("invalid duration %q: want a number and a unit, such as \"10 s\", \"500 ms\" or \"1 min\", or 0 for no limit", v)
	}
	return d, nil
}

// FormatDuration writes a duration in Flink's syntax with the largest unit
// that divides it ("10 s", "1 min"); 0 is "0".
func FormatDuration(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	for _, u := range []struct {
		name string
		d    time.Duration
	}{{"d", 24 * time.Hour}, {"h", time.Hour}, {"min", time.Minute}, {"s", time.Second}, {"ms", time.Millisecond}, {"µs", time.Microsecond}} {
		if d%u.d == 0 {
			return strconv.FormatInt(int64(d/u.d), 10) + " " + u.name
		}
	}
	return strconv.FormatInt(int64(d), 10) + " ns"
}

// ParseSize reads a memory size as Flink writes one: a number and a unit
// (b, kb, mb, gb, tb, or k, m, g, t; 1 kb = 1024 bytes), or a number of
// bytes. "0" turns a limit off.
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("invalid size %q: want a number and a unit, such as \"512 mb\" or \"2 gb\", or 0 for no limit", s)
	}
	units := map[string]int64{"": 1, "b": 1, "bytes": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
		"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
		"t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40}
	u, ok := units[strings.TrimSpace(t[i:])]
	if !ok {
		return 0, fmt.Errorf("invalid size %q: unknown unit %q (use b, kb, mb, gb or tb)", s, strings.TrimSpace(t[i:]))
	}
	if n > math.MaxInt64/u {
		return 0, fmt.Errorf("invalid size %q: too large", s)
	}
	return n * u, nil
}

// FormatSize renders a size in the largest unit that divides it: 64 mb.
func FormatSize(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"tb", 1 << 40}, {"gb", 1 << 30}, {"mb", 1 << 20}, {"kb", 1 << 10}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
