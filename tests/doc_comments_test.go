package tests

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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
	var out []string
	fset := token.NewFileSet()
	for _, f := range parseGoFiles(t, fset, dir) {
		eachDecl(f, func(name *ast.Ident, owner string, doc *ast.CommentGroup) {
			if w := docFirstWord(doc); name.IsExported() && staleDocName(w, name.Name) {
				out = append(out, fset.Position(name.Pos()).String()+": "+name.Name+": the comment starts with \""+w+"\"")
			}
		})
	}
	return out
}

// parseGoFiles parses the non-test Go files of dir, with their comments.
func parseGoFiles(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// eachDecl calls fn for every name f declares at its top level (owner
// "") and for every method, field and interface method (owner: the
// type's name), with its doc comment (a declaration's of one spec).
func eachDecl(f *ast.File, fn func(name *ast.Ident, owner string, doc *ast.CommentGroup)) {
	fields := func(owner string, l *ast.FieldList) {
		for _, fl := range l.List {
			for _, n := range fl.Names {
				fn(n, owner, fl.Doc)
			}
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			owner := ""
			if d.Recv != nil && len(d.Recv.List) > 0 {
				recv := d.Recv.List[0].Type
				if s, ok := recv.(*ast.StarExpr); ok {
					recv = s.X
				}
				if ix, ok := recv.(*ast.IndexExpr); ok {
					recv = ix.X
				}
				if id, ok := recv.(*ast.Ident); ok {
					owner = id.Name
				}
			}
			fn(d.Name, owner, d.Doc)
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					doc := s.Doc
					if doc == nil && len(d.Specs) == 1 {
						doc = d.Doc
					}
					fn(s.Name, "", doc)
					switch typ := s.Type.(type) {
					case *ast.StructType:
						fields(s.Name.Name, typ.Fields)
					case *ast.InterfaceType:
						fields(s.Name.Name, typ.Methods)
					}
				case *ast.ValueSpec:
					doc := s.Doc
					if doc == nil && len(d.Specs) == 1 {
						doc = d.Doc
					}
					for _, n := range s.Names {
						fn(n, "", doc)
					}
				}
			}
		}
	}
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

// TestDocComments_linksResolve: a doc link in a comment of the module's
// non-test code ([Name], [Name.Method], [pkg.Name], [*pkg.Name.Field])
// names an identifier that exists: in the comment's own package, or in
// the package of the module it imports as pkg. A rename that leaves a
// link behind fails here. Brackets around words that are no identifier
// of the package ([NOT], [i]) are text, not links, and are let be.
func TestDocComments_linksResolve(t *testing.T) {
	pkgs := map[string]*docPackage{} // by module folder
	for _, p := range modulePackages(t) {
		pkgs[p] = readDocPackage(t, filepath.Join("..", p))
	}
	for p, dp := range pkgs {
		for _, l := range dp.links {
			parts := strings.Split(strings.TrimPrefix(l.text, "*"), ".")
			if imp, ok := dp.imports[parts[0]]; ok && len(parts) > 1 {
				rel, inModule := strings.CutPrefix(imp, "github.com/ptfsh/ptfsh/")
				if !inModule {
					continue // another module's links are gopls's to check
				}
				if target := pkgs[rel]; target == nil || !target.names[strings.Join(parts[1:], ".")] {
					t.Errorf("%s: [%s]: %s has no %s", l.pos, l.text, rel, strings.Join(parts[1:], "."))
				}
				continue
			}
			// [Name] and [Name.Method] of the package itself: a name in
			// camel case that the package lacks is a link left by a
			// rename (words in capitals are SQL's, lowercase ones text).
			first := []rune(parts[0])
			camel := unicode.IsUpper(first[0]) && strings.ToUpper(parts[0]) != parts[0]
			if camel && len(parts) <= 2 && !dp.names[strings.Join(parts, ".")] {
				t.Errorf("%s: [%s]: package %s has no %s", l.pos, l.text, p, strings.Join(parts, "."))
			}
		}
	}
}

// docPackage is what TestDocComments_linksResolve knows of a package: its
// names (top-level ones, and Type.Method and Type.Field), the packages it
// imports by the name it uses, and the links of its comments.
type docPackage struct {
	names   map[string]bool
	imports map[string]string
	links   []docLink
}

type docLink struct {
	pos  string
	text string // inside the brackets
}

// docLinkRE matches a doc link's text in a comment: [Name], [pkg.Name],
// [*pkg.Name.Method] after a space or an opening parenthesis (not an
// index, a[i], or Flink's plan text, keep=[FirstRow]), not followed by a
// Markdown link's parenthesis; linkDefRE is a line that defines a link.
var (
	docLinkRE = regexp.MustCompile(`(?:^|[\s(])\[(\*?[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*){0,2})\]([^(]|$)`)
	linkDefRE = regexp.MustCompile(`^//\s*\[[^\]]+\]:\s*\S+$`)
)

func readDocPackage(t *testing.T, dir string) *docPackage {
	t.Helper()
	dp := &docPackage{names: map[string]bool{}, imports: map[string]string{}}
	fset := token.NewFileSet()
	for _, f := range parseGoFiles(t, fset, dir) {
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			name := path[strings.LastIndex(path, "/")+1:]
			if imp.Name != nil {
				name = imp.Name.Name
			}
			dp.imports[name] = path
		}
		eachDecl(f, func(name *ast.Ident, owner string, _ *ast.CommentGroup) {
			if owner != "" {
				dp.names[owner+"."+name.Name] = true
			} else {
				dp.names[name.Name] = true
			}
		})
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if strings.HasPrefix(c.Text, "//\t") || strings.HasPrefix(c.Text, "//  ") || linkDefRE.MatchString(c.Text) {
					continue // code in a comment, a link's definition
				}
				for _, m := range docLinkRE.FindAllStringSubmatch(c.Text, -1) {
					dp.links = append(dp.links, docLink{fset.Position(c.Pos()).String(), m[1]})
				}
			}
		}
	}
	return dp
}
