package kafka

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestWriter_Commit_waitsForMarkers: a transactional writer's Commit
// returns once the last stable offsets of the partitions it wrote are
// past its records, which a broker moves when it has written the
// transaction's markers, after it answered the commit: a read of
// committed records right after sees them.
func TestWriter_Commit_waitsForMarkers(t *testing.T) {
	kc, c := fakeCluster(t, 1)
	// The first look-ups of committed offsets after the commit still
	// find the transaction open: the last stable offset at its start.
	var behind, asked atomic.Int32
	kc.ControlKey(int16(kmsg.ListOffsets), func(req kmsg.Request) (kmsg.Response, error, bool) {
		kc.KeepControl()
		lreq := req.(*kmsg.ListOffsetsRequest)
		if lreq.IsolationLevel != 1 {
			return nil, nil, false
		}
		asked.Add(1)
		if behind.Add(-1) < 0 {
			return nil, nil, false
		}
		resp := lreq.ResponseKind().(*kmsg.ListOffsetsResponse)
		for _, rt := range lreq.Topics {
			st := kmsg.NewListOffsetsResponseTopic()
			st.Topic = rt.Topic
			for _, rp := range rt.Partitions {
				sp := kmsg.NewListOffsetsResponseTopicPartition()
				sp.Partition, sp.Offset, sp.Timestamp = rp.Partition, 0, -1
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	w, err := c.NewWriter(WriterConfig{TransactionalID: "tx", Partitioner: PartitionFixed})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx := context.Background()
	for _, v := range []string{"a", "b"} {
		w.Write(ctx, Record{TP: TP{"t", 1}, Value: []byte(v)})
	}
	behind.Store(3)
	if err := w.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if n := asked.Load(); n != 4 {
		t.Errorf("Commit looked the committed offsets up %d times, want 4 (3 behind, then past)", n)
	}
	cc, err := Dial(ctx, Config{Servers: kc.ListenAddrs(), ReadCommitted: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	latest, err := cc.Offsets(ctx, []TP{{"t", 1}}, Latest)
	if err != nil {
		t.Fatal(err)
	}
	if got := latest[TP{"t", 1}]; got != 3 {
		t.Errorf("after Commit, the last stable offset is %d, want 3 (two records and the marker)", got)
	}
}
