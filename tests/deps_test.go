package tests

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportGraph enforces the package graph of STYLE.md: each engine
// stays behind its package.
func TestImportGraph(t *testing.T) {
	const mod = "github.com/ptfsh/ptfsh/"
	allowed := map[string][]string{
		// The leaf: types, values, rows, positions and the positioned error.
		"runtime/types": {},
		// The PTF contract: what a function is and what a call sees.
		"runtime/ptf":      {mod + "runtime/types", mod + "sqlmini"},
		"sqlmini":          {"github.com/alecthomas/participle/v2", mod + "runtime/types"},
		"state":            {"go.etcd.io/bbolt"},
		"runtime/keycodec": {mod + "runtime/types", mod + "state"},
		"runtime/format":   {mod + "runtime/types", mod + "runtime/keycodec"},
		"runtime/expr":     {mod + "runtime/types", mod + "runtime/ptf", mod + "runtime/format", mod + "sqlmini"},
		"runtime/exec":     {mod + "state", mod + "runtime/types", mod + "runtime/ptf", mod + "runtime/format", mod + "runtime/keycodec", mod + "runtime/expr"},
		"runtime":          {mod + "runtime/exec", mod + "state", mod + "sqlmini", mod + "runtime/types", mod + "runtime/ptf", mod + "runtime/format", mod + "runtime/keycodec", mod + "runtime/expr"},
		// script, stdlib and export/flink see the contract, never the engine.
		// regexp2 is goja's backtracking regex engine: script sets its
		// match deadline (regex.go).
		"script": {mod + "runtime/types", mod + "runtime/ptf", "github.com/dop251/goja", "github.com/evanw/esbuild", "github.com/go-sourcemap/sourcemap", "github.com/dlclark/regexp2/v2"},
		"stdlib": {mod + "runtime/types", mod + "runtime/ptf"},
		// export/flink writes Java and SQL text; the wiring hands it the
		// loaded function, so it needs no engine.
		"export/flink": {mod + "runtime/types", mod + "runtime/ptf"},
		// testarchive reads the txtar test files of ptfsh test and tests/.
		"internal/testarchive": {"golang.org/x/tools/txtar"},
	}
	// Engines that must appear in one package only.
	owners := map[string]string{
		"github.com/dop251/goja":              "script",
		"go.etcd.io/bbolt":                    "state",
		"github.com/alecthomas/participle/v2": "sqlmini",
	}
	for pkg, ok := range allowed {
		p, err := build.ImportDir(filepath.Join("..", pkg), 0)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		for _, imp := range p.Imports {
			if !strings.Contains(strings.Split(imp, "/")[0], ".") {
				continue // the standard library
			}
			if !allowedImport(imp, ok) {
				t.Errorf("package %s imports %s; allowed: %v", pkg, imp, ok)
			}
			for engine, owner := range owners {
				if strings.HasPrefix(imp, engine) && owner != pkg {
					t.Errorf("package %s imports %s, which only %s may", pkg, imp, owner)
				}
			}
		}
	}
}

func allowedImport(imp string, allowed []string) bool {
	for _, a := range allowed {
		if imp == a || strings.HasPrefix(imp, a+"/") {
			return true
		}
	}
	return false
}
