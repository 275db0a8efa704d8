//go:build unix

package exec

import "syscall"

// addressSpaceLimit is the process's limit of address space (ulimit -v),
// if it has one (RLIM_INFINITY is all ones).
func addressSpaceLimit() (int64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || uint64(r.Cur) >= 1<<62 {
		return 0, false
	}
	return int64(r.Cur), true
}
