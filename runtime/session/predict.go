package session

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/settings"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// Predict mode (SET 'ptfsh.predict' = 'on', at the prompt): before a step
// of a stream that the running query reads, the shell shows the step and
// asks the learner to type the rows the query will emit for it; the step
// then runs, prints its rows, and the guess is scored against them as a
// multiset of rows (their order is not asked). A row may be typed as the
// results print it (the cells of a tableau, changelog or table line,
// between |) or as the rows format prints it (+I[Bob, 12]).

// SetPredict turns predict mode on.
const SetPredict = "ptfsh.predict"

// stepRow is a row a step emitted, in the two spellings a guess may use.
type stepRow struct {
	rows  string // +I[Bob, 12]
	cells string // +I | Bob | 12, the cells as a tableau prints them
}

// newStepRow spells a row both ways.
func newStepRow(r types.Row, sch types.Schema) stepRow {
	var b []byte
	b = append(b, r.Kind.ShortString()...)
	for i, v := range r.Fields {
		b = append(b, " | "...)
		b = types.AppendTableValue(b, v, sch.Columns[i].Type)
	}
	return stepRow{rows: types.FormatRow(r, sch), cells: string(b)}
}

// PredictPrompt is the question predict mode asks before a step: the
// step, and how to type rows in the session's format.
func (s *Session) PredictPrompt(step string) string {
	how := "Type its rows as the results print them (+I[a, 1]), one a line; an empty line when done."
	if s.format() != "rows" {
		how = "Type its rows as the results print them, the cells between | (+I | a | 1), or as +I[a, 1]; one a line, an empty line when done."
	}
	return "predict: what will the query emit at this step?\n  " + strings.ReplaceAll(step, "\n", "\n  ") + "\n  " + how + "\n"
}

// predictStep asks for a guess when predict mode is on and the shell can
// ask; ok false: no guess to score.
func (s *Session) predictStep(stmt *statement) (guess []string, ok bool) {
	on, _ := settings.Get[bool](s.settings, SetPredict)
	if !on || s.cfg.Predict == nil || stmt.stepping != nil {
		return nil, false
	}
	return s.cfg.Predict(stmt.Text)
}

// normGuess puts a row as typed, or as printed, in one form: cells
// between | trimmed (the borders of a tableau line dropped), else the
// text with its runs of spaces made one.
func normGuess(r string) string {
	r = strings.TrimSpace(r)
	if !strings.Contains(r, "|") {
		return strings.Join(strings.Fields(r), " ")
	}
	cells := strings.Split(r, "|")
	if len(cells) > 0 && strings.TrimSpace(cells[0]) == "" {
		cells = cells[1:]
	}
	if len(cells) > 0 && strings.TrimSpace(cells[len(cells)-1]) == "" {
		cells = cells[:len(cells)-1]
	}
	for i, c := range cells {
		cells[i] = strings.Join(strings.Fields(c), " ")
	}
	return strings.Join(cells, " | ")
}

// scoreGuess compares the rows typed with the rows the step emitted.
func (s *Session) scoreGuess(guess []string, got []stepRow) {
	show := func(r stepRow) string {
		if s.format() == "rows" {
			return r.rows
		}
		return "| " + r.cells + " |"
	}
	matched := make([]bool, len(got))
	right := 0
	var extra []string
	for _, g := range guess {
		g = normGuess(g)
		if g == "" {
			continue
		}
		found := false
		for i, r := range got {
			if !matched[i] && (g == normGuess(r.rows) || g == normGuess(r.cells)) {
				matched[i], found = true, true
				right++
				break
			}
		}
		if !found {
			extra = append(extra, g)
		}
	}
	var missed []string
	for i, r := range got {
		if !matched[i] {
			missed = append(missed, show(r))
		}
	}
	sort.Strings(missed)
	sort.Strings(extra)
	total := len(got)
	switch {
	case len(missed) == 0 && len(extra) == 0 && total == 0:
		fmt.Fprintln(s.cfg.Err, "guess: right: the step emits nothing")
	case len(missed) == 0 && len(extra) == 0 && total == 1:
		fmt.Fprintln(s.cfg.Err, "guess: right: the one row")
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
