package script

import (
	"encoding/json"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// stdlibPrefix is how a function imports a module of the embedded stdlib.
const stdlibPrefix = "ptfsh/"

// stdlibNamespace is esbuild's namespace for stdlib modules.
const stdlibNamespace = "ptfsh"

// target is the language level esbuild lowers to: goja runs ES2022 syntax
// (class fields and private names, static blocks, optional chaining, ??=,
// BigInt, generators, async functions) but not module syntax.
const target = api.ES2022

// bundle is the result of turning a function's source into one script.
type bundle struct {
	code string
	sm   *sourceMap
	// module reports an ES module (the declaration is its default export)
	// or a CommonJS module (module.exports), as opposed to a plain script
	// whose completion value is the declaration: ({ ... }).
	module bool
	esm    bool
}

// moduleGlobal is the global variable esbuild's IIFE assigns the module's
// exports to. Load reads it right after running the bundle and resets it.
const moduleGlobal = "__ptfsh_module"

// source describes one function source being loaded.
type source struct {
	name    string // registered function name
	display string // file name shown to the user, or "<inline NAME>"
	absDir  string // directory relative imports resolve against
	ts      bool   // TypeScript
	tsx     bool
	inline  bool // given inline (CREATE FUNCTION ... AS $$ ... $$), not read from a file
	src     string
}

// build bundles src with its relative and stdlib imports into one script
// and a source map. Errors are positioned in the user's files.
func (e *Engine) build(s *source) (*bundle, error) {
	loader := api.LoaderJS
	switch {
	case s.tsx:
		loader = api.LoaderTSX
	case s.ts:
		loader = api.LoaderTS
	}
	outfile := filepath.Join(s.absDir, "__ptfsh_out.js")
	res := api.Build(api.BuildOptions{
		Stdin: &api.StdinOptions{
			Contents:   s.src,
			ResolveDir: s.absDir,
			Sourcefile: s.display,
			Loader:     loader,
		},
		Bundle:         true,
		Format:         api.FormatIIFE,
		GlobalName:     moduleGlobal,
		Target:         target,
		Platform:       api.PlatformNeutral,
		Sourcemap:      api.SourceMapExternal,
		SourcesContent: api.SourcesContentInclude,
		Outfile:        outfile,
		AbsWorkingDir:  s.absDir,
		Metafile:       true,
		Write:          false,
		LogLevel:       api.LogLevelSilent,
		Charset:        api.CharsetASCII,
		Loader:         dataLoaders,
		Plugins:        []api.Plugin{e.importPlugin(s)},
	})
	rename := s.renamer()
	if len(res.Errors) > 0 {
		return nil, esbuildError(s.name, res.Errors, rename)
	}
	var code, smap []byte
	for _, f := range res.OutputFiles {
		if strings.HasSuffix(f.Path, ".map") {
			smap = f.Contents
		} else {
			code = f.Contents
		}
	}
	format := entryFormat(res.Metafile, s.display, s.absDir)
	if format != "esm" && format != "cjs" {
		return e.transformScript(s, loader, rename)
	}
	sm, err := parseSourceMap(smap, rename)
	if err != nil {
		return nil, loadErrorf(s.name, types.Pos{Filename: s.display}, "%v", err)
	}
	return &bundle{code: string(code), sm: sm, module: true, esm: format == "esm"}, nil
}

// transformScript compiles a plain script (no import or export): its
// completion value is the declaration. The code is wrapped in a block so
// that its top-level let, const and class declarations stay local and the
// same function can be loaded again into the same runtime.
func (e *Engine) transformScript(s *source, loader api.Loader, rename func(string) string) (*bundle, error) {
	res := api.Transform(s.src, api.TransformOptions{
		Loader:         loader,
		Sourcefile:     s.display,
		Target:         target,
		Platform:       api.PlatformNeutral,
		Sourcemap:      api.SourceMapExternal,
		SourcesContent: api.SourcesContentInclude,
		LogLevel:       api.LogLevelSilent,
		Charset:        api.CharsetASCII,
	})
	if len(res.Errors) > 0 {
		return nil, esbuildError(s.name, res.Errors, rename)
	}
	sm, err := parseSourceMap(res.Map, rename)
	if err != nil {
		return nil, loadErrorf(s.name, types.Pos{Filename: s.display}, "%v", err)
	}
	sm.lineShift = 1
	return &bundle{code: "{\n" + string(res.Code) + "\n}", sm: sm}, nil
}

// renamer returns the function that turns a source name of esbuild (the
// stdin name, a path relative to the function's directory, or
// "ptfsh:mod.js") into the name shown to the user.
func (s *source) renamer() func(string) string {
	displayDir := ""
	if !strings.HasPrefix(s.display, "<") {
		displayDir = path.Dir(filepath.ToSlash(s.display))
	}
	return func(name string) string {
		if u, err := url.PathUnescape(name); err == nil {
			name = u // esbuild escapes the names in a bundle's source map
		}
		switch {
		case name == s.display || name == "<stdin>":
			return s.display
		case strings.HasPrefix(name, stdlibNamespace+":"):
			return stdlibPrefix + strings.TrimPrefix(name, stdlibNamespace+":")
		case displayDir != "" && !path.IsAbs(name):
			return path.Join(displayDir, filepath.ToSlash(name))
		}
		return name
	}
}

// entryFormat reads the module format esbuild detected for the entry
// point from the metafile: "esm", "cjs" or "" for a plain script.
// esbuild names the entry in the metafile relative to the working
// directory when it can, so the name is tried in each spelling.
func entryFormat(metafile, entry, absDir string) string {
	var m struct {
		Inputs map[string]struct {
			Format string `json:"format"`
		} `json:"inputs"`
	}
	if json.Unmarshal([]byte(metafile), &m) != nil {
		return ""
	}
	names := []string{entry, "<stdin>", filepath.ToSlash(filepath.Base(entry))}
	if rel, err := filepath.Rel(absDir, entry); err == nil {
		names = append(names, filepath.ToSlash(rel))
	}
	if abs, err := filepath.Abs(entry); err == nil {
		if rel, err := filepath.Rel(absDir, abs); err == nil {
			names = append(names, filepath.ToSlash(rel))
		}
	}
	for _, n := range names {
		if in, ok := m.Inputs[n]; ok {
			return in.Format
		}
	}
	return ""
}

// esbuildError converts esbuild's first error into an *Error.
func esbuildError(fn string, msgs []api.Message, rename func(string) string) *Error {
	m := msgs[0]
	err := &Error{Func: fn, Msg: m.Text}
	if m.Detail != nil {
		if ie, ok := m.Detail.(*importError); ok {
			err.Msg = ie.msg
		}
	}
	if loc := m.Location; loc != nil {
		file := loc.File
		if loc.Namespace == stdlibNamespace {
			file = stdlibNamespace + ":" + file
		}
		err.Pos = types.Pos{
			Filename: rename(file),
			Line:     loc.Line,
			Column:   byteToRuneColumn(loc.LineText, loc.Column) + 1,
		}
		err.Line = loc.LineText
	}
	if !strings.HasPrefix(err.Msg, "SyntaxError") && isSyntaxMessage(m) {
		err.Msg = "SyntaxError: " + err.Msg
	}
	return err
}

// isSyntaxMessage reports whether an esbuild message is a parse error, as
// opposed to an import that cannot be resolved or loaded.
func isSyntaxMessage(m api.Message) bool {
	if m.PluginName != "" {
		return false
	}
	for _, p := range []string{"Could not resolve", "No loader", "Could not read", "Cannot read"} {
		if strings.HasPrefix(m.Text, p) {
			return false
		}
	}
	return true
}

// importError is the Detail of an error our import plugin raises.
type importError struct{ msg string }

// importPlugin restricts imports to files beside the function (relative
// paths that stay inside the function's folder) and modules of the
// embedded stdlib (ptfsh/...), and loads the latter from Options.Stdlib.
func (e *Engine) importPlugin(s *source) api.Plugin {
	return api.Plugin{
		Name: "ptfsh-imports",
		Setup: func(b api.PluginBuild) {
			b.OnResolve(api.OnResolveOptions{Filter: `.*`}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
				return e.resolve(a, s)
			})
			b.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: stdlibNamespace}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
				return e.loadStdlib(a)
			})
			b.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: "file"}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
				return e.checkFile(a, s)
			})
		},
	}
}

func (e *Engine) resolve(a api.OnResolveArgs, s *source) (api.OnResolveResult, error) {
	fail := func(msg string) (api.OnResolveResult, error) {
		return api.OnResolveResult{Errors: []api.Message{{Text: msg, Detail: &importError{msg}}}}, nil
	}
	p := a.Path
	switch a.Kind {
	case api.ResolveEntryPoint:
		return api.OnResolveResult{}, nil
	case api.ResolveJSRequireCall, api.ResolveJSRequireResolve:
		if strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || strings.HasPrefix(p, stdlibPrefix) {
			return fail("require(" + quote(p) + ") is not supported: use import")
		}
		return fail("require(" + quote(p) + ") is not supported: " + importRule)
	case api.ResolveJSDynamicImport:
		return fail("import(" + quote(p) + ") is not supported: use a static import")
	}
	relative := strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../")
	if relative && a.Namespace != stdlibNamespace && s.inline && e.inlineDir == "" {
		return fail("cannot import " + quote(p) + `: an inline function imports only the stdlib ("ptfsh/..."); to let inline functions import the files of a folder, SET 'ptf.inline-import-dir' to it`)
	}
	switch {
	case strings.HasPrefix(p, stdlibPrefix):
		return e.resolveStdlib(strings.TrimPrefix(p, stdlibPrefix), p, fail)
	case relative && a.Namespace == stdlibNamespace:
		return e.resolveStdlib(path.Join(path.Dir(a.Importer), p), p, fail)
	case relative && !inside(s.absDir, filepath.Join(a.ResolveDir, filepath.FromSlash(p))):
		return fail("cannot import " + quote(p) + ": it is outside the function's folder; " + importRule)
	case relative:
		// Said here, an error points at the import. (A path esbuild
		// completes, "./x" for x.js, is checked again when it is loaded.)
		target := filepath.Join(a.ResolveDir, filepath.FromSlash(p))
		st, err := os.Stat(target)
		exists := err == nil && !st.IsDir()
		if msg := importFileRule(s.absDir, target, a.With, exists); msg != "" {
			return fail("cannot import " + quote(p) + ": " + msg)
		}
		// A named pipe or a device would block esbuild or feed it without
		// end.
		if exists {
			if err := notRegular(st.Mode()); err != nil {
				return fail("cannot import " + quote(p) + ": " + path.Base(p) + " " + err.Error())
			}
		}
		if msg := realImportRule(s.absDir, target, a.With, exists); msg != "" {
			return fail("cannot import " + quote(p) + ": " + msg)
		}
		return api.OnResolveResult{}, nil // esbuild resolves it beside the importer
	}
	return fail("cannot import " + quote(p) + ": " + importRule)
}

// What a function may import from its folder: code, and data files,
// which a text or JSON import (import t from "./t.txt" with { type:
// "text" }) reads as they are. Nothing else: not a dotfile or a file in a
// dot-folder (.env, .ssh/id_rsa, .git/config), not a file without an
// extension, whatever its import attributes.
var (
	codeExts = []string{".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"}
	dataExts = []string{".txt", ".json", ".csv", ".tsv", ".md"}
	// dataLoaders are esbuild's loaders of the data files it has none for.
	dataLoaders = map[string]api.Loader{".txt": api.LoaderText, ".csv": api.LoaderText, ".tsv": api.LoaderText, ".md": api.LoaderText}
)

// importFileRule checks an imported file, target, against the rules above
// and returns what is wrong, or "". root is the function's folder. final
// reports that target is the file itself, not a path esbuild may still
// complete with an extension.
func importFileRule(root, target string, with map[string]string, final bool) string {
	if rel, err := filepath.Rel(root, target); err == nil && inside(root, target) {
		for _, c := range strings.Split(filepath.ToSlash(rel), "/") {
			if strings.HasPrefix(c, ".") && c != "." {
				return "files and folders whose names start with a dot are never imported"
			}
		}
	}
	ext := strings.ToLower(filepath.Ext(target))
	isData, isCode := slices.Contains(dataExts, ext), slices.Contains(codeExts, ext)
	switch {
	case with["type"] != "" && !isData:
		return "a " + quote(with["type"]) + " import reads only data files (" + strings.Join(dataExts, ", ") + ")"
	case (final || ext != "") && !isData && !isCode && (final || with["type"] != ""):
		return "a function imports only code (" + strings.Join(codeExts, ", ") + ") and data files (" + strings.Join(dataExts, ", ") + ")"
	}
	return ""
}

// realImportRule checks an imported file by its real path, its symbolic
// links resolved (a link to a file, a linked folder on the way): it must
// be inside the real folder of the function, root, and pass
// importFileRule there, so that a link cannot lead an import to a file
// outside the folder (../outside/secret.txt), to a dotfile or to a file
// that the rule keeps out by its name. A path that does not exist yet
// (esbuild may complete it with an extension) is checked through its
// folder. It returns what is wrong, or "".
func realImportRule(root, target string, with map[string]string, final bool) string {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return ""
	}
	real, err := filepath.EvalSymlinks(target)
	if err != nil {
		// It does not exist (esbuild reports that), or not yet: its
		// folder must be inside.
		dir, rerr := filepath.EvalSymlinks(filepath.Dir(target))
		if rerr != nil {
			return ""
		}
		real, final = filepath.Join(dir, filepath.Base(target)), false
	}
	if !inside(realRoot, real) {
		return "it leads outside the function's folder through a symbolic link; " + importRule
	}
	if msg := importFileRule(realRoot, real, with, final); msg != "" {
		return msg + " (it is " + quote(filepath.ToSlash(mustRel(realRoot, real))) + " through a symbolic link)"
	}
	return ""
}

// mustRel is filepath.Rel for a path known to be under root.
func mustRel(root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return path
	}
	return rel
}

// importRule says what a function may import, for the errors of imports.
const importRule = `a function may import only files in its folder ("./x.js") and the stdlib ("ptfsh/...")`

// inside reports whether path is dir or a path under it, by name
// (realImportRule checks the real path too).
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolveStdlib finds module mod (a path inside Options.Stdlib, with or
// without its extension).
func (e *Engine) resolveStdlib(mod, orig string, fail func(string) (api.OnResolveResult, error)) (api.OnResolveResult, error) {
	if e.opts.Stdlib != nil && fs.ValidPath(mod) {
		for _, cand := range []string{mod, mod + ".js", mod + ".ts", mod + "/index.js", mod + "/index.ts"} {
			if st, err := fs.Stat(e.opts.Stdlib, cand); err == nil && !st.IsDir() {
				return api.OnResolveResult{Path: cand, Namespace: stdlibNamespace}, nil
			}
		}
	}
	return fail("unknown stdlib module " + quote(orig))
}

// checkFile rejects an imported file that is not a regular file (a named
// pipe, a device), is larger than 'ptf.max-source-size', or is not UTF-8
// (esbuild loops forever on one that ends inside a UTF-8 sequence), or
// leads where no import may go through a symbolic link (realImportRule),
// and otherwise hands esbuild the bytes it read and checked.
func (e *Engine) checkFile(a api.OnLoadArgs, s *source) (api.OnLoadResult, error) {
	name := a.Path
	if rel, err := filepath.Rel(s.absDir, a.Path); err == nil {
		name = filepath.ToSlash(rel)
	}
	if msg := importFileRule(s.absDir, a.Path, a.With, true); msg != "" {
		msg = "cannot import " + quote(name) + ": " + msg
		return api.OnLoadResult{Errors: []api.Message{{Text: msg, Detail: &importError{msg}}}}, nil
	}
	if msg := realImportRule(s.absDir, a.Path, a.With, true); msg != "" {
		msg = "cannot import " + quote(name) + ": " + msg
		return api.OnLoadResult{Errors: []api.Message{{Text: msg, Detail: &importError{msg}}}}, nil
	}
	data, err := readRegularFile(a.Path, e.maxSource)
	if err != nil {
		if !isFileError(err) {
			return api.OnLoadResult{}, nil // esbuild reports it
		}
		msg := "cannot import " + quote(name) + ": " + name + " " + errors.Unwrap(err).Error()
		return api.OnLoadResult{Errors: []api.Message{{Text: msg, Detail: &importError{msg}}}}, nil
	}
	bad, ok := firstInvalidUTF8(string(data))
	if !ok {
		// The bytes checked are the bytes built: esbuild does not read
		// the file again (it may have been replaced since, by a link).
		src := string(data)
		return api.OnLoadResult{Contents: &src, Loader: loaderFor(a.Path, a.With), ResolveDir: filepath.Dir(a.Path)}, nil
	}
	msg := bad.message()
	return api.OnLoadResult{Errors: []api.Message{{Text: msg, Detail: &importError{msg}, Location: &api.Location{
		File: name, Line: bad.line, Column: len(bad.before), LineText: bad.text,
	}}}}, nil
}

// loaderFor is the loader esbuild would choose for an imported file: by
// its import attribute (with { type: "json" | "text" }), else by its
// extension.
func loaderFor(path string, with map[string]string) api.Loader {
	switch with["type"] {
	case "json":
		return api.LoaderJSON
	case "text":
		return api.LoaderText
	}
	ext := strings.ToLower(filepath.Ext(path))
	if l, ok := dataLoaders[ext]; ok {
		return l
	}
	switch ext {
	case ".json":
		return api.LoaderJSON
	case ".jsx":
		return api.LoaderJSX
	case ".ts", ".mts", ".cts":
		return api.LoaderTS
	case ".tsx":
		return api.LoaderTSX
	}
	return api.LoaderJS
}

func (e *Engine) loadStdlib(a api.OnLoadArgs) (api.OnLoadResult, error) {
	data, err := fs.ReadFile(e.opts.Stdlib, a.Path)
	if err != nil {
		return api.OnLoadResult{}, err
	}
	s := string(data)
	loader := api.LoaderJS
	if strings.HasSuffix(a.Path, ".ts") {
		loader = api.LoaderTS
	}
	return api.OnLoadResult{Contents: &s, Loader: loader}, nil
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Bundle returns the function in src (read from file, as for Load) as one
// self-contained script, imports included, whose completion value is the
// declaration object. It is for other JavaScript hosts: ptfsh export flink
// runs it in GraalJS. Imported stdlib modules are bundled too.
func (e *Engine) Bundle(name, file, src string) (string, error) {
	s, err := e.newSource(name, file, src)
	if err != nil {
		return "", err
	}
	b, err := e.build(s)
	if err != nil {
		return "", e.withLine(err, s)
	}
	switch {
	case b.esm:
		return b.code + "\n" + moduleGlobal + ".default;\n", nil
	case b.module:
		return b.code + "\n" + moduleGlobal + ";\n", nil
	}
	return b.code + "\n", nil
}
