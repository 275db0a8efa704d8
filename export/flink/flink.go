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
	"os"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/ptfsh/ptfsh/export/jsjava"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
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
