package tests

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// TestDocComments_nameTheirIdentifier: the doc comment of an exported
// identifier (a function, method, type, field, constant or variable of
// the module's non-test code) starts with the identifier, not with
// another identifier's name: a comment that begins with a lowercase name
// in camel case ("newPtfOp returns ...") or with the identifier in
// lowercase ("close flushes ...") is the name the code had before it was
// exported or renamed.
func TestDocComments_nameTheirIdentifier(t *testing.T) {
	for _, p := range modulePackages(t) {
		for _, s := range staleDocComments(t, filepath.Join("..", p)) {
			t.Error(s)
		}
	}
}

// staleDocComments parses the non-test Go files of dir and lists the
// exported identifiers whose doc comment starts with another name, as
// "file:line: Name: the comment starts with "name"".
func staleDocComments(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		check := func(doc *ast.CommentGroup, name *ast.Ident) {
			if w := docFirstWord(doc); name.IsExported() && staleDocName(w, name.Name) {
				out = append(out, fset.Position(name.Pos()).String()+": "+name.Name+": the comment starts with \""+w+"\"")
			}
		}
		fields := func(l *ast.FieldList) {
			for _, fl := range l.List {
				for _, n := range fl.Names {
					check(fl.Doc, n)
				}
			}
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				check(d.Doc, d.Name)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						doc := s.Doc
						if doc == nil && len(d.Specs) == 1 {
							doc = d.Doc
						}
						check(doc, s.Name)
						switch typ := s.Type.(type) {
						case *ast.StructType:
							fields(typ.Fields)
						case *ast.InterfaceType:
							fields(typ.Methods)
						}
					case *ast.ValueSpec:
						doc := s.Doc
						if doc == nil && len(d.Specs) == 1 {
							doc = d.Doc
						}
						for _, n := range s.Names {
							check(doc, n)
						}
					}
				}
			}
		}
	}
	return out
}

// docFirstWord is the first word of a doc comment, without the
// punctuation after it.
func docFirstWord(doc *ast.CommentGroup) string {
	if doc == nil {
		return ""
	}
	f := strings.Fields(doc.Text())
	if len(f) == 0 {
		return ""
	}
	return strings.TrimRight(f[0], ".,:;")
}

// staleDocName reports whether w, the first word of the doc comment of
// name, is another identifier's name: name in lowercase, or a word that
// begins in lowercase and has a capital or an underscore further on.
func staleDocName(w, name string) bool {
	if w == "" || w == name || !unicode.IsLower([]rune(w)[0]) {
		return false
	}
	return strings.EqualFold(w, name) || strings.ContainsFunc(w[1:], func(r rune) bool { return unicode.IsUpper(r) || r == '_' })
}

func TestStaleDocName(t *testing.T) {
	for _, tc := range []struct {
		w, name string
		want    bool
	}{
		{"newPtfOp", "New", true},
		{"close", "Close", true},
		{"upsertKey", "UpsertKey", true},
		{"Close", "Close", false},
		{"returns", "Close", false},
		{"A", "Close", false},
		{"", "Close", false},
		{"the", "The", true},
	} {
		if got := staleDocName(tc.w, tc.name); got != tc.want {
			t.Errorf("staleDocName(%q, %q) = %v, want %v", tc.w, tc.name, got, tc.want)
		}
	}
}
