package ptf

import "regexp"

// clearAllRE finds a call of the context's clearAllTimers() or clearAll()
// in a function's code (by name: a method of that name is found too).
var clearAllRE = regexp.MustCompile(`\bclearAll(?:Timers)?\s*\(`)

// ClearsAllTimers reports whether a function's code calls the context's
// clearAllTimers() or clearAll(), which Flink 2.3.0 runs differently from
// ptfsh (FlinkClearAllTimers).
func ClearsAllTimers(code string) bool { return clearAllRE.MatchString(code) }

// FlinkClearAllTimers says how Flink 2.3.0 runs a PTF's clearAllTimers()
// (and clearAll(), which calls it), as seen with a function written in
// Java on a mini cluster (cmd/ptfsh's TestRunExport_flinkClearAll): its
// WritableInternalTimeContext walks the pending unnamed timers with
// InternalTimerService.forEachEventTimeTimer, which sets the current key
// to each timer's key, so the deletes that follow, the named timers it
// clears and the state written back after the call go to the key of the
// last timer walked.
const FlinkClearAllTimers = "on Flink 2.3.0, clearAllTimers() (and clearAll()) steps through the pending unnamed timers of every key and leaves the call on the last one's key: that key loses its named timers, unnamed timers at the times walked and its state, and the calling key's unnamed timers may still fire, while ptfsh clears the calling key's own; clear each timer by name or time (timeContext().clearTimer(...)) and the state with clearAllState() to get the same rows on both"
