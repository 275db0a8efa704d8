package kafka_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/runtime/connector/kafka"
	"github.com/ptfsh/ptfsh/runtime/connector/kafka/kafkatest"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// fetched is a record as the client library reads it back.
type fetched struct {
	Partition int32
	Key       string
	NullKey   bool
	Value     string
	Headers   string
	Time      int64
}

// fetchAll reads n records of topic with the client library, by
// partition and offset.
func fetchAll(t *testing.T, servers, topic string, n int) []fetched {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(servers, ",")...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	byPart := map[int32][]fetched{}
	for got := 0; got < n; {
		fs := cl.PollFetches(ctx)
		if err := fs.Err(); err != nil {
			t.Fatalf("after %d records: %v", got, err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			var hs []string
			for _, h := range r.Headers {
				hs = append(hs, fmt.Sprintf("%s=%q/%v", h.Key, h.Value, h.Value == nil))
			}
			byPart[r.Partition] = append(byPart[r.Partition], fetched{Partition: r.Partition, Key: string(r.Key), NullKey: r.Key == nil,
				Value: string(r.Value), Headers: strings.Join(hs, ","), Time: r.Timestamp.UnixMilli()})
			got++
		})
	}
	var out []fetched
	for p := range int32(len(byPart) + 3) {
		out = append(out, byPart[p]...)
	}
	return out
}

// TestWriter_Write_batches: the at-least-once writer makes its record
// batches itself; what the client library reads back has each record's
// key (null or not), value, headers and time, each keyed record in the
// partition Kafka's default partitioner (murmur2, as the client
// library's) gives, and a partition's records in the order written.
func TestWriter_Write_batches(t *testing.T) {
	for _, linger := range []time.Duration{0, -1, 50 * time.Millisecond} {
		t.Run(fmt.Sprintf("linger=%v", linger), func(t *testing.T) {
			k := kafkatest.Start(t, 3, "t")
			c := dial(t, k.Servers())
			w, err := c.NewWriter(kafka.WriterConfig{Linger: linger})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			ref := kgo.StickyKeyPartitioner(nil).ForTopic("t")
			const n = 5000
			var want []fetched
			start := time.Now().UnixMilli()
			for i := range n {
				rec := kafka.Record{TP: kafka.TP{Topic: "t"}, Key: []byte(fmt.Sprintf("user%d", i%97)), Value: []byte(fmt.Sprintf("v%d%s", i, strings.Repeat("x", i%300)))}
				switch i % 11 {
				case 3:
					rec.Key = nil
				case 5:
					rec.Key = []byte{}
				}
				if i%4 == 0 {
					rec.Timestamp = int64(1_000_000 + i*(1-2*(i%3))) // earlier and later than the batch's first
				}
				if i%13 == 0 {
					rec.Headers = []kafka.Header{{Key: "h", Value: []byte("x")}, {Key: "", Value: nil}, {Key: "e", Value: []byte{}}}
				}
				w.Write(context.Background(), rec)
				f := fetched{Partition: -1, Key: string(rec.Key), NullKey: rec.Key == nil, Value: string(rec.Value), Time: rec.Timestamp}
				if rec.Key != nil {
					f.Partition = int32(ref.Partition(&kgo.Record{Key: rec.Key}, 3))
				}
				if rec.Headers != nil {
					f.Headers = `h="x"/false,=""/true,e=""/false`
				}
				want = append(want, f)
				if i == n/2 {
					time.Sleep(2 * linger) // the batches waiting go out
				}
			}
			if err := w.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
			end := time.Now().UnixMilli()
			got := fetchAll(t, k.Servers(), "t", n)
			// Each partition's records in the order written.
			var wantOrdered []fetched
			for p := range int32(3) {
				for _, f := range want {
					if f.Partition == p {
						wantOrdered = append(wantOrdered, f)
					}
				}
			}
			var keyed []fetched
			for _, f := range got {
				if f.Time == 0 || f.Time >= start && f.Time <= end {
					f.Time = 0 // stamped when written
				}
				if !f.NullKey {
					keyed = append(keyed, f)
				}
			}
			if diff := cmp.Diff(wantOrdered, keyed); diff != "" {
				t.Fatalf("keyed records by partition (-want +got):\n%.3000s", diff)
			}
			if len(got) != n {
				t.Fatalf("%d records, want %d", len(got), n)
			}
		})
	}
}

// TestWriter_Write_retries: a partition whose leader refuses a produce
// request with a retriable error gets its batch again after the leader
// is looked up; an error that is not retriable is Flush's, with the
// topic and partition.
func TestWriter_Write_retries(t *testing.T) {
	kc, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	servers := strings.Join(kc.ListenAddrs(), ",")
	c := dial(t, servers)
	var refused, failing atomic.Int32
	refused.Store(2)
	kc.ControlKey(int16(kmsg.Produce), func(req kmsg.Request) (kmsg.Response, error, bool) {
		kc.KeepControl()
		code := int16(0)
		switch {
		case failing.Load() > 0:
			code = kerr.InvalidRecord.Code
		case refused.Add(-1) >= 0:
			code = kerr.NotLeaderForPartition.Code
		default:
			return nil, nil, false
		}
		preq := req.(*kmsg.ProduceRequest)
		resp := preq.ResponseKind().(*kmsg.ProduceResponse)
		for _, rt := range preq.Topics {
			st := kmsg.NewProduceResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				sp := kmsg.NewProduceResponseTopicPartition()
				sp.Partition, sp.ErrorCode = rp.Partition, code
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
	w, err := c.NewWriter(kafka.WriterConfig{Partitioner: kafka.PartitionRoundRobin, Linger: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := range 10 {
		w.Write(context.Background(), kafka.Record{TP: kafka.TP{Topic: "t"}, Value: []byte{byte('a' + i)}})
	}
	if err := w.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := fetchAll(t, servers, "t", 10)
	var vals string
	for _, f := range got {
		vals += f.Value
	}
	if vals != "acegibdfhj" {
		t.Errorf("values by partition: %s, want acegibdfhj", vals)
	}
	failing.Store(1)
	w.Write(context.Background(), kafka.Record{TP: kafka.TP{Topic: "t"}, Value: []byte("z")})
	err = w.Flush(context.Background())
	if err == nil || !strings.Contains(err.Error(), "writing to topic 't' partition 0") || !strings.Contains(err.Error(), "INVALID_RECORD") {
		t.Errorf("flush after a refused batch: %v", err)
	}
}

// TestWriter_Write_errors: records for a topic the cluster lacks, or for
// a partition it lacks (the fixed partitioner), fail the next Flush.
func TestWriter_Write_errors(t *testing.T) {
	k := kafkatest.Start(t, 2, "t")
	c := dial(t, k.Servers())
	for _, tc := range []struct {
		name string
		cfg  kafka.WriterConfig
		rec  kafka.Record
		want string
	}{
		{"no topic", kafka.WriterConfig{}, kafka.Record{TP: kafka.TP{Topic: "nope"}}, "topic 'nope': no such topic on the brokers"},
		{"no partition", kafka.WriterConfig{Partitioner: kafka.PartitionFixed}, kafka.Record{TP: kafka.TP{Topic: "t", Partition: 2}}, "writing to topic 't': partition 2 of 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := c.NewWriter(tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			w.Write(context.Background(), tc.rec)
			if err := w.Flush(context.Background()); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
			// The error is said once; the writer goes on.
			w.Write(context.Background(), kafka.Record{TP: kafka.TP{Topic: "t"}, Value: []byte("ok")})
			if err := w.Flush(context.Background()); err != nil {
				t.Errorf("the next flush: %v", err)
			}
		})
	}
}

// TestWriter_Write_leaders: partitions led by different brokers get
// requests of their own, and a partition whose leader moves between
// writes gets its batches at the new leader (NOT_LEADER_OR_FOLLOWER,
// then the leaders looked up again).
func TestWriter_Write_leaders(t *testing.T) {
	kc, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(3, "t"))
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	servers := strings.Join(kc.ListenAddrs(), ",")
	// Partition p on broker p: the fake cluster places them at random,
	// at times all on one.
	leaders := map[int32]bool{}
	for p := range int32(3) {
		if kc.LeaderFor("t", p) != p {
			if err := kc.MoveTopicPartition("t", p, p); err != nil {
				t.Fatal(err)
			}
		}
		leaders[kc.LeaderFor("t", p)] = true
	}
	if len(leaders) < 2 {
		t.Fatalf("the fake cluster put every partition on one broker: %v", leaders)
	}
	c := dial(t, servers)
	w, err := c.NewWriter(kafka.WriterConfig{Partitioner: kafka.PartitionRoundRobin, Linger: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	const n = 300
	for i := range n {
		if i == n/2 {
			if err := w.Flush(context.Background()); err != nil {
				t.Fatal(err)
			}
			to := (kc.LeaderFor("t", 0) + 1) % 3
			if err := kc.MoveTopicPartition("t", 0, to); err != nil {
				t.Fatal(err)
			}
		}
		w.Write(context.Background(), kafka.Record{TP: kafka.TP{Topic: "t"}, Value: []byte(fmt.Sprint(i))})
	}
	if err := w.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := fetchAll(t, servers, "t", n)
	var want []fetched
	for p := range 3 {
		for i := p; i < n; i += 3 {
			want = append(want, fetched{Partition: int32(p), Value: fmt.Sprint(i), NullKey: true})
		}
	}
	for i := range got {
		got[i].Time = 0
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("records by partition (-want +got):\n%.2000s", diff)
	}
}
