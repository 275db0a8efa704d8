//go:build !ptfsh_faults || !unix

package fault

// Point marks the place name of the commit path; in this build it does
// nothing.
func Point(name string) {}
