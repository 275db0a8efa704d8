package kafka

import (
	"encoding/binary"
	"hash/crc32"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// fixCRCs sets the CRC of each batch or message in data that has a
// length within data, so that fuzzed bytes reach the reading of records.
func fixCRCs(data []byte) {
	for len(data) >= 17 {
		end := 12 + int64(int32(binary.BigEndian.Uint32(data[8:])))
		if end < 21 || end > int64(len(data)) {
			return
		}
		switch data[16] {
		case 2:
			binary.BigEndian.PutUint32(data[17:], crc32.Checksum(data[21:end], castagnoli))
		case 0, 1:
			binary.BigEndian.PutUint32(data[12:], crc32.ChecksumIEEE(data[16:end]))
		}
		data = data[end:]
	}
}

// FuzzFetchParse: the fetcher's reading of a partition's answer, of every
// record or of committed ones (aborted transactions from the answer),
// in any format, never panics; an error names the partition and an
// offset; the records come in offset order from the fetch's offset, each
// before the offset the answer was read up to, which is not before the
// fetch's offset.
func FuzzFetchParse(f *testing.F) {
	txn := withAttrs(testBatch(3, []string{"t0", "t1"}, false), 0x10, nil)
	binary.BigEndian.PutUint64(txn[43:], 7) // the producer id
	f.Add(testBatch(0, []string{"a", "<null>"}, true), int64(0), false, int64(-1), int64(0))
	f.Add(append(testBatch(5, []string{"x"}, false), testBatch(6, []string{"y", "z"}, true)...), int64(6), true, int64(-1), int64(0))
	f.Add(append(txn, withAttrs(testBatch(5, []string{"m"}, false), 0x30, nil)...), int64(3), true, int64(7), int64(3))
	f.Add(compactedBatch(0, []string{"a", "b"}, 4), int64(1), true, int64(-1), int64(0))
	f.Add(oldMessages(0, "old0", "old1"), int64(0), false, int64(-1), int64(0))
	f.Add(oldMessages(4, "o"), int64(4), true, int64(-1), int64(0))
	f.Fuzz(func(t *testing.T, data []byte, from int64, committed bool, producer, first int64) {
		fixCRCs(data)
		fe := &fetcher{c: &Client{cfg: Config{ReadCommitted: committed}}, parser: batchParser{decompressor: kgo.DefaultDecompressor()}}
		p := &fetchPart{tp: TP{"f", 1}, next: from, end: -1}
		rp := kmsg.NewFetchResponseTopicPartition()
		rp.Partition, rp.RecordBatches = 1, data
		if producer >= 0 {
			at := kmsg.NewFetchResponseTopicPartitionAbortedTransaction()
			at.ProducerID, at.FirstOffset = producer, first
			rp.AbortedTransactions = append(rp.AbortedTransactions, at)
		}
		recs, upTo, err := fe.parse(p, &rp, nil)
		checkParsed(t, recs, from, upTo, err)
	})
}
