// Package script loads Process Table Functions written in JavaScript or
// TypeScript and runs them on goja. It is the only package that imports
// goja (and esbuild): the runtime reaches it through runtime.Loader,
// runtime.PTF and runtime.StateCodec.
//
// # Basics
//
// An Engine owns one goja runtime (one per session) and implements
// runtime.Loader. Load compiles a function once:
//
//	e := script.NewEngine(script.Options{ParseType: runtime.ParseType, FormatRow: runtime.FormatRow})
//	def, err := e.Load("count_clicks", "count_clicks.js", src)
//	ptf, err := def.New(spec) // one instance per call site: runtime.PTF and runtime.StateCodec
//
// A source is an ES module whose default export is the declaration
// (export default { output, args, state, eval, onTimer, changelog }), a
// CommonJS module (module.exports = {...}), or a plain script whose last
// expression is the declaration (({ ... }), the usual form of an inline
// CREATE FUNCTION ... AS $$ ... $$). A .ts, .mts, .cts or .tsx file is
// TypeScript. esbuild bundles the source with what it imports into one
// script (target ES2022, which goja runs) and a source map. A function may
// import files beside it (relative paths) and modules of the embedded
// stdlib (ptfsh/NAME, from Options.Stdlib); any other import, require()
// and import() are load errors naming the import.
//
// The declaration is validated as Flink validates its annotations: the
// output type, argument traits (runtime.ParseTrait names) and types, the
// reserved names on_time and uid, state kinds, types and TTLs (Flink's
// duration syntax). Type strings go through Options.ParseType. The
// changelog declaration is kept by the Engine: see Engine.Changelog and
// Engine.ChangelogMode.
//
// # Calls
//
// Eval calls eval(ctx, state, args) with the declaration as this:
//
//   - ctx has Flink's Context methods (collect, clearState, clearAllState,
//     clearAllTimers, clearAll, currentTimer, tableSemanticsFor,
//     getChangelogMode, timeContext), each delegating to the call's
//     *runtime.Context.
//   - state has one property per state entry: the live JS value of the
//     current key, which the runtime caches between calls. Changes in
//     place are kept; assigning a property replaces the value
//     (Context.SetState).
//   - args has one property per argument: a scalar argument's value
//     (converted once per instance), the row of the table argument being
//     processed, and null for the other table arguments.
//
// OnTimer calls onTimer(ctx, state, args) the same way, with every table
// argument null. ctx, state and args are views of the current call, reused
// from call to call: a function must not use them after its call returns
// (doing so throws a TypeError).
//
// List and map state (kind "list" and "map", Flink's ListView and MapView)
// are declared and validated, but for now eval receives a plain Array or
// Map that lives in memory like a value entry.
//
// # How values convert
//
// Rows and scalar arguments reach JavaScript by the rules of DESIGN §11
// (convert.go has the table): numbers for the numeric types (a BIGINT
// beyond ±2^53 becomes a BigInt), strings, booleans, Date for DATE,
// TIMESTAMP and TIMESTAMP_LTZ, milliseconds for INTERVAL DAY TO SECOND and
// TIME, months for INTERVAL YEAR TO MONTH, Array, Map, row objects for
// ROW, an Array of names for DESCRIPTOR, Uint8Array for BYTES, null for
// NULL. Strings up to 64 bytes are interned in a small cache, so repeated
// keys and URLs are converted once.
//
// ctx.collect converts back by the output column types, strictly: a
// string is not a number, a fraction is not an integer, a value out of the
// type's range or a null in a NOT NULL column is an error that names the
// column and the value:
//
//	collect: column "click_count" (BIGINT): cannot use "abc" (string)
//
// Times are epoch milliseconds; a Date is accepted wherever a time is.
// The end-of-input watermark (Long.MAX_VALUE) reads as
// Number.MAX_SAFE_INTEGER, and a timer registered at that value or later
// is registered at Long.MAX_VALUE.
//
// # When rows are snapshotted
//
// A row reaches JavaScript as a row object: a goja DynamicObject whose
// properties read the fields of the Go row on access (no JS object is
// built per row) and whose prototype has Flink's Row methods (getField,
// getFieldAs, getKind, getArity, getFieldNames, toString). Each call gets
// a new row object, bound to the Go row it was made for. Rows given to a
// PTF are immutable (the runtime does not reuse their field slices), so
// the Go row is already the snapshot: a row the function keeps beyond its
// call (in state, in a variable) keeps reading the same values, at the
// cost of no copy. Field values that become JS objects (Date, Array, Map,
// nested rows) are converted on first access and then cached in the row
// object, so row.ts === row.ts. Row objects are read-only; {...row} makes
// a plain copy. Reusing one row object per table argument instead (as
// PERF-NOTES suggests) would save one allocation per row and make any
// kept row change under the function, so we don't.
//
// # State encoding
//
// The runtime keeps state live as JS values and asks the instance, as a
// runtime.StateCodec, for a fresh default (NewState: a deep copy of the
// declared default, an object of nulls for a ROW type, {} otherwise, [] for
// a list and a Map for a map entry) and to convert at checkpoints
// (EncodeState and DecodeState). The encoding is a version byte and JSON
// with tags for what JSON lacks (undefined, NaN and infinities, -0,
// BigInt, Date, Map, Set, Uint8Array, RowKind, row objects); see
// statecodec.go. Class instances come back as plain objects; functions,
// symbols and cycles cannot be kept in state.
//
// # Errors
//
// Every error of this package is an *Error whose Error() is one line,
// file:line:col: func: message, positioned in the user's own file through
// the source map (an inline function's file is "<inline NAME>"):
//
//	greeting.js:14:5: greeting: TypeError: Cannot read property 'x' of undefined
//
// Load errors are esbuild's and goja's syntax errors, import errors and
// declaration errors (these point at the offending literal found in the
// source). A JS exception in a call keeps the JS stack, mapped the same
// way, in Error.Stack (Detail prints both). An error the runtime returned
// inside a call (collect's row kind check, timers) is thrown into
// JavaScript as a GoError, which the function may catch; uncaught, the
// *Error unwraps to it, so errors.Is works through the function.
//
// # Interrupts and timeouts
//
// Cancelling the context of a CallSpec interrupts the instance's running
// call (context.AfterFunc, registered once per instance); the call fails
// with an *Error that wraps runtime.ErrInterrupted and points at the line
// it was running. Options.EvalTimeout (SET 'ptf.eval-timeout', see
// Engine.SetEvalTimeout) interrupts a call that runs longer; a watchdog
// goroutine checks the running call at a tenth of the timeout, so a call
// costs no timer of its own. The top-level code of a function being
// loaded is subject to the timeout too.
//
// # Sandbox
//
// The global scope is goja's: the ECMAScript built-ins and nothing else —
// no require, process, module, fetch, setTimeout, file, network or
// environment access. ptfsh adds RowKind, and console (log, info, warn,
// error, debug) only when Options.Console is set. Math.random is seeded by
// Options.Seed for deterministic runs.
//
// # Goroutines
//
// An Engine and everything it makes must be used from one goroutine at a
// time; only interrupts come from other goroutines.
package script
