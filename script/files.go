package script

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/ptfsh/ptfsh/runtime/settings"
)

// A function file, and a file a function imports, must be a regular file
// no larger than 'ptf.max-source-size': reading a named pipe blocks until
// something writes to it (for ever, in a shell), and /dev/zero or
// /dev/urandom never end. A symbolic link is followed, and what it points
// to must be a regular file too.

// errNotRegular is the error of a file that is not a regular file; the
// *fs.PathError around it names the file.
type errNotRegular struct{ what string }

func (e *errNotRegular) Error() string { return "is " + e.what + ", not a regular file" }

// notRegular describes a file mode that is not a regular file, or
// returns nil for a regular file.
func notRegular(m fs.FileMode) error {
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return &errNotRegular{"a directory"}
	case m&fs.ModeNamedPipe != 0:
		return &errNotRegular{"a named pipe"}
	case m&fs.ModeSocket != 0:
		return &errNotRegular{"a socket"}
	case m&fs.ModeDevice != 0:
		return &errNotRegular{"a device"}
	}
	return &errNotRegular{"a special file"}
}

// errTooLarge is the error of a file larger than the limit.
type errTooLarge struct{ limit int64 }

func (e *errTooLarge) Error() string {
	return fmt.Sprintf("is larger than %s; to allow more, SET 'ptf.max-source-size' to a larger size", settings.FormatSize(e.limit))
}

// readRegularFile reads path, which must be a regular file (a symbolic
// link to one is followed) of at most limit bytes. Its errors are
// *fs.PathError values that name path: "read pipe.js: is a named pipe,
// not a regular file".
func readRegularFile(path string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := notRegular(st.Mode()); err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if st.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &errTooLarge{limit}}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Again on what was opened: the file may have been replaced since.
	if st, err := f.Stat(); err != nil {
		return nil, err
	} else if err := notRegular(st.Mode()); err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &errTooLarge{limit}}
	}
	return data, nil
}

// ReadSource reads a function file for Load: a regular file (a symbolic
// link to one is followed) of at most 'ptf.max-source-size' bytes
// (SetMaxSourceSize; 16 MiB by default). A named pipe, a device such as
// /dev/zero, a directory or a larger file is an *fs.PathError naming
// path, such as "read f.js: is a named pipe, not a regular file"; reading
// never blocks on a pipe nor reads without end. The session should read
// function files with it rather than os.ReadFile.
func (e *Engine) ReadSource(path string) (string, error) {
	data, err := readRegularFile(path, e.maxSource)
	if err != nil {
		return "", err
	}
	return string(data), nil
}

// isFileError reports whether err is one of readRegularFile's own.
func isFileError(err error) bool {
	var nr *errNotRegular
	var tl *errTooLarge
	return errors.As(err, &nr) || errors.As(err, &tl)
}
