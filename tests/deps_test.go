package tests

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const mod = "github.com/ptfsh/ptfsh/"

// layers is the import graph that docs/architecture.md draws: each package
// and the packages of the module (and engines) it may import. A package
// of the module that is not listed fails the test, so that a new package
// takes its place in the picture on purpose.
var layers = map[string][]string{
	// The leaf: types, values, rows, positions and the positioned error.
	"runtime/types": {},
	// sqlmini owns the syntax; it takes its position type from the leaf.
	"sqlmini": {"github.com/alecthomas/participle/v2", mod + "runtime/types"},
	// state owns keyed bytes; bbolt stays behind it.
	"state": {"go.etcd.io/bbolt", mod + "internal/fault", mod + "internal/orderedcode"},
	// statetest is the conformance suite every store passes.
	"state/statetest": {mod + "state", mod + "internal/orderedcode"},
	// The table of SET's keys: defaults, docs and parsers.
	"runtime/settings": {mod + "runtime/types", mod + "runtime/textparse", mod + "internal/spell"},
	// textparse reads values from text as Flink's formats and CAST do:
	// scalars, JSON text of nested types, timestamp patterns.
	"runtime/textparse": {mod + "runtime/types"},
	// The PTF contract: what a function is and what a call sees.
	"runtime/ptf":      {mod + "runtime/types", mod + "sqlmini"},
	"runtime/keycodec": {mod + "runtime/types", mod + "internal/orderedcode"},
	// format reads and writes Parquet with parquet-go (runtime/format/parquet_read.go, parquet_typed.go, parquet_write.go).
	"runtime/format": {mod + "runtime/types", mod + "runtime/textparse", mod + "runtime/keycodec", "github.com/parquet-go/parquet-go"},
	// expr evaluates expressions; it reads text through textparse, not
	// the file formats (which link parquet-go and the store).
	"runtime/expr": {mod + "runtime/types", mod + "runtime/ptf", mod + "runtime/textparse", mod + "sqlmini"},
	// exec is the core of execution: events, streams, nodes, the
	// simple nodes and what both operator families share.
	"runtime/exec": {mod + "state", mod + "runtime/exec/opstate", mod + "runtime/types", mod + "runtime/settings", mod + "runtime/keycodec", mod + "runtime/expr", mod + "runtime/timeline"},
	// The PTF operator and the SQL operators, the two families of
	// operators over the core (see never below).
	"runtime/exec/ptfop": {mod + "runtime/exec", mod + "runtime/exec/opstate", mod + "state", mod + "internal/orderedcode", mod + "runtime/types", mod + "runtime/ptf",
		mod + "runtime/keycodec", mod + "runtime/expr", mod + "runtime/timeline"},
	"runtime/exec/opstate": {mod + "state"},
	// The SQL operators draw in a timeline through exec.OpObserver, not
	// the timeline itself.
	"runtime/exec/sqlop": {mod + "runtime/exec", mod + "runtime/exec/opstate", mod + "state", mod + "runtime/types", mod + "runtime/keycodec", mod + "runtime/expr", mod + "runtime/cep"},
	// The timeline of a query's time events and its drawings (text, SVG, HTML): a leaf.
	"runtime/timeline": {},
	// cep is the NFA of MATCH_RECOGNIZE: it knows no rows, only events.
	"runtime/cep":     {},
	"runtime/catalog": {mod + "runtime/types", mod + "runtime/ptf", mod + "runtime/exec", mod + "sqlmini", mod + "internal/spell"},
	"runtime/faker":   {"github.com/brianvoe/gofakeit/v7"},
	"runtime/connector": {mod + "state", mod + "sqlmini", mod + "runtime/types", mod + "runtime/format", mod + "runtime/textparse",
		mod + "runtime/expr", mod + "runtime/exec", mod + "runtime/catalog", mod + "internal/fault", mod + "runtime/faker", mod + "runtime/connector/kafka"},
	// The Kafka client: franz-go (kgo, kadm, sr) and the Avro codec stay behind it.
	"runtime/connector/kafka": {"github.com/twmb/franz-go", "github.com/twmb/avro"},
	// kafkatest starts franz-go's in-process fake cluster, or a real broker, for tests.
	"runtime/connector/kafka/kafkatest": {"github.com/twmb/franz-go/pkg/kfake", mod + "runtime/connector/kafka"},
	"runtime/plan": {mod + "sqlmini", mod + "runtime/types", mod + "runtime/ptf", mod + "runtime/format", mod + "runtime/textparse",
		mod + "runtime/expr", mod + "runtime/exec", mod + "runtime/exec/ptfop", mod + "runtime/exec/sqlop",
		mod + "runtime/catalog", mod + "runtime/connector", mod + "runtime/cep"},
	"runtime/session": {mod + "state", mod + "sqlmini", mod + "runtime/"},
	// script, stdlib and export/flink see the contract, never the engine.
	// regexp2 is goja's backtracking regex engine: script sets its match
	// deadline.
	"script": {mod + "runtime/types", mod + "runtime/ptf", mod + "runtime/settings", mod + "internal/spell", "github.com/dop251/goja", "github.com/evanw/esbuild", "github.com/dlclark/regexp2/v2",
		"github.com/go-sourcemap/sourcemap"},
	"stdlib": {mod + "runtime/types", mod + "runtime/ptf"},
	// export/flink reads a script's syntax (sqlmini, which the contract
	// already sees) to choose its test cases; the wiring runs the script.
	"export/flink": {mod + "runtime/types", mod + "runtime/ptf", mod + "sqlmini", mod + "export/jsjava"},
	// jsjava translates a PTF's JavaScript into Java: it reads the code
	// with goja's parser (gojaSyntax) and runs nothing.
	"export/jsjava": {"github.com/dop251/goja/ast", "github.com/dop251/goja/parser", "github.com/dop251/goja/token"},
	// playground is ptfsh serve's page and calls: it runs statements in
	// the sessions the command gives it, and reads exercises.
	"playground": {mod + "runtime/session", mod + "runtime/timeline", mod + "internal/testarchive"},
	// assembly is the one place that builds engine, store, session and stdlib.
	"assembly": {mod + "runtime/", mod + "script", mod + "state", mod + "stdlib", mod + "sqlmini"},
	// fault: the kill points of the commit path for the crash tests, a leaf.
	"internal/fault": {},
	// spell: did-you-mean for names, a leaf.
	"internal/spell": {},
	// taxi: the labs' taxi rides and fares, a leaf.
	"internal/taxi": {},
	// orderedcode: the order-preserving encoding of keys, a leaf that the
	// store and the key codec share.
	"internal/orderedcode": {},
	// testarchive reads the txtar test files of ptfsh test and tests/.
	"internal/testarchive": {"golang.org/x/tools/txtar"},
	// doctest reads the docs' pages into the blocks the doc tests run.
	"internal/doctest": {},
	// The wiring: the command, the benchmark tools.
	"cmd/ptfsh":          {mod, "github.com/chzyer/readline", "github.com/aymanbagabas/go-udiff"},
	"bench/internal/gen": {},
	"bench/gen":          {mod + "bench/internal/gen"},
	"bench/plain":        {},
	"bench/run":          {mod + "bench/internal/gen", mod + "runtime/connector/kafka"},
}

// never lists, per package, packages it must not import even where a
// layer above allows their folder: the PTF operator (runtime/exec/ptfop)
// and the SQL operators (runtime/exec/sqlop) share only the core
// (runtime/exec), and the core imports neither, so that each family
// changes without the other.
var never = map[string][]string{
	"runtime/exec":       {mod + "runtime/exec/ptfop", mod + "runtime/exec/sqlop"},
	"runtime/exec/ptfop": {mod + "runtime/exec/sqlop"},
	"runtime/exec/sqlop": {mod + "runtime/exec/ptfop"},
}

// engines must appear in one package only.
var engines = map[string]string{
	"github.com/dop251/goja":              "script",
	"go.etcd.io/bbolt":                    "state",
	"github.com/alecthomas/participle/v2": "sqlmini",
	"github.com/chzyer/readline":          "cmd/ptfsh",
	"github.com/parquet-go/parquet-go":    "runtime/format",
	"github.com/twmb/franz-go":            "runtime/connector/kafka",
	// kafkatest starts a fake cluster (kfake) or a real broker for tests.
	"github.com/twmb/franz-go/pkg/kfake": "runtime/connector/kafka/kafkatest",
	"github.com/twmb/avro":               "runtime/connector/kafka",
	"github.com/brianvoe/gofakeit/v7":    "runtime/faker",
	// The line diff of ptfsh test and ptfsh watch.
	"github.com/aymanbagabas/go-udiff": "cmd/ptfsh",
}

// gojaSyntax are goja's parser and syntax tree, which run no JavaScript:
// besides script, the translator of PTFs into Java reads code with them.
var gojaSyntax = map[string][]string{
	"github.com/dop251/goja/ast":    {"script", "export/jsjava"},
	"github.com/dop251/goja/parser": {"script", "export/jsjava"},
	"github.com/dop251/goja/token":  {"script", "export/jsjava"},
}

// TestImportGraph enforces the package graph: each engine stays behind its
// package, imports flow one way, and no package is named runtime (it would
// shadow Go's).
func TestImportGraph(t *testing.T) {
	for _, pkg := range modulePackages(t) {
		allowed, ok := layers[pkg]
		if !ok {
			t.Errorf("package %s is not in the import graph of tests/deps_test.go (and docs/architecture.md): give it its place", pkg)
			continue
		}
		p, err := build.ImportDir(filepath.Join("..", pkg), 0)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		if p.Name == "runtime" {
			t.Errorf("package %s is named runtime, which shadows Go's runtime package", pkg)
		}
		for _, imp := range p.Imports {
			if !strings.Contains(strings.Split(imp, "/")[0], ".") {
				continue // the standard library
			}
			if !allowedImport(imp, allowed) {
				t.Errorf("package %s imports %s; allowed: %v", pkg, imp, allowed)
			}
			for _, no := range never[pkg] {
				if imp == no {
					t.Errorf("package %s imports %s, which it must never import (tests/deps_test.go's never)", pkg, imp)
				}
			}
			if owners, ok := gojaSyntax[imp]; ok {
				if !slices.Contains(owners, pkg) {
					t.Errorf("package %s imports %s, which only %v may", pkg, imp, owners)
				}
				continue
			}
			if engine, owner := engineOf(imp); engine != "" && owner != pkg {
				t.Errorf("package %s imports %s, which only %s may", pkg, imp, owner)
			}
		}
	}
}

// modulePackages lists the module's folders that hold a Go package (test
// files aside), relative to the module root, sorted.
func modulePackages(t *testing.T) []string {
	var pkgs []string
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "examples" || name == "node_modules") {
			return filepath.SkipDir
		}
		entries, err := os.ReadDir(path)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), "_test.go") {
				rel, _ := filepath.Rel(root, path)
				if rel != "tests" && rel != "." {
					pkgs = append(pkgs, filepath.ToSlash(rel))
				}
				break
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(pkgs)
	return pkgs
}

// engineOf returns the engine an import belongs to (the longest prefix
// in engines: franz-go's kfake is an engine of its own) and its owner.
func engineOf(imp string) (engine, owner string) {
	for e, o := range engines {
		if (imp == e || strings.HasPrefix(imp, e+"/")) && len(e) > len(engine) {
			engine, owner = e, o
		}
	}
	return engine, owner
}

func allowedImport(imp string, allowed []string) bool {
	for _, a := range allowed {
		if imp == a || strings.HasPrefix(imp, a+"/") || strings.HasSuffix(a, "/") && strings.HasPrefix(imp, a) {
			return true
		}
	}
	return false
}

// TestParquetBehindOneFile: parquet-go is imported only by the Parquet
// reader, writer and schema of runtime/format (parquet_read.go,
// parquet_typed.go, parquet_write.go, parquet_schema.go; tests included).
func TestParquetBehindOneFile(t *testing.T) {
	const engine = "github.com/parquet-go/parquet-go"
	owners := map[string]bool{"runtime/format/parquet_read.go": true, "runtime/format/parquet_typed.go": true, "runtime/format/parquet_write.go": true, "runtime/format/parquet_schema.go": true, "tests/deps_test.go": true}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("..", path)
		if strings.Contains(string(b), `"`+engine) && !owners[filepath.ToSlash(rel)] {
			t.Errorf("%s imports %s, which only runtime/format's parquet_read.go, parquet_typed.go, parquet_write.go and parquet_schema.go may", rel, engine)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
