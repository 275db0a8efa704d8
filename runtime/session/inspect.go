package session

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ptfsh/ptfsh/runtime/exec"
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
	var rows [][]string
	var header []string
	err := s.cfg.Store.View(func(tx state.Tx) error {
		if strings.EqualFold(sh.Inspect, "TIMERS") {
			header = []string{"key", "timer", "time"}
			return tx.Scan(exec.TimerNamespace(uid), filter, func(k, v []byte) error {
				enc, name, ts, named, err := exec.DecodeTimerEntry(k, v)
				if err != nil || (filter != nil && !bytes.Equal(enc, filter)) {
					return err
				}
				if !named {
					name = "(unnamed)"
				}
				rows = append(rows, []string{exec.DescribeKey(enc), name, fmt.Sprintf("%d (%s)", ts, types.FormatValue(types.Instant{Millis: ts}, types.TypeTimestampLTZ))})
				return nil
			})
		}
		header = []string{"key", "state", "value", "written at"}
		names, err := tx.Namespaces()
		if err != nil {
			return err
		}
		prefix := "state/" + uid + "/"
		for _, ns := range names {
			if entry, kind, ok := exec.ViewEntryOf(ns, uid); ok {
				vr, err := exec.DescribeView(tx, ns, entry, kind, filter)
				if err != nil {
					return err
				}
				rows = append(rows, vr...)
				continue
			}
			if !strings.HasPrefix(ns, prefix) {
				continue
			}
			entry := strings.TrimPrefix(ns, prefix)
			err := tx.Scan(ns, nil, func(k, v []byte) error {
				if filter != nil && !bytes.Equal(k, filter) {
					return nil
				}
				written, value := describeValue(s.cfg.Loader, v)
				rows = append(rows, []string{exec.DescribeKey(k), entry, value, written})
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return sqlmini.Errorf(sh.Pos, "reading the state of '%s': %w", uid, err)
	}
	if len(rows) == 0 {
		what := "state"
		if strings.EqualFold(sh.Inspect, "TIMERS") {
			what = "timers"
		}
		fmt.Fprintf(s.cfg.Err, "note: no %s stored for uid '%s'\n", what, uid)
	}
	return printMeta(s.cfg.Out, header, rows)
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
