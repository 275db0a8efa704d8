package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/connector"
	"github.com/ptfsh/ptfsh/runtime/ptf"
)

// Hot reload: before each statement the session looks at the files every
// function was loaded from, and loads a function again when one of them
// changed (its modification time or size), so that a function edited in
// an editor is the one the next statement calls. A version that does not
// load keeps the previous one, with a note.
//
// The files are the function's file and the files it imports from its
// folder (or below), found by a scan of its source for import, export
// ... from, import() and require() of a relative path, and of theirs in
// turn. The script engine (esbuild) knows the imports exactly but does not
// tell; the scan may watch a file too many (an import in a comment), never
// a relative import too few, except one whose path is computed at run
// time. The embedded stdlib (ptfsh/...) does not change.

// maxWatched bounds the files watched for one function.
const maxWatched = 200

// importSpec matches the module specifier of an import, an export ...
// from, a dynamic import() or a require() of a relative path.
var importSpec = regexp.MustCompile(`(?:\bfrom|\bimport|\brequire)\s*\(?\s*["'](\.\.?/[^"'\n]*)["']`)

// resolveExts are the endings esbuild tries for an import without one,
// in its order.
var resolveExts = []string{".tsx", ".ts", ".jsx", ".js", ".mjs", ".cjs", ".mts", ".cts", ".json"}

// watchFiles returns the stamps of a function's file (absolute path abs)
// and of the local files it imports, taken before they are read, so that
// a change made while they are read is seen next time.
func watchFiles(abs string) []catalog.FileStamp {
	files := []catalog.FileStamp{stampFile(abs)}
	seen := map[string]bool{abs: true}
	for i := 0; i < len(files) && len(files) < maxWatched; i++ {
		if files[i].Missing {
			continue
		}
		src, err := readRegular(files[i].Path)
		if err != nil {
			continue
		}
		for _, m := range importSpec.FindAllStringSubmatch(string(src), -1) {
			dep := resolveImport(filepath.Dir(files[i].Path), m[1])
			if dep == "" || seen[dep] {
				continue
			}
			seen[dep] = true
			files = append(files, stampFile(dep))
		}
	}
	return files
}

// resolveImport finds the file a relative import names, as esbuild does:
// the path itself, with an ending added, a .js path written for a .ts
// file, or an index file of a folder. "" when none exists.
func resolveImport(dir, spec string) string {
	p := filepath.Join(dir, filepath.FromSlash(spec))
	isFile := func(p string) bool {
		fi, err := os.Stat(p)
		return err == nil && fi.Mode().IsRegular()
	}
	if isFile(p) {
		return p
	}
	for _, ext := range resolveExts {
		if isFile(p + ext) {
			return p + ext
		}
	}
	if base, ok := strings.CutSuffix(p, ".js"); ok {
		for _, ext := range []string{".ts", ".tsx"} {
			if isFile(base + ext) {
				return base + ext
			}
		}
	}
	for _, ext := range resolveExts {
		if q := filepath.Join(p, "index"+ext); isFile(q) {
			return q
		}
	}
	return ""
}

// stampFile returns the stamp of the file at path as it is now.
func stampFile(path string) catalog.FileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return catalog.FileStamp{Path: path, Missing: true}
	}
	return catalog.FileStamp{Path: path, ModTime: fi.ModTime(), Size: fi.Size()}
}

// changed reports whether a file differs from its stamp now.
func changed(f catalog.FileStamp) bool {
	now := stampFile(f.Path)
	return now.Missing != f.Missing || !now.ModTime.Equal(f.ModTime) || now.Size != f.Size
}

// reloadChanged reloads every function one of whose files changed since
// it was loaded, with a note on stderr for each: reloaded, or kept
// because the new version has an error.
func (s *Session) reloadChanged() {
	if s.cfg.Loader == nil {
		return
	}
	for _, fn := range s.cat.Functions() {
		for _, f := range fn.Files {
			if changed(f) {
				s.reload(fn, f.Path)
				break
			}
		}
	}
}

// reload loads fn again from its file; which is the changed file.
func (s *Session) reload(fn *catalog.Function, which string) {
	files := watchFiles(fn.Files[0].Path)
	name := fn.Path
	def, err := s.loadFile(fn.Def.Name, fn.Def.File)
	if err != nil {
		// The stamps move on, so that the note is shown once for this
		// version of the file.
		fn.Files = files
		fmt.Fprintf(s.cfg.Err, "note: %s has an error, the previous version stays: %s", name, FormatError(err, ""))
		return
	}
	fn.Def, fn.Files = def, files
	if which != fn.Files[0].Path {
		rel, err := filepath.Rel(filepath.Dir(fn.Files[0].Path), which)
		if err != nil {
			rel = which
		}
		fmt.Fprintf(s.cfg.Err, "note: reloaded %s (%s changed)\n", name, filepath.ToSlash(rel))
		return
	}
	fmt.Fprintf(s.cfg.Err, "note: reloaded %s\n", name)
}

// loadFile reads and loads the function file (a path as the engine was
// first given it) under name, and checks its declaration.
func (s *Session) loadFile(name, file string) (*ptf.FuncDef, error) {
	src, err := s.readFunctionFile(file)
	if err != nil {
		return nil, fmt.Errorf("cannot read function file '%s': %v", file, connector.RootCause(err))
	}
	def, err := s.load(context.Background(), name, file, src)
	if err != nil {
		return nil, err
	}
	def.Name = name
	if err := checkDeclaration(def); err != nil {
		return nil, err
	}
	return def, nil
}

// maxScanned is the most of a file the import scan reads.
const maxScanned = 16 << 20

// readRegular reads a regular file of at most maxScanned bytes: a named
// pipe or a device is never opened (it could block or never end).
func readRegular(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxScanned {
		return nil, fmt.Errorf("%s: not a regular file of at most %d bytes", path, maxScanned)
	}
	return os.ReadFile(path)
}

// readFunctionFile reads a function file the way its loader wants it read
// (script: a regular file, at most 'ptf.max-source-size'), else as a
// regular file of bounded size: never a pipe or a device.
func (s *Session) readFunctionFile(file string) (string, error) {
	if r, ok := s.cfg.Loader.(interface{ ReadSource(string) (string, error) }); ok {
		return r.ReadSource(file)
	}
	b, err := readRegular(file)
	return string(b), err
}

// load loads a function through the loader, with ctx when it takes one
// (script: Ctrl-C reaches the function's top-level code).
func (s *Session) load(ctx context.Context, name, file, src string) (*ptf.FuncDef, error) {
	if l, ok := s.cfg.Loader.(interface {
		LoadContext(context.Context, string, string, string) (*ptf.FuncDef, error)
	}); ok {
		return l.LoadContext(ctx, name, file, src)
	}
	return s.cfg.Loader.Load(name, file, src)
}
