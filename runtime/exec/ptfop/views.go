package ptfop

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"

	"github.com/ptfsh/ptfsh/internal/orderedcode"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// List and map state in the store (see context_views.go for the API).
//
// Namespaces are list/<uid>/<entry> and map/<uid>/<entry>. Every key
// starts with the partition key's encoding (encodeKey), which is
// prefix-free among the keys of one call (they have the same columns), so
// one key's elements or entries are one prefix scan.
//
// A list of partition key K is
//
//	K + 0x00              meta: 8-byte processing time of the last add, uvarint head, uvarint end
//	K + AppendInt64(p)    the element at physical index p, head <= p < end: 8-byte write time + value
//
// Elements are appended at end; the list's index i is physical index
// head+i. head moves past elements that expired (TTL), which are deleted
// at the next checkpoint; as elements are appended in processing-time
// order, expired ones are always a prefix. A cleared list starts again at
// physical index 0.
//
// A map entry of key k is K + appendKeyValue(k) (order-preserving, so
// iteration in key order is a prefix scan) holding the 8-byte write time,
// the value and then the key (valuecodec.go), so that keys of every type
// read back exactly.
//
// Changes wait in an overlay (viewOverlay) until the next checkpoint
// writes them in its transaction; reads look at the overlay first, then
// the store (one read transaction per read; iterating a map holds one read
// transaction until the iteration ends or the call returns). After a
// checkpoint the overlay is empty again, so memory holds at most one
// checkpoint interval of changes.

// viewOverlay is the list and map state a PTF call site changed since its
// last checkpoint. The zero value is ready to use.
type viewOverlay struct {
	keys map[string]*keyViews // by encoded partition key
	// exists is, per state entry, 1 when the store may hold its namespace,
	// -1 when it does not, 0 before the first look.
	exists []int8
	// open are the map iterators of the current call, closed when it returns.
	open []*mapIter
	// pending counts the elements and entries waiting for a checkpoint.
	pending int

	lastKS *keyState // the key looked up last, and its views
	lastKV *keyViews
}

// keyViews are the list and map changes of one partition key, by state
// entry index (nil: not used since the last checkpoint).
type keyViews struct {
	lists []*listDelta
	maps  []*mapDelta
}

// listDelta is one list of one key: what the store holds (head, n) and
// what was added since the last checkpoint.
type listDelta struct {
	head       int64    // physical index of the first live element
	n          int64    // physical end of the stored elements
	storedHead int64    // head as the store has it: elements before it are gone
	storedN    int64    // N as the store has it: a clear keeps it, to delete [storedHead, storedN)
	last       int64    // processing time of the last add
	added      [][]byte // records (write time + value) at physical n, n+1, ...
	cleared    bool     // the store's elements go at the next checkpoint
	dirty      bool
	headTime   int64 // write time of the element at head, when headKnown
	headKnown  bool
}

func (d *listDelta) end() int64 { return d.n + int64(len(d.added)) }

// mapDelta is one map of one key: the entries written since the last
// checkpoint, by encoded map key (a nil record is a removal).
type mapDelta struct {
	writes   map[string][]byte
	cleared  bool            // the store's entries go at the next checkpoint
	stored   [][]byte        // when cleared, the store's entries' keys, found by prepare
	scanned  bool            // prepare found stored
	expired  map[string]bool // stored entries found expired, deleted at the checkpoint
	sorted   []string        // the keys of writes in order, when sortedOK
	sortedOK bool
	gen      int // counts clears, so that iterators notice them
}

// viewState is the list and map state of one PTF call (Flink's ListView
// and MapView): the overlay of changes since the last checkpoint over the
// store. The operator owns one and serves the context's views through it
// (host.go); each operation works on the partition key it is given,
// the key of the running call.
type viewState struct {
	viewOverlay
	uid   string
	decls []ptf.StateDecl
	ttl   []int64 // per state entry, milliseconds of processing time; 0: none
	ex    *exec.Execution
}

func newViewState(n *Node, ex *exec.Execution, ttl []int64) viewState {
	return viewState{uid: n.UID, decls: n.Def.State, ttl: ttl, ex: ex}
}

// viewKey returns the views of key ks, checking that state entry i is of
// kind.
func (v *viewState) viewKey(ks *keyState, i int, kind ptf.StateKind) (*keyViews, error) {
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
	if ks == v.lastKS && v.lastKV != nil {
		return v.lastKV, nil
	}
	kv := v.keys[string(ks.enc)]
	if kv == nil {
		if v.keys == nil {
			v.keys = map[string]*keyViews{}
		}
		kv = &keyViews{}
		v.keys[string(ks.enc)] = kv
	}
	v.lastKS, v.lastKV = ks, kv
	return kv, nil
}

func stateKindName(k ptf.StateKind) string {
	return [...]string{"value", "list", "map"}[k]
}

// viewStored reports whether the store may hold state entry i's namespace.
func (v *viewState) viewStored(i int) (bool, error) {
	if len(v.exists) != len(v.decls) {
		v.exists = make([]int8, len(v.decls))
	}
	if v.exists[i] == 0 {
		var names []string
		if err := v.ex.Store.View(func(tx state.Tx) (err error) {
			names, err = tx.Namespaces()
			return err
		}); err != nil {
			return false, err
		}
		for j := range v.exists {
			v.exists[j] = -1
			if ns := v.viewNamespace(j); ns != "" {
				if k := sort.SearchStrings(names, ns); k < len(names) && names[k] == ns {
					v.exists[j] = 1
				}
			}
		}
	}
	return v.exists[i] == 1, nil
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

// list returns list entry i of key ks, reading its meta record the first
// time since the last checkpoint.
func (v *viewState) list(ks *keyState, i int) (*listDelta, error) {
	kv, err := v.viewKey(ks, i, ptf.ListState)
	if err != nil {
		return nil, err
	}
	if kv.lists == nil {
		kv.lists = make([]*listDelta, len(v.decls))
	}
	if d := kv.lists[i]; d != nil {
		return d, nil
	}
	d := &listDelta{}
	stored, err := v.viewStored(i)
	if err != nil {
		return nil, v.viewError(i, err)
	}
	if stored {
		var meta []byte
		err := v.ex.Store.View(func(tx state.Tx) (err error) {
			meta, err = tx.Get(v.viewNamespace(i), listMetaKey(ks.enc))
			return err
		})
		if err != nil {
			return nil, v.viewError(i, err)
		}
		if meta != nil {
			if d.last, d.head, d.n, err = decodeListMeta(meta); err != nil {
				return nil, v.viewError(i, err)
			}
			d.storedHead, d.storedN = d.head, d.n
		}
	}
	kv.lists[i] = d
	return d, nil
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

// expireList moves the head of list i past the elements whose TTL ran out.
func (v *viewState) expireList(ks *keyState, i int, d *listDelta) error {
	ttl := v.ttl[i]
	if ttl <= 0 || d.head >= d.end() {
		return nil
	}
	now := v.ex.Now()
	if expired(ttl, now, d.last) { // the newest element is gone: all are
		d.head, d.headKnown, d.dirty = d.end(), false, true
		return nil
	}
	for d.head < d.end() {
		if !d.headKnown {
			if d.head >= d.n {
				d.headTime = recordTime(d.added[d.head-d.n])
			} else {
				recs, err := v.readList(ks, i, d.head, d.head+1)
				if err != nil {
					return err
				}
				d.headTime = recordTime(recs[0])
			}
			d.headKnown = true
		}
		if !expired(ttl, now, d.headTime) {
			break
		}
		d.head, d.headKnown, d.dirty = d.head+1, false, true
	}
	return nil
}

// readList reads the stored records of physical indexes [from, to) of the
// list i of key ks, in one read transaction.
func (v *viewState) readList(ks *keyState, i int, from, to int64) ([][]byte, error) {
	ns, enc := v.viewNamespace(i), ks.enc
	recs := make([][]byte, 0, to-from)
	err := v.ex.Store.View(func(tx state.Tx) error {
		key := listElemKey(enc, 0)
		for p := from; p < to; p++ {
			key = orderedcode.AppendInt64(key[:len(enc)], p)
			rec, err := tx.Get(ns, key)
			if err != nil {
				return err
			}
			if rec == nil {
				return fmt.Errorf("element %d of key (%s) is missing from the store", p, exec.FormatKey(ks.key))
			}
			recs = append(recs, rec)
		}
		return nil
	})
	return recs, v.viewError(i, err)
}

func (v *viewState) ListSize(ks *keyState, i int) (int, error) {
	d, err := v.list(ks, i)
	if err != nil {
		return 0, err
	}
	if err := v.expireList(ks, i, d); err != nil {
		return 0, err
	}
	return int(d.end() - d.head), nil
}

func (v *viewState) ListSlice(ks *keyState, i, from, max int) ([]any, error) {
	d, err := v.list(ks, i)
	if err != nil {
		return nil, err
	}
	if err := v.expireList(ks, i, d); err != nil {
		return nil, err
	}
	if from < 0 || max <= 0 {
		return nil, nil
	}
	p := d.head + int64(from)
	end := min(p+int64(max), d.end())
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
	if p < d.n {
		recs, err := v.readList(ks, i, p, min(end, d.n))
		if err != nil {
			return nil, err
		}
		for _, rec := range recs {
			if err := decode(rec); err != nil {
				return nil, err
			}
		}
	}
	for q := max64(p, d.n); q < end; q++ {
		if err := decode(d.added[q-d.n]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

func (v *viewState) ListAdd(ks *keyState, i int, vs []any) error {
	d, err := v.list(ks, i)
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
		d.added = append(d.added, rec)
	}
	d.last = max(d.last, now)
	d.dirty = true
	v.pending += len(vs)
	return nil
}

func (v *viewState) ListClear(ks *keyState, i int) error {
	d, err := v.list(ks, i)
	if err != nil {
		return err
	}
	v.clearList(d)
	return nil
}

func (v *viewState) clearList(d *listDelta) {
	v.pending -= len(d.added)
	*d = listDelta{cleared: true, dirty: true, storedHead: d.storedHead, storedN: d.storedN}
}

// flushList writes list d of key enc to tx.
func flushList(tx state.Tx, ns string, enc []byte, d *listDelta) error {
	if !d.dirty {
		return nil
	}
	if d.cleared {
		// The store holds [storedHead, storedN) and the meta record: a
		// scan would find no more (and would cost a flush of the
		// checkpoint's writes so far, see viewState.prepare).
		for p := d.storedHead; p < d.storedN; p++ {
			if err := tx.Delete(ns, listElemKey(enc, p)); err != nil {
				return err
			}
		}
	} else {
		for p := d.storedHead; p < min(d.head, d.n); p++ {
			if err := tx.Delete(ns, listElemKey(enc, p)); err != nil {
				return err
			}
		}
	}
	for j, rec := range d.added {
		if p := d.n + int64(j); p >= d.head {
			if err := tx.Put(ns, listElemKey(enc, p), rec); err != nil {
				return err
			}
		}
	}
	if d.head >= d.end() {
		return tx.Delete(ns, listMetaKey(enc))
	}
	return tx.Put(ns, listMetaKey(enc), encodeListMeta(d.last, d.head, d.end()))
}

// prepare finds the stored entries of the maps cleared since the last
// checkpoint, which flush deletes: a scan of each map's keys, before any
// write of the checkpoint to a view's namespace. A scan applies the
// namespace's buffered writes to bbolt first, and bbolt splits the nodes
// they grow only at the commit: writes after such a scan go one by one
// into nodes of thousands of keys: a checkpoint of 20k keys whose lists
// and maps were cleared took 27.6 s, nearly all of it moving memory, and
// takes 0.26 s this way (BenchmarkViewsCheckpoint_cleared). A call on
// several workers prepares every worker's views before any of them
// writes (Parallel.Flush).
func (v *viewState) prepare(tx state.Tx) error {
	for enc, kv := range v.keys {
		for i, d := range kv.maps {
			if d == nil || !d.cleared || d.scanned {
				continue
			}
			d.stored = d.stored[:0]
			err := tx.Scan(v.viewNamespace(i), []byte(enc), func(k, _ []byte) error {
				d.stored = append(d.stored, bytes.Clone(k))
				return nil
			})
			if err != nil {
				return v.viewError(i, err)
			}
			d.scanned = true
		}
	}
	return nil
}

// ---- the operator's hooks (operator.go)

// endCall runs when a call of key ks returns: it closes the call's map
// iterators (and their read transactions) and empties the list and map
// entries that ClearState cleared.
func (v *viewState) endCall(ks *keyState) {
	for _, it := range v.open {
		it.Close()
	}
	v.open = v.open[:0]
	for i := range ks.ents {
		if !ks.ents[i].cleared || v.decls[i].Kind == ptf.ValueState {
			continue
		}
		switch v.decls[i].Kind {
		case ptf.ListState:
			if d, err := v.list(ks, i); err == nil {
				v.clearList(d)
			}
		case ptf.MapState:
			if d, err := v.mapDelta(ks, i); err == nil {
				v.clearMap(d)
			}
		}
	}
}

// flush writes the list and map changes to tx (one checkpoint) and
// empties the overlay.
func (v *viewState) flush(tx state.Tx) error {
	if len(v.keys) == 0 {
		return nil
	}
	if err := v.prepare(tx); err != nil {
		return err
	}
	for enc, kv := range v.keys {
		for i, d := range kv.lists {
			if d == nil {
				continue
			}
			if err := flushList(tx, v.viewNamespace(i), []byte(enc), d); err != nil {
				return v.viewError(i, err)
			}
		}
		for i, d := range kv.maps {
			if d == nil {
				continue
			}
			if err := flushMap(tx, v.viewNamespace(i), []byte(enc), d); err != nil {
				return v.viewError(i, err)
			}
		}
	}
	// The checkpoint may have created namespaces: a changed entry's
	// namespace may exist now.
	for _, kv := range v.keys {
		for i, d := range kv.lists {
			if d != nil && len(v.exists) > i {
				v.exists[i] = 1
			}
		}
		for i, d := range kv.maps {
			if d != nil && len(v.exists) > i {
				v.exists[i] = 1
			}
		}
	}
	v.keys, v.lastKS, v.lastKV, v.pending = nil, nil, nil, 0
	return nil
}
