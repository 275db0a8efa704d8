package flink

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"unicode"

	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// Runner runs the statements of a script in ptfsh. The wiring (cmd/ptfsh)
// implements it over a session, so that this package needs no engine.
// Errors are returned as they should be shown (the wiring adds the source
// line and caret).
type Runner interface {
	// Exec runs a statement that is not a query: CREATE, DROP, SET,
	// INSERT, SHOW, ... (what it prints is not part of a case).
	Exec(ctx context.Context, st *sqlmini.Statement) error
	// Query runs a query and returns its columns and its rows, each with
	// its kind, in the order ptfsh produced them.
	Query(ctx context.Context, st *sqlmini.Statement) (types.Schema, []types.Row, error)
}

// Script is a ptfsh script whose SELECTs become the cases of a project.
type Script struct {
	// Path names the script in notes and parse errors; Source is its text.
	Path, Source string
	// Name is the SQL name of the exported function and File its file (an
	// absolute path). When the script has no CREATE FUNCTION of Name,
	// Cases registers File under Name first, as a temporary function.
	Name, File string
	// Notes receives a line for each SELECT left out (nil: none).
	Notes io.Writer
}

// Cases runs the script's statements one by one through r and returns a
// case per SELECT: the CREATE VIEW and CREATE TABLE statements before it
// (less those dropped since), the SELECT, and the rows ptfsh gave, in
// Row.toString form. Other statements (CREATE FUNCTION, SET, SHOW,
// INSERT, ...) run in ptfsh only.
//
// The project registers only the exported function. So a SELECT that
// calls another function the script creates is left out, with a note; a
// view that calls one is not part of any case, and a SELECT that reads
// such a view is left out too. Calls are found in the statements' syntax
// trees (PTF calls in FROM and in table arguments, at any depth, and
// function calls in expressions), names compared as Flink compares
// function names, without regard to case.
//
// The first statement that fails to parse or to run stops Cases with its
// error.
func Cases(ctx context.Context, r Runner, s Script) ([]Case, error) {
	notes := s.Notes
	if notes == nil {
		notes = io.Discard
	}
	parsed := sqlmini.ParseEach(s.Path, s.Source)
	others := map[string]string{} // lower-cased name → name, of the other functions
	declared := false
	for _, p := range parsed {
		if p.Err != nil || p.Stmt.Create == nil || p.Stmt.Create.Function == nil {
			continue
		}
		n := string(p.Stmt.Create.Function.Name.Value)
		if strings.EqualFold(n, s.Name) {
			declared = true
		} else if _, ok := others[strings.ToLower(n)]; !ok {
			others[strings.ToLower(n)] = n
		}
	}
	if !declared {
		if err := r.Exec(ctx, registration(s.Name, s.File)); err != nil {
			return nil, err
		}
	}
	// tainted holds the views that call another function (directly or
	// through another view), with the function.
	tainted := map[string]string{}
	type setupStmt struct{ name, text string }
	var setup []setupStmt
	var cases []Case
	for _, p := range parsed {
		if p.Err != nil {
			return nil, p.Err
		}
		st := p.Stmt
		if st.Query != nil {
			if fn, view := otherCall(st.Query, others, tainted); fn != "" {
				how := "calls " + fn
				if view != "" {
					how = "reads view " + view + ", which calls " + fn
				}
				fmt.Fprintf(notes, "note: %s:%d: skipped, it %s, which is not exported with %s\n", s.Path, st.Pos.Line, how, s.Name)
				continue
			}
			schema, rows, err := r.Query(ctx, st)
			if err != nil {
				return nil, err
			}
			stmts := make([]string, 0, len(setup)+1)
			for _, u := range setup {
				stmts = append(stmts, u.text)
			}
			c := Case{Name: fmt.Sprintf("case%02d", len(cases)+1), Statements: append(stmts, st.Text), Rows: []string{}}
			for _, row := range rows {
				c.Rows = append(c.Rows, types.FormatRow(row, schema))
			}
			cases = append(cases, c)
			continue
		}
		if err := r.Exec(ctx, st); err != nil {
			return nil, err
		}
		switch c := st.Create; {
		case c != nil && c.View != nil:
			name := string(c.View.Name.Value)
			if fn, _ := otherCall(c.View.Query, others, tainted); fn != "" {
				tainted[name] = fn
				continue
			}
			setup = append(setup, setupStmt{name, st.Text})
		case c != nil && c.Table != nil:
			setup = append(setup, setupStmt{string(c.Table.Name.Value), st.Text})
		case st.Drop != nil && st.Drop.Name != nil && !strings.EqualFold(st.Drop.Kind, "FUNCTION"):
			name := string(st.Drop.Name.Value)
			delete(tainted, name)
			for i, u := range setup {
				if u.name == name {
					setup = append(setup[:i], setup[i+1:]...)
					break
				}
			}
		}
	}
	return cases, nil
}

// registration is CREATE TEMPORARY FUNCTION name AS 'file', built as a
// syntax tree rather than parsed from text, so that no name or path can
// change what it says.
func registration(name, file string) *sqlmini.Statement {
	path := sqlmini.Str(file)
	st := &sqlmini.Statement{Create: &sqlmini.Create{Temporary: true, Function: &sqlmini.CreateFunction{
		Name: &sqlmini.Name{Value: sqlmini.Ident(name)},
		Path: &path,
	}}}
	st.Text = st.String()
	return st
}

// otherCall returns the first function of others that q calls, and, when
// it calls it through a view of tainted, that view; "" when there is
// none. Names that q defines in a WITH clause are its own, not views.
func otherCall(q *sqlmini.Query, others, tainted map[string]string) (fn, view string) {
	ctes := map[string]bool{}
	walk(reflect.ValueOf(q), func(n any) {
		if c, ok := n.(*sqlmini.CTE); ok && c.Name != nil {
			ctes[string(c.Name.Value)] = true
		}
	})
	walk(reflect.ValueOf(q), func(n any) {
		if fn != "" {
			return
		}
		var called, read *sqlmini.Name
		switch n := n.(type) {
		case *sqlmini.Call:
			called = n.Name
		case *sqlmini.FuncCall:
			called = n.Name
		case *sqlmini.FromItem:
			read = n.Table
		case *sqlmini.TableArg:
			read = n.Name
		}
		if called != nil {
			fn = others[strings.ToLower(string(called.Value))]
		}
		if read != nil && !ctes[string(read.Value)] {
			if f, ok := tainted[string(read.Value)]; ok {
				fn, view = f, string(read.Value)
			}
		}
	})
	return fn, view
}

// walk calls visit with every node of a syntax tree under v, parents
// before children: each pointer to a sqlmini struct. It follows the
// exported fields of structs, pointers and slices, so that a node the
// grammar gains later is visited without a change here.
func walk(v reflect.Value, visit func(any)) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if v.Elem().Kind() == reflect.Struct {
			visit(v.Interface())
		}
		walk(v.Elem(), visit)
	case reflect.Struct:
		t := v.Type()
		for i := range v.NumField() {
			if t.Field(i).IsExported() {
				walk(v.Field(i), visit)
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			walk(v.Index(i), visit)
		}
	}
}

// FunctionName is the SQL name to export the function file absFile under:
// the name of the script's CREATE FUNCTION of that file (its path relative
// to the script's folder), else the file's base name in CamelCase
// (greeting_with_memory.js: GreetingWithMemory). scriptFile and src may be
// empty.
func FunctionName(absFile, scriptFile, src string) string {
	for _, p := range sqlmini.ParseEach(scriptFile, src) {
		if p.Err != nil || p.Stmt.Create == nil || p.Stmt.Create.Function == nil || p.Stmt.Create.Function.Path == nil {
			continue
		}
		f := p.Stmt.Create.Function
		path := string(*f.Path)
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(scriptFile), path)
		}
		if abs, err := filepath.Abs(path); err == nil && abs == absFile {
			return string(f.Name.Value)
		}
	}
	base := strings.TrimSuffix(filepath.Base(absFile), filepath.Ext(absFile))
	var b strings.Builder
	up := true
	for _, r := range base {
		if r == '_' || r == '-' || r == '.' {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	return b.String()
}
