package connector

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ptfsh/ptfsh/runtime/catalog"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// StreamScan reads a stream (CREATE STREAM) as far as it goes: the rows
// and watermark steps that INSERT INTO and ADVANCE WATERMARK gave it, with
// the watermarks its WATERMARK declaration makes after rows, as a table
// given AS VALUES reads. The execution's processing-time clock is the
// stream's: it stands at the stream's Clock, and each step of ADVANCE
// PROCESSING TIME moves it and passes on an EvIdle, so that operators
// release what the time made due. The session runs a query on a stream again at each
// step, over every event so far: Replayed says how many events an earlier
// step read, and Live is called with false before a reader of the scan
// hands out the first of them and with true before it hands out the first
// event past them (or its end), so that the trace and the counts show only
// what the step adds. A plan may read a stream more than once (each input
// of a UNION ALL, one after the other): each reader calls Live.
type StreamScan struct {
	Table    *catalog.Table
	Events   []exec.Event // the stream's events when the query was planned
	Every    int64        // 'ptfsh.watermark.every-rows'
	Replayed int
	Live     func(live bool)
}

// NewStreamScan reads stream t as it is now.
func NewStreamScan(t *catalog.Table, env Env) *StreamScan {
	return &StreamScan{Table: t, Events: t.Events, Every: env.WatermarkEvery}
}

func (s *StreamScan) Schema() types.Schema           { return s.Table.Schema }
func (s *StreamScan) Changelog() types.ChangelogMode { return types.InsertOnly }
func (s *StreamScan) Children() []exec.Node          { return nil }
func (s *StreamScan) Explain() string {
	return "StreamScan(stream=[[" + s.Table.Name + "]], events=[" + strconv.Itoa(len(s.Events)) + "], fields=[" + strings.Join(s.Table.Schema.Names(), ", ") + "])"
}

// Open reads the stream's events from the first.
func (s *StreamScan) Open(ex *exec.Execution) (exec.Stream, error) {
	setClock(ex, s.Table.Clock)
	for _, ev := range s.Events {
		if ev.Kind == exec.EvIdle {
			ex.SteppedClock = true
		}
	}
	return &streamReader{scan: s, ex: ex, wm: exec.NewWMGen(s.Table.Watermark, s.Every)}, nil
}

// clockText shows a processing time as the trace shows times (UTC).
func clockText(ms int64) string {
	t := time.UnixMilli(ms).UTC()
	if ms%1000 != 0 {
		return t.Format("2006-01-02 15:04:05.000")
	}
	return t.Format("2006-01-02 15:04:05")
}

// setClock stops the execution's processing-time clock at ms.
func setClock(ex *exec.Execution, ms int64) { ex.Now = func() int64 { return ms } }

type streamReader struct {
	scan    *StreamScan
	ex      *exec.Execution
	i       int
	wm      *exec.WmGen
	pending *exec.Event
	live    bool
}

func (r *streamReader) Next() (exec.Event, error) {
	if r.pending != nil {
		ev := *r.pending
		r.pending = nil
		return ev, nil
	}
	for r.i < len(r.scan.Events) {
		r.goLive(r.i)
		ev := r.scan.Events[r.i]
		r.i++
		switch ev.Kind {
		case exec.EvWatermark:
			if r.wm.Explicit(ev.Wm) {
				return ev, nil
			}
			continue
		case exec.EvIdle:
			// A processing-time step: no row, the clock moves. The driver
			// that sees an EvIdle waits for a wake; it need not.
			if r.ex.Trace != nil {
				fmt.Fprintf(r.ex.Trace, "trace %s processing time → %s\n", r.scan.Table.Name, clockText(ev.Wm))
			}
			setClock(r.ex, ev.Wm)
			r.ex.Live().Wake()
			return exec.Event{Kind: exec.EvIdle}, nil
		}
		r.ex.RowsIn++
		if w, ok := r.wm.Observe(ev.Row); ok {
			r.pending = &exec.Event{Kind: exec.EvWatermark, Wm: w}
		}
		return ev, nil
	}
	r.goLive(r.i)
	return exec.Event{Kind: exec.EvEnd}, nil
}

// goLive calls Live before event i if it is the first replayed one or
// the first new one.
func (r *streamReader) goLive(i int) {
	if r.live || r.scan.Live == nil {
		return
	}
	switch {
	case i >= r.scan.Replayed:
		r.live = true
		r.scan.Live(true)
	case i == 0:
		r.scan.Live(false)
	}
}

func (r *streamReader) Close() error { return nil }
