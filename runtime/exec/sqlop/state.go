package sqlop

import (
	"encoding/binary"
	"errors"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/opstate"
	"github.com/ptfsh/ptfsh/state"
)

// The SQL operators keep their state in the store behind a bounded cache
// (runtime/exec/opstate), in namespaces that exec.Execution.OperatorNamespace
// names, so that their memory is bounded by the cache and their state is
// part of every checkpoint: a statement over an input that does not end
// can stop and go on, and a killed one resumes from its last checkpoint.

// openTable opens an operator's table name in namespace ns.
func openTable[V any](ex *exec.Execution, ns, name string, codec opstate.Codec[V]) (*opstate.Table[V], error) {
	return opstate.Open(ex.Store, ns+"/"+name, codec, opstate.Options{CacheEntries: ex.Opts.CacheSize})
}

// tableSet is the tables of one operator, checkpointed together.
type tableSet []interface {
	Flush(tx state.Tx) error
	Drop(tx state.Tx) error
}

func (ts tableSet) checkpoint(tx state.Tx, finished bool) error {
	for _, t := range ts {
		var err error
		if finished {
			err = t.Drop(tx)
		} else {
			err = t.Flush(tx)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// int64Codec encodes an int64 as a varint.
type int64Codec struct{}

func (int64Codec) Append(b []byte, v int64) ([]byte, error) { return binary.AppendVarint(b, v), nil }
func (int64Codec) Decode(b []byte) (int64, error) {
	v, n := binary.Varint(b)
	if n <= 0 || n != len(b) {
		return 0, errors.New("bad count")
	}
	return v, nil
}
