package connector

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Env is what a source takes from the session when a query reads it.
type Env struct {
	// WatermarkEvery is the number of rows between generated watermarks
	// ('ptfsh.watermark.every-rows').
	WatermarkEvery int64
	// Seed and ProcessingTime are the settings 'ptfsh.seed' and
	// 'ptfsh.processing-time' as written; Has… is false when not set.
	Seed              string
	HasSeed           bool
	ProcessingTime    string
	HasProcessingTime bool
	// FunctionSeed seeds SQL's RAND() and RAND_INTEGER(bound): 'ptfsh.seed'
	// when set, else the shell's --seed; nil seeds them from the clock.
	FunctionSeed *int64
	// GeneratedRows is the number-of-rows of a datagen or faker table that
	// gives none (session.Config.GeneratedRows); 0 leaves such a table
	// unbounded.
	GeneratedRows int64
	// Flink is SET 'ptfsh.dialect' = 'flink': a file source reads as
	// Flink's readers do and refuses what they refuse (a JSON array, a CSV
	// timestamp in ISO-8601 form).
	Flink bool
	// Stdin is standard input, for tables of the stdin connector; nil
	// when the statements come from it (the prompt).
	Stdin *StdinPump
	// IdleTimeout is SET 'table.exec.source.idle-timeout': a live source
	// with no rows for that long holds no watermark back (0: never).
	IdleTimeout time.Duration
	// Zone is SET 'table.local-time-zone' (nil: UTC), the session time
	// zone of expressions (expr.Scope.Zone).
	Zone *time.Location
	// WatermarkInterval is SET 'pipeline.auto-watermark-interval': a live
	// source emits its watermark at most this often (0: after every row).
	WatermarkInterval time.Duration
	// Batch is SET 'execution.runtime-mode' = 'batch': the planner
	// refuses unbounded tables and plans batch operators, which give final
	// rows only (runtime/plan/batch.go).
	Batch bool
}

// A Factory is one connector, named by a table's 'connector' option: the
// WITH options it reads, how CREATE TABLE checks them, and how a query
// reads the table. Sinks are the filesystem connector's (NewFileSink).
type Factory interface {
	// Name is the value of the 'connector' option.
	Name() string
	// Options lists the WITH options the connector reads.
	Options() []string
	// Validate checks a table's options at CREATE TABLE, with positions in
	// the statement ct.
	Validate(t *catalog.Table, ct *sqlmini.CreateTable) error
	// Scan returns the node that reads t for a query that names it at pos.
	Scan(t *catalog.Table, env Env, pos sqlmini.Pos) (exec.Node, error)
}

// WatermarkPushDown is a connector that assigns the watermark of a
// computed column itself (Flink's SupportsWatermarkPushDown): its source
// computes the time of each record it reads and keeps a watermark per
// split (a Kafka partition), instead of one assigned after it.
type WatermarkPushDown interface {
	PushesWatermark() bool
}

// factories are the connectors of ptfsh; 'values' is the connector of a
// table given AS VALUES.
var factories = map[string]Factory{
	"filesystem":   filesystem{},
	"datagen":      datagen{},
	"values":       values{},
	"faker":        fakerFactory{},
	"print":        printConnector,
	"blackhole":    blackholeConnector,
	"kafka":        kafkaConnector{},
	"upsert-kafka": kafkaConnector{upsert: true},
	"stdin":        stdinConnector{},
}

// Lookup returns the connector of the given name.
func Lookup(name string) (Factory, bool) {
	f, ok := factories[name]
	return f, ok
}

// Names lists the connectors a CREATE TABLE ... WITH may name, sorted.
func Names() []string {
	var names []string
	for k := range factories {
		if k != "values" {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return names
}

// Of returns the connector of a catalog table: its 'connector' option, or
// 'values' for a table given AS VALUES.
func Of(t *catalog.Table) (Factory, error) {
	name := t.Options["connector"]
	if t.Kind == catalog.TableValues {
		name = "values"
	}
	f, ok := factories[name]
	if !ok {
		return nil, fmt.Errorf("table %s cannot be read", t.Name)
	}
	return f, nil
}

// checkOptions refuses WITH options that connector f does not read.
func checkOptions(f Factory, ct *sqlmini.CreateTable) error {
	known := f.Options()
	for _, o := range ct.Options {
		k := string(o.Key)
		found := false
		for _, kk := range known {
			found = found || kk == k
		}
		if !found {
			return sqlmini.Errorf(o.Pos, "unsupported option '%s' for connector '%s'; supported: %s", k, f.Name(), strings.Join(known, ", "))
		}
	}
	return nil
}

// filesystem reads and writes CSV, JSON-lines and Parquet files, as
// Flink's filesystem connector, and changelogs with an op column (CSV and
// JSON).
type filesystem struct{}

func (filesystem) Name() string { return "filesystem" }

// PushesWatermark: a WATERMARK on a computed column is the source's, so
// that a followed file paces it (pipeline.auto-watermark-interval) and a
// folder's files each have theirs, as with a column the file holds.
func (filesystem) PushesWatermark() bool { return true }

func (filesystem) Options() []string {
	return []string{"connector", "path", "format", "csv.header", "csv.field-delimiter", "csv.ignore-parse-errors",
		"csv.null-literal", "csv.quote-character", "csv.allow-comments", "json.ignore-parse-errors",
		"json.timestamp-format.standard", "timestamp-format.pattern", "changelog.op-column", "changelog-mode",
		"source.produces-delete-by-key", "sink.supports-delete-by-key", OptPathRegex, OptMonitorInterval}
}

func (f filesystem) Validate(t *catalog.Table, ct *sqlmini.CreateTable) error {
	if err := checkOptions(f, ct); err != nil {
		return err
	}
	if t.Options["path"] == "" {
		return sqlmini.Errorf(ct.Pos, "table '%s' needs a 'path' option", t.Name)
	}
	if _, err := pathRegex(t); err != nil { // folder.go
		return sqlmini.Errorf(optionPos(ct, OptPathRegex), "%w", err)
	}
	if _, err := monitorInterval(t); err != nil { // follow.go
		return sqlmini.Errorf(optionPos(ct, OptMonitorInterval), "%w", err)
	}
	switch f := t.Options["format"]; f {
	case "csv", "json":
	case FormatParquet:
		return validateParquet(t, ct) // parquet.go
	case "":
		return sqlmini.Errorf(ct.Pos, "table '%s' needs a 'format' option: 'csv', 'json' or 'parquet'", t.Name)
	default:
		return sqlmini.Errorf(ct.Pos, "unsupported format '%s'; available: csv, json, parquet", f)
	}
	return nil
}

func (filesystem) Scan(t *catalog.Table, env Env, pos sqlmini.Pos) (exec.Node, error) {
	if env.Flink && !t.FlinkReaders {
		ft := *t // the catalog's table stays as it is for the default dialect
		ft.FlinkReaders = true
		t = &ft
	}
	n := NewFileNode(t, env.WatermarkEvery, pos).(*fileNode)
	n.idleTimeout, n.wmEvery = env.IdleTimeout, env.WatermarkInterval
	return n, nil
}

// datagen generates rows, as Flink's DataGen connector (datagen.go).
type datagen struct{}

func (datagen) Name() string      { return "datagen" }
func (datagen) Options() []string { return DatagenOptions }

func (datagen) Validate(t *catalog.Table, ct *sqlmini.CreateTable) error {
	return CheckDatagenOptions(t, ct)
}

func (datagen) Scan(t *catalog.Table, env Env, _ sqlmini.Pos) (exec.Node, error) {
	return NewDatagenNode(t, env)
}

// fakerFactory generates rows from flink-faker's expressions (faker.go).
type fakerFactory struct{}

func (fakerFactory) Name() string      { return "faker" }
func (fakerFactory) Options() []string { return fakerOptions }

func (fakerFactory) Validate(t *catalog.Table, ct *sqlmini.CreateTable) error {
	return CheckFakerOptions(t, ct)
}

func (fakerFactory) Scan(t *catalog.Table, env Env, _ sqlmini.Pos) (exec.Node, error) {
	return NewFakerNode(t, env)
}

// values is a table given AS VALUES: its rows live in the catalog.
type values struct{}

func (values) Name() string { return "values" }

func (values) Options() []string {
	return []string{"connector", OptOpColumn, OptChangelog, "source.produces-delete-by-key"}
}

func (values) Validate(t *catalog.Table, ct *sqlmini.CreateTable) error {
	if c, ok := t.Options["connector"]; ok && c != "values" {
		return sqlmini.Errorf(ct.Pos, "a table given AS VALUES has no connector (or 'connector' = 'values'), not '%s'", c)
	}
	for k := range t.Options {
		if k != "connector" && !IsChangelogOption(k) {
			return sqlmini.Errorf(ct.Pos, "unsupported option '%s' for a table given AS VALUES", k)
		}
	}
	return nil
}

func (values) Scan(t *catalog.Table, env Env, _ sqlmini.Pos) (exec.Node, error) {
	if t.Stream {
		return NewStreamScan(t, env), nil // stream.go
	}
	return ChangelogValues(t, &exec.ValuesNode{Sch: t.Schema, Events: t.Events, Wm: t.Watermark, Every: env.WatermarkEvery}), nil
}
