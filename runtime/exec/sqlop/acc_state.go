package sqlop

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/ptfsh/ptfsh/runtime/exec"
	"github.com/ptfsh/ptfsh/runtime/types"
)

// The state of an accumulator as a checkpoint keeps it: counts as varints,
// values with [exec.AppendValue] (self-describing), a DECIMAL sum as the
// text of its exact fraction. Each accumulator reads back exactly what it
// wrote, so states of several calls follow one another in one record.

var errAccTruncated = errors.New("truncated aggregate state")

func appendVarint(b []byte, v int64) []byte { return binary.AppendVarint(b, v) }

func readVarint(b []byte) (int64, []byte, error) {
	v, n := binary.Varint(b)
	if n <= 0 {
		return 0, nil, errAccTruncated
	}
	return v, b[n:], nil
}

func (a *countStar) AppendState(b []byte) ([]byte, error) { return appendVarint(b, a.n), nil }
func (a *countStar) ReadState(b []byte) (rest []byte, err error) {
	a.n, rest, err = readVarint(b)
	return rest, err
}

func (a *countAcc) AppendState(b []byte) ([]byte, error) { return appendVarint(b, a.n), nil }
func (a *countAcc) ReadState(b []byte) (rest []byte, err error) {
	a.n, rest, err = readVarint(b)
	return rest, err
}

func (a *sumAcc) AppendState(b []byte) ([]byte, error) {
	b = appendVarint(b, a.n)
	b = appendVarint(b, a.i)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(a.f))
	d := ""
	if a.d != nil && a.d.Sign() != 0 {
		d = a.d.RatString()
	}
	b = binary.AppendUvarint(b, uint64(len(d)))
	return append(b, d...), nil
}

func (a *sumAcc) ReadState(b []byte) ([]byte, error) {
	var err error
	if a.n, b, err = readVarint(b); err != nil {
		return nil, err
	}
	if a.i, b, err = readVarint(b); err != nil {
		return nil, err
	}
	if len(b) < 8 {
		return nil, errAccTruncated
	}
	a.f = math.Float64frombits(binary.LittleEndian.Uint64(b))
	b = b[8:]
	n, w := binary.Uvarint(b)
	if w <= 0 || uint64(len(b)-w) < n {
		return nil, errAccTruncated
	}
	a.d = new(big.Rat)
	if n > 0 {
		if _, ok := a.d.SetString(string(b[w : w+int(n)])); !ok {
			return nil, fmt.Errorf("bad DECIMAL sum %q", b[w:w+int(n)])
		}
	}
	return b[w+int(n):], nil
}

func (a *avgAcc) AppendState(b []byte) ([]byte, error) { return a.sum.AppendState(b) }
func (a *avgAcc) ReadState(b []byte) ([]byte, error)   { return a.sum.ReadState(b) }

// appendState appends a multiset: its size, then each value and its count.
func (m *multiset) appendState(b []byte) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(len(m.vals)))
	for i, v := range m.vals {
		var err error
		if b, err = exec.AppendValue(b, v); err != nil {
			return nil, err
		}
		b = appendVarint(b, m.n[i])
	}
	return b, nil
}

func (m *multiset) readState(b []byte) ([]byte, error) {
	k, w := binary.Uvarint(b)
	if w <= 0 || k > uint64(len(b)) {
		return nil, errAccTruncated
	}
	b = b[w:]
	m.vals, m.n = make([]any, 0, k), make([]int64, 0, k)
	for range k {
		v, rest, err := exec.ReadValue(b)
		if err != nil {
			return nil, err
		}
		c, rest, err := readVarint(rest)
		if err != nil {
			return nil, err
		}
		m.vals, m.n, b = append(m.vals, v), append(m.n, c), rest
	}
	return b, nil
}

func (a *extremeAcc) AppendState(b []byte) ([]byte, error) { return a.set.appendState(b) }
func (a *extremeAcc) ReadState(b []byte) ([]byte, error)   { return a.set.readState(b) }

func (a *distinctAcc) AppendState(b []byte) ([]byte, error) {
	b, err := a.set.appendState(b)
	if err != nil {
		return nil, err
	}
	return a.inner.AppendState(b)
}

func (a *distinctAcc) ReadState(b []byte) ([]byte, error) {
	b, err := a.set.readState(b)
	if err != nil {
		return nil, err
	}
	return a.inner.ReadState(b)
}

// appendAccs appends the states of accs in order.
func appendAccs(b []byte, accs []Accumulator) ([]byte, error) {
	for _, a := range accs {
		var err error
		if b, err = a.AppendState(b); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// readAccs makes fresh accumulators of calls and reads their states from
// b in order.
func readAccs(b []byte, calls []*AggCall) ([]Accumulator, []byte, error) {
	accs := make([]Accumulator, len(calls))
	for i, c := range calls {
		accs[i] = NewAccumulator(c)
		var err error
		if b, err = accs[i].ReadState(b); err != nil {
			return nil, nil, fmt.Errorf("aggregate %s: %w", c.Text, err)
		}
	}
	return accs, b, nil
}

// appendValues appends a list of values: their count, then each.
func appendValues(b []byte, vs []any) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(len(vs)))
	for _, v := range vs {
		var err error
		if b, err = exec.AppendValue(b, v); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// readValues reads a list appendValues wrote; a list of no values reads
// as nil.
func readValues(b []byte) ([]any, []byte, error) {
	k, w := binary.Uvarint(b)
	if w <= 0 || k > uint64(len(b)) {
		return nil, nil, errAccTruncated
	}
	b = b[w:]
	if k == 0 {
		return nil, b, nil
	}
	vs := make([]any, k)
	for i := range vs {
		v, rest, err := exec.ReadValue(b)
		if err != nil {
			return nil, nil, err
		}
		vs[i], b = v, rest
	}
	return vs, b, nil
}

func (a *valueAcc) AppendState(b []byte) ([]byte, error) { return appendValues(b, a.vals) }
func (a *valueAcc) ReadState(b []byte) (rest []byte, err error) {
	a.vals, rest, err = readValues(b)
	return rest, err
}

// readCount reads the count of a list appendValues or a state encoding
// wrote before its items, which cannot be more than the bytes left.
func readCount(b []byte) (uint64, []byte, error) {
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)) {
		return 0, nil, errAccTruncated
	}
	return n, b[w:], nil
}

// readRow reads a row exec.AppendValue wrote; what names it in an error.
func readRow(b []byte, what string) (types.Row, []byte, error) {
	v, b, err := exec.ReadValue(b)
	if err != nil {
		return types.Row{}, nil, err
	}
	row, ok := v.(types.Row)
	if !ok {
		return types.Row{}, nil, fmt.Errorf("%s is a %T", what, v)
	}
	return row, b, nil
}
