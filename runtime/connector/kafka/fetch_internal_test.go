package kafka

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// fakeCluster starts a kfake cluster of brokers brokers with topic "t"
// of 3 partitions, and a Client of it.
func fakeCluster(t *testing.T, brokers int) (*kfake.Cluster, *Client) {
	t.Helper()
	kc, err := kfake.NewCluster(kfake.NumBrokers(brokers), kfake.SeedTopics(3, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kc.Close)
	c, err := Dial(context.Background(), Config{Servers: kc.ListenAddrs()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return kc, c
}

// produceMixed writes n records to each partition of "t" with the
// client library: batches of each codec, keys and null keys, null and
// empty values, headers, times out of order, a committed and an aborted
// transaction.
func produceMixed(t *testing.T, servers []string, n int) {
	t.Helper()
	ctx := context.Background()
	i := 0
	rec := func(p int32) *kgo.Record {
		i++
		r := &kgo.Record{Topic: "t", Partition: p, Value: []byte(fmt.Sprintf("v%d", i)), Timestamp: time.UnixMilli(int64(1_000_000 + i*(1-2*(i%3))))}
		switch i % 5 {
		case 1:
			r.Key = []byte(fmt.Sprintf("k%d", i%7))
		case 2:
			r.Value = nil
		case 3:
			r.Value = []byte{}
		}
		if i%4 == 0 {
			r.Headers = []kgo.RecordHeader{{Key: "h", Value: []byte("x")}, {Key: "n"}}
		}
		return r
	}
	for _, codec := range []kgo.CompressionCodec{kgo.NoCompression(), kgo.SnappyCompression(), kgo.Lz4Compression(), kgo.ZstdCompression(), kgo.GzipCompression()} {
		cl, err := kgo.NewClient(kgo.SeedBrokers(servers...), kgo.ProducerBatchCompression(codec),
			kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(0))
		if err != nil {
			t.Fatal(err)
		}
		for p := range int32(3) {
			for range n / 6 {
				if err := cl.ProduceSync(ctx, rec(p)).FirstErr(); err != nil {
					t.Fatal(err)
				}
			}
			var rs []*kgo.Record
			for range n / 6 {
				rs = append(rs, rec(p))
			}
			if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
		cl.Close()
	}
	for _, commit := range []bool{true, false} {
		cl, err := kgo.NewClient(kgo.SeedBrokers(servers...), kgo.TransactionalID(fmt.Sprintf("x%v", commit)),
			kgo.RecordPartitioner(kgo.ManualPartitioner()))
		if err != nil {
			t.Fatal(err)
		}
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for p := range int32(3) {
			if err := cl.ProduceSync(ctx, rec(p), rec(p)).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
		if err := cl.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
			t.Fatal(err)
		}
		cl.Close()
	}
}

// show is a record as a test compares it.
func show(r Record) string {
	var hs []string
	for _, h := range r.Headers {
		hs = append(hs, fmt.Sprintf("%s=%q/%v", h.Key, h.Value, h.Value == nil))
	}
	return fmt.Sprintf("%s@%d t=%d k=%q/%v v=%q/%v h=%s", r.TP, r.Offset, r.Timestamp, r.Key, r.Key == nil, r.Value, r.Value == nil, strings.Join(hs, ","))
}

// readBounded reads "t" from starts to ends.
func readBounded(t *testing.T, c *Client, starts, ends map[TP]int64) ([]string, map[TP]int64) {
	t.Helper()
	return readBoundedAs(t, c, starts, ends, show)
}

// readerOfT is a Reader of every partition of topic "t" from starts to
// ends (nil: unbounded).
func readerOfT(t *testing.T, c *Client, starts, ends map[TP]int64) *Reader {
	t.Helper()
	tps, err := c.Partitions(context.Background(), []string{"t"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.NewReader(tps, starts, ends)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// readBoundedAs is readBounded with each record shown by as.
func readBoundedAs(t *testing.T, c *Client, starts, ends map[TP]int64, as func(Record) string) ([]string, map[TP]int64) {
	t.Helper()
	r := readerOfT(t, c, starts, ends)
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out []string
	for {
		rec, ok, err := r.Next(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out, r.Position()
		}
		out = append(out, as(rec))
	}
}

// consumeBounded reads "t" from starts to ends with the client library's
// consumer (read committed as c is), the reference the Reader is
// compared with: the records merged as a bounded read merges them (the
// earliest of the partitions' next records first, ties by partition),
// and where each partition ended (after its last record or transaction
// marker before its end). The partitions must end with a record or a
// marker just before their ends.
func consumeBounded(t *testing.T, c *Client, starts, ends map[TP]int64) ([]string, map[TP]int64) {
	t.Helper()
	assign := map[string]map[int32]kgo.Offset{"t": {}}
	pos := map[TP]int64{}
	for tp, o := range starts {
		pos[tp] = o
		if o < ends[tp] {
			assign["t"][tp.Partition] = kgo.NewOffset().At(o)
		}
	}
	opts := []kgo.Opt{kgo.SeedBrokers(c.cfg.Servers...), kgo.ConsumePartitions(assign), kgo.KeepControlRecords()}
	if c.cfg.ReadCommitted {
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	byPart := make([][]Record, 3)
	done := func() bool {
		for tp, o := range pos {
			if o < ends[tp] {
				return false
			}
		}
		return true
	}
	for !done() {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("the consumer reached %v of %v: %v", pos, ends, err)
		}
		fs.EachRecord(func(kr *kgo.Record) {
			tp := TP{kr.Topic, kr.Partition}
			if kr.Offset >= ends[tp] {
				return
			}
			pos[tp] = kr.Offset + 1
			if kr.Attrs.IsControl() {
				return
			}
			r := Record{TP: tp, Offset: kr.Offset, Timestamp: kr.Timestamp.UnixMilli(), Key: kr.Key, Value: kr.Value}
			for _, h := range kr.Headers {
				r.Headers = append(r.Headers, Header{Key: h.Key, Value: h.Value})
			}
			byPart[kr.Partition] = append(byPart[kr.Partition], r)
		})
	}
	var out []string
	for {
		best := -1
		for p, recs := range byPart {
			if len(recs) > 0 && (best < 0 || recs[0].Timestamp < byPart[best][0].Timestamp) {
				best = p
			}
		}
		if best < 0 {
			return out, pos
		}
		out = append(out, show(byPart[best][0]))
		byPart[best] = byPart[best][1:]
	}
}

// byPartition is a read's records, each partition's in the order read,
// one partition after the other.
func byPartition(recs []string) []string {
	out := slices.Clone(recs)
	sort.SliceStable(out, func(i, j int) bool { return out[i][:4] < out[j][:4] })
	return out
}

// readUnbounded reads n records of "t" from starts with Start and
// TryNext, and returns them by partition.
func readUnbounded(t *testing.T, c *Client, starts map[TP]int64, n int, between func(int)) []string {
	t.Helper()
	r := readerOfT(t, c, starts, nil)
	defer r.Close()
	woken := make(chan struct{}, 1)
	r.Start(func() {
		select {
		case woken <- struct{}{}:
		default:
		}
	})
	var out []string
	deadline := time.After(20 * time.Second)
	for len(out) < n {
		rec, ok, err := r.TryNext()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			select {
			case <-woken:
			case <-deadline:
				t.Fatalf("%d records of %d within 20 s", len(out), n)
			}
			continue
		}
		out = append(out, show(rec))
		if between != nil {
			between(len(out))
		}
	}
	return byPartition(out)
}

// TestReader_fetcher_sameAsConsumer: a Reader reads what the client
// library's consumer reads, merged as a bounded read merges, to the same
// positions, every record or committed ones: every codec, null and empty
// keys and values, headers, transaction markers and aborted records,
// reads that start within a compressed batch, bounded and unbounded.
func TestReader_fetcher_sameAsConsumer(t *testing.T) {
	kc, uc := fakeCluster(t, 1)
	produceMixed(t, kc.ListenAddrs(), 60)
	cc, err := Dial(context.Background(), Config{Servers: kc.ListenAddrs(), ReadCommitted: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	t.Run("read_uncommitted", func(t *testing.T) { sameAsConsumer(t, uc) })
	t.Run("read_committed", func(t *testing.T) { sameAsConsumer(t, cc) })
}

func sameAsConsumer(t *testing.T, c *Client) {
	ctx := context.Background()
	tps, _ := c.Partitions(ctx, []string{"t"})
	earliest, _ := c.Offsets(ctx, tps, Earliest)
	latest, _ := c.Offsets(ctx, tps, Latest)
	mid := map[TP]int64{}
	for tp, o := range latest {
		mid[tp] = o/2 + 1
	}
	for _, tc := range []struct {
		name        string
		starts, end map[TP]int64
	}{
		{"all", earliest, latest},
		{"from the middle", mid, latest},
		{"to the middle", earliest, mid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, wantPos := consumeBounded(t, c, tc.starts, tc.end)
			got, gotPos := readBounded(t, c, tc.starts, tc.end)
			if len(want) < 20 {
				t.Fatalf("the consumer read %d records", len(want))
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("records (-consumer +fetcher):\n%.3000s", d)
			}
			if d := cmp.Diff(wantPos, gotPos); d != "" {
				t.Errorf("positions (-consumer +fetcher):\n%s", d)
			}
		})
	}
	t.Run("unbounded", func(t *testing.T) {
		want := byPartition(must(consumeBounded(t, c, mid, latest)))
		got := readUnbounded(t, c, mid, len(want), nil)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("records by partition (-consumer +fetcher):\n%.3000s", d)
		}
	})
}

func must[T, U any](x T, _ U) T { return x }

// TestReader_fetcher_leaderMoves: partitions led by different brokers
// are fetched from each; a partition whose leader moves during a read is
// fetched from the new leader (NOT_LEADER_OR_FOLLOWER, then the leaders
// looked up again), nothing lost or read twice.
func TestReader_fetcher_leaderMoves(t *testing.T) {
	kc, c := fakeCluster(t, 3)
	// The fake cluster places leaders at random: all three on one
	// broker one time in nine.
	if l := kc.LeaderFor("t", 1); l == kc.LeaderFor("t", 2) {
		if err := kc.MoveTopicPartition("t", 1, (l+1)%3); err != nil {
			t.Fatal(err)
		}
	}
	leaders := map[int32]bool{}
	for p := range int32(3) {
		leaders[kc.LeaderFor("t", p)] = true
	}
	if len(leaders) < 2 {
		t.Fatalf("the fake cluster put every partition on one broker: %v", leaders)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(kc.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	write := func(from, to int) {
		for i := from; i < to; i++ {
			r := &kgo.Record{Topic: "t", Partition: int32(i % 3), Value: []byte(fmt.Sprint(i)), Timestamp: time.UnixMilli(int64(i + 1))}
			if err := cl.ProduceSync(context.Background(), r).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	const n = 90
	write(0, n/2)
	starts := map[TP]int64{{"t", 0}: 0, {"t", 1}: 0, {"t", 2}: 0}
	got := readUnbounded(t, c, starts, n, func(read int) {
		if read == n/2 {
			to := (kc.LeaderFor("t", 0) + 1) % 3
			if err := kc.MoveTopicPartition("t", 0, to); err != nil {
				t.Fatal(err)
			}
			write(n/2, n)
		}
	})
	var want []string
	for p := range 3 {
		for i := p; i < n; i += 3 {
			want = append(want, show(Record{TP: TP{"t", int32(p)}, Offset: int64(i / 3), Timestamp: int64(i + 1), Value: []byte(fmt.Sprint(i))}))
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("records by partition (-want +got):\n%.3000s", d)
	}
}

// answerFetches makes the cluster answer the next n fetch requests
// itself (n counts down): each partition's answer as set does.
func answerFetches(kc *kfake.Cluster, n *atomic.Int32, set func(kmsg.FetchRequestTopicPartition, *kmsg.FetchResponseTopicPartition)) {
	kc.ControlKey(int16(kmsg.Fetch), func(req kmsg.Request) (kmsg.Response, error, bool) {
		kc.KeepControl()
		if n.Add(-1) < 0 {
			return nil, nil, false
		}
		freq := req.(*kmsg.FetchRequest)
		resp := freq.ResponseKind().(*kmsg.FetchResponse)
		for _, rt := range freq.Topics {
			st := kmsg.NewFetchResponseTopic()
			st.Topic, st.TopicID = rt.Topic, rt.TopicID
			for _, rp := range rt.Partitions {
				sp := kmsg.NewFetchResponseTopicPartition()
				sp.Partition = rp.Partition
				set(rp, &sp)
				st.Partitions = append(st.Partitions, sp)
			}
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil, true
	})
}

// TestReader_fetcher_errors: a partition refused with a retriable error
// is fetched again; an error that is not retriable ends the read with
// the partition and offset; an offset out of range reads from the first.
func TestReader_fetcher_errors(t *testing.T) {
	kc, c := fakeCluster(t, 1)
	produceMixed(t, kc.ListenAddrs(), 12)
	ctx := context.Background()
	tps, _ := c.Partitions(ctx, []string{"t"})
	earliest, _ := c.Offsets(ctx, tps, Earliest)
	latest, _ := c.Offsets(ctx, tps, Latest)
	want, _ := readBounded(t, c, earliest, latest) // with no answer refused

	var refuse atomic.Int32
	var code atomic.Int32
	answerFetches(kc, &refuse, func(rp kmsg.FetchRequestTopicPartition, sp *kmsg.FetchResponseTopicPartition) {
		sp.ErrorCode = int16(code.Load())
	})
	t.Run("retriable", func(t *testing.T) {
		refuse.Store(3)
		code.Store(int32(kerr.NotLeaderForPartition.Code))
		got, _ := readBounded(t, c, earliest, latest)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("records (-want +got):\n%.3000s", d)
		}
	})
	t.Run("not retriable", func(t *testing.T) {
		refuse.Store(1)
		code.Store(int32(kerr.TopicAuthorizationFailed.Code))
		defer refuse.Store(0)
		r, err := c.NewReader(tps, earliest, latest)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		_, _, err = r.Next(ctx, 0)
		if err == nil || !strings.HasPrefix(err.Error(), "reading partition t/") || !strings.Contains(err.Error(), " at offset 0: TOPIC_AUTHORIZATION_FAILED") {
			t.Errorf("Next = %v", err)
		}
	})
	t.Run("out of range", func(t *testing.T) {
		past := map[TP]int64{}
		for tp, o := range latest {
			past[tp] = o + 100
		}
		n := len(want)
		// As the client library's consumer with the Reader's reset to
		// the start: from the first offsets.
		wantU := byPartition(want)
		gotU := readUnbounded(t, c, past, n, nil)
		if d := cmp.Diff(wantU, gotU); d != "" {
			t.Errorf("records by partition (-from the first offsets +from past the end):\n%.3000s", d)
		}
	})
}

// oldMessages is a message set of magic 1 (before Kafka 0.11): values
// at offsets from base, times 1..n, null keys.
func oldMessages(base int64, values ...string) []byte {
	var out []byte
	for i, v := range values {
		m := kmsg.MessageV1{Offset: base + int64(i), Magic: 1, Timestamp: int64(i + 1), Value: []byte(v)}
		b := m.AppendTo(nil)
		binary.BigEndian.PutUint32(b[8:], uint32(len(b)-12))
		binary.BigEndian.PutUint32(b[12:], crc32.ChecksumIEEE(b[16:]))
		out = append(out, b...)
	}
	return out
}

// TestReader_fetcher_oldFormat: messages of a format before magic 2 in
// an answer are read with the client library's parser, and the read
// goes on after them: bounded and unbounded.
func TestReader_fetcher_oldFormat(t *testing.T) {
	kc, c := fakeCluster(t, 1)
	produceMixed(t, kc.ListenAddrs(), 12)
	ctx := context.Background()
	tps, _ := c.Partitions(ctx, []string{"t"})
	earliest, _ := c.Offsets(ctx, tps, Earliest)
	latest, _ := c.Offsets(ctx, tps, Latest)
	want, wantPos := readBounded(t, c, earliest, latest) // before any old message
	wantU := byPartition(want)
	// The first answer for partition 1 has its offsets 0 and 1 as
	// messages of magic 1.
	p1 := TP{"t", 1}
	olds := []string{
		show(Record{TP: p1, Offset: 0, Timestamp: 1, Value: []byte("old0")}),
		show(Record{TP: p1, Offset: 1, Timestamp: 2, Value: []byte("old1")}),
	}
	replace := func(lines []string) []string {
		var out []string
		for _, l := range lines {
			switch {
			case strings.HasPrefix(l, "t/1@0 "):
				out = append(out, olds[0])
			case strings.HasPrefix(l, "t/1@1 "):
				out = append(out, olds[1])
			default:
				out = append(out, l)
			}
		}
		return out
	}
	want, wantU = replace(want), replace(wantU)
	sort.Strings(want)

	var old atomic.Int32
	answerFetches(kc, &old, func(rp kmsg.FetchRequestTopicPartition, sp *kmsg.FetchResponseTopicPartition) {
		sp.HighWatermark = latest[TP{"t", rp.Partition}]
		if rp.Partition == 1 && rp.FetchOffset == 0 {
			sp.RecordBatches = oldMessages(0, "old0", "old1")
		}
	})
	old.Store(1)
	r, err := c.NewReader(tps, earliest, latest)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		rec, ok, err := r.Next(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		got = append(got, show(rec))
	}
	sort.Strings(got)
	if old.Load() > 0 {
		t.Errorf("no fetch was answered with the old messages")
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("records, sorted (-want +got):\n%.3000s", d)
	}
	if d := cmp.Diff(wantPos, r.Position()); d != "" {
		t.Errorf("positions (-want +got):\n%s", d)
	}
	r.Close()
	old.Store(1)
	gotU := readUnbounded(t, c, earliest, len(want), nil)
	if d := cmp.Diff(wantU, gotU); d != "" {
		t.Errorf("unbounded, by partition (-want +got):\n%.3000s", d)
	}
}

// TestRequestTopic: a request names each topic once, with the partitions
// asked of it under it, in the order they were asked.
func TestRequestTopic(t *testing.T) {
	req := kmsg.NewPtrFetchRequest()
	for _, tp := range []TP{{"a", 0}, {"b", 2}, {"a", 1}, {"c", 0}, {"b", 0}} {
		rt := requestTopic(&req.Topics, tp.Topic, func(rt *kmsg.FetchRequestTopic) string { return rt.Topic }, func() kmsg.FetchRequestTopic {
			rt := kmsg.NewFetchRequestTopic()
			rt.Topic = tp.Topic
			return rt
		})
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.Partition = tp.Partition
		rt.Partitions = append(rt.Partitions, rp)
	}
	var got []string
	for _, rt := range req.Topics {
		var ps []string
		for _, rp := range rt.Partitions {
			ps = append(ps, fmt.Sprint(rp.Partition))
		}
		got = append(got, rt.Topic+":"+strings.Join(ps, ","))
	}
	if d := cmp.Diff([]string{"a:0,1", "b:2,0", "c:0"}, got); d != "" {
		t.Errorf("topics (-want +got):\n%s", d)
	}
}
