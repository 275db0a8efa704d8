package ptfop

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// Query evolution: a changed function keeps its state under the same uid
// when its declared state is compatible with what the store holds. Each
// uid's state declaration is kept in the store's metadata.

// storedEntry is one state entry as the metadata records it.
type storedEntry struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	Type string `json:"type,omitempty"`
}

func stateSchema(decls []ptf.StateDecl) []storedEntry {
	out := make([]storedEntry, len(decls))
	for i, d := range decls {
		out[i] = storedEntry{Name: d.Name, Kind: [...]string{"value", "list", "map"}[d.Kind]}
		if d.Type != nil {
			out[i].Type = d.Type.String()
		}
	}
	return out
}

// checkEvolution compares a call's state declaration with the one its uid
// was stored with; on an incompatible change it fails, or with
// discard it drops the uid's state. It records the new declaration.
func checkEvolution(store state.Store, fn, uid string, decls []ptf.StateDecl, discard bool) error {
	return store.Update(func(tx state.Tx) error {
		now := stateSchema(decls)
		b, err := tx.Get(exec.MetaNamespace, exec.SchemaKey(uid))
		if err != nil {
			return err
		}
		if b != nil {
			var before []storedEntry
			if err := json.Unmarshal(b, &before); err != nil {
				return fmt.Errorf("uid '%s': unreadable state metadata: %w", uid, err)
			}
			if why := incompatible(before, now); why != "" {
				if !discard {
					return fmt.Errorf("%s: the state of uid '%s' does not fit the function any more: %s. Keep the old declaration, give the call another uid (uid => '...'), or SET '%s' = 'discard' to start this uid afresh", fn, uid, why, exec.SetOnIncompatible)
				}
				if err := exec.DropUID(tx, uid); err != nil {
					return err
				}
			}
		}
		nb, err := json.Marshal(now)
		if err != nil {
			return err
		}
		return tx.Put(exec.MetaNamespace, exec.SchemaKey(uid), nb)
	})
}

// incompatible explains why stored state cannot be read with the new
// declaration, or returns "". Entries may be added or dropped; an entry
// kept must keep its kind, and a ROW type may only gain fields (nullable,
// at the end).
func incompatible(before, now []storedEntry) string {
	for _, b := range before {
		for _, n := range now {
			if b.Name != n.Name {
				continue
			}
			if b.Kind != n.Kind {
				return fmt.Sprintf("entry '%s' was %s state and is now %s state", b.Name, b.Kind, n.Kind)
			}
			if b.Type == n.Type || b.Type == "" || n.Type == "" {
				continue
			}
			bt, err1 := ptf.ParseType(b.Type)
			nt, err2 := ptf.ParseType(n.Type)
			if err1 != nil || err2 != nil || !rowGrows(bt, nt) {
				return fmt.Sprintf("entry '%s' changed from %s to %s", b.Name, b.Type, n.Type)
			}
		}
	}
	return ""
}

// rowGrows reports whether now is before with nullable fields added at the end.
func rowGrows(before, now types.Type) bool {
	if before.Kind != types.KindRow || now.Kind != types.KindRow || len(now.Fields) < len(before.Fields) {
		return false
	}
	for i, f := range before.Fields {
		if now.Fields[i].Name != f.Name || !strings.EqualFold(now.Fields[i].Type.String(), f.Type.String()) {
			return false
		}
	}
	for _, f := range now.Fields[len(before.Fields):] {
		if f.Type.NotNull {
			return false
		}
	}
	return true
}
