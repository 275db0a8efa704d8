package ptfop

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/ptfsh/ptfsh/internal/orderedcode"
	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/opstate"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/state"
)

// SHOW STATE rows of list and map state (the layout is in views.go).

// MaxShownElements is how many elements of one list or map SHOW STATE
// prints; a row then says how many more there are.
const MaxShownElements = 20

// ViewEntryOf returns the list or map entry of uid that namespace ns
// belongs to: its table's namespace, its name and kind; false for other
// namespaces. A table's namespace is either the table's itself (a state
// file of an older build) or its list of generations (namespace~meta):
// both name the table, and a caller that lists namespaces sees a table
// once or twice.
func ViewEntryOf(ns, uid string) (table, entry string, kind ptf.StateKind, ok bool) {
	table = ns
	if i := strings.IndexByte(ns, '~'); i >= 0 {
		if !strings.HasSuffix(ns, "~meta") {
			return "", "", ptf.ValueState, false // a generation
		}
		table = ns[:i]
	}
	if rest, found := strings.CutPrefix(table, "list/"+uid+"/"); found {
		return table, rest, ptf.ListState, true
	}
	if rest, found := strings.CutPrefix(table, "map/"+uid+"/"); found {
		return table, rest, ptf.MapState, true
	}
	return "", "", ptf.ValueState, false
}

// DescribeView returns SHOW STATE rows (key, state, value, written at) for
// the list or map table of namespace ns (as of its last checkpoint): one per element (s[0], s[1], ...) or entry
// (m[key]), at most maxShownElements per key. filter, if not nil, is the
// encoded partition key to show.
func DescribeView(tx state.Tx, ns, entry string, kind ptf.StateKind, filter []byte) ([][]string, error) {
	var rows [][]string
	var group []byte // the partition key being read
	var head int64   // its list's head
	shown, more := 0, 0
	endGroup := func() {
		if more > 0 {
			rows = append(rows, []string{DescribeKey(group), entry, fmt.Sprintf("(%d more)", more), ""})
		}
		shown, more = 0, 0
	}
	add := func(enc []byte, label string, rec []byte) {
		if group == nil || !bytes.Equal(enc, group) {
			endGroup()
			group = bytes.Clone(enc)
		}
		if shown == MaxShownElements {
			more++
			return
		}
		shown++
		value := fmt.Sprintf("x'%x'", rec)
		if v, _, err := recordValue(rec); err == nil {
			value = types.FormatValue(v, types.Type{})
		}
		rows = append(rows, []string{DescribeKey(enc), label, value, types.FormatValue(types.Instant{Millis: recordTime(rec)}, types.TypeTimestampLTZ)})
	}
	err := opstate.ScanStored(tx, ns, filter, func(k, v []byte) error {
		if kind == ptf.ListState {
			// A key's meta record comes first (0x00 sorts before the index
			// tag), then its elements.
			n := len(group)
			if group != nil && len(k) == n+9 && bytes.HasPrefix(k, group) {
				p, err := orderedcode.NewDecoder(k[n:]).Int64()
				if err != nil {
					return err
				}
				add(group, fmt.Sprintf("%s[%d]", entry, p-head), v)
				return nil
			}
			if len(k) == 0 || k[len(k)-1] != 0 {
				return fmt.Errorf("list state %q: unexpected key x'%x'", entry, k)
			}
			endGroup()
			group = bytes.Clone(k[:len(k)-1])
			_, h, _, err := decodeListMeta(v)
			if err != nil {
				return err
			}
			head = h
			return nil
		}
		_, rest, err := recordValue(v)
		if err == nil {
			var key any
			if key, _, err = exec.ReadValue(rest); err == nil {
				ek := keycodec.AppendValue(nil, key)
				if !bytes.HasSuffix(k, ek) {
					return fmt.Errorf("map state %q: key x'%x' does not match its record", entry, k)
				}
				add(k[:len(k)-len(ek)], entry+"["+types.FormatValue(key, types.Type{})+"]", v)
				return nil
			}
		}
		return fmt.Errorf("map state %q: %w", entry, err)
	})
	endGroup()
	return rows, err
}

// DescribeKey renders an encoded partition key without knowing its types.
func DescribeKey(enc []byte) string {
	if len(enc) == 0 || bytes.Equal(enc, keycodec.Empty) {
		return "()"
	}
	d := orderedcode.NewDecoder(enc)
	var parts []string
	for !d.Done() {
		switch d.Peek() {
		case orderedcode.KindNull:
			d.Null()
			parts = append(parts, "NULL")
		case orderedcode.KindBool:
			v, _ := d.Bool()
			parts = append(parts, fmt.Sprint(v))
		case orderedcode.KindInt64:
			v, _ := d.Int64()
			parts = append(parts, fmt.Sprint(v))
		case orderedcode.KindUint64:
			v, _ := d.Uint64()
			parts = append(parts, fmt.Sprint(v))
		case orderedcode.KindFloat64:
			v, _ := d.Float64()
			parts = append(parts, fmt.Sprint(v))
		case orderedcode.KindString:
			v, _ := d.String()
			parts = append(parts, v)
		case orderedcode.KindBytes:
			v, _ := d.Bytes()
			parts = append(parts, fmt.Sprintf("x'%x'", v))
		default:
			return fmt.Sprintf("x'%x'", enc)
		}
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
