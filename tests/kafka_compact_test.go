package tests

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ptfsh/ptfsh/runtime/connector/kafka"
	"github.com/ptfsh/ptfsh/runtime/connector/kafka/kafkatest"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestKafkaCompacted_boundedEnd (PTFSH_KAFKA=1): on a real broker whose
// cleaner removed a compacted topic's first offsets, a bounded read
// whose end falls among them ends there at once, reading every record
// or committed ones, and a read to the latest offset reads what the
// compaction kept.
func TestKafkaCompacted_boundedEnd(t *testing.T) {
	if !kafkatest.Real {
		t.Skip("PTFSH_KAFKA=1 runs it against a real broker")
	}
	servers := kafkatest.StartBroker(t)
	const topic = "compacted"
	kafkatest.CreateTopics(t, servers, 1, topic)
	ctx := context.Background()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(servers, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	set := func(v string) *string { return &v }
	// A segment rolls at the first record 100 ms (by record time) after
	// its first; the cleaner cleans any segment but the last (it looks
	// every 15 s).
	alter := []kadm.AlterConfig{
		{Name: "cleanup.policy", Value: set("compact")}, {Name: "segment.ms", Value: set("100")},
		{Name: "min.cleanable.dirty.ratio", Value: set("0.01")}, {Name: "min.compaction.lag.ms", Value: set("0")},
	}
	if _, err := kadm.NewClient(cl).AlterTopicConfigs(ctx, alter, topic); err != nil {
		t.Fatal(err)
	}
	c, err := kafka.Dial(ctx, kafka.Config{Servers: strings.Split(servers, ",")})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p0 := kafka.TP{Topic: topic, Partition: 0}
	// Offsets 0 to 4: key k, a batch each; offset 5, key z, in the next
	// segment (a segment rolls by the times of its records).
	for i, v := range []string{"a", "b", "c", "d", "e", "z"} {
		key, ts := "k", int64(1000+i)
		if v == "z" {
			key, ts = "z", 60_000
		}
		w, err := c.NewWriter(kafka.WriterConfig{Partitioner: kafka.PartitionFixed})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(ctx, kafka.Record{TP: p0, Timestamp: ts, Key: []byte(key), Value: []byte(v)})
		if err := w.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		w.Close()
	}
	read := func(t *testing.T, c *kafka.Client, end int64) ([]string, int64) {
		t.Helper()
		r, err := c.NewReader([]kafka.TP{p0}, map[kafka.TP]int64{p0: 0}, map[kafka.TP]int64{p0: end})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		var got []string
		for {
			rec, ok, err := r.Next(ctx, 0)
			if err != nil {
				t.Fatalf("reading to offset %d, after %v: %v", end, got, err)
			}
			if !ok {
				return got, r.Position()[p0]
			}
			got = append(got, fmt.Sprintf("%s@%d", rec.Value, rec.Offset))
		}
	}
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(2 * time.Second) {
		got, _ := read(t, c, 6)
		if len(got) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("90 s on, the cleaner has not compacted the topic: %v", got)
		}
	}
	for _, committed := range []bool{false, true} {
		t.Run(fmt.Sprintf("read_committed=%v", committed), func(t *testing.T) {
			c, err := kafka.Dial(ctx, kafka.Config{Servers: strings.Split(servers, ","), ReadCommitted: committed})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if got, pos := read(t, c, 2); len(got) != 0 || pos != 2 {
				t.Errorf("to offset 2, among those removed: %v, position %d; want none, 2", got, pos)
			}
			if got, pos := read(t, c, 6); strings.Join(got, " ") != "e@4 z@5" || pos != 6 {
				t.Errorf("to offset 6: %v, position %d; want e@4 z@5, 6", got, pos)
			}
		})
	}
}
