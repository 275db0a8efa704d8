package script

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// Options configure an Engine.
type Options struct {
	// ParseType parses a type string of a declaration ("ROW<url STRING,
	// click_count BIGINT>", "INT NOT NULL"). Required; the wiring passes
	// [ptf.ParseType].
	ParseType func(string) (types.Type, error)
	// Seed, when set, makes Math.random, Date.now() and new Date()
	// deterministic (see SetSeed).
	Seed *int64
	// Stdlib holds the JavaScript helper modules a function may import as
	// "ptfsh/NAME" (NAME, NAME.js or NAME.ts in this file system). May be nil.
	Stdlib fs.FS
	// BaseDir is the directory relative function files, and the relative
	// imports of inline functions, resolve against; "" is the working
	// directory.
	BaseDir string
	// FormatRow renders a row of the given columns as Flink's Row.toString
	// does (+I[Bob, 12]); nil uses a built-in rendering of the common
	// types. The wiring passes [types.FormatRow].
	FormatRow func(types.Row, types.Schema) string
	// EvalTimeout interrupts a call of eval or onTimer that runs longer;
	// 0 means no limit. SetEvalTimeout changes it later.
	EvalTimeout time.Duration
	// Console, when set, receives console.log/info/warn/error/debug output,
	// one line per call. Without it the global scope has no console.
	Console io.Writer
	// MaxCallDepth is the deepest JavaScript call stack a call may have;
	// 0 means DefaultMaxCallDepth. SetMaxCallDepth changes it later.
	MaxCallDepth int
	// MaxRowsPerCall is how many rows one call may collect; 0 means no
	// limit. SetMaxRowsPerCall changes it later.
	MaxRowsPerCall int64
	// MaxMemory is how many bytes of new memory one call may keep; 0 means
	// no limit. SetMaxMemory changes it later.
	MaxMemory int64
	// MaxSourceSize is the largest function source, and the largest file
	// a function may import, in bytes; 0 means DefaultMaxSourceSize.
	// SetMaxSourceSize changes it later.
	MaxSourceSize int64
	// InlineImportDir is the folder whose files functions given inline
	// (no file) may import, relative to BaseDir; "" (the default) lets
	// them import only the stdlib. SET 'ptf.inline-import-dir' changes it.
	InlineImportDir string
	// NoCompile runs every eval and onTimer on goja, never compiled
	// (compile.go); SET 'ptf.compile' changes it.
	NoCompile bool
}

// Engine loads JavaScript and TypeScript PTFs and runs them. Each
// function it loads gets a JavaScript realm (a goja runtime) of its own,
// shared by the instances of that function (realm.go). An Engine is not
// safe for concurrent use: Load, and the calls of the instances it makes
// (Eval, OnTimer and the StateCodec methods), must come from one goroutine
// at a time. Only interrupts (cancellation of a CallSpec's context, the
// eval timeout) come from other goroutines.
type Engine struct {
	opts Options

	maps  map[string]*sourceMap // program name → source map
	progs map[string]string     // program name → code, to keep names unique

	decls   map[*ptf.FuncDef]*decl
	schemas map[*types.Field]*rowSchema // row schemas of ROW types, by their fields

	// seed is the last SetSeed, which isolated instances copy (isolated.go);
	// seedGen counts the SetSeed calls, so that each realm takes a new seed
	// once (realm.apply).
	seed    *int64
	seedGen int

	// loadCtx is the context of the LoadContext running, if any.
	loadCtx context.Context

	// Limits only the calling goroutine reads (see limits.go).
	maxRows   int64
	maxDepth  int
	maxSource int64
	inlineDir string // absolute; "" for none
	noCompile bool   // 'ptf.compile' is off

	// mu guards the interrupts and the limits the watchdogs read against
	// the goroutines that interrupt. active and activeRT are the running
	// call's, written by the goroutine that runs the calls as it enters
	// and leaves them (enter), and read by another goroutine only while
	// it holds a claim of the call (claimLocked); run is the run word.
	mu        sync.Mutex
	active    *instance
	activeRT  *realm // the realm active runs in
	run       atomic.Uint64
	intr      error       // the interrupt of the running call (interruptLocked)
	stopping  atomic.Bool // intr is set: Go loops over JavaScript values stop
	timeout   time.Duration
	maxMemory int64
	watchdog  chan struct{} // closed by Close
}

// NewEngine returns an Engine. It makes a JavaScript realm for each
// function it loads.
func NewEngine(opts Options) *Engine {
	e := &Engine{
		opts:      opts,
		maps:      map[string]*sourceMap{},
		progs:     map[string]string{},
		decls:     map[*ptf.FuncDef]*decl{},
		timeout:   opts.EvalTimeout,
		maxRows:   max(opts.MaxRowsPerCall, 0),
		maxMemory: max(opts.MaxMemory, 0),
		noCompile: opts.NoCompile,
	}
	if opts.Seed != nil {
		e.SetSeed(*opts.Seed)
	}
	e.SetMaxCallDepth(opts.MaxCallDepth)
	e.SetMaxSourceSize(opts.MaxSourceSize)
	if opts.InlineImportDir != "" {
		e.inlineDir = e.absPath(opts.InlineImportDir)
	}
	e.startWatchdog()
	if e.maxMemory > 0 {
		guard.watch(e) // memguard.go
	}
	return e
}

// Close stops the Engine's timeout watchdog and takes it off the memory
// guard's list. The Engine must not be used afterwards.
func (e *Engine) Close() error {
	guard.forget(e)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.watchdog != nil {
		close(e.watchdog)
		e.watchdog = nil
	}
	return nil
}

// SetEvalTimeout sets the longest a single call of eval or onTimer may run
// before it is interrupted (SET 'ptf.eval-timeout'); 0 means no limit.
func (e *Engine) SetEvalTimeout(d time.Duration) {
	e.mu.Lock()
	e.timeout = d
	e.mu.Unlock()
	e.startWatchdog()
}

// Load compiles the function in src and returns its definition; name is
// the name it is registered under and file the file src was read from
// ("" for an inline source, shown as "<inline NAME>" in errors). A file
// ending in .ts (or .mts, .cts, .tsx) is TypeScript. Errors are *Error
// values positioned in the user's file.
func (e *Engine) Load(name, file, src string) (*ptf.FuncDef, error) {
	def, s, err := e.load(name, file, src)
	if err != nil {
		return nil, e.withLine(err, s)
	}
	return def, nil
}

func (e *Engine) load(name, file, src string) (*ptf.FuncDef, *source, error) {
	s, err := e.newSource(name, file, src)
	if err != nil {
		return nil, s, err
	}
	if int64(len(src)) > e.maxSource {
		return nil, s, loadErrorf(name, types.Pos{Filename: s.display}, "%s", sourceSizeError(len(src), e.maxSource))
	}
	if bad, ok := firstInvalidUTF8(src); ok {
		// esbuild loops forever on a source that ends inside a UTF-8 sequence.
		err := loadErrorf(name, types.Pos{Filename: s.display, Line: bad.line, Column: utf8.RuneCountInString(bad.before) + 1}, "%s", bad.message())
		err.Line = bad.text
		return nil, s, err
	}
	b, err := e.build(s)
	if err != nil {
		return nil, s, err
	}
	progName := e.programName(s.display, b.code)
	prg, err := e.compile(s, progName, b)
	if err != nil {
		return nil, s, err
	}
	e.maps[progName] = b.sm
	e.progs[progName] = b.code
	// A realm of its own: a load that fails takes what its code did to
	// its globals with it.
	rt := e.newRealm()
	d, err := rt.run(s, prg, b)
	if err != nil {
		return nil, s, err
	}
	d.jobs = mayQueueJobs.MatchString(b.code)
	rt.compileDecl(d, progName, b.code)
	def := &ptf.FuncDef{
		Name:       name,
		File:       file,
		Language:   "JAVASCRIPT",
		Args:       d.args,
		State:      d.state,
		Output:     d.output,
		HasOnTimer: d.onTimer != nil,
	}
	if s.ts {
		def.Language = "TYPESCRIPT"
	}
	if d.scalar {
		def.Scalar = func() (func(args []any) (any, error), error) { return rt.newScalar(d) } // scalar.go
		e.decls[def] = d
		return def, s, nil
	}
	def.New = func(spec ptf.CallSpec) (ptf.PTF, error) { return rt.newInstance(d, spec) }
	def.Runs = func() string { s, _ := e.Runs(def); return s }
	def.NewIsolated = func(spec ptf.CallSpec) (ptf.PTF, error) { return e.newIsolated(name, file, src, spec) }
	if d.changelog.Mode != "" || d.changelog.Func {
		def.ChangelogMode = func(tables []types.ChangelogMode, required types.ChangelogMode) (types.ChangelogMode, error) {
			return e.ChangelogMode(def, tables, required)
		}
	}
	e.decls[def] = d
	return def, s, nil
}

// LoadContext is Load under ctx: cancelling ctx (Ctrl-C) interrupts the
// function's top-level code and the reading of its declaration, as it
// interrupts a call. (session.Session calls Load, which has no context;
// Load runs under the eval timeout only.)
func (e *Engine) LoadContext(ctx context.Context, name, file, src string) (*ptf.FuncDef, error) {
	e.loadCtx = ctx
	defer func() { e.loadCtx = nil }()
	return e.Load(name, file, src)
}

// withLine adds the line of source an *Error of loading s points at.
func (e *Engine) withLine(err error, s *source) error {
	var se *Error
	if !errors.As(err, &se) || se.Line != "" || se.Pos.Line <= 0 {
		return err
	}
	if s != nil && se.Pos.Filename == s.display {
		se.Line = nthLine(s.src, se.Pos.Line)
		return err
	}
	for _, m := range e.maps {
		if t := m.lineText(se.Pos.Filename, se.Pos.Line); t != "" {
			se.Line = t
			break
		}
	}
	return err
}

// newSource works out the display name, the import directory and the
// language of a function source.
func (e *Engine) newSource(name, file, src string) (*source, error) {
	s := &source{name: name, src: src}
	base := e.opts.BaseDir
	if base == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, loadErrorf(name, types.Pos{}, "%v", err)
		}
		base = wd
	}
	if file == "" {
		// An inline function imports files only of the folder SET
		// 'ptf.inline-import-dir' names (none by default: the working
		// directory holds .env files, keys, histories).
		s.display = "<inline " + name + ">"
		s.absDir, s.inline = base, true
		if e.inlineDir != "" {
			s.absDir = e.inlineDir
		}
		return s, nil
	}
	abs := file
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(base, file)
	}
	s.display = file
	if filepath.IsAbs(file) && e.opts.BaseDir != "" {
		if rel, err := filepath.Rel(e.opts.BaseDir, file); err == nil && !strings.HasPrefix(rel, "..") {
			s.display = rel
		}
	}
	s.absDir = filepath.Dir(abs)
	switch strings.ToLower(filepath.Ext(file)) {
	case ".ts", ".mts", ".cts":
		s.ts = true
	case ".tsx":
		s.ts, s.tsx = true, true
	}
	return s, nil
}

// programName returns a name for a compiled program that is unique in
// this Engine unless the code is the same (stack frames find their source
// map by it).
func (e *Engine) programName(display, code string) string {
	name := display
	for n := 2; ; n++ {
		if c, ok := e.progs[name]; !ok || c == code {
			return name
		}
		name = display + "#" + strconv.Itoa(n)
	}
}

// compile parses and compiles the bundle with goja. A syntax error goja
// finds (in code esbuild accepted) is mapped back to the user's file.
func (e *Engine) compile(s *source, progName string, b *bundle) (*goja.Program, error) {
	ast, err := parser.ParseFile(nil, progName, b.code, 0, parser.WithDisableSourceMaps)
	if err != nil {
		var list parser.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			pe := list[0]
			return nil, e.syntaxError(s, b, pe.Position.Line, pe.Position.Column, pe.Message)
		}
		return nil, loadErrorf(s.name, types.Pos{Filename: s.display}, "SyntaxError: %v", err)
	}
	prg, err := goja.CompileAST(ast, false)
	if err != nil {
		var cse *goja.CompilerSyntaxError
		if errors.As(err, &cse) && cse.File != nil {
			p := cse.File.Position(cse.Offset)
			return nil, e.syntaxError(s, b, p.Line, p.Column, cse.Message)
		}
		return nil, loadErrorf(s.name, types.Pos{Filename: s.display}, "%v", err)
	}
	return prg, nil
}

func (e *Engine) syntaxError(s *source, b *bundle, line, col int, msg string) *Error {
	pos := types.Pos{Filename: s.display}
	if f, l, c, ok := b.sm.original(line, col); ok {
		pos = types.Pos{Filename: f, Line: l, Column: c}
	}
	err := loadErrorf(s.name, pos, "SyntaxError: %s", msg)
	err.Line = b.sm.lineText(pos.Filename, pos.Line)
	return err
}

// run runs the compiled bundle once and reads the declaration it
// defines. Both run as a call: the declaration object is the function's
// own (a getter, a Proxy), and the eval timeout applies to the top-level
// code and the reading together.
func (e *realm) run(s *source, prg *goja.Program, b *bundle) (*decl, error) {
	if err := e.enter(e, nil); err != nil {
		return nil, err
	}
	defer e.leave()
	if ctx := e.loadCtx; ctx != nil {
		if ctx.Err() != nil {
			return nil, &Error{Func: s.name, Msg: errCancelled.Error(), Err: errCancelled}
		}
		stop := context.AfterFunc(ctx, func() {
			e.mu.Lock()
			defer e.mu.Unlock()
			if s, ok := e.claimLocked(0); ok {
				if e.activeRT == e {
					e.deliverLocked(errCancelled)
				} else {
					e.unclaimLocked(s)
				}
			}
		})
		defer stop()
	}
	iter := e.arrayIteration()
	v, err := e.vm.RunProgram(prg)
	if err != nil {
		return nil, e.callError(s.name, err)
	}
	var (
		d    *decl
		derr error
	)
	err = e.protect(func() {
		var obj *goja.Object
		if obj, derr = e.declObject(s, b, v); derr == nil {
			d, derr = e.parseDecl(s, obj)
		} else if b.esm && e.arrayIteration() != iter {
			// The bundle's own code copies the module's exports with a
			// for-of over an array, after the module's code ran.
			derr = loadErrorf(s.name, types.Pos{Filename: s.display, Line: 1, Column: 1},
				"the module's default export could not be read: the module replaced how arrays iterate (Array.prototype[Symbol.iterator] or the array iterator's next), "+
					"which the code that collects a module's exports uses; change it inside eval, or put the original back before the module ends")
		}
	})
	if err != nil {
		return nil, e.callError(s.name, err)
	}
	if ie := e.interrupted(); derr != nil && ie != nil && !errors.Is(derr, ie) {
		// A Go loop over the declaration's values gave up: report why.
		return nil, &Error{Func: s.name, Pos: types.Pos{Filename: s.display}, Msg: ie.Error(), Err: ie}
	}
	return d, derr
}

// arrayIteration is how arrays iterate in the realm now: the values of
// Array.prototype[Symbol.iterator] and of the array iterator's next,
// joined in a comparable value.
func (e *realm) arrayIteration() [2]goja.Value {
	var out [2]goja.Value
	arr, ok := e.vm.Get("Array").(*goja.Object)
	if !ok {
		return out
	}
	proto, ok := arr.Get("prototype").(*goja.Object)
	if !ok {
		return out
	}
	out[0] = proto.GetSymbol(goja.SymIterator)
	if f, ok := goja.AssertFunction(out[0]); ok {
		if it, err := f(e.vm.NewArray()); err == nil {
			if o, ok := it.(*goja.Object); ok {
				if p := o.Prototype(); p != nil {
					out[1] = p.Get("next")
				}
			}
		}
	}
	return out
}

// declObject finds the declaration object: the module's default export,
// module.exports, or the value of a plain script's last expression.
func (e *realm) declObject(s *source, b *bundle, v goja.Value) (*goja.Object, error) {
	if b.module {
		v = e.vm.Get(moduleGlobal)
		if err := e.vm.Set(moduleGlobal, goja.Undefined()); err != nil {
			return nil, err
		}
		if b.esm {
			obj, _ := v.(*goja.Object)
			if obj == nil {
				v = nil
			} else {
				v = obj.Get("default")
			}
			if v == nil || goja.IsUndefined(v) {
				return nil, loadErrorf(s.name, types.Pos{Filename: s.display, Line: 1, Column: 1},
					"the module has no default export: write export default { output: ..., eval(ctx, state, args) { ... } }")
			}
		}
	}
	obj, ok := v.(*goja.Object)
	if !ok || v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		what := "nothing"
		if v != nil && !goja.IsUndefined(v) {
			what = v.String()
		}
		return nil, loadErrorf(s.name, types.Pos{Filename: s.display, Line: 1, Column: 1},
			"the function's source must end in a declaration object ({ output: ..., eval(ctx, state, args) { ... } }) or export one as default, got %s", what)
	}
	return obj, nil
}

// startWatchdog starts the goroutine that enforces the eval timeout, once.
// It wakes at a fraction of the timeout and interrupts a call that was
// already running, under the same sequence number, at the previous ticks
// for the whole timeout, so a call costs no timer of its own.
func (e *Engine) startWatchdog() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.timeout <= 0 || e.watchdog != nil {
		return
	}
	stop := make(chan struct{})
	e.watchdog = stop
	go func() {
		var (
			lastSeq uint64
			running time.Duration
		)
		for {
			e.mu.Lock()
			d := e.timeout
			e.mu.Unlock()
			tick := min(max(d/10, 10*time.Millisecond), time.Second)
			if d <= 0 {
				tick = time.Second
			}
			select {
			case <-stop:
				return
			case <-time.After(tick):
			}
			e.mu.Lock()
			switch s := e.run.Load(); {
			case s&runIn == 0 || d <= 0:
				running = 0
			case s>>runShift != lastSeq:
				lastSeq, running = s>>runShift, 0
			default:
				running += tick
				if running >= d {
					e.interruptLocked(lastSeq, timeoutError(d))
					running = 0
				}
			}
			e.mu.Unlock()
		}
	}()
}
