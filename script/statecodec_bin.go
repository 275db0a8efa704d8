package script

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"

	"github.com/ptfsh/ptfsh/runtime/types"
)

// The binary state encoding (version byte stateBinary) writes the same
// node tree as the JSON one (statecodec.go) without text: a tag byte per
// node, then its payload. Lengths and counts are unsigned varints; an
// integral number that fits 53 bits is a zigzag varint, any other number
// 8 bytes of IEEE 754 (little endian). It is the encoding written since
// it came in; values written as JSON (version stateVersion) still read.
//
//	binNull, binUndef, binFalse, binTrue           no payload
//	binInt     zigzag varint                       an integral number
//	binFloat   8 bytes                             any other number (NaN, ±Inf, -0 too)
//	binString  len, UTF-8 bytes
//	binBig     len, decimal digits                 BigInt
//	binDate    8 bytes (ms); binBadDate            Date; an invalid Date
//	binBytes   len, bytes                          Uint8Array
//	binArray   n, n nodes
//	binSet     n, n nodes
//	binMap     n, n × (key node, value node)
//	binKind    1 byte                              a RowKind
//	binRow     kind byte, len + JSON of the ROW type, n, n nodes
//	binObject  n, n × (len + key, node)
const stateBinary = 2

const (
	binNull byte = iota
	binUndef
	binFalse
	binTrue
	binInt
	binFloat
	binString
	binBig
	binDate
	binBadDate
	binBytes
	binArray
	binSet
	binMap
	binKind
	binRow
	binObject
)

// maxExact is the largest integer a float64 holds exactly (2^53).
const maxExact = 1 << 53

// appendBin appends the binary encoding of n to b.
func appendBin(b []byte, n node) ([]byte, error) {
	switch x := n.(type) {
	case nil:
		return append(b, binNull), nil
	case undefNode:
		return append(b, binUndef), nil
	case bool:
		if x {
			return append(b, binTrue), nil
		}
		return append(b, binFalse), nil
	case float64:
		return appendBinNumber(b, x), nil
	case numNode:
		return binary.LittleEndian.AppendUint64(append(b, binFloat), math.Float64bits(float64(x))), nil
	case string:
		return appendBinString(append(b, binString), x), nil
	case bigNode:
		return appendBinString(append(b, binBig), x.v.String()), nil
	case dateNode:
		if !x.valid {
			return append(b, binBadDate), nil
		}
		return binary.LittleEndian.AppendUint64(append(b, binDate), math.Float64bits(x.ms)), nil
	case bytesNode:
		b = binary.AppendUvarint(append(b, binBytes), uint64(len(x)))
		return append(b, x...), nil
	case kindNode:
		return append(b, binKind, byte(x)), nil
	case arrNode:
		return appendBinList(append(b, binArray), x)
	case setNode:
		return appendBinList(append(b, binSet), x)
	case mapNode:
		b = binary.AppendUvarint(append(b, binMap), uint64(len(x.keys)))
		for i := range x.keys {
			var err error
			if b, err = appendBin(b, x.keys[i]); err != nil {
				return nil, err
			}
			if b, err = appendBin(b, x.vals[i]); err != nil {
				return nil, err
			}
		}
		return b, nil
	case rowNode:
		t, err := json.Marshal(x.typ)
		if err != nil {
			return nil, err
		}
		b = appendBinString(append(b, binRow, byte(x.kind)), string(t))
		return appendBinList(b, x.vals)
	case objNode:
		b = binary.AppendUvarint(append(b, binObject), uint64(len(x.keys)))
		for i, k := range x.keys {
			b = appendBinString(b, k)
			var err error
			if b, err = appendBin(b, x.vals[i]); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	return nil, fmt.Errorf("script: unknown state node %T", n)
}

// appendBinNumber appends a JavaScript number: an integer that a float64
// holds exactly as a varint, any other (a fraction, -0, NaN, ±Infinity)
// as its eight bytes.
func appendBinNumber(b []byte, x float64) []byte {
	if x == math.Trunc(x) && math.Abs(x) <= maxExact && !(x == 0 && math.Signbit(x)) {
		return binary.AppendVarint(append(b, binInt), int64(x))
	}
	return binary.LittleEndian.AppendUint64(append(b, binFloat), math.Float64bits(x))
}

func appendBinString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendBinList(b []byte, ns []node) ([]byte, error) {
	b = binary.AppendUvarint(b, uint64(len(ns)))
	for _, c := range ns {
		var err error
		if b, err = appendBin(b, c); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// binReader reads a binary encoding. Every count is checked against the
// bytes left before anything is allocated for it (a node takes at least
// one byte), so damaged data cannot ask for more memory than its size.
type binReader struct {
	data []byte
	off  int
}

var errBinShort = errors.New("the value ends early")

// decodeBin reads a value written by appendBin, all of data.
func decodeBin(data []byte) (node, error) {
	r := binReader{data: data}
	n, err := r.node(0)
	if err != nil {
		return nil, fmt.Errorf("damaged value at byte %d: %w", r.off+1, err)
	}
	if r.off != len(data) {
		return nil, fmt.Errorf("damaged value: %d bytes after its end", len(data)-r.off)
	}
	return n, nil
}

func (r *binReader) byte() (byte, error) {
	if r.off >= len(r.data) {
		return 0, errBinShort
	}
	c := r.data[r.off]
	r.off++
	return c, nil
}

// count reads a length or count of items of at least min bytes each.
func (r *binReader) count(min int) (int, error) {
	v, n := binary.Uvarint(r.data[r.off:])
	if n <= 0 {
		return 0, errBinShort
	}
	r.off += n
	if v > uint64(len(r.data)-r.off)/uint64(min) {
		return 0, errBinShort
	}
	return int(v), nil
}

func (r *binReader) bytes() ([]byte, error) {
	l, err := r.count(1)
	if err != nil {
		return nil, err
	}
	b := r.data[r.off : r.off+l]
	r.off += l
	return b, nil
}

func (r *binReader) float() (float64, error) {
	if len(r.data)-r.off < 8 {
		return 0, errBinShort
	}
	f := math.Float64frombits(binary.LittleEndian.Uint64(r.data[r.off:]))
	r.off += 8
	return f, nil
}

func (r *binReader) list(depth int) ([]node, error) {
	l, err := r.count(1)
	if err != nil {
		return nil, err
	}
	ns := make([]node, l)
	for i := range ns {
		if ns[i], err = r.node(depth + 1); err != nil {
			return nil, err
		}
	}
	return ns, nil
}

func (r *binReader) node(depth int) (node, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxDepth)
	}
	tag, err := r.byte()
	if err != nil {
		return nil, err
	}
	switch tag {
	case binNull:
		return nil, nil
	case binUndef:
		return undefNode{}, nil
	case binFalse:
		return false, nil
	case binTrue:
		return true, nil
	case binInt:
		v, n := binary.Varint(r.data[r.off:])
		if n <= 0 || v > maxExact || v < -maxExact {
			return nil, errors.New("bad integer")
		}
		r.off += n
		return float64(v), nil
	case binFloat:
		f, err := r.float()
		if err != nil {
			return nil, err
		}
		if math.IsNaN(f) || math.IsInf(f, 0) || (f == 0 && math.Signbit(f)) {
			return numNode(f), nil
		}
		return f, nil
	case binString:
		b, err := r.bytes()
		return string(b), err
	case binBig:
		b, err := r.bytes()
		if err != nil {
			return nil, err
		}
		v, ok := new(big.Int).SetString(string(b), 10)
		if !ok {
			return nil, errors.New("bad BigInt")
		}
		return bigNode{v}, nil
	case binDate:
		f, err := r.float()
		return dateNode{ms: f, valid: true}, err
	case binBadDate:
		return dateNode{}, nil
	case binBytes:
		b, err := r.bytes()
		return bytesNode(append([]byte(nil), b...)), err
	case binArray:
		ns, err := r.list(depth)
		return arrNode(ns), err
	case binSet:
		ns, err := r.list(depth)
		return setNode(ns), err
	case binMap:
		l, err := r.count(2)
		if err != nil {
			return nil, err
		}
		m := mapNode{keys: make([]node, l), vals: make([]node, l)}
		for i := range l {
			if m.keys[i], err = r.node(depth + 1); err != nil {
				return nil, err
			}
			if m.vals[i], err = r.node(depth + 1); err != nil {
				return nil, err
			}
		}
		return m, nil
	case binKind:
		k, err := r.byte()
		if err != nil {
			return nil, err
		}
		if k > byte(types.Delete) {
			return nil, fmt.Errorf("bad row kind %d", k)
		}
		return kindNode(k), nil
	case binRow:
		k, err := r.byte()
		if err != nil {
			return nil, err
		}
		t, err := r.bytes()
		if err != nil {
			return nil, err
		}
		if k > byte(types.Delete) {
			return nil, fmt.Errorf("bad row kind %d", k)
		}
		n := rowNode{kind: types.RowKind(k)}
		if err := json.Unmarshal(t, &n.typ); err != nil {
			return nil, fmt.Errorf("bad row type: %w", err)
		}
		n.vals, err = r.list(depth)
		return n, err
	case binObject:
		l, err := r.count(2)
		if err != nil {
			return nil, err
		}
		o := objNode{keys: make([]string, l), vals: make([]node, l)}
		for i := range l {
			k, err := r.bytes()
			if err != nil {
				return nil, err
			}
			o.keys[i] = string(k)
			if o.vals[i], err = r.node(depth + 1); err != nil {
				return nil, err
			}
		}
		return o, nil
	}
	return nil, fmt.Errorf("unknown tag %d", tag)
}
