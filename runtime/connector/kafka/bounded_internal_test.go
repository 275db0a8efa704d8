package kafka

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// produceTxn writes plain records "a0".."a<plain-1>" to partition 0 of
// "t", then a transaction of two records "x0", "x1" that ends with its
// commit or abort marker.
func produceTxn(t *testing.T, servers []string, plain int, commit bool) {
	t.Helper()
	ctx := context.Background()
	cl, err := kgo.NewClient(kgo.SeedBrokers(servers...), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.TransactionalID("tx"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	rec := func(v string, i int) *kgo.Record {
		return &kgo.Record{Topic: "t", Value: []byte(v), Timestamp: time.UnixMilli(int64(1000 + i))}
	}
	plainCl, err := kgo.NewClient(kgo.SeedBrokers(servers...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer plainCl.Close()
	for i := range plain {
		if err := plainCl.ProduceSync(ctx, rec(fmt.Sprintf("a%d", i), i)).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, rec("x0", plain), rec("x1", plain+1)).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if err := cl.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
		t.Fatal(err)
	}
}

// compactedBatch is a record batch at base of the given values whose
// last offset delta is last: the records after the values were removed
// by compaction, and the batch keeps its last offset.
func compactedBatch(base int64, values []string, last int32) []byte {
	b := testBatch(base, values, false)
	binary.BigEndian.PutUint32(b[23:], uint32(last))
	return withAttrs(b, binary.BigEndian.Uint16(b[21:]), nil)
}

// readValues reads "t" from its first offsets to ends
// (at most 20 s) and returns the values read, in order, and the
// positions.
func readValues(t *testing.T, c *Client, ends map[TP]int64) ([]string, map[TP]int64) {
	t.Helper()
	ctx := context.Background()
	tps, err := c.Partitions(ctx, []string{"t"})
	if err != nil {
		t.Fatal(err)
	}
	starts, err := c.Offsets(ctx, tps, Earliest)
	if err != nil {
		t.Fatal(err)
	}
	return readBoundedAs(t, c, starts, ends, func(r Record) string { return string(r.Value) })
}

// TestReader_bounded_endsPastRecords: a bounded read ends at its end
// offsets when no record is there, whether it reads committed records
// or every record: after a transaction's commit marker, after an aborted
// transaction, and in the gap a compaction left at the end of a batch.
func TestReader_bounded_endsPastRecords(t *testing.T) {
	p0 := TP{"t", 0}
	for _, committed := range []bool{false, true} {
		dial := func(t *testing.T, servers []string) *Client {
			c, err := Dial(context.Background(), Config{Servers: servers, ReadCommitted: committed})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			return c
		}
		latest := func(t *testing.T, c *Client) map[TP]int64 {
			tps, _ := c.Partitions(context.Background(), []string{"t"})
			l, err := c.Offsets(context.Background(), tps, Latest)
			if err != nil {
				t.Fatal(err)
			}
			return l
		}
		name := map[bool]string{false: "read_uncommitted", true: "read_committed"}[committed]
		for _, commit := range []bool{true, false} {
			marker := map[bool]string{true: "commit", false: "abort"}[commit]
			t.Run(name+"/"+marker+" marker at the end", func(t *testing.T) {
				kc, _ := fakeCluster(t, 1)
				produceTxn(t, kc.ListenAddrs(), 3, commit)
				c := dial(t, kc.ListenAddrs())
				ends := latest(t, c)
				got, pos := readValues(t, c, ends)
				want := []string{"a0", "a1", "a2", "x0", "x1"}
				if committed && !commit {
					want = want[:3]
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("values (-want +got):\n%s", d)
				}
				if pos[p0] != 6 || ends[p0] != 6 {
					t.Errorf("position %d, end %d; want 6 (after the %s marker)", pos[p0], ends[p0], marker)
				}
			})
		}
		for _, tc := range []struct {
			name string
			end  int64
			last int32
		}{
			{"compaction gap at the end", 5, 4},
			{"end in a compaction gap", 4, 4},
			{"batches removed at the end", 5, 2},
		} {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				// Offsets 0 to 4 of partition 0, of which compaction
				// kept 0 to 2 in a batch that ends at last; the
				// batches after it, if any, were removed.
				kc, _ := fakeCluster(t, 1)
				produceTxn(t, kc.ListenAddrs(), 3, true)
				var n atomic.Int32
				n.Store(1 << 20)
				answerFetches(kc, &n, func(rp kmsg.FetchRequestTopicPartition, sp *kmsg.FetchResponseTopicPartition) {
					sp.HighWatermark, sp.LastStableOffset = 0, 0
					if rp.Partition == 0 {
						sp.HighWatermark, sp.LastStableOffset = 5, 5
						if rp.FetchOffset <= int64(tc.last) {
							sp.RecordBatches = compactedBatch(0, []string{"a0", "a1", "a2"}, tc.last)
						}
					}
				})
				c := dial(t, kc.ListenAddrs())
				ends := map[TP]int64{p0: tc.end, {"t", 1}: 0, {"t", 2}: 0}
				got, pos := readValues(t, c, ends)
				if d := cmp.Diff([]string{"a0", "a1", "a2"}, got); d != "" {
					t.Errorf("values (-want +got):\n%s", d)
				}
				if pos[p0] != tc.end {
					t.Errorf("position %d, want %d", pos[p0], tc.end)
				}
			})
		}
	}
}
