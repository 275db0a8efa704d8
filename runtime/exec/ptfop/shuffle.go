package ptfop

import (
	"math/rand/v2"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
)

// What Flink does not order, and a shuffle reorders:
//
//   - rows of different partition keys of one table between two events
//     that are not rows (watermarks, the end): Flink sends each key to its
//     own parallel instance, and keeps only each key's own order. ptfsh
//     emits a watermark after each row that advances it, so with a
//     watermark these are rows of one event time.
//   - the rows of a table with row semantics, which Flink may hand to any
//     instance;
//   - which of several table arguments gives the next row.
//
// Per key, rows stay in order, and watermarks stay where they are, so a
// function written as Flink promises sees the same rows per key, the same
// watermarks, and writes the same rows, in another order.

// maxShuffleRun bounds the rows a shuffle holds back at once.
const maxShuffleRun = 10_000

// shuffleStream reorders the runs of rows of its input.
type shuffleStream struct {
	in   exec.Stream
	rng  *rand.Rand
	cols []int // the partition key columns; nil with row semantics: each row its own key
	row  bool  // row semantics

	out  []exec.Event // the shuffled run, handed out from oi
	oi   int
	next *exec.Event // the event that ended the run, handed out after it
	err  error
}

var _ exec.Stream = (*shuffleStream)(nil)

func newShuffleStream(in exec.Stream, rng *rand.Rand, t *TableBinding) *shuffleStream {
	return &shuffleStream{in: in, rng: rng, cols: t.Partition, row: !t.Set}
}

func (s *shuffleStream) Next() (exec.Event, error) {
	for {
		if s.oi < len(s.out) {
			ev := s.out[s.oi]
			s.out[s.oi] = exec.Event{}
			s.oi++
			return ev, nil
		}
		if s.next != nil {
			ev := *s.next
			s.next = nil
			return ev, nil
		}
		if s.err != nil {
			return exec.Event{}, s.err
		}
		s.fill()
	}
}

// fill reads a run of rows and the event after it, and shuffles the run.
func (s *shuffleStream) fill() {
	var run []exec.Event
	for len(run) < maxShuffleRun {
		ev, err := s.in.Next()
		if err != nil {
			s.err = err
			break
		}
		if ev.Kind != exec.EvRow {
			s.next = &ev
			break
		}
		run = append(run, ev)
	}
	s.out, s.oi = s.interleave(run), 0
}

// interleave returns a random interleaving of the rows of run that keeps
// the order of each key's rows, every such interleaving equally likely:
// the sequence of the rows' keys is shuffled, and each place takes the
// next row of its key.
func (s *shuffleStream) interleave(run []exec.Event) []exec.Event {
	if len(run) < 2 {
		return run
	}
	if s.row { // each row its own key: any order
		s.rng.Shuffle(len(run), func(i, j int) { run[i], run[j] = run[j], run[i] })
		return run
	}
	var queues [][]exec.Event
	labels := make([]int32, len(run))
	at := map[string]int32{}
	var buf []byte
	for j, ev := range run {
		buf = keycodec.AppendPick(buf[:0], ev.Row, s.cols)
		i, ok := at[string(buf)]
		if !ok {
			i = int32(len(queues))
			at[string(buf)] = i
			queues = append(queues, nil)
		}
		queues[i] = append(queues[i], ev)
		labels[j] = i
	}
	s.rng.Shuffle(len(labels), func(i, j int) { labels[i], labels[j] = labels[j], labels[i] })
	out := run[:0]
	for _, l := range labels {
		out = append(out, queues[l][0])
		queues[l] = queues[l][1:]
	}
	return out
}

func (s *shuffleStream) Close() error { return s.in.Close() }
