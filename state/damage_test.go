package state_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/internal/orderedcode"
	"github.com/ptfsh/ptfsh/state"
)

// The damage tests write a state file the way a run does (several
// namespaces, a few thousand keys, several commits), damage a copy of it and
// check what the store makes of the copy. Each trial opens the file, reads
// everything back (Namespaces, a Scan of each namespace and a Get of each
// key), writes a few keys, closes, reopens and reads again. A trial passes
// when it either sees exactly the content that was written or fails with an
// error wrapping ErrCorrupt; in both cases it must return within
// damageTrialTimeout and leave the file unlocked. A silent change, another
// error, a panic or a hang fails the test.
//
// By default the test tries a sample of damages that keeps it short, and
// with -short a quarter of that sample. Set PTFSH_DAMAGE_SWEEP=N to flip one
// byte at every N-th offset of the pages in use and truncate the file at
// every N-th offset as well (N=1 tries every byte); the pages beyond bbolt's
// high-water mark hold nothing.

const damageTrialTimeout = 10 * time.Second

// damageFixture writes the state file the damage tests start from and
// returns its bytes and content. Its namespaces are named as runtime names
// them; one holds values that need overflow pages and one is small enough
// for bbolt to keep inline. A second commit overwrites and deletes keys and
// drops a namespace, so that the file also holds freed pages with old values.
func damageFixture(t *testing.T) ([]byte, content) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fixture.db")
	st, err := state.OpenBolt(path, state.BoltOptions{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	want := content{}
	put := func(tx state.Tx, ns string, key []byte, value string) error {
		want.put(ns, key, value)
		return tx.Put(ns, key, []byte(value))
	}
	user := func(i int) []byte { return orderedcode.AppendString(nil, fmt.Sprintf("user%04d", i)) }
	err = st.Update(func(tx state.Tx) error {
		for i := range 1500 {
			if err := put(tx, "state/count/counter", user(i), strconv.Itoa(1000+i)); err != nil {
				return err
			}
		}
		for i := range 800 {
			v := fmt.Sprintf(`{"counter":%d,"name":"name %d"}`, i%7, i)
			if err := put(tx, "state/greet/memory", orderedcode.AppendInt64(nil, int64(i)), v); err != nil {
				return err
			}
		}
		for i := range 300 {
			k := orderedcode.AppendString(orderedcode.AppendInt64(user(i), int64(i)*60_000), "\x00timer")
			if err := put(tx, "timers/count", k, strconv.Itoa(i)); err != nil {
				return err
			}
		}
		for i := range 12 {
			v := strings.Repeat(fmt.Sprintf("item %d;", i), 300+100*i)
			if err := put(tx, "list/agg/items", orderedcode.AppendInt64(nil, int64(i)), v); err != nil {
				return err
			}
		}
		for i := range 5 {
			if err := put(tx, "map/agg/seen", user(i), "true"); err != nil {
				return err
			}
		}
		for i := range 200 {
			if err := tx.Put("spill/count/counter", user(i), []byte("spilled")); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = st.Update(func(tx state.Tx) error {
		for i := 0; i < 1500; i += 3 {
			if err := put(tx, "state/count/counter", user(i), strconv.Itoa(2000+i)); err != nil {
				return err
			}
		}
		for i := 0; i < 800; i += 8 {
			delete(want["state/greet/memory"], string(orderedcode.AppendInt64(nil, int64(i))))
			if err := tx.Delete("state/greet/memory", orderedcode.AppendInt64(nil, int64(i))); err != nil {
				return err
			}
		}
		return tx.DeleteNamespace("spill/count/counter")
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return readFile(t, path), want
}

// A damage outcome: the test accepts only outcomeSame and outcomeCorrupt.
const (
	outcomeSame    = "same content"
	outcomeCorrupt = "ErrCorrupt"
	outcomeSilent  = "silent change"
	outcomeOther   = "other error"
	outcomePanic   = "panic"
	outcomeHang    = "hang"
	outcomeLocked  = "file left locked"
)

type damageResult struct {
	outcome string
	detail  string
}

func classify(err error) damageResult {
	switch {
	case strings.HasPrefix(err.Error(), "silent: "):
		return damageResult{outcomeSilent, err.Error()}
	case errors.Is(err, state.ErrCorrupt):
		return damageResult{outcomeCorrupt, err.Error()}
	}
	return damageResult{outcomeOther, err.Error()}
}

// damageTrial runs one trial on the damaged file at path.
func damageTrial(path string, want content) damageResult {
	opts := state.BoltOptions{NoSync: true, Timeout: -1}
	st, err := state.OpenBolt(path, opts)
	if err != nil {
		return classify(err)
	}
	got, err := readAll(st, want)
	if err == nil {
		if d := got.diff(want); d != "" {
			err = errors.New("silent: " + d)
		}
	}
	if err != nil {
		st.Close()
		return classify(err)
	}
	// Writing to a file with undetected damage must not damage it further
	// in ways that go unnoticed (a damaged freelist could hand out a page
	// that is in use).
	after := want.clone()
	err = st.Update(func(tx state.Tx) error {
		for _, ns := range slices.Sorted(maps.Keys(want)) {
			for i, k := range slices.Sorted(maps.Keys(want[ns])) {
				if i%97 != 0 {
					continue
				}
				v := strings.Repeat("w", 10+i%50)
				after.put(ns, []byte(k), v)
				if err := tx.Put(ns, []byte(k), []byte(v)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return classify(err)
	}
	st, err = state.OpenBolt(path, opts)
	if err != nil {
		return classify(err)
	}
	defer st.Close()
	got, err = readAll(st, after)
	if err != nil {
		return classify(err)
	}
	if d := got.diff(after); d != "" {
		return damageResult{outcomeSilent, "after a write: " + d}
	}
	return damageResult{outcome: outcomeSame}
}

// runDamageTrial runs damageTrial with a deadline, catches its panics, and
// checks that the file is unlocked afterwards.
func runDamageTrial(path string, want content) damageResult {
	done := make(chan damageResult, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- damageResult{outcomePanic, fmt.Sprintf("%v\n%s", r, debug.Stack())}
			}
		}()
		done <- damageTrial(path, want)
	}()
	var r damageResult
	select {
	case r = <-done:
	case <-time.After(damageTrialTimeout):
		return damageResult{outcomeHang, fmt.Sprintf("no result after %v", damageTrialTimeout)}
	}
	st, err := state.OpenBolt(path, state.BoltOptions{ReadOnly: true, Timeout: -1})
	if errors.Is(err, state.ErrInUse) {
		return damageResult{outcomeLocked, r.outcome + ": " + r.detail}
	}
	if err == nil {
		st.Close()
	}
	return r
}

// usedPages reads bbolt's page size and high-water mark from the newest
// meta page of file: the pages below it are the ones in use.
func usedPages(t *testing.T, file []byte) (pageSize, pages int) {
	// The meta page after the 16-byte page header: magic, version, page
	// size, flags (uint32), root bucket (16 bytes), freelist, pgid, txid.
	meta := func(off int) (pgid, txid uint64) {
		m := file[off+16:]
		return binary.NativeEndian.Uint64(m[40:]), binary.NativeEndian.Uint64(m[48:])
	}
	pageSize = int(binary.NativeEndian.Uint32(file[16+8:]))
	pgid0, txid0 := meta(0)
	pgid1, txid1 := meta(pageSize)
	if txid1 > txid0 {
		pgid0 = pgid1
	}
	if pgid0 < 4 || int(pgid0)*pageSize > len(file) {
		t.Fatalf("cannot read the meta pages of the fixture: page size %d, %d pages", pageSize, pgid0)
	}
	return pageSize, int(pgid0)
}

// A damage is a name and a function that damages a copy of the file.
type damage struct {
	name  string
	apply func(b []byte) []byte
}

func flipAt(off int, x byte) damage {
	return damage{fmt.Sprintf("flip ^%02x at %d", x, off), func(b []byte) []byte { b[off] ^= x; return b }}
}

func truncateAt(off int) damage {
	return damage{fmt.Sprintf("truncate to %d", off), func(b []byte) []byte { return b[:off] }}
}

// damages returns the damages to try on a file of the given bytes.
func damages(t *testing.T, file []byte) []damage {
	r := rand.New(rand.NewPCG(10, 6))
	xor := func() byte { return byte(1 + r.IntN(255)) }
	var ds []damage
	if s := os.Getenv("PTFSH_DAMAGE_SWEEP"); s != "" {
		stride, err := strconv.Atoi(s)
		if err != nil || stride < 1 {
			t.Fatalf("PTFSH_DAMAGE_SWEEP=%q: want a stride of at least 1", s)
		}
		pageSize, pages := usedPages(t, file)
		for off := 0; off < pages*pageSize; off += stride {
			ds = append(ds, flipAt(off, xor()), truncateAt(off))
		}
		return ds
	}
	pageSize, pages := usedPages(t, file)
	// Page headers (id, count, overflow) and the first element headers
	// after them: a flipped count or offset loses or invents keys without
	// touching their bytes.
	for p := range pages {
		for _, off := range []int{10, 12, 16 + r.IntN(32)} {
			ds = append(ds, flipAt(p*pageSize+off, xor()))
		}
	}
	// Anywhere in the pages in use, and one bit, as a failing disk or
	// memory would.
	used := pages * pageSize
	for range 150 {
		ds = append(ds, flipAt(r.IntN(used), xor()))
	}
	for range 60 {
		ds = append(ds, flipAt(r.IntN(used), 1<<r.IntN(8)))
	}
	// Truncations: at page boundaries, inside the meta pages and anywhere.
	for p := range pages {
		ds = append(ds, truncateAt(p*pageSize))
	}
	for _, off := range []int{1, 15, 100, pageSize - 1, pageSize + 1, len(file) - 1} {
		ds = append(ds, truncateAt(off))
	}
	for range 10 {
		ds = append(ds, truncateAt(r.IntN(used)))
	}
	// Whole pages zeroed, as a lost write leaves them.
	for p := range pages {
		if p%4 == 0 || p < 4 {
			ds = append(ds, damage{fmt.Sprintf("zero page %d", p), func(b []byte) []byte {
				clear(b[p*pageSize : (p+1)*pageSize])
				return b
			}})
		}
	}
	if testing.Short() {
		short := ds[:0]
		for i, d := range ds {
			if i%4 == 0 {
				short = append(short, d)
			}
		}
		ds = short
	}
	return ds
}

func TestBolt_damage(t *testing.T) {
	file, want := damageFixture(t)
	ds := damages(t, file)
	dir := t.TempDir()
	start := time.Now()

	// Two workers: the machine may have only two cores.
	results := make([]damageResult, len(ds))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := range 2 {
		wg.Go(func() {
			for i := range next {
				path := filepath.Join(dir, fmt.Sprintf("w%d-%d.db", w, i))
				b := ds[i].apply(bytes.Clone(file))
				if err := os.WriteFile(path, b, 0o600); err != nil {
					results[i] = damageResult{outcomeOther, err.Error()}
					continue
				}
				results[i] = runDamageTrial(path, want)
				if results[i].outcome != outcomeHang {
					os.Remove(path)
				}
			}
		})
	}
	for i := range ds {
		next <- i
	}
	close(next)
	wg.Wait()

	counts := map[string]int{}
	failed := 0
	for i, r := range results {
		counts[r.outcome]++
		if r.outcome != outcomeSame && r.outcome != outcomeCorrupt {
			failed++
			if failed <= 20 {
				t.Errorf("%s: %s: %s", ds[i].name, r.outcome, r.detail)
			}
		}
	}
	t.Logf("%d damages of a %d-byte file in %v: %v", len(ds), len(file), time.Since(start).Round(time.Millisecond), counts)
	if failed > 20 {
		t.Errorf("... and %d more failures", failed-20)
	}
	if testing.Verbose() {
		for _, i := range []int{0, len(ds) / 2, len(ds) - 1} {
			t.Logf("for example, %s: %s %s", ds[i].name, results[i].outcome, results[i].detail)
		}
	}
}
