//go:build unix

package state

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// errLockTimeout is returned by lockFile when another process holds the lock.
var errLockTimeout = errors.New("lock timeout")

// lockFile takes bbolt's lock on f (flock, shared or exclusive), trying again
// every 50ms until timeout has passed. bbolt takes the same lock again on the
// same open file when OpenBolt hands f to it, which succeeds at once; closing
// f releases it.
func lockFile(f *os.File, exclusive bool, timeout time.Duration) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case !errors.Is(err, syscall.EWOULDBLOCK):
			return err
		}
		wait := time.Until(deadline)
		if wait <= 0 {
			return errLockTimeout
		}
		time.Sleep(min(wait, 50*time.Millisecond))
	}
}

// unlockFile releases the lock lockFile took.
func unlockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}
