package session

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/ptfsh/ptfsh/runtime/connector"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/ptfop"
	"github.com/ptfsh/ptfsh/runtime/settings"
	"github.com/ptfsh/ptfsh/runtime/textparse"
)

// Settings of event and processing time, read when a statement starts.
const (
	// SetProcessingTime fixes the processing-time clock (state TTL) at a
	// time: 'YYYY-MM-DD hh:mm:ss' or epoch milliseconds. Without it the
	// clock is the wall clock.
	SetProcessingTime = "ptfsh.processing-time"
	// SetStateTTL is Flink's default time-to-live of state entries that
	// declare none.
	SetStateTTL = "table.exec.state.ttl"
	// SetEndOfInput = 'false' ends a statement after its input without the
	// maximum watermark, as Flink's stop-with-savepoint: timers and state
	// stay for the next statement or run with the same uid.
	SetEndOfInput = "ptfsh.end-of-input"
	// SetMaxTimerFirings stops an onTimer that keeps registering past
	// timers after this many firings at one watermark.
	SetMaxTimerFirings = "ptfsh.timers.max-firings"
)

// newExecution prepares a statement's execution from the settings.
func (s *Session) newExecution(ctx context.Context) (*exec.Execution, error) {
	ex := exec.NewExecution(ctx, s.cfg.Store)
	ex.StatementKey = s.stmtKey
	if v, ok := s.processingTime(); ok {
		ms, err := textparse.TimeSetting(v)
		if err != nil {
			return nil, fmt.Errorf("SET '%s': %w", SetProcessingTime, err)
		}
		ex.Now = func() int64 { return ms }
	}
	ttl, _ := settings.Get[time.Duration](s.settings, SetStateTTL)
	ex.DefaultTTL = ttl.Milliseconds()
	positions, _ := settings.Get[string](s.settings, connector.SetSourcePositions)
	ex.ResetSources = positions == "reset"
	ex.TraceFilter = s.cfg.TraceFilter // --trace-key and the like, unless SET
	if _, set := s.settings[ptfop.SetTraceKey]; set {
		ex.TraceFilter.Key, _ = settings.Get[string](s.settings, ptfop.SetTraceKey)
	}
	if _, set := s.settings[ptfop.SetTraceFunction]; set {
		ex.TraceFilter.Function, _ = settings.Get[string](s.settings, ptfop.SetTraceFunction)
	}
	if _, set := s.settings[ptfop.SetTraceLate]; set {
		ex.TraceFilter.Late, _ = settings.Get[bool](s.settings, ptfop.SetTraceLate)
	}
	filtered := ex.TraceFilter != exec.TraceFilter{}
	if trace, _ := settings.Get[bool](s.settings, ptfop.SetTrace); trace || s.cfg.Trace || filtered {
		ex.Trace = s.cfg.Err
	}
	incompatible, _ := settings.Get[string](s.settings, ptfop.SetOnIncompatible)
	ex.DiscardIncompatible = incompatible == "discard"
	ex.CacheSize, _ = settings.Get[int](s.settings, ptfop.SetCacheSize)
	ex.CacheBytes, _ = settings.Get[int64](s.settings, ptfop.SetCacheBytes)
	ex.EndOfInput, _ = settings.Get[bool](s.settings, SetEndOfInput)
	if s.stepping != nil { // a step of a query on streams (stream.go)
		ex.EndOfInput = false
		if ex.Trace != nil {
			s.stepping.gate.w, ex.Trace = ex.Trace, s.stepping.gate
		}
	}
	ex.Parallelism = max(s.cfg.Parallelism, 1)
	if _, ok := s.settings[ptfop.SetParallelism]; ok {
		ex.Parallelism, _ = settings.Get[int](s.settings, ptfop.SetParallelism)
	}
	ex.MaxTimerFirings, _ = settings.Get[int](s.settings, SetMaxTimerFirings)
	ex.Lineage = s.lineage()
	seed := s.cfg.ShuffleSeed
	if _, ok := s.settings[ptfop.SetShuffleSeed]; ok {
		seed, _ = settings.Get[int64](s.settings, ptfop.SetShuffleSeed)
	}
	if seed != 0 {
		ex.Shuffle = rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	}
	return ex, nil
}

// processingTime is SET 'ptfsh.processing-time', else the session's
// default (Config.ProcessingTime), and whether there is one.
func (s *Session) processingTime() (string, bool) {
	if v, ok := s.settings[SetProcessingTime]; ok {
		return v, true
	}
	return s.cfg.ProcessingTime, s.cfg.ProcessingTime != ""
}

// timeNotes says what a person should know about time after a statement:
// timers that fired only because the input ended, with no watermark seen;
// rows that ORDER BY dropped.
func timeNotes(ex *exec.Execution) []string {
	var notes []string
	for _, call := range ex.Ptfs {
		notes = append(notes, call.Notes()...)
	}
	return notes
}
