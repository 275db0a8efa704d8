package script

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/dop251/goja"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// decl is a loaded function's declaration (docs/design.md §4).
type decl struct {
	name    string
	display string
	src     string // the user's source, to position declaration errors
	rt      *realm // the function's realm

	obj     *goja.Object // the declaration; eval and onTimer run with it as this
	output  types.Type
	args    []ptf.ArgDecl
	state   []ptf.StateDecl
	initial []stateInit
	eval    goja.Callable
	onTimer goja.Callable
	// evalV and onTimerV are the function objects, to compile.
	evalV, onTimerV goja.Value

	changelog Changelog
	clFunc    goja.Callable

	// scalar: kind "scalar", Flink's ScalarFunction (scalar.go).
	scalar bool

	// cEval and cTimer are eval and onTimer compiled (compile.go), nil
	// when they run on goja; cEvalWhy and cTimerWhy say why.
	cEval, cTimer       *cfunc
	cEvalWhy, cTimerWhy string
	// objectsOK: compiled code may use plain objects and arrays of state
	// (compileDecl).
	objectsOK bool

	// jobs: the code can queue promise jobs, so its calls are never
	// batched (batch.go).
	jobs bool
}

// stateInit is how a fresh value of a state entry is made.
type stateInit struct {
	def node // the declared default, nil if none
	// record is the default's field names when the entry's values are
	// kept as records (record.go): an untyped value entry whose default is
	// a plain object of primitives.
	record []string
}

// Changelog is a function's changelog declaration, Flink's
// ChangelogFunction: a fixed mode or a function of the call's modes.
type Changelog struct {
	// Mode is "insert-only", "retract", "upsert" or "all"; "" when the
	// function declares none (insert-only) or declares a function.
	Mode string
	// Func reports the function form: (cctx) => mode.
	Func bool
}

// reservedArgs are Flink's system arguments, which every PTF has.
var reservedArgs = []string{"on_time", "uid"}

var changelogModes = []string{"insert-only", "retract", "upsert", "all"}

// parseDecl reads and validates the declaration object. Properties other
// than output, args, state, eval, onTimer and changelog are allowed
// (helpers the function calls through this) and ignored.
func (e *realm) parseDecl(s *source, obj *goja.Object) (*decl, error) {
	d := &decl{name: s.name, display: s.display, src: s.src, obj: obj, rt: e}
	errAt := func(lit string, format string, args ...any) error {
		return loadErrorf(s.name, d.locate(lit), format, args...)
	}

	// eval and onTimer
	ev := obj.Get("eval")
	fn, ok := goja.AssertFunction(ev)
	if !ok {
		if ev == nil || goja.IsUndefined(ev) {
			return nil, errAt("", "the declaration has no eval function: add eval(ctx, state, args) { ... }")
		}
		return nil, errAt("eval", "eval must be a function, not %s", jsTypeOf(ev))
	}
	d.eval, d.evalV = fn, ev
	if ot := obj.Get("onTimer"); ot != nil && !goja.IsUndefined(ot) && !goja.IsNull(ot) {
		fn, ok := goja.AssertFunction(ot)
		if !ok {
			return nil, errAt("onTimer", "onTimer must be a function, not %s", jsTypeOf(ot))
		}
		d.onTimer, d.onTimerV = fn, ot
	}

	// output
	out := obj.Get("output")
	if out == nil || goja.IsUndefined(out) {
		return nil, errAt("", "the declaration has no output type: add output: \"ROW<name STRING, ...>\" or a scalar type such as \"STRING\"")
	}
	if !goja.IsString(out) {
		return nil, errAt("output", "output must be a type string such as \"ROW<url STRING, click_count BIGINT>\", not %s", jsTypeOf(out))
	}
	t, err := e.parseType(out.String())
	if err != nil {
		return nil, errAt(out.String(), "output: invalid type %q: %v", out.String(), err)
	}
	d.output = t

	if err := e.parseArgs(d, obj.Get("args"), errAt); err != nil {
		return nil, err
	}
	if err := e.parseState(d, obj.Get("state"), errAt); err != nil {
		return nil, err
	}
	if err := d.parseChangelog(obj.Get("changelog"), errAt); err != nil {
		return nil, err
	}
	if err := d.parseKind(obj.Get("kind"), errAt); err != nil {
		return nil, err
	}
	return d, nil
}

type errAtFunc func(lit string, format string, args ...any) error

func (e *Engine) parseType(s string) (types.Type, error) {
	if e.opts.ParseType == nil {
		return types.Type{}, fmt.Errorf("no type parser configured")
	}
	return e.opts.ParseType(s)
}

func (e *realm) parseArgs(d *decl, v goja.Value, errAt errAtFunc) error {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil
	}
	list, ok := v.(*goja.Object)
	if !ok || list.ClassName() != "Array" {
		return errAt("args", "args must be an array of { name, traits?, type?, optional? }, not %s", jsTypeOf(v))
	}
	n := int(list.Get("length").ToInteger())
	seen := map[string]bool{}
	for i := 0; i < n; i++ {
		av := list.Get(strconv.Itoa(i))
		ao, ok := av.(*goja.Object)
		if !ok {
			return errAt("args", "args[%d] must be an object { name, traits?, type?, optional? }, not %s", i, jsTypeOf(av))
		}
		nv := ao.Get("name")
		if nv == nil || !goja.IsString(nv) || nv.String() == "" {
			return errAt("args", "args[%d] needs a name", i)
		}
		name := nv.String()
		for _, r := range reservedArgs {
			if name == r {
				return errAt(name, "Function signature must not declare system arguments. Reserved argument names are: [on_time, uid]")
			}
		}
		if seen[name] {
			return errAt(name, "duplicate argument name %q", name)
		}
		seen[name] = true
		a := ptf.ArgDecl{Name: name}
		if tv := ao.Get("traits"); tv != nil && !goja.IsUndefined(tv) && !goja.IsNull(tv) {
			to, ok := tv.(*goja.Object)
			if !ok || to.ClassName() != "Array" {
				return errAt(name, "argument %q: traits must be an array of trait names", name)
			}
			tn := int(to.Get("length").ToInteger())
			for j := 0; j < tn; j++ {
				s := to.Get(strconv.Itoa(j))
				tr, ok := ptf.ParseTrait(s.String())
				if !ok || !goja.IsString(s) {
					if s.String() == "SCALAR" {
						continue
					}
					return errAt(s.String(), "argument %q: unknown trait %q; valid traits are %s",
						name, s.String(), strings.Join(ptf.TraitNames(), ", "))
				}
				a.Traits |= tr
			}
			if err := checkTraits(name, a.Traits); err != nil {
				return errAt(name, "%v", err)
			}
		}
		if tv := ao.Get("type"); tv != nil && !goja.IsUndefined(tv) && !goja.IsNull(tv) {
			if !goja.IsString(tv) {
				return errAt(name, "argument %q: type must be a type string, not %s", name, jsTypeOf(tv))
			}
			t, err := e.parseType(tv.String())
			if err != nil {
				return errAt(tv.String(), "argument %q: invalid type %q: %v", name, tv.String(), err)
			}
			if a.IsTable() && t.Kind != types.KindRow {
				return errAt(tv.String(), "table argument %q: type must be a ROW<...> type, not %s", name, t)
			}
			a.Type = &t
		} else if !a.IsTable() {
			return errAt(name, "scalar argument %q needs a type (or a table trait such as ROW_SEMANTIC_TABLE)", name)
		}
		if ov := ao.Get("optional"); ov != nil && !goja.IsUndefined(ov) {
			a.Optional = ov.ToBoolean()
		}
		d.args = append(d.args, a)
	}
	return nil
}

// checkTraits rejects trait sets that cannot describe an argument (the
// planner checks how arguments combine).
func checkTraits(name string, t ptf.Trait) error {
	if t.Has(ptf.RowSemanticTable | ptf.SetSemanticTable) {
		return fmt.Errorf("argument %q: ROW_SEMANTIC_TABLE and SET_SEMANTIC_TABLE exclude each other", name)
	}
	tableOnly := []ptf.Trait{ptf.OptionalPartitionBy, ptf.PassColumnsThrough, ptf.RequireOnTime,
		ptf.SupportUpdates, ptf.RequireUpdateBefore, ptf.RequireFullDelete}
	for _, tr := range tableOnly {
		if t.Has(tr) && !t.IsTable() {
			return fmt.Errorf("argument %q: trait %s needs a table argument (add ROW_SEMANTIC_TABLE or SET_SEMANTIC_TABLE)", name, traitName(tr))
		}
	}
	if t.Has(ptf.OptionalPartitionBy) && !t.Has(ptf.SetSemanticTable) {
		return fmt.Errorf("argument %q: trait OPTIONAL_PARTITION_BY needs SET_SEMANTIC_TABLE", name)
	}
	for _, tr := range []ptf.Trait{ptf.RequireUpdateBefore, ptf.RequireFullDelete} {
		if t.Has(tr) && !t.Has(ptf.SupportUpdates) {
			return fmt.Errorf("argument %q: trait %s needs SUPPORT_UPDATES", name, traitName(tr))
		}
	}
	return nil
}

func traitName(t ptf.Trait) string {
	for _, n := range ptf.TraitNames() {
		if tr, _ := ptf.ParseTrait(n); tr == t {
			return n
		}
	}
	return "?"
}

func (e *realm) parseState(d *decl, v goja.Value, errAt errAtFunc) error {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil
	}
	so, ok := v.(*goja.Object)
	if !ok || so.ClassName() != "Object" {
		return errAt("state", "state must be an object { name: { default?, type?, kind?, ttl? }, ... }, not %s", jsTypeOf(v))
	}
	for _, name := range so.Keys() {
		ev := so.Get(name)
		sd := ptf.StateDecl{Name: name}
		var init stateInit
		eo, ok := ev.(*goja.Object)
		if !ok || eo.ClassName() != "Object" {
			return errAt(name, "state entry %q must be an object { default?, type?, kind?, ttl? }, not %s", name, jsTypeOf(ev))
		}
		if kv := eo.Get("kind"); kv != nil && !goja.IsUndefined(kv) {
			switch kv.String() {
			case "value":
				sd.Kind = ptf.ValueState
			case "list":
				sd.Kind = ptf.ListState
			case "map":
				sd.Kind = ptf.MapState
			default:
				return errAt(kv.String(), "state entry %q: unknown kind %q; valid kinds are value, list, map", name, kv.String())
			}
		}
		if tv := eo.Get("type"); tv != nil && !goja.IsUndefined(tv) && !goja.IsNull(tv) {
			if !goja.IsString(tv) {
				return errAt(name, "state entry %q: type must be a type string, not %s", name, jsTypeOf(tv))
			}
			t, err := e.parseType(tv.String())
			if err != nil {
				return errAt(tv.String(), "state entry %q: invalid type %q: %v", name, tv.String(), err)
			}
			want := map[ptf.StateKind]types.Kind{ptf.ValueState: types.KindRow, ptf.ListState: types.KindArray, ptf.MapState: types.KindMap}[sd.Kind]
			if t.Kind != want {
				return errAt(tv.String(), "state entry %q: a %s entry needs a %s type, not %s", name, kindName(sd.Kind), map[types.Kind]string{types.KindRow: "ROW<...>", types.KindArray: "ARRAY<T>", types.KindMap: "MAP<K, V>"}[want], t)
			}
			sd.Type = &t
		}
		if dv := eo.Get("default"); dv != nil && !goja.IsUndefined(dv) {
			n, err := e.snapshot(dv)
			if err != nil {
				return errAt(name, "state entry %q: default: %v", name, err)
			}
			init.def = n
		}
		if sd.Kind != ptf.ValueState { // Flink's ListView<T> and MapView<K, V>: typed, empty at first
			if sd.Type == nil {
				return errAt(name, "state entry %q: a %s entry needs a type, %s", name, kindName(sd.Kind), map[ptf.StateKind]string{ptf.ListState: "ARRAY<T>", ptf.MapState: "MAP<K, V>"}[sd.Kind])
			}
			if init.def != nil {
				return errAt(name, "state entry %q: a %s entry starts empty and takes no default", name, kindName(sd.Kind))
			}
		}
		if tv := eo.Get("ttl"); tv != nil && !goja.IsUndefined(tv) && !goja.IsNull(tv) {
			ttl, err := parseTTL(tv)
			if err != nil {
				return errAt(tv.String(), "state entry %q: ttl: %v", name, err)
			}
			sd.TTL, sd.TTLSet = ttl, true
		}
		if sd.Kind == ptf.ValueState && sd.Type == nil {
			if keys, ok := recordShape(init.def); ok {
				init.record = make([]string, len(keys))
				for i, k := range keys {
					init.record[i] = fieldName(k)
				}
			}
		}
		d.state = append(d.state, sd)
		d.initial = append(d.initial, init)
	}
	return nil
}

func kindName(k ptf.StateKind) string {
	switch k {
	case ptf.ListState:
		return "list"
	case ptf.MapState:
		return "map"
	}
	return "value"
}

// parseTTL parses a ttl: Flink's duration syntax ("1 hour", "5 days",
// "10 s", "500 ms", "0") or a number of milliseconds.
func parseTTL(v goja.Value) (time.Duration, error) {
	if goja.IsNumber(v) {
		f := v.ToFloat()
		if f < 0 || f != math.Trunc(f) || f > float64(math.MaxInt64/int64(time.Millisecond)) {
			return 0, fmt.Errorf("%v is not a whole, non-negative number of milliseconds", v)
		}
		return time.Duration(f) * time.Millisecond, nil
	}
	if !goja.IsString(v) {
		return 0, fmt.Errorf("want a duration such as \"1 hour\", not %s", jsTypeOf(v))
	}
	return types.ParseDuration(v.String())
}

func (d *decl) parseChangelog(v goja.Value, errAt errAtFunc) error {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil
	}
	if fn, ok := goja.AssertFunction(v); ok {
		d.clFunc = fn
		d.changelog.Func = true
		return nil
	}
	if goja.IsString(v) {
		for _, m := range changelogModes {
			if v.String() == m {
				d.changelog.Mode = m
				return nil
			}
		}
	}
	return errAt(v.String(), "changelog must be one of %s or a function (cctx) => mode, not %s",
		strings.Join(quoteAll(changelogModes), ", "), describe(v))
}

func quoteAll(ss []string) []string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return q
}

// locate finds where a declaration error points: the first string
// literal lit in the user's source ("lit", 'lit' or `lit`), else the
// first occurrence of lit as a word, else the start of the declaration.
// It is a text search, not a parse: good enough to point at the line.
func (d *decl) locate(lit string) types.Pos {
	src := d.src
	off := -1
	if lit != "" {
		for _, q := range []string{`"`, `'`, "`"} {
			if i := strings.Index(src, q+lit+q); i >= 0 && (off < 0 || i < off) {
				off = i
			}
		}
		if off < 0 {
			if re, err := regexp.Compile(`\b` + regexp.QuoteMeta(lit) + `\b`); err == nil {
				if loc := re.FindStringIndex(src); loc != nil {
					off = loc[0]
				}
			}
		}
	}
	if off < 0 {
		off = strings.Index(src, "export default")
	}
	if off < 0 {
		return types.Pos{Filename: d.display, Line: 1, Column: 1}
	}
	line := 1 + strings.Count(src[:off], "\n")
	ls := strings.LastIndexByte(src[:off], '\n') + 1
	return types.Pos{Filename: d.display, Offset: off, Line: line, Column: byteToRuneColumn(src[ls:], off-ls) + 1}
}
