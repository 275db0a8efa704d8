// Package gen writes the benchmark's input data: click rows and
// flights-like departures, from a seeded generator, so that every run with
// the same parameters writes the same bytes.
//
// Clicks are `user_id,url,view_time,ts` (CSV without a header, as Flink's
// csv format reads it, or JSON lines with the same names). Users are drawn
// from Keys distinct ids with a Zipf-like skew: the user of rank k (from
// 1) has weight 1/k^Skew, so Skew 0 is uniform and Skew 1 makes the first
// user about 8 % of the rows at 100,000 keys while most users still
// appear. view_time is uniform in [0, 1000) ms, so the filter
// view_time >= 500 keeps about half; ts grows by 0 to 19 ms a row from
// 2026-12-01 00:00:00.000.
//
// Flights are `date,delay,distance,origin,destination`, the columns of
// examples/data/flights-20k.json, as CSV sorted by date: departures 0 to
// 60 s apart from 2001-01-01 00:00:00, origins drawn from Keys airports
// with the same skew (busy hubs and quiet fields, so that some airports
// go two hours without a departure), delays mostly small.
package gen

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"time"
)

// Params are a data set's parameters; equal parameters give equal bytes.
type Params struct {
	Kind   string  // "clicks" or "flights"
	Rows   int     // rows to write
	Keys   int     // distinct users (clicks) or airports (flights)
	Skew   float64 // Zipf exponent of the key distribution; 0 is uniform
	Seed   uint64  // the generator's seed
	Format string  // "csv" or "jsonl" (flights: csv only)
}

// DefaultKeys is the key count of a kind when Params.Keys is 0.
func DefaultKeys(kind string) int {
	if kind == "flights" {
		return 300
	}
	return 100_000
}

// Name is a file name that spells the parameters, for caching.
func (p Params) Name() string {
	return fmt.Sprintf("%s-rows%d-keys%d-skew%s-seed%d.%s", p.Kind, p.Rows, p.Keys,
		strconv.FormatFloat(p.Skew, 'f', -1, 64), p.Seed, p.Format)
}

// Check reports parameters the generator cannot honour.
func (p Params) Check() error {
	switch {
	case p.Kind != "clicks" && p.Kind != "flights":
		return fmt.Errorf("kind %q: want clicks or flights", p.Kind)
	case p.Format != "csv" && p.Format != "jsonl":
		return fmt.Errorf("format %q: want csv or jsonl", p.Format)
	case p.Kind == "flights" && p.Format != "csv":
		return fmt.Errorf("flights are written as csv only")
	case p.Rows < 0:
		return fmt.Errorf("rows %d: want 0 or more", p.Rows)
	case p.Keys < 1:
		return fmt.Errorf("keys %d: want 1 or more", p.Keys)
	case p.Kind == "flights" && p.Keys < 2:
		return fmt.Errorf("flights need 2 or more airports")
	case p.Skew < 0 || math.IsNaN(p.Skew) || math.IsInf(p.Skew, 0):
		return fmt.Errorf("skew %v: want a finite number, 0 or more", p.Skew)
	}
	return nil
}

// Write writes the data set to w.
func Write(w io.Writer, p Params) error {
	if err := p.Check(); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	rng := rand.New(rand.NewPCG(p.Seed, p.Seed^0x9e3779b97f4a7c15))
	keys := newZipf(p.Keys, p.Skew)
	var err error
	if p.Kind == "clicks" {
		err = writeClicks(bw, rng, keys, p)
	} else {
		err = writeFlights(bw, rng, keys, p)
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

func writeClicks(w *bufio.Writer, rng *rand.Rand, keys *zipf, p Params) error {
	ts := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	var b []byte
	for range p.Rows {
		user := keys.draw(rng)
		page := rng.IntN(1000)
		view := rng.IntN(1000)
		b = b[:0]
		if p.Format == "jsonl" {
			b = append(b, `{"user_id":"user`...)
			b = strconv.AppendInt(b, int64(user), 10)
			b = append(b, `","url":"https://shop.example/p/`...)
			b = strconv.AppendInt(b, int64(page), 10)
			b = append(b, `","view_time":`...)
			b = strconv.AppendInt(b, int64(view), 10)
			b = append(b, `,"ts":"`...)
			b = ts.AppendFormat(b, "2006-01-02 15:04:05.000")
			b = append(b, "\"}\n"...)
		} else {
			b = append(b, "user"...)
			b = strconv.AppendInt(b, int64(user), 10)
			b = append(b, ",https://shop.example/p/"...)
			b = strconv.AppendInt(b, int64(page), 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(view), 10)
			b = append(b, ',')
			b = ts.AppendFormat(b, "2006-01-02 15:04:05.000")
			b = append(b, '\n')
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		ts = ts.Add(time.Duration(rng.IntN(20)) * time.Millisecond)
	}
	return nil
}

func writeFlights(w *bufio.Writer, rng *rand.Rand, keys *zipf, p Params) error {
	at := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	var b []byte
	for range p.Rows {
		at = at.Add(time.Duration(rng.IntN(61)) * time.Second)
		origin := keys.draw(rng) - 1
		dest := rng.IntN(p.Keys - 1)
		if dest >= origin {
			dest++
		}
		// Most departures are within a quarter of an hour of schedule;
		// one in five is late by up to three hours.
		delay := rng.IntN(30) - 15
		if rng.IntN(5) == 0 {
			delay = rng.IntN(180)
		}
		distance := 100 + rng.IntN(2700)
		b = at.AppendFormat(b[:0], "2006-01-02 15:04:05")
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(delay), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(distance), 10)
		b = append(b, ',')
		b = appendAirport(b, origin)
		b = append(b, ',')
		b = appendAirport(b, dest)
		b = append(b, '\n')
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// appendAirport appends a code of three or more capital letters for an
// airport's index: AAA, AAB, ...
func appendAirport(b []byte, i int) []byte {
	var code [16]byte
	n := len(code)
	for j := 0; j < 3 || i > 0; j++ {
		n--
		code[n] = byte('A' + i%26)
		i /= 26
	}
	return append(b, code[n:]...)
}

// zipf draws ranks 1..n with weight 1/rank^s by inverting the cumulative
// weights (math/rand's Zipf needs s > 1; this takes any s >= 0).
type zipf struct{ cdf []float64 }

func newZipf(n int, s float64) *zipf {
	cdf := make([]float64, n)
	sum := 0.0
	for k := range n {
		sum += math.Pow(float64(k+1), -s)
		cdf[k] = sum
	}
	for k := range cdf {
		cdf[k] /= sum
	}
	return &zipf{cdf: cdf}
}

func (z *zipf) draw(rng *rand.Rand) int {
	i := sort.SearchFloat64s(z.cdf, rng.Float64())
	if i >= len(z.cdf) {
		i = len(z.cdf) - 1
	}
	return i + 1
}
