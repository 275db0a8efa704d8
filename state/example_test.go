package state_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/ptfsh/ptfsh/internal/orderedcode"
	"github.com/ptfsh/ptfsh/state"
)

// ExampleOpenBolt counts clicks per user in a state file, then reads one
// user's counts back with a prefix scan over encoded keys.
func ExampleOpenBolt() {
	dir, err := os.MkdirTemp("", "ptfsh-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	st, err := state.OpenBolt(filepath.Join(dir, "state.db"), state.BoltOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()

	// One Update for the whole batch of rows: one commit, one fsync.
	clicks := []struct {
		user string
		hour int64
	}{{"bob", 10}, {"alice", 9}, {"bob", 9}, {"bob", 10}}
	err = st.Update(func(tx state.Tx) error {
		for _, c := range clicks {
			key := orderedcode.AppendInt64(orderedcode.AppendString(nil, c.user), c.hour)
			v, err := tx.Get("clicks/count", key)
			if err != nil {
				return err
			}
			n := byte(0)
			if v != nil {
				n = v[0]
			}
			if err := tx.Put("clicks/count", key, []byte{n + 1}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}

	err = st.View(func(tx state.Tx) error {
		prefix := orderedcode.AppendString(nil, "bob")
		return tx.Scan("clicks/count", prefix, func(key, value []byte) error {
			d := orderedcode.NewDecoder(key)
			user, err := d.String()
			if err != nil {
				return err
			}
			hour, err := d.Int64()
			if err != nil {
				return err
			}
			fmt.Printf("%s at %d: %d\n", user, hour, value[0])
			return nil
		})
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// bob at 9: 1
	// bob at 10: 2
}

// ExampleNewMem shows that a failed Update leaves nothing behind.
func ExampleNewMem() {
	st := state.NewMem()
	defer st.Close()

	err := st.Update(func(tx state.Tx) error {
		if err := tx.Put("orders", []byte("o1"), []byte("open")); err != nil {
			return err
		}
		return fmt.Errorf("order o1: payment declined")
	})
	fmt.Println("Update:", err)

	_ = st.View(func(tx state.Tx) error {
		v, err := tx.Get("orders", []byte("o1"))
		names, _ := tx.Namespaces()
		fmt.Printf("o1: %q, namespaces: %q\n", v, names)
		return err
	})
	// Output:
	// Update: order o1: payment declined
	// o1: "", namespaces: []
}
