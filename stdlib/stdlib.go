// Package stdlib holds ptfsh's standard library: built-in PTFs written in
// Go, which the assembly registers in each session's catalog (BuiltIns), and
// JavaScript helper modules that function files import as "ptfsh/NAME". It
// depends only on the PTF contract (runtime/ptf), not on the SQL engine.
package stdlib

import (
	"embed"
	"io/fs"

	"github.com/ptfsh/ptfsh/runtime/ptf"
)

//go:embed js
var jsFiles embed.FS

// TypeDeclarations declares the typed modules of the JavaScript library
// (ptfsh/patterns, ptfsh/ptf) for TypeScript: ambient `declare module`
// blocks over the global types of script's ptf.d.ts (PTF, Context, Row,
// SqlType). ptfsh init and ptfsh check write them into globals.d.ts.
var TypeDeclarations = patternsDTS + "\n" + ptfDTS

//go:embed dts/patterns.d.ts
var patternsDTS string

//go:embed dts/ptf.d.ts
var ptfDTS string

// JS is the file system of the JavaScript helper modules.
var JS fs.FS = mustSub(jsFiles, "js")

func mustSub(f embed.FS, dir string) fs.FS {
	s, err := fs.Sub(f, dir)
	if err != nil {
		panic(err) // the embedded folder exists at build time
	}
	return s
}

// BuiltIns returns the built-in functions: TO_CHANGELOG and FROM_CHANGELOG.
// Each call makes new definitions, so that catalogs share nothing.
func BuiltIns() []*ptf.FuncDef {
	return []*ptf.FuncDef{ToChangelog(), FromChangelog()}
}
