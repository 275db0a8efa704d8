package main

import "github.com/aymanbagabas/go-udiff/lcs"

// diffLines walks the lines a and b in order and calls emit for each:
// op ' ' for a line of both, '-' for one of a only, '+' for one of b only
// (the lines of a a change removes before the lines of b that replace
// them). The common lines are those of Myers' algorithm as go-udiff bounds
// it ([lcs.DiffLines]): a longest common subsequence while the lines
// differ in few places, and a shorter one, found in linear time and
// memory, when they differ everywhere.
func diffLines(a, b []string, emit func(op byte, line string)) {
	i := 0
	for _, d := range lcs.DiffLines(a, b) {
		for ; i < d.Start; i++ {
			emit(' ', a[i])
		}
		for _, l := range a[d.Start:d.End] {
			emit('-', l)
		}
		for _, l := range b[d.ReplStart:d.ReplEnd] {
			emit('+', l)
		}
		i = d.End
	}
	for ; i < len(a); i++ {
		emit(' ', a[i])
	}
}
