// Package stdlib holds ptfsh's standard library: built-in PTFs written in
// Go, registered explicitly with Register, and JavaScript helper modules
// that function files import as "ptfsh/NAME".
package stdlib

import (
	"embed"
	"io/fs"

	"github.com/ptfsh/ptfsh/runtime"
)

//go:embed js
var jsFiles embed.FS

// JS is the file system of the JavaScript helper modules.
var JS fs.FS = mustSub(jsFiles, "js")

func mustSub(f embed.FS, dir string) fs.FS {
	s, err := fs.Sub(f, dir)
	if err != nil {
		panic(err) // the embedded folder exists at build time
	}
	return s
}

// Register adds the built-in functions to a catalog: TO_CHANGELOG and
// FROM_CHANGELOG. Each call makes new definitions, so that catalogs share
// nothing.
func Register(c *runtime.Catalog) {
	c.RegisterBuiltIn(ToChangelog())
	c.RegisterBuiltIn(FromChangelog())
}
