// Command plain is the benchmark's plain Go baseline: each workload's
// logic written directly in Go, reading the same input file and writing
// the same CSV to stdout as `ptfsh --format csv` does (a header, the
// PARTITION BY column, the function's output and, for the event-time
// workload, the rowtime).
//
//	plain -workload filter|count|greeting|alert [-format csv|jsonl] FILE
//
// Every row is parsed whole (the timestamp too), as ptfsh and the Node
// harness parse it; JSON lines go through encoding/json.
package main

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"time"
)

func main() {
	workload := flag.String("workload", "", "filter, count, greeting or alert")
	format := flag.String("format", "csv", "the input's format: csv or jsonl (clicks only)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: plain -workload filter|count|greeting|alert [-format csv|jsonl] FILE")
		os.Exit(2)
	}
	if err := run(*workload, *format, flag.Arg(0), os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "plain: %v\n", err)
		os.Exit(1)
	}
}

func run(workload, format, path string, stdout io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	in := bufio.NewScanner(f)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := bufio.NewWriterSize(stdout, 1<<16)
	switch workload {
	case "filter", "count", "greeting":
		err = clicks(workload, format, in, out)
	case "alert":
		if format != "csv" {
			return fmt.Errorf("alert reads csv only")
		}
		err = alerts(in, out)
	default:
		return fmt.Errorf("unknown workload %q", workload)
	}
	if err != nil {
		return err
	}
	return out.Flush()
}

// ---- clicks --------------------------------------------------------------

type click struct {
	UserID   string `json:"user_id"`
	URL      string `json:"url"`
	ViewTime int    `json:"view_time"`
	TS       string `json:"ts"`
	at       time.Time
}

const tsLayout = "2006-01-02 15:04:05" // fractional seconds are read too

func parseClick(format string, line []byte, c *click, fields [][]byte) ([][]byte, error) {
	var err error
	if format == "jsonl" {
		*c = click{}
		if err := json.Unmarshal(line, c); err != nil {
			return fields, err
		}
	} else {
		fields = splitCSV(line, fields[:0])
		if len(fields) != 4 {
			return fields, fmt.Errorf("want 4 fields: %q", line)
		}
		c.UserID = string(fields[0])
		c.URL = string(fields[1])
		if c.ViewTime, err = strconv.Atoi(string(fields[2])); err != nil {
			return fields, err
		}
		c.TS = string(fields[3])
	}
	c.at, err = time.Parse(tsLayout, c.TS)
	return fields, err
}

type memory struct {
	count   int64
	lastURL string
	seen    bool
}

func clicks(workload, format string, in *bufio.Scanner, out *bufio.Writer) error {
	counts := map[string]int64{}
	memories := map[string]*memory{}
	switch workload {
	case "filter":
		out.WriteString("user_id,url,view_time\n")
	case "count":
		out.WriteString("user_id,click_count\n")
	case "greeting":
		out.WriteString("user_id,EXPR$0\n")
	}
	var c click
	var fields [][]byte
	var b []byte
	var err error
	for n := 1; in.Scan(); n++ {
		line := bytes.TrimSuffix(in.Bytes(), []byte{'\r'})
		if len(line) == 0 {
			continue
		}
		if fields, err = parseClick(format, line, &c, fields); err != nil {
			return fmt.Errorf("line %d: %v", n, err)
		}
		b = b[:0]
		switch workload {
		case "filter":
			if c.ViewTime < 500 {
				continue
			}
			b = appendCSVField(b, c.UserID)
			b = append(b, ',')
			b = appendCSVField(b, c.URL)
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(c.ViewTime), 10)
		case "count":
			counts[c.UserID]++
			b = appendCSVField(b, c.UserID)
			b = append(b, ',')
			b = strconv.AppendInt(b, counts[c.UserID], 10)
		case "greeting":
			m := memories[c.UserID]
			if m == nil {
				m = &memory{}
				memories[c.UserID] = m
			}
			m.count++
			before := "your first page"
			if m.seen {
				before = "last time " + m.lastURL
			}
			msg := "Hello " + c.UserID + ", visit " + strconv.FormatInt(m.count, 10) + ": " + c.URL + " (" + before + ")"
			m.lastURL, m.seen = c.URL, true
			b = appendCSVField(b, c.UserID)
			b = append(b, ',')
			b = appendCSVField(b, msg)
		}
		b = append(b, '\n')
		out.Write(b)
	}
	return in.Err()
}

// ---- flights: the no-departure alert ---------------------------------------

// alerts is examples/no_departure_alert.js with ptfsh's event time: a
// watermark after each row (the largest date so far minus one minute,
// never going back), a row seeing the watermark of the rows before it,
// timers firing in time order once the watermark reaches them, and the
// end of the input firing the rest, which raise no alert.
func alerts(in *bufio.Scanner, out *bufio.Writer) error {
	const twoHours = int64(2 * time.Hour / time.Millisecond)
	const delay = int64(time.Minute / time.Millisecond)
	type silence struct {
		deadline int64
		set      bool
		timers   map[int64]bool // the key's pending timers
	}
	airports := map[string]*silence{}
	var timers timerHeap
	var watermark int64
	hasWatermark := false // no watermark before the first row
	maxTime := int64(math.MinInt64)
	out.WriteString("origin,last_departure,rowtime\n")
	var fields [][]byte
	var b []byte
	for n := 1; in.Scan(); n++ {
		line := bytes.TrimSuffix(in.Bytes(), []byte{'\r'})
		if len(line) == 0 {
			continue
		}
		fields = splitCSV(line, fields[:0])
		if len(fields) != 5 {
			return fmt.Errorf("line %d: want 5 fields: %q", n, line)
		}
		at, err := time.Parse(tsLayout, string(fields[0]))
		if err != nil {
			return fmt.Errorf("line %d: %v", n, err)
		}
		for _, f := range fields[1:3] { // delay and distance, unused but parsed
			if _, err := strconv.Atoi(string(f)); err != nil {
				return fmt.Errorf("line %d: %v", n, err)
			}
		}
		origin := string(fields[3])
		t := at.UnixMilli()

		s := airports[origin]
		if s == nil {
			s = &silence{timers: map[int64]bool{}}
			airports[origin] = s
		}
		if s.set && t < s.deadline {
			delete(s.timers, s.deadline) // a departure in time: no alert
		}
		s.deadline, s.set = t+twoHours, true
		if !s.timers[s.deadline] {
			s.timers[s.deadline] = true
			heap.Push(&timers, timer{at: s.deadline, seq: n, key: origin})
		}

		maxTime = max(maxTime, t)
		if w := maxTime - delay; !hasWatermark || w > watermark {
			watermark, hasWatermark = w, true
		}
		// Timers at or before the watermark fire, in time order.
		for len(timers) > 0 && timers[0].at <= watermark {
			tm := heap.Pop(&timers).(timer)
			ks := airports[tm.key]
			if !ks.timers[tm.at] {
				continue // cleared
			}
			delete(ks.timers, tm.at)
			b = appendCSVField(b[:0], tm.key)
			b = append(b, ',')
			b = appendLocalDateTime(b, tm.at-twoHours)
			b = append(b, ',')
			b = appendLocalDateTime(b, tm.at)
			b = append(b, '\n')
			out.Write(b)
		}
	}
	// The end of the input fires every timer left; they raise no alert.
	return in.Err()
}

type timer struct {
	at  int64
	seq int
	key string
}

type timerHeap []timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	return h[i].at < h[j].at || h[i].at == h[j].at && h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *timerHeap) Push(x any)   { *h = append(*h, x.(timer)) }
func (h *timerHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// ---- CSV -------------------------------------------------------------------

// splitCSV splits one line of RFC 4180 CSV; the fields alias line unless
// quoted.
func splitCSV(line []byte, fields [][]byte) [][]byte {
	for {
		if len(line) > 0 && line[0] == '"' {
			var v []byte
			i := 1
			for i < len(line) {
				if line[i] == '"' {
					if i+1 < len(line) && line[i+1] == '"' {
						v = append(v, '"')
						i += 2
						continue
					}
					i++
					break
				}
				v = append(v, line[i])
				i++
			}
			fields = append(fields, v)
			line = line[i:]
		} else {
			i := bytes.IndexByte(line, ',')
			if i < 0 {
				i = len(line)
			}
			fields = append(fields, line[:i])
			line = line[i:]
		}
		if len(line) == 0 {
			return fields
		}
		line = line[1:] // the comma
	}
}

// appendCSVField appends a field, quoted when RFC 4180 needs it or when
// empty, as ptfsh's csv format writes it.
func appendCSVField(b []byte, s string) []byte {
	quote := s == ""
	for i := 0; i < len(s) && !quote; i++ {
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n'
	}
	if !quote {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}

// appendLocalDateTime appends epoch milliseconds as Flink's csv format
// writes a TIMESTAMP (UTC): 2001-01-01 02:47:00, a fraction without
// trailing zeros only when there is one.
func appendLocalDateTime(b []byte, ms int64) []byte {
	t := time.UnixMilli(ms).UTC()
	b = t.AppendFormat(b, "2006-01-02 15:04:05")
	if f := ms % 1000; f != 0 {
		if f < 0 {
			f += 1000
		}
		digits := []byte{byte('0' + f/100), byte('0' + f/10%10), byte('0' + f%10)}
		for digits[len(digits)-1] == '0' {
			digits = digits[:len(digits)-1]
		}
		b = append(append(b, '.'), digits...)
	}
	return b
}
