//go:build !unix

package exec

// addressSpaceLimit: no limit of address space is known here.
func addressSpaceLimit() (int64, bool) { return 0, false }
