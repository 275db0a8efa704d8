package kafka_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ptfsh/ptfsh/runtime/connector/kafka"
	"github.com/ptfsh/ptfsh/runtime/connector/kafka/kafkatest"
	"github.com/twmb/franz-go/pkg/kgo"
)

func dial(t *testing.T, servers string) *kafka.Client {
	t.Helper()
	c, err := kafka.Dial(context.Background(), kafka.Config{Servers: strings.Split(servers, ",")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// produce writes records to partitions by hand, with timestamps.
func produce(t *testing.T, c *kafka.Client, recs ...kafka.Record) {
	t.Helper()
	w, err := c.NewWriter(kafka.WriterConfig{Partitioner: kafka.PartitionFixed})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, r := range recs {
		w.Write(context.Background(), r)
	}
	if err := w.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestReader_Next_boundedMerge(t *testing.T) {
	k := kafkatest.Start(t, 2, "clicks")
	c := dial(t, k.Servers())
	p0, p1 := kafka.TP{Topic: "clicks", Partition: 0}, kafka.TP{Topic: "clicks", Partition: 1}
	produce(t, c,
		kafka.Record{TP: p0, Timestamp: 1000, Value: []byte("a")},
		kafka.Record{TP: p0, Timestamp: 3000, Value: []byte("c")},
		kafka.Record{TP: p1, Timestamp: 2000, Value: []byte("b")},
		kafka.Record{TP: p1, Timestamp: 4000, Key: []byte("k"), Value: []byte("d")},
		kafka.Record{TP: p0, Timestamp: 2500, Value: []byte("late")},
	)
	tps, err := c.Partitions(context.Background(), []string{"clicks"})
	if err != nil {
		t.Fatal(err)
	}
	starts, err := c.Offsets(context.Background(), tps, kafka.Earliest)
	if err != nil {
		t.Fatal(err)
	}
	ends, err := c.Offsets(context.Background(), tps, kafka.Latest)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[kafka.TP]int64{p0: 3, p1: 2}, ends); diff != "" {
		t.Fatalf("ends (-want +got):\n%s", diff)
	}
	r, err := c.NewReader(tps, starts, ends)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []string
	for {
		rec, ok, err := r.Next(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		got = append(got, fmt.Sprintf("%s@%d:%s", rec.TP, rec.Offset, rec.Value))
		if tps[rec.Part] != rec.TP {
			t.Errorf("%s@%d: Part %d is %s", rec.TP, rec.Offset, rec.Part, tps[rec.Part])
		}
	}
	// Each partition in offset order; across them by timestamp.
	want := []string{"clicks/0@0:a", "clicks/1@0:b", "clicks/0@1:c", "clicks/0@2:late", "clicks/1@1:d"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[kafka.TP]int64{p0: 3, p1: 2}, r.Position()); diff != "" {
		t.Errorf("position (-want +got):\n%s", diff)
	}
}

func TestClient_Partitions_missingTopic(t *testing.T) {
	k := kafkatest.Start(t, 1, "clicks")
	c := dial(t, k.Servers())
	_, err := c.Partitions(context.Background(), []string{"nope"})
	if !errors.Is(err, kafka.ErrNoTopic) || !strings.Contains(err.Error(), "topic 'nope'") {
		t.Fatalf("err = %v, want a missing topic named", err)
	}
}

func TestDial_unreachable(t *testing.T) {
	start := time.Now()
	_, err := kafka.Dial(context.Background(), kafka.Config{Servers: []string{"127.0.0.1:1"}, Timeout: time.Second})
	if err == nil || !strings.Contains(err.Error(), "cannot reach the Kafka brokers 127.0.0.1:1") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %s to fail", d)
	}
}

// TestDial_notABroker: a server that closes the connection at the first
// request (a KRaft controller's port, a listener that wants SASL or TLS)
// is named as such, with what to check.
func TestDial_notABroker(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			// Read the request whole, then close: the client reads EOF.
			var size [4]byte
			if _, err := io.ReadFull(conn, size[:]); err == nil {
				io.CopyN(io.Discard, conn, int64(binary.BigEndian.Uint32(size[:])))
			}
			conn.Close()
		}
	}()
	_, err = kafka.Dial(context.Background(), kafka.Config{Servers: []string{ln.Addr().String()}, Timeout: 2 * time.Second})
	want := "the server at " + ln.Addr().String() + " (properties.bootstrap.servers) closed the connection at the first request: check that it is a Kafka broker's listener"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want %q", err, want)
	}
}

func TestReader_Next_unboundedIdlePartition(t *testing.T) {
	k := kafkatest.Start(t, 2, "clicks")
	c := dial(t, k.Servers())
	p0 := kafka.TP{Topic: "clicks", Partition: 0}
	produce(t, c, kafka.Record{TP: p0, Timestamp: 1000, Value: []byte("a")})
	tps, _ := c.Partitions(context.Background(), []string{"clicks"})
	starts, _ := c.Offsets(context.Background(), tps, kafka.Earliest)
	r, err := c.NewReader(tps, starts, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// Partition 1 stays empty: the record of partition 0 comes all the same.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rec, ok, err := r.Next(ctx, 0)
	if err != nil || !ok || string(rec.Value) != "a" {
		t.Fatalf("Next = %v %v %v", rec, ok, err)
	}
	_, _, err = r.Next(ctx, 300*time.Millisecond)
	if !errors.Is(err, kafka.ErrIdle) {
		t.Fatalf("Next on idle partitions = %v, want ErrIdle", err)
	}
}

func TestReader_Next_transactionMarkers(t *testing.T) {
	k := kafkatest.Start(t, 2, "clicks")
	c := dial(t, k.Servers())
	p0, p1 := kafka.TP{Topic: "clicks", Partition: 0}, kafka.TP{Topic: "clicks", Partition: 1}
	ctx := context.Background()
	// Two transactions into partition 0, each ended by a marker; partition
	// 1 gets one record outside them.
	for i, vals := range [][]string{{"a", "b"}, {"c"}} {
		w, err := c.NewWriter(kafka.WriterConfig{Partitioner: kafka.PartitionFixed, TransactionalID: fmt.Sprintf("txn-%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		for j, v := range vals {
			w.Write(ctx, kafka.Record{TP: p0, Timestamp: int64(1000*i + j + 1), Value: []byte(v)})
		}
		if err := w.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		w.Close()
	}
	produce(t, c, kafka.Record{TP: p1, Timestamp: 1500, Value: []byte("x")})
	tps, err := c.Partitions(ctx, []string{"clicks"})
	if err != nil {
		t.Fatal(err)
	}
	starts, _ := c.Offsets(ctx, tps, kafka.Earliest)
	ends, _ := c.Offsets(ctx, tps, kafka.Latest)
	// a b marker c marker: the end of partition 0 is after the second marker.
	if ends[p0] != 5 || ends[p1] != 1 {
		t.Fatalf("ends = %v, want clicks/0 at 5 and clicks/1 at 1", ends)
	}
	r, err := c.NewReader(tps, starts, ends)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []string
	for {
		rec, ok, err := r.Next(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		got = append(got, fmt.Sprintf("%s@%d:%s", rec.TP, rec.Offset, rec.Value))
	}
	want := []string{"clicks/0@0:a", "clicks/0@1:b", "clicks/0@3:c", "clicks/1@0:x"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	// The markers are read past: the read ends at the end of both.
	if diff := cmp.Diff(map[kafka.TP]int64{p0: 5, p1: 1}, r.Position()); diff != "" {
		t.Errorf("position (-want +got):\n%s", diff)
	}
	if !r.Done(p0) || !r.DoneAt(1) {
		t.Errorf("Done = %v, %v; want both partitions done", r.Done(p0), r.DoneAt(1))
	}
}

// TestWriter_Write_compression: each compression.type writes batches of
// its codec (none by default, as Kafka's producers), which read back.
func TestWriter_Write_compression(t *testing.T) {
	codec := map[string]uint8{"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4, "": 0}
	for _, comp := range []string{"none", "gzip", "snappy", "lz4", "zstd", ""} {
		t.Run("compression="+comp, func(t *testing.T) {
			k := kafkatest.Start(t, 1, "t")
			c := dial(t, k.Servers())
			ctx := context.Background()
			w, err := c.NewWriter(kafka.WriterConfig{Compression: comp, Linger: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			p0 := kafka.TP{Topic: "t"}
			for i := range 3 {
				w.Write(ctx, kafka.Record{TP: p0, Timestamp: int64(i + 1), Value: []byte(strings.Repeat("v", 100*i))})
			}
			if err := w.Flush(ctx); err != nil {
				t.Fatal(err)
			}
			tps := []kafka.TP{p0}
			r, err := c.NewReader(tps, map[kafka.TP]int64{p0: 0}, map[kafka.TP]int64{p0: 3})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			for i := range 3 {
				rec, ok, err := r.Next(ctx, 0)
				if err != nil || !ok || len(rec.Value) != 100*i {
					t.Fatalf("record %d: %d bytes, %v, %v", i, len(rec.Value), ok, err)
				}
			}
			// The batches' codec, as the client library reads it.
			cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(k.Servers(), ",")...),
				kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{"t": {0: kgo.NewOffset().AtStart()}}))
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			fctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			fs := cl.PollFetches(fctx)
			if err := fs.Err(); err != nil {
				t.Fatal(err)
			}
			if n := len(fs.Records()); n != 3 {
				t.Fatalf("%d records fetched, want 3", n)
			}
			for _, rec := range fs.Records() {
				if got := rec.Attrs.CompressionType(); got != codec[comp] {
					t.Errorf("offset %d: codec %d, want %d", rec.Offset, got, codec[comp])
				}
			}
		})
	}
	if _, err := (&kafka.Client{}).NewWriter(kafka.WriterConfig{Compression: "brotli"}); err == nil || !strings.Contains(err.Error(), "brotli") {
		t.Errorf("compression brotli: err = %v", err)
	}
}

// TestWriter_Write_copies: the writer copies a record's key and value, so
// one buffer reused for every record written gives each record its own
// bytes; records made again from acknowledged ones (the writer reuses
// them) keep a null key null and an empty one empty; and the reader hands
// back every record of many fetched batches in order.
func TestWriter_Write_copies(t *testing.T) {
	k := kafkatest.Start(t, 1, "t")
	c := dial(t, k.Servers())
	p0 := kafka.TP{Topic: "t", Partition: 0}
	w, err := c.NewWriter(kafka.WriterConfig{Partitioner: kafka.PartitionFixed, Linger: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	type kv struct {
		Key, Value string
		NullKey    bool
	}
	var want []kv
	var buf []byte
	const n = 3000
	for i := range n {
		key := strings.Repeat("k", i%5)
		val := fmt.Sprintf("v%d-%s", i, strings.Repeat("x", (i*37)%700))
		buf = append(append(buf[:0], key...), val...)
		rec := kafka.Record{TP: p0, Timestamp: int64(i + 1), Key: buf[:len(key):len(key)], Value: buf[len(key):]}
		if i%7 == 3 {
			rec.Key = nil
		}
		w.Write(context.Background(), rec)
		want = append(want, kv{Key: key, Value: val, NullKey: i%7 == 3})
		if want[i].NullKey {
			want[i].Key = ""
		}
		clear(buf) // the writer has its own copy
		if i%400 == 399 {
			if err := w.Flush(context.Background()); err != nil { // acknowledged records are reused after this
				t.Fatal(err)
			}
		}
	}
	if err := w.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	r, err := c.NewReader([]kafka.TP{p0}, map[kafka.TP]int64{p0: 0}, map[kafka.TP]int64{p0: n})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []kv
	for {
		rec, ok, err := r.Next(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		got = append(got, kv{Key: string(rec.Key), Value: string(rec.Value), NullKey: rec.Key == nil})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("records (-want +got):\n%.3000s", diff)
	}
}
