package script_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/script"
)

// TestEngine_ReadSource: a function file is read only when it is a
// regular file no larger than 'ptf.max-source-size'; a named pipe (which
// would block) and a device such as /dev/zero (which never ends) are
// refused at once, naming the file.
func TestEngine_ReadSource(t *testing.T) {
	dir := t.TempDir()
	e := script.NewEngine(script.Options{ParseType: script.ParseTypeForTest, BaseDir: dir})
	defer e.Close()
	ok := filepath.Join(dir, "ok.js")
	os.WriteFile(ok, []byte("({ output: 'INT', eval() {} })"), 0o644)
	big := filepath.Join(dir, "big.js")
	os.WriteFile(big, []byte(strings.Repeat("//\n", 2000)), 0o644)
	pipe := filepath.Join(dir, "pipe.js")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	zero := filepath.Join(dir, "zero.js")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	if err := e.Set("ptf.max-source-size", "4 kb"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{ok, ""},
		{pipe, "read " + pipe + ": is a named pipe, not a regular file"},
		{zero, "read " + zero + ": is a device, not a regular file"},
		{dir, "read " + dir + ": is a directory, not a regular file"},
		{big, "read " + big + ": is larger than 4 kb; to allow more, SET 'ptf.max-source-size' to a larger size"},
		{filepath.Join(dir, "none.js"), "no such file or directory"},
	} {
		done := make(chan error, 1)
		go func() { _, err := e.ReadSource(tc.path); done <- err }()
		select {
		case err := <-done:
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("ReadSource(%s) = %v, want %q", filepath.Base(tc.path), err, tc.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("ReadSource(%s) hangs", filepath.Base(tc.path))
		}
	}
	// The limit holds for a source given to Load and for the files it
	// imports.
	if _, err := e.Load("big", "", strings.Repeat("//\n", 2000)+"({ output: 'INT', eval() {} })"); err == nil || !strings.Contains(err.Error(), "the source is larger than 4 kb (6030 bytes); to allow more, SET 'ptf.max-source-size'") {
		t.Errorf("Load of a big source: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "imp.js"), []byte("import './big.js';\nexport default { output: 'INT', eval() {} };"), 0o644)
	if _, err := e.Load("imp", "imp.js", "import './big.js';\nexport default { output: 'INT', eval() {} };"); err == nil || !strings.Contains(err.Error(), `imp.js:1:8: imp: cannot import "big.js": big.js is larger than 4 kb`) {
		t.Errorf("import of a big file: %v", err)
	}
	e.Reset("ptf.max-source-size")
	if _, err := e.ReadSource(big); err != nil {
		t.Errorf("after RESET: %v", err)
	}
	if err := e.Set("ptf.max-source-size", "0"); err == nil {
		t.Error("SET 'ptf.max-source-size' = '0' was accepted")
	}
}
