package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/connector"
	"github.com/ptfsh/ptfsh/runtime/plan"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
)

// CREATE and DROP: the statements that change the catalog. CREATE TABLE
// itself is in table.go.

// execCreate runs a CREATE statement: of a function, a view, a table or a
// stream.
func (s *Session) execCreate(ctx context.Context, c *sqlmini.Create) error {
	switch {
	case c.Function != nil:
		return s.createFunction(ctx, c, c.Function)
	case c.View != nil:
		return s.createView(c, c.View)
	case c.Table != nil:
		return s.createTable(c, c.Table)
	case c.Stream != nil:
		return s.createStream(c, c.Stream) // stream.go
	}
	return sqlmini.Errorf(c.Pos, "unsupported CREATE")
}

func (s *Session) createFunction(ctx context.Context, c *sqlmini.Create, f *sqlmini.CreateFunction) error {
	name := string(f.Name.Value)
	if c.OrReplace && f.IfNotExists {
		return sqlmini.Errorf(f.Pos, "CREATE OR REPLACE and IF NOT EXISTS cannot be used together")
	}
	lookup := s.cat.CatalogFunction
	kind := "function"
	if c.Temporary {
		lookup, kind = s.cat.TemporaryFunction, "temporary function"
	}
	if old, ok := lookup(name); ok {
		if f.IfNotExists {
			return nil
		}
		if old.BuiltIn {
			return sqlmini.Errorf(f.Name.Pos, "function '%s' is a built-in function and cannot be replaced", name)
		}
		if !c.OrReplace {
			return sqlmini.Errorf(f.Name.Pos, "%s '%s' already exists; DROP %s %s first, or use CREATE %s IF NOT EXISTS", kind, name, strings.ToUpper(kind), name, strings.ToUpper(kind))
		}
	}
	if old, ok := s.cat.CatalogFunction(name); ok && old.BuiltIn && !c.Temporary {
		return sqlmini.Errorf(f.Name.Pos, "function '%s' is a built-in function and cannot be replaced", name)
	}
	lang := strings.ToUpper(f.Language())
	switch lang {
	case "", "JAVASCRIPT", "JS", "TYPESCRIPT":
	default:
		if strings.EqualFold(lang, "PYTHON") {
			return sqlmini.Errorf(f.Pos, "unsupported language PYTHON: ptfsh runs no Python functions; write the function in JavaScript (or TypeScript): CREATE FUNCTION name AS 'fn.js' LANGUAGE JAVASCRIPT, or LANGUAGE JAVASCRIPT AS $$ ... $$")
		}
		return sqlmini.Errorf(f.Pos, "unsupported language %s: ptfsh runs JAVASCRIPT (and TypeScript files)", lang)
	}
	if s.cfg.Loader == nil {
		return sqlmini.Errorf(f.Pos, "no script engine is configured")
	}
	fn := &catalog.Function{Temporary: c.Temporary, Create: c}
	// src is the function's code, inline or of the file (then file).
	var src, file string
	if body, ok := f.Source(); ok {
		src = body
	} else {
		fn.Path = string(*f.Path)
		file = s.path(fn.Path)
		if s.cfg.FunctionDir != "" && !filepath.IsAbs(fn.Path) {
			if _, err := os.Stat(file); err != nil {
				if alt := filepath.Join(s.cfg.FunctionDir, fn.Path); fileExists(alt) {
					file = alt
				}
			}
		}
		if abs, err := filepath.Abs(file); err == nil {
			fn.Files = watchFiles(abs) // before the files are read
		}
		code, err := s.readFunctionFile(file)
		if err != nil {
			return sqlmini.Errorf(f.Pos, "cannot read function file '%s': %v", fn.Path, connector.RootCause(err))
		}
		src = code
	}
	def, err := s.load(ctx, name, file, src)
	if err != nil {
		return types.At(f.Name.Pos, err)
	}
	def.Name = name
	if err := checkDeclaration(def); err != nil {
		return sqlmini.Errorf(f.Name.Pos, "%w", err)
	}
	fn.Def = def
	s.cat.AddFunction(fn)
	s.noteFlinkTimers(f.Name.Pos, name, src)
	return nil
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir()
}

// checkDeclaration applies Flink's rules for a PTF's declaration.
func checkDeclaration(def *ptf.FuncDef) error {
	seen := map[string]bool{}
	for _, a := range def.Args {
		if a.Name == plan.ArgOnTime || a.Name == plan.ArgUID {
			return fmt.Errorf("Function signature must not declare system arguments. Reserved argument names are: [on_time, uid]")
		}
		if seen[a.Name] {
			return fmt.Errorf("argument '%s' is declared twice", a.Name)
		}
		seen[a.Name] = true
		if a.Traits.Has(ptf.RowSemanticTable | ptf.SetSemanticTable) {
			return fmt.Errorf("argument '%s' cannot have both ROW_SEMANTIC_TABLE and SET_SEMANTIC_TABLE", a.Name)
		}
		if a.Traits.Has(ptf.SupportUpdates) && a.Type != nil {
			return fmt.Errorf("Table arguments that support updates must use a row type.")
		}
	}
	return nil
}

func (s *Session) createView(c *sqlmini.Create, v *sqlmini.CreateView) error {
	name := string(v.Name.Value)
	if err := s.checkNewTable(c, v.Name, true); err != nil {
		return err
	}
	n, err := plan.New(s.cat, s.sourceEnv()).View(v.Query)
	if err != nil {
		return err
	}
	t := &catalog.Table{Name: name, Kind: catalog.TableView, Query: v.Query, Temporary: c.Temporary, Pos: v.Pos, Schema: n.Schema(), Create: c}
	if len(v.Columns) > 0 {
		if len(v.Columns) != n.Schema().Len() {
			return sqlmini.Errorf(v.Pos, "view '%s' names %d columns but its query has %d: %s", name, len(v.Columns), n.Schema().Len(), n.Schema().ColumnList())
		}
		cols := make([]types.Column, len(v.Columns))
		copy(cols, n.Schema().Columns)
		for i, cn := range v.Columns {
			t.ColumnNames = append(t.ColumnNames, string(cn.Value))
			cols[i].Name = string(cn.Value)
		}
		t.Schema = types.Schema{Columns: cols}
	}
	s.cat.AddTable(t)
	return nil
}

// checkNewTable checks that a view (view) or table of CREATE may take
// its name: none has it, or CREATE OR REPLACE replaces one of its kind.
func (s *Session) checkNewTable(c *sqlmini.Create, n *sqlmini.Name, view bool) error {
	name := string(n.Value)
	old, ok := s.cat.Table(name)
	if !ok {
		return nil
	}
	if !c.OrReplace {
		return sqlmini.Errorf(n.Pos, "table or view '%s' already exists", name)
	}
	if isView := old.Kind == catalog.TableView; isView != view {
		what, other := "a table", "VIEW"
		if isView {
			what, other = "a view", "TABLE"
		}
		return sqlmini.Errorf(n.Pos, "'%s' is %s: CREATE OR REPLACE %s cannot replace it; DROP it first", name, what, other)
	}
	return nil
}

func (s *Session) execDrop(d *sqlmini.Drop) error {
	if d.State != nil {
		return s.execDropState(d)
	}
	name := string(d.Name.Value)
	switch strings.ToUpper(d.Kind) {
	case "FUNCTION":
		if d.Temporary {
			if _, ok := s.cat.TemporaryFunction(name); !ok {
				if d.IfExists {
					return nil
				}
				return sqlmini.Errorf(d.Name.Pos, "temporary function '%s' does not exist", name)
			}
			s.cat.DropFunction(name, true)
			return nil
		}
		f, ok := s.cat.CatalogFunction(name)
		if _, temp := s.cat.TemporaryFunction(name); temp {
			return sqlmini.Errorf(d.Name.Pos, "Could not drop catalog function. A temporary function '%s' does already exist. Please drop the temporary function first.", name)
		}
		if !ok {
			if d.IfExists {
				return nil
			}
			return sqlmini.Errorf(d.Name.Pos, "function '%s' does not exist", name)
		}
		if f.BuiltIn {
			return sqlmini.Errorf(d.Name.Pos, "function '%s' is a built-in function and cannot be dropped", name)
		}
		s.cat.DropFunction(name, false)
	default:
		if _, ok := s.cat.Table(name); !ok {
			if d.IfExists {
				return nil
			}
			return sqlmini.Errorf(d.Name.Pos, "%s '%s' does not exist", strings.ToLower(d.Kind), name)
		}
		s.cat.DropTable(name)
		s.streamDropped(name) // stream.go
	}
	return nil
}
