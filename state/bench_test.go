package state_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/ptfsh/ptfsh/internal/orderedcode"
	"github.com/ptfsh/ptfsh/state"
)

// BenchmarkStore measures each store on n keys: writing them all in one
// Update (keys in random order, as hash-partitioned rows arrive), reading
// each with Get in one View, and reading them all with one Scan. Besides
// ns/op (one op handles all n keys) it reports ns/key.
func BenchmarkStore(b *testing.B) {
	stores := []struct {
		name string
		open func(b *testing.B) state.Store
	}{
		{"mem", func(*testing.B) state.Store { return state.NewMem() }},
		{"bolt", func(b *testing.B) state.Store { return openBenchBolt(b, state.BoltOptions{}) }},
		{"bolt-nosync", func(b *testing.B) state.Store { return openBenchBolt(b, state.BoltOptions{NoSync: true}) }},
	}
	for _, s := range stores {
		for _, n := range []int{10_000, 100_000} {
			keys := benchKeys(n)
			value := make([]byte, 32)
			size := fmt.Sprintf("keys=%dk", n/1000)
			putAll := func(tx state.Tx) error {
				for _, k := range keys {
					if err := tx.Put("bench", k, value); err != nil {
						return err
					}
				}
				return nil
			}

			b.Run(s.name+"/op=put/"+size, func(b *testing.B) {
				st := s.open(b)
				defer st.Close()
				b.ReportAllocs()
				for b.Loop() {
					b.StopTimer()
					must(b, st.Update(func(tx state.Tx) error { return tx.DeleteNamespace("bench") }))
					b.StartTimer()
					must(b, st.Update(putAll))
				}
				reportPerKey(b, n)
			})

			b.Run(s.name+"/op=get/"+size, func(b *testing.B) {
				st := s.open(b)
				defer st.Close()
				must(b, st.Update(putAll))
				b.ReportAllocs()
				for b.Loop() {
					must(b, st.View(func(tx state.Tx) error {
						for _, k := range keys {
							if v, err := tx.Get("bench", k); err != nil || v == nil {
								return fmt.Errorf("get %x: %q, %v", k, v, err)
							}
						}
						return nil
					}))
				}
				reportPerKey(b, n)
			})

			// One View per Get: how a PTF reads the state of a key that
			// is not in its cache.
			b.Run(s.name+"/op=view-get/"+size, func(b *testing.B) {
				st := s.open(b)
				defer st.Close()
				must(b, st.Update(putAll))
				b.ReportAllocs()
				for b.Loop() {
					for _, k := range keys {
						must(b, st.View(func(tx state.Tx) error {
							if v, err := tx.Get("bench", k); err != nil || v == nil {
								return fmt.Errorf("get %x: %q, %v", k, v, err)
							}
							return nil
						}))
					}
				}
				reportPerKey(b, n)
			})

			b.Run(s.name+"/op=scan/"+size, func(b *testing.B) {
				st := s.open(b)
				defer st.Close()
				must(b, st.Update(putAll))
				b.ReportAllocs()
				for b.Loop() {
					seen := 0
					must(b, st.View(func(tx state.Tx) error {
						return tx.Scan("bench", nil, func(_, _ []byte) error { seen++; return nil })
					}))
					if seen != n {
						b.Fatalf("scanned %d keys; want %d", seen, n)
					}
				}
				reportPerKey(b, n)
			})
		}
	}
}

// BenchmarkOpenBolt measures OpenBolt and Close of a file of n keys of 32
// bytes, which OpenBolt reads in full.
func BenchmarkOpenBolt(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("keys=%dk", n/1000), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "bench.db")
			st, err := state.OpenBolt(path, state.BoltOptions{NoSync: true})
			if err != nil {
				b.Fatal(err)
			}
			value := make([]byte, 32)
			must(b, st.Update(func(tx state.Tx) error {
				for _, k := range benchKeys(n) {
					if err := tx.Put("bench", k, value); err != nil {
						return err
					}
				}
				return nil
			}))
			must(b, st.Close())
			for b.Loop() {
				st, err := state.OpenBolt(path, state.BoltOptions{})
				if err != nil {
					b.Fatal(err)
				}
				must(b, st.Close())
			}
			if info, err := os.Stat(path); err == nil {
				b.ReportMetric(float64(info.Size())/(1<<20), "MiB")
			}
		})
	}
}

func openBenchBolt(b *testing.B, opts state.BoltOptions) state.Store {
	st, err := state.OpenBolt(filepath.Join(b.TempDir(), "bench.db"), opts)
	if err != nil {
		b.Fatal(err)
	}
	return st
}

// benchKeys returns n encoded (partition key, counter) keys in random order.
func benchKeys(n int) [][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	keys := make([][]byte, n)
	for i, j := range r.Perm(n) {
		keys[i] = orderedcode.AppendUint64(orderedcode.AppendString(nil, fmt.Sprintf("user%07d", j)), uint64(j))
	}
	return keys
}

func reportPerKey(b *testing.B, n int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
}

func must(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCheckpoint measures a checkpoint's transaction as a PTF's
// takes it: 40k changed keys of a 100k-key namespace, in random order.
// "update" is Store.Update; "async" is state.UpdateAsync, timing only what
// the caller waits for (the writes are buffered; bbolt's puts, the commit
// and the fsync run on a goroutine, waited for outside the timer).
func BenchmarkCheckpoint(b *testing.B) {
	keys := benchKeys(100_000)
	value := make([]byte, 24)
	write := func(round int) func(tx state.Tx) error {
		return func(tx state.Tx) error {
			for i := round % 5; i < len(keys); i += 5 {
				if err := tx.Put("bench", keys[i], value); err != nil {
					return err
				}
			}
			for i := (round + 2) % 5; i < len(keys); i += 5 {
				if err := tx.Put("bench", keys[i], value); err != nil {
					return err
				}
			}
			return nil
		}
	}
	for _, mode := range []string{"update", "async"} {
		b.Run("mode="+mode, func(b *testing.B) {
			st := openBenchBolt(b, state.BoltOptions{})
			defer st.Close()
			must(b, st.Update(func(tx state.Tx) error {
				for _, k := range keys {
					if err := tx.Put("bench", k, value); err != nil {
						return err
					}
				}
				return nil
			}))
			b.ReportAllocs()
			round := 0
			for b.Loop() {
				round++
				if mode == "update" {
					must(b, st.Update(write(round)))
					continue
				}
				c, err := state.UpdateAsync(st, write(round))
				must(b, err)
				b.StopTimer()
				must(b, c.Wait())
				b.StartTimer()
			}
		})
	}
}
