package session

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/settings"
)

// Predict mode (SET 'ptfsh.predict' = 'on', at the prompt): before a step
// of a stream that the running query reads, the shell shows the step and
// asks the learner to type the rows the query will emit for it; the step
// then runs, prints its rows, and the guess is scored against them as a
// multiset of rows (their order is not asked).

// SetPredict turns predict mode on.
const SetPredict = "ptfsh.predict"

// predictStep asks for a guess when predict mode is on and the shell can
// ask; ok false: no guess to score.
func (s *Session) predictStep() (guess []string, ok bool) {
	on, _ := settings.Get[bool](s.settings, SetPredict)
	if !on || s.cfg.Predict == nil || s.stepping != nil {
		return nil, false
	}
	return s.cfg.Predict(s.stepText)
}

// scoreGuess compares the rows typed with the rows the step emitted.
func (s *Session) scoreGuess(guess, got []string) {
	norm := func(rows []string) map[string]int {
		m := map[string]int{}
		for _, r := range rows {
			if r = strings.Join(strings.Fields(r), " "); r != "" {
				m[r]++
			}
		}
		return m
	}
	want, typed := norm(got), norm(guess)
	right := 0
	var missed, extra []string
	for r, n := range want {
		k := min(n, typed[r])
		right += k
		for i := k; i < n; i++ {
			missed = append(missed, r)
		}
	}
	for r, n := range typed {
		for i := want[r]; i < n; i++ {
			extra = append(extra, r)
		}
	}
	sort.Strings(missed)
	sort.Strings(extra)
	total := len(got)
	switch {
	case len(missed) == 0 && len(extra) == 0 && total == 0:
		fmt.Fprintln(s.cfg.Err, "guess: right: the step emits nothing")
	case len(missed) == 0 && len(extra) == 0:
		fmt.Fprintf(s.cfg.Err, "guess: right: all %d rows\n", total)
	default:
		fmt.Fprintf(s.cfg.Err, "guess: %d of %d rows right\n", right, total)
		for _, r := range missed {
			fmt.Fprintln(s.cfg.Err, "  not guessed: "+r)
		}
		for _, r := range extra {
			fmt.Fprintln(s.cfg.Err, "  not emitted: "+r)
		}
	}
}
