package ptfop

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/ptfsh/ptfsh/internal/orderedcode"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/opstate"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// List and map state in the store (see context_views.go for the API).
//
// Each list or map entry of a call is an opstate.Table in namespace
// list/<uid>/<entry> or map/<uid>/<entry>: the elements and entries used
// last in memory, the others in the store in generations, so that memory
// holds the table's cache whatever the number of keys and elements, a
// checkpoint writes what changed since the one before (not the
// namespace), and what leaves the cache between two checkpoints is
// written to a generation that a restart does not see (see
// runtime/exec/opstate). A state file of an older build, which keeps the
// entries in the namespace itself, reads as the table's oldest
// generation.
//
// Every key starts with the partition key's encoding (encodeKey), which
// is prefix-free among the keys of one call (they have the same
// columns), so one key's elements or entries are one prefix scan.
//
// A list of partition key K is
//
//	K + 0x00              meta: 8-byte processing time of the last add, uvarint head, uvarint end
//	K + AppendInt64(p)    the element at physical index p, head <= p < end: 8-byte write time + value
//
// Elements are appended at end; the list's index i is physical index
// head+i. head moves past elements that expired (TTL), which are deleted
// then; as elements are appended in processing-time order, expired ones
// are always a prefix. An empty list has no meta record, and starts again
// at physical index 0.
//
// A map entry of key k is K + appendKeyValue(k) (order-preserving, so
// iteration in key order is a prefix scan) holding the 8-byte write time,
// the value and then the key (valuecodec.go), so that keys of every type
// read back exactly.

// viewTables are the tables of a call's list and map entries, by state
// entry (nil for value state, and until first used). The workers of a
// call on several workers (parallel.go) share them: a partition key
// belongs to one worker, but every key's elements lie in one table, so
// that a state file reads the same whatever the parallelism of the run
// that wrote it and of the run that reads it. mu serialises the workers'
// operations, as a Table belongs to one goroutine at a time.
type viewTables struct {
	mu   sync.Mutex
	tabs []*opstate.Table[[]byte]
}

// recordCodec stores records as they are: a record is never changed once
// made, so a table's value may share the bytes the table was given.
type recordCodec struct{}

func (recordCodec) Append(b, rec []byte) ([]byte, error) { return append(b, rec...), nil }
func (recordCodec) Decode(b []byte) ([]byte, error)      { return bytes.Clone(b), nil }

// viewState is the list and map state of one PTF call (Flink's ListView
// and MapView), served to the context's views by the operator (host.go);
// each operation works on the partition key it is given, the key of the
// running call.
type viewState struct {
	t     *viewTables
	uid   string
	decls []ptf.StateDecl
	ttl   []int64 // per state entry, milliseconds of processing time; 0: none
	ex    *exec.Execution
	// open are the map iterators of the current call, closed when it returns.
	open []*mapIter
	// changes counts the changes to maps, so that an iterator reads again
	// after a change made while it runs.
	changes int
}

func newViewState(n *Node, ex *exec.Execution, ttl []int64) viewState {
	return viewState{t: &viewTables{}, uid: n.UID, decls: n.Def.State, ttl: ttl, ex: ex}
}

// worker returns the view state of a worker of the call: its own
// iterators over the call's tables.
func (v *viewState) worker() viewState {
	return viewState{t: v.t, uid: v.uid, decls: v.decls, ttl: v.ttl, ex: v.ex}
}

// table returns the table of state entry i of key ks, checking that the
// entry is of kind, and opening the table the first time. The caller holds
// v.t.mu.
func (v *viewState) table(ks *keyState, i int, kind ptf.StateKind) (*opstate.Table[[]byte], error) {
	if ks == nil {
		return nil, errors.New("state is only available for tables with set semantics")
	}
	decls := v.decls
	if i < 0 || i >= len(decls) {
		return nil, fmt.Errorf("no state entry %d", i)
	}
	if decls[i].Kind != kind {
		return nil, fmt.Errorf("state entry %q is %s state, not %s state", decls[i].Name, stateKindName(decls[i].Kind), stateKindName(kind))
	}
	if len(v.t.tabs) != len(decls) {
		v.t.tabs = make([]*opstate.Table[[]byte], len(decls))
	}
	if tab := v.t.tabs[i]; tab != nil {
		return tab, nil
	}
	tab, err := opstate.Open[[]byte](v.ex.Store, v.viewNamespace(i), recordCodec{}, opstate.Options{CacheEntries: v.ex.Opts.CacheSize})
	if err != nil {
		return nil, v.viewError(i, err)
	}
	v.t.tabs[i] = tab
	return tab, nil
}

func stateKindName(k ptf.StateKind) string {
	return [...]string{"value", "list", "map"}[k]
}

// viewNamespace is the namespace of list or map entry i ("" for value state).
func (v *viewState) viewNamespace(i int) string {
	sd := v.decls[i]
	switch sd.Kind {
	case ptf.ListState:
		return exec.ListNamespace(v.uid, sd.Name)
	case ptf.MapState:
		return exec.MapNamespace(v.uid, sd.Name)
	}
	return ""
}

// viewError names the entry and key of a failed list or map operation
// on the store.
func (v *viewState) viewError(i int, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("state %q: %w", v.decls[i].Name, err)
}

// elemType returns the declared element (list) or key and value (map) types.
func (v *viewState) viewTypes(i int) (key, val types.Type) {
	t := v.decls[i].Type
	if t == nil {
		return types.Type{}, types.Type{}
	}
	return types.TypeOrZero(t.Key), types.TypeOrZero(t.Elem)
}

// record prefixes an encoded value with its write time.
func newRecord(at int64, v any, extra ...any) ([]byte, error) {
	b := binary.BigEndian.AppendUint64(make([]byte, 0, 24), uint64(at))
	b, err := exec.AppendValue(b, v)
	for _, x := range extra {
		if err != nil {
			break
		}
		b, err = exec.AppendValue(b, x)
	}
	return b, err
}

// recordTime returns the write time of a record.
func recordTime(rec []byte) int64 {
	if len(rec) < 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(rec))
}

// recordValue decodes the value of a record (and the rest: a map's key).
func recordValue(rec []byte) (any, []byte, error) {
	if len(rec) < 8 {
		return nil, nil, exec.ErrValueTruncated
	}
	return exec.ReadValue(rec[8:])
}

func expired(ttl, now, at int64) bool { return ttl > 0 && now-at > ttl }

// ---- lists

func listMetaKey(enc []byte) []byte { return orderedcode.AppendNull(bytes.Clone(enc)) }

func listElemKey(enc []byte, p int64) []byte {
	return orderedcode.AppendInt64(append(make([]byte, 0, len(enc)+9), enc...), p)
}

// listMeta is a list's meta record.
type listMeta struct {
	last      int64 // processing time of the last add
	head, end int64 // physical indexes of the first element and past the last
}

// list returns list entry i of key ks: its table and meta record (zero
// for an empty list). The caller holds v.t.mu.
func (v *viewState) list(ks *keyState, i int) (*opstate.Table[[]byte], listMeta, error) {
	tab, err := v.table(ks, i, ptf.ListState)
	if err != nil {
		return nil, listMeta{}, err
	}
	b, ok, err := tab.Get(listMetaKey(ks.enc))
	if err != nil || !ok {
		return tab, listMeta{}, v.viewError(i, err)
	}
	var m listMeta
	if m.last, m.head, m.end, err = decodeListMeta(b); err != nil {
		return nil, listMeta{}, v.viewError(i, err)
	}
	return tab, m, nil
}

// putList writes the meta record of list entry i of key ks; an empty
// list has none.
func (v *viewState) putList(tab *opstate.Table[[]byte], ks *keyState, i int, m listMeta) error {
	var err error
	if m.head >= m.end {
		err = tab.Delete(listMetaKey(ks.enc))
	} else {
		err = tab.Put(listMetaKey(ks.enc), encodeListMeta(m.last, m.head, m.end))
	}
	return v.viewError(i, err)
}

func decodeListMeta(b []byte) (last, head, end int64, err error) {
	if len(b) < 8 {
		return 0, 0, 0, errors.New("corrupt list meta record")
	}
	last = int64(binary.BigEndian.Uint64(b))
	h, n1 := binary.Uvarint(b[8:])
	e, n2 := binary.Uvarint(b[8+max(n1, 0):])
	if n1 <= 0 || n2 <= 0 || h > e {
		return 0, 0, 0, errors.New("corrupt list meta record")
	}
	return last, int64(h), int64(e), nil
}

func encodeListMeta(last, head, end int64) []byte {
	b := binary.BigEndian.AppendUint64(make([]byte, 0, 20), uint64(last))
	return binary.AppendUvarint(binary.AppendUvarint(b, uint64(head)), uint64(end))
}

// listElem reads the element at physical index p of list entry i of key ks.
func (v *viewState) listElem(tab *opstate.Table[[]byte], ks *keyState, i int, p int64) ([]byte, error) {
	rec, ok, err := tab.Get(listElemKey(ks.enc, p))
	if err != nil {
		return nil, v.viewError(i, err)
	}
	if !ok {
		return nil, v.viewError(i, fmt.Errorf("element %d of key (%s) is missing from the store", p, exec.FormatKey(ks.key)))
	}
	return rec, nil
}

// expireList deletes the elements of list entry i of key ks whose TTL ran
// out, moving the head past them, and writes the meta record if it did.
func (v *viewState) expireList(tab *opstate.Table[[]byte], ks *keyState, i int, m *listMeta) error {
	ttl := v.ttl[i]
	if ttl <= 0 || m.head >= m.end {
		return nil
	}
	now := v.ex.Now()
	all := expired(ttl, now, m.last) // the newest element is gone: all are
	head := m.head
	for head < m.end {
		if !all {
			rec, err := v.listElem(tab, ks, i, head)
			if err != nil {
				return err
			}
			if !expired(ttl, now, recordTime(rec)) {
				break
			}
		}
		if err := tab.Delete(listElemKey(ks.enc, head)); err != nil {
			return v.viewError(i, err)
		}
		head++
	}
	if head == m.head {
		return nil
	}
	m.head = head
	if m.head >= m.end {
		*m = listMeta{}
	}
	return v.putList(tab, ks, i, *m)
}

func (v *viewState) ListSize(ks *keyState, i int) (int, error) {
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	tab, m, err := v.list(ks, i)
	if err != nil {
		return 0, err
	}
	if err := v.expireList(tab, ks, i, &m); err != nil {
		return 0, err
	}
	return int(m.end - m.head), nil
}

// listScanMin is the length of a slice from which ListSlice reads the
// elements with one scan of the table rather than one look-up each (a
// scan passes every cached key of the table).
const listScanMin = 64

func (v *viewState) ListSlice(ks *keyState, i, from, max int) ([]any, error) {
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	tab, m, err := v.list(ks, i)
	if err != nil {
		return nil, err
	}
	if err := v.expireList(tab, ks, i, &m); err != nil {
		return nil, err
	}
	if from < 0 || max <= 0 {
		return nil, nil
	}
	p := m.head + int64(from)
	end := min(p+int64(max), m.end)
	if p >= end {
		return nil, nil
	}
	out := make([]any, 0, end-p)
	decode := func(rec []byte) error {
		x, _, err := recordValue(rec)
		if err != nil {
			return v.viewError(i, err)
		}
		out = append(out, x)
		return nil
	}
	if end-p < listScanMin {
		for q := p; q < end; q++ {
			rec, err := v.listElem(tab, ks, i, q)
			if err != nil {
				return nil, err
			}
			if err := decode(rec); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	err = tab.ScanFrom(ks.enc, listElemKey(ks.enc, p), func(_ []byte, rec []byte) (bool, error) {
		if err := decode(rec); err != nil {
			return false, err
		}
		return int64(len(out)) < end-p, nil
	})
	if err != nil {
		return nil, v.viewError(i, err)
	}
	if int64(len(out)) < end-p {
		return nil, v.viewError(i, fmt.Errorf("element %d of key (%s) is missing from the store", p+int64(len(out)), exec.FormatKey(ks.key)))
	}
	return out, nil
}

func (v *viewState) ListAdd(ks *keyState, i int, vs []any) error {
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	tab, m, err := v.list(ks, i)
	if err != nil {
		return err
	}
	_, elem := v.viewTypes(i)
	for _, x := range vs {
		if x == nil {
			return ptf.ErrNullElement
		}
		if err := exec.CheckValueKind(x, elem); err != nil {
			return v.viewError(i, err)
		}
	}
	now := v.ex.Now()
	for _, x := range vs {
		rec, err := newRecord(now, x)
		if err != nil {
			return v.viewError(i, err)
		}
		if err := tab.Put(listElemKey(ks.enc, m.end), rec); err != nil {
			return v.viewError(i, err)
		}
		m.end++
	}
	m.last = max(m.last, now)
	return v.putList(tab, ks, i, m)
}

func (v *viewState) ListClear(ks *keyState, i int) error {
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	return v.clearList(ks, i)
}

// clearList deletes every element of list entry i of key ks.
func (v *viewState) clearList(ks *keyState, i int) error {
	tab, m, err := v.list(ks, i)
	if err != nil {
		return err
	}
	for p := m.head; p < m.end; p++ {
		if err := tab.Delete(listElemKey(ks.enc, p)); err != nil {
			return v.viewError(i, err)
		}
	}
	return v.putList(tab, ks, i, listMeta{})
}

// ---- the operator's hooks (operator.go)

// endCall runs when a call of key ks returns: it closes the call's map
// iterators and empties the list and map entries that ClearState cleared.
func (v *viewState) endCall(ks *keyState) {
	for _, it := range v.open {
		it.Close()
	}
	v.open = v.open[:0]
	cleared := false
	for i := range ks.ents {
		if ks.ents[i].cleared && v.decls[i].Kind != ptf.ValueState {
			cleared = true
		}
	}
	if !cleared {
		return
	}
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	for i := range ks.ents {
		if !ks.ents[i].cleared {
			continue
		}
		switch v.decls[i].Kind {
		case ptf.ListState:
			_ = v.clearList(ks, i) // an error would have shown in the call
		case ptf.MapState:
			_ = v.clearMap(ks, i)
		}
	}
}

// flush takes the checkpoint of the call's list and map tables in tx.
// The workers of a call share the tables: one of them flushes them.
func (v *viewState) flush(tx state.Tx) error {
	v.t.mu.Lock()
	defer v.t.mu.Unlock()
	for i, tab := range v.t.tabs {
		if tab == nil {
			continue
		}
		if err := tab.Flush(tx); err != nil {
			return v.viewError(i, err)
		}
	}
	return nil
}
