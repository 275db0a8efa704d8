package session

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestWatchFiles: the files a function is watched by are its own and the
// local files it imports, in every spelling of an import, found
// transitively; stdlib and package imports are not files.
func TestWatchFiles(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"f.js": `import a from "./a.js";
import './b';
export * from "./c/index.js";
export { d } from './d.mjs';
const e = await import("./e.js");
const g = require('./g.cjs');
import { objects } from "ptfsh/flink";
import h from "h";
import x from "./missing.js";
`,
		"a.js":        `import "./sub/deep.ts";`,
		"b.ts":        ``,
		"c/index.js":  `import "../a.js";`, // a cycle
		"d.mjs":       ``,
		"e.js":        ``,
		"g.cjs":       ``,
		"sub/deep.ts": ``,
	}
	for name, src := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, st := range watchFiles(filepath.Join(dir, "f.js")) {
		rel, _ := filepath.Rel(dir, st.Path)
		got = append(got, filepath.ToSlash(rel))
		if st.Missing {
			t.Errorf("%s is missing", rel)
		}
	}
	want := []string{"f.js", "a.js", "b.ts", "c/index.js", "d.mjs", "e.js", "g.cjs", "sub/deep.ts"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("watched %v, want %v", got, want)
	}
}
