//go:build !linux

package state

// fileResident is unknown outside Linux: the store does not trim.
func fileResident() (int64, bool) { return 0, false }

func dontNeed(uintptr, int64) {}
