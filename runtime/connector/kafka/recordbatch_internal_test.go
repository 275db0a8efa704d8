package kafka

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kgo"
)

// testBatch is a record batch made by the writer's code: base offset
// base, records of the given values (nil: null), keys "k<i>", times
// 1000+i, and the i-th record's headers when hdr says so.
func testBatch(base int64, values []string, hdr bool) []byte {
	bt := &batch{buf: make([]byte, batchHeader)}
	for i, v := range values {
		var val []byte
		if v != "<null>" {
			val = []byte(v)
		}
		var hs []Header
		if hdr {
			hs = []Header{{Key: "h", Value: []byte(fmt.Sprint(i))}, {Key: "n"}}
		}
		bt.add([]byte(fmt.Sprintf("k%d", i)), val, 1000+int64(i), hs)
	}
	bt.finish()
	binary.BigEndian.PutUint64(bt.buf, uint64(base))
	return bt.buf
}

// withAttrs sets a batch's attributes and, when recs is not nil, its
// records' bytes, then its length and CRC.
func withAttrs(b []byte, attrs uint16, recs []byte) []byte {
	if recs != nil {
		b = append(b[:batchHeader:batchHeader], recs...)
	}
	binary.BigEndian.PutUint32(b[8:], uint32(len(b)-12))
	binary.BigEndian.PutUint16(b[21:], attrs)
	binary.BigEndian.PutUint32(b[17:], crc32.Checksum(b[21:], castagnoli))
	return b
}

type parsedRec struct {
	Off, TS    int64
	Key, Value string
	NullValue  bool
	Headers    string
	Control    bool
}

func parsedOf(rs []fetchedRecord) []parsedRec {
	var out []parsedRec
	for _, r := range rs {
		var hs []string
		for _, h := range r.headers {
			hs = append(hs, fmt.Sprintf("%s=%q/%v", h.Key, h.Value, h.Value == nil))
		}
		out = append(out, parsedRec{r.offset, r.ts, string(r.key), string(r.value), r.value == nil, strings.Join(hs, ","), r.control})
	}
	return out
}

func TestBatchParser_parse(t *testing.T) {
	tp := TP{"t", 2}
	two := testBatch(10, []string{"a", "<null>"}, false)
	three := testBatch(12, []string{"x", "", "z"}, true)
	var snappy []byte
	{
		raw := testBatch(20, []string{"c1", "c2"}, false)
		comp, _ := kgo.DefaultCompressor(kgo.SnappyCompression())
		if comp == nil {
			t.Fatal("no snappy compressor")
		}
		z, _ := comp.Compress(new(bytes.Buffer), raw[batchHeader:])
		snappy = withAttrs(raw, 2, z)
	}
	logAppend := withAttrs(testBatch(30, []string{"l"}, false), 0x08, nil)
	control := withAttrs(testBatch(40, []string{"m"}, false), 0x30, nil)
	badCRC := append([]byte(nil), two...)
	badCRC[len(badCRC)-1] ^= 1
	magic1 := append([]byte(nil), two...)
	magic1[16] = 1
	cat := func(bs ...[]byte) []byte {
		var out []byte
		for _, b := range bs {
			out = append(out, b...)
		}
		return out
	}
	// Batches of two records at 70 whose records' offset deltas do not
	// fit: the second record alone as the batch's only one (delta 1, last
	// delta 0), and the two records the other way round.
	var pastLast, outOfOrder []byte
	{
		b := testBatch(70, []string{"a", "b"}, false)
		recs := b[batchHeader:]
		size, k := varint(recs)
		first, second := recs[:k+int(size)], recs[k+int(size):]
		pastLast = append([]byte(nil), b[:batchHeader]...)
		binary.BigEndian.PutUint32(pastLast[23:], 0)
		binary.BigEndian.PutUint32(pastLast[57:], 1)
		pastLast = withAttrs(pastLast, 0, second)
		outOfOrder = withAttrs(append([]byte(nil), b...), 0, cat(second, first))
	}
	for _, c := range []struct {
		name string
		data []byte
		from int64
		want []parsedRec
		next int64
		err  string
	}{
		{name: "empty", from: 7, next: 7},
		{name: "two batches", data: cat(two, three), from: 10, next: 15, want: []parsedRec{
			{Off: 10, TS: 1000, Key: "k0", Value: "a"},
			{Off: 11, TS: 1001, Key: "k1", NullValue: true},
			{Off: 12, TS: 1000, Key: "k0", Value: "x", Headers: `h="0"/false,n=""/true`},
			{Off: 13, TS: 1001, Key: "k1", Value: "", Headers: `h="1"/false,n=""/true`},
			{Off: 14, TS: 1002, Key: "k2", Value: "z", Headers: `h="2"/false,n=""/true`},
		}},
		{name: "from within a batch", data: cat(two, three), from: 13, next: 15, want: []parsedRec{
			{Off: 13, TS: 1001, Key: "k1", Value: "", Headers: `h="1"/false,n=""/true`},
			{Off: 14, TS: 1002, Key: "k2", Value: "z", Headers: `h="2"/false,n=""/true`},
		}},
		{name: "a batch cut short is left", data: cat(two, three[:len(three)-3]), from: 10, next: 12, want: []parsedRec{
			{Off: 10, TS: 1000, Key: "k0", Value: "a"},
			{Off: 11, TS: 1001, Key: "k1", NullValue: true},
		}},
		{name: "header cut short is left", data: cat(two, three[:9]), from: 10, next: 12, want: []parsedRec{
			{Off: 10, TS: 1000, Key: "k0", Value: "a"},
			{Off: 11, TS: 1001, Key: "k1", NullValue: true},
		}},
		{name: "snappy", data: snappy, from: 0, next: 22, want: []parsedRec{
			{Off: 20, TS: 1000, Key: "k0", Value: "c1"},
			{Off: 21, TS: 1001, Key: "k1", Value: "c2"},
		}},
		{name: "log append time", data: logAppend, from: 30, next: 31, want: []parsedRec{{Off: 30, TS: 1000, Key: "k0", Value: "l"}}},
		{name: "control", data: control, from: 40, next: 41, want: []parsedRec{{Off: 40, TS: 1000, Key: "k0", Value: "m", Control: true}}},
		{name: "bad crc", data: badCRC, from: 10, next: 10, err: "reading partition t/2 at offset 10: the record batch's CRC does not match its bytes"},
		{name: "magic 1", data: magic1, from: 10, next: 10, err: "reading partition t/2 at offset 10: a record batch of an older format than magic 2 (magic 1)"},
		{name: "bad record", data: withAttrs(testBatch(50, []string{"a"}, false), 0, []byte{0x7f, 0}), from: 50, next: 50,
			err: "reading partition t/2 at offset 50: record 0 of a batch of 1 is cut short"},
		{name: "offset delta past the last", data: pastLast, from: 70, next: 70,
			err: "reading partition t/2 at offset 70: record 0 of a batch of 1 has offset delta 1: out of order, or past the batch's last (0)"},
		{name: "offset deltas out of order", data: cat(two, outOfOrder), from: 10, next: 12,
			err:  "reading partition t/2 at offset 71: record 1 of a batch of 2 has offset delta 0: out of order, or past the batch's last (1)",
			want: []parsedRec{{Off: 10, TS: 1000, Key: "k0", Value: "a"}, {Off: 11, TS: 1001, Key: "k1", NullValue: true}}},
		{name: "bad codec", data: withAttrs(testBatch(60, []string{"a"}, false), 7, nil), from: 60, next: 60,
			err: "reading partition t/2 at offset 60: decompressing a record batch (codec 7)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := &batchParser{decompressor: kgo.DefaultDecompressor()}
			got, next, err := p.parse(tp, c.data, c.from, nil)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if next != c.next {
				t.Errorf("next %d, want %d", next, c.next)
			}
			if d := cmp.Diff(c.want, parsedOf(got)); d != "" {
				t.Errorf("records (-want +got):\n%s", d)
			}
		})
	}
}

// FuzzBatchParser: bad bytes never panic; an error names the
// partition and an offset; the records come in offset order from the
// fetch's offset, each before the offset the batches were read up to.
func FuzzBatchParser(f *testing.F) {
	f.Add(testBatch(0, []string{"a", "<null>"}, true), int64(0))
	f.Add(append(testBatch(5, []string{"x"}, false), testBatch(6, []string{"y", "z"}, true)...), int64(6))
	f.Add(withAttrs(testBatch(0, []string{"a"}, false), 0x30, nil), int64(0))
	f.Fuzz(func(t *testing.T, data []byte, from int64) {
		// Fuzzed bytes rarely match a CRC: set it so that the parser's
		// reading of records is reached.
		if len(data) >= batchHeader && data[16] == 2 {
			end := min(int64(len(data)), 12+int64(int32(binary.BigEndian.Uint32(data[8:]))))
			if end >= 21 {
				binary.BigEndian.PutUint32(data[17:], crc32.Checksum(data[21:end], castagnoli))
			}
		}
		p := &batchParser{decompressor: kgo.DefaultDecompressor()}
		recs, next, err := p.parse(TP{"f", 1}, data, from, nil)
		checkParsed(t, recs, from, next, err)
	})
}

// TestVarint: the short forms read as binary.Varint reads them.
func TestVarint(t *testing.T) {
	for _, x := range []int64{0, 1, -1, 63, -64, 64, -65, 8191, -8192, 8192, -8193, 1 << 40, -1 << 62} {
		b := binary.AppendVarint(nil, x)
		for _, in := range [][]byte{b, append(b, 0x80, 0x01)} {
			got, k := varint(in)
			want, wk := binary.Varint(in)
			if got != want || k != wk || got != x {
				t.Errorf("varint(% x) = %d, %d; want %d, %d", in, got, k, want, wk)
			}
		}
	}
	for _, in := range [][]byte{nil, {0x80}, {0xff, 0xff}} {
		if _, k := varint(in); k > 0 {
			t.Errorf("varint(% x) read %d bytes", in, k)
		}
	}
}

// BenchmarkBatchParser: a batch of 1000 records of a JSON click each.
func BenchmarkBatchParser(b *testing.B) {
	vals := make([]string, 1000)
	for i := range vals {
		vals[i] = fmt.Sprintf(`{"user_id":"user%d","url":"https://example.com/p/%d","view_time":%d,"ts":"2026-12-07 08:00:00.%03d"}`, i%97, i, i%500, i%1000)
	}
	data := testBatch(0, vals, false)
	p := &batchParser{decompressor: kgo.DefaultDecompressor()}
	var out []fetchedRecord
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if out, _, err = p.parse(TP{"t", 0}, data, 0, out[:0]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(vals)), "ns/record")
}

// checkParsed checks what a parse of partition f/1 from offset from gave,
// whatever its input: an error names its place, the position read up to
// is not before from, and the records' offsets increase within [from,
// upTo).
func checkParsed(t *testing.T, recs []fetchedRecord, from, upTo int64, err error) {
	t.Helper()
	if err != nil && !strings.HasPrefix(err.Error(), "reading partition f/1 at offset ") {
		t.Fatalf("error without its place: %v", err)
	}
	if upTo < from {
		t.Fatalf("read up to %d, before the fetch's offset %d", upTo, from)
	}
	last := from - 1
	for _, r := range recs {
		if r.offset <= last || r.offset >= upTo {
			t.Fatalf("record at %d after %d, read up to %d (from %d)", r.offset, last, upTo, from)
		}
		last = r.offset
	}
}
