package orderedcode

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
)

// Order-preserving key encoding.
//
// A key is a tuple of elements, each appended by one of the Append functions
// and read back, in the same order, by a Decoder. The encoding keeps order:
// for two tuples of the same shape (the same kinds in the same positions),
// bytes.Compare of their encodings agrees with comparing them element by
// element in their natural order. It also keeps prefixes: the encoding of a
// tuple's first n elements is a byte prefix of the encoding of the whole
// tuple, so a Scan with the encoded (uid, name) visits every (uid, name, key).
//
// Each element is one tag byte followed by its payload:
//
//	tag   kind     payload
//	0x00  null     none
//	0x02  false    none
//	0x03  true     none
//	0x10  int64    8 bytes, big-endian, sign bit flipped: MinInt64 → 00…00, -1 → 7F…FF, 0 → 80…00
//	0x11  uint64   8 bytes, big-endian
//	0x12  float64  8 bytes, big-endian IEEE 754 bits; negative numbers have all bits
//	               flipped, others only the sign bit: -Inf < -1 < -0 < +0 < 1 < +Inf < NaN
//	0x20  bytes    the bytes with each 0x00 written as 0x00 0xFF, then 0x00 0x01
//	0x21  string   as bytes
//
// Null has the smallest tag, so a null sorts before every value in the same
// position; false sorts before true. Elements of different kinds in the same
// position sort by tag, an order with no meaning beyond being fixed.
//
// The escape makes byte strings prefix-free: inside a string a 0x00 is always
// followed by 0xFF, and the terminator 0x00 0x01 sorts below it and below any
// other byte, so "ab" < "ab\x00" < "ab\x01" < "abc" and a shorter string
// sorts before its extensions, whatever follows it in the tuple.
//
// Floats: every NaN is written as the one NaN math.NaN returns, so all NaNs
// are one key (as Java's Double.equals treats them); -0 and +0 stay distinct
// keys. Narrower integers (int8 to int32, Flink's TINYINT to INT) are written
// as int64 and keep their order.
const (
	tagNull    byte = 0x00
	tagFalse   byte = 0x02
	tagTrue    byte = 0x03
	tagInt64   byte = 0x10
	tagUint64  byte = 0x11
	tagFloat64 byte = 0x12
	tagBytes   byte = 0x20
	tagString  byte = 0x21
)

// Bytes of the escape in byte strings.
const (
	escByte  byte = 0x00 // starts an escape
	escZero  byte = 0xFF // after escByte: a literal 0x00
	escFinal byte = 0x01 // after escByte: the end of the string
)

// AppendNull appends a null to dst and returns the extended slice. Null sorts
// before every other value.
func AppendNull(dst []byte) []byte { return append(dst, tagNull) }

// AppendBool appends v to dst and returns the extended slice. false sorts
// before true.
func AppendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, tagTrue)
	}
	return append(dst, tagFalse)
}

// AppendInt64 appends v to dst and returns the extended slice.
func AppendInt64(dst []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(append(dst, tagInt64), uint64(v)^(1<<63))
}

// AppendUint64 appends v to dst and returns the extended slice.
func AppendUint64(dst []byte, v uint64) []byte {
	return binary.BigEndian.AppendUint64(append(dst, tagUint64), v)
}

// AppendFloat64 appends v to dst and returns the extended slice. All NaNs are
// written as one value, which sorts after +Inf.
func AppendFloat64(dst []byte, v float64) []byte {
	if math.IsNaN(v) {
		v = math.NaN()
	}
	bits := math.Float64bits(v)
	if bits&(1<<63) != 0 {
		bits = ^bits
	} else {
		bits |= 1 << 63
	}
	return binary.BigEndian.AppendUint64(append(dst, tagFloat64), bits)
}

// AppendBytes appends v to dst and returns the extended slice.
func AppendBytes(dst, v []byte) []byte {
	return appendEscaped(append(dst, tagBytes), v)
}

// AppendString appends v to dst and returns the extended slice.
func AppendString(dst []byte, v string) []byte {
	return appendEscaped(append(dst, tagString), v)
}

func appendEscaped[S ~string | ~[]byte](dst []byte, v S) []byte {
	for {
		i := bytes.IndexByte([]byte(v), escByte)
		if i < 0 {
			break
		}
		dst = append(dst, v[:i]...)
		dst = append(dst, escByte, escZero)
		v = v[i+1:]
	}
	dst = append(dst, v...)
	return append(dst, escByte, escFinal)
}

// Kind is the kind of an encoded element.
type Kind uint8

// The kinds of elements, as Decoder.Peek reports them.
const (
	KindInvalid Kind = iota // the end of the input, or a byte that starts no element
	KindNull
	KindBool
	KindInt64
	KindUint64
	KindFloat64
	KindBytes
	KindString
)

var kindNames = [...]string{"invalid", "null", "bool", "int64", "uint64", "float64", "bytes", "string"}

// String returns the kind's name, such as "int64".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

func kindOf(tag byte) Kind {
	switch tag {
	case tagNull:
		return KindNull
	case tagFalse, tagTrue:
		return KindBool
	case tagInt64:
		return KindInt64
	case tagUint64:
		return KindUint64
	case tagFloat64:
		return KindFloat64
	case tagBytes:
		return KindBytes
	case tagString:
		return KindString
	}
	return KindInvalid
}

// A Decoder reads the elements of an encoded key in order. Each method reads
// one element of the kind it names and moves past it; on malformed input or
// an element of another kind it returns an error and does not move, so the
// caller can Peek and try again. A Decoder never changes its input, and the
// values it returns do not alias it, except for Rest.
//
// The zero Decoder has no input; use NewDecoder or Reset.
type Decoder struct {
	buf []byte
	off int
}

// NewDecoder returns a Decoder reading b.
func NewDecoder(b []byte) *Decoder { return &Decoder{buf: b} }

// Reset makes d read b from the start.
func (d *Decoder) Reset(b []byte) { *d = Decoder{buf: b} }

// Done reports whether every byte of the input has been read.
func (d *Decoder) Done() bool { return d.off >= len(d.buf) }

// Rest returns the bytes not read yet. It aliases the input.
func (d *Decoder) Rest() []byte { return d.buf[d.off:] }

// Peek returns the kind of the next element without reading it. It returns
// KindInvalid at the end of the input or before a byte that is not a tag.
// It does not check the element's payload.
func (d *Decoder) Peek() Kind {
	if d.Done() {
		return KindInvalid
	}
	return kindOf(d.buf[d.off])
}

// errorf returns a decoding error at the current offset.
func (d *Decoder) errorf(format string, args ...any) error {
	return fmt.Errorf("state: decode key at offset %d: %s", d.off, fmt.Sprintf(format, args...))
}

// expect checks that the next element has the given kind.
func (d *Decoder) expect(want Kind) error {
	if d.Done() {
		return d.errorf("want %s, found end of key", want)
	}
	if got := d.Peek(); got != want {
		if got == KindInvalid {
			return d.errorf("want %s, found invalid tag 0x%02x", want, d.buf[d.off])
		}
		return d.errorf("want %s, found %s", want, got)
	}
	return nil
}

// Null reads a null if one comes next and reports whether it did. For a
// nullable element: if !d.Null() { v, err := d.Int64() … }.
func (d *Decoder) Null() bool {
	if d.Peek() != KindNull {
		return false
	}
	d.off++
	return true
}

// Bool reads a bool.
func (d *Decoder) Bool() (bool, error) {
	if err := d.expect(KindBool); err != nil {
		return false, err
	}
	v := d.buf[d.off] == tagTrue
	d.off++
	return v, nil
}

// fixed8 reads the 8-byte payload of an element of kind k.
func (d *Decoder) fixed8(k Kind) (uint64, error) {
	if err := d.expect(k); err != nil {
		return 0, err
	}
	if len(d.buf)-d.off < 9 {
		return 0, d.errorf("truncated %s: %d of 8 bytes", k, len(d.buf)-d.off-1)
	}
	v := binary.BigEndian.Uint64(d.buf[d.off+1:])
	d.off += 9
	return v, nil
}

// Int64 reads an int64.
func (d *Decoder) Int64() (int64, error) {
	u, err := d.fixed8(KindInt64)
	return int64(u ^ (1 << 63)), err
}

// Uint64 reads a uint64.
func (d *Decoder) Uint64() (uint64, error) {
	return d.fixed8(KindUint64)
}

// Float64 reads a float64.
func (d *Decoder) Float64() (float64, error) {
	bits, err := d.fixed8(KindFloat64)
	if err != nil {
		return 0, err
	}
	if bits&(1<<63) != 0 {
		bits &^= 1 << 63
	} else {
		bits = ^bits
	}
	return math.Float64frombits(bits), nil
}

// escaped reads the payload of a byte string of kind k and returns it
// unescaped in a new slice, never nil.
func (d *Decoder) escaped(k Kind) ([]byte, error) {
	if err := d.expect(k); err != nil {
		return nil, err
	}
	rest := d.buf[d.off+1:]
	var out []byte
	for n := 0; ; {
		i := bytes.IndexByte(rest[n:], escByte)
		if i < 0 || n+i+1 == len(rest) {
			return nil, d.errorf("unterminated %s", k)
		}
		i += n
		switch rest[i+1] {
		case escFinal:
			if out == nil {
				// No escapes: one copy of the whole payload.
				out = append(make([]byte, 0, i), rest[:i]...)
			} else {
				out = append(out, rest[n:i]...)
			}
			d.off += 1 + i + 2
			return out, nil
		case escZero:
			if out == nil {
				out = make([]byte, 0, len(rest))
			}
			out = append(out, rest[n:i]...)
			out = append(out, 0x00)
			n = i + 2
		default:
			return nil, d.errorf("invalid escape 0x00 0x%02x in %s at offset %d", rest[i+1], k, d.off+1+i)
		}
	}
}

// Bytes reads a byte string. The caller owns the returned slice.
func (d *Decoder) Bytes() ([]byte, error) {
	return d.escaped(KindBytes)
}

// String reads a string.
func (d *Decoder) String() (string, error) {
	b, err := d.escaped(KindString)
	return string(b), err
}

// Skip reads the next element, of any kind, and discards it.
func (d *Decoder) Skip() error {
	var err error
	switch k := d.Peek(); k {
	case KindNull:
		d.Null()
	case KindBool:
		_, err = d.Bool()
	case KindInt64, KindUint64, KindFloat64:
		_, err = d.fixed8(k)
	case KindBytes, KindString:
		_, err = d.escaped(k)
	default:
		if d.Done() {
			return d.errorf("want an element, found end of key")
		}
		return d.errorf("invalid tag 0x%02x", d.buf[d.off])
	}
	return err
}
