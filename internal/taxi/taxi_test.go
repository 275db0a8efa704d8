package taxi_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/internal/taxi"
)

var update = flag.Bool("update", false, "rewrite examples/labs/data from the generator")

// TestLabData: the labs' data files are what the generator makes with its
// default options (go test ./internal/taxi -update writes them).
func TestLabData(t *testing.T) {
	rides, fares := taxi.Generate(taxi.Default)
	var rb, fb bytes.Buffer
	if err := taxi.WriteRides(&rb, rides); err != nil {
		t.Fatal(err)
	}
	if err := taxi.WriteFares(&fb, fares); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "examples", "labs", "data")
	for name, got := range map[string][]byte{"rides.csv": rb.Bytes(), "fares.csv": fb.Bytes()} {
		file := filepath.Join(dir, name)
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%v (go test ./internal/taxi -update writes it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what the generator makes (go test ./internal/taxi -update rewrites it)", file)
		}
	}
}

// TestGenerate_shape: the streams have what the labs need: START and END
// per ride but a few ENDs missing, rides over two hours, a ride of exactly
// two hours, rides leaving the city, missing fares, rows out of order and
// late for a watermark a minute behind, and the same streams again for
// the same seed.
func TestGenerate_shape(t *testing.T) {
	rides, fares := taxi.Generate(taxi.Default)
	starts, ends := map[int64]taxi.Ride{}, map[int64]taxi.Ride{}
	for _, r := range rides {
		if r.Start {
			starts[r.ID] = r
		} else {
			ends[r.ID] = r
		}
	}
	if len(starts) != taxi.Default.Rides {
		t.Fatalf("%d STARTs for %d rides", len(starts), taxi.Default.Rides)
	}
	long, exact, outside, noEnd := 0, 0, 0, 0
	for id, s := range starts {
		e, ok := ends[id]
		if !ok {
			noEnd++
			continue
		}
		d := e.Time.Sub(s.Time)
		if d > 2*time.Hour {
			long++
		}
		if d == 2*time.Hour {
			exact++
		}
		if !taxi.InNYC(s.StartLon, s.StartLat) || !taxi.InNYC(s.EndLon, s.EndLat) {
			outside++
		}
	}
	if long < 10 || exact != 1 || outside < 50 || noEnd < 3 || len(fares) >= len(starts) {
		t.Errorf("long rides %d, of exactly two hours %d, leaving the city %d, without END %d, fares %d of %d", long, exact, outside, noEnd, len(fares), len(starts))
	}
	outOfOrder, late := 0, 0
	var most time.Time
	for i, r := range rides {
		if i > 0 && r.Time.Before(most) {
			outOfOrder++
			if !r.Time.After(most.Add(-time.Minute)) {
				late++
			}
		}
		if r.Time.After(most) {
			most = r.Time
		}
	}
	if outOfOrder < 100 || late < 10 {
		t.Errorf("%d ride events out of order, %d late", outOfOrder, late)
	}
	again, _ := taxi.Generate(taxi.Default)
	var a, b bytes.Buffer
	taxi.WriteRides(&a, rides)
	taxi.WriteRides(&b, again)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("the same options make other rides")
	}
	other := taxi.Default
	other.Seed++
	third, _ := taxi.Generate(other)
	b.Reset()
	taxi.WriteRides(&b, third)
	if bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("another seed makes the same rides")
	}
}
