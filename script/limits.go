package script

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/settings"
)

// Limits on one call of eval or onTimer (the top-level code of a function
// being loaded counts as a call too). Each stops the call with an *Error
// that wraps [ptf.ErrLimit], names the limit and says how to raise it.
const (
	// DefaultMaxCallDepth is the JavaScript call-stack depth used when
	// Options.MaxCallDepth is 0 (Node allows about 11,000 frames). goja
	// unwinds a stack overflow that recursed through built-ins (a map
	// callback, a getter, toString) in time quadratic in the depth: about
	// a second at 5,000, four at 10,000.
	DefaultMaxCallDepth = 5_000
	// MaxCallDepthLimit is the largest depth SetMaxCallDepth accepts: a
	// frame called through a built-in (Array.prototype.map, a getter) also
	// costs Go stack, and Go's stack is limited to 1 GB.
	MaxCallDepthLimit = settings.MaxCallDepthLimit
	// DefaultMaxRowsPerCall is what the ptfsh command sets for
	// 'ptf.max-rows-per-call'.
	DefaultMaxRowsPerCall = 1_000_000
	// DefaultMaxMemory is what the ptfsh command sets for 'ptf.max-memory'.
	DefaultMaxMemory = 1 << 30
	// DefaultMaxSourceSize is the largest function source and imported
	// file ('ptf.max-source-size') when Options.MaxSourceSize is 0.
	DefaultMaxSourceSize = 16 << 20
)

// SeededNow is what Date.now() and new Date() return in an Engine with a
// seed (Options.Seed, SET 'ptfsh.seed'): 2025-01-01T00:00:00Z. The seeded
// clock does not advance.
var SeededNow = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// limitError is the error of a call stopped by a limit. It matches
// [ptf.ErrLimit] with errors.Is, and its text is the whole message.
type limitError struct{ msg string }

func (e *limitError) Error() string        { return e.msg }
func (e *limitError) Is(target error) bool { return target == ptf.ErrLimit }

func timeoutError(d time.Duration) error {
	return &limitError{fmt.Sprintf("call ran longer than the eval timeout of %v; to allow more, SET 'ptf.eval-timeout' to a longer duration ('0' for no limit)", d)}
}

func rowsError(n int64) error {
	return &limitError{fmt.Sprintf("call collected more than %d rows; to allow more, SET 'ptf.max-rows-per-call' to a larger number ('0' for no limit)", n)}
}

func depthError(n int) error {
	return &limitError{fmt.Sprintf("call stack exceeded %d nested calls (infinite recursion?); to allow deeper, SET 'ptf.max-call-depth' to a larger number", n)}
}

func memoryError(n int64) error {
	return &limitError{fmt.Sprintf("call kept more than %s of new memory; to allow more, SET 'ptf.max-memory' to a larger size such as '4 gb' ('0' for no limit)", settings.FormatSize(n))}
}

// Set applies a setting of a session (SET 'key' = 'value') that concerns
// the Engine, and ignores other keys (nil). It is meant for
// session.Config.OnSet. The keys, whose values runtime/settings parses:
//
//	ptf.compile            'on' or 'off'; see SetCompile
//	ptf.eval-timeout       a duration: "10 s", "500 ms", "1 min", "0" (no limit); see SetEvalTimeout
//	ptf.max-memory         a size: "512 mb", "2 gb", bytes, "0" (no limit); see SetMaxMemory
//	ptf.max-rows-per-call  a number of rows, "0" (no limit); see SetMaxRowsPerCall
//	ptf.max-call-depth     a number of nested calls, 1 to MaxCallDepthLimit; see SetMaxCallDepth
//	ptf.max-source-size    a size: the largest function file or imported file; see SetMaxSourceSize
//	ptf.inline-import-dir  a folder whose files inline functions may import, "" for none; see SetInlineImportDir
//	ptfsh.seed             an integer; see SetSeed
//
// Set must not be called while a call of the Engine runs.
func (e *Engine) Set(key, value string) error {
	value = strings.TrimSpace(value)
	if key == "ptfsh.seed" {
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return fmt.Errorf("invalid seed %q: want a whole number", value)
		}
		e.SetSeed(n)
		return nil
	}
	s, ok := settings.Lookup(key)
	if !ok || !strings.HasPrefix(key, "ptf.") {
		return nil
	}
	v, err := s.Parse(value)
	if err != nil {
		return err
	}
	switch key {
	case "ptf.compile":
		e.SetCompile(v.(bool))
	case "ptf.eval-timeout":
		e.SetEvalTimeout(v.(time.Duration))
	case "ptf.max-memory":
		e.SetMaxMemory(v.(int64))
	case "ptf.max-rows-per-call":
		e.SetMaxRowsPerCall(v.(int64))
	case "ptf.max-call-depth":
		e.SetMaxCallDepth(v.(int))
	case "ptf.max-source-size":
		e.SetMaxSourceSize(v.(int64))
	case "ptf.inline-import-dir":
		return e.SetInlineImportDir(v.(string))
	}
	return nil
}

// Setting returns the value in force of an engine setting (see Set), as
// SET would write it; ok is false for other keys and for 'ptfsh.seed'
// without a seed. It is meant for session.Config.Current.
func (e *Engine) Setting(key string) (value string, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch key {
	case "ptf.compile":
		if e.noCompile {
			return "off", true
		}
		return "on", true
	case "ptf.eval-timeout":
		return settings.FormatDuration(e.timeout), true
	case "ptf.max-memory":
		if e.maxMemory == 0 {
			return "0", true
		}
		return settings.FormatSize(e.maxMemory), true
	case "ptf.max-rows-per-call":
		return strconv.FormatInt(e.maxRows, 10), true
	case "ptf.max-call-depth":
		return strconv.Itoa(e.maxDepth), true
	case "ptf.max-source-size":
		return settings.FormatSize(e.maxSource), true
	case "ptf.inline-import-dir":
		return e.inlineDir, true
	case "ptfsh.seed":
		if e.seed != nil {
			return strconv.FormatInt(*e.seed, 10), true
		}
	}
	return "", false
}

// SetCompile turns compiled calls on (the default) or off: off runs
// every eval and onTimer on goja (compile.go).
func (e *Engine) SetCompile(on bool) { e.noCompile = !on }

// SetSeed makes the Engine deterministic from now on: in every function,
// Math.random draws from a generator of its own seeded with seed (the same
// seed gives the same numbers), and Date.now(), new Date() and Date() read
// SeededNow.
func (e *Engine) SetSeed(seed int64) {
	e.seed = &seed
	e.seedGen++
}

// SetMaxRowsPerCall sets how many rows one call may collect; 0 means no
// limit. The row after the last allowed one stops the call (the function
// cannot catch this).
func (e *Engine) SetMaxRowsPerCall(n int64) { e.maxRows = max(n, 0) }

// SetMaxCallDepth sets the deepest JavaScript call stack a call may have
// (goja's SetMaxCallStackSize); n <= 0 means DefaultMaxCallDepth. Deeper
// recursion stops the call.
func (e *Engine) SetMaxCallDepth(n int) {
	if n <= 0 {
		n = DefaultMaxCallDepth
	}
	n = min(n, MaxCallDepthLimit)
	e.maxDepth = n // realms take it when a call enters them (realm.apply)
}

// maxConvert is the most one value may take when ptfsh converts it (a
// collected value, a state value) with no memory limit set: beyond it,
// Go's allocation would end the process instead of failing the call.
const maxConvert = 4 << 30

// convBudget is how many bytes one converted value may take: the memory
// limit (the call could not keep more), or maxConvert.
func (e *Engine) convBudget() int64 {
	e.mu.Lock()
	m := e.maxMemory
	e.mu.Unlock()
	if m > 0 && m < maxConvert {
		return m
	}
	return maxConvert
}

// tooLarge is the limit error of a value (what: "an array of 4294967295
// elements") larger than convBudget: "cannot keep ... in state".
func (e *Engine) tooLarge(what, verb, where string) error {
	e.mu.Lock()
	m := e.maxMemory
	e.mu.Unlock()
	msg := "cannot " + verb + " " + what
	if where != "" {
		msg += " " + where
	}
	if m > 0 && m < maxConvert {
		return &limitError{fmt.Sprintf("%s: it would take more than the %s 'ptf.max-memory' allows; to allow more, SET 'ptf.max-memory' to a larger size such as '4 gb'", msg, settings.FormatSize(m))}
	}
	return &limitError{fmt.Sprintf("%s: it would take more than %s, the most ptfsh converts at once (whatever 'ptf.max-memory' says)", msg, settings.FormatSize(maxConvert))}
}

// SetMaxSourceSize sets the largest function source, and the largest
// file a function may import, in bytes; n <= 0 means
// DefaultMaxSourceSize. ReadSource reads no more of a function file.
func (e *Engine) SetMaxSourceSize(n int64) {
	if n <= 0 {
		n = DefaultMaxSourceSize
	}
	e.maxSource = n
}

// SetInlineImportDir lets functions given inline (CREATE FUNCTION ...
// AS $$ ... $$) import the files of dir (a relative path is taken from
// Options.BaseDir), with the rules of a function file's imports; "" (the
// default) lets them import only the stdlib.
func (e *Engine) SetInlineImportDir(dir string) error {
	if dir == "" {
		e.inlineDir = ""
		return nil
	}
	abs := e.absPath(dir)
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return fmt.Errorf("invalid folder %q: not a folder", dir)
	}
	e.inlineDir = abs
	return nil
}

// absPath resolves path against Options.BaseDir (or the working directory).
func (e *Engine) absPath(path string) string {
	if !filepath.IsAbs(path) {
		base := e.opts.BaseDir
		if base == "" {
			base, _ = os.Getwd()
		}
		path = filepath.Join(base, path)
	}
	return filepath.Clean(path)
}

func sourceSizeError(n int, limit int64) string {
	return fmt.Sprintf("the source is larger than %s (%d bytes); to allow more, SET 'ptf.max-source-size' to a larger size", settings.FormatSize(limit), n)
}

// SetMaxMemory sets the memory guard: a call that keeps more than n bytes
// of new memory is stopped; 0 turns the guard off. See the package
// documentation (# Limits) for how it measures and what it cannot see.
func (e *Engine) SetMaxMemory(n int64) {
	e.mu.Lock()
	e.maxMemory = max(n, 0)
	e.mu.Unlock()
	if n > 0 {
		guard.watch(e) // memguard.go
	}
}

// countRow counts a collected row against the rows-per-call limit; false
// means the limit is passed and the call has been stopped.
func (in *instance) countRow() bool {
	e := in.e
	in.rows++
	if e.maxRows > 0 && in.rows > e.maxRows {
		// Interrupt, not throw: the function must not catch it and return
		// the rows so far as if it had finished.
		e.interrupt(rowsError(e.maxRows))
		return false
	}
	return true
}

// Reset puts an engine setting back to the value the engine was made with
// (RESET 'key'); an empty key resets them all. Unknown keys are ignored.
func (e *Engine) Reset(key string) {
	all := key == ""
	if all || key == "ptf.compile" {
		e.SetCompile(!e.opts.NoCompile)
	}
	if all || key == "ptf.eval-timeout" {
		e.SetEvalTimeout(e.opts.EvalTimeout)
	}
	if all || key == "ptf.max-memory" {
		e.SetMaxMemory(max(e.opts.MaxMemory, 0))
	}
	if all || key == "ptf.max-rows-per-call" {
		e.SetMaxRowsPerCall(e.opts.MaxRowsPerCall)
	}
	if all || key == "ptf.max-call-depth" {
		e.SetMaxCallDepth(e.opts.MaxCallDepth)
	}
	if all || key == "ptf.max-source-size" {
		e.SetMaxSourceSize(e.opts.MaxSourceSize)
	}
	if all || key == "ptf.inline-import-dir" {
		e.inlineDir = ""
		if e.opts.InlineImportDir != "" {
			e.inlineDir = e.absPath(e.opts.InlineImportDir)
		}
	}
	if (all || key == "ptfsh.seed") && e.opts.Seed != nil {
		e.SetSeed(*e.opts.Seed)
	}
}
