// Package script loads Process Table Functions written in JavaScript or
// TypeScript and runs them on goja. It is the only package that imports
// goja (and esbuild, and regexp2, goja's backtracking regex engine): the
// runtime packages reach it through [ptf.Loader], [ptf.PTF] and
// [ptf.StateCodec].
//
// # Basics
//
// An Engine (one per session) implements [ptf.Loader] and gives every
// function it loads a goja runtime of its own, its realm. Load compiles a
// function once:
//
//	e := script.NewEngine(script.Options{ParseType: ptf.ParseType, FormatRow: types.FormatRow})
//	src, err := e.ReadSource("count_clicks.js") // a regular file, at most 'ptf.max-source-size'
//	def, err := e.Load("count_clicks", "count_clicks.js", src)
//	ptf, err := def.New(spec) // one instance per call site: ptf.PTF and ptf.StateCodec
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
// output type, argument traits ([ptf.ParseTrait] names) and types, the
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
//     *ptf.Context.
//   - state has one property per state entry: the live JS value of the
//     current key, which the runtime caches between calls. Changes in
//     place are kept; assigning a property replaces the value
//     (Context.SetState).
//   - args has one property per argument: a scalar argument's value
//     (converted once per instance), the row of the table argument being
//     processed, and null for the other table arguments.
//
// OnTimer calls onTimer(ctx, state, args) the same way, with every table
// argument null and a scalar argument throwing a TypeError when read
// (Flink's onTimer takes only the context and the state entries). After
// each call, typed value state is checked as Flink's conversion would
// check it (typedstate.go). ctx, state and args are views of the current
// call, reused from call to call: a function must not use them after its
// call returns (doing so throws a TypeError).
//
// List and map state (kind "list" with type ARRAY<T>, kind "map" with type
// MAP<K, V>: Flink's ListView and MapView) reach eval as view objects with
// Flink's method names, not as live values (views.go). Every method goes
// through [ptf.Context.List] or Map, so elements and entries are read and
// written one at a time in the state store and a list or map may outgrow
// memory:
//
//   - a list view has get() (an iterable, as Flink's), get(i), getList() (an
//     Array of all elements), setList(items), add(v), addAll(items), clear(),
//     size(), isEmpty(), and is iterable (for..of reads it in batches);
//   - a map view has get(k) (null when absent, as Flink's), put(k, v),
//     putAll(map), remove(k), contains(k), keys(), values(), entries()
//     (iterators in key order), getMap() (a Map of all entries),
//     setMap(map), clear(), size(), isEmpty(), and iterates as entries.
//
// Values convert by the declared element, key and value types, strictly,
// as collect's do. A null or undefined list element, and a null map key,
// throw a TypeError with Flink's message ("List views don't support null
// values.", "Map views don't support null keys."); addAll and putAll then
// add nothing. Map values may be null. A view, like ctx, is valid only
// during the call it was given to, and so is an iterator taken from it.
// Assigning state.l = ... for a view entry throws; ctx.clearState("l")
// empties it when the call returns, as Flink's clearState does.
//
// # How values convert
//
// Rows and scalar arguments reach JavaScript by the rules of docs/design.md §11
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
// a plain copy. Reusing one row object per table argument instead (a
// known way to make goja faster) would save one allocation per row and
// make any kept row change under the function, so we don't.
//
// # State encoding
//
// The runtime keeps state live as JS values and asks the instance, as a
// [ptf.StateCodec], for a fresh default of a value entry (NewState: a
// deep copy of the declared default, an object of nulls for a ROW type, {}
// otherwise) and to convert at checkpoints
// (AppendState and DecodeState). The encoding is a version byte and a
// compact binary tree of tagged values (statecodec_bin.go) that holds
// what JSON holds and what it lacks (undefined, NaN and infinities, -0,
// BigInt, Date, Map, Set, Uint8Array, RowKind, row objects); values
// written by earlier versions as JSON with tags (statecodec.go) still
// read, and SHOW STATE and the trace show either as that JSON
// (DescribeState). Class instances come back as plain objects; functions,
// symbols and cycles cannot be kept in state, nor a value nested deeper
// than 1,000 levels or larger than the memory limit. Such an error names
// where in the value it is, in one line: "a.b[3].f: cannot keep a
// function in state".
//
// # Errors
//
// Every error of this package is an *Error whose Error() is one line,
// file:line:col: func: message, positioned in the user's own file through
// the source map (an inline function's file is "<inline NAME>"):
//
//	greeting.js:14:5: greeting: TypeError: Cannot read property 'x' of undefined
//
// Load errors are esbuild's and goja's syntax errors, import errors,
// invalid UTF-8 (a source must be UTF-8 text; esbuild would loop forever on
// one that ends inside a UTF-8 sequence) and declaration errors (these
// point at the offending literal found in the source). A JS exception in a
// call keeps the JS stack, mapped the same way, in Error.Stack (Detail
// prints both); a stack deeper than 16 frames keeps its 10 innermost and 6
// outermost frames and counts the others. Error.Line keeps the line of
// source the error points at. *Error implements [ptf.SourceError], so
// session.FormatError shows that line with a caret and the stack under the
// one-line message, with the partition key and the input row the runtime
// adds:
//
//	query.sql:4:15: rules.js:3:11: check_score: RangeError: score 142 is too high
//	 |     throw new RangeError(`score ${row.score} is too high`);
//	 |           ^
//	at key (Alice), input row +I[Alice, 142]
//	    at checkScore (rules.js:3:11)
//	    at eval (check.js:7:17)
//
// An error the runtime returned inside a call (collect's row kind check,
// timers) is thrown into JavaScript as a GoError, which the function may
// catch; uncaught, the *Error unwraps to it, so errors.Is works through
// the function.
//
// # Limits
//
// A function may loop, recurse, allocate or emit without end; each of
// these stops the call with an *Error that wraps [ptf.ErrLimit], names
// the limit and says how to raise it, and that the function cannot catch
// (goja's Interrupt, or its stack overflow). The runtime then adds the key
// and the row, and the statement fails. Engine.Set applies the settings:
//
//   - SET 'ptf.eval-timeout' (Options.EvalTimeout, SetEvalTimeout; the
//     ptfsh command's default is 10 s): a watchdog goroutine checks the
//     running call at a tenth of the timeout, so a call costs no timer of
//     its own.
//   - SET 'ptf.max-call-depth' (Options.MaxCallDepth, SetMaxCallDepth;
//     default DefaultMaxCallDepth, 5,000): goja's SetMaxCallStackSize.
//     Without it, recursion through built-ins would end the process with
//     Go's stack overflow. goja unwinds such an overflow in time
//     quadratic in the depth (about a second at 5,000).
//   - SET 'ptf.max-rows-per-call' (Options.MaxRowsPerCall,
//     SetMaxRowsPerCall; the command's default is DefaultMaxRowsPerCall, a
//     million): the row after the last allowed one stops the call, even
//     if the function catches what collect throws.
//   - SET 'ptf.max-memory' (Options.MaxMemory, SetMaxMemory; the command's
//     default is DefaultMaxMemory, 1 gb): the memory guard, below.
//   - SET 'ptf.max-source-size' (Options.MaxSourceSize, SetMaxSourceSize;
//     default DefaultMaxSourceSize, 16 mb): the largest function source
//     and imported file (see Sandbox).
//
// Every piece of the function's JavaScript that ptfsh runs, not only eval
// and onTimer, runs as a call under these limits, and JavaScript reached
// from Go code (a getter, a Proxy trap, a toString, a setter) runs
// protected (realm.protect), so that what it throws is an error and never
// a Go panic: the top-level code and the reading of the declaration
// (getters and Proxies in it and in state defaults) at load; the changelog
// function and the reading of the mode it returns; the reading of a state
// value at a checkpoint (AppendState), and NewState and DecodeState; the
// rendering of a thrown value (its toString, an Error's message getter),
// which counts against the call that threw it. Objects ptfsh makes for a
// function (ctx, its helpers, state defaults, decoded state) get their
// properties defined, as a literal does, so no setter the function put on
// Object.prototype runs.
//
// Cancelling the context of a CallSpec (Ctrl-C in the shell) interrupts
// the instance's running call (context.AfterFunc, registered once per
// instance), and its state reading at checkpoints; the call fails with an
// *Error that wraps [ptf.ErrInterrupted], not ErrLimit, and points at
// the line it was running. Load has no context: LoadContext takes one
// (the session does not pass it yet, so Ctrl-C does not reach a load,
// only the eval timeout does), and neither has ChangelogMode, which the
// planner calls (the eval timeout only).
//
// A regular expression that needs goja's backtracking engine (lookahead,
// lookbehind, backreferences) runs each match under a deadline of 0.8 s
// (regexp2.DefaultMatchTimeout, set for the process; regexp2 notices it
// 0.1 to 0.2 s late): goja checks interrupts between instructions, never
// inside a match, so without it /^(?=(a+)+$)/ ran for minutes through the
// eval timeout and Ctrl-C. A call of exec, test, match, matchAll,
// replace, search or split that needs a second on such a pattern stops
// the function's call with a limit error (goja would answer a timed-out
// match with "no match"); an interrupted call stops within about a second
// of its limit. This limit has no setting (regexp2 reads the deadline
// when it compiles a pattern).
//
// The memory guard. goja has no allocation limit, so one goroutine for
// the whole process (memguard.go) samples the Go heap every 20 ms
// (runtime/metrics) for every Engine with a limit. A call that runs
// through a whole sample interval gets a baseline: the heap when it was
// first seen, lowered to the live heap of the next collection. While the
// process has allocated no more than the limit since, or the heap (or the
// live heap of the guard's last forced collection plus what was allocated
// since) stays within the limit over the baseline, the guard does
// nothing more. Past that it forces a collection (at most one every
// 100 ms) when Go's own collector read the call over the limit or would
// not collect soon (its heap goal, which GOGC and GOMEMLIMIT set, is far
// off), and stops the call when the live heap that collection found, less
// what was allocated while it marked, is more than the limit over the
// baseline; so a call that makes only garbage is never stopped by it. Two
// of Go's own collections that read the call over the limit, the later no
// lower, stop it too.
//
// Before it allocates, a conversion (collect, a view method, a state
// value at a checkpoint) checks the size of an array (by its length, which
// a sparse array claims for free), a string or a Uint8Array against the
// limit (or 4 GB with none, beyond which Go's allocation would end the
// process), and so do String.prototype.repeat, padStart and padEnd and
// Array.prototype.fill: passing it is a limit error.
//
// What the guard cannot do: see allocations in calls shorter than a
// sample interval (they are bounded by their speed); count what a call
// allocated before its baseline; tell which of several long calls running
// at once (on parallel workers) kept the memory (each is held to its own
// baseline); stop a built-in call that allocates at once and whose size
// is not known from its arguments (s + s on a large string,
// JSON.stringify, Array.prototype.join, new Uint8Array(1e9): goja checks
// interrupts between instructions, and while a copy of gigabytes holds
// off a collection's stop-the-world, every other goroutine, the guard's
// too, waits); or catch growth spread over many calls (a global array
// that each call extends a little). Measured with a 1 gb limit on the
// ptfsh command: pushing strings in a loop stops at a peak of 1.25 to
// 1.3 GB, pushing small objects at 1.5 to 1.9 GB; doubling a kept string
// (s = s + s) under a 14 GB cap on the address space ran out of memory
// when it asked for 8 GB at once, in three runs of three (the guard of
// one goroutine per Engine, which forced a collection for every call that
// ran 40 ms, stopped it at 4 or 8 GB in two runs, and ran out in one). It
// measures the whole process, so other goroutines' allocations during a
// call count too. SET 'ptf.max-memory' = '0' turns the guard off.
//
// A call stopped by a limit fails its statement, which writes no state
// after its last checkpoint: the runtime writes state to the store only at
// checkpoints (every 'execution.checkpointing.interval-rows' source rows,
// and at the end of a statement that succeeds).
//
// # Sandbox
//
// The global scope is goja's: the ECMAScript built-ins (and goja's GoError)
// and nothing else — no require, process, module, fetch, setTimeout, file,
// network or environment access. ptfsh adds RowKind, and console (log,
// info, warn, error, debug) only when Options.Console is set. Imports
// resolve only to files in the function's folder or below it ("./x.js";
// "../x.js" is an error, symbolic links inside the folder are followed)
// and to the stdlib ("ptfsh/NAME"); require() and import() of anything
// else are load errors. An imported file is code (.js, .mjs, .cjs, .jsx,
// .ts, .mts, .cts, .tsx) or data (.txt, .json, .csv, .tsv, .md: text, or
// JSON for .json); a text or JSON import (import t from "./t.txt" with {
// type: "text" }) reads only data files. No import reads a file or folder
// whose name starts with a dot (.env, .ssh/id_rsa), a file without an
// extension, a named pipe or a device, or a file larger than
// 'ptf.max-source-size' (16 MiB by default; the function's own source
// too). A function given inline (CREATE FUNCTION f AS $$ ... $$) imports
// only the stdlib, unless SET 'ptf.inline-import-dir' (Options.
// InlineImportDir, SetInlineImportDir) names the folder whose files it
// may import, by the same rules: by default its folder would be the
// working directory, with its .env files, keys and histories.
//
// With a seed (Options.Seed, SET 'ptfsh.seed', Engine.SetSeed),
// Math.random draws from a generator seeded with it (one per function) and Date.now(), new
// Date() and Date() read SeededNow (2025-01-01T00:00:00Z), which does not
// advance. Date's local-time methods still use the machine's time zone.
//
// Each function runs in a realm of its own (realm.go): its own goja
// runtime, global scope and built-ins, shared only by the instances of
// that function. What one function does to its globals or to a built-in
// (Object.prototype, Array.prototype.join) does not reach another, a
// function whose load fails leaves nothing behind, and a function sees
// the same built-ins at any parallelism. A realm costs memory and load
// time of its own; BenchmarkLoad measures a load, to compare with one
// shared runtime.
//
// # Goroutines
//
// An Engine and everything it makes must be used from one goroutine at a
// time; only interrupts come from other goroutines.
package script
