//go:build !unix

package state

import (
	"errors"
	"os"
	"time"
)

var errLockTimeout = errors.New("lock timeout")

// lockFile does nothing where flock does not exist: OpenBolt then checks the
// file before bbolt locks it, so a file another process is writing at that
// moment may be reported as corrupt instead of in use.
func lockFile(f *os.File, exclusive bool, timeout time.Duration) error { return nil }

func unlockFile(f *os.File) error { return nil }
