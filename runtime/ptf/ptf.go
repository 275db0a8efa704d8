package ptf

import (
	"context"
	"strings"
	"time"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// Trait is a set of Flink ArgumentTraits of one argument.
type Trait uint16

// The argument traits, named as Flink's ArgumentTrait. An argument without
// a table trait is a scalar argument.
const (
	RowSemanticTable Trait = 1 << iota
	SetSemanticTable
	OptionalPartitionBy
	PassColumnsThrough
	RequireOnTime
	SupportUpdates
	RequireUpdateBefore
	RequireFullDelete
)

var traitNames = []struct {
	t    Trait
	name string
}{
	{RowSemanticTable, "ROW_SEMANTIC_TABLE"},
	{SetSemanticTable, "SET_SEMANTIC_TABLE"},
	{OptionalPartitionBy, "OPTIONAL_PARTITION_BY"},
	{PassColumnsThrough, "PASS_COLUMNS_THROUGH"},
	{RequireOnTime, "REQUIRE_ON_TIME"},
	{SupportUpdates, "SUPPORT_UPDATES"},
	{RequireUpdateBefore, "REQUIRE_UPDATE_BEFORE"},
	{RequireFullDelete, "REQUIRE_FULL_DELETE"},
}

// ParseTrait parses a trait name such as "SET_SEMANTIC_TABLE".
func ParseTrait(s string) (Trait, bool) {
	for _, tn := range traitNames {
		if tn.name == s {
			return tn.t, true
		}
	}
	return 0, false
}

// TraitNames lists the known trait names in declaration order.
func TraitNames() []string {
	n := make([]string, len(traitNames))
	for i, tn := range traitNames {
		n[i] = tn.name
	}
	return n
}

// Has reports whether all traits of u are in t.
func (t Trait) Has(u Trait) bool { return t&u == u }

// IsTable reports whether the traits make a table argument.
func (t Trait) IsTable() bool { return t&(RowSemanticTable|SetSemanticTable) != 0 }

// String lists the traits as Flink's signature does: {TABLE, SET SEMANTIC TABLE, ...}.
func (t Trait) String() string {
	var parts []string
	if t.IsTable() {
		parts = append(parts, "TABLE")
	}
	for _, tn := range traitNames {
		if t.Has(tn.t) {
			parts = append(parts, strings.ReplaceAll(tn.name, "_", " "))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// ArgDecl declares one argument of a PTF, as Flink's @ArgumentHint does.
type ArgDecl struct {
	Name string
	// Traits are the argument's traits; without a table trait the argument
	// is a scalar argument.
	Traits Trait
	// Type is the scalar argument's type, or the declared ROW type of a
	// typed table argument (columns mapped by position). Nil for a
	// polymorphic table argument.
	Type *types.Type
	// Optional arguments may be omitted (they are NULL then).
	Optional bool
}

// IsTable reports whether the argument is a table argument.
func (a ArgDecl) IsTable() bool { return a.Traits.IsTable() }

// StateKind is the kind of a state entry.
type StateKind uint8

// State kinds: a value (POJO or ROW), Flink's ListView or MapView.
const (
	ValueState StateKind = iota
	ListState
	MapState
)

// StateDecl declares one state entry, as Flink's @StateHint does.
type StateDecl struct {
	Name string
	Kind StateKind
	// Type is the ROW type of a typed value entry, ARRAY<T> of a list, or
	// MAP<K, V> of a map; nil for an untyped value entry.
	Type *types.Type
	// TTL is the entry's time-to-live on processing time. TTLSet tells an
	// explicit declaration from none: TTLSet with TTL 0 disables TTL.
	TTL    time.Duration
	TTLSet bool
}

// FuncDef is a loaded PTF: its declaration and a way to instantiate it.
// A Loader (JavaScript) or Go code (stdlib) makes it.
type FuncDef struct {
	// Name is the name the function is registered under.
	Name string
	// File is the source file, empty for inline or Go functions.
	File string
	// Language is "JAVASCRIPT", "TYPESCRIPT" or "GO".
	Language string
	Args     []ArgDecl
	State    []StateDecl
	// Output is the declared output type: a ROW type gives named columns,
	// any other type one column EXPR$0.
	Output types.Type
	// HasOnTimer reports whether the function defines onTimer.
	HasOnTimer bool
	// Runs, when set, says how the function's calls run, for DESCRIBE
	// FUNCTION EXTENDED: "compiled", or "goja (why not compiled)" for a
	// JavaScript function.
	Runs func() string
	// New makes one instance of the function for one call site.
	New func(spec CallSpec) (PTF, error)
	// NewIsolated, when set, makes an instance that shares nothing with
	// other instances (a JavaScript runtime of its own), so that instances
	// made by it may run on separate goroutines (--parallelism). Nil: the
	// function's calls run on one goroutine.
	NewIsolated func(spec CallSpec) (PTF, error)
	// ChangelogMode makes the function a ChangelogFunction, as Flink's: it
	// resolves the output changelog mode of a call from the modes its
	// table arguments receive (by table position) and the mode the
	// consumer requires. Nil means an insert-only function.
	ChangelogMode func(tables []types.ChangelogMode, required types.ChangelogMode) (types.ChangelogMode, error)
	// Scalar, when set, makes the function a scalar function (Flink's
	// ScalarFunction): Args are scalar arguments, Output its one value,
	// and it is called in expressions, not in FROM. Scalar makes one
	// caller for one statement; the caller takes the argument values in
	// declared order and returns the result.
	Scalar func() (func(args []any) (any, error), error)
	// Infer, when set, completes the declaration at each call, as Flink's
	// type inference of built-in PTFs does: from the tables and constant
	// arguments it gives the output type and each argument's traits (for
	// conditional traits, e.g. set semantics only with PARTITION BY). The
	// standard library's TO_CHANGELOG and FROM_CHANGELOG use it.
	Infer func(call CallInfo) (CallPlan, error)
	// TimeAttributes are the output columns that stay time attributes,
	// as Infer gave them for a call (nil: none).
	TimeAttributes []string
}

// CallInfo describes a call to Infer, by argument declaration index.
type CallInfo struct {
	// Args are the constant scalar arguments (nil when absent).
	Args []any
	// Tables are the table arguments' schemas and PartitionBy their
	// PARTITION BY column names (zero for scalar arguments).
	Tables      []types.Schema
	PartitionBy [][]string
	// Changelogs are the table arguments' changelog modes and UpsertKeys
	// their upsert keys (column indexes; nil: none).
	Changelogs []types.ChangelogMode
	UpsertKeys [][]int
}

// CallPlan is what Infer decides for a call.
type CallPlan struct {
	// Output is the output type of the call (ROW or scalar).
	Output types.Type
	// Traits replace the declared traits of arguments (by declaration
	// index); a zero entry keeps the declared ones.
	Traits []Trait
	// TimeAttributes name the output columns that stay time attributes
	// of the input (Flink's built-in TO_CHANGELOG forwards its input's
	// rowtime column, which an OVER window may then order by).
	TimeAttributes []string
}

// CallSpec describes a bound call of a PTF: everything an instance may
// prepare once before rows arrive.
type CallSpec struct {
	// Ctx is cancelled when the statement is (Ctrl-C); an instance stops
	// a running call when it is.
	Ctx context.Context
	// UID identifies the call's state.
	UID string
	// Args holds each argument's value by declaration index: the bound
	// scalar value (nil when NULL or omitted) and nil for table arguments.
	Args []any
	// Tables holds each table argument's schema by declaration index
	// (the zero Schema for scalar arguments).
	Tables []types.Schema
	// Output is the function's own output columns (no key prefix, no rowtime).
	Output types.Schema
}

// PTF is one instance of a process table function. The runtime calls it
// from one goroutine at a time. Errors returned stop the statement.
type PTF interface {
	// Eval is called once per input row; ctx.Input() tells which table
	// argument the row belongs to. A PTF without table arguments is called
	// once, with an empty row and ctx.Input() == -1.
	Eval(ctx *Context, row types.Row) error
	// OnTimer is called when one of the instance's timers fires.
	OnTimer(ctx *Context) error
}

// Batcher is implemented by a PTF whose calls cost less when many of them
// run inside one Batch: fn is a run of the operator's steps, each of which
// may call Eval or OnTimer (script's: one JavaScript frame under them,
// see script/batch.go). Batch returns fn's error.
type Batcher interface {
	Batch(fn func() error) error
}

// StateCodec is implemented by a PTF that declares state. Value state is
// kept live between calls as the instance's own objects (for JavaScript,
// JS objects): the runtime caches them per partition key and asks the
// codec only to make a fresh default and to convert at checkpoints.
type StateCodec interface {
	// NewState returns a fresh default value for state entry i.
	NewState(i int) (any, error)
	// AppendState appends the encoding of the live value of entry i to b
	// and returns the extended buffer (b may be nil).
	AppendState(b []byte, i int, v any) ([]byte, error)
	// DecodeState converts bytes written by AppendState back to a live value.
	DecodeState(i int, data []byte) (any, error)
}

// StateDescriber is implemented by a StateCodec, and by a Loader whose
// functions' codecs share one encoding, that can show encoded state to a
// person (SHOW STATE, the trace). DescribeState renders bytes written by
// AppendState as text (script's: JSON with tagged values); ok is false
// for bytes it cannot read, which are then shown as hex.
type StateDescriber interface {
	DescribeState(data []byte) (text string, ok bool)
}

// TableSemantics describes a table argument as Flink's TableSemantics does.
type TableSemantics struct {
	// DataType is the table's row type.
	DataType types.Type
	// PartitionBy are the indexes of the PARTITION BY columns.
	PartitionBy []int
	// OrderBy are the indexes of the ORDER BY columns, Descending their directions.
	OrderBy    []int
	Descending []bool
	// TimeColumn is the index of the on_time column, or -1.
	TimeColumn int
	// Changelog is the table's changelog mode as the function receives it.
	Changelog types.ChangelogMode
}

// Loader loads function files. It is the only way a Session reaches a
// scripting engine.
type Loader interface {
	// Load compiles the function in src (read from file, which may be empty
	// for inline sources) and returns its definition. name is the name the
	// function is registered under.
	Load(name, file, src string) (*FuncDef, error)
}
