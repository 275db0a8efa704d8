// Command gen writes the benchmark's input data from a seeded generator:
// the same flags give the same bytes.
//
//	go run ./bench/gen -rows 1000000 -keys 100000 -skew 1 -seed 1 -format csv -o clicks.csv
//	go run ./bench/gen -kind flights -rows 1000000 -o flights.csv
//
// See bench/internal/gen for the rows it writes.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/ptfsh/ptfsh/bench/internal/gen"
)

func main() {
	var p gen.Params
	var out string
	flag.StringVar(&p.Kind, "kind", "clicks", "what to write: clicks (user_id,url,view_time,ts) or flights (date,delay,distance,origin,destination)")
	flag.IntVar(&p.Rows, "rows", 1_000_000, "rows to write")
	flag.IntVar(&p.Keys, "keys", 0, "distinct users (clicks) or airports (flights); 0 for 100000 users or 300 airports")
	flag.Float64Var(&p.Skew, "skew", 1, "Zipf exponent of the keys: rank k has weight 1/k^skew; 0 is uniform")
	flag.Uint64Var(&p.Seed, "seed", 1, "the generator's seed")
	flag.StringVar(&p.Format, "format", "csv", "csv (no header) or jsonl (clicks only)")
	flag.StringVar(&out, "o", "", "write to `FILE` instead of stdout")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "gen: unexpected argument %q\n", flag.Arg(0))
		os.Exit(2)
	}
	if p.Keys == 0 {
		p.Keys = gen.DefaultKeys(p.Kind)
	}
	if err := write(out, p); err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(1)
	}
}

func write(path string, p gen.Params) error {
	if err := p.Check(); err != nil {
		return err
	}
	var w io.Writer = os.Stdout
	if path != "" {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
		if err := gen.Write(w, p); err != nil {
			return err
		}
		return f.Close()
	}
	return gen.Write(w, p)
}
