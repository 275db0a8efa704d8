package session

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/exec/ptfop"
	"github.com/ptfsh/ptfsh/runtime/expr"
	"github.com/ptfsh/ptfsh/runtime/keycodec"
	"github.com/ptfsh/ptfsh/runtime/ptf"
	"github.com/ptfsh/ptfsh/runtime/types"
	"github.com/ptfsh/ptfsh/sqlmini"
	"github.com/ptfsh/ptfsh/state"
)

// SHOW STATE FOR 'uid', SHOW TIMERS FOR 'uid' and DROP STATE FOR 'uid'
// read the store directly, for learning and debugging (docs/design.md §7).

// execInspect runs SHOW STATE or SHOW TIMERS.
func (s *Session) execInspect(sh *sqlmini.Show) error {
	uid := string(*sh.UID)
	var filter []byte
	if len(sh.Key) > 0 {
		var key []any
		for _, e := range sh.Key {
			x, err := expr.Compile(e, nil)
			if err != nil {
				return err
			}
			v, err := x.Eval(nil)
			if err != nil || !x.IsConstant() {
				return sqlmini.Errorf(e.Pos, "KEY values must be constants")
			}
			key = append(key, v)
		}
		filter = keycodec.Encode(key)
	}
	timers := strings.EqualFold(sh.Inspect, "TIMERS")
	header := []string{"key", "state", "value", "written at"}
	if timers {
		header = []string{"key", "timer", "time"}
	}
	var rows [][]string
	err := s.cfg.Store.View(func(tx state.Tx) error {
		var err error
		rows, err = s.inspectRows(tx, uid, filter, timers)
		return err
	})
	if timers {
		for i := range rows {
			rows[i] = rows[i][:3] // without the milliseconds
		}
	}
	if err != nil {
		return sqlmini.Errorf(sh.Pos, "reading the state of '%s': %w", uid, err)
	}
	if len(rows) == 0 {
		what := "state"
		if timers {
			what = "timers"
		}
		fmt.Fprintf(s.cfg.Err, "note: no %s stored for uid '%s'\n", what, uid)
	}
	return printMeta(s.cfg.Out, header, rows)
}

// inspectRows returns the rows of SHOW STATE (key, state, value, written
// at) or SHOW TIMERS (key, timer, time, and the time in epoch
// milliseconds as a fourth column) of uid, of the encoded key filter
// when it is not nil.
func (s *Session) inspectRows(tx state.Tx, uid string, filter []byte, timers bool) ([][]string, error) {
	var rows [][]string
	if timers {
		err := tx.Scan(exec.TimerNamespace(uid), filter, func(k, v []byte) error {
			enc, name, ts, named, err := ptfop.DecodeTimerEntry(k, v)
			if err != nil || (filter != nil && !bytes.Equal(enc, filter)) {
				return err
			}
			if !named {
				name = "(unnamed)"
			}
			rows = append(rows, []string{ptfop.DescribeKey(enc), name, fmt.Sprintf("%d (%s)", ts, types.FormatValue(types.Instant{Millis: ts}, types.TypeTimestampLTZ)), strconv.FormatInt(ts, 10)})
			return nil
		})
		return rows, err
	}
	names, err := tx.Namespaces()
	if err != nil {
		return nil, err
	}
	// The state's tables, in the order of their entries' names: the
	// namespaces' own order puts a table's suffixes (~meta) between the
	// names, so that "a" would come after "a_b" and "ab".
	type table struct {
		ns, entry string
		kind      ptf.StateKind
		view      bool
	}
	var tables []table
	seen := map[string]bool{}
	for _, ns := range names {
		t := table{}
		var ok bool
		if t.ns, t.entry, t.kind, ok = ptfop.ViewEntryOf(ns, uid); ok {
			t.view = true
		} else if t.ns, t.entry, ok = ptfop.ValueEntryOf(ns, uid); !ok {
			continue
		}
		if !seen[t.ns] {
			seen[t.ns] = true
			tables = append(tables, t)
		}
	}
	sort.SliceStable(tables, func(i, j int) bool { return tables[i].entry < tables[j].entry })
	for _, t := range tables {
		if t.view {
			vr, err := ptfop.DescribeView(tx, t.ns, t.entry, t.kind, filter)
			if err != nil {
				return nil, err
			}
			rows = append(rows, vr...)
			continue
		}
		err := ptfop.ScanValues(tx, t.ns, func(k, v []byte) error {
			if filter != nil && !bytes.Equal(k, filter) {
				return nil
			}
			written, value := describeValue(s.cfg.Loader, v)
			rows = append(rows, []string{ptfop.DescribeKey(k), t.entry, value, written})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// Stored is what the store holds for one uid after a statement, as SHOW
// STATE and SHOW TIMERS show it (ptfsh test compares it with a test's
// want.state, want.timers and want.counts).
type Stored struct {
	UID string
	// State: key, entry (s, or s[0] and m[k] for list and map state),
	// value, written at; in the store's order.
	State [][]string
	// Timers: key, name ("(unnamed)" for a timer without one), time in
	// epoch milliseconds; in the store's order.
	Timers []StoredTimer
}

// StoredTimer is one timer of Stored.
type StoredTimer struct {
	Key, Name string
	Millis    int64
}

// StoredState returns what the store holds for every uid that has state
// or timers, in the order of the uids.
func (s *Session) StoredState() ([]Stored, error) {
	var out []Stored
	err := s.cfg.Store.View(func(tx state.Tx) error {
		names, err := tx.Namespaces()
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		var uids []string
		for _, ns := range names {
			var uid string
			switch {
			case strings.HasPrefix(ns, "timers/"):
				uid = strings.TrimPrefix(ns, "timers/")
			case strings.HasPrefix(ns, "state/"), strings.HasPrefix(ns, "list/"), strings.HasPrefix(ns, "map/"):
				// kind/uid/entry: an entry is a JS name (no '/'), a uid may hold one.
				rest := ns[strings.IndexByte(ns, '/')+1:]
				i := strings.LastIndexByte(rest, '/')
				if i < 0 {
					continue
				}
				uid = rest[:i]
			default:
				continue
			}
			if !seen[uid] {
				seen[uid] = true
				uids = append(uids, uid)
			}
		}
		sort.Strings(uids)
		for _, uid := range uids {
			st := Stored{UID: uid}
			if st.State, err = s.inspectRows(tx, uid, nil, false); err != nil {
				return fmt.Errorf("reading the state of '%s': %w", uid, err)
			}
			timers, err := s.inspectRows(tx, uid, nil, true)
			if err != nil {
				return fmt.Errorf("reading the timers of '%s': %w", uid, err)
			}
			for _, r := range timers {
				ms, _ := strconv.ParseInt(r[3], 10, 64)
				st.Timers = append(st.Timers, StoredTimer{Key: r[0], Name: r[1], Millis: ms})
			}
			if len(st.State) > 0 || len(st.Timers) > 0 {
				out = append(out, st)
			}
		}
		return nil
	})
	return out, err
}

// execDropState removes every state entry and timer of a uid.
func (s *Session) execDropState(d *sqlmini.Drop) error {
	uid := string(*d.State)
	return s.cfg.Store.Update(func(tx state.Tx) error {
		if err := exec.DropUID(tx, uid); err != nil {
			return err
		}
		return tx.Delete(exec.MetaNamespace, exec.FinishedKey(uid))
	})
}

// describeValue renders a stored state value: the processing time it was
// written at and the function's encoding, as the loader shows it (script:
// JSON), else as JSON when it is JSON, else as hex.
func describeValue(loader ptf.Loader, v []byte) (written, value string) {
	if len(v) < 8 {
		return "", fmt.Sprintf("x'%x'", v)
	}
	ms := int64(binary.BigEndian.Uint64(v))
	written = types.FormatValue(types.Instant{Millis: ms}, types.TypeTimestampLTZ)
	body := v[8:]
	if d, ok := loader.(ptf.StateDescriber); ok {
		if text, ok := d.DescribeState(body); ok {
			return written, text
		}
	}
	if len(body) > 1 && json.Valid(body[1:]) {
		return written, string(body[1:])
	}
	if json.Valid(body) {
		return written, string(body)
	}
	return written, fmt.Sprintf("x'%x'", body)
}
