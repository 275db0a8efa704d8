package state

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// fileResident returns the bytes of file pages (and shared memory) the
// process has resident: the third field of /proc/self/statm, in pages.
func fileResident() (int64, bool) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, false
	}
	f := bytes.Fields(b)
	if len(f) < 3 {
		return 0, false
	}
	n, err := strconv.ParseInt(string(f[2]), 10, 64)
	if err != nil {
		return 0, false
	}
	return n * int64(os.Getpagesize()), true
}

// dontNeed tells the kernel that the process does not need the pages of
// the file mapping at addr, size bytes, resident: a later read maps them
// again from the page cache. addr and size are page-aligned.
func dontNeed(addr uintptr, size int64) {
	if addr == 0 || size <= 0 {
		return
	}
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, addr, uintptr(size), syscall.MADV_DONTNEED)
}
