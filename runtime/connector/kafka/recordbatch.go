package kafka

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/twmb/franz-go/pkg/kgo"
)

// fetchedRecord is a record as a fetch parses it, before it is handed
// out: its key, value and headers are slices of the fetched bytes (or of
// a decompressed batch). control marks a transaction marker, which only
// moves the partition's position.
type fetchedRecord struct {
	offset, ts int64
	key, value []byte
	headers    []Header
	control    bool
}

// batchParser parses the record batches (magic 2) of one partition's
// fetch answer. A parser is used by one goroutine at a time; its
// decompressor is the client library's.
type batchParser struct {
	decompressor kgo.Decompressor
}

// errOldFormat is a record batch of a format before Kafka 0.11's (magic
// 0 or 1), which the client library's parser reads.
var errOldFormat = errors.New("a record batch of an older format than magic 2")

// parseError is a record batch that cannot be read: where and why.
func parseError(tp TP, offset int64, format string, args ...any) error {
	return fmt.Errorf("reading partition %s at offset %d: %s", tp, offset, fmt.Sprintf(format, args...))
}

// parse appends to out the records of data at or after offset from, in
// offset order, and returns them with the offset after the last batch
// read whole (from when none was); on an error, the records of the
// batches before the bad one. A batch cut short at the end of data
// (the fetch's size limit) is left for the next fetch. Control batches
// give control records; a batch's records before from (a fetch may start
// within a batch) are skipped.
func (p *batchParser) parse(tp TP, data []byte, from int64, out []fetchedRecord) ([]fetchedRecord, int64, error) {
	next := from
	be := binary.BigEndian
	for len(data) > 0 {
		if len(data) < 17 {
			break // a batch cut short
		}
		base := int64(be.Uint64(data))
		length := int32(be.Uint32(data[8:]))
		if magic := data[16]; magic != 2 {
			return out, next, fmt.Errorf("reading partition %s at offset %d: %w (magic %d)", tp, base, errOldFormat, magic)
		}
		if length < batchHeader-12 {
			return out, next, parseError(tp, base, "a record batch of %d bytes is shorter than its header", length)
		}
		if int64(len(data)) < 12+int64(length) {
			break
		}
		b := data[:12+length]
		data = data[12+length:]
		if crc32.Checksum(b[21:], castagnoli) != be.Uint32(b[17:]) {
			return out, next, parseError(tp, base, "the record batch's CRC does not match its bytes")
		}
		attrs := be.Uint16(b[21:])
		lastDelta := int32(be.Uint32(b[23:]))
		baseTS := int64(be.Uint64(b[27:]))
		maxTS := int64(be.Uint64(b[35:]))
		n := int32(be.Uint32(b[57:]))
		end := base + int64(lastDelta) + 1
		if lastDelta < 0 || n < 0 || n > lastDelta+1 {
			return out, next, parseError(tp, base, "a record batch of %d records has a last offset delta of %d", n, lastDelta)
		}
		if end <= next {
			continue // before the fetch's start
		}
		recs := b[batchHeader:]
		if codec := attrs & 7; codec != 0 {
			var err error
			if recs, err = p.decompressor.Decompress(recs, kgo.CompressionCodecType(codec)); err != nil {
				return out, next, parseError(tp, base, "decompressing a record batch (codec %d): %v", codec, err)
			}
		}
		control := attrs&0x20 != 0
		logAppend := attrs&0x08 != 0
		var err error
		start := len(out)
		if out, err = parseRecords(tp, recs, base, n, lastDelta, baseTS, maxTS, logAppend, control, next, out); err != nil {
			return out[:start], next, err // none of a batch not read whole
		}
		next = end
	}
	return out, next, nil
}

// parseRecords appends the n records of one batch, those at or after
// from. Their offset deltas go up, to lastDelta at most (a compaction
// leaves gaps).
func parseRecords(tp TP, recs []byte, base int64, n, lastDelta int32, baseTS, maxTS int64, logAppend, control bool, from int64, out []fetchedRecord) ([]fetchedRecord, error) {
	prev := int64(-1) // the offset delta of the record before
	for i := int32(0); i < n; i++ {
		at := base + int64(i)
		size, k := varint(recs)
		if k <= 0 || size < 0 || int64(len(recs)-k) < size {
			return out, parseError(tp, at, "record %d of a batch of %d is cut short", i, n)
		}
		r := recs[k : k+int(size)]
		recs = recs[k+int(size):]
		rd := recordReader{b: r}
		rd.b = rd.b[min(1, len(rd.b)):] // attributes: unused
		tsDelta := rd.varint()
		offDelta := rd.varint()
		key := rd.bytes()
		value := rd.bytes()
		nh := rd.varint()
		var headers []Header
		if nh > 0 && !rd.bad {
			if nh > int64(len(rd.b)) {
				rd.bad = true
			} else {
				headers = make([]Header, nh)
				for j := range headers {
					hk := rd.bytes()
					headers[j] = Header{Key: string(hk), Value: rd.bytes()}
				}
			}
		}
		if rd.bad || nh < 0 || len(rd.b) != 0 {
			return out, parseError(tp, at, "record %d of a batch of %d is malformed", i, n)
		}
		if offDelta <= prev || offDelta > int64(lastDelta) {
			return out, parseError(tp, at, "record %d of a batch of %d has offset delta %d: out of order, or past the batch's last (%d)", i, n, offDelta, lastDelta)
		}
		prev = offDelta
		off := base + offDelta
		if off < from {
			continue
		}
		ts := baseTS + tsDelta
		if logAppend {
			ts = maxTS
		}
		out = append(out, fetchedRecord{offset: off, ts: ts, key: key, value: value, headers: headers, control: control})
	}
	return out, nil
}

// varint reads a zigzag varint as binary.Varint does, the one-byte and
// two-byte forms (most lengths and deltas of a record) without a call.
func varint(b []byte) (int64, int) {
	if len(b) > 0 && b[0] < 0x80 {
		u := uint64(b[0])
		return int64(u>>1) ^ -int64(u&1), 1
	}
	if len(b) > 1 && b[1] < 0x80 {
		u := uint64(b[0]&0x7f) | uint64(b[1])<<7
		return int64(u>>1) ^ -int64(u&1), 2
	}
	return binary.Varint(b)
}

// recordReader reads the fields of one record; bad is set when one is
// cut short.
type recordReader struct {
	b   []byte
	bad bool
}

func (r *recordReader) varint() int64 {
	x, k := varint(r.b)
	if k <= 0 {
		r.bad = true
		r.b = nil
		return 0
	}
	r.b = r.b[k:]
	return x
}

// bytes reads a length (-1: null) and that many bytes.
func (r *recordReader) bytes() []byte {
	l := r.varint()
	switch {
	case r.bad:
		return nil
	case l == -1:
		return nil
	case l < 0:
		r.bad = true
		return nil
	case l > int64(len(r.b)):
		r.bad = true
		r.b = nil
		return nil
	}
	v := r.b[:l:l]
	r.b = r.b[l:]
	return v
}
