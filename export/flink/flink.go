// Package flink writes a Maven project that runs a JavaScript PTF on
// Apache Flink: a generated ProcessTableFunction class per function that
// carries the function's declaration as annotations, a generic bridge that
// runs the bundled JavaScript in GraalJS, the SQL that registers it, and
// JUnit tests that run the SELECTs ptfsh ran on a Flink mini cluster and
// compare the rows with ptfsh's. A scalar function (kind: "scalar")
// becomes a ScalarFunction whose eval calls the JavaScript eval through
// the same bridge.
//
// The package knows nothing of goja or the SQL session: the wiring
// (cmd/ptfsh) loads the function and bundles its source, and runs the
// script's statements through a Runner for Cases, which decides what
// becomes a test case; Write writes the Project.
//
// # Names in generated code
//
// Names come from the user (the function's SQL name, its arguments, state
// entries and output fields) and are never pasted into generated code as
// they are:
//
//   - in SQL, an identifier is always between backquotes, a backquote
//     inside written twice, and a string literal between single quotes,
//     a quote inside doubled; the statement that registers the function in
//     ptfsh is built as a syntax tree, not as text;
//   - in Java, a string literal escapes \, ", and control characters
//     (\n, \r, \t, else octal: Java would turn a \u escape into the
//     character itself before reading the literal); a Java identifier
//     keeps the ASCII letters, digits and _ of the name (a class name
//     starts with an upper-case letter, "Fn" put before a name that does
//     not, "Function" after one that a generated file or java.lang uses;
//     a parameter gets _ for the other characters and after keywords);
//     text in a comment has its backslashes doubled and */ broken;
//   - the Maven artifact is the class name in lower case.
//
// Names Flink cannot take are refused by Check: a function name with a
// line break (Flink's quoted names hold none), and argument and state
// names that do not follow [a-zA-Z_$][a-zA-Z_$0-9]* (Flink's rule).
//
// The test reads the statements of register.sql and of each case back by
// splitting them at the semicolons outside quotes and comments, as
// [sqlmini.Split] does.
//
// # State
//
// Each untyped value state entry is declared to Flink as ROW<json STRING>
// and holds the JSON text of the JavaScript value, with ptfsh's tags for
// what JSON lacks (Date, Map, Set, BigInt, undefined, ...): read before
// eval and onTimer, written back after them. A new key starts from a copy
// of the entry's default. A typed entry (a ROW type) is kept the same way
// and checked after each call as ptfsh checks it (declared fields only,
// each of its type), so that what fails in ptfsh fails on Flink. This
// keeps the JavaScript semantics (any value) at the cost of Flink's typed
// state (no state schema evolution, no queryable fields). ListView and MapView entries are Flink's ListView
// and MapView of the Java classes of their types (Row for a ROW, with the
// view's type in @StateHint); the bridge reads and writes them one call
// at a time, elements of BOOLEAN, integer, FLOAT, DOUBLE and STRING as
// they are, the others (rows, DECIMAL, TIMESTAMP, ARRAY) as the JSON that
// a row argument takes. onTimer declares every entry eval has,
// as Flink requires.
//
// # Unsupported
//
// Check, CheckChangelog and CheckScript refuse, with a message that names
// the feature and the file, what the bridge cannot run as ptfsh does:
// scalar functions with a ROW output, MapViews of other than BOOLEAN,
// integer, FLOAT, DOUBLE and STRING keys, views with MAP elements (or
// values), a changelog function with a scalar output, a scalar argument
// before a PASS_COLUMNS_THROUGH table (Flink 2.3 fails to generate code
// for it), and argument and output types the bridge does not convert
// (TIME, BYTES, ROW fields, MAP arguments, ...).
package flink

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"github.com/ptfsh/ptfsh/export/jsjava"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/template"
	"unicode"
)

//go:embed templates
var templates embed.FS

// Case is one SELECT ptfsh ran: the statements it needs, the SELECT last,
// and the rows ptfsh gave in Row.toString form. Cases makes them.
type Case struct {
	// Name names the case's files (a Java-friendly identifier).
	Name string
	// Statements are the setup statements then the SELECT, without the
	// final semicolons; a case of batch mode starts with BatchMode.
	Statements []string
	// Rows are the expected rows as Flink's Row.toString prints them
	// ([types.FormatRow]: +I[Bob, 12]), the lines of --format rows.
	Rows []string
	// Insert marks an INSERT into a Kafka table, the last statement: the
	// job that writes a topic, which goes into job.sql and into no test
	// (its output is a topic, not rows).
	Insert bool
}

// runtimeMode is the setting of Flink's runtime mode.
const runtimeMode = "execution.runtime-mode"

// BatchMode is the first statement of a case that ptfsh ran in batch mode:
// the exported test makes its environment one of batch mode, and job.sql
// sets the mode before the case's statements.
const BatchMode = "SET 'execution.runtime-mode' = 'batch'"

// Batch reports whether the case ran in batch mode.
func (c Case) Batch() bool { return len(c.Statements) > 0 && c.Statements[0] == BatchMode }

// Tests are the cases that are tests (not an INSERT of the job).
func (p Project) Tests() []Case {
	var out []Case
	for _, c := range p.Cases {
		if !c.Insert {
			out = append(out, c)
		}
	}
	return out
}

// Project is what Write writes.
type Project struct {
	// Def is the loaded function; Def.Name is the SQL name it is registered under.
	Def *ptf.FuncDef
	// File is the function's file as the user named it (for messages and comments).
	File string
	// Script is the bundled JavaScript: a script whose completion value is
	// the declaration object.
	Script string
	// Cases are the SELECTs to check on Flink; may be empty.
	Cases []Case
	// Changelog is the function's fixed changelog mode ("insert-only",
	// "retract", "upsert", "all"; "" for none); ChangelogFunc the function
	// form, which is refused (CheckChangelog).
	Changelog     string
	ChangelogFunc bool
	// Java is the function translated into Java ([Translate]); nil runs
	// the JavaScript in GraalJS.
	Java *jsjava.Java
}

// Check reports the first feature of def that the exported project could
// not run as ptfsh does, naming the feature and file.
func Check(def *ptf.FuncDef, file string) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s: export flink: %s is not supported yet", file, fmt.Sprintf(format, args...))
	}
	if strings.ContainsAny(def.Name, "\r\n") {
		return fmt.Errorf("%s: export flink: the function name %q cannot be written in Flink SQL: its quoted names hold no line breaks", file, def.Name)
	}
	if def.Scalar != nil {
		return checkScalar(def, file)
	}
	if def.Infer != nil {
		return fail("a built-in function with its own type inference")
	}
	scalar := ""
	for _, a := range def.Args {
		if !a.IsTable() && scalar == "" {
			scalar = a.Name
		}
		if a.IsTable() && a.Traits.Has(ptf.PassColumnsThrough) && scalar != "" {
			// Seen on Flink 2.3 (the conformance archive
			// process_row_semantic_table_pass_through_after_scalar): the
			// generated class fails in Flink's code generation.
			return fail("a scalar argument (%q) declared before the PASS_COLUMNS_THROUGH table %q (Flink 2.3 fails to generate code for the class: declare the table first)", scalar, a.Name)
		}
		if !flinkName.MatchString(a.Name) {
			return fmt.Errorf("%s: export flink: Invalid argument name '%s'. An argument must follow the pattern %s.", file, a.Name, flinkNamePattern)
		}
		if a.IsTable() {
			continue
		}
		if a.Type == nil || javaClass(*a.Type, true) == "" {
			return fail("the scalar argument type %s (argument %q)", typeName(a.Type), a.Name)
		}
	}
	for _, s := range def.State {
		if !flinkName.MatchString(s.Name) {
			return fmt.Errorf("%s: export flink: Invalid state name '%s'. A state entry must follow the pattern %s.", file, s.Name, flinkNamePattern)
		}
		switch {
		case s.Kind == ptf.MapState:
			if viewClass(*s.Type.Key) == "" || viewElemClass(*s.Type.Elem) == "" {
				return fail("MapView state of type %s (state %q; keys of BOOLEAN, integer, FLOAT, DOUBLE or STRING, and values of any type but MAP, are)", s.Type, s.Name)
			}
		case s.Kind == ptf.ListState:
			if viewElemClass(*s.Type.Elem) == "" {
				return fail("ListView state of type %s (state %q; elements of any type but MAP are)", s.Type, s.Name)
			}
		}
	}
	if def.Output.Kind == types.KindRow {
		for _, f := range def.Output.Fields {
			if javaClass(f.Type, false) == "" {
				return fail("the output field type %s (field %q)", f.Type, f.Name)
			}
		}
	} else if javaClass(def.Output, false) == "" {
		return fail("the output type %s", def.Output)
	}
	return nil
}

// checkScalar is Check for a scalar function (kind: "scalar"), which
// becomes a Flink ScalarFunction: its arguments and output of the types
// the bridge converts.
func checkScalar(def *ptf.FuncDef, file string) error {
	for _, a := range def.Args {
		if !flinkName.MatchString(a.Name) {
			return fmt.Errorf("%s: export flink: Invalid argument name '%s'. An argument must follow the pattern %s.", file, a.Name, flinkNamePattern)
		}
		if a.Type == nil || a.Type.Kind == types.KindDescriptor || javaClass(*a.Type, true) == "" {
			return fmt.Errorf("%s: export flink: the scalar argument type %s (argument %q) of a scalar function is not supported yet", file, typeName(a.Type), a.Name)
		}
	}
	if def.Output.Kind == types.KindRow || javaClass(def.Output, false) == "" {
		return fmt.Errorf("%s: export flink: the output type %s of a scalar function is not supported yet", file, def.Output)
	}
	return nil
}

// CheckChangelog reports whether the bridge can carry the changelog
// declaration of def (script.Changelog: mode is "insert-only", "retract",
// "upsert", "all" or "" for none; fn is the function form), naming the
// file. Both forms are carried (the class is a ChangelogFunction; the
// function form runs in a GraalJS context of its own when Flink plans),
// for a ROW output.
func CheckChangelog(def *ptf.FuncDef, mode string, fn bool, file string) error {
	if (fn || mode != "" && mode != "insert-only") && def.Output.Kind != types.KindRow {
		return fmt.Errorf("%s: export flink: a changelog function with the output %s is not supported yet (a ROW output is)", file, def.Output)
	}
	if def.ChangelogMode != nil && mode == "" && !fn {
		return fmt.Errorf("%s: export flink: a changelog function whose mode is not known is not supported yet", file)
	}
	return nil
}

// bridgeLacks are the methods of ptfsh's JavaScript API that the bridge
// does not carry to Flink, with what they are. It carries every method of
// ptf.d.ts today (the row methods, the timers, the views,
// tableSemanticsFor, getChangelogMode); a method that ptfsh gains before
// the bridge does goes here, so that the export refuses it by name.
var bridgeLacks = []struct{ name, what string }{}

var bridgeLacksRE = func() *regexp.Regexp {
	var names []string
	for _, l := range bridgeLacks {
		names = append(names, l.name)
	}
	if len(names) == 0 {
		return nil
	}
	return regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\b`)
}()

// CheckScript reports the first method of ptfsh's JavaScript API that the
// bundled script names and the bridge does not carry to Flink (found by
// name in the code, its imports included: a property of that name is
// refused as well, rather than fail on Flink).
func CheckScript(script, file string) error {
	if bridgeLacksRE == nil {
		return nil
	}
	m := bridgeLacksRE.FindStringSubmatch(script)
	if m == nil {
		return nil
	}
	for _, l := range bridgeLacks {
		if l.name == m[1] {
			return fmt.Errorf("%s: export flink: the function uses %s, which the Flink bridge does not carry yet", file, l.what)
		}
	}
	return nil
}

// flinkName is the pattern Flink requires of the names of arguments and
// state entries (StaticArgument.checkName, the state names of a PTF).
const flinkNamePattern = `[a-zA-Z_$][a-zA-Z_$0-9]*`

var flinkName = regexp.MustCompile(`^` + flinkNamePattern + `$`)

func typeName(t *types.Type) string {
	if t == nil {
		return "(none)"
	}
	return t.String()
}

// javaClass is the Java class, Flink's default conversion, of a type
// the bridge converts, "" otherwise: of an argument (input) or of the
// output. A MAP is not given to JavaScript: ptfsh gives a Map in an order
// that Flink's HashMap does not keep.
func javaClass(t types.Type, input bool) string {
	switch t.Kind {
	case types.KindBoolean:
		return "Boolean"
	case types.KindTinyInt:
		return "Byte"
	case types.KindSmallInt:
		return "Short"
	case types.KindInt:
		return "Integer"
	case types.KindBigInt:
		return "Long"
	case types.KindFloat:
		return "Float"
	case types.KindDouble:
		return "Double"
	case types.KindVarChar:
		if t.Length == types.MaxLength {
			return "String"
		}
	case types.KindDecimal:
		return "java.math.BigDecimal"
	case types.KindTimestamp:
		return "java.time.LocalDateTime"
	case types.KindTimestampLTZ:
		return "java.time.Instant"
	case types.KindDate:
		return "java.time.LocalDate"
	case types.KindIntervalDayTime:
		return "java.time.Duration"
	case types.KindIntervalYearMonth:
		return "java.time.Period"
	case types.KindDescriptor:
		if input {
			return "org.apache.flink.types.ColumnList"
		}
	case types.KindArray:
		if e := javaClass(*t.Elem, input); e != "" && !strings.Contains(e, "<") {
			return e + "[]"
		}
	case types.KindMap:
		k, v := javaClass(*t.Key, input), javaClass(*t.Elem, input)
		if !input && k != "" && v != "" && t.Key.Kind != types.KindArray && t.Key.Kind != types.KindMap {
			return "java.util.Map<" + k + ", " + v + ">"
		}
	}
	return ""
}

// viewClass is the Java class of an element, key or value of a ListView
// or MapView entry: the types whose values GraalJS and Flink exchange as
// they are; "" for the others.
func viewClass(t types.Type) string {
	switch t.Kind {
	case types.KindBoolean, types.KindTinyInt, types.KindSmallInt, types.KindInt, types.KindBigInt,
		types.KindFloat, types.KindDouble, types.KindVarChar:
		return javaClass(t, true)
	}
	return ""
}

// viewElemClass is the Java class of an element of a ListView or a value
// of a MapView, "" for a type the bridge does not convert: a type of
// viewClass, another type javaClass converts (DECIMAL, TIMESTAMP,
// ARRAY, ...) or a ROW of such types (Row). A MAP is not: ptfsh gives
// JavaScript a Map in an order that Flink's HashMap does not keep.
func viewElemClass(t types.Type) string {
	if c := viewClass(t); c != "" {
		return c
	}
	if t.Kind == types.KindMap || containsMap(t) {
		return ""
	}
	if t.Kind == types.KindRow {
		for _, f := range t.Fields {
			if viewElemClass(f.Type) == "" {
				return ""
			}
		}
		return "Row"
	}
	if t.Kind == types.KindArray && t.Elem.Kind == types.KindRow {
		if viewElemClass(*t.Elem) == "" {
			return ""
		}
		return "Row[]"
	}
	return javaClass(t, false)
}

// containsMap reports whether t holds a MAP at any depth.
func containsMap(t types.Type) bool {
	switch t.Kind {
	case types.KindMap:
		return true
	case types.KindArray:
		return containsMap(*t.Elem)
	case types.KindRow:
		for _, f := range t.Fields {
			if containsMap(f.Type) {
				return true
			}
		}
	}
	return false
}

// kindName is the bridge's name for a type javaClass supports: STRING,
// INT, ..., TIMESTAMP, TIMESTAMP_LTZ, DATE, INTERVAL_DT, DECIMAL(p,s),
// ARRAY<elem>, MAP<key,value>, without spaces, and for a ROW (of a view's
// elements) ROW<name kind,...>, each name escaped as a URL's query
// (url.QueryEscape, which JsFunction undoes with URLDecoder).
func kindName(t types.Type) string {
	switch t.Kind {
	case types.KindRow:
		fields := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			fields[i] = url.QueryEscape(f.Name) + " " + kindName(f.Type)
		}
		return "ROW<" + strings.Join(fields, ",") + ">"
	case types.KindVarChar:
		return "STRING"
	case types.KindTimestamp:
		return "TIMESTAMP"
	case types.KindTimestampLTZ:
		return "TIMESTAMP_LTZ"
	case types.KindIntervalDayTime:
		return "INTERVAL_DT"
	case types.KindIntervalYearMonth:
		return "INTERVAL_YM"
	case types.KindDecimal:
		return fmt.Sprintf("DECIMAL(%d,%d)", t.Length, t.Scale)
	case types.KindArray:
		return "ARRAY<" + kindName(*t.Elem) + ">"
	case types.KindMap:
		return "MAP<" + kindName(*t.Key) + "," + kindName(*t.Elem) + ">"
	default:
		return strings.Fields(t.Nullable().String())[0]
	}
}

// ClassName is the Java class name of a function: the ASCII letters,
// digits and _ of its SQL name, the first letter upper-cased; "Fn" comes
// first when that does not start with a letter, and "Function" last when
// it is a name the project's Java uses otherwise (JsFunction, Row,
// String, ...). So any name gives a valid and harmless class name, the
// name of its file too.
func ClassName(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r == '_' || isASCIILetter(r) || '0' <= r && r <= '9' {
			if b.Len() == 0 {
				r = unicode.ToUpper(r)
			}
			b.WriteRune(r)
		}
	}
	s := b.String()
	if s == "" || !isASCIILetter(rune(s[0])) {
		s = "Fn" + s
	}
	if javaTakenClasses[s] {
		s += "Function"
	}
	return s
}

func isASCIILetter(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }

// javaTakenClasses are the simple class names that the generated class
// and its neighbours use: a class of that name in package ptfsh.flink
// would hide them (or overwrite a generated file).
var javaTakenClasses = map[string]bool{}

func init() {
	for _, c := range strings.Fields(`JsFunction ExportedCasesTest ArgumentHint ArgumentTrait DataTypeHint
		StateHint FunctionContext ProcessTableFunction Row Context OnTimerContext TimeContext ListView MapView
		ChangelogMode ChangelogFunction ChangelogContext RowKind TableSemantics Object String Boolean Byte Short
		Integer Long Float Double Exception Override System Math Class Void Character Number JsRt`) {
		javaTakenClasses[c] = true
	}
}

// resourceName is the class path resource of the bundled script.
func resourceName(def *ptf.FuncDef) string {
	return "/ptfsh/" + ClassName(def.Name) + ".js"
}

type classArg struct{ Hint, JavaClass, Param string }
type classState struct{ Name, Param, TTL, Type, Hint string }

// ClassSource returns the Java source of the generated ProcessTableFunction
// of p's function. Call Check first.
func ClassSource(p Project) (string, error) {
	def := p.Def
	if def.Scalar != nil {
		return scalarSource(p)
	}
	data := struct {
		Class, File, Resource, Output, OutClass string
		OutNames, OutKinds, ArgNames, ArgTables string
		States                                  []classState
		Args                                    []classArg
		StateParams, ArgParams                  string
		OnTimer, ChangelogFunc                  bool
		Changelog, StateKinds                   string
		// The translated function's (Compiled.java.tmpl).
		CStates               []compiledState
		CArgs                 []compiledArg
		Fields, Init, Methods string
		Eval, TimerBody       string
	}{
		Class: ClassName(def.Name), File: javaComment(filepath.ToSlash(p.File)), Resource: resourceName(def),
		Output: javaString(flinkType(def.Output)), OnTimer: def.HasOnTimer, ChangelogFunc: p.ChangelogFunc,
	}
	switch p.Changelog {
	case "":
		if p.ChangelogFunc {
			data.Changelog = fmt.Sprintf(`JsFunction.changelogMode("%s", changelogContext)`, data.Resource)
		}
	case "retract", "all":
		data.Changelog = "ChangelogMode.all()"
	case "upsert":
		// Deletes by key when the consumer accepts that, as ptfsh does.
		data.Changelog = "ChangelogMode.upsert(changelogContext.getRequiredChangelogMode().keyOnlyDeletes())"
	}
	used := map[string]bool{"ctx": true, "v": true, "cx": true}
	param := func(name string) string {
		p := javaIdent(name)
		for used[p] || javaKeywords[p] {
			p += "_"
		}
		used[p] = true
		return p
	}
	var argNames, argTables, argParams, stateParams []string
	for _, s := range def.State {
		cs := classState{Name: javaString(s.Name), Param: param("state_" + s.Name),
			Type: "Row", Hint: `, type = @DataTypeHint("ROW<json STRING>")`}
		switch s.Kind {
		case ptf.ListState:
			cs.Type, cs.Hint = "ListView<"+viewElemClass(*s.Type.Elem)+">", ""
		case ptf.MapState:
			cs.Type, cs.Hint = "MapView<"+viewClass(*s.Type.Key)+", "+viewElemClass(*s.Type.Elem)+">", ""
		}
		if s.Kind != ptf.ValueState && viewClass(*s.Type.Elem) == "" {
			// Flink cannot find the elements' type in the Java class
			// (Row, BigDecimal, ...): the view's type says it.
			cs.Hint = fmt.Sprintf(", type = @DataTypeHint(\"%s\")", javaString(flinkType(*s.Type)))
		}
		if s.TTLSet {
			// Flink's duration syntax; 0 disables TTL, as in ptfsh.
			cs.TTL = fmt.Sprintf(`, ttl = "%d ms"`, s.TTL.Milliseconds())
		}
		data.States = append(data.States, cs)
		stateParams = append(stateParams, cs.Param)
	}
	for _, a := range def.Args {
		ca := classArg{Param: param(a.Name)}
		var traits []string
		for _, tn := range ptf.TraitNames() {
			t, _ := ptf.ParseTrait(tn)
			if a.Traits.Has(t) {
				traits = append(traits, "ArgumentTrait."+tn)
			}
		}
		if a.IsTable() {
			ca.JavaClass = "Row"
			ca.Hint = fmt.Sprintf("@ArgumentHint(value = {%s}, name = \"%s\"", strings.Join(traits, ", "), javaString(a.Name))
			if a.Type != nil {
				// A typed table: Flink maps the columns to its fields by position.
				ca.Hint += fmt.Sprintf(", type = @DataTypeHint(\"%s\")", javaString(flinkType(*a.Type)))
			}
		} else {
			ca.JavaClass = javaClass(*a.Type, true)
			ca.Hint = fmt.Sprintf("@ArgumentHint(name = \"%s\", type = @DataTypeHint(\"%s\")", javaString(a.Name), javaString(flinkType(*a.Type)))
		}
		if a.Optional {
			ca.Hint += ", isOptional = true"
		}
		ca.Hint += ")"
		data.Args = append(data.Args, ca)
		argNames = append(argNames, `"`+javaString(a.Name)+`"`)
		argTables = append(argTables, fmt.Sprint(a.IsTable()))
		argParams = append(argParams, ca.Param)
	}
	if def.Output.Kind == types.KindRow {
		data.OutClass = "Row"
		var names, kinds []string
		for _, f := range def.Output.Fields {
			names = append(names, `"`+javaString(f.Name)+`"`)
			kinds = append(kinds, `"`+kindName(f.Type)+`"`)
		}
		data.OutNames = "{" + strings.Join(names, ", ") + "}"
		data.OutKinds = "{" + strings.Join(kinds, ", ") + "}"
	} else {
		data.OutClass = javaClass(def.Output, false)
		data.OutNames = "null"
		data.OutKinds = `{"` + kindName(def.Output) + `"}`
	}
	data.ArgNames = "{" + strings.Join(argNames, ", ") + "}"
	data.ArgTables = "{" + strings.Join(argTables, ", ") + "}"
	data.ArgParams = strings.Join(argParams, ", ")
	data.StateParams = strings.Join(stateParams, ", ")
	var stateKinds []string
	for _, s := range def.State {
		switch s.Kind {
		case ptf.ListState:
			stateKinds = append(stateKinds, `"LIST<`+kindName(*s.Type.Elem)+`>"`)
		case ptf.MapState:
			stateKinds = append(stateKinds, `"MAP<`+kindName(*s.Type.Key)+","+kindName(*s.Type.Elem)+`>"`)
		case ptf.ValueState:
			if s.Type != nil && s.Type.Kind == types.KindRow {
				// A typed entry starts as an object of its fields, all
				// null (unless it has a default), as in ptfsh, and is
				// checked after each call against the fields' types.
				b, _ := json.Marshal(checkType(*s.Type))
				stateKinds = append(stateKinds, `"`+javaString("VALUE:"+string(b))+`"`)
				continue
			}
			stateKinds = append(stateKinds, `"VALUE"`)
		default:
			stateKinds = append(stateKinds, `"VALUE"`)
		}
	}
	data.StateKinds = "{" + strings.Join(stateKinds, ", ") + "}"
	if j := p.Java; j != nil {
		for i, s := range data.States {
			data.CStates = append(data.CStates, compiledState{Index: i, Name: s.Name, Param: s.Param, Default: j.Defaults[i]})
		}
		for i, a := range data.Args {
			data.CArgs = append(data.CArgs, compiledArg{Index: i, Param: a.Param, Table: def.Args[i].IsTable()})
		}
		data.Fields, data.Init, data.Methods = j.Fields, j.Init, j.Methods
		data.Eval, data.TimerBody = j.Eval, j.OnTimer
		return execTemplate("Compiled.java.tmpl", data)
	}
	return execTemplate("Function.java.tmpl", data)
}

type compiledState struct {
	Index                int
	Name, Param, Default string
}

type compiledArg struct {
	Index int
	Param string
	Table bool
}

// Translate translates p's function into Java for the class that
// Compiled.java.tmpl writes, or says why it cannot: a feature of the
// declaration that the translated class does not carry (views, typed
// state, changelog, a scalar function, MAP or ROW outputs), or the
// JavaScript construct that [jsjava.Translate] does not take. The
// export then keeps GraalJS (Project.Java nil).
func Translate(p Project) (*jsjava.Java, error) {
	def := p.Def
	switch {
	case def.Scalar != nil:
		return nil, errors.New("a scalar function")
	case p.Changelog != "" && p.Changelog != "insert-only" || p.ChangelogFunc || def.ChangelogMode != nil:
		return nil, errors.New("a changelog declaration")
	}
	f := jsjava.Func{OnTimer: def.HasOnTimer}
	for _, s := range def.State {
		if s.Kind != ptf.ValueState {
			return nil, fmt.Errorf("the view state %q", s.Name)
		}
		if s.Type != nil {
			return nil, fmt.Errorf("the typed state %q", s.Name)
		}
		f.States = append(f.States, s.Name)
	}
	for _, a := range def.Args {
		f.Args = append(f.Args, jsjava.Arg{Name: a.Name, Table: a.IsTable()})
	}
	outs := []types.Type{def.Output}
	if def.Output.Kind == types.KindRow {
		outs = nil
		for _, fl := range def.Output.Fields {
			outs = append(outs, fl.Type)
		}
	}
	for _, t := range outs {
		if containsMap(t) || t.Kind == types.KindRow || t.Kind == types.KindArray && t.Elem.Kind == types.KindRow {
			return nil, fmt.Errorf("the output type %s", t)
		}
	}
	return jsjava.Translate(p.Script, f)
}

// scalarSource is ClassSource for a scalar function: a ScalarFunction
// whose eval has the declared arguments (@ArgumentHint: name, type,
// isOptional) and output (@DataTypeHint), and calls the bridge.
func scalarSource(p Project) (string, error) {
	def := p.Def
	data := struct {
		Class, File, Resource, Output, OutClass, OutKinds, ArgParams string
		Args                                                         []classArg
	}{
		Class: ClassName(def.Name), File: javaComment(filepath.ToSlash(p.File)), Resource: resourceName(def),
		Output: javaString(flinkType(def.Output)), OutClass: javaClass(def.Output, false),
		OutKinds: `{"` + kindName(def.Output) + `"}`,
	}
	used := map[string]bool{"js": true, "context": true}
	var params []string
	for _, a := range def.Args {
		param := javaIdent(a.Name)
		for used[param] || javaKeywords[param] {
			param += "_"
		}
		used[param] = true
		hint := fmt.Sprintf("@ArgumentHint(name = \"%s\", type = @DataTypeHint(\"%s\")", javaString(a.Name), javaString(flinkType(*a.Type)))
		if a.Optional {
			hint += ", isOptional = true"
		}
		data.Args = append(data.Args, classArg{Hint: hint + ")", JavaClass: javaClass(*a.Type, true), Param: param})
		params = append(params, param)
	}
	data.ArgParams = strings.Join(params, ", ")
	return execTemplate("ScalarFunction.java.tmpl", data)
}

// checkType describes t for the bridge's check of typed state (fits, in
// JsFunction's WRAPPER), which takes what ptfsh's conversion of a value
// to t takes: a name for a scalar type ("BOOLEAN", "TINYINT", ...,
// "DOUBLE", "STRING", "DECIMAL", "TIMEPOINT" for DATE and TIMESTAMP(_LTZ),
// "TIME", "INTERVAL_DT", "INTERVAL_YM", "BYTES", "ANY" for the others),
// {"array": elem}, {"map": [key, value]} or {"row": [[name, type], ...]}.
func checkType(t types.Type) any {
	switch t.Kind {
	case types.KindBoolean:
		return "BOOLEAN"
	case types.KindTinyInt:
		return "TINYINT"
	case types.KindSmallInt:
		return "SMALLINT"
	case types.KindInt:
		return "INT"
	case types.KindBigInt:
		return "BIGINT"
	case types.KindDecimal:
		return "DECIMAL"
	case types.KindFloat, types.KindDouble:
		return "DOUBLE"
	case types.KindChar, types.KindVarChar:
		return "STRING"
	case types.KindDate, types.KindTimestamp, types.KindTimestampLTZ:
		return "TIMEPOINT"
	case types.KindTime:
		return "TIME"
	case types.KindIntervalDayTime:
		return "INTERVAL_DT"
	case types.KindIntervalYearMonth:
		return "INTERVAL_YM"
	case types.KindBinary, types.KindVarBinary:
		return "BYTES"
	case types.KindArray:
		return map[string]any{"array": checkType(*t.Elem)}
	case types.KindMap:
		return map[string]any{"map": []any{checkType(*t.Key), checkType(*t.Elem)}}
	case types.KindRow:
		fields := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			fields[i] = []any{f.Name, checkType(f.Type)}
		}
		return map[string]any{"row": fields, "type": t.String()}
	}
	return "ANY"
}

func execTemplate(name string, data any) (string, error) {
	t, err := template.ParseFS(templates, "templates/"+name)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// javaIdent is a Java identifier for a name: its ASCII letters, digits
// (but for the first character) and _, each other character as _. The
// caller adds _ after keywords (javaKeywords, _ included).
func javaIdent(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '_' || isASCIILetter(r) || (b.Len() > 0 && '0' <= r && r <= '9'):
			b.WriteRune(r)
		default:
			b.WriteRune('_')
		}
	}
	if b.Len() == 0 {
		return "arg"
	}
	return b.String()
}

// javaString escapes s for the inside of a Java string literal: \, " and
// the control characters. These get \n, \r, \t or an octal escape of
// three digits, never \u: Java replaces a \u escape by its character
// before it reads the literal, so \u000a would end the line.
func javaString(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\%03o`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// javaComment makes s safe inside a Java comment: backslashes doubled (no
// \u escape can make a line break), */ broken up and control characters
// shown as ?.
func javaComment(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, "*/", `*\/`)
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' {
			return '?'
		}
		return r
	}, s)
}

// sqlIdent quotes name as a Flink SQL identifier: always between
// backquotes (Flink reserves more words than ptfsh), backquotes inside
// doubled.
func sqlIdent(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

// sqlString quotes s as a Flink SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// flinkType is t as Flink's type parser reads it in @DataTypeHint:
// Type.String, with the backquotes in the names of ROW fields (at any
// depth) doubled.
func flinkType(t types.Type) string {
	notNull := ""
	if t.NotNull {
		notNull = " NOT NULL"
	}
	switch t.Kind {
	case types.KindArray:
		return "ARRAY<" + flinkType(*t.Elem) + ">" + notNull
	case types.KindMap:
		return "MAP<" + flinkType(*t.Key) + ", " + flinkType(*t.Elem) + ">" + notNull
	case types.KindRow:
	default:
		return t.String()
	}
	var b strings.Builder
	b.WriteString("ROW<")
	for i, f := range t.Fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(sqlIdent(f.Name) + " " + flinkType(f.Type))
	}
	b.WriteString(">")
	if t.NotNull {
		b.WriteString(" NOT NULL")
	}
	return b.String()
}

var javaKeywords = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`abstract assert boolean break byte case catch char class const continue
		default do double else enum extends final finally float for goto if implements import instanceof
		int interface long native new package private protected public return short static strictfp super
		switch synchronized this throw throws transient try void volatile while true false null var record yield
		sealed permits _`) {
		javaKeywords[k] = true
	}
}

// Write writes the Maven project of p into dir (created if needed). It
// checks the function first and writes nothing when Check fails.
func Write(dir string, p Project) error {
	if err := Check(p.Def, p.File); err != nil {
		return err
	}
	if err := CheckScript(p.Script, p.File); err != nil {
		return err
	}
	if err := CheckChangelog(p.Def, p.Changelog, p.ChangelogFunc, p.File); err != nil {
		return err
	}
	class, err := ClassSource(p)
	if err != nil {
		return err
	}
	cls := ClassName(p.Def.Name)
	artifact := strings.ToLower(strings.ReplaceAll(cls, "_", "-")) + "-flink"
	provided := connectorArtifacts(p.Cases)
	kafkaVersion := "" // the pom's property, where a table needs it
	for _, a := range provided {
		if a.ID == "flink-connector-kafka" {
			kafkaVersion = KafkaConnectorVersion
		}
	}
	pom, err := execTemplate("pom.xml.tmpl", struct {
		Artifact     string
		Provided     []Artifact
		KafkaVersion string
	}{artifact, provided, kafkaVersion})
	if err != nil {
		return err
	}
	clientPom, err := execTemplate("sql-client.pom.xml.tmpl", struct {
		Artifact     string
		Artifacts    []Artifact
		KafkaVersion string
	}{artifact, sqlClientArtifacts(provided), ""})
	if err != nil {
		return err
	}
	clientConf, err := templates.ReadFile("templates/sql-client.config.yaml")
	if err != nil {
		return err
	}
	reg, err := execTemplate("register.sql.tmpl", struct{ Name, Class string }{sqlIdent(p.Def.Name), sqlString("ptfsh.flink." + cls)})
	if err != nil {
		return err
	}
	bridge, err := templates.ReadFile("templates/JsFunction.java")
	if err != nil {
		return err
	}
	test, err := templates.ReadFile("templates/ExportedCasesTest.java")
	if err != nil {
		return err
	}
	files := map[string]string{
		"pom.xml": pom,
		"src/main/java/ptfsh/flink/JsFunction.java":        string(bridge),
		"src/main/java/ptfsh/flink/" + cls + ".java":       class,
		"src/main/resources" + resourceName(p.Def):         p.Script,
		"src/main/resources/ptfsh/register.sql":            reg,
		"src/test/java/ptfsh/flink/ExportedCasesTest.java": string(test),
		"sql-client/pom.xml":                               clientPom,
		"sql-client/config.yaml":                           string(clientConf),
	}
	if p.Java != nil {
		rt, err := templates.ReadFile("templates/JsRt.java")
		if err != nil {
			return err
		}
		files["src/main/java/ptfsh/flink/JsRt.java"] = string(rt)
	}
	var index strings.Builder
	for _, c := range p.Tests() {
		index.WriteString(c.Name + "\n")
		files["src/test/resources/ptfsh/cases/"+c.Name+".sql"] = strings.Join(c.Statements, ";\n") + ";\n"
		rows := strings.Join(c.Rows, "\n")
		if rows != "" {
			rows += "\n"
		}
		files["src/test/resources/ptfsh/cases/"+c.Name+".out"] = rows
	}
	files["src/test/resources/ptfsh/cases/index.txt"] = index.String()
	files["job.sql"] = jobSQL(reg, artifact, p)
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}
