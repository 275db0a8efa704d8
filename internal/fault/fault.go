// Package fault marks the places of ptfsh's commit path where a test build
// can kill the process: before each rename, unlink, ftruncate and fsync of
// a file sink, and before and after each commit of the state store. The
// crash tests (tests/crash_faults_test.go) kill a run at each such place
// in turn and check that the run started again writes the files an
// uninterrupted run writes.
//
// In an ordinary build Point does nothing (and costs nothing: it is an
// empty function the compiler inlines). A build with the tag ptfsh_faults
// (go build -tags ptfsh_faults) reads two variables of the environment:
//
//	PTFSH_FAULT=NAME:N       kill the process with SIGKILL at the N'th
//	                         time it reaches the point NAME (1 is the first)
//	PTFSH_FAULT_LOG=FILE     append the name of every point reached to FILE,
//	                         one a line (to count them in a run)
package fault

// The points, named by the system call that follows them.
const (
	SinkFsync      = "sink.fsync"      // a sink's file (or its folder) is synced
	SinkFtruncate  = "sink.ftruncate"  // a sink's file is cut back
	SinkRename     = "sink.rename"     // a sink's new file replaces the table's
	SinkUnlink     = "sink.unlink"     // a sink's unfinished new file is removed
	StateCommit    = "state.commit"    // the state store commits a transaction
	StateCommitted = "state.committed" // and has committed it
)
