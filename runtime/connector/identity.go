package connector

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/exec"
)

// File identity. Two paths name the same file when they reach the same
// file on disk, whatever their text: through a symbolic link (latest.csv
// -> t.csv), a linked folder, or a hard link (os.SameFile compares device
// and inode). A sink is compared with the files its query reads, and the
// sinks of a statement set with each other, by identity: a sink that is
// its own source reads the rows it appends and grows without end, and two
// sinks of one file tear each other's lines.

// realPath returns path with its symbolic links resolved, as far as they
// lead: a path that does not exist yet (a sink's new file) resolves
// through its folder, and a link whose target does not exist yet through
// the target's.
func realPath(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	for range 40 { // as many links as the kernel follows
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			return real
		}
		fi, err := os.Lstat(abs)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			// It does not exist: resolve its folder.
			dir, base := filepath.Split(abs)
			if real, err := filepath.EvalSymlinks(dir); err == nil {
				return filepath.Join(real, base)
			}
			return abs
		}
		target, err := os.Readlink(abs)
		if err != nil {
			return abs
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(abs), target)
		}
		abs = target
	}
	return abs
}

// SameFile reports whether paths a and b name the same file: the same
// file on disk (hard links too), or the same real path for a file that
// does not exist yet.
func SameFile(a, b string) bool {
	if a == b {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(fa, fb)
	}
	return realPath(a) == realPath(b)
}

// inFolder reports whether path is, by its real path, inside folder.
func inFolder(folder, path string) bool {
	f, p := realPath(folder), realPath(path)
	return strings.HasPrefix(p, f+string(filepath.Separator))
}

// FileReader returns the file table of plan n whose read takes in the file
// at path, or nil: a table whose file is that file, or a folder table
// that holds it (by its real path, or as one of the files it lists, which
// may be links to files elsewhere).
func FileReader(n exec.Node, path string) *catalog.Table {
	if f, ok := n.(*fileNode); ok && readsFile(f.t, path) {
		return f.t
	}
	for _, c := range n.Children() {
		if t := FileReader(c, path); t != nil {
			return t
		}
	}
	return nil
}

// readsFile reports whether table t reads the file at path.
func readsFile(t *catalog.Table, path string) bool {
	src := TablePath(t)
	if SameFile(src, path) {
		return true
	}
	if !isFolder(src) {
		return false
	}
	if inFolder(src, path) {
		return true
	}
	files, err := tableFiles(t)
	if err != nil {
		return false // the read reports it
	}
	for _, f := range files {
		if SameFile(f, path) {
			return true
		}
	}
	return false
}
