// Package cep is the pattern matcher behind MATCH_RECOGNIZE: a compiled
// pattern (an NFA) and the per-partition state of a match in progress,
// with the semantics of Flink 2.3's CEP library as Flink SQL uses it.
//
// # The pattern
//
// A Spec is the sequence of a PATTERN clause's variables, each with its
// quantifier, the AFTER MATCH SKIP strategy and the WITHIN interval.
// Compile checks it as Flink's planner and CEP compiler do (Flink's
// messages: a reluctant optional variable, a pattern that can match no
// row, a greedy quantifier last) and builds the states Flink's
// NFACompiler builds for it: strict contiguity between and inside the
// variables, as Flink SQL asks for (next() and consecutive()), a looping
// state for +, * and {n,}, a chain of states for {n,m}, and the greedy
// conditions on the state after a greedy quantifier.
//
// # Running it
//
// A State is one partition's partial and completed matches. Process feeds
// it the partition's next row (an Event: an id that grows with every row
// and the row's time); Conds answers whether a variable's DEFINE holds
// for the row, given the rows the partial match holds so far. AdvanceTime
// drops the partial matches that WITHIN has timed out. Both return the
// matches to emit, in Flink's order: completed matches wait, under a skip
// strategy, until no partial match that started earlier is left, and each
// emitted match prunes the matches its strategy skips.
//
// The partial and completed matches are kept in heaps that behave as
// java.util.PriorityQueue does (the same sift steps, the same order of
// iteration), because Flink iterates its queues in heap order and that
// order decides which of two matches that start at the same row wins.
//
// # Caveats
//
// The rows a match holds are kept as a list per partial match that shares
// its tail with the matches it branched from, where Flink keeps a shared
// buffer with Dewey-numbered versions: the matches are the same, the
// memory is of the same order. A State is not safe for concurrent use.
package cep
