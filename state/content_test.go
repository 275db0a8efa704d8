package state_test

import (
	"fmt"
	"maps"
	"slices"

	"github.com/ptfsh/ptfsh/state"
)

// Helpers for the tests that reopen state files and compare what they hold
// with what was written.

// content is what a store holds: namespace → key → value.
type content map[string]map[string]string

func (c content) clone() content {
	out := content{}
	for ns, kv := range c {
		out[ns] = maps.Clone(kv)
	}
	return out
}

func (c content) put(ns string, key []byte, value string) {
	if c[ns] == nil {
		c[ns] = map[string]string{}
	}
	c[ns][string(key)] = value
}

// diff describes the first difference between got and want, or returns "".
func (c content) diff(want content) string {
	for _, ns := range slices.Sorted(maps.Keys(want)) {
		if _, ok := c[ns]; !ok {
			return fmt.Sprintf("namespace %q is missing", ns)
		}
	}
	for _, ns := range slices.Sorted(maps.Keys(c)) {
		w, ok := want[ns]
		if !ok {
			return fmt.Sprintf("unexpected namespace %q", ns)
		}
		g := c[ns]
		for _, k := range slices.Sorted(maps.Keys(w)) {
			if v, ok := g[k]; !ok {
				return fmt.Sprintf("%s: key %x is missing", ns, k)
			} else if v != w[k] {
				return fmt.Sprintf("%s: key %x reads %.40q, want %.40q", ns, k, v, w[k])
			}
		}
		for _, k := range slices.Sorted(maps.Keys(g)) {
			if _, ok := w[k]; !ok {
				return fmt.Sprintf("%s: unexpected key %x", ns, k)
			}
		}
	}
	return ""
}

// readAll reads everything st holds: the namespaces, a Scan of each, and a
// Get of every key that want holds.
func readAll(st state.Store, want content) (content, error) {
	got := content{}
	err := st.View(func(tx state.Tx) error {
		names, err := tx.Namespaces()
		if err != nil {
			return err
		}
		for _, ns := range names {
			got[ns] = map[string]string{}
			err := tx.Scan(ns, nil, func(k, v []byte) error {
				got[ns][string(k)] = string(v)
				return nil
			})
			if err != nil {
				return err
			}
		}
		for _, ns := range slices.Sorted(maps.Keys(want)) {
			for _, k := range slices.Sorted(maps.Keys(want[ns])) {
				v, err := tx.Get(ns, []byte(k))
				if err != nil {
					return err
				}
				if v == nil {
					return fmt.Errorf("silent: Get(%s, %x) found nothing", ns, k)
				}
				if string(v) != got[ns][k] {
					return fmt.Errorf("silent: Get(%s, %x) = %.40q, Scan saw %.40q", ns, k, v, got[ns][k])
				}
			}
		}
		return nil
	})
	return got, err
}
