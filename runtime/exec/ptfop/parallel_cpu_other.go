//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package ptfop

import "time"

// processCPU cannot read the process's CPU time here: the pace then
// probes the workers in turn without asking how many cores they got.
func processCPU() (time.Duration, bool) { return 0, false }
