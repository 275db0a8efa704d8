package state

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ptfsh/ptfsh/internal/orderedcode"
)

// Stored values.
//
// From format version 2 on, the bbolt store keeps every value behind a
// 5-byte header:
//
//	byte 0     the value format, valueCRC32C (0x01)
//	bytes 1-4  CRC-32C (Castagnoli), big-endian, of
//	           uvarint(len(ns)) ns uvarint(len(key)) key format value
//	bytes 5-   the value
//
// The checksum covers the namespace and the key as well as the value, so a
// value that turns up under another key or in another namespace fails it
// just like a value whose bytes changed. CRC-32C finds every change of up to
// 32 consecutive bits, so every damaged byte, and any other damage with a
// chance of 1 in 2^32 of passing.
const valueCRC32C byte = 0x01

// valueHeaderSize is the bytes before a value: the format byte and the
// CRC-32C.
const valueHeaderSize = 5

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// crcByte continues the CRC-32C sum with the byte b, as crc32.Update would.
// Passing a small buffer to crc32.Update instead would allocate it: the
// buffer escapes through the function variable crc32 calls.
func crcByte(sum uint32, b byte) uint32 {
	sum = ^sum
	sum = castagnoli[byte(sum)^b] ^ (sum >> 8)
	return ^sum
}

// crcUvarint continues the CRC-32C sum with the uvarint encoding of n.
func crcUvarint(sum uint32, n int) uint32 {
	x := uint64(n)
	for x >= 0x80 {
		sum = crcByte(sum, byte(x)|0x80)
		x >>= 7
	}
	return crcByte(sum, byte(x))
}

// nsSum is the checksum of a namespace's part of the values' checksums; the
// bbolt store computes it once per namespace and transaction.
func nsSum(ns string) uint32 {
	return crc32.Update(crcUvarint(0, len(ns)), castagnoli, []byte(ns))
}

// valueSum is the checksum stored with value under key in the namespace
// whose nsSum is ns.
func valueSum(ns uint32, key []byte, value []byte) uint32 {
	sum := crc32.Update(crcUvarint(ns, len(key)), castagnoli, key)
	return crc32.Update(crcByte(sum, valueCRC32C), castagnoli, value)
}

// sealValue returns the stored form of value, in a new slice.
func sealValue(ns uint32, key, value []byte) []byte {
	return sealInto(make([]byte, valueHeaderSize+len(value)), ns, key, value)
}

// sealInto writes the stored form of value into b, of length
// valueHeaderSize+len(value), and returns b.
func sealInto(b []byte, ns uint32, key, value []byte) []byte {
	b[0] = valueCRC32C
	binary.BigEndian.PutUint32(b[1:], valueSum(ns, key, value))
	copy(b[valueHeaderSize:], value)
	return b
}

// openValue checks a stored value and returns the value it holds, which
// aliases stored. Its errors say what is wrong with the value; the caller
// adds the file, namespace and key.
func openValue(ns uint32, key, stored []byte) ([]byte, error) {
	if len(stored) < valueHeaderSize {
		return nil, fmt.Errorf("the stored value is %d bytes, shorter than its %d-byte header", len(stored), valueHeaderSize)
	}
	if stored[0] != valueCRC32C {
		return nil, fmt.Errorf("the stored value has an unknown format 0x%02x", stored[0])
	}
	value := stored[valueHeaderSize:]
	if binary.BigEndian.Uint32(stored[1:]) != valueSum(ns, key, value) {
		return nil, fmt.Errorf("the stored value fails its checksum")
	}
	return value, nil
}

// describeNamespace names a namespace for an error message, saying whose
// state it holds when it has the form runtime gives its namespaces:
// `state "counter" of function uid "count" (namespace "state/count/counter")`.
func describeNamespace(ns string) string {
	plain := fmt.Sprintf("namespace %q", ns)
	kind, rest, ok := strings.Cut(ns, "/")
	if !ok || rest == "" {
		return plain
	}
	if kind == "timers" {
		return fmt.Sprintf("the timers of function uid %q (namespace %q)", rest, ns)
	}
	// The name after the uid is a state or argument name, which has no "/";
	// the uid may have one.
	i := strings.LastIndexByte(rest, '/')
	if i <= 0 || i == len(rest)-1 {
		return plain
	}
	entry := rest[i+1:]
	if j := strings.IndexByte(entry, '~'); j >= 0 {
		entry = entry[:j] // a generation of the entry's table, or its list (runtime/exec/opstate)
	}
	uid, name := rest[:i], strconv.Quote(entry)
	var what string
	switch kind {
	case "state":
		what = "state " + name
	case "list":
		what = "list state " + name
	case "map":
		what = "map state " + name
	case "spill":
		what = "the spilled values of state " + name
	case "sortbuf":
		what = "the sort buffer of table argument " + name
	default:
		return plain
	}
	return fmt.Sprintf("%s of function uid %q (namespace %q)", what, uid, ns)
}

// maxKeyDescription bounds the length of a key in an error message.
const maxKeyDescription = 200

// describeKey prints a key for an error message: as a tuple of its values
// if it decodes (`("Bob", 42)`), else as a quoted string if it is printable
// text (`"schema/greet"`), else in hex (`0x00ff`).
func describeKey(key []byte) string {
	var sb strings.Builder
	d := orderedcode.NewDecoder(key)
	sb.WriteByte('(')
	for n := 0; !d.Done(); n++ {
		if n > 0 {
			sb.WriteString(", ")
		}
		var err error
		switch k := d.Peek(); k {
		case orderedcode.KindNull:
			d.Null()
			sb.WriteString("NULL")
		case orderedcode.KindBool:
			var v bool
			v, err = d.Bool()
			sb.WriteString(strconv.FormatBool(v))
		case orderedcode.KindInt64:
			var v int64
			v, err = d.Int64()
			sb.WriteString(strconv.FormatInt(v, 10))
		case orderedcode.KindUint64:
			var v uint64
			v, err = d.Uint64()
			sb.WriteString(strconv.FormatUint(v, 10))
		case orderedcode.KindFloat64:
			var v float64
			v, err = d.Float64()
			sb.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		case orderedcode.KindString:
			var v string
			v, err = d.String()
			sb.WriteString(strconv.Quote(v))
		case orderedcode.KindBytes:
			var v []byte
			v, err = d.Bytes()
			sb.WriteString("0x" + hex.EncodeToString(v))
		default:
			err = fmt.Errorf("not an encoded key")
		}
		if err != nil {
			return rawKey(key)
		}
		if sb.Len() > maxKeyDescription {
			return shorten(sb.String())
		}
	}
	if len(key) == 0 {
		return "(empty key)"
	}
	sb.WriteByte(')')
	return sb.String()
}

func rawKey(key []byte) string {
	if utf8.Valid(key) && !strings.ContainsFunc(string(key), func(r rune) bool { return !unicode.IsPrint(r) }) {
		return shorten(strconv.Quote(string(key)))
	}
	return shorten("0x" + hex.EncodeToString(key))
}

func shorten(s string) string {
	if len(s) > maxKeyDescription {
		return strings.ToValidUTF8(s[:maxKeyDescription], "") + "…"
	}
	return s
}
